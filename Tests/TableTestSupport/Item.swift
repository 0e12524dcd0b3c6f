import TableDiff

/// A test row: an identity and a content version.
public struct Item: TableDiffable, Hashable, CustomStringConvertible, Sendable {
    public var id: Int
    public var content: Int = 0

    public init(id: Int, content: Int = 0) {
        self.id = id
        self.content = content
    }

    public var diffIdentifier: Int { id }
    public func isContentEqual(to other: Item) -> Bool { content == other.content }

    public var description: String { content == 0 ? "\(id)" : "\(id)'\(content)" }
}

public typealias Table = [TableSection<Item>]

/// Builds a table from a compact description: `[("A", [1, 2]), ("B", [3])]`.
public func table(_ sections: [(String, [Int])]) -> Table {
    sections.map { TableSection(name: $0.0, rows: $0.1.map { Item(id: $0) }) }
}

public func describe(_ table: Table) -> String {
    table.isEmpty ? "(no sections)" : table.map { "\($0.name.isEmpty ? "\"\"" : $0.name): \($0.rows.map(\.description).joined(separator: " "))" }.joined(separator: " | ")
}
