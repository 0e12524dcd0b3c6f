import Foundation
import PredicateFormat
import Records

// The journal file, byte by byte (the DocC article "The store's file format"
// says the same for people writing tools):
//
//   file header, 32 bytes: "HTSTORE\n" | format version (u32 = 1) | flags (u32: bit 0, records
//       tagged with their entity; the other bits 0)
//       | store identifier (u64, random, kept by compactions) | reserved (u32 = 0)
//       | CRC-32C of the 28 bytes before it (u32)
//   frames, each: "HTF" | kind (u8) | payload length (u32) | CRC-32C of the payload (u32)
//       | CRC-32C of the 12 bytes before it (u32) | payload
//
//   kind 1, the snapshot's head: varint version, varint next sequence,
//       varint record count, varint chunk count — then that many kind 2 frames
//   kind 2, a chunk of the snapshot: varint count, then per record:
//       zigzag varint sequence, varint version, varint length, the record's encoding
//   kind 3, one save (the journal): varint version, varint next sequence,
//       varint saved count, varint deleted count, then per saved record:
//       zigzag varint sequence, varint length, the record's encoding;
//       per deleted record: varint length, the record's encoding
//
// A record's encoding: in a file of a model of one entity, the record's own
// (untagged); in a file of several entities (flag bit 0, and every file
// without the flag that a model of several entities opens, as the object
// graph store wrote them), a keyed container of "entity" (its name), "id"
// (its `ObjectID`) and "record" (the record's own encoding, as Data).
//
// All integers little-endian. A file is a header, one snapshot (head and
// chunks), then saves, each one version after the one before (the first one
// after the snapshot's). Only the last save can be torn by a crash: a frame
// whose header or payload runs past the end of the file, or zeros where a
// frame should start. Anything else that fails a checksum is damage.

enum _JournalFormat {
    static let magic: [UInt8] = Array("HTSTORE\n".utf8)
    static let formatVersion: UInt32 = 1
    static let headerSize = 32
    static let frameHeaderSize = 16
    static let frameMagic: [UInt8] = Array("HTF".utf8)
    /// About how many bytes a snapshot chunk holds.
    static let chunkBytes = 1 << 20

    enum Kind: UInt8 {
        case snapshotHead = 1
        case snapshotChunk = 2
        case save = 3
        /// Format 2: a block of a column (an index), a directory, the catalog.
        case block = 4
        case directory = 5
        case catalog = 6
    }

    // MARK: Writing

