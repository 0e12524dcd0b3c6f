// ToDo: a to-do list on HeadlessTable — items sorted by when they were
// made, added from a second screen with its own context, done toggled with a
// tap (an update: one row reloads), deleted with a swipe.
//
//     swift run to-do

import Foundation
import HeadlessTable

struct Item: Record, Codable, Equatable {
    var id: Int
    var name: String
    var createdAt: Date
    var done = false

    static let recordKeys: RecordKeys<Item> = ["name": RecordKey(\.name), "createdAt": RecordKey(\.createdAt)]
}

/// The list: a table bound to a controller on the main context.
final class ListScreen: TableViewDelegate {
    let context: ObjectContext
    let table = TableView(viewportHeight: 6 * 44)
    let binding: FetchedResultsTableBinding<Item>

    init(store: ObjectStore) throws {
        context = ObjectContext(store: store, name: "list")
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Item>(sortKeys: [SortKey("createdAt")]), context: context)
        try controller.performFetch()
        try table.register(TableViewCell.self, forCellReuseIdentifier: "item")
        binding = try table.bind(to: controller) { table, indexPath, item in
            let cell = try table.dequeueReusableCell(withIdentifier: "item", for: indexPath)
            cell.text = item.name
            cell.accessory = item.done ? .checkmark : .none
            return cell
        }
        let context = context
        binding.onDelete = { item in
            try context.delete(item)
            _ = try context.save()
        }
        table.delegate = self
    }

    /// A tap toggles the item's done mark.
    func tableView(_ tableView: TableView, didSelectRowAt indexPath: TablePath) {
        guard var item = try? binding.controller.object(at: indexPath) else { return }
        item.done.toggle()
        try? context.update(item)
        _ = try? context.save()
        tableView.deselectRow(at: indexPath)
    }
}

/// The add screen: its own context, saved when the user taps Save.
struct AddScreen {
    let context: ObjectContext

    func save(_ name: String, id: Int, at time: Double) throws -> ContextDidSave {
        try context.insert(Item(id: id, name: name, createdAt: Date(timeIntervalSince1970: time)))
        return try context.save()
    }
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

let store = ObjectStore(for: Item.self)
let list = try ListScreen(store: store)
let screen = try Screen(width: 36)
list.table.renderer = screen
screen.show("An empty list", list.table)

let add = AddScreen(context: ObjectContext(store: store, name: "add"))
for (k, name) in ["Buy milk", "Call the plumber", "Water the plants"].enumerated() {
    list.context.mergeChanges(fromContextDidSave: try add.save(name, id: k + 1, at: 1_800_000_000 + Double(k) * 60))
}
screen.show("Three items added on the add screen; each save merged into the list's context", list.table)

try list.table.tapRow(at: TablePath(row: 1, section: 0))
screen.show("A tap on \"Call the plumber\": done (an update: one row reloads)", list.table)

try list.table.commit(.delete, forRowAt: TablePath(row: 0, section: 0))
screen.show("A swipe deletes \"Buy milk\"", list.table)

list.context.mergeChanges(fromContextDidSave: try add.save("Book train tickets", id: 4, at: 1_800_000_500))
try list.table.tapRow(at: TablePath(row: 0, section: 0))
screen.show("Another item added; \"Call the plumber\" tapped again: not done", list.table)
