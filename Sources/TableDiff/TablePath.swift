/// The position of a row in a table: its section and its row within the section.
///
/// `TablePath` is HeadlessTable's own index path, used in place of
/// `Foundation.IndexPath` for speed and because `IndexPath(row:section:)` does not
/// exist outside Apple's platforms. Arguments come in UIKit's order, row first.
/// Paths order by section, then by row; they print as `{section, row}`, the way
/// UIKit's messages write them:
///
/// ```swift
/// let path = TablePath(row: 3, section: 0)
/// print(path) // {0, 3}
/// ```
@frozen
public struct TablePath: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The section's index.
    public var section: Int
    /// The row's index within its section.
    public var row: Int

    /// Creates the path of a row in a section.
    @inlinable
    public init(row: Int, section: Int) {
        self.row = row
        self.section = section
    }

    @inlinable
    public static func < (lhs: TablePath, rhs: TablePath) -> Bool {
        lhs.section != rhs.section ? lhs.section < rhs.section : lhs.row < rhs.row
    }

    /// The path as UIKit writes it in its messages: `{section, row}`.
    public var description: String { "{\(section), \(row)}" }
}

/// A move of a row or a section, from its position before an update to its
/// position after it.
@frozen
public struct Move<Position: Hashable>: Hashable {
    /// The position before the update.
    public var from: Position
    /// The position after the update.
    public var to: Position

    /// Creates a move from one position to another.
    @inlinable
    public init(from: Position, to: Position) {
        self.from = from
        self.to = to
    }
}

extension Move: Sendable where Position: Sendable {}
extension Move: Codable where Position: Codable {}

extension Move: CustomStringConvertible {
    public var description: String { "\(from) → \(to)" }
}
