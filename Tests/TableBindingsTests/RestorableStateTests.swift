import Foundation
import HeadlessTable
import TableTestSupport
import Testing

/// The reader's place saved and restored: a state taken from a bound table,
/// encoded as JSON, and restored over a new store, controller and binding
/// on the same data — some objects deleted meanwhile — shows the same first
/// object (or the nearest following one) at the same offset, the same
/// selection, and measures no row whose height it carried.
@Suite struct RestorableStateTests {
    final class NoteCell: TableViewCell {}

    /// A row's height: from its title.
    static func height(_ note: Note) -> Double { Double(20 + 9 * (note.title.count % 6)) }

    /// A self-sizing cell that counts, by its object's identity, each time
    /// the table reads its measure.
    final class Measured: TableViewCell {
        var id = -1
        var height: Double?
        var onMeasure: ((Int) -> Void)?
        override var preferredHeight: Double? {
            get {
                onMeasure?(id)
                return height
            }
            set { height = newValue }
        }
    }

    /// A screen over a store: controller, table, binding (cells measure
    /// their own height, counted by identity).
    final class Screen {
        let controller: FetchedResultsController<Note>
        let table: TableView
        let binding: FetchedResultsTableBinding<Note>
        init(_ context: ObjectContext, sectioned: Bool, viewport: Double, batchSize: Int = 0) throws {
            var request = FetchRequest<Note>(sortKeys: (sectioned ? [SortKey("group")] : []) + [SortKey("rank"), SortKey("id")])
            request.fetchBatchSize = batchSize
            controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: sectioned ? "group" : nil)
            table = TableView(viewportHeight: viewport)
            table.rowHeight = TableView.automaticDimension
            table.estimatedRowHeight = 33
            table.allowsMultipleSelection = true
            try table.register(Measured.self, forCellReuseIdentifier: "note")
            let counter = Counter()
            binding = try table.bind(to: controller) { table, path, note in
                let cell = try table.dequeueReusableCell(withIdentifier: "note", for: path)
                cell.text = note.title
                if let cell = cell as? Measured {
                    cell.id = note.id
                    cell.height = RestorableStateTests.height(note)
                    cell.onMeasure = { counter.ids.append($0) }
                }
                return cell
            }
            self.counter = counter
        }

        final class Counter { var ids: [Int] = [] }
        let counter: Counter
        var measured: [Int] {
            get { counter.ids }
            set { counter.ids = newValue }
        }

