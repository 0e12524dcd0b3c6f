import Foundation
import Records

// The snapshot of a store file of format 2: records that are read as they
// are needed, and indexes kept beside them (the DocC article "The store's
// file format" says the same for people writing tools).
//
//   file header, 32 bytes, as format 1's with format version 2
//   kind 1, the snapshot's head (fixed size): u64 version | u64 next sequence
//       | u64 offset of the catalog frame | u64 offset where the snapshot ends
//       (and the journal, format 1's saves, begins)
//   per entity with objects:
//     kind 2, chunks of records (about 8 KB each), in first-insertion order:
//         varint count, then per record: zigzag varint sequence, varint
//         version, varint length, the record's own encoding (never tagged:
//         the entity is the chunk's)
//     kind 4, blocks of fixed-width entries (a column: whole entries, about
//         4 KB a block, one block after the other):
//         - the identity index: per record, sorted by (hash, ordinal): u64
//           stable hash of the identity | u32 ordinal | the identity's bytes
//           (`_IdentityLayout`: 8 for integers, 16 for a UUID, none for others)
//         - each declared index: per record, in the index's order (its keys
//           ascending, compared plainly, ties by first insertion):
//           u32 ordinal | the identity's bytes
//     kind 5, the entity's directory: varint record count, varint chunk
//         count, per chunk: varint offset, varint record count; varint
//         identity width; varint offset of the identity index; varint index
//         count, per index: varint key count, keys (varint length, UTF-8),
//         varint offset of its column
//   kind 6, the catalog: varint entity count, per entity: varint name
//       length, name (UTF-8), varint offset of its directory
//
// A record's ordinal is its place among its entity's records in the chunks.
// All integers little-endian. The header, the head, the catalog and the
// directories are checked when the file opens; a chunk or a block when it is
// first read.

extension _JournalFormat {
    /// The format that keeps indexes and reads records as they are needed.
    static let indexedFormatVersion: UInt32 = 2
    /// About how many bytes a chunk of records holds.
    static let indexedChunkBytes = 8 << 10
    /// About how many bytes a block of a column holds.
    static let blockBytes = 4 << 10
    /// The size of format 2's head frame.
    static let indexedHeadSize = frameHeaderSize + 32
}

/// Fixed-width entries in blocks: where entry `i` is.
package struct _ColumnLayout: Sendable {
    /// Where the first block's frame starts.
    let start: Int
    let count: Int
    let width: Int

    var perBlock: Int { Swift.max(1, _JournalFormat.blockBytes / width) }
    var blockCount: Int { (count + perBlock - 1) / perBlock }
    var blockStride: Int { _JournalFormat.frameHeaderSize + perBlock * width }

    /// The frame of block `b`, and its payload's length.
    func block(_ b: Int) -> (frame: Int, length: Int) {
        (start + b * blockStride, Swift.min(perBlock, count - b * perBlock) * width)
    }

    /// The byte offset of entry `i`.
    func offset(of i: Int) -> Int {
        start + (i / perBlock) * blockStride + _JournalFormat.frameHeaderSize + (i % perBlock) * width
    }

    /// Where the column ends.
    var end: Int { blockCount == 0 ? start : block(blockCount - 1).frame + _JournalFormat.frameHeaderSize + block(blockCount - 1).length }
}

/// A set of small integers, as bits.
package struct _Bits: Sendable {
    private var words: [UInt64] = []

    package init(count: Int) { words = Array(repeating: 0, count: (count + 63) / 64) }

    package subscript(i: Int) -> Bool {
        get { words[i >> 6] & (1 << UInt64(i & 63)) != 0 }
        set {
            if newValue { words[i >> 6] |= 1 << UInt64(i & 63) } else { words[i >> 6] &= ~(1 << UInt64(i & 63)) }
        }
    }
}

/// A snapshot of format 2, open: the file's bytes (mapped), its version and
/// next sequence, and each entity's directory, by name.
final class _FileSnapshot: @unchecked Sendable {
    let bytes: _MappedBytes
    let path: String
    let version: Int64
    let nextSequence: Int64
    /// Where the journal begins.
    let end: Int
    let entities: [String: _FileEntity]

