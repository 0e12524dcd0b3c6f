import Foundation
import HeadlessTable
import TableTestSupport
import Testing

/// Heights kept by identity: a bound table asks the delegate (or measures a
/// cell) once for an object whose shown content is unchanged — through
/// reloads, new requests and batch updates — and again for one whose shown
/// keys changed; `invalidateRowHeights()` measures the window again.
@Suite struct HeightsByIdentityTests {
    final class NoteCell: TableViewCell {}

    /// A row's height: from its title (a shown key) alone.
    static func height(_ note: Note) -> Double { Double(20 + 7 * (note.title.count % 5)) }

    /// Gives each row's height from its object, counting the calls by identity.
    final class Heights: TableViewDelegate {
        var controller: FetchedResultsController<Note>?
        var asked: [Int: Int] = [:]
        func tableView(_ tableView: TableView, heightForRowAt indexPath: TablePath) -> Double? {
            guard let note = try? controller?.object(at: indexPath) else { return nil }
            asked[note.id, default: 0] += 1
            return HeightsByIdentityTests.height(note)
        }
    }

    static func cell(_ table: TableView, _ path: TablePath, _ note: Note) throws -> TableViewCell {
        let cell = try table.dequeueReusableCell(withIdentifier: "note", for: path)
        cell.text = note.title
        return cell
    }

