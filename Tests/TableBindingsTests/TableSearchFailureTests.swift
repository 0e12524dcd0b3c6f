import Foundation
import HeadlessTable
@testable import TableBindings
import TableTestSupport
import Testing

/// What goes wrong while a search follows a change of the main controller
/// is reported, as the binding reports its own: `onError` and `lastError`,
/// never dropped.
@Suite struct TableSearchFailureTests {
    struct Boom: Error, CustomStringConvertible {
        var description: String { "no cell for boom" }
    }

    static func person(_ id: Int, _ name: RecordValue) -> DynamicObject {
        DynamicObject(fields: DynamicRecord(fields: [("id", .int(id)), ("name", name)]))
    }

    /// A store of people named `names`, a bound table (whose cells fail for
    /// a name holding "boom"; keep it: the binding holds it weakly) and a
    /// search of `name CONTAINS[cd] %@`.
    static func search(_ names: [String]) throws -> (context: ObjectContext, table: TableView, search: TableSearch<DynamicObject>) {
        let context = ObjectContext(store: ObjectStore(for: DynamicObject.self))
        for (id, name) in names.enumerated() { try context.insert(person(id, .string(name))) }
        try context.save()
        let controller = FetchedResultsController(fetchRequest: FetchRequest<DynamicObject>(sortKeys: [SortKey("id")]), context: context)
        let table = TableView(viewportHeight: 1_000)
        table.rowHeight = 20
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        let binding = try table.bind(to: controller) { table, path, object in
            if case .string(let name)? = object.fields["name"], name.contains("boom") { throw Boom() }
            return try table.dequeueReusableCell(withIdentifier: "row", for: path)
        }
        let search = try TableSearch(binding, format: "name CONTAINS[cd] %@")
        TableSearchIndexTests.waitForIndex(search)
        return (context, table, search)
    }

    static func shownIDs(_ search: TableSearch<DynamicObject>) -> [RecordValue] {
        (search.fetchedObjects ?? []).map(\.id)
    }

    /// A changed row whose predicate throws (CONTAINS on a number) is left
    /// out and reported; the same text searched again is tested again, and
    /// throws as the predicate does. A later change that applies clears
    /// `lastError`.
    @Test func aChangedRowWhosePredicateThrowsIsReported() throws {
        let (context, _, search) = try Self.search(["anna", "bob", "hannah", "karl"])
        var reported: [TableSearch<DynamicObject>.Failure] = []
        search.onError = { reported.append($0) }
        try search.update(text: "a")
        try search.update(text: "an")
        expectEqual(Self.shownIDs(search), [.int(0), .int(2)])

        try context.update(Self.person(2, .int(7)))
        try context.save()
        expectEqual(Self.shownIDs(search), [.int(0)], "the row whose predicate throws is left out")
        #expect(reported.count == 1 && reported.first?.error is FetchError, "\(reported)")
        expectEqual(search.lastError.map { "\($0.error)" }, reported.first.map { "\($0.error)" })

        // Neither "an" nor the wider "a" answers as remembered: each is the predicate's again, which throws.
        expectThrows(FetchError.self) { try search.update(text: "an") }
        expectThrows(FetchError.self) { try search.update(text: "a") }

        // A change that applies: nothing more reported, lastError cleared.
        try context.update(Self.person(2, .string("hannah")))
        try context.save()
        #expect(search.lastError == nil && reported.count == 1)
        try search.update(text: "an")
        expectEqual(Self.shownIDs(search), [.int(0), .int(2)])
    }

    /// A change whose cells the results table cannot make: the table is
    /// reloaded, and when that fails too, both errors are reported.
    @Test func aChangeTheResultsTableCannotShowIsReported() throws {
        let (context, _, search) = try Self.search(["anna", "bob", "hannah"])
        var reported: [TableSearch<DynamicObject>.Failure] = []
        search.onError = { reported.append($0) }
        try search.update(text: "a")
        try context.insert(Self.person(3, .string("a boom")))
        try context.save()
        expectEqual(reported.count, 1, "\(reported)")
        #expect(reported.first?.error is Boom && reported.first?.reloadError is Boom, "\(reported)")
        #expect(search.lastError?.error is Boom)
        #expect(search.isActive && Self.shownIDs(search) == [.int(0), .int(2), .int(3)], "the results follow the change")
    }

    /// A search being tested a slice at a time when a change comes starts
    /// again after it; a row whose predicate throws in its first slice is
    /// left out and reported (it is not thrown: no caller is there).
    @Test func aSearchStartedAgainAfterAChangeReportsTheRowsItLeavesOut() throws {
        let (context, table, search) = try Self.search((0..<200).map { "anna \($0)" })
        var reported: [TableSearch<DynamicObject>.Failure] = []
        // A scope makes the search test its rows, here in slices of 40.
        let scoped = try TableSearch(search.base, format: "name CONTAINS[cd] %@", scopes: [.init("All"), .init("Any", predicate: RecordPredicate { _ in true })])
        scoped.slices.scanInBackgroundFrom = 0
        scoped.slices.slice = _TestSlice(rows: 40, nanoseconds: nil)
        scoped.onError = { reported.append($0) }
        try scoped.selectScope(at: 1)
        try scoped.update(text: "anna")
        #expect(scoped.isFindingResults)
        try context.update(Self.person(3, .int(3)))
        try context.save()
        #expect(reported.count == 1 && reported.first?.error is FetchError, "\(reported)")
        #expect(scoped.isActive && !(Self.shownIDs(scoped).contains(.int(3))))
        #expect(scoped.lastError != nil)
        while try !scoped.showFoundResults() {}
        expectEqual(Self.shownIDs(scoped), (0..<200).filter { $0 != 3 }.map { RecordValue.int($0) })
        expectThrows(FetchError.self, "searched again, the row throws") { try scoped.update(text: "anna") }
        withExtendedLifetime(table) {}
    }
}
