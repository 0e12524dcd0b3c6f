import Foundation

/// A value of a dynamic record: what JSON holds, plus dates.
///
/// Numbers keep the kind they were written with: `1` is an ``int(_:)``, `1.0`
/// and `1e3` are ``double(_:)`` values, and an integer above `Int.max` (up to
/// `UInt64.max`, as unsigned 64-bit ids are) is a ``uint(_:)`` — integers are
/// never rounded. Equality and hashing compare numbers by value, so
/// `.int(1) == .double(1) == .uint(1)`; a record's fields compare regardless
/// of order.
public enum RecordValue: Sendable {
    case null
    case bool(Bool)
    /// A signed integer.
    case int(Int)
    /// An unsigned integer above `Int.max`: readers and conversions make one
    /// only for such values (a smaller one is an ``int(_:)``), and any value
    /// compares equal to the same number as an ``int(_:)``.
    case uint(UInt64)
    case double(Double)
    case string(String)
    case date(Date)
    case array([RecordValue])
    case record(DynamicRecord)
}

extension RecordValue: Hashable {
    public static func == (lhs: RecordValue, rhs: RecordValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.int(a), .double(b)), let (.double(b), .int(a)): return Double(a) == b && Int(exactly: b) == a
        case let (.uint(a), .uint(b)): return a == b
        case let (.uint(a), .int(b)), let (.int(b), .uint(a)): return b >= 0 && UInt64(b) == a
        case let (.uint(a), .double(b)), let (.double(b), .uint(a)): return Double(a) == b && UInt64(exactly: b) == a
        case let (.string(a), .string(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.record(a), .record(b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(1); hasher.combine(b)
        case .int(let i): hasher.combine(2); hasher.combine(i)
        case .uint(let u):
            if let i = Int(exactly: u) { hasher.combine(2); hasher.combine(i) } else { hasher.combine(8); hasher.combine(u) }
        case .double(let d):
            if let i = Int(exactly: d) {
                hasher.combine(2); hasher.combine(i)
            } else if let u = UInt64(exactly: d) {
                hasher.combine(8); hasher.combine(u)
            } else {
                hasher.combine(3); hasher.combine(d)
            }
        case .string(let s): hasher.combine(4); hasher.combine(s)
        case .date(let d): hasher.combine(5); hasher.combine(d)
        case .array(let a): hasher.combine(6); hasher.combine(a)
        case .record(let r): hasher.combine(7); hasher.combine(r)
        }
    }
}

extension RecordValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: RecordValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, RecordValue)...) {
        self = .record(DynamicRecord(fields: elements))
    }
}

extension RecordValue {
    /// The value's kind, for messages: `null`, `bool`, `int` (a ``uint(_:)``
    /// too: both are integers), `double`, `string`, `date`, `array` or `record`.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int, .uint: "int"
        case .double: "double"
        case .string: "string"
        case .date: "date"
        case .array: "array"
        case .record: "record"
        }
    }

    /// The nested record, if this value is one.
    public var asRecord: DynamicRecord? {
        if case .record(let record) = self { return record }
        return nil
    }

    /// The elements, if this value is an array.
    public var asArray: [RecordValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The string, if this value is one.
    public var asString: String? {
        if case .string(let string) = self { return string }
        return nil
    }
}

/// A record whose fields are known only at run time: the JSON objects the
/// command-line tool reads, and tests.
///
/// Fields keep the order they were given in (for printing); equality ignores it.
///
/// A record is held compactly, in one allocation: its field names are a list
/// that records of the same shape share (``JSONStreamReader`` gives every
/// object with the same keys in the same order one list), and its values are
/// bytes beside it — small integers in one byte, strings as their UTF-8,
/// arrays and nested records inline — about as many as the values take in
/// JSON. Reading a field compares names (a hash table for records of more
/// than eight fields) and decodes its value (a string of at most 15 UTF-8
/// bytes without an allocation); setting one makes the record anew.
public struct DynamicRecord: Hashable, @unchecked Sendable {
    // Sendable: the storage is never changed once made (a change makes a new one).
    @usableFromInline var storage: _RecordStorage

    /// The field names, in order.
    public var keys: [String] { storage.shape.keys }

    /// Creates a record from its fields; a repeated name keeps the last value.
    ///
    /// - Complexity: O(*n*) for *n* fields.
    public init(fields: some Sequence<(String, RecordValue)>) {
        let (keys, values) = Self.deduplicated(fields)
        storage = _RecordStorage.make(shape: _RecordShape(keys: keys), values: values)
    }