        /// The first visible object, and how far into its row the window starts.
        var place: (id: Int, offset: Double)? {
            guard let path = table.indexPathsForVisibleRows.first, let id = controller.objectID(at: path), let rect = table.rectForRow(at: path) else { return nil }
            return (id, table.contentOffset - rect.y)
        }
    }

    static func store(_ notes: [Note]) throws -> ObjectContext {
        let context = ObjectContext(store: ObjectStore(for: Note.self))
        for note in notes { try context.insert(note) }
        try context.save()
        return context
    }

    /// A compacted file store of `notes` at `url`, reopened: read from its
    /// file as rows are shown, its fetches with a batch size from an index.
    static func fileStore(_ notes: [Note], at url: URL) throws -> ObjectContext {
        ObjectContext(store: try Note.compactedStore(notes, model: Note.indexedModel, at: url))
    }

    /// `indexed`: both launches over a compacted file store, the controller
    /// with a batch size, its results read from an index.
    @Test(arguments: [false, true], [false, true])
    func aRestoredTableShowsTheSamePlace(sectioned: Bool, indexed: Bool) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ (sectioned ? 1 : 0) &+ (indexed ? 2 : 0))
        let groups = ["a", "b", "c", "d"]
        let folder = TemporaryFolder()
        func screen(_ notes: [Note], viewport: Double, _ name: String) throws -> Screen {
            guard indexed else { return try Screen(try Self.store(notes), sectioned: sectioned, viewport: viewport) }
            let screen = try Screen(try Self.fileStore(notes, at: folder.url(name)), sectioned: sectioned, viewport: viewport, batchSize: g.int(1...20))
            #expect(notes.isEmpty || screen.controller._readFromIndex, "seed \(seed): \(name) not read from an index")
            return screen
        }
        for round in 0..<TestScale.cases(indexed ? 3 : 8, full: indexed ? 60 : 200) {
            let context = "seed \(seed), round \(round)"
            let notes = (0..<g.int(0...300)).map { id in
                Note(id: id, group: groups[g.int(0..<groups.count)], rank: g.int(0...50), title: String(repeating: "n", count: g.int(0...11)))
            }
            let viewport = Double(g.int(80...400))
            let first = try screen(notes, viewport: viewport, "first-\(round).htstore")
            try first.table.setContentOffset(Double(g.int(0...8_000)))
            if g.chance(0.5) { try first.table.setContentOffset(Double(g.int(0...8_000))) }
            var selected = Set<Int>()
            var allBut: Set<Int>?
            if g.chance(0.3), !notes.isEmpty {
                try first.binding.selectAllObjects()
                allBut = Set((0..<g.int(0...5)).map { _ in notes[g.int(0..<notes.count)].id })
                for id in allBut ?? [] { first.binding.deselectObject(withID: id) }
            } else {
                for _ in 0..<g.int(0...6) where !notes.isEmpty {
                    let id = notes[g.int(0..<notes.count)].id
                    try first.binding.selectObject(withID: id)
                    selected.insert(id)
                }
            }
            let place = first.place
            let data = try JSONEncoder().encode(first.binding.restorableState)

            // A later launch: the same data, some objects deleted since (maybe the first visible one).
            var deleted = Set((0..<g.int(0...8)).compactMap { _ in notes.isEmpty ? nil : notes[g.int(0..<notes.count)].id })
            if g.chance(0.3), let id = place?.id { deleted.insert(id) }
            let later = notes.filter { !deleted.contains($0.id) }
            let second = try screen(later, viewport: viewport, "second-\(round).htstore")
            let state = try JSONDecoder().decode(FetchedResultsTableBinding<Note>.RestorableState.self, from: data)
            second.measured = []
            try second.binding.restore(state)
            second.table._checkInvariants()

            // The selection: the objects still there.
            let order = (second.controller.sections ?? []).flatMap { $0.objects.map(\.id) }
            let expected = allBut.map { excluded in order.filter { !excluded.contains($0) } } ?? order.filter(selected.contains)
            expectEqual(Array(second.binding.selectedObjectIDs), expected, "\(context)")
            expectEqual(second.binding.numberOfSelectedObjects, expected.count, "\(context)")

            // The place: the same object, or the nearest following one, at the same offset (unless the content ends first).
            guard let place, !order.isEmpty else { continue }
            let anchor: Int
            if !deleted.contains(place.id) {
                anchor = place.id
            } else {
                let gone = notes.first { $0.id == place.id }!
                func key(_ n: Note) -> (String, Int, Int) { (sectioned ? n.group ?? "" : "", n.rank, n.id) }
                anchor = later.filter { key($0) > key(gone) }.min { key($0) < key($1) }?.id ?? order.last!
            }
            let anchorPath = try #require(second.controller.indexPath(forObjectWithID: anchor))
            let rect = try #require(second.table.rectForRow(at: anchorPath))
            let atEnd = second.table.contentOffset >= second.table.contentHeight - second.table.viewportHeight - 1e-9
            let wanted = deleted.contains(place.id) ? 0 : place.offset
            if !atEnd {
                expectEqual(second.table.contentOffset - rect.y, Swift.max(wanted, -rect.y), "\(context): offset into the anchor's row")
                if wanted >= 0 { expectEqual(second.place?.id, anchor, "\(context): first visible \(String(describing: second.place)) instead of \(anchor)") }
            }
            // Rows whose heights the state carried were not measured again.
            let carried = Set(state.rowHeights.keys)
            let remeasured = Set(second.measured).intersection(carried)
            #expect(remeasured.isEmpty, "\(context): measured again \(remeasured.sorted())")
            for path in second.table.indexPathsForVisibleRows {
                guard let id = second.controller.objectID(at: path), let note = later.first(where: { $0.id == id }) else { continue }
                expectEqual(second.table.rectForRow(at: path)?.height, Self.height(note), "\(context): \(path)")
            }
        }
    }

    /// A state's values are checked: nothing changes for a bad one.
    @Test func aBadStateIsRefused() throws {
        let screen = try Screen(try Self.store((0..<50).map { Note(id: $0, group: nil, rank: $0) }), sectioned: false, viewport: 200)
        var state = screen.binding.restorableState
        state.offsetIntoFirstVisibleRow = .nan
        expectThrows(TableRestorationError.self) { try screen.binding.restore(state) }
        state.offsetIntoFirstVisibleRow = 0
        state.rowHeights = [3: -1]
        expectThrows(TableRestorationError.invalidHeight(object: "3", height: -1)) { try screen.binding.restore(state) }
        expectEqual(screen.table.contentOffset, 0)
    }
}
