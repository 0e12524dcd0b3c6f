import Foundation
import HeadlessTable
import TableTestSupport
import Testing

/// A fetched results controller bound to a table, under random saves from
/// several contexts: after every change the table holds the controller's
/// sections and counts, every cell in the window shows its row's current
/// record, and no change needed a reload. Search tables follow too, and
/// deleting from them works.
@Suite struct BindingTests {
    final class NoteCell: TableViewCell {}

    static func text(_ note: Note) -> String { "\(note.id) \(note.group ?? "-") \(note.rank) v\(note.version)" }

    static func cell(_ table: TableView, _ path: TablePath, _ note: Note) throws -> TableViewCell {
        let cell = try table.dequeueReusableCell(withIdentifier: "note", for: path)
        cell.text = text(note)
        return cell
    }

    /// The table agrees with the controller, and its cells with the records.
    static func check(_ table: TableView, _ controller: FetchedResultsController<Note>, _ context: String) {
        table._checkInvariants()
        let sections = controller.sections ?? []
        expectEqual(table.numberOfSections, sections.count, "\(context)")
        for (s, section) in sections.enumerated() {
            expectEqual(table.numberOfRows(inSection: s), section.numberOfObjects, "\(context)")
        }
        for path in table.indexPathsForVisibleRows {
            let note = try? controller.object(at: path)
            expectEqual(table.cellForRow(at: path)?.text, note.map(text), "\(context): \(path)")
        }
        controller._checkInvariants()
    }

    @Test(arguments: [false, true])
    func randomSavesReachTheTableAsCheckedBatches(sectioned: Bool) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ (sectioned ? 1 : 0))
        let groups = ["a", "b", "c", "d", "e"]
        let burst = NoteChangeBurst(groups: groups)
        var nextID = 0
        var batches = 0
        for round in 0..<10 {
            let store = ObjectStore(for: Note.self)
            let view = ObjectContext(store: store, name: "view")
            let writers = [ObjectContext(store: store, name: "w1"), ObjectContext(store: store, name: "w2")]
            for _ in 0..<g.int(0...30) {
                try view.insert(Note(id: nextID, group: groups[g.int(0..<3)], rank: g.int(0...20)))
                nextID += 1
            }
            try view.save()
            var request = FetchRequest<Note>(sortKeys: sectioned ? [SortKey("group"), SortKey("rank")] : [SortKey("rank", ascending: false)])
            if g.chance(0.5) { request.predicate = try RecordPredicate(format: "rank != %d", 7) }
            let controller = FetchedResultsController(fetchRequest: request, context: view, sectionNameKeyPath: sectioned ? "group" : nil)
            let table = TableView(viewportHeight: g.chance(0.5) ? 100_000 : Double(g.int(50...300)))
            try table.register(NoteCell.self, forCellReuseIdentifier: "note")
            let binding = try table.bind(to: controller, cell: Self.cell)
            Self.check(table, controller, "seed \(seed), round \(round), start")

            for step in 0..<30 {
                let context = g.chance(0.3) ? view : writers[g.int(0..<2)]
                try burst.make(in: context, existing: store.objects(Note.self).map(\.id), nextID: &nextID, &g)
                context.saveOrRollBack(mergingInto: view)
                batches += 1
                if g.chance(0.3) { try table.setContentOffset(Double(g.int(0...2_000))) }
                Self.check(table, controller, "seed \(seed), round \(round), step \(step)")
                #expect(binding.lastError == nil, "seed \(seed), round \(round), step \(step): \(binding.lastError.map { "\($0)" } ?? "")")
                if binding.lastError != nil { return }
            }
        }
        expectEqual(batches, 300)
    }

    @Test func swipeToDeleteGoesThroughTheModel() throws {
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store)
        for id in 0..<5 { try context.insert(Note(id: id, group: nil, rank: id)) }
        try context.save()
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("rank")]), context: context)
        let table = TableView(viewportHeight: 1_000)
        try table.register(NoteCell.self, forCellReuseIdentifier: "note")
        let binding = try table.bind(to: controller, cell: Self.cell)
        expectThrows(TableViewError.notEditable(TablePath(row: 1, section: 0))) { try table.commit(.delete, forRowAt: TablePath(row: 1, section: 0)) }
        binding.onDelete = { note in
            try context.delete(Note.self, id: note.id)
            _ = try context.save()
        }
        try table.commit(.delete, forRowAt: TablePath(row: 1, section: 0))
        expectEqual(table.visibleCells.map(\.text), ["0 - 0 v0", "2 - 2 v0", "3 - 3 v0", "4 - 4 v0"])
        expectEqual(store.count, 4)
        Self.check(table, controller, "after the delete")
    }

    @Test func searchFollowsChangesAndDeletes() throws {
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store)
        let titles = ["Fog over the bridge", "First snow", "Lunch by the river", "Foggy morning", "Rainy walk"]
        for (id, title) in titles.enumerated() { try context.insert(Note(id: id, group: nil, rank: id, title: title)) }
        try context.save()
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("rank")]), context: context)
        let table = TableView(viewportHeight: 1_000)
        try table.register(NoteCell.self, forCellReuseIdentifier: "note")
        let binding = try table.bind(to: controller) { table, path, note in
            let cell = try table.dequeueReusableCell(withIdentifier: "note", for: path)
            cell.text = note.title
            return cell
        }
        binding.onDelete = { note in
            try context.delete(Note.self, id: note.id)
            _ = try context.save()
        }
        let search = try TableSearch(binding, format: "title CONTAINS[cd] %@")
        #expect(!search.isActive)
        try search.update(text: "FOG")
        expectEqual(search.resultsTable.visibleCells.map(\.text), ["Fog over the bridge", "Foggy morning"])
        #expect(search.resultsTable.reusePool === table.reusePool)
        // A change saved elsewhere reaches both tables.
        try context.insert(Note(id: 9, group: nil, rank: -1, title: "fog again"))
        try context.save()
        expectEqual(search.resultsTable.visibleCells.map(\.text), ["fog again", "Fog over the bridge", "Foggy morning"])
        expectEqual(table.visibleCells.count, 6)
        // Deleting from the results deletes the object: both tables follow.
        try search.resultsTable.commit(.delete, forRowAt: TablePath(row: 1, section: 0))
        expectEqual(search.resultsTable.visibleCells.map(\.text), ["fog again", "Foggy morning"])
        expectEqual(table.visibleCells.map(\.text), ["fog again", "First snow", "Lunch by the river", "Foggy morning", "Rainy walk"])
        // Typing on.
        try search.update(text: "fogg")
        expectEqual(search.resultsTable.visibleCells.map(\.text), ["Foggy morning"])
        try search.update(text: "")
        expectEqual(search.resultsTable.visibleCells.count, 5)
        // Cancelled: the results empty, the full table is the table again.
        search.cancel()
        #expect(!search.isActive && search.resultsTable.numberOfSections == 0)
        try context.insert(Note(id: 10, group: nil, rank: 10, title: "after"))
        try context.save()
        expectEqual(table.visibleCells.last?.text, "after")
        expectEqual(search.resultsTable.numberOfSections, 0)
        expectThrows(PredicateSyntaxError.self) { try TableSearch(binding, format: "title CONTAINS") }
    }
}
