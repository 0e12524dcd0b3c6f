import Foundation
import PredicateFormat
import Records
import TableDiff

/// One sort key of a fetch request: a key path, a direction, and how strings compare.
///
/// ```swift
/// let request = FetchRequest<Entry>(sortKeys: [SortKey("created", ascending: false)])
/// ```
///
/// Values order as Core Data orders them: nil first, then (when a key holds
/// several kinds) booleans, numbers (by value, integers and doubles alike),
/// dates, strings, arrays, records. Descending reverses the whole order.
public struct SortKey: Hashable, Sendable, CustomStringConvertible {
    /// How strings compare.
    public enum StringComparison: Hashable, Sendable {
        /// By the Unicode scalars of the strings' NFC forms, like
        /// `compare(_:)`: the order `String`'s `<` documents, canonically
        /// equivalent strings equal. (Computed here: on Swift 6.3, `<` answers
        /// wrongly for some strings with combining marks, and a sort needs a
        /// total order.)
        case plain
        /// As people expect in a list, like `localizedStandardCompare(_:)`:
        /// case and diacritics are ignored first, runs of digits compare as
        /// numbers (`file 2` before `file 10`), and ties are broken plainly.
        /// The same on every platform and in every locale.
        case localizedStandard
        /// By a locale's section index, as ``TableIndexCollation/compare(_:_:)``
        /// orders: the section first, then letter by letter, then plainly.
        /// Values that are not strings order as their section names do (nil
        /// as "", so in `#`), so that sections by the same collation
        /// (`FetchedResultsController.sectionCollation`) are always in order.
        case collation(TableIndexCollation)
    }

    /// The key path, e.g. `created` or `author.name`.
    public var keyPath: String
    /// Ascending (the default) or descending.
    public var ascending: Bool
    /// How strings compare.
    public var comparison: StringComparison

    /// A sort key on a key path, in a direction, with a string comparison.
    public init(_ keyPath: String, ascending: Bool = true, comparison: StringComparison = .plain) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparison = comparison
    }

    /// A sort key that orders by a locale's section index (see
    /// ``StringComparison/collation(_:)``):
    /// `SortKey("name", collation: TableIndexCollation(localeIdentifier: "de"))`.
    public init(_ keyPath: String, ascending: Bool = true, collation: TableIndexCollation) {
        self.init(keyPath, ascending: ascending, comparison: .collation(collation))
    }

    /// `created`, `-created` for descending, `~name` for localized-standard
    /// strings, `@de:name` for a collation's.
    public var description: String {
        let comparison: String
        switch self.comparison {
        case .plain: comparison = ""
        case .localizedStandard: comparison = "~"
        case .collation(let collation): comparison = "@\(collation.tableIdentifier):"
        }
        return (ascending ? "" : "-") + comparison + keyPath
    }
}

/// A collated string's collation key and the string itself.
@usableFromInline
package final class _Collated: Sendable {
    @usableFromInline package let key: [UInt32]
    @usableFromInline let string: String

    @inlinable
    init(_ key: [UInt32], _ string: String) {
        self.key = key
        self.string = string
    }
}

