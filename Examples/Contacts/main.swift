// Contacts: people sorted by two keys (age, then last name), a list and an
// add screen in two contexts; the list updates when the add screen saves.
//
//     swift run contacts

import Foundation
import HeadlessTable

struct Contact: Record, Codable, Equatable {
    var id: Int
    var firstName: String
    var lastName: String
    var age: Int

    static let recordKeys: RecordKeys<Contact> = [
        "firstName": RecordKey(\.firstName), "lastName": RecordKey(\.lastName), "age": RecordKey(\.age),
    ]
}

let store = ObjectStore(for: Contact.self)
let seed = ObjectContext(store: store)
for (k, person) in [("Ada", "Lovelace", 36), ("Alan", "Turing", 41), ("Grace", "Hopper", 85), ("Edsger", "Dijkstra", 72)].enumerated() {
    try seed.insert(Contact(id: k + 1, firstName: person.0, lastName: person.1, age: person.2))
}
_ = try seed.save()

// The list: its own context and a controller sorted by age, then last name.
let listContext = ObjectContext(store: store, name: "list")
let controller = FetchedResultsController(
    fetchRequest: FetchRequest<Contact>(sortKeys: [SortKey("age"), SortKey("lastName")]), context: listContext)
try controller.performFetch()
let list = TableView(viewportHeight: 7 * 44)
try list.register(TableViewCell.self, forCellReuseIdentifier: "contact")
let binding = try list.bind(to: controller) { table, indexPath, contact in
    let cell = try table.dequeueReusableCell(withIdentifier: "contact", for: indexPath)
    cell.text = "\(contact.lastName), \(contact.firstName)"
    cell.detailText = "\(contact.age)"
    cell.accessory = .disclosureIndicator
    return cell
}

/// Draws the list after each step, with the batch that got it there.
final class Screen: TableRenderer {
    let text: TextRenderer
    var log = ""
    init(width: Int) throws { text = try TextRenderer(width: width, pointsPerLine: 44) }
    func display(_ frame: TableFrame) {}
    func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame) { log += text.log(of: update) }
    func show(_ step: String, _ table: TableView) {
        print("\n== \(step)\n" + (log.isEmpty ? "" : "Batch:\n" + log) + text.text(for: table.currentFrame), terminator: "")
        log = ""
    }
}
let screen = try Screen(width: 34)
list.renderer = screen
@MainActor func show(_ step: String) { screen.show(step, list) }
show("The list, by age, then last name")

// The add screen: a second context. Nothing reaches the list until it saves.
let addContext = ObjectContext(store: store, name: "add")
try addContext.insert(Contact(id: 5, firstName: "Barbara", lastName: "Liskov", age: 36))
try addContext.insert(Contact(id: 6, firstName: "Tim", lastName: "Berners-Lee", age: 71))
show("The add screen has two new people, not saved yet: the list is unchanged")

let saved = try addContext.save()
listContext.mergeChanges(fromContextDidSave: saved)
show("The add screen saves; the list's context merges the save (Liskov, 36, sorts before Lovelace, 36)")

if var ada = try addContext.object(Contact.self, id: 1) {
    ada.age = 75
    try addContext.update(ada)
    listContext.mergeChanges(fromContextDidSave: try addContext.save())
}
show("Ada's age edited on the add screen's context and saved: her row moves")
withExtendedLifetime(binding) {}
