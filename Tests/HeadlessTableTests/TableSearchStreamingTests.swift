import Foundation
import Testing
import HeadlessTable
@testable import TableBindings
import TableTestSupport

/// A search in a big table finds its first rows at once and the rest on a
/// thread of its own (`isFindingResults`, `showFoundResults`). Checked with
/// the threshold lowered to every table: while rows are still being found,
/// the results table shows the first of the predicate's answers, in order;
/// once they are shown, all of them — with typing, backspaces, saves and
/// deletes from the results in between, whenever the thread is done or not.
@Suite struct TableSearchStreamingTests {
    /// Names whose every character is one scalar (the index decides every row).
    static let syllables = ["an", "na", "mü", "Mü", "ka", "KA", "l", "ö", "e", "é", "ß", " ", "Zoë"]
    static let texts = ["a", "n", "an", "m", "mü", "mu", "k", "ka", "kal", "e", "é", " ", "ss", "ö", "zo"]
    static let formats = ["name CONTAINS[cd] %@", "name BEGINSWITH[cd] %@ OR city CONTAINS[cd] %@"]

    static func name(_ g: inout SeededGenerator) -> String {
        (0..<g.int(1...5)).map { _ in syllables[g.int(0..<syllables.count)] }.joined()
    }

    static func object(_ id: Int, _ g: inout SeededGenerator) -> DynamicObject {
        var fields: [(String, RecordValue)] = [("id", .int(id)), ("name", .string(name(&g)))]
        if g.chance(0.8) { fields.append(("city", .string(name(&g)))) }
        return DynamicObject(fields: DynamicRecord(fields: fields))
    }

    /// The rows of a table, counting across sections.
    static func rowCount(_ table: TableView) -> Int {
        (0..<table.numberOfSections).reduce(0) { $0 + table.numberOfRows(inSection: $1) }
    }

    /// The ids the results table shows, in order.
    static func shownIDs(_ search: TableSearch<DynamicObject>) throws -> [RecordValue] {
        var ids: [RecordValue] = []
        for section in 0..<search.resultsTable.numberOfSections {
            for row in 0..<search.resultsTable.numberOfRows(inSection: section) {
                ids.append(try search.object(at: TablePath(row: row, section: section)).id)
            }
        }
        return ids
    }

