import Foundation

/// Encodes an `Encodable` value as a ``RecordValue``: how `Codable` records
/// without declared keys expose their values.
///
/// Dates stay dates, UUIDs and URLs become strings, `Data` a base64 string,
/// `Decimal` a number (exact when it is a 64-bit integer), and nil `.null`; structs and dictionaries become records,
/// arrays arrays.
public struct RecordValueEncoder: Sendable {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> RecordValue {
        if let special = _specialValue(value) { return special }
        let encoder = _RecordValueEncoding(codingPath: [])
        try value.encode(to: encoder)
        return encoder.node.value
    }
}

func _specialValue(_ value: Any) -> RecordValue? {
    switch value {
    case let value as RecordValue: return value
    case let value as DynamicRecord: return .record(value)
    case let value as Date: return .date(value)
    case let value as UUID: return .string(value.uuidString)
    case let value as URL: return .string(value.absoluteString)
    case let value as Data: return .string(value.base64EncodedString())
    case let value as Decimal: return value.recordValue
    default: return nil
    }
}

/// What an encoder has written: a value, a keyed or an unkeyed container.
final class _RecordValueNode {
    enum Content {
        case value(RecordValue)
        case keyed([(String, _RecordValueNode)])
        case unkeyed([_RecordValueNode])
    }
    var content: Content = .value(.null)

    var value: RecordValue {
        switch content {
        case .value(let value): return value
        case .keyed(let fields): return .record(DynamicRecord(fields: fields.map { ($0.0, $0.1.value) }))
        case .unkeyed(let elements): return .array(elements.map(\.value))
        }
    }
}

