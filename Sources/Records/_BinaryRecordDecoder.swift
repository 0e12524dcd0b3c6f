import Foundation

// Reads values written by `_BinaryRecordEncoder` in place, with every read checked
// against the end of the bytes: a damaged encoding is a DecodingError, never
// a trap. A keyed container finds its fields in order (the order Codable
// decodes them in is usually the order it encoded them in) and falls back to
// a scan of its fields.

/// Decodes values in the store's binary form from bytes that stay valid while it works.
package struct _BinaryRecordDecoder {
    let bytes: UnsafeRawBufferPointer

    package init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Decodes the value at `position`.
    package func decode<T: Decodable>(_ type: T.Type, at position: Int) throws -> T {
        try _BinaryValueDecoding(bytes: bytes, position: position, path: _CodingPath.root).decodeValue(T.self, at: position)
    }

    /// The position just past the value at `position`.
    func end(ofValueAt position: Int) throws -> Int {
        try _skip(bytes, position, path: .root)
    }
}

/// A coding path, built only when an error needs it.
final class _CodingPath: @unchecked Sendable {
    let parent: _CodingPath?
    let key: (any CodingKey)?
    init(parent: _CodingPath?, key: (any CodingKey)?) {
        self.parent = parent
        self.key = key
    }
    static let root = _CodingPath(parent: nil, key: nil)

    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node: _CodingPath? = self
        while let current = node, let key = current.key {
            keys.append(key)
            node = current.parent
        }
        return keys.reversed()
    }

    func appending(_ key: any CodingKey) -> _CodingPath { _CodingPath(parent: self, key: key) }
}

@inline(__always)
func _corrupt(_ path: _CodingPath, _ what: String) -> DecodingError {
    .dataCorrupted(DecodingError.Context(codingPath: path.codingPath, debugDescription: what))
}

@inline(__always)
func _readVarint(_ bytes: UnsafeRawBufferPointer, _ position: inout Int, _ path: _CodingPath) throws -> UInt64 {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
        guard position < bytes.count else { throw _corrupt(path, "the encoding ends inside a number") }
        let byte = bytes[position]
        position += 1
        if shift == 63 && byte > 1 { throw _corrupt(path, "a number longer than 64 bits") }
        result |= UInt64(byte & 0x7F) << shift
        if byte < 0x80 { return result }
        shift += 7
        if shift > 63 { throw _corrupt(path, "a number longer than 64 bits") }
    }
}

@inline(__always)
func _readLength(_ bytes: UnsafeRawBufferPointer, _ position: inout Int, _ path: _CodingPath) throws -> Int {
    let length = try _readVarint(bytes, &position, path)
    guard length <= UInt64(bytes.count - position) else { throw _corrupt(path, "a length past the end of the encoding") }
    return Int(length)
}

@inline(__always)
func _readFixed64(_ bytes: UnsafeRawBufferPointer, _ position: inout Int, _ path: _CodingPath) throws -> UInt64 {
    guard bytes.count - position >= 8 else { throw _corrupt(path, "the encoding ends inside a number") }
    var value: UInt64 = 0
    for k in 0..<8 { value |= UInt64(bytes[position + k]) << (8 * UInt64(k)) }
    position += 8
    return value
}

