import Foundation

/// The values of one ``DynamicRecord``, in the order of its shape's keys, as
/// bytes in one allocation: the record's whole cost is this object (its
/// header, its shape's reference, and about as many bytes as its values take
/// in JSON without the keys), however many fields and strings it holds.
///
/// Each value is a tag byte and what follows it:
///
/// | tag | value | then |
/// |---|---|---|
/// | `0x00` | `null` | – |
/// | `0x01`, `0x02` | `false`, `true` | – |
/// | `0x03`, `0x04`, `0x05`, `0x06` | an integer | 1, 2, 4 or 8 bytes, signed, little-endian |
/// | `0x07` | an unsigned integer above `Int.max` | 8 bytes |
/// | `0x08` | a double | its 8 bytes (every bit kept: `-0.0`, NaN payloads) |
/// | `0x09` | a date | its `timeIntervalSinceReferenceDate`'s 8 bytes |
/// | `0x0A` | a string of 64 bytes or more | its length (LEB128), its UTF-8 |
/// | `0x0B` | an array | its count (LEB128), its bytes (4), the elements |
/// | `0x0C` | a record | its shape's place in `nested` (LEB128), its bytes (4), its values |
/// | `0x40 + n` | a string of `n` < 64 bytes | its UTF-8 |
/// | `0x80 + n` | the integer `n` < 128 | – |
///
/// Reading a value decodes it into a ``RecordValue``: a string of at most 15
/// UTF-8 bytes becomes a `String` in its small form (no allocation), a
/// longer one a new `String`. The storage is immutable once made (a change
/// makes a new one), so it is shared freely between threads.
@usableFromInline
final class _RecordStorage: ManagedBuffer<_RecordStorage.Header, UInt8> {
    @usableFromInline
    struct Header {
        /// The record's keys.
        let shape: _RecordShape
        /// The shapes of the records nested in the values (usually none: no allocation).
        let nested: [_RecordShape]
        // The number of bytes is not kept (8 bytes a record): the values tell where they end.
    }

    /// A storage of `shape` holding these bytes (made by a ``_RecordWriter``).
    static func make(shape: _RecordShape, nested: [_RecordShape], bytes: UnsafeRawBufferPointer) -> _RecordStorage {
        let count = bytes.count
        let buffer = self.create(minimumCapacity: count) { _ in Header(shape: shape, nested: nested) }
        let storage = unsafeDowncast(buffer, to: _RecordStorage.self)
        storage.withUnsafeMutablePointerToElements { elements in
            if let base = bytes.baseAddress, count > 0 { elements.initialize(from: base.assumingMemoryBound(to: UInt8.self), count: count) }
        }
        return storage
    }

    /// A storage of `shape` holding `values` (in the order of its keys).
    static func make(shape: _RecordShape, values: some Collection<RecordValue>) -> _RecordStorage {
        var writer = _RecordWriter()
        writer.bytes.reserveCapacity(16 * values.count)
        for value in values { writer.append(value) }
        return writer.storage(shape: shape)
    }

    var shape: _RecordShape { header.shape }

    /// Calls `body` with a reader at the first value.
    @inline(__always)
    func withReader<T>(_ body: (inout _RecordReader) throws -> T) rethrows -> T {
        try withUnsafeMutablePointers { header, elements in
            var reader = _RecordReader(bytes: UnsafeRawPointer(elements), nested: header.pointee.nested)
            return try body(&reader)
        }
    }

    /// The value at position `k` (0 ≤ k < the shape's key count).
    ///
    /// - Complexity: O(*k*) skips, and the value's decoding.
    func value(at k: Int) -> RecordValue {
        withReader { reader in
            for _ in 0..<k { reader.skip() }
            return reader.read()
        }
    }

    /// Every value, in order.
    func values() -> ContiguousArray<RecordValue> {
        let count = shape.keys.count
        var values = ContiguousArray<RecordValue>()
        values.reserveCapacity(count)
        withReader { reader in
            for _ in 0..<count { values.append(reader.read()) }
        }
        return values
    }

    /// Calls `body` with each value's position and value, in order.
    func forEachValue(_ body: (Int, RecordValue) throws -> Void) rethrows {
        let count = shape.keys.count
        try withReader { reader in
            for k in 0..<count { try body(k, reader.read()) }
        }
    }

    /// The number of value bytes.
    ///
    /// - Complexity: O(*n*) for *n* fields (each value is skipped).
    var byteCount: Int {
        let count = shape.keys.count
        return withReader { reader in
            for _ in 0..<count { reader.skip() }
            return reader.position
        }
    }

