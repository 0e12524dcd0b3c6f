import Foundation
import Records

/// One entity's records in a snapshot a persistence of your own serves
/// (``StoreSnapshotEntity``), asked for as the store needs them: a chunk of
/// ordinals at a time for a pass, one record for a look-up, an index's
/// entries a block at a time. Records reach the store in its binary form,
/// as a file's snapshot hands them, so that everything above reads both
/// alike. What the persistence answers is checked: as many records and
/// entries as asked for, ordinals in range, the record found by an identity
/// holding it. Used under the store's lock.
final class _ServedEntity<R: Record & Codable>: _BaseEntity, @unchecked Sendable where R.ID: Codable {
    let source: any StoreSnapshotEntity
    /// The entity's name, for what is reported.
    let name: String
    /// The bytes of the record ``record(_:)`` read last.
    private var held: UnsafeMutableRawBufferPointer

    /// Ordinals a chunk holds: what a pass asks for at once.
    static var chunkSize: Int { 256 }
    /// Entries of an index asked for at once.
    static var blockSize: Int { 1024 }

    /// Reads the snapshot's count and indexes.
    ///
    /// - Throws: ``StoreError/corrupt(path:reason:)`` for a count out of range.
    init(_ source: any StoreSnapshotEntity, name: String) throws(StoreError) {
        self.source = source
        self.name = name
        let count = source.count
        let indexes = source.indexes
        guard count >= 0, count <= Int(UInt32.max) else {
            throw .corrupt(path: "the persistence", reason: "its snapshot of \(name) holds \(count) records; a snapshot holds 0 to \(UInt32.max)")
        }
        var kinds: [[_KeyKinds]?] = []
        for (k, keys) in indexes.enumerated() {
            let ofKeys = source.keyKinds(ofIndex: k)
            guard ofKeys == nil || ofKeys?.count == keys.count else {
                throw .corrupt(path: "the persistence", reason: "its snapshot of \(name) gives the kinds of \(ofKeys?.count ?? 0) keys for index \(keys)")
            }
            kinds.append(ofKeys?.map(\.kinds))
        }
        held = .allocate(byteCount: 64, alignment: 8)
        super.init(count: count, chunkCount: (count + Self.chunkSize - 1) / Self.chunkSize, identityWidth: 0, indexKeys: indexes, keyKinds: kinds)
    }

    deinit { held.deallocate() }

    override func damaged(_ ordinal: Int, _ reason: String) -> StoreError {
        .corrupt(path: "the persistence", reason: "its snapshot of \(name): \(reason)")
    }

    // MARK: Records

    /// Records `ordinals`, as many as asked for.
    private func read(_ ordinals: Range<Int>) throws(StoreError) -> [StoredRecord<R>] {
        let records = try source.records(ordinals, as: R.self)
        guard records.count == ordinals.count else {
            throw damaged(ordinals.lowerBound, "asked for records \(ordinals.lowerBound)..<\(ordinals.upperBound), it returned \(records.count)")
        }
        return records
    }

    private func encode(_ record: R, into bytes: inout [UInt8]) throws(StoreError) {
        do { try _BinaryRecordEncoder.encode(record, into: &bytes) } catch { throw .unencodable("\(error)") }
    }

    override func chunk(of i: Int) -> Int { i / Self.chunkSize }

    override func forEachRecord(inChunk c: Int, from: Int, _ body: (Int, Int64, Int64, UnsafeRawBufferPointer) throws(StoreError) -> Bool) throws(StoreError) {
        let first = Swift.max(from, c * Self.chunkSize), end = Swift.min(count, (c + 1) * Self.chunkSize)
        guard first < end else { return }
        let records = try read(first..<end)
        var bytes: [UInt8] = [], ends: [Int] = []
        ends.reserveCapacity(records.count)
        for stored in records {
            try encode(stored.record, into: &bytes)
            ends.append(bytes.count)
        }
        try _withBytes(bytes) { raw throws(StoreError) in
            var start = 0
            for k in records.indices {
                guard try body(first + k, records[k].sequence, records[k].version, UnsafeRawBufferPointer(rebasing: raw[start..<ends[k]])) else { return }
                start = ends[k]
            }
        }
    }

    override func record(_ i: Int) throws(StoreError) -> (sequence: Int64, version: Int64, bytes: UnsafeRawBufferPointer) {
        let stored = try read(i..<i + 1)[0]
        var bytes: [UInt8] = []
        try encode(stored.record, into: &bytes)
        if bytes.count > held.count {
            held.deallocate()
            held = .allocate(byteCount: bytes.count, alignment: 8)
        }
        held.copyBytes(from: bytes)
        return (stored.sequence, stored.version, UnsafeRawBufferPointer(rebasing: held[0..<bytes.count]))
    }

    // MARK: Identities and indexes

    override package var findsIdentities: Bool { true }

    override func servedOrdinal<ID: Hashable>(of id: ID) throws(StoreError) -> Int? {
        guard let id = id as? R.ID, let ordinal = try source.ordinal(of: id, as: R.self) else { return nil }
        guard ordinal >= 0, ordinal < count else { throw damaged(0, "the identity \(id) is at record \(ordinal) of \(count)") }
        return ordinal
    }

    /// Entries `positions` of index `k`, as many as asked for, each ordinal in range.
    private func entries(ofIndex k: Int, _ positions: Range<Int>) throws(StoreError) -> [StoreIndexEntry<R.ID>] {
        let entries = try source.indexEntries(ofIndex: k, positions, as: R.self)
        guard entries.count == positions.count else {
            throw damaged(0, "asked for entries \(positions.lowerBound)..<\(positions.upperBound) of index \(indexKeys[k]), it returned \(entries.count)")
        }
        for entry in entries where entry.ordinal < 0 || entry.ordinal >= count {
            throw damaged(0, "index \(indexKeys[k]) names record \(entry.ordinal) of \(count)")
        }
        return entries
    }

    override func forEachBlock(ofIndex k: Int, in positions: Range<Int>? = nil, _ body: (IndexBlock) throws(StoreError) -> Bool) throws(StoreError) {
        let positions = positions.map { $0.clamped(to: 0..<count) } ?? 0..<count
        var first = positions.lowerBound
        let ordinals = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: Self.blockSize)
        let ids = UnsafeMutableBufferPointer<R.ID>.allocate(capacity: Self.blockSize)
        defer {
            ordinals.deallocate()
            ids.deallocate()
        }
        while first < positions.upperBound {
            let entries = try entries(ofIndex: k, first..<Swift.min(positions.upperBound, first + Self.blockSize))
            for (j, entry) in entries.enumerated() {
                ordinals[j] = UInt32(entry.ordinal).littleEndian
                ids.initializeElement(at: j, to: entry.id)
            }
            defer { _ = UnsafeMutableBufferPointer(rebasing: ids[0..<entries.count]).deinitialize() }
            let block = IndexBlock(start: UnsafeRawPointer(ordinals.baseAddress!), count: entries.count, width: 4, identities: UnsafeRawPointer(ids.baseAddress!))
            guard try body(block) else { return }
            first += entries.count
        }
    }

    override func indexOrdinal(_ k: Int, _ i: Int) throws(StoreError) -> Int {
        try entries(ofIndex: k, i..<i + 1)[0].ordinal
    }
}