    /// The fields' names and values, a repeated name keeping its first place and its last value.
    static func deduplicated(_ fields: some Sequence<(String, RecordValue)>) -> (keys: [String], values: ContiguousArray<RecordValue>) {
        var keys: [String] = []
        var values: ContiguousArray<RecordValue> = []
        var positions: [String: Int] = [:]
        for (key, value) in fields {
            if let k = positions[key] {
                values[k] = value
            } else {
                positions[key] = keys.count
                keys.append(key)
                values.append(value)
            }
        }
        return (keys, values)
    }

    /// A record of a shared shape: `values` are in the order of `shape.keys`.
    init(shape: _RecordShape, values: some Collection<RecordValue>) {
        storage = _RecordStorage.make(shape: shape, values: values)
    }

    init(storage: _RecordStorage) {
        self.storage = storage
    }

    /// The shared list of field names.
    var shape: _RecordShape { storage.shape }

    /// The value of a field, or nil when there is no such field. Setting nil
    /// removes the field.
    ///
    /// - Complexity: reading, O(*n*) for *n* fields (O(1) to find a field of
    ///   a record of more than eight); setting, O(*n*) (the record is made anew).
    public subscript(key: String) -> RecordValue? {
        get { storage.shape.position(of: key).map { storage.value(at: $0) } }
        set {
            let shape = storage.shape
            var values = storage.values()
            if let k = shape.position(of: key) {
                if let newValue {
                    values[k] = newValue
                    storage = _RecordStorage.make(shape: shape, values: values)
                } else {
                    var keys = shape.keys
                    keys.remove(at: k)
                    values.remove(at: k)
                    storage = _RecordStorage.make(shape: _RecordShape(keys: keys), values: values)
                }
            } else if let newValue {
                values.append(newValue)
                storage = _RecordStorage.make(shape: _RecordShape(keys: shape.keys + [key]), values: values)
            }
        }
    }

    /// The value at a position of ``keys``.
    func value(at k: Int) -> RecordValue { storage.value(at: k) }

    /// The values, in the order of ``keys``.
    package var values: ContiguousArray<RecordValue> { storage.values() }

    /// The number of fields.
    public var count: Int { storage.shape.keys.count }

    /// The fields, in order.
    ///
    /// - Complexity: O(*n*) for *n* fields.
    public var fields: [(key: String, value: RecordValue)] {
        let keys = storage.shape.keys
        var fields: [(key: String, value: RecordValue)] = []
        fields.reserveCapacity(keys.count)
        storage.forEachValue { k, value in fields.append((keys[k], value)) }
        return fields
    }

    public static func == (lhs: DynamicRecord, rhs: DynamicRecord) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.storage.hasSameBytes(as: rhs.storage) { return true }
        if lhs.shape === rhs.shape { return lhs.values == rhs.values }
        let keys = lhs.shape.keys
        var equal = true
        lhs.storage.forEachValue { k, value in
            guard equal else { return }
            guard let other = rhs[keys[k]], other == value else {
                equal = false
                return
            }
        }
        return equal
    }

    public func hash(into hasher: inout Hasher) {
        // Regardless of order: the fields' own hashes, added up.
        var sum = 0
        let keys = shape.keys
        storage.forEachValue { k, value in
            var field = Hasher()
            field.combine(keys[k])
            field.combine(value)
            sum = sum &+ field.finalize()
        }
        hasher.combine(count)
        hasher.combine(sum)
    }
}

/// The field names of records of one shape, shared by them: immutable.
@usableFromInline
final class _RecordShape: Sendable {
    @usableFromInline package let keys: [String]
    /// For shapes of more than eight keys, the position of each.
    let positions: [String: Int]?
    /// The position of the key `id`, if there is one (how a ``DynamicObject``
    /// finds its identity).
    let idPosition: Int?

    init(keys: [String]) {
        self.keys = keys
        if keys.count > 8 {
            var positions: [String: Int] = [:]
            positions.reserveCapacity(keys.count)
            for (k, key) in keys.enumerated() { positions[key] = k }
            self.positions = positions
        } else {
            positions = nil
        }
        idPosition = keys.firstIndex(of: "id")
    }

    /// The position of a key, or nil.
    func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        for k in keys.indices where keys[k] == key { return k }
        return nil
    }
}