    /// Whether both hold the same bytes with the same shapes (then their
    /// values are identical; the converse does not hold).
    func hasSameBytes(as other: _RecordStorage) -> Bool {
        if self === other { return true }
        let (a, b) = (header, other.header)
        guard a.shape === b.shape, a.nested.count == b.nested.count, zip(a.nested, b.nested).allSatisfy({ $0 === $1 }) else { return false }
        let count = byteCount
        guard count == other.byteCount else { return false }
        return withUnsafeMutablePointerToElements { x in
            other.withUnsafeMutablePointerToElements { y in memcmp(x, y, count) == 0 }
        }
    }

    /// The value bytes and nested shapes, for copying into another record.
    func withBytes<T>(_ body: (UnsafeRawBufferPointer, [_RecordShape]) throws -> T) rethrows -> T {
        let count = byteCount
        return try withUnsafeMutablePointers { header, elements in
            try body(UnsafeRawBufferPointer(start: elements, count: count), header.pointee.nested)
        }
    }
}

/// The tags of ``_RecordStorage``'s values.
@usableFromInline
enum _RecordTag {
    static let null: UInt8 = 0x00
    static let `false`: UInt8 = 0x01
    static let `true`: UInt8 = 0x02
    static let int8: UInt8 = 0x03
    static let int16: UInt8 = 0x04
    static let int32: UInt8 = 0x05
    static let int64: UInt8 = 0x06
    static let uint64: UInt8 = 0x07
    static let double: UInt8 = 0x08
    static let date: UInt8 = 0x09
    static let longString: UInt8 = 0x0A
    static let array: UInt8 = 0x0B
    static let record: UInt8 = 0x0C
    static let shortString: UInt8 = 0x40
    static let shortStringLimit = 64
    static let smallInt: UInt8 = 0x80
}

/// Writes values in ``_RecordStorage``'s form.
@usableFromInline
struct _RecordWriter {
    var bytes: [UInt8] = []
    var nested: [_RecordShape] = []

    init() {}

    /// Starts again, keeping the buffer's room.
    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        nested.removeAll()
    }

    /// A storage of `shape` holding what was written.
    func storage(shape: _RecordShape) -> _RecordStorage {
        bytes.withUnsafeBytes { _RecordStorage.make(shape: shape, nested: nested, bytes: $0) }
    }

    mutating func appendLEB(_ value: Int) {
        var v = UInt(value)
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func appendFixed<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func appendInt(_ i: Int) {
        if i >= 0 && i < 0x80 {
            bytes.append(_RecordTag.smallInt | UInt8(i))
        } else if let v = Int8(exactly: i) {
            bytes.append(_RecordTag.int8)
            appendFixed(v)
        } else if let v = Int16(exactly: i) {
            bytes.append(_RecordTag.int16)
            appendFixed(v)
        } else if let v = Int32(exactly: i) {
            bytes.append(_RecordTag.int32)
            appendFixed(v)
        } else {
            bytes.append(_RecordTag.int64)
            appendFixed(Int64(i))
        }
    }

    /// Appends a string's UTF-8 bytes (valid UTF-8).
    mutating func appendString(_ utf8: UnsafeRawBufferPointer) {
        if utf8.count < _RecordTag.shortStringLimit {
            bytes.append(_RecordTag.shortString | UInt8(utf8.count))
        } else {
            bytes.append(_RecordTag.longString)
            appendLEB(utf8.count)
        }
        bytes.append(contentsOf: utf8)
    }

    mutating func appendString(_ s: String) {
        var s = s
        s.withUTF8 { appendString(UnsafeRawBufferPointer($0)) }
    }

    /// Reserves a 4-byte length; returns where it is.
    private mutating func beginLength() -> Int {
        let at = bytes.count
        for _ in 0..<4 { bytes.append(0) }
        return at
    }

    /// Fills in the length reserved at `at`: the bytes written since.
    private mutating func endLength(_ at: Int) {
        let length = UInt32(truncatingIfNeeded: bytes.count - at - 4).littleEndian
        withUnsafeBytes(of: length) { length in
            for k in 0..<4 { bytes[at + k] = length[k] }
        }
    }

    /// The place of a nested shape in `nested`, added when new.
    private mutating func nestedIndex(_ shape: _RecordShape) -> Int {
        if let k = nested.firstIndex(where: { $0 === shape }) { return k }
        nested.append(shape)
        return nested.count - 1
    }

    mutating func append(_ value: RecordValue) {
        switch value {
        case .null: bytes.append(_RecordTag.null)
        case .bool(let b): bytes.append(b ? _RecordTag.true : _RecordTag.false)
        case .int(let i): appendInt(i)
        case .uint(let u):
            // Readers make a uint only above Int.max; one made by hand keeps its kind.
            bytes.append(_RecordTag.uint64)
            appendFixed(u)
        case .double(let d):
            bytes.append(_RecordTag.double)
            appendFixed(d.bitPattern)
        case .date(let date):
            bytes.append(_RecordTag.date)
            appendFixed(date.timeIntervalSinceReferenceDate.bitPattern)
        case .string(let s): appendString(s)
        case .array(let elements):
            bytes.append(_RecordTag.array)
            appendLEB(elements.count)
            let at = beginLength()
            for element in elements { append(element) }
            endLength(at)
        case .record(let record):
            bytes.append(_RecordTag.record)
            appendLEB(nestedIndex(record.storage.shape))
            let at = beginLength()
            record.storage.withBytes { inner, innerNested in
                if innerNested.isEmpty {
                    bytes.append(contentsOf: inner)   // nothing nested in it: its bytes as they are
                } else {
                    record.storage.forEachValue { _, value in append(value) }
                }
            }
            endLength(at)
        }
    }
}

