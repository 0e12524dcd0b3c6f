import Foundation
import HeadlessTable

/// A person, as a new user declares one from the README.
public struct Person: Record, Codable, Sendable {
    public var id: Int
    public var name: String
    public var city: String
    public var age: Int

    public static let recordKeys: RecordKeys<Person> = [
        "name": RecordKey(\.name), "city": RecordKey(\.city), "age": RecordKey(\.age),
    ]
}

/// A screen of people written as an embedder writes one, from the README and
/// the docs, with public API only: a store, a controller sorted by name with
/// a batch size of 50, a table of 24 lines bound to it, a search on
/// `name CONTAINS[cd] %@`, and a text renderer drawing the table on screen.
/// Each method is one user action, drawn.
public final class PeopleScreen {
    public let context: ObjectContext
    public let controller: FetchedResultsController<Person>
    public let table: TableView
    public let binding: FetchedResultsTableBinding<Person>
    public private(set) var search: TableSearch<Person>
    let renderer: TextRenderer
    /// The last screen drawn (kept, so the drawing is not optimized away).
    public private(set) var screen = ""

    /// Opens the screen over `context`: fetch, bind, first frame.
    public init(context: ObjectContext) throws {
        self.context = context
        var request = FetchRequest<Person>(sortKeys: [SortKey("name")])
        request.fetchBatchSize = 50
        controller = FetchedResultsController(fetchRequest: request, context: context)
        try controller.performFetch()
        table = TableView(viewportHeight: 24)
        table.rowHeight = 1
        try table.register(TableViewCell.self, forCellReuseIdentifier: "person")
        binding = try table.bind(to: controller) { table, path, person in
            let cell = try table.dequeueReusableCell(withIdentifier: "person", for: path)
            cell.text = person.name
            cell.detailText = person.city
            return cell
        }
        binding.onDelete = { [context] person in
            try context.delete(person)
            _ = try context.save()
        }
        search = try TableSearch(binding, format: "name CONTAINS[cd] %@", scopes: Self.scopes)
        renderer = try TextRenderer(width: 80, pointsPerLine: 1)
        try table.selectRow(at: TablePath(row: 0, section: 0))
        draw()
    }

    /// The table the keys act on: the results while a search is on.
    public var shown: TableView { search.isActive ? search.resultsTable : table }

    /// Draws the table on screen.
    public func draw() {
        screen = renderer.text(for: shown.currentFrame)
    }

    /// The number of rows of the table on screen.
    public var rowCount: Int { (0..<shown.numberOfSections).reduce(0) { $0 + shown.numberOfRows(inSection: $1) } }

    /// Moves the selection by `rows` (down for positive), to the first (Home)
    /// or to the last row (End), scrolled into view.
    public func moveSelection(by rows: Int? = nil, toEnd: Bool = false) throws {
        let table = shown
        let count = rowCount
        guard count > 0 else { return }
        let current = table.indexPathForSelectedRow?.row ?? 0
        let target: Int
        if let rows { target = min(max(0, current + rows), count - 1) } else { target = toEnd ? count - 1 : 0 }
        let path = TablePath(row: target, section: 0)
        try table.selectRow(at: path)
        try table.scrollToRow(at: path, at: .none)
        draw()
    }

    /// Types into the search field: the search's text becomes `text`.
    public func type(_ text: String) throws {
        try search.update(text: text)
        if let first = search.resultsTable.numberOfSections > 0 && search.resultsTable.numberOfRows(inSection: 0) > 0 ? TablePath(row: 0, section: 0) : nil {
            try search.resultsTable.selectRow(at: first)
        }
        draw()
    }

    /// What the screen does between the user's actions (a run loop's turn):
    /// the rest of a search's results, once found, is shown and drawn.
    /// `waiting` waits for them, as a pause between keystrokes would.
    public func idle(waiting: Bool = false) throws {
        if search.isFindingResults, try search.showFoundResults(waiting: waiting) { draw() }
    }

    /// A new search field (the last one let go): what a user starts when
    /// opening search again.
    public func newSearch() throws {
        search.cancel()
        search = try TableSearch(binding, format: "name CONTAINS[cd] %@", scopes: Self.scopes)
        draw()
    }

    /// The search's scope buttons: everyone, and people of 40 and over.
    static let scopes: [TableSearch<Person>.Scope] = [.init("All"), .init("40 and over", predicate: RecordPredicate { $0.age >= 40 })]

    /// Taps a scope button (0: everyone, 1: 40 and over).
    public func selectScope(_ index: Int) throws {
        try search.selectScope(at: index)
        draw()
    }

    /// Swipe-to-delete on the selected row of the table on screen.
    public func deleteSelected() throws {
        let table = shown
        guard let path = table.indexPathForSelectedRow ?? (rowCount > 0 ? TablePath(row: 0, section: 0) : nil) else { return }
        try table.commit(.delete, forRowAt: path)
        if rowCount > 0 { try table.selectRow(at: TablePath(row: min(path.row, rowCount - 1), section: 0)) }
        draw()
    }
}

/// People `{id, name, city, age}` drawn from a seeded generator: first and
/// last names from lists in several scripts' Latin letters (`Müller`,
/// `Münalp`, `Kalinowski`…), a hundred cities.
public enum People {
    public static let first = ["Anna", "Ben", "Carla", "Dário", "Emre", "Fatma", "Greta", "Hugo", "Ines", "Jonas", "Kai", "Lena", "Mia", "Noah",
                        "Olga", "Paul", "Quentin", "Rosa", "Sven", "Tilda", "Ümit", "Vera", "Wim", "Xenia", "Yusuf", "Zoë"]
    public static let last = ["Müller", "Münalp", "Mundt", "Kalinowski", "Kaya", "Schmidt", "Nguyen", "García", "Öztürk", "Novák", "Rossi",
                       "Dubois", "Jensen", "Kowalski", "Smith", "Tanaka", "Ivanova", "Hoang", "Eriksson", "Fischer", "Okafor", "Petrov",
                       "Quinn", "Berg", "Chen", "López", "Şahin", "Weiß", "Lindqvist", "Ahmed"]
    static let cities = (0..<100).map { String(format: "City %03d", $0) }

    /// `count` people, the same in every run.
    public static func make(_ count: Int, seed: UInt64 = 25) -> [Person] {
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return (0..<count).map { id in
            Person(id: id, name: first[Int(next() % UInt64(first.count))] + " " + last[Int(next() % UInt64(last.count))] + " \(next() % 1000)",
                   city: cities[Int(next() % 100)], age: Int(next() % 90))
        }
    }

    /// A store in memory holding `count` people, saved once.
    public static func store(_ count: Int) throws -> ObjectContext {
        let context = ObjectContext(store: ObjectStore(for: Person.self))
        for person in make(count) { try context.insert(person) }
        _ = try context.save()
        return context
    }
}