/// A value made ready for fast comparisons under a sort key.
@usableFromInline
package enum _SortValue: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    /// An integer above `Int.max` (smaller ones are ``int(_:)``).
    case uint(UInt64)
    case double(Double)
    case date(Double)
    case string(String)
    /// A localized-standard or collation string: its collation key, then
    /// the string for ties (boxed: a sort value takes 17 bytes, not 25).
    case collated(_Collated)
    case other(RecordValue)

    /// A collated string of this key.
    @inlinable
    static func collatedString(_ key: [UInt32], _ string: String) -> _SortValue { .collated(_Collated(key, string)) }

    @inlinable
    package init(_ value: RecordValue, comparison: SortKey.StringComparison) {
        if case .collation(let collation) = comparison {
            // Every value as its section name: one order, the sections'.
            let name = _sectionName(value)
            self = .collatedString(collation.key(of: name), name)
            return
        }
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .uint(let u): self = Int(exactly: u).map(_SortValue.int) ?? .uint(u)
        case .double(let d): self = .double(d)
        case .date(let d): self = .date(d.timeIntervalSinceReferenceDate)
        case .string(let s): self = comparison == .plain ? .string(s) : .collatedString(_standardCollationKey(s), s)
        default: self = .other(value)
        }
    }

    @usableFromInline
    package var rank: Int {
        switch self {
        case .null: 0
        case .bool: 1
        case .int, .uint, .double: 2
        case .date: 3
        case .string, .collated: 4
        case .other(let v): if case .array = v { 5 } else { 6 }
        }
    }

    /// -1, 0 or 1.
    @usableFromInline
    package static func compare(_ a: _SortValue, _ b: _SortValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case let (.bool(x), .bool(y)): return x == y ? 0 : (!x ? -1 : 1)
        case let (.int(x), .int(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.double(x), .double(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.int(x), .double(y)): return -_compare(y, x)
        case let (.double(x), .int(y)): return _compare(x, y)
        case let (.uint(x), .uint(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case (.int, .uint): return -1
        case (.uint, .int): return 1
        case let (.uint(x), .double(y)): return -_compare(y, x)
        case let (.double(x), .uint(y)): return _compare(x, y)
        case let (.date(x), .date(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.string(x), .string(y)): return _comparePlain(x, y)
        case let (.collated(x), .collated(y)):
            let c = _compareKeys(x.key, y.key)
            if c != 0 { return c }
            return _comparePlain(x.string, y.string)
        case let (.other(x), .other(y)): return _compareValues(x, y)
        default:
            let (ra, rb) = (a.rank, b.rank)
            if ra != rb { return ra < rb ? -1 : 1 }
            // Same rank, different shapes (a plain and a collated string): compare the values.
            return _compareValues(a.recordValue, b.recordValue)
        }
    }

    @usableFromInline
    package var recordValue: RecordValue {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .uint(let u): .uint(u)
        case .double(let d): .double(d)
        case .date(let d): .date(Date(timeIntervalSinceReferenceDate: d))
        case .string(let s): .string(s)
        case .collated(let c): .string(c.string)
        case .other(let v): v
        }
    }
}

/// The kinds of the values an index's key holds, kept in the store's file
/// with the index: the sort ranks of its values other than nil, and whether
/// one is a NaN (unordered: an index holding one is not a range).
package struct _KeyKinds: OptionSet, Sendable {
    package let rawValue: UInt64

    package init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Values of a sort rank (``_SortValue/rank``).
    package static func rank(_ rank: Int) -> _KeyKinds { _KeyKinds(rawValue: 1 << UInt64(rank)) }
    package static let nan = _KeyKinds(rawValue: 1 << 8)

    mutating func add(_ value: _SortValue) {
        switch value {
        case .null: return
        case .double(let d), .date(let d): if d.isNaN { insert(.nan) }
        default: break
        }
        insert(.rank(value.rank))
    }
}

/// A record's sort values, one per sort key: the first two inline (no
/// allocation for the usual one or two keys), the others in an array.
@usableFromInline
package struct _SortValues: Sendable {
    @usableFromInline package var first: _SortValue
    @usableFromInline var second: _SortValue
    @usableFromInline var rest: [_SortValue]

    @inlinable
    package init(first: _SortValue, second: _SortValue = .null) {
        self.first = first
        self.second = second
        rest = []
    }

    @inlinable
    package init(_ values: [_SortValue]) {
        first = values.first ?? .null
        second = values.count > 1 ? values[1] : .null
        rest = values.count > 2 ? Array(values[2...]) : []
    }

    @inlinable
    package subscript(k: Int) -> _SortValue {
        k == 0 ? first : (k == 1 ? second : rest[k - 2])
    }
}

func _compareKeys(_ a: [UInt32], _ b: [UInt32]) -> Int {
    for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
}

/// The total order of record values used by sort keys (plain strings).
func _compareValues(_ a: RecordValue, _ b: RecordValue) -> Int {
    switch (a, b) {
    case let (.array(x), .array(y)):
        for (u, v) in zip(x, y) {
            let c = _compareValues(u, v)
            if c != 0 { return c }
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    case let (.record(x), .record(y)):
        let kx = x.keys.sorted { _comparePlain($0, $1) < 0 }, ky = y.keys.sorted { _comparePlain($0, $1) < 0 }
        if kx != ky { return _compareValues(.array(kx.map(RecordValue.string)), .array(ky.map(RecordValue.string))) }
        for key in kx {
            let c = _compareValues(x[key] ?? .null, y[key] ?? .null)
            if c != 0 { return c }
        }
        return 0
    default:
        return _SortValue.compare(_SortValue(a, comparison: .plain), _SortValue(b, comparison: .plain))
    }
}

/// The collation key of a string under `localizedStandard`: letters lowercased
/// and stripped of diacritics; each run of digits as a marker, its length
/// (without leading zeros) and its digits, so that runs compare as numbers.
@usableFromInline
func _standardCollationKey(_ s: String) -> [UInt32] {
    var key: [UInt32] = []
    key.reserveCapacity(s.utf8.count)
    var digits: [UInt32] = []
    func flushDigits() {
        guard !digits.isEmpty else { return }
        var start = 0
        while start < digits.count - 1 && digits[start] == 0x30 { start += 1 }
        // Digits sort before letters: marker 0x2F ('/') is below '0'…'9' and letters.
        key.append(0x2F)
        key.append(UInt32(digits.count - start))
        key.append(contentsOf: digits[start...])
        digits.removeAll(keepingCapacity: true)
    }
    for scalar in s.decomposedStringWithCanonicalMapping.unicodeScalars {
        if ("0"..."9").contains(scalar) {
            digits.append(scalar.value)
            continue
        }
        flushDigits()
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .spacingMark: continue   // diacritics
        default: break
        }
        for folded in scalar.properties.lowercaseMapping.unicodeScalars { key.append(folded.value) }
    }
    flushDigits()
    return key
}

/// A section's name from its key's value: a string as it is, nil as "", other
/// values as they print. A collation sorts values by it too.
@usableFromInline
package func _sectionName(_ value: RecordValue) -> String {
    switch value {
    case .string(let s): return s
    case .null: return ""
    case .date(let d): return ISO8601.string(from: d)
    case .int(let i): return String(i)
    case .double(let d): return Int64(exactly: d).map(String.init) ?? "\(d)"
    case .bool(let b): return b ? "true" : "false"
    default: return JSON.string(value)
    }
}
