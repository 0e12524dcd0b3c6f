// Groceries: a shopping list driven by snapshots — a TableViewDiffableDataSource
// over a plain array, the way UIKit apps write lists since iOS 13. Every change
// is a new snapshot; the data source works out the batch.
//
//     swift run groceries

import Foundation
import HeadlessTable

struct Grocery {
    let id: Int
    var name: String
    var quantity: Int
    var inBasket = false
}

enum Aisle: String, Hashable, Sendable {
    case toBuy = "To buy"
    case basket = "In the basket"
}

/// The list screen: the model, a table and its diffable data source.
final class ListScreen {
    var groceries: [Grocery] = []
    let table = TableView(viewportHeight: 7 * 44)
    var dataSource: TableViewDiffableDataSource<Aisle, Int>!

    init() throws {
        try table.register(TableViewCell.self, forCellReuseIdentifier: "grocery")
        dataSource = try TableViewDiffableDataSource(tableView: table) { [unowned self] table, indexPath, id in
            let cell = try table.dequeueReusableCell(withIdentifier: "grocery", for: indexPath)
            guard let grocery = groceries.first(where: { $0.id == id }) else { return cell }
            cell.text = "\(grocery.quantity) × \(grocery.name)"
            cell.accessory = grocery.inBasket ? .checkmark : .none
            return cell
        }
        dataSource.headerTitleProvider = { aisle, _ in aisle.rawValue }
    }

    /// What the list shows: the model as a snapshot, items to buy first.
    func snapshot() throws -> TableSnapshot<Aisle, Int> {
        var snapshot = TableSnapshot<Aisle, Int>()
        try snapshot.appendSections([.toBuy, .basket])
        try snapshot.appendItems(groceries.filter { !$0.inBasket }.map(\.id), toSection: .toBuy)
        try snapshot.appendItems(groceries.filter(\.inBasket).map(\.id), toSection: .basket)
        return snapshot
    }

    func add(_ name: String, quantity: Int) throws {
        groceries.append(Grocery(id: (groceries.map(\.id).max() ?? 0) + 1, name: name, quantity: quantity))
        try dataSource.apply(snapshot())
    }

    /// A tap puts an item in the basket, or back: it moves across sections.
    func toggle(_ id: Int) throws {
        guard let k = groceries.firstIndex(where: { $0.id == id }) else { return }
        groceries[k].inBasket.toggle()
        try dataSource.apply(snapshot())
    }

    /// One more of an item: same row, same cell, configured again.
    func increment(_ id: Int) throws {
        guard let k = groceries.firstIndex(where: { $0.id == id }) else { return }
        groceries[k].quantity += 1
        var snapshot = try snapshot()
        try snapshot.reconfigureItems([id])
        try dataSource.apply(snapshot)
    }

    /// A new name: the row gets a new cell.
    func rename(_ id: Int, to name: String) throws {
        guard let k = groceries.firstIndex(where: { $0.id == id }) else { return }
        groceries[k].name = name
        var snapshot = try snapshot()
        try snapshot.reloadItems([id])
        try dataSource.apply(snapshot)
    }

    func clearBasket() throws {
        groceries.removeAll(where: \.inBasket)
        try dataSource.apply(snapshot(), animatingDifferences: false)
    }
}

/// Draws the list after each step, with the batches that got it there.
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

let list = try ListScreen()
let screen = try Screen(width: 36)
list.table.renderer = screen
try list.dataSource.apply(list.snapshot())
screen.show("An empty list: two sections, no items", list.table)

for (name, quantity) in [("Apples", 6), ("Bread", 1), ("Milk", 2), ("Coffee", 1)] { try list.add(name, quantity: quantity) }
screen.show("Four items added, one snapshot each", list.table)

try list.toggle(2)
try list.toggle(3)
screen.show("Bread and Milk in the basket: rows move across sections", list.table)

try list.increment(1)
screen.show("One more apple: reconfigured, the row keeps its cell", list.table)

try list.rename(4, to: "Decaf coffee")
screen.show("Coffee renamed: reloaded, a new cell", list.table)

var wrong = try list.snapshot()
do {
    try wrong.appendItems([1], toSection: .basket)
} catch {
    print("\n== Appending Apples twice is refused, the snapshot unchanged\n\(error)")
}

try list.clearBasket()
screen.show("The basket cleared, without animation", list.table)