    static func appendUInt32(_ value: UInt32, to out: inout [UInt8]) {
        for k in 0..<4 { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(k)))) }
    }

    static func readUInt32(_ bytes: UnsafeRawBufferPointer, _ p: Int) -> UInt32 {
        var value: UInt32 = 0
        for k in 0..<4 { value |= UInt32(bytes[p + k]) << (8 * UInt32(k)) }
        return value
    }

    /// Flag bit 0: records tagged with their entity.
    static let taggedFlag: UInt32 = 1

    static func fileHeader(storeID: UInt64, flags: UInt32, format: UInt32 = formatVersion) -> [UInt8] {
        var out = magic
        appendUInt32(format, to: &out)
        appendUInt32(flags, to: &out)
        _Varint.writeFixed(storeID, to: &out)
        appendUInt32(0, to: &out)
        appendUInt32(_CRC32C.checksum(out, 0..<28), to: &out)
        return out
    }

    /// Appends a frame whose payload is `out[payloadStart...]`, written there
    /// after a 16-byte gap left for the header.
    static func beginFrame(_ out: inout [UInt8]) -> Int {
        out.append(contentsOf: repeatElement(0, count: frameHeaderSize))
        return out.count
    }

    static func endFrame(_ kind: Kind, payloadStart: Int, in out: inout [UInt8]) throws(StoreError) {
        let length = out.count - payloadStart
        guard UInt64(length) <= UInt64(UInt32.max) else { throw .unencodable("a save of \(length) bytes is larger than a frame can hold (4 GiB)") }
        var header = frameMagic
        header.append(kind.rawValue)
        appendUInt32(UInt32(length), to: &header)
        appendUInt32(_CRC32C.checksum(out, payloadStart..<out.count), to: &header)
        appendUInt32(_CRC32C.checksum(header, 0..<12), to: &header)
        out.replaceSubrange(payloadStart - frameHeaderSize..<payloadStart, with: header)
    }

    /// A whole file: header and snapshot, of every entity's records.
    static func file(storeID: UInt64, parts: [_AnyEntityChangeSet], version: Int64, nextSequence: Int64, codec: _JournalCodec) throws(StoreError) -> [UInt8] {
        var chunks: [UInt8] = []
        var chunkCount = 0
        var recordCount = 0
        for part in parts {
            var k = 0
            while k < part.savedCount {
                let start = beginFrame(&chunks)
                let countAt = chunks.count
                // The count goes first: reserve a 10-byte varint and fix it at the end.
                chunks.append(contentsOf: repeatElement(0, count: 10))
                let end = try part.writeSnapshotRecords(from: k, into: &chunks, upTo: start + chunkBytes, codec: codec)
                var count: [UInt8] = []
                _Varint.write(UInt64(end - k), to: &count)
                chunks.replaceSubrange(countAt..<countAt + 10, with: count)
                try endFrame(.snapshotChunk, payloadStart: start, in: &chunks)
                chunkCount += 1
                recordCount += end - k
                k = end
            }
        }
        var out = fileHeader(storeID: storeID, flags: codec.tagged ? taggedFlag : 0)
        let start = beginFrame(&out)
        _Varint.write(UInt64(bitPattern: version), to: &out)
        _Varint.write(UInt64(bitPattern: nextSequence), to: &out)
        _Varint.write(UInt64(recordCount), to: &out)
        _Varint.write(UInt64(chunkCount), to: &out)
        try endFrame(.snapshotHead, payloadStart: start, in: &out)
        out.append(contentsOf: chunks)
        return out
    }

    /// One save's frame.
    static func saveFrame(_ changeSet: _ChangeSet, codec: _JournalCodec) throws(StoreError) -> [UInt8] {
        var out: [UInt8] = []
        let start = beginFrame(&out)
        _Varint.write(UInt64(bitPattern: changeSet.version), to: &out)
        _Varint.write(UInt64(bitPattern: changeSet.nextSequence), to: &out)
        _Varint.write(UInt64(changeSet.parts.reduce(0) { $0 + $1.savedCount }), to: &out)
        _Varint.write(UInt64(changeSet.parts.reduce(0) { $0 + $1.deletedCount }), to: &out)
        for part in changeSet.parts { try part.writeSavedRecords(into: &out, codec: codec) }
        for part in changeSet.parts { try part.writeDeletedRecords(into: &out, codec: codec) }
        try endFrame(.save, payloadStart: start, in: &out)
        return out
    }
}

/// How a file's records are encoded and decoded: by the model, each record
/// untagged (a model of one entity) or tagged with its entity.
struct _JournalCodec: Sendable {
    let model: ObjectModel
    /// Whether records carry their entity (files of several entities).
    let tagged: Bool

    /// A record as the graph store wrote it, and as files of several entities hold them.
    struct Tagged: Codable {
        var entity: String
        var id: ObjectID
        var record: Data
    }

    /// Appends a record of entity `k`: its length, then its encoding.
    func encode(_ k: Int, _ record: some Record & Codable, into out: inout [UInt8]) throws(StoreError) {
        do {
            var bytes: [UInt8] = []
            if tagged {
                var inner: [UInt8] = []
                try _BinaryRecordEncoder.encode(record, into: &inner)
                let id = model.objectID(k, AnyHashable(record.id))
                try _BinaryRecordEncoder.encode(Tagged(entity: model.entities[k].name, id: id, record: Data(inner)), into: &bytes)
            } else {
                try _BinaryRecordEncoder.encode(record, into: &bytes)
            }
            _Varint.write(UInt64(bytes.count), to: &out)
            out.append(contentsOf: bytes)
        } catch {
            throw .unencodable("\(error)")
        }
    }

    /// Decodes a record's bytes into its entity's part.
    func decode(
        _ bytes: UnsafeRawBufferPointer, sequence: Int64, version: Int64, deleted: Bool, into parts: inout _Parts
    ) throws -> Void {
        if !tagged {
            try model.entities[0].kind.append(bytes, sequence: sequence, version: version, deleted: deleted, to: parts.part(0, model))
            return
        }
        let tagged = try _BinaryRecordDecoder(bytes: bytes).decode(Tagged.self, at: 0)
        guard let k = model.byName[tagged.entity] else { throw _UnknownEntity(name: tagged.entity) }
        do {
            try tagged.record.withUnsafeBytes { inner in
                try model.entities[k].kind.append(inner, sequence: sequence, version: version, deleted: deleted, to: parts.part(k, model))
            }
        } catch {
            throw _UndecodableRecord(entity: tagged.entity, recordType: "\(model.entities[k].recordType)", error: error)
        }
    }
}

