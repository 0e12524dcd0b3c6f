import Foundation
import TableDiff

// The journal file's encoding of a record: the record's own `Codable`
// conformance, written as tagged binary values (documented in the DocC
// article "The store's file format"):
//
//   0x00 null            0x05 double: 8 bytes, IEEE 754, little-endian
//   0x01 false           0x06 float: 4 bytes, IEEE 754, little-endian
//   0x02 true            0x07 string: varint length, UTF-8 bytes
//   0x03 signed integer: zigzag varint (Int, Int8 … Int64)
//   0x04 unsigned integer: varint (UInt, UInt8 … UInt64)
//   0x08 unkeyed container: varint count, values
//   0x09 keyed container: varint count, then per field: varint key length, key (UTF-8), value
//   0x0A UUID: 16 bytes          0x0B Data: varint length, bytes
//
// A varint is unsigned LEB128 (seven bits a byte, low first, the high bit set
// on every byte but the last); zigzag maps 0, -1, 1, -2 … to 0, 1, 2, 3 ….
// Integers are exact over the whole Int64 and UInt64 ranges; a Date is its
// `timeIntervalSinceReferenceDate` as a double (what `Date`'s Codable writes),
// exact to the bit.
//
// The encoder builds a small tree (containers may be filled in any order, as
// Codable allows) and writes it out; the decoder (`_StoreDecoder`) reads the
// bytes in place.

enum _ValueTag {
    static let null: UInt8 = 0x00
    static let `false`: UInt8 = 0x01
    static let `true`: UInt8 = 0x02
    static let signed: UInt8 = 0x03
    static let unsigned: UInt8 = 0x04
    static let double: UInt8 = 0x05
    static let float: UInt8 = 0x06
    static let string: UInt8 = 0x07
    static let unkeyed: UInt8 = 0x08
    static let keyed: UInt8 = 0x09
    static let uuid: UInt8 = 0x0A
    static let bytes: UInt8 = 0x0B
}

/// Encodes values in the store's binary form.
package struct _StoreEncoder {
    /// Appends the encoding of `value` to `out`.
    package static func encode<T: Encodable>(_ value: T, into out: inout [UInt8]) throws {
        let encoded = try _encodedValue(of: value, codingPath: [])
        encoded.write(to: &out)
    }

    /// The encoding of `value`.
    package static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        var out: [UInt8] = []
        try encode(value, into: &out)
        return out
    }
}

/// An encoded value, before it is written.
package enum _Encoded {
    case null
    case bool(Bool)
    case signed(Int64)
    case unsigned(UInt64)
    case double(Double)
    case float(Float)
    case string(String)
    case uuid(UUID)
    case bytes(Data)
    case keyed(_KeyedStorage)
    case unkeyed(_UnkeyedStorage)
    /// A value another encoder fills (a super encoder, a nested value).
    case pending(_EncoderNode)
    /// A value already encoded.
    case raw([UInt8])

    package func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(_ValueTag.null)
        case .bool(let b): out.append(b ? _ValueTag.true : _ValueTag.false)
        case .signed(let i):
            out.append(_ValueTag.signed)
            _Varint.write(UInt64(bitPattern: (i << 1) ^ (i >> 63)), to: &out)
        case .unsigned(let u):
            out.append(_ValueTag.unsigned)
            _Varint.write(u, to: &out)
        case .double(let d):
            out.append(_ValueTag.double)
            _Varint.writeFixed(d.bitPattern, to: &out)
        case .float(let f):
            out.append(_ValueTag.float)
            let bits = f.bitPattern
            for k in 0..<4 { out.append(UInt8(truncatingIfNeeded: bits >> (8 * k))) }
        case .string(var s):
            out.append(_ValueTag.string)
            s.withUTF8 { utf8 in
                _Varint.write(UInt64(utf8.count), to: &out)
                out.append(contentsOf: utf8)
            }
        case .uuid(let uuid):
            out.append(_ValueTag.uuid)
            withUnsafeBytes(of: uuid.uuid) { out.append(contentsOf: $0) }
        case .bytes(let data):
            out.append(_ValueTag.bytes)
            _Varint.write(UInt64(data.count), to: &out)
            out.append(contentsOf: data)
        case .keyed(let storage):
            out.append(_ValueTag.keyed)
            _Varint.write(UInt64(storage.keys.count), to: &out)
            for (key, value) in zip(storage.keys, storage.values) {
                var key = key
                key.withUTF8 { utf8 in
                    _Varint.write(UInt64(utf8.count), to: &out)
                    out.append(contentsOf: utf8)
                }
                value.write(to: &out)
            }
        case .unkeyed(let storage):
            out.append(_ValueTag.unkeyed)
            _Varint.write(UInt64(storage.values.count), to: &out)
            for value in storage.values { value.write(to: &out) }
        case .raw(let bytes):
            out.append(contentsOf: bytes)
        case .pending(let node):
            // A value that asked for no container encodes as an empty keyed container, as JSONEncoder's `{}`.
            (node.content ?? .keyed(_KeyedStorage())).write(to: &out)
        }
    }
}

package final class _KeyedStorage {
    package init() {}
    package var keys: [String] = []
    package var values: [_Encoded] = []
}

package final class _UnkeyedStorage {
    package var values: [_Encoded] = []
}

package enum _Varint {
    @inline(__always)
    package static func write(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    @inline(__always)
    package static func writeFixed(_ value: UInt64, to out: inout [UInt8]) {
        for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: value >> (8 * k))) }
    }

    @inline(__always)
    package static func writeSigned(_ value: Int64, to out: inout [UInt8]) {
        write(UInt64(bitPattern: (value << 1) ^ (value >> 63)), to: &out)
    }
}