/// The position just past the value at `position`.
func _skip(_ bytes: UnsafeRawBufferPointer, _ start: Int, path: _CodingPath, depth: Int = 0) throws -> Int {
    guard depth < 512 else { throw _corrupt(path, "values nested more than 512 deep") }
    guard start < bytes.count else { throw _corrupt(path, "the encoding ends where a value was expected") }
    var p = start + 1
    guard let tag = _BinaryValueTag(rawValue: bytes[start]) else { throw _corrupt(path, "unknown value tag \(bytes[start])") }
    switch tag {
    case .null, .false, .true: return p
    case .signed, .unsigned:
        _ = try _readVarint(bytes, &p, path)
        return p
    case .double:
        guard bytes.count - p >= 8 else { throw _corrupt(path, "the encoding ends inside a number") }
        return p + 8
    case .float:
        guard bytes.count - p >= 4 else { throw _corrupt(path, "the encoding ends inside a number") }
        return p + 4
    case .uuid:
        guard bytes.count - p >= 16 else { throw _corrupt(path, "the encoding ends inside a UUID") }
        return p + 16
    case .string, .bytes:
        let length = try _readLength(bytes, &p, path)
        return p + length
    case .unkeyed:
        let count = try _readVarint(bytes, &p, path)
        guard count <= UInt64(bytes.count - p) else { throw _corrupt(path, "a count past the end of the encoding") }
        for _ in 0..<count { p = try _skip(bytes, p, path: path, depth: depth + 1) }
        return p
    case .keyed:
        let count = try _readVarint(bytes, &p, path)
        guard count <= UInt64(bytes.count - p) else { throw _corrupt(path, "a count past the end of the encoding") }
        for _ in 0..<count {
            let length = try _readLength(bytes, &p, path)
            p = try _skip(bytes, p + length, path: path, depth: depth + 1)
        }
        return p
    }
}

/// Reading one value: its leaf forms, and the decoder its containers come from.
final class _BinaryValueDecoding: Decoder {
    let bytes: UnsafeRawBufferPointer
    /// Where this decoder's value starts.
    let position: Int
    let path: _CodingPath
    // A keyed container's fields: where they start, how many, and the next one
    // expected (decoding in encoding order finds each field at once).
    var fieldsStart = -1
    var fieldCount = 0
    var cursor = 0
    var cursorIndex = 0

    init(bytes: UnsafeRawBufferPointer, position: Int, path: _CodingPath) {
        self.bytes = bytes
        self.position = position
        self.path = path
    }

