// DiffBasics: the batch updates between two fetch results of a to-do list,
// and what a table shows after each of them.
//
//     swift run diff-basics

import HeadlessTable

/// A row: identified by `id` (Identifiable), its content compared with `==` (Equatable).
struct Item: Identifiable, Equatable, TableDiffable {
    var id: Int
    var name: String
    var done = false
}

// The list before: grouped into "To do" and "Done".
let before = [
    TableSection(name: "To do", rows: [
        Item(id: 1, name: "Buy milk"),
        Item(id: 2, name: "Call Anna"),
        Item(id: 3, name: "Fix the bike"),
    ]),
    TableSection(name: "Done", rows: [
        Item(id: 4, name: "Book tickets", done: true),
    ]),
]

// After: "Call Anna" is done (it changes and moves to the other section),
// "Buy milk" is renamed, "Water plants" is new, "Book tickets" is gone.
let after = [
    TableSection(name: "To do", rows: [
        Item(id: 5, name: "Water plants"),
        Item(id: 1, name: "Buy oat milk"),
        Item(id: 3, name: "Fix the bike"),
    ]),
    TableSection(name: "Done", rows: [
        Item(id: 2, name: "Call Anna", done: true),
    ]),
]

let changeset = TableChangeset(from: before, to: after)

// Each stage is one performBatchUpdates; its sections are what the data source
// must report while it runs.
var shown = before
for (number, stage) in changeset.stages.enumerated() {
    print("Batch \(number + 1):")
    for line in stage.update.logLines() { print("  " + line) }
    do {
        // Applied under UIKit's rules: a row is refreshed only when reloaded.
        shown = try stage.update.applying(to: shown, dataSource: stage.sections)
    } catch {
        print("UIKit would refuse this batch: \(error)")   // never happens with a computed changeset
    }
    for section in shown {
        print("  \(section.name): " + section.rows.map { "\($0.name)\($0.done ? " ✓" : "")" }.joined(separator: ", "))
    }
}
print(shown == after ? "The table now shows the list after." : "The table does not show the list after.")

// A batch that does not add up is refused with UIKit's message, and nothing changes.
var wrong = BatchUpdate()
wrong.deleteRows(at: [TablePath(row: 0, section: 0)])
do {
    _ = try wrong.applying(to: before, dataSource: before)
} catch {
    print("\nA wrong batch: \(error)")
}