    @Test(arguments: [(0, false), (1, false), (0, true)])
    func theFirstRowsNowTheRestLaterAlwaysThePredicates(format formatIndex: Int, sectioned: Bool) throws {
        let format = Self.formats[formatIndex]
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ UInt64(formatIndex) &* 31 &+ (sectioned ? 7 : 0))
        var partial = 0
        var nextID = 0
        for round in 0..<3 {
            let store = ObjectStore<DynamicObject>()
            let context = ObjectContext(store: store)
            let count = [150, 500, 1_500][round]
            for _ in 0..<count {
                try context.insert(Self.object(nextID, &g))
                nextID += 1
            }
            try context.save()
            let request = FetchRequest<DynamicObject>(sortKeys: (sectioned ? [SortKey("city")] : []) + [SortKey("name"), SortKey("id")])
            let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: sectioned ? "city" : nil)
            let table = TableView(viewportHeight: 200)
            table.rowHeight = 20
            try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
            let binding = try table.bind(to: controller) { table, path, _ in try table.dequeueReusableCell(withIdentifier: "row", for: path) }
            binding.onDelete = { object in
                _ = try context.delete(object.id)
                try context.save()
            }
            let search = try TableSearch(binding, format: format, results: sectioned ? .sectioned : .flat)
            search.scanInBackgroundFrom = 0
            TableSearchIndexTests.waitForIndex(search)
            #expect(search.isSearchIndexReady)
            let arguments = format.components(separatedBy: "%@").count - 1
            var text = ""
            for step in 0..<30 {
                let where_ = "seed \(seed), \(format), round \(round), step \(step)"
                switch g.int(0..<10) {
                case 0...3: text += Self.texts[g.int(0..<Self.texts.count)]
                case 4: text = String(text.dropLast())
                case 5: text = ""
                case 6: text = Self.texts[g.int(0..<Self.texts.count)]
                case 7:
                    if search.isActive, Self.rowCount(search.resultsTable) > 0 {
                        try search.resultsTable.commit(.delete, forRowAt: TablePath(row: 0, section: 0))
                    }
                default:
                    let ids = controller.fetchedObjects?.map(\.id) ?? []
                    for _ in 0..<g.int(1...3) {
                        if ids.isEmpty || g.chance(0.4) {
                            try context.insert(Self.object(nextID, &g))
                            nextID += 1
                        } else if case .int(let id) = ids[g.int(0..<ids.count)], context.object(withID: .int(id)) != nil {
                            if g.chance(0.4) { _ = try context.delete(.int(id)) } else { try context.update(Self.object(id, &g)) }
                        }
                    }
                    try context.save()
                }
                try search.update(text: text)
                // Sometimes the thread is waited for, sometimes taken when done, sometimes left running.
                switch g.int(0..<3) {
                case 0: #expect(try search.showFoundResults(waiting: true), "\(where_)")
                case 1: try search.showFoundResults()
                default: break
                }
                let predicate = try FormatPredicate(format: format, arguments: Array(repeating: .string(text), count: arguments))
                let expected = try (controller.fetchedObjects ?? []).filter { try predicate.evaluate(with: $0) }.map(\.id)
                let shown = try Self.shownIDs(search)
                #expect(Self.rowCount(search.resultsTable) == shown.count, "\(where_)")
                if search.isFindingResults {
                    partial += 1
                    #expect(Array(expected.prefix(shown.count)) == shown, "\(where_): \"\(text)\": the first results, in order")
                    #expect(shown.count < expected.count || shown.count >= 64, "\(where_): \(shown.count) of \(expected.count)")
                    // The selection stays on its row when the rest comes in.
                    let selected = shown.isEmpty ? nil : TablePath(row: 0, section: 0)
                    try search.resultsTable.selectRow(at: selected)
                    #expect(try search.showFoundResults(waiting: true), "\(where_)")
                    #expect(!search.isFindingResults)
                    #expect(search.resultsTable.indexPathForSelectedRow == selected, "\(where_)")
                }
                #expect(try Self.shownIDs(search) == expected, "\(where_): \"\(text)\" by \(String(describing: search.lastUpdateMethod))")
                #expect(search.fetchedObjects?.count == expected.count, "\(where_)")
            }
            search.cancel()
            #expect(!search.isFindingResults)
        }
        #expect(partial > 5, "searches still finding rows when checked: \(partial)")
    }

    @Test func theRestIsShownByAnAsyncCallAndAChangeWaitsForIt() async throws {
        let context = ObjectContext(store: ObjectStore<DynamicObject>())
        var g = SeededGenerator(seed: 25)
        for id in 0..<3_000 { try context.insert(Self.object(id, &g)) }
        try context.save()
        let controller = FetchedResultsController(fetchRequest: FetchRequest<DynamicObject>(sortKeys: [SortKey("id")]), context: context)
        let table = TableView(viewportHeight: 100)
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        let binding = try table.bind(to: controller) { table, path, _ in try table.dequeueReusableCell(withIdentifier: "row", for: path) }
        let search = try TableSearch(binding, format: "name CONTAINS[cd] %@")
        search.scanInBackgroundFrom = 0
        TableSearchIndexTests.waitForIndex(search)
        let all = try (controller.fetchedObjects ?? []).filter { try FormatPredicate(format: "name CONTAINS[cd] 'a'").evaluate(with: $0) }.map(\.id)
        #expect(all.count > 200)

        try search.update(text: "a")
        #expect(search.isFindingResults)
        #expect(Self.rowCount(search.resultsTable) == search.firstScanRows)
        try await search.showAllResults()
        #expect(!search.isFindingResults)
        #expect(try Self.shownIDs(search) == all)

        // A save while the rest is being found: the rest first, then the change.
        try search.update(text: "")
        #expect(search.isFindingResults)
        _ = try context.delete(.int(2_999))
        try context.save()
        #expect(!search.isFindingResults)
        #expect(try Self.shownIDs(search) == (controller.fetchedObjects ?? []).map(\.id))
        #expect(Self.rowCount(search.resultsTable) == 2_999)
    }
}
