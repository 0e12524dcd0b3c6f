/// A value that can be diffed: it has an **identity** and a **content**.
///
/// Two values with equal ``diffIdentifier``s are the same row (or section) of a
/// table, before and after a change. When their content differs — when
/// ``isContentEqual(to:)`` returns `false` — the row was *updated*: a diff
/// refreshes (reloads) it in place, it never deletes and reinserts it.
///
/// Types that are `Identifiable` get ``diffIdentifier`` from `id`, and types
/// that are `Equatable` get ``isContentEqual(to:)`` from `==`:
///
/// ```swift
/// struct Entry: Identifiable, Equatable, TableDiffable {
///     var id: Int
///     var text: String
/// }
/// ```
///
/// A `Hashable` type that is not `Identifiable` is its own identity, so a type
/// whose value *is* its identity (a tag, a number, a UUID) conforms with an
/// empty extension: `extension Tag: TableDiffable {}`. The standard library's
/// strings, integers, `Double`, `Bool` and `Character` already conform.
public protocol TableDiffable {
    /// The type of a value's identity.
    associatedtype DiffIdentifier: Hashable

    /// The identity of the value: equal across old and new for the same row.
    var diffIdentifier: DiffIdentifier { get }

    /// Returns whether this value shows the same content as `other`, which has
    /// the same identity.
    func isContentEqual(to other: Self) -> Bool
}

extension TableDiffable where Self: Identifiable {
    /// The identity of an `Identifiable` value is its `id`.
    @inlinable
    public var diffIdentifier: ID { id }
}

extension TableDiffable where Self: Equatable {
    /// The content of an `Equatable` value is compared with `==`.
    @inlinable
    public func isContentEqual(to other: Self) -> Bool { self == other }
}

extension TableDiffable where Self: Hashable {
    /// A `Hashable` value that is not `Identifiable` is its own identity.
    @inlinable
    public var diffIdentifier: Self { self }
}

extension TableDiffable where Self: Hashable & Identifiable {
    /// A value that is both `Hashable` and `Identifiable` is identified by `id`.
    @inlinable
    public var diffIdentifier: ID { id }
}

extension String: TableDiffable {}
extension Substring: TableDiffable {}
extension Int: TableDiffable {}
extension Int64: TableDiffable {}
extension Int32: TableDiffable {}
extension UInt: TableDiffable {}
extension UInt64: TableDiffable {}
extension UInt32: TableDiffable {}
extension Double: TableDiffable {}
extension Bool: TableDiffable {}
extension Character: TableDiffable {}
