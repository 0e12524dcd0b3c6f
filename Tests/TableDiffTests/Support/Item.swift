import TableDiff

/// A test row: an identity and a content version.
struct Item: TableDiffable, Hashable, CustomStringConvertible, Sendable {
    var id: Int
    var content: Int = 0

    var diffIdentifier: Int { id }
    func isContentEqual(to other: Item) -> Bool { content == other.content }

    var description: String { content == 0 ? "\(id)" : "\(id)'\(content)" }
}

typealias Table = [TableSection<Item>]

/// Builds a table from a compact description: `[("A", [1, 2]), ("B", [3])]`.
func table(_ sections: [(String, [Int])]) -> Table {
    sections.map { TableSection(name: $0.0, rows: $0.1.map { Item(id: $0) }) }
}

func describe(_ table: Table) -> String {
    table.isEmpty ? "(no sections)" : table.map { "\($0.name.isEmpty ? "\"\"" : $0.name): \($0.rows.map(\.description).joined(separator: " "))" }.joined(separator: " | ")
}