    @Test(arguments: [false, true])
    func rowsWhoseShownContentIsUnchangedAreNotAskedAgain(sectioned: Bool) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ (sectioned ? 1 : 0))
        let groups = ["a", "b", "c"]
        var nextID = 0
        for round in 0..<TestScale.cases(5, full: 25) {
            let store = ObjectStore(for: Note.self)
            let view = ObjectContext(store: store, name: "view"), writer = ObjectContext(store: store, name: "writer")
            for _ in 0..<g.int(1...60) {
                try view.insert(Note(id: nextID, group: groups[g.int(0..<3)], rank: g.int(0...20), title: String(repeating: "x", count: g.int(0...9))))
                nextID += 1
            }
            try view.save()
            var request = FetchRequest<Note>(sortKeys: (sectioned ? [SortKey("group")] : []) + [SortKey("rank"), SortKey("id")])
            if g.chance(0.5) { request.fetchBatchSize = 7 }
            let controller = FetchedResultsController(fetchRequest: request, context: view, sectionNameKeyPath: sectioned ? "group" : nil)
            let table = TableView(viewportHeight: Double(g.int(100...500)))
            try table.register(NoteCell.self, forCellReuseIdentifier: "note")
            let heights = Heights()
            heights.controller = controller
            table.delegate = heights
            let binding = try table.bind(to: controller, cell: Self.cell)
            binding.shownKeys = ["title", "group", "rank"]
            // Every object's height is known now (a delegate with heights is asked for every row).
            var known = Set(store.objects(Note.self).map(\.id))

            for step in 0..<TestScale.cases(40, full: 120) {
                let context = "seed \(seed), round \(round), step \(step)"
                heights.asked = [:]
                let ids = store.objects(Note.self).map(\.id)
                switch g.int(0..<8) {
                case 0, 1, 2:
                    // A save: titles (shown), versions (not shown), ranks and groups (moves), inserts and deletes.
                    let saver = g.chance(0.5) ? view : writer
                    for _ in 0..<g.int(1...4) {
                        switch g.int(0..<5) {
                        case 0:
                            try saver.insert(Note(id: nextID, group: groups[g.int(0..<3)], rank: g.int(0...20), title: "new"))
                            nextID += 1
                        case 1 where !ids.isEmpty:
                            _ = try? saver.delete(Note.self, id: ids[g.int(0..<ids.count)])
                        default:
                            guard !ids.isEmpty, var note = try saver.object(Note.self, id: ids[g.int(0..<ids.count)]) else { continue }
                            switch g.int(0..<4) {
                            case 0:
                                note.title = String(repeating: "y", count: g.int(0...9))
                                known.remove(note.id)   // shown content changed: asked again
                            case 1:
                                note.version += 1   // not shown: not asked again
                            case 2:
                                note.rank = g.int(0...20)
                                known.remove(note.id)   // a shown key: measured again
                            default:
                                note.group = groups[g.int(0..<3)]
                                known.remove(note.id)
                            }
                            try saver.update(note)
                        }
                    }
                    saver.saveOrRollBack(mergingInto: view)
                case 3:
                    try table.reloadData()
                    let asked = Set(heights.asked.keys)
                    #expect(asked.isDisjoint(with: known), "\(context): a reload asked again for \(asked.intersection(known).sorted())")
                case 4:
                    var other = request
                    other.sortKeys = (sectioned ? [SortKey("group")] : []) + [SortKey("rank", ascending: g.chance(0.5)), SortKey("id")]
                    try binding.performFetch(with: other)
                case 5:
                    try table.setContentOffset(Double(g.int(0...2_000)))
                case 6:
                    try table.invalidateRowHeights()
                    let window = Set(table.indexPathsForVisibleRows.compactMap { controller.objectID(at: $0) })
                    #expect(Set(heights.asked.keys).isSubset(of: window), "\(context): invalidating asked outside the window")
                    known = []
                default:
                    let first = table.indexPathsForVisibleRows.first
                    let top = first.flatMap { table.rectForRow(at: $0) }.map { $0.y - table.contentOffset }
                    try table.invalidateRowHeights()
                    if let first, let top, table.contentOffset > 0, table.contentOffset < table.contentHeight - table.viewportHeight {
                        expectEqual(table.indexPathsForVisibleRows.first, first, "\(context): the anchor moved")
                        expectEqual(table.rectForRow(at: first).map { $0.y - table.contentOffset }, top, "\(context)")
                    }
                    known = []
                }
                // Each height asked of the delegate is now known; every row in the window has its object's height.
                known.formUnion(heights.asked.keys)
                let all = store.objects(Note.self)
                for path in table.indexPathsForVisibleRows {
                    guard let id = controller.objectID(at: path), let note = all.first(where: { $0.id == id }) else { continue }
                    expectEqual(table.rectForRow(at: path)?.height, Self.height(note), "\(context): row \(path)")
                }
                table._checkInvariants()
                #expect(binding.lastError == nil, "\(context)")
            }
        }
    }

    /// Self-sizing cells (`estimatedRowHeight`, a cell's own measure): a
    /// reload measures no cell whose object's shown content is unchanged.
    @Test func selfSizingCellsAreNotMeasuredAgainAfterAReload() throws {
        final class Measured: TableViewCell {
            nonisolated(unsafe) static var measured = 0
            var height: Double = 44
            override var preferredHeight: Double? {
                get {
                    Measured.measured += 1
                    return height
                }
                set {}
            }
        }
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store)
        for id in 0..<200 { try context.insert(Note(id: id, group: nil, rank: id, title: String(repeating: "z", count: id % 7))) }
        try context.save()
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("rank")]), context: context)
        let table = TableView(viewportHeight: 400)
        table.rowHeight = TableView.automaticDimension
        table.estimatedRowHeight = 30
        try table.register(Measured.self, forCellReuseIdentifier: "note")
        let binding = try table.bind(to: controller) { table, path, note in
            let cell = try table.dequeueReusableCell(withIdentifier: "note", for: path)
            (cell as? Measured)?.height = Double(20 + 10 * note.title.count)
            cell.text = note.title
            return cell
        }
        binding.shownKeys = ["title"]
        let shown = table.indexPathsForVisibleRows.count
        #expect(Measured.measured >= shown)
        Measured.measured = 0
        try table.reloadData()
        expectEqual(Measured.measured, 0)
        expectEqual(table.indexPathsForVisibleRows.count, shown)
        // A save of a key the cells do not show: nothing reconfigured or measured.
        var note = try #require(try context.object(Note.self, id: 1))
        note.version += 1
        try context.update(note)
        try context.save()
        expectEqual(Measured.measured, 0)
        // A shown key: that row is configured again and measured.
        note.title = "zzzzzzzzzz"
        try context.update(note)
        try context.save()
        expectEqual(Measured.measured, 1)
        expectEqual(table.rectForRow(at: TablePath(row: 1, section: 0))?.height, 120)
    }
}
