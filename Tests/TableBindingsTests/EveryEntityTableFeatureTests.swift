import Foundation
import HeadlessTable
import TableTestSupport
import Testing

/// Every table feature works for every entity of a model, not only for a
/// store of one record type: a binding with `onDelete` and a user's moves
/// written to an ordering key, prefetching with a batch size, a search with
/// the folded index, and a diffable data source following a controller — on
/// the media of a model of entries and media.
@Suite struct EveryEntityTableFeatureTests {
    struct Entry: Record, Codable, Equatable {
        var id: Int
        var title: String
        var media: [Int] = []
        static let recordKeys: RecordKeys<Entry> = ["id": RecordKey(\.id), "title": RecordKey(\.title)]
    }

    struct Medium: Record, Codable, Equatable {
        var id: Int
        var caption: String
        var order: Double
        var entry: Int?
        static let recordKeys: RecordKeys<Medium> = ["id": RecordKey(\.id), "caption": RecordKey(\.caption), "order": RecordKey(\.order)]
    }

    /// A store of 2 entries and `count` media, each medium of one of them.
    static func store(_ count: Int) throws -> ObjectStore {
        let model = try ObjectModel(
            .entity(Entry.self, relationships: [.toMany("media", \.media, to: Medium.self, inverse: "entry", deleteRule: .cascade)]),
            .entity(Medium.self, relationships: [.toOne("entry", \.entry, to: Entry.self, inverse: "media")]))
        let store = ObjectStore(model: model)
        let context = ObjectContext(store: store)
        try context.insert(Entry(id: 1, title: "Harbour"))
        try context.insert(Entry(id: 2, title: "Market"))
        for k in 0..<count { try context.insert(Medium(id: k, caption: k % 3 == 0 ? "fog \(k)" : "photo \(k)", order: Double(k), entry: 1 + k % 2)) }
        try context.save()
        return store
    }

    static func table(_ lines: Int) throws -> TableView {
        let table = TableView(viewportHeight: Double(lines) * 44)
        try table.register(TableViewCell.self, forCellReuseIdentifier: "medium")
        return table
    }

    static func cell(_ table: TableView, _ path: TablePath, _ medium: Medium) throws -> TableViewCell {
        let cell = try table.dequeueReusableCell(withIdentifier: "medium", for: path)
        cell.text = "\(medium.id) \(medium.caption)"
        return cell
    }

    @Test func aBindingDeletesAndWritesUserMovesToAKey() throws {
        let store = try Self.store(6)
        let context = ObjectContext(store: store)
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Medium>(sortKeys: [SortKey("order")]), context: context)
        let table = try Self.table(10)
        let binding = try table.bind(to: controller) { try Self.cell($0, $1, $2) }
        binding.onDelete = { medium in
            try context.delete(medium)
            try context.save()
        }
        binding.ordering = .init(key: "order", \.order)
        table.setEditing(true)
        // Medium 0 moved to the end: its key written past the last one's, the rows follow.
        try table.moveRowByUser(from: TablePath(row: 0, section: 0), to: TablePath(row: 5, section: 0))
        expectEqual(table.visibleCells.map(\.text), ["1 photo 1", "2 photo 2", "3 fog 3", "4 photo 4", "5 photo 5", "0 fog 0"])
        #expect(try #require(store.object(Medium.self, id: 0)).order > 5)
        // A swipe: the medium is deleted, and its entry's media lose it (nullify).
        try table.commit(.delete, forRowAt: TablePath(row: 0, section: 0))
        expectEqual(table.visibleCells.map(\.text).first, "2 photo 2")
        #expect(store.object(Medium.self, id: 1) == nil && store.object(Entry.self, id: 2)?.media == [3, 5])
    }

    @Test func aBoundTableOfAnEntityReadsItsBatchesAhead() throws {
        let store = try Self.store(400)
        let context = ObjectContext(store: store)
        var request = FetchRequest<Medium>(sortKeys: [SortKey("order")])
        request.fetchBatchSize = 20
        let controller = FetchedResultsController(fetchRequest: request, context: context)
        let table = try Self.table(10)
        table.isPrefetchingEnabled = true
        let binding = try table.bind(to: controller) { try Self.cell($0, $1, $2) }
        var stepsReading = 0
        while table.contentOffset < table.contentHeight - table.viewportHeight {
            let before = controller.batchReads.onDemand
            try table.setContentOffset(min(table.contentHeight - table.viewportHeight, table.contentOffset + 7 * 44))
            if controller.batchReads.onDemand != before { stepsReading += 1 }
            expectEqual(table.visibleCells.map(\.text), table.indexPathsForVisibleRows.map { path in
                try? controller.object(at: path) }.map { $0.map { "\($0.id) \($0.caption)" } })
        }
        #expect(stepsReading == 0 && controller.batchReads.ahead == 19)
        withExtendedLifetime(binding) {}
    }

    @Test func aSearchOfAnEntityUsesTheFoldedIndex() throws {
        let store = try Self.store(3_000)
        let context = ObjectContext(store: store)
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Medium>(sortKeys: [SortKey("order")]), context: context)
        let binding = try Self.table(10).bind(to: controller) { try Self.cell($0, $1, $2) }
        let search = try TableSearch(binding, format: "caption CONTAINS[cd] %@", results: .flat)
        try search.resultsTable.register(TableViewCell.self, forCellReuseIdentifier: "medium")
        #expect(search.usesSearchIndex && search.waitForSearchIndex(timeout: 60))
        try search.update(text: "FOG")
        _ = try search.showFoundResults(waiting: true)
        expectEqual(search.fetchedObjects?.map(\.id), (0..<3_000).filter { $0 % 3 == 0 })
        // A save narrows it live: medium 3's caption loses the word.
        let editor = ObjectContext(store: store)
        try editor.update(Medium(id: 3, caption: "clear", order: 3, entry: 2))
        context.mergeChanges(fromContextDidSave: try editor.save())
        expectEqual(search.fetchedObjects?.prefix(2).map(\.id), [0, 6])
    }

    @Test func aDiffableDataSourceFollowsAControllerOfAnEntity() throws {
        let store = try Self.store(5)
        let context = ObjectContext(store: store)
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<Medium>(sortKeys: [SortKey("entry.title"), SortKey("order")]), context: context, sectionNameKeyPath: "entry.title")
        let table = try Self.table(20)
        let dataSource = try TableViewDiffableDataSource<String, Int>(tableView: table) { table, path, id in
            try Self.cell(table, path, try #require(try context.object(Medium.self, id: id)))
        }
        try dataSource.follow(controller)
        expectEqual(dataSource.snapshot().sectionIdentifiers, ["Harbour", "Market"])
        try expectEqual(dataSource.snapshot().itemIdentifiers(inSection: "Harbour"), [0, 2, 4])
        // The entry's title edited: its media's section follows (through the relationship).
        try context.update(Entry(id: 2, title: "Attic", media: [1, 3]))
        try context.save()
        expectEqual(dataSource.snapshot().sectionIdentifiers, ["Attic", "Harbour"])
        expectEqual(table.visibleCells.map(\.text), ["1 photo 1", "3 fog 3", "0 fog 0", "2 photo 2", "4 photo 4"])
    }
}