final class _RecordValueEncoding: Encoder {
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any] = [:]
    let node = _RecordValueNode()

    init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .keyed = node.content {} else { node.content = .keyed([]) }
        return KeyedEncodingContainer(_RecordValueKeyedEncoding<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .unkeyed = node.content {} else { node.content = .unkeyed([]) }
        return _RecordValueUnkeyedEncoding(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { _RecordValueSingleValueEncoding(node: node, codingPath: codingPath) }
}

/// Encodes one value into a node.
func _encodeRecordValue<T: Encodable>(_ value: T, into node: _RecordValueNode, codingPath: [any CodingKey]) throws {
    if let special = _specialValue(value) {
        node.content = .value(special)
        return
    }
    let encoder = _RecordValueEncoding(codingPath: codingPath)
    try value.encode(to: encoder)
    node.content = encoder.node.content
}

struct _RecordValueKeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: _RecordValueNode
    let codingPath: [any CodingKey]

    func child(_ key: Key) -> _RecordValueNode {
        let child = _RecordValueNode()
        if case .keyed(var fields) = node.content {
            fields.removeAll { $0.0 == key.stringValue }
            fields.append((key.stringValue, child))
            node.content = .keyed(fields)
        }
        return child
    }

    mutating func encodeNil(forKey key: Key) throws { child(key).content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try _encodeRecordValue(value, into: child(key), codingPath: codingPath + [key])
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = child(key)
        child.content = .keyed([])
        return KeyedEncodingContainer(_RecordValueKeyedEncoding<NestedKey>(node: child, codingPath: codingPath + [key]))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = child(key)
        child.content = .unkeyed([])
        return _RecordValueUnkeyedEncoding(node: child, codingPath: codingPath + [key])
    }
    mutating func superEncoder() -> any Encoder { _RecordValueChildEncoding(parent: child(Key(stringValue: "super")!), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { _RecordValueChildEncoding(parent: child(key), codingPath: codingPath + [key]) }
}

struct _IndexKey: CodingKey {
    var stringValue: String { "\(intValue ?? 0)" }
    var intValue: Int?
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

struct _RecordValueUnkeyedEncoding: UnkeyedEncodingContainer {
    let node: _RecordValueNode
    let codingPath: [any CodingKey]

    var count: Int {
        if case .unkeyed(let elements) = node.content { return elements.count }
        return 0
    }

    func append() -> _RecordValueNode {
        let child = _RecordValueNode()
        if case .unkeyed(var elements) = node.content {
            elements.append(child)
            node.content = .unkeyed(elements)
        }
        return child
    }

    mutating func encodeNil() throws { append().content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try _encodeRecordValue(value, into: append(), codingPath: codingPath + [_IndexKey(count)])
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = append()
        child.content = .keyed([])
        return KeyedEncodingContainer(_RecordValueKeyedEncoding<NestedKey>(node: child, codingPath: codingPath + [_IndexKey(count)]))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = append()
        child.content = .unkeyed([])
        return _RecordValueUnkeyedEncoding(node: child, codingPath: codingPath + [_IndexKey(count)])
    }
    mutating func superEncoder() -> any Encoder { _RecordValueChildEncoding(parent: append(), codingPath: codingPath) }
}

struct _RecordValueSingleValueEncoding: SingleValueEncodingContainer {
    let node: _RecordValueNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }
    mutating func encode(_ value: Bool) throws { node.content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { node.content = .value(.string(value)) }
    mutating func encode(_ value: Double) throws { node.content = .value(.double(value)) }
    mutating func encode(_ value: Float) throws { node.content = .value(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { node.content = .value(.int(value)) }
    mutating func encode(_ value: Int8) throws { node.content = .value(.int(Int(value))) }
    mutating func encode(_ value: Int16) throws { node.content = .value(.int(Int(value))) }
    mutating func encode(_ value: Int32) throws { node.content = .value(.int(Int(value))) }
    mutating func encode(_ value: Int64) throws {
        let recordValue = value.recordValue
        if case .double(let nearest) = recordValue, Int64(exactly: nearest) != value {
            // Only where Int has 32 bits: no exact record value.
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "\(value) is beyond this platform's \(Int.bitWidth)-bit Int and not exact as a double: encode it as a string"))
        }
        node.content = .value(recordValue)
    }
    mutating func encode(_ value: UInt) throws { node.content = .value(value.recordValue) }
    mutating func encode(_ value: UInt8) throws { node.content = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt16) throws { node.content = .value(.int(Int(value))) }
    mutating func encode(_ value: UInt32) throws { node.content = .value(value.recordValue) }
    mutating func encode(_ value: UInt64) throws { node.content = .value(value.recordValue) }
    mutating func encode<T: Encodable>(_ value: T) throws { try _encodeRecordValue(value, into: node, codingPath: codingPath) }
}

/// A super encoder writing into a given node.
final class _RecordValueChildEncoding: Encoder {
    let parent: _RecordValueNode
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any] = [:]

    init(parent: _RecordValueNode, codingPath: [any CodingKey]) {
        self.parent = parent
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .keyed = parent.content {} else { parent.content = .keyed([]) }
        return KeyedEncodingContainer(_RecordValueKeyedEncoding<Key>(node: parent, codingPath: codingPath))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .unkeyed = parent.content {} else { parent.content = .unkeyed([]) }
        return _RecordValueUnkeyedEncoding(node: parent, codingPath: codingPath)
    }
    func singleValueContainer() -> any SingleValueEncodingContainer { _RecordValueSingleValueEncoding(node: parent, codingPath: codingPath) }
}

// MARK: - Codable

extension RecordValue: Codable {
    /// A record value as JSON would have it; a date as `{"$date": <date>}`
    /// (the date as the encoder encodes dates, exactly).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let b):
            var container = encoder.singleValueContainer()
            try container.encode(b)
        case .int(let i):
            var container = encoder.singleValueContainer()
            try container.encode(i)
        case .uint(let u):
            var container = encoder.singleValueContainer()
            try container.encode(u)
        case .double(let d):
            var container = encoder.singleValueContainer()
            try container.encode(d)
        case .string(let s):
            var container = encoder.singleValueContainer()
            try container.encode(s)
        case .date(let date):
            var container = encoder.container(keyedBy: _DateKey.self)
            try container.encode(date, forKey: .date)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .record(let record):
            try record.encode(to: encoder)
        }
    }

    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: _DateKey.self), container.allKeys == [.date],
            let date = try? container.decode(Date.self, forKey: .date)
        {
            self = .date(date)
            return
        }
        if let record = try? DynamicRecord(from: decoder) {
            self = .record(record)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [RecordValue] = []
            while !container.isAtEnd { elements.append(try container.decode(RecordValue.self)) }
            self = .array(elements)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let b = try? container.decode(Bool.self) { self = .bool(b) }
        else if let i = try? container.decode(Int.self) { self = .int(i) }
        else if let u = try? container.decode(UInt64.self) { self = .uint(u) }
        else if let d = try? container.decode(Double.self) { self = .double(d) }
        else if let s = try? container.decode(String.self) { self = .string(s) }
        else { throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a record value") }
    }

    enum _DateKey: String, CodingKey { case date = "$date" }
}

/// Any string key.
struct _AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

extension DynamicRecord: Codable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: _AnyKey.self)
        for (key, value) in fields { try container.encode(value, forKey: _AnyKey(key)) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: _AnyKey.self)
        self.init(fields: try container.allKeys.map { ($0.stringValue, try container.decode(RecordValue.self, forKey: $0)) })
    }
}
