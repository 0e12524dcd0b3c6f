import Foundation

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
// The tags are `_BinaryValueTag`'s raw values. The encoder builds a small
// tree (containers may be filled in any order, as Codable allows) and
// writes it out; the decoder (`_BinaryRecordDecoder`) reads the bytes in
// place.

/// The tag byte that starts every value of the binary form. The raw values
/// are the bytes on disk: never change or reuse one (files written with them
/// must keep opening); a new kind of value takes a new byte.
package enum _BinaryValueTag: UInt8, CaseIterable, Sendable {
    case null = 0x00
    case `false` = 0x01
    case `true` = 0x02
    case signed = 0x03
    case unsigned = 0x04
    case double = 0x05
    case float = 0x06
    case string = 0x07
    case unkeyed = 0x08
    case keyed = 0x09
    case uuid = 0x0A
    case bytes = 0x0B

    /// The kind of value, for messages.
    package var name: String {
        switch self {
        case .null: "null"
        case .false, .true: "a Boolean"
        case .signed, .unsigned: "an integer"
        case .double, .float: "a floating-point number"
        case .string: "a string"
        case .unkeyed: "an unkeyed container"
        case .keyed: "a keyed container"
        case .uuid: "a UUID"
        case .bytes: "data"
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends a value's tag byte.
    mutating func append(_ tag: _BinaryValueTag) { append(tag.rawValue) }
}

/// Encodes values in the store's binary form.
package struct _BinaryRecordEncoder {
    /// Appends the encoding of `value` to `out`.
    package static func encode<T: Encodable>(_ value: T, into out: inout [UInt8]) throws {
        let encoded = try _binaryEncoded(of: value, codingPath: [])
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
package enum _BinaryEncoded {
    case null
    case bool(Bool)
    case signed(Int64)
    case unsigned(UInt64)
    case double(Double)
    case float(Float)
    case string(String)
    case uuid(UUID)
    case bytes(Data)
    case keyed(_BinaryKeyedStorage)
    case unkeyed(_BinaryUnkeyedStorage)
    /// A value another encoder fills (a super encoder, a nested value).
    case pending(_BinaryEncoding)
    /// A value already encoded.
    case raw([UInt8])

    package func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(_BinaryValueTag.null)
        case .bool(let b): out.append(b ? _BinaryValueTag.true : .false)
        case .signed(let i):
            out.append(_BinaryValueTag.signed)
            _Varint.write(UInt64(bitPattern: (i << 1) ^ (i >> 63)), to: &out)
        case .unsigned(let u):
            out.append(_BinaryValueTag.unsigned)
            _Varint.write(u, to: &out)
        case .double(let d):
            out.append(_BinaryValueTag.double)
            _Varint.writeFixed(d.bitPattern, to: &out)
        case .float(let f):
            out.append(_BinaryValueTag.float)
            let bits = f.bitPattern
            for k in 0..<4 { out.append(UInt8(truncatingIfNeeded: bits >> (8 * k))) }
        case .string(var s):
            out.append(_BinaryValueTag.string)
            s.withUTF8 { utf8 in
                _Varint.write(UInt64(utf8.count), to: &out)
                out.append(contentsOf: utf8)
            }
        case .uuid(let uuid):
            out.append(_BinaryValueTag.uuid)
            withUnsafeBytes(of: uuid.uuid) { out.append(contentsOf: $0) }
        case .bytes(let data):
            out.append(_BinaryValueTag.bytes)
            _Varint.write(UInt64(data.count), to: &out)
            out.append(contentsOf: data)
        case .keyed(let storage):
            out.append(_BinaryValueTag.keyed)
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
            out.append(_BinaryValueTag.unkeyed)
            _Varint.write(UInt64(storage.values.count), to: &out)
            for value in storage.values { value.write(to: &out) }
        case .raw(let bytes):
            out.append(contentsOf: bytes)
        case .pending(let node):
            // A value that asked for no container encodes as an empty keyed container, as JSONEncoder's `{}`.
            (node.content ?? .keyed(_BinaryKeyedStorage())).write(to: &out)
        }
    }
}

package final class _BinaryKeyedStorage {
    package init() {}
    package var keys: [String] = []
    package var values: [_BinaryEncoded] = []
}

package final class _BinaryUnkeyedStorage {
    package var values: [_BinaryEncoded] = []
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
package func _binaryEncoded<T: Encodable>(of value: T, codingPath: [any CodingKey]) throws -> _BinaryEncoded {
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
        let node = _BinaryEncoding(codingPath: codingPath)
        try value.encode(to: node)
        return node.content ?? .keyed(_BinaryKeyedStorage())
    }
}

/// An encoder for one value.
package final class _BinaryEncoding: Encoder {
    package let codingPath: [any CodingKey]
    package var userInfo: [CodingUserInfoKey: Any] { [:] }
    var content: _BinaryEncoded?

    init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let storage: _BinaryKeyedStorage
        if case .keyed(let existing) = content {
            storage = existing
        } else {
            storage = _BinaryKeyedStorage()
            content = .keyed(storage)
        }
        return KeyedEncodingContainer(_BinaryKeyedEncoding<Key>(storage: storage, codingPath: codingPath))
    }

    package func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let storage: _BinaryUnkeyedStorage
        if case .unkeyed(let existing) = content {
            storage = existing
        } else {
            storage = _BinaryUnkeyedStorage()
            content = .unkeyed(storage)
        }
        return _BinaryUnkeyedEncoding(storage: storage, codingPath: codingPath)
    }

    package func singleValueContainer() -> any SingleValueEncodingContainer {
        _BinarySingleValueEncoding(node: self)
    }
}

