import Foundation
import HeadlessTable
import TableTestSupport
import Testing

/// A request changed under a bound table: one batch, replayed under UIKit's
/// rules by the independent oracle, turns the table shown into the new results.
@Suite struct RequestChangeBindingTests {
    final class NoteCell: TableViewCell {}

    static func shown(_ controller: FetchedResultsController<Note>) -> Table {
        controller.tableSections.map { TableSection(name: $0.name, rows: $0.rows.map(\.item)) }
    }

    static func randomRequest(_ g: inout SeededGenerator, sectioned: Bool) throws -> FetchRequest<Note> {
        var keys = [SortKey("rank", ascending: g.chance(0.5)), SortKey("title", ascending: g.chance(0.5))]
        if g.chance(0.3) { keys.swapAt(0, 1) }
        if sectioned { keys.insert(SortKey("group", ascending: g.chance(0.5)), at: 0) }
        var request = FetchRequest<Note>(sortKeys: keys)
        switch g.int(0..<4) {
        case 0: break
        case 1: request.predicate = try RecordPredicate(format: "rank >= %d", g.int(0...15))
        case 2: request.predicate = try RecordPredicate(format: "title CONTAINS[c] %@", ["a", "e", "o"][g.int(0..<3)])
        default: request.predicate = RecordPredicate { $0.rank % 3 != 0 }
        }
        if g.chance(0.2) { request.fetchLimit = g.int(0...30) }
        if g.chance(0.2) { request.fetchOffset = g.int(0...10) }
        if g.chance(0.2) { request.fetchBatchSize = g.int(1...8) }
        return request
    }