    /// Reads and checks the head, the catalog and the directories of the
    /// snapshot in `bytes` (the file's first bytes, to the snapshot's end at least).
    init(bytes: _MappedBytes, path: String) throws(StoreError) {
        self.bytes = bytes
        self.path = path
        let reader = _JournalReader(bytes: bytes.buffer, baseOffset: 0, path: path, codec: nil)
        let head = try reader.indexedHead()
        version = head.version
        nextSequence = head.nextSequence
        end = head.end
        guard case .frame(.catalog, let catalog) = try reader.frame(at: head.catalog) else {
            throw reader.damaged(head.catalog, "the snapshot's catalog is missing")
        }
        var payload = _JournalReader.Payload(reader: reader, frameStart: head.catalog, p: catalog.lowerBound, end: catalog.upperBound)
        var entities: [String: _FileEntity] = [:]
        for _ in 0..<(try payload.count()) {
            let name = try payload.string()
            let directory = try payload.offset(below: head.end)
            guard entities[name] == nil else { throw reader.damaged(head.catalog, "the catalog names \(name) twice") }
            entities[name] = try _FileEntity(mapping: bytes, reader: reader, directory: directory, end: head.end)
        }
        try payload.finish()
        self.entities = entities
    }
}

/// One entity's records in a snapshot that the store reads as they are
/// needed, by *ordinal* — a record's place among the entity's records in
/// the snapshot, `0..<count`, fixed while the snapshot is open: of the
/// store's file (``_FileEntity``) or served by a persistence of your own
/// (`_ServedEntity`). Records cross in the store's binary form; a pass
/// reads them a chunk (a run of ordinals) at a time. Used under the store's
/// lock. This class answers as an empty snapshot; its subclasses read.
package class _BaseEntity: @unchecked Sendable {
    /// The number of records.
    package let count: Int
    /// The number of chunks.
    package let chunkCount: Int
    /// The width of the identities' bytes in index blocks (0: none there).
    let identityWidth: Int
    /// Each declared index's keys.
    package let indexKeys: [[String]]
    /// The kinds of each index's keys, key by key; nil when not known:
    /// what a range read needs to know (see `indexRange`).
    package let keyKinds: [[_KeyKinds]?]

    init(count: Int, chunkCount: Int, identityWidth: Int, indexKeys: [[String]], keyKinds: [[_KeyKinds]?]) {
        self.count = count
        self.chunkCount = chunkCount
        self.identityWidth = identityWidth
        self.indexKeys = indexKeys
        self.keyKinds = keyKinds
    }

    /// The chunk holding ordinal `i`.
    func chunk(of i: Int) -> Int { 0 }

    /// Calls `body` with each record of chunk `c` from ordinal `from` on, in
    /// order: its ordinal, sequence, version and binary encoding (valid
    /// during the call); `body` returns false to stop.
    package func forEachRecord(inChunk c: Int, from: Int, _ body: (Int, Int64, Int64, UnsafeRawBufferPointer) throws(StoreError) -> Bool) throws(StoreError) {}

    /// Record `i`: its sequence, version and encoding (valid until the next read).
    func record(_ i: Int) throws(StoreError) -> (sequence: Int64, version: Int64, bytes: UnsafeRawBufferPointer) {
        throw damaged(i, "record \(i) is missing")
    }

    /// A damage report about the record at `ordinal`.
    func damaged(_ ordinal: Int, _ reason: String) -> StoreError { .corrupt(path: "the store", reason: reason) }

    /// Whether identities are found by ``servedOrdinal(of:)`` (a served
    /// snapshot) rather than by their stable hash (``ordinals(withHash:)``).
    package var findsIdentities: Bool { false }

    /// The ordinal of the record with an identity, asked of a served snapshot.
    func servedOrdinal<ID: Hashable>(of id: ID) throws(StoreError) -> Int? { nil }

    /// The ordinals whose identities have this stable hash, with their
    /// identities' bytes (candidates: identities may share a hash).
    func ordinals(withHash hash: UInt64) throws(StoreError) -> [(ordinal: Int, identity: UnsafeRawPointer)] { [] }

    /// Calls `body` with each block of declared index `k`'s entries in
    /// `positions` (all when nil), in the index's order — an
    /// ``IndexBlock``, its entries contiguous — every ordinal in it
    /// checked. `body` returns false to stop. (A block at a time: a
    /// caller's loop over its entries is one loop, not a call per entry —
    /// in unspecialized generic code, each call asks again for its types'
    /// metadata.)
    ///
    /// - Complexity: O(*m*) entries for *m* positions.
    package func forEachBlock(ofIndex k: Int, in positions: Range<Int>? = nil, _ body: (IndexBlock) throws(StoreError) -> Bool) throws(StoreError) {}

    /// The ordinal of entry `i` of declared index `k`.
    package func indexOrdinal(_ k: Int, _ i: Int) throws(StoreError) -> Int { throw damaged(0, "index \(k) has no entry \(i)") }

    /// A block of an index's entries: each the ordinal of a record (4
    /// bytes), then its identity's bytes (``_BaseEntity/identityWidth``) —
    /// or, from a served snapshot, the identities as values, apart.
    package struct IndexBlock {
        let start: UnsafeRawPointer
        package let count: Int
        let width: Int
        /// The entries' identities as values of the record type's `ID`, one
        /// after the other; nil when they are bytes in the entries (or not kept).
        package let identities: UnsafeRawPointer?

        init(start: UnsafeRawPointer, count: Int, width: Int, identities: UnsafeRawPointer? = nil) {
            self.start = start
            self.count = count
            self.width = width
            self.identities = identities
        }

        /// The ordinal of entry `j`.
        package func ordinal(_ j: Int) -> Int { Int(UInt32(littleEndian: (start + j * width).loadUnaligned(as: UInt32.self))) }
        /// The identity's bytes of entry `j`.
        package func identity(_ j: Int) -> UnsafeRawPointer { start + j * width + 4 }
    }
}

