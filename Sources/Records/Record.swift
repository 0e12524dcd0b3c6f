import Foundation

/// A record: the user's own type, with an identity, whose values can be read by
/// key — for predicates, sort keys and section keys.
///
/// Records are usually structs. Reading values goes through ``recordKeys``: a
/// declared table of keys to Swift key paths is the fast path; a `Codable`
/// record that declares none reads its values by encoding itself (convenient,
/// slower). No key-value coding (it does not exist on Linux).
///
/// ```swift
/// struct Entry: Record, Codable {
///     var id: UUID
///     var text: String
///     var created: Date
///
///     static let recordKeys: RecordKeys<Entry> = [
///         "text": RecordKey(\.text),
///         "created": RecordKey(\.created),
///     ]
/// }
/// ```
///
/// Key paths in requests (`"author.name"`, `"media.type"`) read the first key
/// from the table and go on through nested records and arrays (an array maps
/// the rest of the path over its elements).
public protocol Record: Identifiable, Sendable where ID: Sendable {
    /// How to read this type's values by key.
    static var recordKeys: RecordKeys<Self> { get }
}

extension Record where Self: Encodable {
    /// By default, a `Codable` record reads its values by encoding itself.
    public static var recordKeys: RecordKeys<Self> { .encoded }
}

/// One key of a record: how to read its value.
public struct RecordKey<Root>: @unchecked Sendable {
    // Key paths are immutable values; the closure only reads through one.
    @usableFromInline package let read: (Root) -> RecordValue
    /// Whether the value is always a string or nil (a `String` or `String?`
    /// property): what proves a search narrowing (see
    /// ``FormatPredicate/provablyNarrows(_:for:)``).
    @usableFromInline let isText: Bool

    /// Reads the value at a key path.
    ///
    /// (Inlinable, so that the reader is specialized where the record type is
    /// declared: the key path is then applied directly.)
    @inlinable
    public init<Value: RecordValueConvertible>(_ keyPath: KeyPath<Root, Value>) {
        read = { $0[keyPath: keyPath].recordValue }
        isText = Value.self == String.self || Value.self == String?.self
    }

    /// Reads a value computed from the record.
    @inlinable
    public init(_ read: @escaping @Sendable (Root) -> RecordValue) {
        self.read = read
        isText = false
    }

}

/// Why a key path cannot be read from a record type.
public struct RecordKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    public var keyPath: String
    public var typeName: String
    public var knownKeys: [String]

    /// An error from its parts: the key path from the key that cannot be
    /// read, the type (or entity) it cannot be read from, and its keys.
    public init(keyPath: String, typeName: String, knownKeys: [String]) {
        self.keyPath = keyPath
        self.typeName = typeName
        self.knownKeys = knownKeys
    }

    public var description: String {
        let first = keyPath.split(separator: ".", omittingEmptySubsequences: false).first.map(String.init) ?? keyPath
        return "\(typeName) has no key '\(first)'" + (knownKeys.isEmpty ? "" : " (its keys: \(knownKeys.joined(separator: ", ")))")
    }
}

/// How to read a record type's values by key: a declared table, or a lookup.
public struct RecordKeys<Root>: Sendable {
    enum Storage: @unchecked Sendable {
        case table([String: RecordKey<Root>])
        case lookup((Root, String) -> RecordValue?)
    }
    let storage: Storage

    /// A declared table of keys: the fast path.
    public init(_ keys: [String: RecordKey<Root>]) {
        storage = .table(keys)
    }

    /// Keys read by a function: `nil` means the record has no such key.
    public static func lookup(_ value: @escaping @Sendable (Root, String) -> RecordValue?) -> RecordKeys {
        RecordKeys(storage: .lookup(value))
    }

    init(storage: Storage) { self.storage = storage }

    /// The declared keys, sorted; nil for a lookup.
    public var declaredKeys: [String]? {
        if case .table(let table) = storage { return table.keys.sorted() }
        return nil
    }

    /// Whether a key (not a path) is declared as a `String` or `String?` property.
    package func isTextKey(_ key: String) -> Bool {
        if case .table(let table) = storage { return table[key]?.isText ?? false }
        return false
    }

    /// The value of one key (not a path), or nil when there is no such key.
    public func value(of root: Root, forKey key: String) -> RecordValue? {
        switch storage {
        case .table(let table): return table[key]?.read(root)
        case .lookup(let lookup): return lookup(root, key)
        }
    }

    /// A reader for a key path such as `name` or `author.name`, resolved once.
    ///
    /// - Throws: ``RecordKeyError`` when the first key is not in a declared table.
    public func reader(forKeyPath keyPath: String) throws(RecordKeyError) -> RecordReader<Root> {
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let rest = Array(components.dropFirst())
        let first = components.first ?? keyPath
        let head: (Root) -> RecordValue
        switch storage {
        case .table(let table):
            guard let key = table[first] else {
                throw RecordKeyError(keyPath: keyPath, typeName: _typeName(Root.self, qualified: false), knownKeys: table.keys.sorted())
            }
            head = key.read
        case .lookup(let lookup):
            head = { lookup($0, first) ?? .null }
        }
        if rest.isEmpty { return RecordReader(head) }
        return RecordReader { root in head(root).value(atKeyPath: rest[...]) }
    }
}

extension Record {
    /// A reader of a key path of this record type, as fetches, sort keys and
    /// predicates read them: the declared keys, and `id` — the identity, as
    /// a value — when they do not declare it.
    ///
    /// - Throws: ``RecordKeyError`` when the first key is neither.
    @usableFromInline
    package static func _reader(forKeyPath keyPath: String) throws(RecordKeyError) -> RecordReader<Self> {
        do {
            return try recordKeys.reader(forKeyPath: keyPath)
        } catch {
            let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard components.first == "id" else { throw error }
            let rest = Array(components.dropFirst())
            return RecordReader { record in _identityValue(record.id).value(atKeyPath: rest[...]) }
        }
    }
}

