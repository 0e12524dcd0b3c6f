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
    /// Two the index answers, two it does not (the predicate tests every
    /// row; the last, a closure search, narrows as the text grows).
    static let formats = ["name CONTAINS[cd] %@", "name BEGINSWITH[cd] %@ OR city CONTAINS[cd] %@", "name ENDSWITH[cd] %@", "name CONTAINS %@"]

    static func name(_ g: inout SeededGenerator, clusters: Bool = false) -> String {
        // A character of two scalars makes the row one the predicate decides.
        (0..<g.int(1...5)).map { _ in clusters && g.chance(0.05) ? "👍🏽" : syllables[g.int(0..<syllables.count)] }.joined()
    }

    static func object(_ id: Int, _ g: inout SeededGenerator, clusters: Bool = false) -> DynamicObject {
        var fields: [(String, RecordValue)] = [("id", .int(id)), ("name", .string(name(&g, clusters: clusters)))]
        if g.chance(0.8) { fields.append(("city", .string(name(&g, clusters: clusters)))) }
        return DynamicObject(fields: DynamicRecord(fields: fields))
    }

    /// Whether an object is in the even scope.
    static func isEven(_ object: DynamicObject) -> Bool {
        if case .int(let id) = object.id { return id % 2 == 0 }
        return false
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

    /// A table of 100 points bound to a controller of a context's objects in
    /// the order of their ids (the table kept here: a binding holds it weakly).
    struct TableByID {
        let controller: FetchedResultsController<DynamicObject>
        let table = TableView(viewportHeight: 100)
        let binding: FetchedResultsTableBinding<DynamicObject>

        init(_ context: ObjectContext) throws {
            controller = FetchedResultsController(fetchRequest: FetchRequest<DynamicObject>(sortKeys: [SortKey("id")]), context: context)
            try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
            binding = try table.bind(to: controller) { table, path, _ in try table.dequeueReusableCell(withIdentifier: "row", for: path) }
        }
    }

    /// With a scope (`scoped`), rows the predicate decides (`clusters`) or a
    /// format the index does not answer, the rest is tested a slice at a time
    /// on this thread (slices of 5).
    @Test(arguments: [
        (0, false, false, false), (1, false, false, false), (0, true, false, false), (0, false, true, false), (1, true, true, true),
        (2, false, false, false), (2, true, true, true), (3, false, false, false), (3, true, true, false),
    ])
    func theFirstRowsNowTheRestLaterAlwaysThePredicates(format formatIndex: Int, sectioned: Bool, scoped: Bool, clusters: Bool) throws {
        let format = Self.formats[formatIndex]
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ UInt64(formatIndex) &* 31 &+ (sectioned ? 7 : 0) &+ (scoped ? 11 : 0) &+ (clusters ? 13 : 0))
        let texts = Self.texts + (clusters ? ["👍", "👍🏽"] : [])
        var partial = 0
        var nextID = 0
        for round in 0..<TestScale.cases(1, full: 3) {
            let store = ObjectStore(for: DynamicObject.self)
            let context = ObjectContext(store: store)
            let count = [150, 500, 1_500][round]
            for _ in 0..<count {
                try context.insert(Self.object(nextID, &g, clusters: clusters))
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
                _ = try context.delete(DynamicObject.self, id: object.id)
                try context.save()
            }
            let scopes: [TableSearch<DynamicObject>.Scope] = scoped ? [.init("All"), .init("Even", predicate: RecordPredicate { Self.isEven($0) })] : []
            // The last format as a closure search that says a longer text narrows.
            let search = formatIndex < 3
                ? try TableSearch(binding, format: format, results: sectioned ? .sectioned : .flat, scopes: scopes)
                : TableSearch(
                    binding, results: sectioned ? .sectioned : .flat, scopes: scopes,
                    predicate: { RecordPredicate(try FormatPredicate(format: format, arguments: [.string($0)])) }, narrows: { new, old in new.contains(old) })
            search.slices.scanInBackgroundFrom = 0
            search.slices.slice = _TestSlice(rows: 5, nanoseconds: nil, scanPositions: 7)
            TableSearchIndexTests.waitForIndex(search)
            expectEqual(search.isSearchIndexReady, (formatIndex < 2))
            let arguments = format.components(separatedBy: "%@").count - 1
            var text = ""
            for step in 0..<30 {
                let where_ = "seed \(seed), \(format), round \(round), step \(step)"
                switch g.int(0..<11) {
                case 0...3: text += texts[g.int(0..<texts.count)]
                case 4: text = String(text.dropLast())
                case 5: text = ""
                case 6: text = texts[g.int(0..<texts.count)]
                case 10: if scoped { try search.selectScope(at: g.int(0..<2)) }
                case 7:
                    if search.isActive, Self.rowCount(search.resultsTable) > 0 {
                        try search.resultsTable.commit(.delete, forRowAt: TablePath(row: 0, section: 0))
                    }
                default:
                    let ids = controller.fetchedObjects?.map(\.id) ?? []
                    for _ in 0..<g.int(1...3) {
                        if ids.isEmpty || g.chance(0.4) {
                            try context.insert(Self.object(nextID, &g, clusters: clusters))
                            nextID += 1
                        } else if case .int(let id) = ids[g.int(0..<ids.count)], try context.object(DynamicObject.self, id: .int(id)) != nil {
                            if g.chance(0.4) { _ = try context.delete(DynamicObject.self, id: .int(id)) } else { try context.update(Self.object(id, &g, clusters: clusters)) }
                        }
                    }
                    try context.save()
                }
                // Now and then every row, its rest left to find: the checks of a search still finding run every round.
                // (A new search: "" remembered from an earlier step would be complete.)
                let leftFinding = step % 10 == 9
                if leftFinding {
                    search.cancel()
                    text = ""
                }
                try search.update(text: text)
                let predicate = try FormatPredicate(format: format, arguments: Array(repeating: .string(text), count: arguments))
                let inScope = { (object: DynamicObject) in search.selectedSearchScopeIndex == 0 || Self.isEven(object) }
                let expected = try (controller.fetchedObjects ?? []).filter { try predicate.evaluate(with: $0) && inScope($0) }.map(\.id)
                // Never fewer than two screens while more rows match, whatever the way (and narrowing from a search still finding rows).
                let first = try Self.shownIDs(search)
                #expect(first.count >= min(search.firstScanRows, expected.count), "\(where_): \"\(text)\" showed \(first.count) of \(expected.count)")
                expectEqual(Array(expected.prefix(first.count)), first, "\(where_): \"\(text)\": the first results, in order")
                #expect(!leftFinding || search.isFindingResults || expected.count <= first.count, "\(where_): every row, its rest left to find")
                // Sometimes the thread is waited for, sometimes taken when done, sometimes left running.
                switch leftFinding ? 2 : g.int(0..<3) {
                case 0: #expect(try search.showFoundResults(waiting: true), "\(where_)")
                case 1: try search.showFoundResults()
                default: break
                }
                let shown = try Self.shownIDs(search)
                expectEqual(Self.rowCount(search.resultsTable), shown.count, "\(where_)")
                if search.isFindingResults {
                    partial += 1
                    expectEqual(Array(expected.prefix(shown.count)), shown, "\(where_): \"\(text)\": the first results, in order")
                    // The selection stays on its row when the rest comes in
                    // (waited for, or taken in idle turns).
                    let selected = shown.isEmpty ? nil : TablePath(row: 0, section: 0)
                    try search.resultsTable.selectRow(at: selected)
                    if g.chance(0.5) {
                        #expect(try search.showFoundResults(waiting: true), "\(where_)")
                    } else {
                        var turns = 0
                        while try !search.showFoundResults() && turns < 100_000 {
                            turns += 1
                            if turns % 100 == 0 { usleep(100) }
                        }
                    }
                    #expect(!search.isFindingResults)
                    expectEqual(search.resultsTable.indexPathForSelectedRow, selected, "\(where_)")
                }
                try expectEqual(Self.shownIDs(search), expected, "\(where_): \"\(text)\" by \(String(describing: search.lastUpdateMethod))")
                expectEqual(search.fetchedObjects?.count, expected.count, "\(where_)")
            }
            search.cancel()
            #expect(!search.isFindingResults)
        }
        #expect(partial > 0, "seed \(seed): searches still finding rows when checked: \(partial)")
    }

    /// A search typed before the index is made tests rows with the
    /// predicate, a slice at a time; once the index is made, the index finds
    /// the rest: the same rows in the same order, the selected row still
    /// selected, whatever the layout.
    @Test(arguments: [false, true])
    func aSearchTypedBeforeTheIndexGoesOnThroughIt(sectioned: Bool) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ (sectioned ? 1 : 0))
        var switched = 0
        for round in 0..<TestScale.cases(3, full: 8) {
            let where_ = "seed \(seed), round \(round)"
            let context = ObjectContext(store: ObjectStore(for: DynamicObject.self))
            // Past the size from which the index is made on a thread of its own.
            for id in 0..<3_000 { try context.insert(Self.object(id, &g)) }
            try context.save()
            let request = FetchRequest<DynamicObject>(sortKeys: (sectioned ? [SortKey("city")] : []) + [SortKey("name"), SortKey("id")])
            let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: sectioned ? "city" : nil)
            let table = TableView(viewportHeight: 100)
            try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
            let binding = try table.bind(to: controller) { table, path, _ in try table.dequeueReusableCell(withIdentifier: "row", for: path) }
            let format = Self.formats[g.int(0..<2)]
            // The index is made on another thread, held until the search is typed (never a race).
            let makeIndex = controller._holdSearchIndexMaking()
            defer { makeIndex() }
            let search = try TableSearch(binding, format: format, results: sectioned ? .sectioned : .flat)
            search.slices.scanInBackgroundFrom = 0
            search.slices.slice = _TestSlice(rows: 5, nanoseconds: nil, scanPositions: 7)
            #expect(!search.isSearchIndexReady, "\(where_)")
            let text = Self.texts[g.int(0..<Self.texts.count)]
            try search.update(text: text)
            let predicate = try FormatPredicate(format: format, arguments: Array(repeating: .string(text), count: format.components(separatedBy: "%@").count - 1))
            let expected = try (controller.fetchedObjects ?? []).filter { try predicate.evaluate(with: $0) }.map(\.id)
            // Tested until two screens are found (or the index is made, which then finds them).
            let first = try Self.shownIDs(search)
            #expect(first.count >= min(search.firstScanRows, expected.count) && first == Array(expected.prefix(first.count)), "\(where_): \"\(text)\"")
            expectEqual(search.lastUpdateMethod, .predicate(narrowedFrom: nil), "\(where_)")
            // Some slices tested, a row found so far selected.
            for _ in 0..<g.int(0...20) where search.isFindingResults { try search.showFoundResults() }
            let shownBefore = try Self.shownIDs(search)
            var selectedID: RecordValue?
            if !shownBefore.isEmpty {
                let paths = (0..<search.resultsTable.numberOfSections).flatMap { s in
                    (0..<search.resultsTable.numberOfRows(inSection: s)).map { TablePath(row: $0, section: s) }
                }
                let path = paths[g.int(0..<paths.count)]
                try search.resultsTable.selectRow(at: path)
                selectedID = try search.object(at: path).id
            }
            makeIndex()
            TableSearchIndexTests.waitForIndex(search)
            let wasFinding = search.isFindingResults
            try search.showFoundResults()
            if wasFinding {
                switched += 1
                expectEqual(search.lastUpdateMethod, .index(narrowedFrom: nil), "\(where_): the index took over")
            }
            try expectEqual(Array(Self.shownIDs(search).prefix(shownBefore.count)), shownBefore, "\(where_): the rows found so far keep their places")
            let selected = search.resultsTable.indexPathForSelectedRow
            try expectEqual(selected.map { try search.object(at: $0).id }, selectedID, "\(where_): the selected row")
            while try !search.showFoundResults(waiting: true) {}
            try expectEqual(Self.shownIDs(search), expected, "\(where_): \"\(text)\"")
            expectEqual(search.resultsTable.indexPathForSelectedRow, selected, "\(where_): the selection once every row is shown")
        }
        #expect(switched > 0, "seed \(seed): no search was typed before its index was made")
    }

    /// A keystroke narrowing from a search still testing its rows tests the
    /// rows that search found, then what it had yet to test — each row once,
    /// none it had already turned down — and shows two screens at once.
    @Test func aKeystrokeNarrowingFromASearchStillTestingTestsItsRowsThenItsRest() throws {
        let context = ObjectContext(store: ObjectStore(for: DynamicObject.self))
        var g = SeededGenerator(seed: SeededGenerator.runSeed())
        for id in 0..<3_000 { try context.insert(Self.object(id, &g)) }
        try context.save()
        let bound = try TableByID(context)
        let (controller, binding) = (bound.controller, bound.binding)
        /// The predicate's tests (on this thread only: the tests run on the caller's).
        final class Tests: @unchecked Sendable { var count = 0 }
        let tests = Tests()
        let search = TableSearch(binding, predicate: { text in
            let predicate = try FormatPredicate(format: "name CONTAINS %@", arguments: [.string(text)])
            return RecordPredicate { object in
                tests.count += 1
                return (try? predicate.evaluate(with: object)) ?? false
            }
        }, narrows: { new, old in new.contains(old) })
        search.slices.scanInBackgroundFrom = 0
        search.slices.slice = _TestSlice(rows: 5, nanoseconds: nil)
        func matching(_ text: String) throws -> [RecordValue] {
            let predicate = try FormatPredicate(format: "name CONTAINS %@", arguments: [.string(text)])
            return try (controller.fetchedObjects ?? []).filter { try predicate.evaluate(with: $0) }.map(\.id)
        }

        try search.update(text: "a")
        let a = try matching("a")
        #expect(search.isFindingResults && a.count > 2 * search.firstScanRows)
        let testedForA = tests.count
        let foundForA = try Self.shownIDs(search).count
        #expect(foundForA == search.firstScanRows && testedForA < 3_000)

        tests.count = 0
        try search.update(text: "an")
        let an = try matching("an")
        expectEqual(search.lastUpdateMethod, .predicate(narrowedFrom: "a"))
        let first = try Self.shownIDs(search)
        #expect(first.count >= min(search.firstScanRows, an.count) && first == Array(an.prefix(first.count)))
        #expect(try search.showFoundResults(waiting: true))
        try expectEqual(Self.shownIDs(search), an)
        expectEqual(tests.count, foundForA + (3_000 - testedForA), "the rows \"a\" found, then the rows it had not tested: \(tests.count)")
    }

    @Test func theRestIsShownByAnAsyncCallAndAChangeWaitsForIt() async throws {
        let context = ObjectContext(store: ObjectStore(for: DynamicObject.self))
        var g = SeededGenerator(seed: 25)
        for id in 0..<3_000 { try context.insert(Self.object(id, &g)) }
        try context.save()
        let bound = try TableByID(context)
        let (controller, binding) = (bound.controller, bound.binding)
        let search = try TableSearch(binding, format: "name CONTAINS[cd] %@")
        search.slices.scanInBackgroundFrom = 0
        TableSearchIndexTests.waitForIndex(search)
        let all = try (controller.fetchedObjects ?? []).filter { try FormatPredicate(format: "name CONTAINS[cd] 'a'").evaluate(with: $0) }.map(\.id)
        #expect(all.count > 200)

        try search.update(text: "a")
        #expect(search.isFindingResults)
        expectEqual(Self.rowCount(search.resultsTable), search.firstScanRows)
        try await search.showAllResults()
        #expect(!search.isFindingResults)
        try expectEqual(Self.shownIDs(search), all)

        // A save while the rest is being found: the rest first, then the change.
        try search.update(text: "")
        #expect(search.isFindingResults)
        _ = try context.delete(DynamicObject.self, id: .int(2_999))
        try context.save()
        #expect(!search.isFindingResults)
        try expectEqual(Self.shownIDs(search), (controller.fetchedObjects ?? []).map(\.id))
        expectEqual(Self.rowCount(search.resultsTable), 2_999)
    }

    /// A scope failing on a row tested in a later slice: that call throws (as
    /// the update does when it tests every row at once), the results table
    /// keeps the rows it shows, and the search is not remembered.
    @Test func aRowFailingInALaterSliceIsThrownThen() throws {
        let context = ObjectContext(store: ObjectStore(for: DynamicObject.self))
        for id in 0..<400 {
            let city: RecordValue = id == 350 ? .int(7) : .string(id % 3 == 0 ? "Paris" : "Oslo")   // CONTAINS on an Int throws
            try context.insert(DynamicObject(fields: DynamicRecord(fields: [("id", .int(id)), ("name", .string("anna \(id)")), ("city", city)])))
        }
        try context.save()
        let bound = try TableByID(context)
        let binding = bound.binding
        let scopes: [TableSearch<DynamicObject>.Scope] = [.init("All"), .init("a", predicate: RecordPredicate(try FormatPredicate(format: "city CONTAINS 'a'")))]

        // At once: the update throws, and the search stays as it was.
        let atOnce = try TableSearch(binding, format: "name CONTAINS[cd] %@", scopes: scopes)
        TableSearchIndexTests.waitForIndex(atOnce)
        try atOnce.selectScope(at: 1)
        expectThrows(FetchError.self) { try atOnce.update(text: "a") }
        #expect(!atOnce.isActive)

        // In slices: the first rows now (two screens: 64 rows, slices of 40
        // until the 64th, row 189), the failing row in a later call.
        let search = try TableSearch(binding, format: "name CONTAINS[cd] %@", scopes: scopes)
        search.slices.scanInBackgroundFrom = 0
        search.slices.slice = _TestSlice(rows: 40, nanoseconds: nil)
        TableSearchIndexTests.waitForIndex(search)
        try search.selectScope(at: 1)
        try search.update(text: "a")
        #expect(search.isFindingResults)
        let first = try Self.shownIDs(search)
        #expect(search.firstScanRows == 64 && first == (0..<190).filter { $0 % 3 == 0 }.map { RecordValue.int($0) })
        var calls = 0
        var failed = false
        while !failed && calls < 20 {
            calls += 1
            do { try search.showFoundResults() } catch is FetchError { failed = true }
        }
        #expect(failed && calls == 5, "the slice from 350 tests row 350 (190, 230, 270, 310, 350: the 5th call): \(calls)")
        #expect(!search.isFindingResults)
        try expectEqual(Self.shownIDs(search), first, "the rows shown stay")
        try search.update(text: "a")
        #expect(search.lastUpdateMethod != .remembered, "searched again: \(String(describing: search.lastUpdateMethod))")
    }
}