/// One entity's records in a snapshot of format 2: read from the file as
/// they are needed, each chunk and block checked the first time it is read.
/// Used under the store's lock (what it has checked is its state).
final class _FileEntity: _BaseEntity, @unchecked Sendable {
    /// The file's bytes (kept mapped while the entity is read).
    let mapping: _MappedBytes
    let reader: _JournalReader
    /// Each chunk's frame offset, and the ordinal of its first record (one
    /// more entry: the count).
    let chunkOffsets: [Int]
    let chunkFirsts: [Int]
    /// The identity index: (hash, ordinal, identity), sorted by hash.
    let identities: _ColumnLayout
    /// Each declared index's (ordinal, identity) entries, in its order.
    let columns: [_ColumnLayout]
    private var checkedChunks: _Bits
    private var checkedBlocks: [Int: _Bits] = [:]

    init(mapping: _MappedBytes, reader: _JournalReader, directory: Int, end: Int) throws(StoreError) {
        self.mapping = mapping
        self.reader = reader
        guard case .frame(.directory, let range) = try reader.frame(at: directory) else {
            throw reader.damaged(directory, "an entity's directory is missing")
        }
        var payload = _JournalReader.Payload(reader: reader, frameStart: directory, p: range.lowerBound, end: range.upperBound)
        let declared = try payload.varint()
        guard declared <= UInt64(UInt32.max) else { throw reader.damaged(directory, "an entity of \(declared) records") }
        let count = Int(declared)
        let chunkCount = try payload.count()
        var offsets: [Int] = [], firsts: [Int] = [0]
        offsets.reserveCapacity(chunkCount)
        firsts.reserveCapacity(chunkCount + 1)
        for _ in 0..<chunkCount {
            offsets.append(try payload.offset(below: end))
            let n = try payload.varint()
            guard n <= UInt64(count - firsts[firsts.count - 1]) else { throw reader.damaged(directory, "the chunks hold more records than the entity") }
            firsts.append(firsts[firsts.count - 1] + Int(n))
        }
        guard firsts[firsts.count - 1] == count else { throw reader.damaged(directory, "the chunks hold \(firsts[firsts.count - 1]) records, the entity \(count)") }
        chunkOffsets = offsets
        chunkFirsts = firsts
        let width = try payload.varint()
        guard width <= 64 else { throw reader.damaged(directory, "identities of \(width) bytes") }
        identities = _ColumnLayout(start: try payload.offset(below: end), count: count, width: 12 + Int(width))
        var keys: [[String]] = [], columns: [_ColumnLayout] = []
        for _ in 0..<(try payload.count()) {
            var ofIndex: [String] = []
            for _ in 0..<(try payload.count()) { ofIndex.append(try payload.string()) }
            keys.append(ofIndex)
            columns.append(_ColumnLayout(start: try payload.offset(below: end), count: count, width: 4 + Int(width)))
        }
        // The kinds of the indexes' keys, after the indexes (a file written
        // before they were kept ends here).
        var kinds = [[_KeyKinds]?](repeating: nil, count: keys.count)
        if payload.p < payload.end {
            for k in keys.indices {
                var ofKeys: [_KeyKinds] = []
                for _ in keys[k] { ofKeys.append(_KeyKinds(rawValue: try payload.varint())) }
                kinds[k] = ofKeys
            }
        }
        try payload.finish()
        for column in [identities] + columns where column.end > end {
            throw reader.damaged(column.start, "a column runs past the snapshot's end")
        }
        self.columns = columns
        checkedChunks = _Bits(count: chunkCount)
        super.init(count: count, chunkCount: chunkCount, identityWidth: Int(width), indexKeys: keys, keyKinds: kinds)
    }