    @Test(arguments: [false, true])
    func randomRequestChangesAreOneBatchUIKitAccepts(sectioned: Bool) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ (sectioned ? 11 : 12))
        let names = ["Ada", "Bea", "Cleo", "Dora", "Emil", "Otto", "Zoe"]
        var batches = 0
        let rounds = TestScale.cases(10, full: 20)
        for round in 0..<rounds {
            let context = ObjectContext(store: ObjectStore(for: Note.self))
            for id in 0..<g.int(0...60) {
                try context.insert(Note(id: id, group: ["a", "b", "c", "d", "e"][g.int(0..<(g.chance(0.5) ? 2 : 5))], rank: g.int(0...20), title: names[g.int(0..<names.count)]))
            }
            try context.save()
            let controller = FetchedResultsController(fetchRequest: try Self.randomRequest(&g, sectioned: sectioned), context: context, sectionNameKeyPath: sectioned ? "group" : nil)
            let table = TableView(viewportHeight: g.chance(0.5) ? 100_000 : Double(g.int(50...400)))
            try table.register(NoteCell.self, forCellReuseIdentifier: "note")
            let binding = try table.bind(to: controller, cell: BindingTests.cell)
            for step in 0..<15 {
                let context = "seed \(seed), round \(round), step \(step)"
                let old = Self.shown(controller)
                let request = try Self.randomRequest(&g, sectioned: sectioned)
                let update = try #require(try binding.performFetch(with: request), "\(context)")
                let new = Self.shown(controller)
                switch UIKitOracle.replay(update, displayed: old, data: new) {
                case .failure(let refusal):
                    Issue.record("\(context): UIKit refuses \(update.logLines().joined(separator: "; ")): \(refusal)")
                    return
                case .success(let result):
                    expectEqual(result, new, "\(context)")
                }
                // Same objects: nothing is reloaded; a row present before and after is never deleted and reinserted unless its section came or went.
                #expect(update.reloadedRows.isEmpty && update.reloadedSections.isEmpty, "\(context)")
                let oldNames = Set(old.map(\.name)), newNames = Set(new.map(\.name))
                let oldSection = Dictionary(old.flatMap { s in s.rows.map { ($0.id, s.name) } }, uniquingKeysWith: { a, _ in a })
                let newSection = Dictionary(new.flatMap { s in s.rows.map { ($0.id, s.name) } }, uniquingKeysWith: { a, _ in a })
                let staying = Set(oldSection.keys).intersection(newSection.keys).filter { oldNames.contains(newSection[$0]!) && newNames.contains(oldSection[$0]!) }
                expectEqual(update.deletedRows.count, old.flatMap(\.rows).count - staying.count - old.filter { !newNames.contains($0.name) }.flatMap(\.rows).count, "\(context)")
                BindingTests.check(table, controller, context)
                #expect(binding.lastError == nil, "\(context)")
                if g.chance(0.3) { try table.setContentOffset(Double(g.int(0...1_000))) }
                batches += 1
            }
        }
        expectEqual(batches, rounds * 15)
    }

    @Test func switchingTheSortOrderAnimatesAsMoves() throws {
        let context = ObjectContext(store: ObjectStore(for: Note.self))
        for id in 0..<6 { try context.insert(Note(id: id, group: id < 3 ? "a" : "b", rank: id)) }
        try context.save()
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("group"), SortKey("rank")]), context: context, sectionNameKeyPath: "group")
        let table = TableView(viewportHeight: 1_000)
        try table.register(NoteCell.self, forCellReuseIdentifier: "note")
        let binding = try table.bind(to: controller, cell: BindingTests.cell)
        let update = try #require(try binding.performFetch(with: FetchRequest<Note>(sortKeys: [SortKey("group", ascending: false), SortKey("rank", ascending: false)])))
        #expect(update.deletedRows.isEmpty && update.insertedRows.isEmpty && update.deletedSections.isEmpty && update.insertedSections.isEmpty)
        #expect(!update.movedRows.isEmpty && update.movedSections.count == 1)
        expectEqual(table.visibleCells.map(\.text), ["5 b 5 v0", "4 b 4 v0", "3 b 3 v0", "2 a 2 v0", "1 a 1 v0", "0 a 0 v0"])
        // A failing request changes nothing.
        expectThrows(FetchError.noSortKeys) { try binding.performFetch(with: FetchRequest<Note>()) }
        expectEqual(controller.fetchRequest.sortKeys, [SortKey("group", ascending: false), SortKey("rank", ascending: false)])
        expectEqual(table.visibleCells.map(\.text), ["5 b 5 v0", "4 b 4 v0", "3 b 3 v0", "2 a 2 v0", "1 a 1 v0", "0 a 0 v0"])
        // The table follows saves under the new request.
        try context.insert(Note(id: 9, group: "a", rank: 9))
        try context.save()
        expectEqual(table.visibleCells.map(\.text), ["5 b 5 v0", "4 b 4 v0", "3 b 3 v0", "9 a 9 v0", "2 a 2 v0", "1 a 1 v0", "0 a 0 v0"])
        #expect(binding.lastError == nil)
    }

    @Test func aCachedBoundControllerFollowsCoreDataCacheRules() throws {
        let context = ObjectContext(store: ObjectStore(for: Note.self))
        for id in 0..<4 { try context.insert(Note(id: id, group: nil, rank: id)) }
        try context.save()
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("rank")]), context: context, cacheName: "notes")
        let table = TableView(viewportHeight: 1_000)
        try table.register(NoteCell.self, forCellReuseIdentifier: "note")
        let binding = try table.bind(to: controller, cell: BindingTests.cell)
        let reversed = FetchRequest<Note>(sortKeys: [SortKey("rank", ascending: false)])
        expectThrows(FetchError.cacheMismatch(cacheName: "notes")) { try binding.performFetch(with: reversed) }
        expectEqual(table.visibleCells.map(\.text), ["0 - 0 v0", "1 - 1 v0", "2 - 2 v0", "3 - 3 v0"])
        FetchedResultsController<Note>.deleteCache(withName: "notes", in: context.store)
        try binding.performFetch(with: reversed)
        expectEqual(table.visibleCells.map(\.text), ["3 - 3 v0", "2 - 2 v0", "1 - 1 v0", "0 - 0 v0"])
    }
}
