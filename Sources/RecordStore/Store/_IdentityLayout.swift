import Foundation
import Records

/// How a store file keeps an entity's identities beside its indexes: the
/// identity's own bytes, fixed-width, for the identity types whose bytes
/// are their value (integers, `UUID`), so that an index hands out
/// identities without decoding a record; nothing for the others (a
/// `String`, a record of its own), whose identities are read from their
/// records.
///
/// Every identity also has a stable 64-bit hash (the same in every process,
/// unlike `hashValue`): the file's identity index is sorted by it.
struct _IdentityLayout<ID: Hashable> {
    /// The width of an identity's bytes; 0 when identities are not kept.
    let width: Int
    private let writeBytes: (ID, inout [UInt8]) -> Void
    private let readBytes: (UnsafeRawPointer) -> ID

    private init(width: Int, write: @escaping (ID, inout [UInt8]) -> Void, read: @escaping (UnsafeRawPointer) -> ID) {
        self.width = width
        writeBytes = write
        readBytes = read
    }

    /// The layout of `ID`'s identities.
    static var layout: _IdentityLayout<ID> {
        func fixed<T: FixedWidthInteger>(_ type: T.Type) -> _IdentityLayout<ID> {
            _IdentityLayout(
                width: MemoryLayout<T>.size,
                write: { id, out in
                    let value = unsafeBitCast(id, to: T.self).littleEndian
                    withUnsafeBytes(of: value) { out.append(contentsOf: $0) }
                },
                read: { p in unsafeBitCast(T(littleEndian: p.loadUnaligned(as: T.self)), to: ID.self) })
        }
        switch ID.self {
        case is Int.Type:
            // Eight bytes on every platform (a file moves between 64- and 32-bit ones).
            return _IdentityLayout(
                width: 8,
                write: { id, out in withUnsafeBytes(of: Int64(unsafeBitCast(id, to: Int.self)).littleEndian) { out.append(contentsOf: $0) } },
                read: { p in unsafeBitCast(Int(truncatingIfNeeded: Int64(littleEndian: p.loadUnaligned(as: Int64.self))), to: ID.self) })
        case is Int64.Type: return fixed(Int64.self)
        case is Int32.Type: return fixed(Int32.self)
        case is UInt64.Type: return fixed(UInt64.self)
        case is UInt32.Type: return fixed(UInt32.self)
        case is UUID.Type:
            return _IdentityLayout(
                width: 16,
                write: { id, out in withUnsafeBytes(of: unsafeBitCast(id, to: UUID.self).uuid) { out.append(contentsOf: $0) } },
                read: { p in
                    var uuid = UUID().uuid
                    withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: UnsafeRawBufferPointer(start: p, count: 16)) }
                    return unsafeBitCast(UUID(uuid: uuid), to: ID.self)
                })
        default:
            return _IdentityLayout(width: 0, write: { _, _ in }, read: { _ in fatalError("identities of \(ID.self) are not kept") })
        }
    }

    /// Appends an identity's bytes (nothing when identities are not kept).
    func write(_ id: ID, into out: inout [UInt8]) { writeBytes(id, &out) }

    /// The identity whose bytes are at `p` (`width` of them, not 0).
    func read(_ p: UnsafeRawPointer) -> ID { readBytes(p) }

    /// `read(_:)` as a function, for a loop over many identities.
    var reader: (UnsafeRawPointer) -> ID { readBytes }

    /// The identity's stable hash: of its bytes when kept, of its binary
    /// encoding otherwise.
    ///
    /// - Throws: ``StoreError/unencodable(_:)`` when the identity does not encode.
    func stableHash(_ id: ID) throws(StoreError) -> UInt64 {
        var bytes: [UInt8] = []
        if width > 0 {
            write(id, into: &bytes)
        } else {
            guard let encodable = id as? any Encodable else { throw .unencodable("the identity \(id) is not Encodable") }
            do { try _BinaryRecordEncoder.encode(encodable, into: &bytes) } catch { throw .unencodable("the identity \(id): \(error)") }
        }
        return _stableHash(bytes)
    }
}

/// A 64-bit hash of bytes, the same in every process and on every platform:
/// FNV-1a, then a 64-bit finalizer (SplitMix64's) so that the high bits vary
/// as much as the low ones (the identity index is searched by interpolation).
func _stableHash(_ bytes: [UInt8]) -> UInt64 {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes {
        h ^= UInt64(byte)
        h = h &* 0x0000_0100_0000_01B3
    }
    h ^= h >> 30
    h = h &* 0xBF58_476D_1CE4_E5B9
    h ^= h >> 27
    h = h &* 0x94D0_49BB_1331_11EB
    return h ^ (h >> 31)
}