    private var base: UnsafeRawPointer { reader.bytes.baseAddress! }

    // MARK: Records

    /// The chunk holding ordinal `i`.
    override func chunk(of i: Int) -> Int {
        var low = 0, high = chunkOffsets.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if chunkFirsts[mid] <= i { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// Chunk `c`'s payload, checked.
    private func chunkPayload(_ c: Int) throws(StoreError) -> Range<Int> {
        let p = chunkOffsets[c]
        if !checkedChunks[c] {
            guard case .frame(.snapshotChunk, let payload) = try reader.frame(at: p) else {
                throw reader.damaged(p, "a chunk of records is missing")
            }
            checkedChunks[c] = true
            return payload
        }
        return p + _JournalFormat.frameHeaderSize..<p + _JournalFormat.frameHeaderSize + Int(_JournalFormat.readUInt32(reader.bytes, p + 4))
    }

    /// Calls `body` with each record of chunk `c` from ordinal `from` on, in
    /// order: its ordinal, sequence, version and encoding; `body` returns
    /// false to stop.
    override package func forEachRecord(inChunk c: Int, from: Int, _ body: (Int, Int64, Int64, UnsafeRawBufferPointer) throws(StoreError) -> Bool) throws(StoreError) {
        let range = try chunkPayload(c)
        var payload = _JournalReader.Payload(reader: reader, frameStart: chunkOffsets[c], p: range.lowerBound, end: range.upperBound)
        let n = try payload.count()
        guard n == chunkFirsts[c + 1] - chunkFirsts[c] else { throw reader.damaged(chunkOffsets[c], "a chunk holds \(n) records, its directory says \(chunkFirsts[c + 1] - chunkFirsts[c])") }
        for k in 0..<n {
            let sequence = try payload.signed()
            let version = try payload.int64()
            let length = try payload.count()
            let start = payload.p
            payload.p += length
            let ordinal = chunkFirsts[c] + k
            guard ordinal >= from else { continue }
            guard try body(ordinal, sequence, version, UnsafeRawBufferPointer(rebasing: reader.bytes[start..<start + length])) else { return }
        }
    }

    /// Record `i`: its sequence, version and encoding.
    override func record(_ i: Int) throws(StoreError) -> (sequence: Int64, version: Int64, bytes: UnsafeRawBufferPointer) {
        var found: (Int64, Int64, UnsafeRawBufferPointer)?
        try forEachRecord(inChunk: chunk(of: i), from: i) { _, sequence, version, bytes throws(StoreError) in
            found = (sequence, version, bytes)
            return false
        }
        guard let found else { throw reader.damaged(chunkOffsets[chunk(of: i)], "record \(i) is missing from its chunk") }
        return found
    }

    /// A damage report about the record at `ordinal` (its chunk's offset).
    override func damaged(_ ordinal: Int, _ reason: String) -> StoreError {
        reader.damaged(chunkOffsets[chunk(of: ordinal)], reason)
    }

    // MARK: Columns

    /// Entry `i` of `column`, its block checked.
    func entry(_ i: Int, of column: _ColumnLayout) throws(StoreError) -> UnsafeRawPointer {
        let b = i / column.perBlock
        if checkedBlocks[column.start]?[b] != true {
            let (frame, length) = column.block(b)
            guard case .frame(.block, let payload) = try reader.frame(at: frame), payload.count == length else {
                throw reader.damaged(frame, "a block of an index is missing")
            }
            if checkedBlocks[column.start] == nil { checkedBlocks[column.start] = _Bits(count: column.blockCount) }
            checkedBlocks[column.start]?[b] = true
        }
        return base + column.offset(of: i)
    }

    /// The hash of identity-index entry `i`.
    func hash(at i: Int) throws(StoreError) -> UInt64 {
        UInt64(littleEndian: try entry(i, of: identities).loadUnaligned(as: UInt64.self))
    }

    /// The ordinals whose identities have this hash (candidates: identities
    /// may share a hash), found by interpolation on the uniform hashes.
    ///
    /// - Complexity: O(log log *n*) entries read on average, O(log *n*) at worst.
    override func ordinals(withHash hash: UInt64) throws(StoreError) -> [(ordinal: Int, identity: UnsafeRawPointer)] {
        var low = 0, high = count   // the first entry with a hash ≥ `hash` is in low...high
        var rounds = 0
        while low < high {
            let mid: Int
            if rounds < 4, high - low > 8 {
                // Where the hash would be if the hashes between were evenly spread.
                let l = try self.hash(at: low), h = try self.hash(at: high - 1)
                if hash <= l { high = low; break }
                if hash > h { low = high; break }
                let fraction = Double(hash - l) / Double(h - l)
                mid = Swift.min(high - 1, Swift.max(low, low + Int(fraction * Double(high - 1 - low))))
            } else {
                mid = (low + high) / 2
            }
            rounds += 1
            if try self.hash(at: mid) < hash { low = mid + 1 } else { high = mid }
        }
        var found: [(Int, UnsafeRawPointer)] = []
        var i = low
        while i < count, try self.hash(at: i) == hash {
            let p = try entry(i, of: identities)
            let ordinal = Int(UInt32(littleEndian: (p + 8).loadUnaligned(as: UInt32.self)))
            guard ordinal < count else { throw reader.damaged(identities.block(i / identities.perBlock).frame, "an index names record \(ordinal) of \(count)") }
            found.append((ordinal, p + 12))
            i += 1
        }
        return found
    }

    /// Each block of the index's column is checked the first time it is read.
    override package func forEachBlock(ofIndex k: Int, in positions: Range<Int>? = nil, _ body: (IndexBlock) throws(StoreError) -> Bool) throws(StoreError) {
        let column = columns[k]
        let positions = positions.map { $0.clamped(to: 0..<count) } ?? 0..<count
        var first = positions.lowerBound
        while first < positions.upperBound {
            let n = Swift.min(column.perBlock - first % column.perBlock, positions.upperBound - first)
            let block = IndexBlock(start: try entry(first, of: column), count: n, width: column.width)   // checks the block
            for j in 0..<block.count where block.ordinal(j) >= count {
                throw reader.damaged(column.block(first / column.perBlock).frame, "an index names record \(block.ordinal(j)) of \(count)")
            }
            guard try body(block) else { return }
            first += block.count
        }
    }

    override package func indexOrdinal(_ k: Int, _ i: Int) throws(StoreError) -> Int {
        let p = try entry(i, of: columns[k])
        let ordinal = Int(UInt32(littleEndian: p.loadUnaligned(as: UInt32.self)))
        guard ordinal < count else { throw reader.damaged(columns[k].block(i / columns[k].perBlock).frame, "an index names record \(ordinal) of \(count)") }
        return ordinal
    }
}

// MARK: - Writing

/// Writes a snapshot of format 2: entity by entity, then the catalog, and
/// the head patched with where they are.
struct _SnapshotWriter {
    private(set) var out: [UInt8]
    private var catalog: [(name: String, directory: Int)] = []

    /// A file's header and a head to patch.
    init(storeID: UInt64, flags: UInt32) {
        out = _JournalFormat.fileHeader(storeID: storeID, flags: flags, format: _JournalFormat.indexedFormatVersion)
        out.append(contentsOf: repeatElement(0, count: _JournalFormat.indexedHeadSize))
    }

    /// One entity's records (in first-insertion order: sequence, version,
    /// untagged encoding), the identities' bytes and stable hashes (in the
    /// records' order), and each index's order (ordinals) and the kinds of
    /// each of its keys' values (after the indexes in the directory).
    mutating func addEntity(
        name: String, records: [(sequence: Int64, version: Int64, bytes: [UInt8])], identityWidth: Int,
        identities: [UInt8], hashes: [UInt64], indexes: [(keys: [String], order: [Int32], kinds: [_KeyKinds])]
    ) throws(StoreError) {
        guard !records.isEmpty else { return }
        guard records.count <= Int(UInt32.max) else { throw .unencodable("an entity of \(records.count) records is more than a file holds (2³² − 1)") }
        // Chunks of about 8 KB.
        var chunks: [(offset: Int, count: Int)] = []
        var k = 0
        while k < records.count {
            let frame = out.count
            let start = _JournalFormat.beginFrame(&out)
            var end = k, bytes = 0
            while end < records.count && (bytes < _JournalFormat.indexedChunkBytes || end == k) {
                bytes += records[end].bytes.count + 12
                end += 1
            }
            _Varint.write(UInt64(end - k), to: &out)
            for j in k..<end {
                _Varint.writeSigned(records[j].sequence, to: &out)
                _Varint.write(UInt64(bitPattern: records[j].version), to: &out)
                _Varint.write(UInt64(records[j].bytes.count), to: &out)
                out.append(contentsOf: records[j].bytes)
            }
            try _JournalFormat.endFrame(.snapshotChunk, payloadStart: start, in: &out)
            chunks.append((frame, end - k))
            k = end
        }
        // The identity index: by hash, then ordinal.
        let byHash = (0..<records.count).sorted { (a: Int, b: Int) -> Bool in
            let ha = hashes[a], hb = hashes[b]
            return ha != hb ? ha < hb : a < b
        }
        let identityColumn = try writeColumn(count: records.count, width: 12 + identityWidth) { i, out in
            let ordinal = byHash[i]
            withUnsafeBytes(of: hashes[ordinal].littleEndian) { out.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt32(ordinal).littleEndian) { out.append(contentsOf: $0) }
            out.append(contentsOf: identities[ordinal * identityWidth..<(ordinal + 1) * identityWidth])
        }
        var indexColumns: [Int] = []
        for index in indexes {
            indexColumns.append(try writeColumn(count: records.count, width: 4 + identityWidth) { i, out in
                let ordinal = Int(index.order[i])
                withUnsafeBytes(of: UInt32(ordinal).littleEndian) { out.append(contentsOf: $0) }
                out.append(contentsOf: identities[ordinal * identityWidth..<(ordinal + 1) * identityWidth])
            })
        }
        let directory = out.count
        let start = _JournalFormat.beginFrame(&out)
        _Varint.write(UInt64(records.count), to: &out)
        _Varint.write(UInt64(chunks.count), to: &out)
        for chunk in chunks {
            _Varint.write(UInt64(chunk.offset), to: &out)
            _Varint.write(UInt64(chunk.count), to: &out)
        }
        _Varint.write(UInt64(identityWidth), to: &out)
        _Varint.write(UInt64(identityColumn), to: &out)
        _Varint.write(UInt64(indexes.count), to: &out)
        for (index, column) in zip(indexes, indexColumns) {
            _Varint.write(UInt64(index.keys.count), to: &out)
            for key in index.keys { Self.write(key, to: &out) }
            _Varint.write(UInt64(column), to: &out)
        }
        for index in indexes {
            for kinds in index.kinds { _Varint.write(kinds.rawValue, to: &out) }
        }
        try _JournalFormat.endFrame(.directory, payloadStart: start, in: &out)
        catalog.append((name, directory))
    }

    /// Writes a column of `count` entries of `width` bytes in blocks; returns where it starts.
    private mutating func writeColumn(count: Int, width: Int, _ entry: (Int, inout [UInt8]) -> Void) throws(StoreError) -> Int {
        let layout = _ColumnLayout(start: out.count, count: count, width: width)
        for b in 0..<layout.blockCount {
            let start = _JournalFormat.beginFrame(&out)
            for i in b * layout.perBlock..<Swift.min(count, (b + 1) * layout.perBlock) { entry(i, &out) }
            try _JournalFormat.endFrame(.block, payloadStart: start, in: &out)
        }
        return layout.start
    }

    static func write(_ string: String, to out: inout [UInt8]) {
        let utf8 = Array(string.utf8)
        _Varint.write(UInt64(utf8.count), to: &out)
        out.append(contentsOf: utf8)
    }

    /// The snapshot, with its catalog and head.
    consuming func finish(version: Int64, nextSequence: Int64) throws(StoreError) -> [UInt8] {
        let catalogOffset = out.count
        let start = _JournalFormat.beginFrame(&out)
        _Varint.write(UInt64(catalog.count), to: &out)
        for entry in catalog {
            Self.write(entry.name, to: &out)
            _Varint.write(UInt64(entry.directory), to: &out)
        }
        try _JournalFormat.endFrame(.catalog, payloadStart: start, in: &out)
        let end = out.count
        var head: [UInt8] = []
        let headStart = _JournalFormat.beginFrame(&head)
        for value in [UInt64(bitPattern: version), UInt64(bitPattern: nextSequence), UInt64(catalogOffset), UInt64(end)] {
            _Varint.writeFixed(value, to: &head)
        }
        try _JournalFormat.endFrame(.snapshotHead, payloadStart: headStart, in: &head)
        out.replaceSubrange(_JournalFormat.headerSize..<_JournalFormat.headerSize + head.count, with: head)
        return out
    }
}

extension _JournalReader {
    /// The header's format version, when the header is whole and checks.
    func formatVersion() -> UInt32? {
        guard bytes.count >= _JournalFormat.headerSize, bytes[0..<8].elementsEqual(_JournalFormat.magic),
            _CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<28])) == _JournalFormat.readUInt32(bytes, 28)
        else { return nil }
        return _JournalFormat.readUInt32(bytes, 8)
    }

    /// The header and head of a file of format 2, checked.
    func indexedHead() throws(StoreError) -> (storeID: UInt64, flags: UInt32, version: Int64, nextSequence: Int64, catalog: Int, end: Int) {
        guard bytes.count >= _JournalFormat.headerSize else { throw damaged(0, "the file header is cut short") }
        guard bytes[0..<8].elementsEqual(_JournalFormat.magic) else {
            throw .corrupt(path: path, reason: "it is not a store file (it does not start with \"HTSTORE\")")
        }
        guard _CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<28])) == _JournalFormat.readUInt32(bytes, 28) else {
            throw damaged(0, "the file header fails its checksum")
        }
        guard _JournalFormat.readUInt32(bytes, 8) == _JournalFormat.indexedFormatVersion else { throw damaged(8, "not a file of format 2") }
        let flags = _JournalFormat.readUInt32(bytes, 12)
        guard flags & ~_JournalFormat.taggedFlag == 0 else {
            throw .corrupt(path: path, reason: "its header has flags \(flags), which this version does not know")
        }
        var id: UInt64 = 0
        for k in 0..<8 { id |= UInt64(bytes[16 + k]) << (8 * UInt64(k)) }
        let p = _JournalFormat.headerSize
        guard case .frame(.snapshotHead, let payload) = try frame(at: p), payload.count == 32 else {
            throw damaged(p, "the snapshot's head is missing or cut short")
        }
        func fixed(_ k: Int) -> UInt64 {
            var value: UInt64 = 0
            for j in 0..<8 { value |= UInt64(bytes[payload.lowerBound + 8 * k + j]) << (8 * UInt64(j)) }
            return value
        }
        let catalog = fixed(2), end = fixed(3)
        guard end >= UInt64(_JournalFormat.indexedHeadSize + _JournalFormat.headerSize), catalog < end, end <= UInt64(Int.max) else {
            throw damaged(p, "the snapshot's head gives offsets \(catalog) and \(end)")
        }
        return (id, flags, Int64(bitPattern: fixed(0)), Int64(bitPattern: fixed(1)), Int(catalog), Int(end))
    }
}