struct _BinaryKeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let storage: _BinaryKeyedStorage
    let codingPath: [any CodingKey]

    private func put(_ value: _BinaryEncoded, _ key: Key) {
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
        put(try _binaryEncoded(of: value, codingPath: codingPath + [key]), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = _BinaryKeyedStorage()
        put(.keyed(nested), key)
        return KeyedEncodingContainer(_BinaryKeyedEncoding<NestedKey>(storage: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = _BinaryUnkeyedStorage()
        put(.unkeyed(nested), key)
        return _BinaryUnkeyedEncoding(storage: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: "super") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue) }

    private func superEncoder(named name: String) -> any Encoder {
        let node = _BinaryEncoding(codingPath: codingPath + [_BinaryCodingKey(name)])
        storage.keys.append(name)
        storage.values.append(.pending(node))
        return node
    }
}

struct _BinaryUnkeyedEncoding: UnkeyedEncodingContainer {
    let storage: _BinaryUnkeyedStorage
    let codingPath: [any CodingKey]
    var count: Int { storage.values.count }

    private func put(_ value: _BinaryEncoded) { storage.values.append(value) }

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
        put(try _binaryEncoded(of: value, codingPath: codingPath + [_BinaryCodingKey(index: count)]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = _BinaryKeyedStorage()
        let path = codingPath + [_BinaryCodingKey(index: count)]
        put(.keyed(nested))
        return KeyedEncodingContainer(_BinaryKeyedEncoding<NestedKey>(storage: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = _BinaryUnkeyedStorage()
        let path = codingPath + [_BinaryCodingKey(index: count)]
        put(.unkeyed(nested))
        return _BinaryUnkeyedEncoding(storage: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let node = _BinaryEncoding(codingPath: codingPath + [_BinaryCodingKey(index: count)])
        put(.pending(node))
        return node
    }
}

struct _BinarySingleValueEncoding: SingleValueEncodingContainer {
    let node: _BinaryEncoding
    var codingPath: [any CodingKey] { node.codingPath }

    private func put(_ value: _BinaryEncoded) { node.content = value }

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
        put(try _binaryEncoded(of: value, codingPath: codingPath))
    }
}

/// A coding key by name or by position.
struct _BinaryCodingKey: CodingKey {
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