/// Reads values in ``_RecordStorage``'s form, one after another.
@usableFromInline
struct _RecordReader {
    let bytes: UnsafeRawPointer
    let nested: [_RecordShape]
    var position = 0

    init(bytes: UnsafeRawPointer, nested: [_RecordShape]) {
        self.bytes = bytes
        self.nested = nested
    }

    @inline(__always)
    mutating func byte() -> UInt8 {
        let b = bytes.load(fromByteOffset: position, as: UInt8.self)
        position += 1
        return b
    }

    @inline(__always)
    mutating func fixed<T: FixedWidthInteger>(_: T.Type) -> T {
        let v = T(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: T.self))
        position += MemoryLayout<T>.size
        return v
    }

    mutating func leb() -> Int {
        var value: UInt = 0
        var shift: UInt = 0
        while true {
            let b = byte()
            value |= UInt(b & 0x7F) << shift
            if b < 0x80 { return Int(bitPattern: value) }
            shift += 7
        }
    }

    /// The string of `length` bytes at the position.
    mutating func string(_ length: Int) -> String {
        let s = String(decoding: UnsafeRawBufferPointer(start: bytes + position, count: length), as: UTF8.self)
        position += length
        return s
    }

    /// Reads the value at the position and moves past it.
    mutating func read() -> RecordValue {
        let tag = byte()
        if tag >= _RecordTag.smallInt { return .int(Int(tag & 0x7F)) }
        if tag >= _RecordTag.shortString { return .string(string(Int(tag & 0x3F))) }
        switch tag {
        case _RecordTag.null: return .null
        case _RecordTag.false: return .bool(false)
        case _RecordTag.true: return .bool(true)
        case _RecordTag.int8: return .int(Int(fixed(Int8.self)))
        case _RecordTag.int16: return .int(Int(fixed(Int16.self)))
        case _RecordTag.int32: return .int(Int(fixed(Int32.self)))
        case _RecordTag.int64: return .int(Int(fixed(Int64.self)))
        case _RecordTag.uint64: return .uint(fixed(UInt64.self))
        case _RecordTag.double: return .double(Double(bitPattern: fixed(UInt64.self)))
        case _RecordTag.date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: fixed(UInt64.self))))
        case _RecordTag.longString: return .string(string(leb()))
        case _RecordTag.array:
            let count = leb()
            position += 4
            var elements: [RecordValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(read()) }
            return .array(elements)
        default:   // a record
            let shape = nested[leb()]
            let length = Int(fixed(UInt32.self))
            let inner = UnsafeRawBufferPointer(start: bytes + position, count: length)
            position += length
            // Its bytes as they are; the records nested in it refer to this record's list.
            return .record(DynamicRecord(storage: _RecordStorage.make(shape: shape, nested: nested, bytes: inner)))
        }
    }

    /// Moves past the value at the position without decoding it.
    mutating func skip() {
        let tag = byte()
        if tag >= _RecordTag.smallInt { return }
        if tag >= _RecordTag.shortString {
            position += Int(tag & 0x3F)
            return
        }
        switch tag {
        case _RecordTag.null, _RecordTag.false, _RecordTag.true: return
        case _RecordTag.int8: position += 1
        case _RecordTag.int16: position += 2
        case _RecordTag.int32: position += 4
        case _RecordTag.int64, _RecordTag.uint64, _RecordTag.double, _RecordTag.date: position += 8
        case _RecordTag.longString: position += leb()
        case _RecordTag.array:
            _ = leb()
            position += Int(fixed(UInt32.self))
        default:
            _ = leb()
            position += Int(fixed(UInt32.self))
        }
    }
}
