import Foundation
import HeadlessTable

/// The launch of an app over a store of people, written as a new user
/// writes it (public API only): a file store of people whose model indexes
/// `name`, opened by a fresh process that fetches sorted by name with a
/// batch size and a cache name, binds a 24-line table and draws the first
/// frame.
public enum Launch {
    /// The people's model: one entity, an index on name.
    public static let model: ObjectModel = {
        do { return try ObjectModel(.entity(Person.self, indexes: [["name"]])) } catch { fatalError("the launch model: \(error)") }
    }()

    /// Makes a file store of `count` people (``People/make(_:seed:)``'s) at
    /// `url`: saved a million at a time, then compacted (a snapshot with its
    /// index, an empty journal).
    public static func makeStore(at url: URL, count: Int) throws {
        try? FileManager.default.removeItem(at: url)
        let store = try ObjectStore(model: model, fileURL: url)
        let people = People.make(count)
        var start = 0
        while start < count {
            let context = ObjectContext(store: store)
            for person in people[start..<min(count, start + 1_000_000)] { try context.insert(person) }
            try context.save()
            start += 1_000_000
        }
        try store.compact()
    }

    /// What a launch measured: milliseconds from `start` to the store opened,
    /// the fetch done and the first frame drawn, and the first frame.
    public struct Figures: Codable {
        public var open: Double
        public var fetch: Double
        public var frame: Double
        public var rows: Int
        public var screen: String
    }

    /// Opens the store at `url`, fetches sorted by name (batch size 50, a
    /// cache name), binds a table of 24 lines and draws the first frame.
    public static func run(_ url: URL, since start: DispatchTime) throws -> Figures {
        func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6 }
        let store = try ObjectStore(model: model, fileURL: url)
        let open = elapsed()
        let controller = FetchedResultsController(fetchRequest: byName(), context: ObjectContext(store: store), cacheName: "people")
        try controller.performFetch()
        let fetch = elapsed()
        let (table, binding) = try screen(of: controller)
        let renderer = try TextRenderer(width: 80, pointsPerLine: 1)
        let screen = renderer.text(for: table.currentFrame)
        let frame = elapsed()
        withExtendedLifetime(binding) {}
        return Figures(open: open, fetch: fetch, frame: frame, rows: controller.numberOfObjects(inSection: 0), screen: screen)
    }

    /// The people sorted by name, a batch of 50 at a time.
    static func byName() -> FetchRequest<Person> {
        var request = FetchRequest<Person>(sortKeys: [SortKey("name")])
        request.fetchBatchSize = 50
        return request
    }

    /// A table of 24 lines bound to `controller`: each row a person's name and city.
    static func screen(of controller: FetchedResultsController<Person>) throws -> (TableView, FetchedResultsTableBinding<Person>) {
        let table = TableView(viewportHeight: 24)
        table.rowHeight = 1
        try table.register(TableViewCell.self, forCellReuseIdentifier: "person")
        let binding = try table.bind(to: controller) { table, path, person in
            let cell = try table.dequeueReusableCell(withIdentifier: "person", for: path)
            cell.text = person.name
            cell.detailText = person.city
            return cell
        }
        return (table, binding)
    }

    /// Fetches the people whose names a predicate picks, sorted by name
    /// (batch size 50), as an app filters a list: returns how many.
    public static func fetchCount(_ store: ObjectStore, predicate format: String) throws -> Int {
        var request = byName()
        request.predicate = try RecordPredicate(format: format)
        let controller = FetchedResultsController(fetchRequest: request, context: ObjectContext(store: store))
        try controller.performFetch()
        return controller.numberOfObjects(inSection: 0)
    }

    /// The people sorted by name (batch size 50) in a table of 24 lines with
    /// a search by name, as an app's list with a search field: returns once
    /// the search's index is made (false when it was not within two minutes).
    public static func searchIndexMade(_ store: ObjectStore) throws -> Bool {
        let controller = FetchedResultsController(fetchRequest: byName(), context: ObjectContext(store: store))
        try controller.performFetch()
        let (table, binding) = try screen(of: controller)
        let search = try TableSearch(binding, format: "name CONTAINS[cd] %@")
        return withExtendedLifetime(table) { search.waitForSearchIndex(timeout: 120) }
    }
}
