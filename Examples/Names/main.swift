// Names: a few thousand names, in the sections of the German index (A–Z and
// #: umlauts filed under their letters, other scripts under #) with the index
// at the side; a tap on an index title jumps to its section, and a search
// filters while typing and gives the full table back when cancelled.
//
//     swift run names

import Foundation
import HeadlessTable

struct Person: Record, Codable, Equatable {
    var id: Int
    var name: String

    static let recordKeys: RecordKeys<Person> = ["name": RecordKey(\.name)]
}

/// The names shipped with the example (generated, public domain; and real-world names in several scripts).
func loadNames() throws -> [String] {
    guard let url = Bundle.module.url(forResource: "names", withExtension: "txt") else { throw CocoaError(.fileNoSuchFile) }
    return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
}

let store = ObjectStore(for: Person.self)
let context = ObjectContext(store: store)
for (k, name) in try loadNames().enumerated() { try context.insert(Person(id: k, name: name)) }
_ = try context.save()

// UILocalizedIndexedCollation's counterpart: German sorting and sections.
let german = TableIndexCollation(localeIdentifier: "de")
let controller = FetchedResultsController(
    fetchRequest: FetchRequest<Person>(sortKeys: [SortKey("name", collation: german)]), context: context,
    sectionNameKeyPath: "name", sectionCollation: german)
try controller.performFetch()
let table = TableView(viewportHeight: 12 * 44)
table.sectionHeaderHeight = 44
try table.register(TableViewCell.self, forCellReuseIdentifier: "name")
let binding = try table.bind(to: controller) { table, indexPath, person in
    let cell = try table.dequeueReusableCell(withIdentifier: "name", for: indexPath)
    cell.text = person.name
    return cell
}
let search = try TableSearch(binding, format: "name BEGINSWITH[cd] %@", results: .sectioned)

let renderer = try TextRenderer(width: 32, pointsPerLine: 44)
@MainActor func show(_ step: String, _ table: TableView) {
    let rows = (0..<table.numberOfSections).reduce(0) { $0 + table.numberOfRows(inSection: $1) }
    print("\n== \(step) (\(rows) names in \(table.numberOfSections) section\(table.numberOfSections == 1 ? "" : "s"))\n" + renderer.text(for: table.currentFrame), terminator: "")
}

show("The names in the German index's sections, with the index", table)
let titles = table.sectionIndexTitles ?? []
print("\nThe index: \(titles.joined(separator: " "))")
for title in ["M", "O", "#"] {
    if let k = titles.firstIndex(of: title) { try table.tapSectionIndexTitle(at: k) }
    show("A tap on \"\(title)\" in the index", table)
}

for text in ["j", "jo", "jos", "öz"] {
    try search.update(text: text)
    show("Typing \"\(text)\" in the search field", search.resultsTable)
}
search.cancel()
show("Search cancelled: the full table, where it was", table)