/// A record of an entity the model does not declare.
struct _UnknownEntity: Error {
    var name: String
}

/// A record tagged with an entity of the model that does not decode as the
/// entity's record type (a file written with another declaration of it).
struct _UndecodableRecord: Error {
    var entity: String
    var recordType: String
    var error: any Error
}

/// Each entity's part, made as records of it are read.
struct _Parts {
    var byEntity: [Int: _AnyEntityChangeSet] = [:]

    mutating func part(_ k: Int, _ model: ObjectModel) -> _AnyEntityChangeSet {
        if let part = byEntity[k] { return part }
        let part = model.entities[k].kind.makeChangeSet(k)
        byEntity[k] = part
        return part
    }

    /// The parts in the model's order.
    var parts: [_AnyEntityChangeSet] { byEntity.keys.sorted().compactMap { byEntity[$0] } }
}

/// What reading (part of) a journal file found.
struct _JournalRead {
    /// The snapshot of a file of format 2 (its records read as needed).
    var snapshot: _FileSnapshot?
    var storeID: UInt64 = 0
    /// The file's flags.
    var flags: UInt32 = 0
    /// The snapshot's records, each entity's part (empty when not decoded).
    var parts: [_AnyEntityChangeSet] = []
    var snapshotVersion: Int64 = 0
    var nextSequence: Int64 = 1
    /// The saves after the snapshot (or after `afterVersion`), in order.
    var changeSets: [_ChangeSet] = []
    /// The version of the last valid frame.
    var version: Int64 = 0
    /// Where the snapshot ends (from the start of the bytes read).
    var snapshotEnd = 0
    /// Where the last valid frame ends (from the start of the bytes read).
    var end = 0
    /// A torn last save: where it starts, and why it is torn.
    var torn: (offset: Int, reason: String)?
}

