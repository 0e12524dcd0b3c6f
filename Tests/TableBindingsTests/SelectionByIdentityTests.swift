import Foundation
import HeadlessTable
import TableTestSupport
import Testing

/// A bound table's selection by identity: random saves from two contexts
/// (moves, re-sections, inserts and deletes around and of the selected
/// objects), reloads, new requests, searches, taps and the binding's
/// selection calls, checked after every step against an independent model —
/// a plain set of identities, and the order of a fresh fetch.
@Suite struct SelectionByIdentityTests {
    final class NoteCell: TableViewCell {}

    static func cell(_ table: TableView, _ path: TablePath, _ note: Note) throws -> TableViewCell {
        let cell = try table.dequeueReusableCell(withIdentifier: "note", for: path)
        cell.text = "\(note.id) \(note.title) v\(note.version)"
        return cell
    }

    /// The identities a fresh fetch of `request` finds, in order.
    static func freshOrder(_ request: FetchRequest<Note>, _ context: ObjectContext, sectioned: Bool) throws -> [Int] {
        let fresh = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: sectioned ? "group" : nil)
        try fresh.performFetch()
        return (fresh.sections ?? []).flatMap { $0.objects.map(\.id) }
    }

    /// The binding and the table against the model: the count, the order,
    /// membership, the table's selected rows and the window's cells.
    static func check(
        _ binding: FetchedResultsTableBinding<Note>, _ table: TableView, selected model: Set<Int>, order: [Int], all ids: [Int], _ context: String
    ) {
        table._checkInvariants()
        binding.controller._checkInvariants()
        let expected = order.filter(model.contains)
        expectEqual(binding.numberOfSelectedObjects, expected.count, "\(context)")
        expectEqual(Array(binding.selectedObjectIDs), expected, "\(context)")
        for id in ids { expectEqual(binding.isObjectSelected(withID: id), model.contains(id), "\(context): \(id)") }
        let paths = table.indexPathsForSelectedRows
        expectEqual(paths.compactMap { binding.controller.objectID(at: $0) }, expected, "\(context)")
        expectEqual(table.indexPathForSelectedRow, paths.first, "\(context)")
        for path in table.indexPathsForVisibleRows {
            let id = binding.controller.objectID(at: path)
            expectEqual(table.cellForRow(at: path)?.isSelected, id.map(model.contains), "\(context): cell \(path)")
        }
    }

    /// `indexed`: a compacted file store, reopened, whose indexes answer the
    /// fetches with a batch size (results that keep identities only, records
    /// read from the file as rows are shown).
    @Test(arguments: [false, true], [false, true])
    func selectionFollowsItsObjectsThroughEveryChange(sectioned: Bool, indexed: Bool) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ (sectioned ? 1 : 0) &+ (indexed ? 2 : 0))
        let groups = ["a", "b", "c", "d"]
        let burst = NoteChangeBurst(groups: groups, changes: 1...4, noGroupOnInsert: 0, noGroupOnEdit: 0)
        var nextID = 0
        var readFromIndex = 0
        let folder = TemporaryFolder()
        for round in 0..<TestScale.cases(3, full: 20) {
            var first: [Note] = []
            for _ in 0..<g.int(0...40) {
                first.append(Note(id: nextID, group: groups[g.int(0..<groups.count)], rank: g.int(0...20), title: "t\(g.int(0...9))"))
                nextID += 1
            }
            let store: ObjectStore
            if indexed {
                store = try Note.compactedStore(first, model: Note.indexedModel, at: folder.url("round-\(round).htstore"))
            } else {
                store = ObjectStore(for: Note.self)
                let context = ObjectContext(store: store)
                for note in first { try context.insert(note) }
                try context.save()
            }
            let view = ObjectContext(store: store, name: "view"), writer = ObjectContext(store: store, name: "writer")
            func request(_ g: inout SeededGenerator) throws -> FetchRequest<Note> {
                let descending = g.chance(indexed ? 0.1 : 0.3)
                var request = FetchRequest<Note>(sortKeys: (sectioned ? [SortKey("group")] : []) + [SortKey("rank", ascending: !descending), SortKey("id")])
                if g.chance(0.5) { request.predicate = try RecordPredicate(format: "rank != %d", g.int(0...20)) }
                if indexed || g.chance(0.3) { request.fetchBatchSize = g.int(1...8) }
                return request
            }
            var current = try request(&g)
            let controller = FetchedResultsController(fetchRequest: current, context: view, sectionNameKeyPath: sectioned ? "group" : nil)
            let table = TableView(viewportHeight: Double(g.int(100...600)))
            table.allowsMultipleSelection = true
            try table.register(NoteCell.self, forCellReuseIdentifier: "note")
            let binding = try table.bind(to: controller, cell: Self.cell)
            var search: TableSearch<Note>?
            var model = Set<Int>()
            var order = try Self.freshOrder(current, view, sectioned: sectioned)

            for step in 0..<TestScale.cases(25, full: 80) {
                let context = "seed \(seed), round \(round), step \(step)"
                let ids = store.objects(Note.self).map(\.id)
                switch g.int(0..<12) {
                case 0, 1, 2:
                    let saver = g.chance(0.5) ? view : writer
                    try burst.make(in: saver, existing: ids, nextID: &nextID, &g)
                    saver.saveOrRollBack(mergingInto: view)
                    order = try Self.freshOrder(current, view, sectioned: sectioned)
                    model.formIntersection(order)   // objects that left the results leave the selection
                case 3:
                    try table.reloadData()
                case 4:
                    current = try request(&g)
                    try binding.performFetch(with: current)
                    order = try Self.freshOrder(current, view, sectioned: sectioned)
                    model.formIntersection(order)
                case 5:
                    let id = g.chance(0.8) && !ids.isEmpty ? ids[g.int(0..<ids.count)] : nextID + 100
                    do {
                        try binding.selectObject(withID: id)
                        #expect(order.contains(id), "\(context): selected \(id), not in the results")
                        model.insert(id)
                    } catch {
                        #expect(!order.contains(id) && error == .noSuchObject("\(id)"), "\(context): \(error)")
                    }
                case 6:
                    if let id = ids.randomElement(using: &g) {
                        binding.deselectObject(withID: id)
                        model.remove(id)
                    }
                case 7:
                    if g.chance(0.5) {
                        try binding.selectAllObjects()
                        model = Set(order)
                    } else {
                        binding.deselectAllObjects()
                        model = []
                    }
                case 8:
                    if let path = table.indexPathsForVisibleRows.randomElement(using: &g), let id = controller.objectID(at: path) {
                        try table.tapRow(at: path)   // multiple selection: a tap toggles
                        if model.contains(id) { model.remove(id) } else { model.insert(id) }
                    }
                case 9:
                    if search == nil { search = try TableSearch(binding, format: "title CONTAINS[cd] %@") }
                    if g.chance(0.7) { try search?.update(text: "t\(g.int(0...9))") } else { search?.cancel() }
                case 10:
                    try table.setContentOffset(Double(g.int(0...3_000)))
                default:
                    // A single selection: a selection of one (from code, the last asked).
                    table.allowsMultipleSelection = false
                    if let id = order.randomElement(using: &g) {
                        try binding.selectObject(withID: id)
                        model = [id]
                    }
                    table.allowsMultipleSelection = true
                }
                if controller._readFromIndex { readFromIndex += 1 }
                Self.check(binding, table, selected: model, order: order, all: Array(ids.prefix(60)) + [nextID + 100], context)
                #expect(binding.lastError == nil, "\(context): \(binding.lastError.map { "\($0)" } ?? "")")
                if binding.lastError != nil { return }
            }
        }
        // The indexed runs did go through results read from an index.
        expectEqual(indexed, (readFromIndex > 0), "seed \(seed): \(readFromIndex) steps over results read from an index")
    }

    /// `count` notes saved (identity = rank), a controller sorted by rank,
    /// and a table of 440 points with the note cell registered (not bound).
    static func notesByRank(_ count: Int) throws -> (ObjectContext, FetchedResultsController<Note>, TableView) {
        let context = ObjectContext(store: ObjectStore(for: Note.self))
        for id in 0..<count { try context.insert(Note(id: id, group: nil, rank: id)) }
        try context.save()
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("rank")]), context: context)
        let table = TableView(viewportHeight: 440)
        try table.register(NoteCell.self, forCellReuseIdentifier: "note")
        return (context, controller, table)
    }

    @Test func selectingEveryObjectIsAllButThose() throws {
        let (context, controller, table) = try Self.notesByRank(1_000)
        let binding = try table.bind(to: controller, cell: Self.cell)

        // Select-all needs multiple selection; nothing changes when it is refused.
        expectThrows(TableSelectionError.multipleSelectionNotAllowed) { try binding.selectAllObjects() }
        expectEqual(binding.numberOfSelectedObjects, 0)
        table.allowsMultipleSelection = true
        try binding.selectAllObjects()
        expectEqual(binding.numberOfSelectedObjects, 1_000)
        binding.deselectObject(withID: 3)
        expectEqual(binding.numberOfSelectedObjects, 999)
        expectEqual(Array(binding.selectedObjectIDs.prefix(4)), [0, 1, 2, 4])
        expectEqual(table.cellForRow(at: TablePath(row: 3, section: 0))?.isSelected, false)
        expectEqual(table.cellForRow(at: TablePath(row: 4, section: 0))?.isSelected, true)

        // An object deleted leaves the count; one inserted is not selected.
        try context.delete(Note.self, id: 5)
        try context.insert(Note(id: 5_000, group: nil, rank: -1))
        try context.save()
        expectEqual(binding.numberOfSelectedObjects, 998)
        #expect(!binding.isObjectSelected(withID: 5_000))
        expectEqual(table.cellForRow(at: TablePath(row: 0, section: 0))?.isSelected, false)
        // A reload keeps the selection (UIKit's reloadData clears it: a binding keeps it by identity).
        try table.reloadData()
        expectEqual(binding.numberOfSelectedObjects, 998)
        expectEqual(table.indexPathForSelectedRow, TablePath(row: 1, section: 0))

        // Selection off: selecting is refused, and says how to allow it.
        table.allowsSelection = false
        expectThrows(TableSelectionError.selectionNotAllowed) { try binding.selectObject(withID: 7) }
        #expect("\(TableSelectionError.selectionNotAllowed)".contains("allowsSelection"))
    }

    /// Taps go through the delegate as ever: will-select may redirect or
    /// refuse, did-select follows; the selection kept is the object's.
    @Test func tapsStillAskTheDelegate() throws {
        final class Delegate: TableViewDelegate {
            var calls: [String] = []
            func tableView(_ tableView: TableView, willSelectRowAt indexPath: TablePath) -> TablePath? {
                calls.append("will \(indexPath.row)")
                return indexPath.row == 2 ? nil : indexPath.row == 3 ? TablePath(row: 4, section: 0) : indexPath
            }
            func tableView(_ tableView: TableView, didSelectRowAt indexPath: TablePath) { calls.append("did \(indexPath.row)") }
            func tableView(_ tableView: TableView, willDeselectRowAt indexPath: TablePath) -> TablePath? {
                calls.append("will-deselect \(indexPath.row)")
                return indexPath
            }
            func tableView(_ tableView: TableView, didDeselectRowAt indexPath: TablePath) { calls.append("did-deselect \(indexPath.row)") }
        }
        let (context, controller, table) = try Self.notesByRank(10)
        let delegate = Delegate()
        table.delegate = delegate
        let binding = try table.bind(to: controller, cell: Self.cell)
        try table.tapRow(at: TablePath(row: 1, section: 0))
        try table.tapRow(at: TablePath(row: 2, section: 0))   // refused
        try table.tapRow(at: TablePath(row: 3, section: 0))   // redirected to row 4
        expectEqual(delegate.calls, ["will 1", "did 1", "will 2", "will 3", "will-deselect 1", "did-deselect 1", "did 4"])
        expectEqual(Array(binding.selectedObjectIDs), [4])
        // The object moves: its row's selection goes with it.
        var note = try #require(try context.object(Note.self, id: 4))
        note.rank = 100
        try context.update(note)
        try context.save()
        expectEqual(table.indexPathsForSelectedRows, [TablePath(row: 9, section: 0)])
        // Deleting the selected object, with selectionFollowsDeletes: the next object takes its place.
        table.selectionFollowsDeletes = true
        try binding.selectObject(withID: 6)
        try context.delete(Note.self, id: 6)
        try context.save()
        expectEqual(Array(binding.selectedObjectIDs), [7])
    }
}