/// The encoding of one value, with fast paths for the common leaf types.
package func _encodedValue<T: Encodable>(of value: T, codingPath: [any CodingKey]) throws -> _Encoded {
    switch value {
    case let v as String: return .string(v)
    case let v as Int: return .signed(Int64(v))
    case let v as Bool: return .bool(v)
    case let v as Double: return .double(v)
    case let v as Date: return .double(v.timeIntervalSinceReferenceDate)
    case let v as UUID: return .uuid(v)
    case let v as Data: return .bytes(v)
    case let v as Int64: return .signed(v)
    case let v as UInt64: return .unsigned(v)
    case let v as UInt: return .unsigned(UInt64(v))
    case let v as Float: return .float(v)
    default:
        let node = _EncoderNode(codingPath: codingPath)
        try value.encode(to: node)
        return node.content ?? .keyed(_KeyedStorage())
    }
}

/// An encoder for one value.
package final class _EncoderNode: Encoder {
    package let codingPath: [any CodingKey]
    package var userInfo: [CodingUserInfoKey: Any] { [:] }
    var content: _Encoded?

    init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let storage: _KeyedStorage
        if case .keyed(let existing) = content {
            storage = existing
        } else {
            storage = _KeyedStorage()
            content = .keyed(storage)
        }
        return KeyedEncodingContainer(_StoreKeyedEncoding<Key>(storage: storage, codingPath: codingPath))
    }

    package func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let storage: _UnkeyedStorage
        if case .unkeyed(let existing) = content {
            storage = existing
        } else {
            storage = _UnkeyedStorage()
            content = .unkeyed(storage)
        }
        return _StoreUnkeyedEncoding(storage: storage, codingPath: codingPath)
    }

    package func singleValueContainer() -> any SingleValueEncodingContainer {
        _StoreSingleValueEncoding(node: self)
    }
}

struct _StoreKeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let storage: _KeyedStorage
    let codingPath: [any CodingKey]

    private func put(_ value: _Encoded, _ key: Key) {
        storage.keys.append(key.stringValue)
        storage.values.append(value)
    }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { put(.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { put(.float(value), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(.signed(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(.signed(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(.signed(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(.signed(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(.signed(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(.unsigned(value), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        put(try _encodedValue(of: value, codingPath: codingPath + [key]), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = _KeyedStorage()
        put(.keyed(nested), key)
        return KeyedEncodingContainer(_StoreKeyedEncoding<NestedKey>(storage: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = _UnkeyedStorage()
        put(.unkeyed(nested), key)
        return _StoreUnkeyedEncoding(storage: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: "super") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue) }

    private func superEncoder(named name: String) -> any Encoder {
        let node = _EncoderNode(codingPath: codingPath + [_StoreKey(name)])
        storage.keys.append(name)
        storage.values.append(.pending(node))
        return node
    }
}

struct _StoreUnkeyedEncoding: UnkeyedEncodingContainer {
    let storage: _UnkeyedStorage
    let codingPath: [any CodingKey]
    var count: Int { storage.values.count }

    private func put(_ value: _Encoded) { storage.values.append(value) }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(.double(value)) }
    mutating func encode(_ value: Float) throws { put(.float(value)) }
    mutating func encode(_ value: Int) throws { put(.signed(Int64(value))) }
    mutating func encode(_ value: Int8) throws { put(.signed(Int64(value))) }
    mutating func encode(_ value: Int16) throws { put(.signed(Int64(value))) }
    mutating func encode(_ value: Int32) throws { put(.signed(Int64(value))) }
    mutating func encode(_ value: Int64) throws { put(.signed(value)) }
    mutating func encode(_ value: UInt) throws { put(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { put(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { put(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { put(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { put(.unsigned(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        put(try _encodedValue(of: value, codingPath: codingPath + [_StoreKey(index: count)]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = _KeyedStorage()
        let path = codingPath + [_StoreKey(index: count)]
        put(.keyed(nested))
        return KeyedEncodingContainer(_StoreKeyedEncoding<NestedKey>(storage: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = _UnkeyedStorage()
        let path = codingPath + [_StoreKey(index: count)]
        put(.unkeyed(nested))
        return _StoreUnkeyedEncoding(storage: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let node = _EncoderNode(codingPath: codingPath + [_StoreKey(index: count)])
        put(.pending(node))
        return node
    }
}

struct _StoreSingleValueEncoding: SingleValueEncodingContainer {
    let node: _EncoderNode
    var codingPath: [any CodingKey] { node.codingPath }

    private func put(_ value: _Encoded) { node.content = value }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(.double(value)) }
    mutating func encode(_ value: Float) throws { put(.float(value)) }
    mutating func encode(_ value: Int) throws { put(.signed(Int64(value))) }
    mutating func encode(_ value: Int8) throws { put(.signed(Int64(value))) }
    mutating func encode(_ value: Int16) throws { put(.signed(Int64(value))) }
    mutating func encode(_ value: Int32) throws { put(.signed(Int64(value))) }
    mutating func encode(_ value: Int64) throws { put(.signed(value)) }
    mutating func encode(_ value: UInt) throws { put(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { put(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { put(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { put(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { put(.unsigned(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        put(try _encodedValue(of: value, codingPath: codingPath))
    }
}

/// A coding key by name or by position.
struct _StoreKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ string: String) { stringValue = string }
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { self.init(index: intValue) }
}