    var codingPath: [any CodingKey] { path.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func mismatch<T>(_ type: T.Type, _ tag: _BinaryValueTag, _ path: _CodingPath) -> DecodingError {
        .typeMismatch(type, DecodingError.Context(codingPath: path.codingPath, debugDescription: "expected \(type), found \(tag.name)"))
    }

    /// The tag of the value at `p`: a byte that is no tag is a damaged encoding.
    func tag(at p: Int, _ path: _CodingPath) throws -> _BinaryValueTag {
        guard p < bytes.count else { throw _corrupt(path, "the encoding ends where a value was expected") }
        guard let tag = _BinaryValueTag(rawValue: bytes[p]) else { throw _corrupt(path, "unknown value tag \(bytes[p])") }
        return tag
    }

    // MARK: Containers

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if fieldsStart < 0 {
            let t = try tag(at: position, path)
            guard t == .keyed else { throw mismatch([String: Any].self, t, path) }
            var p = position + 1
            let count = try _readVarint(bytes, &p, path)
            guard count <= UInt64(bytes.count - p) else { throw _corrupt(path, "a count past the end of the encoding") }
            fieldsStart = p
            fieldCount = Int(count)
            cursor = p
            cursorIndex = 0
        }
        return KeyedDecodingContainer(_BinaryKeyedDecoding<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let t = try tag(at: position, path)
        guard t == .unkeyed else { throw mismatch([Any].self, t, path) }
        var p = position + 1
        let count = try _readVarint(bytes, &p, path)
        guard count <= UInt64(bytes.count - p) else { throw _corrupt(path, "a count past the end of the encoding") }
        return _BinaryUnkeyedDecoding(decoder: self, position: p, count: Int(count))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        _BinarySingleValueDecoding(decoder: self)
    }

    /// Where the field named `key` starts its value, or nil.
    func field(_ key: some CodingKey) throws -> Int? {
        var name = key.stringValue
        return try name.withUTF8 { name throws -> Int? in
            if cursorIndex < fieldCount, let value = try match(name, at: cursor) {
                cursor = try _skip(bytes, value, path: path)
                cursorIndex += 1
                return value
            }
            var p = fieldsStart
            for index in 0..<fieldCount {
                if let value = try match(name, at: p) {
                    cursor = try _skip(bytes, value, path: path)
                    cursorIndex = index + 1
                    return value
                }
                var q = p
                let length = try _readLength(bytes, &q, path)
                p = try _skip(bytes, q + length, path: path)
            }
            return nil
        }
    }

    /// The position of the value when the field at `p` is named `name`.
    @inline(__always)
    private func match(_ name: UnsafeBufferPointer<UInt8>, at p: Int) throws -> Int? {
        var q = p
        let length = try _readLength(bytes, &q, path)
        guard length == name.count else { return nil }
        for k in 0..<length where bytes[q + k] != name[k] { return nil }
        return q + length
    }

    /// Every field's key, in order.
    func allKeyNames() throws -> [String] {
        var names: [String] = []
        var p = fieldsStart
        for _ in 0..<fieldCount {
            let length = try _readLength(bytes, &p, path)
            names.append(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[p..<p + length]), as: UTF8.self))
            p = try _skip(bytes, p + length, path: path)
        }
        return names
    }

    // MARK: Leaf values

    func isNull(at p: Int) throws -> Bool { try tag(at: p, path) == .null }

    func decodeBool(at p: Int, _ path: _CodingPath) throws -> Bool {
        switch try tag(at: p, path) {
        case .true: return true
        case .false: return false
        case let t: throw mismatch(Bool.self, t, path)
        }
    }

    func decodeString(at p: Int, _ path: _CodingPath) throws -> String {
        let t = try tag(at: p, path)
        if t == .uuid { return try decodeUUID(at: p, path).uuidString }
        guard t == .string else { throw mismatch(String.self, t, path) }
        var q = p + 1
        let length = try _readLength(bytes, &q, path)
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[q..<q + length]), as: UTF8.self)
    }

    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, at p: Int, _ path: _CodingPath) throws -> T {
        let t = try tag(at: p, path)
        var q = p + 1
        switch t {
        case .signed:
            let raw = try _readVarint(bytes, &q, path)
            let value = Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
            guard let exact = T(exactly: value) else { throw _corrupt(path, "\(value) does not fit \(T.self)") }
            return exact
        case .unsigned:
            let value = try _readVarint(bytes, &q, path)
            guard let exact = T(exactly: value) else { throw _corrupt(path, "\(value) does not fit \(T.self)") }
            return exact
        default:
            throw mismatch(T.self, t, path)
        }
    }

    func decodeDouble(at p: Int, _ path: _CodingPath) throws -> Double {
        let t = try tag(at: p, path)
        var q = p + 1
        switch t {
        case .double: return Double(bitPattern: try _readFixed64(bytes, &q, path))
        case .float: return Double(try decodeFloat(at: p, path))
        case .signed, .unsigned:
            // An integer read as a double: only when it is exactly representable.
            if t == .signed {
                let value = try decodeInteger(Int64.self, at: p, path)
                guard let exact = Double(exactly: value) else { throw _corrupt(path, "\(value) is not exactly a Double") }
                return exact
            }
            let value = try decodeInteger(UInt64.self, at: p, path)
            guard let exact = Double(exactly: value) else { throw _corrupt(path, "\(value) is not exactly a Double") }
            return exact
        default: throw mismatch(Double.self, t, path)
        }
    }

    func decodeFloat(at p: Int, _ path: _CodingPath) throws -> Float {
        let t = try tag(at: p, path)
        if t == .float {
            guard bytes.count - (p + 1) >= 4 else { throw _corrupt(path, "the encoding ends inside a number") }
            var bits: UInt32 = 0
            for k in 0..<4 { bits |= UInt32(bytes[p + 1 + k]) << (8 * UInt32(k)) }
            return Float(bitPattern: bits)
        }
        let value = try decodeDouble(at: p, path)
        guard let exact = Float(exactly: value) ?? (value.isNaN ? Float.nan : nil) else { throw _corrupt(path, "\(value) is not exactly a Float") }
        return exact
    }

    func decodeUUID(at p: Int, _ path: _CodingPath) throws -> UUID {
        let t = try tag(at: p, path)
        if t == .string {
            let text = try decodeString(at: p, path)
            guard let uuid = UUID(uuidString: text) else { throw _corrupt(path, "\"\(text)\" is not a UUID") }
            return uuid
        }
        guard t == .uuid else { throw mismatch(UUID.self, t, path) }
        guard bytes.count - (p + 1) >= 16 else { throw _corrupt(path, "the encoding ends inside a UUID") }
        let b = { (k: Int) in self.bytes[p + 1 + k] }
        return UUID(uuid: (b(0), b(1), b(2), b(3), b(4), b(5), b(6), b(7), b(8), b(9), b(10), b(11), b(12), b(13), b(14), b(15)))
    }

    func decodeData(at p: Int, _ path: _CodingPath) throws -> Data {
        let t = try tag(at: p, path)
        guard t == .bytes else { throw mismatch(Data.self, t, path) }
        var q = p + 1
        let length = try _readLength(bytes, &q, path)
        return Data(UnsafeRawBufferPointer(rebasing: bytes[q..<q + length]))
    }

    /// Any value, with fast paths for the common leaf types.
    func decodeValue<T: Decodable>(_ type: T.Type, at p: Int, path: _CodingPath? = nil) throws -> T {
        let path = path ?? self.path
        if T.self == String.self { return try decodeString(at: p, path) as! T }
        if T.self == Int.self { return try decodeInteger(Int.self, at: p, path) as! T }
        if T.self == Date.self { return Date(timeIntervalSinceReferenceDate: try decodeDouble(at: p, path)) as! T }
        if T.self == Double.self { return try decodeDouble(at: p, path) as! T }
        if T.self == Bool.self { return try decodeBool(at: p, path) as! T }
        if T.self == UUID.self { return try decodeUUID(at: p, path) as! T }
        if T.self == Data.self { return try decodeData(at: p, path) as! T }
        if T.self == Int64.self { return try decodeInteger(Int64.self, at: p, path) as! T }
        if T.self == UInt64.self { return try decodeInteger(UInt64.self, at: p, path) as! T }
        if T.self == RecordValue.self, let value = try recordValue(at: p, path) { return value as! T }
        if T.self == DynamicRecord.self, let fields = try recordFields(at: p) { return DynamicRecord(fields: fields.map { ($0.key, $0.value) }) as! T }
        return try T(from: _BinaryValueDecoding(bytes: bytes, position: p, path: path))
    }

    /// A record value read from its tag — what `RecordValue(from:)` finds
    /// by trying each kind in turn, catching an error for each kind it is
    /// not (which made opening a store of dynamic objects cost ~20 µs an
    /// object); nil for an array or bytes, which that initializer reads.
    ///
    /// A record with a damaged field is an error (that initializer, through
    /// a keyed container's `allKeys`, which cannot throw, read it as a
    /// record without fields).
    func recordValue(at p: Int, _ path: _CodingPath) throws -> RecordValue? {
        switch try tag(at: p, path) {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .signed, .unsigned:
            // As `RecordValue(from:)`: an Int when it fits, else a UInt64.
            if let int = try? decodeInteger(Int.self, at: p, path) { return .int(int) }
            return try? .uint(decodeInteger(UInt64.self, at: p, path))
        case .double, .float: return .double(try decodeDouble(at: p, path))
        case .string, .uuid: return .string(try decodeString(at: p, path))
        case .keyed:
            guard let fields = try recordFields(at: p) else { return nil }
            // As `RecordValue(from:)`: one field named "$date" (the others are
            // not its keys) whose value is a date's number is a date.
            let dates = fields.filter { $0.key == RecordValue._DateKey.date.stringValue }
            if dates.count == 1, let seconds = try? decodeDouble(at: dates[0].position, path) {
                return .date(Date(timeIntervalSinceReferenceDate: seconds))
            }
            return .record(DynamicRecord(fields: fields.map { ($0.key, $0.value) }))
        case .unkeyed, .bytes: return nil
        }
    }

    /// The fields of the keyed value at `p` in their order, each value read
    /// as a record value (with where it starts) — what `DynamicRecord(from:)`
    /// reads through a keyed container; nil when the value is not keyed.
    ///
    /// - Throws: `DecodingError` for a damaged field or a value that is no
    ///   record value.
    func recordFields(at p: Int) throws -> [(key: String, value: RecordValue, position: Int)]? {
        guard try tag(at: p, path) == .keyed else { return nil }
        var q = p + 1
        let count = try _readVarint(bytes, &q, path)
        guard count <= UInt64(bytes.count - q) else { throw _corrupt(path, "a count past the end of the encoding") }
        var fields: [(key: String, value: RecordValue, position: Int)] = []
        fields.reserveCapacity(Int(count))
        for _ in 0..<count {
            let length = try _readLength(bytes, &q, path)
            let key = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[q..<q + length]), as: UTF8.self)
            q += length
            let fieldPath = path.appending(_AnyKey(key))
            fields.append((key, try decodeValue(RecordValue.self, at: q, path: fieldPath), q))
            q = try _skip(bytes, q, path: fieldPath)
        }
        return fields
    }
}

