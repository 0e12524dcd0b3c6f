/// A named section of rows — one section of a fetch result.
///
/// The section's `name` is its identity: a section with the same name before and
/// after a change is the same section, however its rows changed. Rows keep their
/// own identities (``TableDiffable``) and may move between sections.
///
/// ```swift
/// let sections = [
///     TableSection(name: "A", rows: ["Anna", "Arne"]),
///     TableSection(name: "B", rows: ["Bea"]),
/// ]
/// ```
public struct TableSection<Row> {
    /// The section's name, which identifies it.
    public var name: String
    /// The section's rows, in order.
    public var rows: [Row]

    /// Creates a section from its name and rows.
    @inlinable
    public init(name: String, rows: [Row]) {
        self.name = name
        self.rows = rows
    }
}

extension TableSection: Equatable where Row: Equatable {}
extension TableSection: Hashable where Row: Hashable {}
extension TableSection: Sendable where Row: Sendable {}

extension TableSection: CustomStringConvertible {
    public var description: String { "\(name.debugDescription): \(rows)" }
}

extension Array {
    /// The number of rows in each section, in order.
    ///
    /// - Complexity: O(*s*), where *s* is the number of sections.
    @inlinable
    public func rowCounts<Row>() -> [Int] where Element == TableSection<Row> {
        map(\.rows.count)
    }
}