/// Reads a journal file's bytes, checking every checksum.
struct _JournalReader: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
    /// The file offset of `bytes[0]`, for messages.
    let baseOffset: Int
    let path: String
    /// How records are decoded (nil: a reader of a snapshot's structure, which decodes none).
    let codec: _JournalCodec?

    func damaged(_ p: Int, _ reason: String) -> StoreError { .damaged(path: path, offset: baseOffset + p, reason: reason) }

    enum Scan {
        case frame(kind: _JournalFormat.Kind, payload: Range<Int>)
        case end
        case torn(String)
    }

    /// The frame at `p`.
    func frame(at p: Int) throws(StoreError) -> Scan {
        let remaining = bytes.count - p
        if remaining == 0 { return .end }
        if remaining < _JournalFormat.frameHeaderSize {
            if bytes[p..<bytes.count].allSatisfy({ $0 == 0 }) { return .torn("\(remaining) zero bytes where a save should start") }
            return .torn("a save's header cut after \(remaining) of \(_JournalFormat.frameHeaderSize) bytes")
        }
        let headerOK = bytes[p] == _JournalFormat.frameMagic[0] && bytes[p + 1] == _JournalFormat.frameMagic[1]
            && bytes[p + 2] == _JournalFormat.frameMagic[2]
            && _CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[p..<p + 12])) == _JournalFormat.readUInt32(bytes, p + 12)
        guard headerOK else {
            if bytes[p..<bytes.count].allSatisfy({ $0 == 0 }) { return .torn("\(remaining) zero bytes where a save should start") }
            throw damaged(p, "a frame header fails its checksum")
        }
        guard let kind = _JournalFormat.Kind(rawValue: bytes[p + 3]) else { throw damaged(p, "a frame of unknown kind \(bytes[p + 3])") }
        let written = _JournalFormat.readUInt32(bytes, p + 4)
        let payloadStart = p + _JournalFormat.frameHeaderSize
        guard UInt64(written) <= UInt64(bytes.count - payloadStart) else {
            return .torn("a save of \(written) bytes cut after \(bytes.count - payloadStart)")
        }
        let length = Int(written)   // at most the bytes there are: an Int of any width
        let payload = payloadStart..<payloadStart + length
        guard _CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[payload])) == _JournalFormat.readUInt32(bytes, p + 8) else {
            throw damaged(p, "a frame fails its checksum")
        }
        return .frame(kind: kind, payload: payload)
    }

    /// A cursor over a payload: varints and records, checked.
    struct Payload {
        let reader: _JournalReader
        let frameStart: Int
        var p: Int
        let end: Int

        mutating func varint() throws(StoreError) -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard p < end else { throw reader.damaged(frameStart, "a frame ends inside a number") }
                let byte = reader.bytes[p]
                p += 1
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return result }
                shift += 7
                guard shift < 64 else { throw reader.damaged(frameStart, "a number longer than 64 bits") }
            }
        }

        mutating func int64() throws(StoreError) -> Int64 { Int64(bitPattern: try varint()) }

        mutating func signed() throws(StoreError) -> Int64 {
            let raw = try varint()
            return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
        }

        mutating func count() throws(StoreError) -> Int {
            let n = try varint()
            guard n <= UInt64(end - p) else { throw reader.damaged(frameStart, "a count larger than its frame") }
            return Int(n)
        }

        /// A string: its UTF-8 length, then its bytes.
        mutating func string() throws(StoreError) -> String {
            let length = try count()
            defer { p += length }
            return String(decoding: UnsafeRawBufferPointer(rebasing: reader.bytes[p..<p + length]), as: UTF8.self)
        }

        /// A file offset below `limit` (and inside the bytes read).
        mutating func offset(below limit: Int) throws(StoreError) -> Int {
            let n = try varint()
            guard n < UInt64(Swift.min(limit, reader.baseOffset + reader.bytes.count)) else { throw reader.damaged(frameStart, "an offset \(n) past the snapshot") }
            return Int(n) - reader.baseOffset
        }

        /// Reads a record into its entity's part.
        mutating func record(sequence: Int64, version: Int64, deleted: Bool, into parts: inout _Parts) throws(StoreError) {
            guard let codec = reader.codec else { throw reader.damaged(frameStart, "a record where none was expected") }
            let length = try count()
            let slice = UnsafeRawBufferPointer(rebasing: reader.bytes[p..<p + length])
            let start = p
            p += length
            do {
                try codec.decode(slice, sequence: sequence, version: version, deleted: deleted, into: &parts)
            } catch let unknown as _UnknownEntity {
                throw .unknownEntity(unknown.name)
            } catch let undecodable as _UndecodableRecord {
                throw reader.damaged(
                    frameStart,
                    "the record at offset \(reader.baseOffset + start), an object of \(undecodable.entity), cannot be decoded as \(undecodable.recordType): \(_describe(undecodable.error))")
            } catch {
                let what = codec.tagged ? "an object of the model" : "\(codec.model.entities[0].recordType)"
                throw reader.damaged(frameStart, "the record at offset \(reader.baseOffset + start) cannot be decoded as \(what): \(_describe(error))")
            }
        }

        func finish() throws(StoreError) {
            guard p == end else { throw reader.damaged(frameStart, "\(end - p) bytes left over in a frame") }
        }
    }

    /// The store identifier and the snapshot's version, when the header and
    /// the snapshot's head are whole (their checksums are checked).
    func head() -> (storeID: UInt64, snapshotVersion: Int64)? {
        let p = _JournalFormat.headerSize
        guard bytes.count >= p, bytes[0..<8].elementsEqual(_JournalFormat.magic),
            _CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<28])) == _JournalFormat.readUInt32(bytes, 28),
            case .frame(.snapshotHead, let payload)? = try? frame(at: p)
        else { return nil }
        var id: UInt64 = 0
        for k in 0..<8 { id |= UInt64(bytes[16 + k]) << (8 * UInt64(k)) }
        var head = Payload(reader: self, frameStart: p, p: payload.lowerBound, end: payload.upperBound)
        guard let version = try? head.int64() else { return nil }
        return (id, version)
    }

    /// Reads a whole file: header, snapshot, saves. With `decodeSnapshotAbove`
    /// set, the snapshot's records are decoded only when its version is above
    /// it, and saves only above it.
    func readFile(decodeAbove known: Int64? = nil) throws(StoreError) -> _JournalRead {
        var read = _JournalRead()
        guard bytes.count >= _JournalFormat.headerSize else {
            throw bytes.isEmpty ? .corrupt(path: path, reason: "the file is empty") : damaged(0, "the file header is cut short")
        }
        guard bytes[0..<8].elementsEqual(_JournalFormat.magic) else {
            throw .corrupt(path: path, reason: "it is not a store file (it does not start with \"HTSTORE\")")
        }
        guard _CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<28])) == _JournalFormat.readUInt32(bytes, 28) else {
            throw damaged(0, "the file header fails its checksum")
        }
        let format = _JournalFormat.readUInt32(bytes, 8)
        guard format == _JournalFormat.formatVersion else {
            throw .corrupt(path: path, reason: "format version \(format) is not supported (this version reads version \(_JournalFormat.formatVersion))")
        }
        var id: UInt64 = 0
        for k in 0..<8 { id |= UInt64(bytes[16 + k]) << (8 * UInt64(k)) }
        read.storeID = id
        read.flags = _JournalFormat.readUInt32(bytes, 12)
        guard read.flags & ~_JournalFormat.taggedFlag == 0 else {
            throw .corrupt(path: path, reason: "its header has flags \(read.flags), which this version does not know")
        }

        // The snapshot: a head, then its chunks. It is never torn (it is written
        // whole, then renamed into place): a short one is damage.
        var p = _JournalFormat.headerSize
        guard case .frame(.snapshotHead, let headPayload) = try frame(at: p) else { throw damaged(p, "the snapshot's head is missing or cut short") }
        var head = Payload(reader: self, frameStart: p, p: headPayload.lowerBound, end: headPayload.upperBound)
        read.snapshotVersion = try head.int64()
        read.nextSequence = try head.int64()
        let recordCount = try head.varint()
        let chunkCount = try head.varint()
        try head.finish()
        let decode = known.map { read.snapshotVersion > $0 } ?? true
        p = headPayload.upperBound
        var parts = _Parts()
        if decode, let codec, !codec.tagged {
            parts.part(0, codec.model).reserveCapacity(Int(min(recordCount, UInt64(bytes.count))))
        }
        var seen: UInt64 = 0
        for _ in 0..<chunkCount {
            guard case .frame(.snapshotChunk, let payload) = try frame(at: p) else { throw damaged(p, "a chunk of the snapshot is missing or cut short") }
            var chunk = Payload(reader: self, frameStart: p, p: payload.lowerBound, end: payload.upperBound)
            let count = try chunk.count()
            seen += UInt64(count)
            if decode {
                for _ in 0..<count {
                    let sequence = try chunk.signed()
                    let version = try chunk.int64()
                    try chunk.record(sequence: sequence, version: version, deleted: false, into: &parts)
                }
                try chunk.finish()
            }
            p = payload.upperBound
        }
        guard seen == recordCount else { throw damaged(_JournalFormat.headerSize, "the snapshot holds \(seen) records, its head says \(recordCount)") }
        read.parts = parts.parts
        read.snapshotEnd = p
        read.version = read.snapshotVersion
        read.end = p
        try readSaves(from: p, into: &read, decodeAbove: known ?? read.snapshotVersion)
        return read
    }

    /// Reads saves from `p` to the end: each must follow the last.
    func readSaves(from start: Int, into read: inout _JournalRead, decodeAbove known: Int64) throws(StoreError) {
        var p = start
        while true {
            switch try frame(at: p) {
            case .end:
                return
            case .torn(let reason):
                read.torn = (p, reason)
                return
            case .frame(let kind, let payload):
                guard kind == .save else { throw damaged(p, "a snapshot frame among the saves") }
                var save = Payload(reader: self, frameStart: p, p: payload.lowerBound, end: payload.upperBound)
                let version = try save.int64()
                guard version == read.version + 1 else { throw damaged(p, "save \(version) follows save \(read.version)") }
                if version > known {
                    let nextSequence = try save.int64()
                    let savedCount = try save.count()
                    let deletedCount = try save.count()
                    var parts = _Parts()
                    for _ in 0..<savedCount {
                        let sequence = try save.signed()
                        try save.record(sequence: sequence, version: version, deleted: false, into: &parts)
                    }
                    for _ in 0..<deletedCount { try save.record(sequence: 0, version: version, deleted: true, into: &parts) }
                    try save.finish()
                    read.changeSets.append(_ChangeSet(version: version, nextSequence: nextSequence, parts: parts.parts))
                }
                read.version = version
                p = payload.upperBound
                read.end = p
            }
        }
    }
}

/// A decoding error, for people.
func _describe(_ error: any Error) -> String {
    switch error {
    case DecodingError.dataCorrupted(let context): return "not valid" + (context.debugDescription.isEmpty ? "" : ": \(context.debugDescription)") + _at(context)
    case DecodingError.keyNotFound(let key, let context): return "missing \"\(key.stringValue)\"" + _at(context)
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context): return context.debugDescription + _at(context)
    default: return "\(error)"
    }
}

func _at(_ context: DecodingError.Context) -> String {
    context.codingPath.isEmpty ? "" : " at " + context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
}