struct _BinaryKeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: _BinaryValueDecoding
    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] { ((try? decoder.allKeyNames()) ?? []).compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { (try? decoder.field(key)) != nil }

    private func value(_ key: Key) throws -> Int {
        guard let p = try decoder.field(key) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "no value for the key \"\(key.stringValue)\""))
        }
        return p
    }

    /// The value's position, or nil when absent or null.
    private func present(_ key: Key) throws -> Int? {
        guard let p = try decoder.field(key), try !decoder.isNull(at: p) else { return nil }
        return p
    }

    private func path(_ key: Key) -> _CodingPath { decoder.path.appending(key) }

    func decodeNil(forKey key: Key) throws -> Bool { try decoder.isNull(at: try value(key)) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.decodeBool(at: try value(key), path(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.decodeString(at: try value(key), path(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.decodeDouble(at: try value(key), path(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.decodeFloat(at: try value(key), path(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.decodeInteger(Int.self, at: try value(key), path(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.decodeInteger(Int8.self, at: try value(key), path(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.decodeInteger(Int16.self, at: try value(key), path(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.decodeInteger(Int32.self, at: try value(key), path(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.decodeInteger(Int64.self, at: try value(key), path(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.decodeInteger(UInt.self, at: try value(key), path(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.decodeInteger(UInt8.self, at: try value(key), path(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.decodeInteger(UInt16.self, at: try value(key), path(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.decodeInteger(UInt32.self, at: try value(key), path(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.decodeInteger(UInt64.self, at: try value(key), path(key)) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder.decodeValue(T.self, at: try value(key), path: path(key)) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(key).map { try decoder.decodeBool(at: $0, path(key)) } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(key).map { try decoder.decodeString(at: $0, path(key)) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try present(key).map { try decoder.decodeDouble(at: $0, path(key)) } }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try present(key).map { try decoder.decodeFloat(at: $0, path(key)) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(key).map { try decoder.decodeInteger(Int.self, at: $0, path(key)) } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try present(key).map { try decoder.decodeInteger(Int64.self, at: $0, path(key)) } }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try present(key).map { try decoder.decodeInteger(UInt64.self, at: $0, path(key)) } }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key).map { try decoder.decodeValue(T.self, at: $0, path: path(key)) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try _BinaryValueDecoding(bytes: decoder.bytes, position: try value(key), path: path(key)).container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try _BinaryValueDecoding(bytes: decoder.bytes, position: try value(key), path: path(key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { try superDecoder(named: _BinaryCodingKey("super")) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder(named: key) }

    private func superDecoder(named key: some CodingKey) throws -> any Decoder {
        guard let p = try decoder.field(key) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "no value for the key \"\(key.stringValue)\""))
        }
        return _BinaryValueDecoding(bytes: decoder.bytes, position: p, path: decoder.path.appending(key))
    }
}

struct _BinaryUnkeyedDecoding: UnkeyedDecodingContainer {
    let decoder: _BinaryValueDecoding
    var position: Int
    let total: Int
    var currentIndex = 0

    init(decoder: _BinaryValueDecoding, position: Int, count: Int) {
        self.decoder = decoder
        self.position = position
        total = count
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { total }
    var isAtEnd: Bool { currentIndex >= total }

    private var elementPath: _CodingPath { decoder.path.appending(_BinaryCodingKey(index: currentIndex)) }

    /// The next element's position; moves past it.
    private mutating func next() throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, DecodingError.Context(codingPath: codingPath, debugDescription: "the unkeyed container is at its end"))
        }
        let p = position
        position = try _skip(decoder.bytes, p, path: decoder.path)
        currentIndex += 1
        return p
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, try decoder.isNull(at: position) else { return false }
        _ = try next()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { let path = elementPath; return try decoder.decodeBool(at: try next(), path) }
    mutating func decode(_ type: String.Type) throws -> String { let path = elementPath; return try decoder.decodeString(at: try next(), path) }
    mutating func decode(_ type: Double.Type) throws -> Double { let path = elementPath; return try decoder.decodeDouble(at: try next(), path) }
    mutating func decode(_ type: Float.Type) throws -> Float { let path = elementPath; return try decoder.decodeFloat(at: try next(), path) }
    mutating func decode(_ type: Int.Type) throws -> Int { let path = elementPath; return try decoder.decodeInteger(Int.self, at: try next(), path) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { let path = elementPath; return try decoder.decodeInteger(Int8.self, at: try next(), path) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { let path = elementPath; return try decoder.decodeInteger(Int16.self, at: try next(), path) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { let path = elementPath; return try decoder.decodeInteger(Int32.self, at: try next(), path) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let path = elementPath; return try decoder.decodeInteger(Int64.self, at: try next(), path) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { let path = elementPath; return try decoder.decodeInteger(UInt.self, at: try next(), path) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let path = elementPath; return try decoder.decodeInteger(UInt8.self, at: try next(), path) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let path = elementPath; return try decoder.decodeInteger(UInt16.self, at: try next(), path) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let path = elementPath; return try decoder.decodeInteger(UInt32.self, at: try next(), path) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let path = elementPath; return try decoder.decodeInteger(UInt64.self, at: try next(), path) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let path = elementPath
        return try decoder.decodeValue(T.self, at: try next(), path: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let path = elementPath
        return try _BinaryValueDecoding(bytes: decoder.bytes, position: try next(), path: path).container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let path = elementPath
        return try _BinaryValueDecoding(bytes: decoder.bytes, position: try next(), path: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let path = elementPath
        return _BinaryValueDecoding(bytes: decoder.bytes, position: try next(), path: path)
    }
}

struct _BinarySingleValueDecoding: SingleValueDecodingContainer {
    let decoder: _BinaryValueDecoding
    var codingPath: [any CodingKey] { decoder.codingPath }
    var p: Int { decoder.position }

    func decodeNil() -> Bool { (try? decoder.isNull(at: p)) ?? false }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool(at: p, decoder.path) }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeString(at: p, decoder.path) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeDouble(at: p, decoder.path) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decodeFloat(at: p, decoder.path) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(Int.self, at: p, decoder.path) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(Int8.self, at: p, decoder.path) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(Int16.self, at: p, decoder.path) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(Int32.self, at: p, decoder.path) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(Int64.self, at: p, decoder.path) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(UInt.self, at: p, decoder.path) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(UInt8.self, at: p, decoder.path) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(UInt16.self, at: p, decoder.path) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(UInt32.self, at: p, decoder.path) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(UInt64.self, at: p, decoder.path) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(T.self, at: p) }
}
