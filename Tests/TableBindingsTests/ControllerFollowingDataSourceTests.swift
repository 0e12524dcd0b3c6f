import Foundation
import HeadlessTable
import TableTestSupport
import Testing

/// A diffable data source that follows a fetched results controller, and the
/// controller's snapshot delegate.
@Suite struct ControllerFollowingDataSourceTests {
    /// A data source following a fetched results controller under random saves
    /// from several contexts: after every save the table shows the controller's
    /// results, every visible cell its record's current content (edited rows
    /// are reconfigured), and every apply succeeded.
    @Test(arguments: [false, true])
    func followingAControllerUnderRandomSaves(sectioned: Bool) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ (sectioned ? 1 : 0))
        let groups = ["a", "b", "c", "d"]
        let burst = NoteChangeBurst(groups: groups, noGroupOnInsert: 0, noGroupOnEdit: 0)
        var nextID = 0
        for round in 0..<8 {
            let store = ObjectStore(for: Note.self)
            let view = ObjectContext(store: store, name: "view")
            let writer = ObjectContext(store: store, name: "writer")
            for _ in 0..<g.int(0...30) {
                try view.insert(Note(id: nextID, group: groups[g.int(0..<3)], rank: g.int(0...20)))
                nextID += 1
            }
            try view.save()
            let request = FetchRequest<Note>(sortKeys: sectioned ? [SortKey("group"), SortKey("rank")] : [SortKey("rank", ascending: false)])
            let controller = FetchedResultsController(fetchRequest: request, context: view, sectionNameKeyPath: sectioned ? "group" : nil)
            if g.chance(0.3) { controller.changedObjectsInSnapshots = .reload }
            let table = TableView(viewportHeight: Double(g.int(10...60)))
            try table.register(TableViewCell.self, forCellReuseIdentifier: "note")
            let text = { (note: Note) in "\(note.id) \(note.group ?? "-") \(note.rank) v\(note.version)" }
            let dataSource = try TableViewDiffableDataSource<String, Int>(tableView: table) { table, path, id in
                let cell = try table.dequeueReusableCell(withIdentifier: "note", for: path)
                cell.text = try view.object(Note.self, id: id).map(text)
                return cell
            }
            dataSource.headerTitleProvider = { name, _ in name }
            try dataSource.follow(controller)
            for step in 0..<30 {
                let context = g.chance(0.3) ? view : writer
                try burst.make(in: context, existing: store.objects(Note.self).map(\.id), nextID: &nextID, &g)
                // A save conflicting with another context's is refused (the
                // default merge policy): that context starts over.
                context.saveOrRollBack(mergingInto: view)
                let where_ = "seed \(seed), round \(round), step \(step)"
                table._checkInvariants()
                #expect(dataSource.lastFollowError == nil, "\(where_): \(dataSource.lastFollowError.map { "\($0)" } ?? "")")
                expectEqual(table.numberOfSections, controller.numberOfSections, "\(where_)")
                for s in 0..<min(table.numberOfSections, controller.numberOfSections) {
                    expectEqual(table.numberOfRows(inSection: s), controller.numberOfObjects(inSection: s), "\(where_)")
                    expectEqual(dataSource.sectionIdentifier(for: s), controller.name(ofSection: s), "\(where_)")
                }
                for path in table.indexPathsForVisibleRows {
                    expectEqual(table.cellForRow(at: path)?.text, (try? controller.object(at: path)).map(text), "\(where_): \(path)")
                }
                if g.chance(0.3) { try table.setContentOffset(Double(g.int(0...Int(max(0, table.contentHeight - table.viewportHeight))))) }
            }
            // Applying while following is refused; after it, snapshots apply
            // from what the table showed.
            expectThrows(TableViewDiffableDataSourceError.self) { try dataSource.apply(TableSnapshot()) }
            let shown = try controller.snapshot()
            dataSource.stopFollowing()
            #expect(controller.delegate == nil)
            expectEqual(dataSource.snapshot(), shown)
            try dataSource.apply(TableSnapshot())
            expectEqual(table.numberOfSections, 0)
        }
    }

    /// A snapshot delegate gets snapshots with the changed objects marked, and
    /// no per-object calls (as Core Data's snapshot delegate).
    @Test func aSnapshotDelegateGetsMarkedSnapshots() throws {
        final class Receiver: FetchedResultsControllerSnapshotDelegate {
            typealias Object = Note
            var snapshots: [TableSnapshot<String, Int>] = []
            var objectCalls = 0
            func controller(_ controller: FetchedResultsController<Note>, didChangeContentWith snapshot: TableSnapshot<String, Int>) { snapshots.append(snapshot) }
            func controller(_ controller: FetchedResultsController<Note>, didChange object: Note, at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?) { objectCalls += 1 }
        }
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store)
        for id in 0..<4 { try context.insert(Note(id: id, group: id < 2 ? "x" : "y", rank: id)) }
        try context.save()
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("group"), SortKey("rank")]), context: context, sectionNameKeyPath: "group")
        let receiver = Receiver()
        controller.delegate = receiver
        try controller.performFetch()
        var note = try context.object(Note.self, id: 1)!
        note.version += 1
        try context.update(note)
        note = try context.object(Note.self, id: 2)!
        note.rank = -1
        try context.update(note)
        try context.delete(Note.self, id: 3)
        try context.save()
        expectEqual(receiver.objectCalls, 0)
        expectEqual(receiver.snapshots.count, 1)
        let snapshot = try #require(receiver.snapshots.first)
        expectEqual(snapshot.sectionIdentifiers, ["x", "y"])
        expectEqual(snapshot.itemIdentifiers, [0, 1, 2])
        expectEqual(Set(snapshot.reconfiguredItemIdentifiers), [1, 2])
        #expect(snapshot.reloadedItemIdentifiers.isEmpty)
        controller.changedObjectsInSnapshots = .reload
        note = try context.object(Note.self, id: 0)!
        note.version += 1
        try context.update(note)
        try context.save()
        expectEqual(receiver.snapshots.last?.reloadedItemIdentifiers, [0])
    }
}