/// An identity as a value: what it converts or encodes to (its description
/// when it does neither).
package func _identityValue<ID>(_ id: ID) -> RecordValue {
    if let convertible = id as? any RecordValueConvertible { return convertible.recordValue }
    if let encodable = id as? any Encodable, let value = try? RecordValueEncoder().encode(encodable) { return value }
    return .string("\(id)")
}

extension RecordKeys: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, RecordKey<Root>)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension RecordKeys where Root: Encodable & Sendable {
    /// Keys read by encoding the record (the default for `Codable` records).
    public static var encoded: RecordKeys {
        .lookup { root, key in
            (try? RecordValueEncoder().encode(root))?.asRecord?[key]
        }
    }
}

/// A key path of a record type, resolved once: read it with `reader(record)`.
public struct RecordReader<Root>: @unchecked Sendable {
    @usableFromInline package let read: (Root) -> RecordValue

    /// A reader of `read`'s values (a key path read by other means: through
    /// relationships, say).
    package init(_ read: @escaping (Root) -> RecordValue) { self.read = read }

    /// The value at the key path in `root`: `.null` when the path leads nowhere.
    @inlinable
    public func callAsFunction(_ root: Root) -> RecordValue { read(root) }
}

extension RecordValue {
    /// The value at a key path below this one: through records by key, and over
    /// arrays element by element (the result is then an array). A path through
    /// anything else is `.null`.
    public func value(atKeyPath path: ArraySlice<String>) -> RecordValue {
        guard let key = path.first else { return self }
        switch self {
        case .record(let record): return (record[key] ?? .null).value(atKeyPath: path.dropFirst())
        case .array(let elements): return .array(elements.map { $0.value(atKeyPath: path) })
        default: return .null
        }
    }
}

/// A record whose fields are known only at run time, identified by one of its
/// fields: the command-line tool's objects, and tests.
///
/// An object is two references: its record's storage, and — only when its
/// identity is not its `id` field as it is now — the identity beside it.
public struct DynamicObject: Record, Hashable, Codable {
    @usableFromInline var _fields: DynamicRecord
    /// The identity, when it is not the `id` field's value (nil: it is that
    /// value, or `.null` without the field).
    @usableFromInline var _identity: _Identity?

    /// The identity: the `idKey` field's value when the object was made
    /// (`.null` when it had none). Changing the fields does not change it.
    public var id: RecordValue {
        get { _identity?.value ?? Self.idField(of: _fields) }
        set { _identity = Self.identity(newValue, in: _fields) }
    }

    /// The object's fields.
    public var fields: DynamicRecord {
        get { _fields }
        set {
            let id = self.id
            _fields = newValue
            _identity = Self.identity(id, in: newValue)
        }
    }

    /// An object whose identity is its `idKey` field (`.null` when it has none).
    public init(fields: DynamicRecord, idKey: String = "id") {
        _fields = fields
        _identity = idKey == "id" ? nil : Self.identity(fields[idKey] ?? .null, in: fields)
    }

    /// An object of these fields and this identity.
    init(id: RecordValue, fields: DynamicRecord) {
        _fields = fields
        _identity = Self.identity(id, in: fields)
    }

    public static let recordKeys = RecordKeys<DynamicObject>.lookup { object, key in object._fields[key] }

    /// The `id` field's value, or `.null`.
    @inline(__always)
    static func idField(of fields: DynamicRecord) -> RecordValue {
        fields.storage.shape.idPosition.map { fields.storage.value(at: $0) } ?? .null
    }

    /// How an object with these fields holds the identity `id`: nil when it
    /// is exactly (kind and bytes) the `id` field's value.
    static func identity(_ id: RecordValue, in fields: DynamicRecord) -> _Identity? {
        _identical(id, idField(of: fields)) ? nil : _Identity(id)
    }

    public static func == (lhs: DynamicObject, rhs: DynamicObject) -> Bool {
        lhs.id == rhs.id && lhs._fields == rhs._fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(_fields)
    }

    private enum CodingKeys: String, CodingKey {
        case id, fields
    }

    // As the synthesized conformance had it: `id`, then `fields`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(_fields, forKey: .fields)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let id = try container.decode(RecordValue.self, forKey: .id)
        self.init(id: id, fields: try container.decode(DynamicRecord.self, forKey: .fields))
    }
}

/// An identity kept beside an object's fields.
@usableFromInline
final class _Identity: Sendable {
    @usableFromInline let value: RecordValue
    init(_ value: RecordValue) { self.value = value }
}

/// Whether two values are the same in every respect: kind, bits, bytes of
/// strings and order of fields (what `==` does not ask: `1 == 1.0`, and
/// strings compare by canonical equivalence).
func _identical(_ a: RecordValue, _ b: RecordValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case let (.bool(x), .bool(y)): return x == y
    case let (.int(x), .int(y)): return x == y
    case let (.uint(x), .uint(y)): return x == y
    case let (.double(x), .double(y)): return x.bitPattern == y.bitPattern
    case let (.date(x), .date(y)): return x.timeIntervalSinceReferenceDate.bitPattern == y.timeIntervalSinceReferenceDate.bitPattern
    case let (.string(x), .string(y)): return x.utf8.elementsEqual(y.utf8)
    case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { _identical($0, $1) }
    case let (.record(x), .record(y)):
        return x.keys.count == y.keys.count && zip(x.keys, y.keys).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
            && zip(x.values, y.values).allSatisfy { _identical($0, $1) }
    default: return false
    }
}
