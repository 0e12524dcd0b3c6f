import Foundation
import Records

/// One entity's records in the store, erased: what the store's lock guards
/// for each entity of the model. The typed table is ``_EntityTable``.
@usableFromInline
package class _AnyEntityTable: @unchecked Sendable {
    /// The entity's index in the model.
    @usableFromInline let entity: Int

    init(entity: Int) { self.entity = entity }

    @usableFromInline package var count: Int { 0 }
    func contains(_ id: AnyHashable) -> Bool { false }
    /// The record with an identity, erased.
    func erasedRecord(_ id: AnyHashable) -> (any Record & Codable)? { nil }
    /// The record with its version and first-insertion order, erased.
    func erasedLookup(_ id: AnyHashable) -> (record: any Record & Codable, version: Int64, sequence: Int64)? { nil }
    /// Calls `body` with every record and its sequence.
    func forEachErased(_ body: (any Record & Codable, Int64) throws -> Void) throws {}
    /// Applies the entity's part of a save: deletes, then inserts and updates.
    func apply(_ part: _AnyEntityChangeSet) -> _AnyEntityPart { _AnyEntityPart(entity: entity) }
    /// Every record with its sequence and version, in the order they were first inserted.
    func stored() throws(StoreError) -> _AnyEntityChangeSet { _AnyEntityChangeSet(entity: entity) }
    /// Loads records read from a persistence (before any save).
    ///
    /// - Throws: ``StoreError/corrupt(path:reason:)`` for an identity that occurs twice.
    func load(_ part: _AnyEntityChangeSet) throws(StoreError) {}
    /// Reads its records from a snapshot of format 2 from now on (before
    /// any save): the entity's part of it, or none.
    func attach(_ base: _BaseEntity?) {}
    /// The parts of a save that replaced this table with `fresh`: what was
    /// inserted, updated (another version) and deleted.
    func difference(to fresh: _AnyEntityTable) throws(StoreError) -> _AnyEntityPart { _AnyEntityPart(entity: entity) }
    /// Writes the entity's records and indexes into a snapshot of format 2.
    func write(into writer: inout _SnapshotWriter, name: String, indexes: [[String]]) throws(StoreError) {}
    /// The first damage found in the file while reading a record (a record
    /// that could not be read is then missing from what was read).
    var damage: StoreError? { nil }
    /// The largest sequence held (0 for none).
    var maxSequence: Int64 { 0 }
    /// How many records of the file's snapshot the cache holds.
    var cachedRecordCount: Int { 0 }
    func _checkInvariants(version: Int64, nextSequence: Int64) {}
    /// The records a save wrote are where the index says (O(*k*)).
    func _checkInvariants(of part: _AnyEntityChangeSet, version: Int64, nextSequence: Int64) {}
}

/// One entity's records in the store: those read from the file's snapshot
/// (format 2), read as they are needed — a bounded cache keeps the recent
/// ones — and the others, in memory: those saved since the snapshot, or
/// every record of a store whose persistence loads everything.
///
/// The records in memory are dense, with their first-insertion order and
/// version, an index by identity, and the versions recent saves replaced.
/// A snapshot's record that a save updated or deleted is *shadowed*: the
/// table answers with the record in memory, or with none.
@usableFromInline
package final class _EntityTable<R: Record & Codable>: _AnyEntityTable, @unchecked Sendable {
    /// The records in memory, densely; a deleted record's place is taken by the last one.
    @usableFromInline package var records: [R] = []
    /// For every record, the order it was first inserted in (stable, never reused).
    @usableFromInline package var sequences: [Int64] = []
    /// For every record, the version of the save that last wrote it.
    @usableFromInline var versions = _Versions()
    /// Identity to position in `records`.
    @usableFromInline var index = _RecordIndex()
    /// The versions the most recent saves replaced: what a context's update
    /// is based on when it read a record that another save then replaced.
    var replaced = _ReplacedVersions<R>()
    /// The records the most recent saves deleted, with their last versions
    /// (what a controller placed them by, until it learns of the delete).
    var deletedVersions = _ReplacedVersions<R>()

    /// The snapshot's records of the entity (format 2), read as needed.
    package var base: _BaseEntity?
    /// The snapshot's records a save updated or deleted since.
    package var shadowed = _Bits(count: 0)
    package var shadowedCount = 0
    /// The snapshot's records read most recently.
    var cache = _RecordCache<R>(capacity: 4096)
    /// How identities are kept in the file.
    let layout = _IdentityLayout<R.ID>.layout
    /// The first damage met reading the snapshot.
    var firstDamage: StoreError?

    override var damage: StoreError? { firstDamage }

    /// The position of the record with an identity among those in memory, or nil.
    ///
    /// - Complexity: O(1) on average.
    @inlinable
    package func position(of id: R.ID) -> Int? { index.position(of: id, in: records) }

    /// A record with its version and first-insertion order: in memory, or
    /// read from the snapshot.
    ///
    /// - Throws: ``StoreError/damaged(path:offset:reason:)`` when the record
    ///   cannot be read from the file.
    /// - Complexity: O(1) on average in memory; from the file, O(log log *n*)
    ///   index entries on average and the record's chunk (checked the first time).
    func find(_ id: R.ID) throws(StoreError) -> (record: R, version: Int64, sequence: Int64)? {
        if let k = position(of: id) { return (records[k], versions[k], sequences[k]) }
        guard let ordinal = try baseOrdinal(of: id), !shadowed[ordinal] else { return nil }
        return try baseRecord(ordinal)
    }

    /// `find(_:)`, the damage kept (``damage``) rather than thrown: nil then.
    package func lookup(_ id: R.ID) -> (record: R, version: Int64, sequence: Int64)? {
        if let k = position(of: id) { return (records[k], versions[k], sequences[k]) }
        guard base != nil else { return nil }
        return noting { () throws(StoreError) in try find(id) } ?? nil
    }

    /// The record with an identity as last saved, for a pass over many:
    /// from memory, or read from the snapshot without taking a place in the
    /// cache (the records a window reads stay in it); nil for none, or for
    /// one the file's damage hides (the damage kept: ``damage``).
    package func recordForAPass(_ id: R.ID) -> R? {
        if let k = position(of: id) { return records[k] }
        guard base != nil else { return nil }
        return noting { () throws(StoreError) -> R? in
            guard let ordinal = try baseOrdinal(of: id), !shadowed[ordinal] else { return nil }
            if let cached = cache[ordinal] { return cached.record }
            return try baseRecordForAPass(ordinal)
        } ?? nil
    }

    /// Runs `read`; its damage is kept, and nil returned.
    func noting<T>(_ read: () throws(StoreError) -> T) -> T? {
        do throws(StoreError) {
            return try read()
        } catch {
            if firstDamage == nil { firstDamage = error }
            return nil
        }
    }

    /// The ordinal of a snapshot record with an identity (shadowed or not).
    func baseOrdinal(of id: R.ID) throws(StoreError) -> Int? {
        guard let base else { return nil }
        if base.findsIdentities {
            // Served: the persistence finds it; the record must hold it
            // (read into the cache, where the caller reads it next).
            guard let ordinal = try base.servedOrdinal(of: id) else { return nil }
            let found = try baseRecord(ordinal).record.id
            guard found == id else { throw base.damaged(ordinal, "the identity \(id) leads to record \(ordinal), whose identity is \(found)") }
            return ordinal
        }
        let hash = try layout.stableHash(id)
        for candidate in try base.ordinals(withHash: hash) {
            if base.identityWidth > 0 && base.identityWidth == layout.width {
                if layout.read(candidate.identity) == id { return candidate.ordinal }
            } else if try baseRecord(candidate.ordinal).record.id == id {
                return candidate.ordinal
            }
        }
        return nil
    }

    /// Snapshot record `ordinal`, decoded (or from the cache).
    package func baseRecord(_ ordinal: Int) throws(StoreError) -> (record: R, version: Int64, sequence: Int64) {
        if let cached = cache[ordinal] { return cached }
        guard let base else { throw .corrupt(path: "the store", reason: "no snapshot to read record \(ordinal) from") }
        let entry = try base.record(ordinal)
        let found = (try decode(entry.bytes, ordinal: ordinal), entry.version, entry.sequence)
        cache[ordinal] = found
        return found
    }

    /// Snapshot record `ordinal`, decoded without taking a place in the
    /// cache (the records a window reads stay in it) and without looking
    /// there first (a pass that may meet a cached record calls
    /// ``recordForAPass(_:)``).
    package func baseRecordForAPass(_ ordinal: Int) throws(StoreError) -> R {
        guard let base else { throw .corrupt(path: "the store", reason: "no snapshot to read record \(ordinal) from") }
        return try decode(try base.record(ordinal).bytes, ordinal: ordinal)
    }

    /// A snapshot record's encoding, decoded.
    package func decode(_ bytes: UnsafeRawBufferPointer, ordinal: Int) throws(StoreError) -> R {
        do {
            return try _BinaryRecordDecoder(bytes: bytes).decode(R.self, at: 0)
        } catch {
            throw base?.damaged(ordinal, "record \(ordinal) cannot be decoded as \(R.self): \(_describe(error))")
                ?? .corrupt(path: "the store", reason: "\(error)")
        }
    }

    /// The identity of snapshot record `ordinal` whose kept bytes are at
    /// `identity`: read from them, or from the record.
    package func baseIdentity(_ ordinal: Int, _ identity: UnsafeRawPointer) throws(StoreError) -> R.ID {
        if let base, base.identityWidth > 0, base.identityWidth == layout.width { return layout.read(identity) }
        return try baseRecord(ordinal).record.id
    }

    /// How the snapshot's identities are read from the bytes kept in its
    /// columns; nil when they are not kept (they are read from the records:
    /// ``baseIdentity(_:_:)``).
    package var keptIdentityReader: ((UnsafeRawPointer) -> R.ID)? {
        guard let base, base.identityWidth > 0, base.identityWidth == layout.width else { return nil }
        return layout.reader
    }

    @usableFromInline override package var count: Int { records.count + (base?.count ?? 0) - shadowedCount }

    override func contains(_ id: AnyHashable) -> Bool {
        guard let id = id.base as? R.ID else { return false }
        return lookup(id) != nil
    }

    override func erasedRecord(_ id: AnyHashable) -> (any Record & Codable)? {
        guard let id = id.base as? R.ID else { return nil }
        return lookup(id)?.record
    }

    override func erasedLookup(_ id: AnyHashable) -> (record: any Record & Codable, version: Int64, sequence: Int64)? {
        guard let id = id.base as? R.ID, let found = lookup(id) else { return nil }
        return found
    }

    /// Calls `body` with every record, its sequence and version: those in
    /// memory, then the snapshot's (decoded one by one, not cached).
    ///
    /// - Throws: what `body` throws, or ``StoreError`` (as `E`, by `damaged`)
    ///   when the file is damaged.
    @inlinable
    package func forEachRecord<E: Error>(
        damaged: (StoreError) -> E, _ body: (borrowing R, Int64, Int64) throws(E) -> Void
    ) throws(E) {
        // Inlined where the record type is known: the loop over the records
        // in memory calls `body` directly (a fetch's scan of a store in memory).
        let sequences = sequences, versions = versions
        try records.withUnsafeBufferPointer { records throws(E) in
            for k in records.indices { try body(records[k], sequences[k], versions[k]) }
        }
        try forEachBaseRecord(damaged: damaged) { _, record, sequence, version throws(E) in try body(record, sequence, version) }
    }

    /// Calls `body` with every snapshot record not shadowed, in ordinal order.
    @usableFromInline
    func forEachBaseRecord<E: Error>(
        damaged: (StoreError) -> E, _ body: (Int, borrowing R, Int64, Int64) throws(E) -> Void
    ) throws(E) {
        try forEachBaseRecord(inChunks: 0..<(base?.chunkCount ?? 0), damaged: damaged, body)
    }

    /// Calls `body` with every snapshot record not shadowed of the chunks
    /// in `chunks`, in ordinal order.
    package func forEachBaseRecord<E: Error>(
        inChunks chunks: Range<Int>, damaged: (StoreError) -> E, _ body: (Int, borrowing R, Int64, Int64) throws(E) -> Void
    ) throws(E) {
        guard let base else { return }
        var failure: E?
        for c in chunks.clamped(to: 0..<base.chunkCount) {
            do throws(StoreError) {
                try base.forEachRecord(inChunk: c, from: 0) { ordinal, sequence, version, bytes throws(StoreError) in
                    if shadowed[ordinal] { return true }
                    let record: R
                    if let cached = cache[ordinal] { record = cached.record } else { record = try decode(bytes, ordinal: ordinal) }
                    do throws(E) {
                        try body(ordinal, record, sequence, version)
                    } catch {
                        failure = error
                        return false
                    }
                    return true
                }
            } catch {
                if firstDamage == nil { firstDamage = error }
                throw damaged(error)
            }
            if let failure { throw failure }
        }
    }

    override func forEachErased(_ body: (any Record & Codable, Int64) throws -> Void) throws {
        try forEachRecord(damaged: { $0 as any Error }) { record, sequence, _ in try body(copy record, sequence) }
    }

    override var maxSequence: Int64 { sequences.max() ?? 0 }

    override var cachedRecordCount: Int { cache.count }

    override func stored() throws(StoreError) -> _AnyEntityChangeSet {
        var saved: [StoredRecord<R>] = []
        saved.reserveCapacity(count)
        try forEachRecord(damaged: { $0 }) { (record: borrowing R, sequence: Int64, version: Int64) throws(StoreError) in
            saved.append(StoredRecord(record: copy record, sequence: sequence, version: version))
        }
        saved.sort { $0.sequence < $1.sequence }
        return _EntityChangeSet<R>(entity: entity, saved: saved)
    }

    override func attach(_ base: _BaseEntity?) {
        self.base = base
        shadowed = _Bits(count: base?.count ?? 0)
        shadowedCount = 0
        cache.removeAll()
    }

    override func load(_ part: _AnyEntityChangeSet) throws(StoreError) {
        let saved = part.typed(R.self).saved
        records.reserveCapacity(records.count + saved.count)
        sequences.reserveCapacity(sequences.count + saved.count)
        versions.reserveCapacity(versions.count + saved.count)
        index.reserveCapacity(records.count + saved.count)
        for stored in saved {
            guard index.insert(stored.record.id, at: records.count, in: records) == nil else {
                throw .corrupt(path: "the persistence", reason: "the identity \(stored.record.id) occurs twice")
            }
            records.append(stored.record)
            sequences.append(stored.sequence)
            versions.append(stored.version)
        }
    }

    /// Makes an empty table hold `records`, saved once at `version` in this
    /// order, their sequences from `firstSequence`.
    ///
    /// - Throws: ``StoreError/duplicateIdentity(_:)``.
    /// - Complexity: O(*n*).
    @inlinable
    @_specialize(where R == DynamicObject)   // the tool's records: identities read without copying records
    func load(_ records: [R], version: Int64, firstSequence: Int64) throws(StoreError) {
        var index = _RecordIndex()
        index.reserveCapacity(records.count)
        // Through the buffer: reading an identity does not copy the record.
        let duplicate = records.withUnsafeBufferPointer { buffer -> R.ID? in
            for k in buffer.indices where index.insert(buffer[k].id, at: k, in: records) != nil { return buffer[k].id }
            return nil
        }
        if let duplicate { throw .duplicateIdentity("\(duplicate)") }
        self.index = index
        self.records = records
        sequences = (0..<records.count).map { Int64($0) + firstSequence }
        versions = _Versions(repeating: version, count: records.count)
    }

    override func apply(_ part: _AnyEntityChangeSet) -> _AnyEntityPart {
        let changes = part.typed(R.self)
        let applied = _EntityPart<R>(entity: entity)
        for record in changes.deleted {
            if let removed = remove(record.id) { applied.deleted.append(removed) }
        }
        for stored in changes.saved {
            if let k = position(of: stored.record.id) {
                replaced.append(stored.record.id, version: versions[k], record: records[k])
                records[k] = stored.record
                versions[k] = stored.version
                applied.updated.append(stored.record)
            } else if let (_, old) = shadowBase(stored.record.id) {
                replaced.append(stored.record.id, version: old.version, record: old.record)
                append(stored)
                applied.updated.append(stored.record)
            } else {
                append(stored)
                applied.inserted.append(stored.record)
            }
        }
        return applied
    }

    /// Shadows the snapshot's record with an identity, if it has one not
    /// shadowed yet: returns its ordinal and the record (nil when none, or
    /// when it cannot be read: the damage is kept).
    func shadowBase(_ id: R.ID) -> (Int, (record: R, version: Int64, sequence: Int64))? {
        guard base != nil else { return nil }
        return noting { () throws(StoreError) -> (Int, (record: R, version: Int64, sequence: Int64))? in
            guard let ordinal = try baseOrdinal(of: id), !shadowed[ordinal] else { return nil }
            let old = try baseRecord(ordinal)
            shadowed[ordinal] = true
            shadowedCount += 1
            cache[ordinal] = nil
            return (ordinal, old)
        } ?? nil
    }

    /// Compares the two tables in one pass over each, in their own order
    /// (a snapshot's a chunk at a time), not a look-up by identity per
    /// record: a served snapshot would answer each with a query.
    ///
    /// - Complexity: O(*n* + *m*) records read once each, and a table of
    ///   this one's *n* identities.
    override func difference(to fresh: _AnyEntityTable) throws(StoreError) -> _AnyEntityPart {
        let fresh = unsafeDowncast(fresh, to: _EntityTable<R>.self)
        let part = _EntityPart<R>(entity: entity)
        // This table's records: identity to (order, version), and which `fresh` holds.
        var ids: [R.ID] = []
        var known: [R.ID: (order: Int, version: Int64)] = [:]
        ids.reserveCapacity(count)
        known.reserveCapacity(count)
        try forEachRecord(damaged: { $0 }) { record, _, version throws(StoreError) in
            known[record.id] = (ids.count, version)
            ids.append(record.id)
        }
        var kept = _Bits(count: ids.count)
        try fresh.forEachRecord(damaged: { $0 }) { record, _, version throws(StoreError) in
            if let old = known[record.id] {
                kept[old.order] = true
                if old.version != version { part.updated.append(copy record) }
            } else {
                part.inserted.append(copy record)
            }
        }
        // The deleted, in this table's order, read again by identity (few, usually).
        for (k, id) in ids.enumerated() where !kept[k] {
            if let old = try find(id) { part.deleted.append(old.record) }
        }
        return part
    }

    /// Removes a record; returns it.
    func remove(_ id: R.ID) -> R? {
        guard let k = index.remove(id, in: records) else {
            guard let (_, old) = shadowBase(id) else { return nil }
            replaced.forget(id)
            deletedVersions.append(id, version: old.version, record: old.record, sequence: old.sequence)
            return old.record
        }
        replaced.forget(id)
        let removed = records[k]
        deletedVersions.append(id, version: versions[k], record: removed, sequence: sequences[k])
        let last = records.count - 1
        if k != last {
            index.move(records[last].id, from: last, to: k, in: records)
            records[k] = records[last]
            sequences[k] = sequences[last]
            versions[k] = versions[last]
        }
        records.removeLast()
        sequences.removeLast()
        versions.removeLast()
        return removed
    }

    func append(_ stored: StoredRecord<R>) {
        _ = index.insert(stored.record.id, at: records.count, in: records)
        records.append(stored.record)
        sequences.append(stored.sequence)
        versions.append(stored.version)
    }

    /// A record's newest version that `accepts` takes — the current one, or
    /// one a recent save replaced — with the current version's
    /// first-insertion order; nil when there is no such record, and a nil
    /// version when no version accepted is known any more.
    func lookup(_ id: R.ID, newestOf accepts: (Int64) -> Bool) -> (accepted: (record: R, version: Int64)?, sequence: Int64)? {
        guard let current = lookup(id) else { return nil }
        if accepts(current.version) { return ((current.record, current.version), current.sequence) }
        return (replaced.newest(of: id, where: accepts).map { ($0.record, $0.version) }, current.sequence)
    }

    /// A record as it was at a version, with its sequence: the current one
    /// when it is not newer, else one a recent save replaced or deleted; nil
    /// when the record did not exist then, or that version is no longer known.
    package func record(_ id: R.ID, asOf version: Int64) -> (record: R, sequence: Int64)? {
        if let current = lookup(id) {
            if current.version <= version { return (current.record, current.sequence) }
            return replaced.newest(of: id, where: { $0 <= version }).map { ($0.record, current.sequence) }
        }
        return deletedVersions.newest(of: id, where: { $0 <= version }).map { ($0.record, $0.sequence) }
    }

    // MARK: Writing a snapshot

    override func write(into writer: inout _SnapshotWriter, name: String, indexes: [[String]]) throws(StoreError) {
        var all: [StoredRecord<R>] = []
        all.reserveCapacity(count)
        try forEachRecord(damaged: { $0 }) { (record: borrowing R, sequence: Int64, version: Int64) throws(StoreError) in
            all.append(StoredRecord(record: copy record, sequence: sequence, version: version))
        }
        all.sort { $0.sequence < $1.sequence }
        var encoded: [(sequence: Int64, version: Int64, bytes: [UInt8])] = []
        encoded.reserveCapacity(all.count)
        var identities: [UInt8] = []
        identities.reserveCapacity(all.count * layout.width)
        var hashes: [UInt64] = []
        hashes.reserveCapacity(all.count)
        for stored in all {
            var bytes: [UInt8] = []
            do { try _BinaryRecordEncoder.encode(stored.record, into: &bytes) } catch { throw .unencodable("\(error)") }
            encoded.append((stored.sequence, stored.version, bytes))
            layout.write(stored.record.id, into: &identities)
            hashes.append(try layout.stableHash(stored.record.id))
        }
        var orders: [(keys: [String], order: [Int32], kinds: [_KeyKinds])] = []
        for keys in indexes {
            let index = try EntityDescription.index(keys, of: all)
            orders.append((keys, index.order, index.kinds))
        }
        try writer.addEntity(name: name, records: encoded, identityWidth: layout.width, identities: identities, hashes: hashes, indexes: orders)
    }

    // MARK: Invariants

    override func _checkInvariants(version: Int64, nextSequence: Int64) {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        precondition(sequences.count == records.count && versions.count == records.count,
                     "\(records.count) records, \(sequences.count) sequences, \(versions.count) versions")
        precondition(index.count == records.count, "the index holds \(index.count) identities for \(records.count) records")
        for k in records.indices {
            precondition(position(of: records[k].id) == k, "the record at \(k) (identity \(records[k].id)) is at \(String(describing: position(of: records[k].id))) by identity")
        }
        precondition(shadowedCount <= base?.count ?? 0, "\(shadowedCount) shadowed of \(base?.count ?? 0)")
        _checkInvariants(of: records.lazy.map { $0.id }, version: version, nextSequence: nextSequence)
        #endif
    }

    override func _checkInvariants(of part: _AnyEntityChangeSet, version: Int64, nextSequence: Int64) {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        _checkInvariants(of: part.typed(R.self).saved.lazy.map { $0.record.id }, version: version, nextSequence: nextSequence)
        #endif
    }

    func _checkInvariants(of ids: some Sequence<R.ID>, version: Int64, nextSequence: Int64) {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        for id in ids {
            guard let k = position(of: id) else { continue }
            precondition(k >= 0 && k < records.count && records[k].id == id, "identity \(id) leads to position \(k)")
            precondition(sequences[k] < nextSequence, "identity \(id) has sequence \(sequences[k]), the next is \(nextSequence)")
            precondition(versions[k] <= version, "identity \(id) has version \(versions[k]), the store \(version)")
        }
        #endif
    }
}

/// The snapshot's records read most recently, by ordinal: at most
/// `capacity`, in two generations — a lookup finds a record in either, an
/// insertion goes into the newer, and when the newer holds half the
/// capacity the older is dropped and the newer becomes it. O(1) a read.
struct _RecordCache<R> {
    let capacity: Int
    private var newer: [Int: (record: R, version: Int64, sequence: Int64)] = [:]
    private var older: [Int: (record: R, version: Int64, sequence: Int64)] = [:]

    init(capacity: Int) { self.capacity = Swift.max(2, capacity) }

    var count: Int { newer.count + older.count }

    subscript(ordinal: Int) -> (record: R, version: Int64, sequence: Int64)? {
        get { newer[ordinal] ?? older[ordinal] }
        set {
            guard let newValue else {
                newer[ordinal] = nil
                older[ordinal] = nil
                return
            }
            newer[ordinal] = newValue
            if newer.count >= capacity / 2 {
                older = newer
                newer = [:]
            }
        }
    }

    mutating func removeAll() {
        newer = [:]
        older = [:]
    }
}

/// The versions of records that the most recent saves replaced, with the
/// record each version held — the most recent ``capacity`` of them, per entity.
///
/// A context that read a record and did not merge the save that replaced it
/// made its update on the version it read: this is where the store finds that
/// version again, to merge property by property from it (see
/// `ObjectContext.base(of:)`). Older replaced versions are forgotten; a merge
/// that needs one says so (``PropertyMergeFallback/Reason/readVersionUnknown``).
struct _ReplacedVersions<R: Record> {
    /// How many replaced versions are kept, over all records.
    static var capacity: Int { 4096 }

    /// Each record's replaced versions, oldest first, with its sequence.
    private var versions: [R.ID: [(version: Int64, record: R, sequence: Int64)]] = [:]
    /// The identities in the order their versions were replaced: a ring of
    /// `capacity` slots, `oldest` the next to be reused.
    private var order: [R.ID] = []
    private var oldest = 0

    /// Remembers that a save replaced `record`, at `version`.
    ///
    /// - Complexity: amortized O(1); O(*k*) when it forgets the oldest of *k*
    ///   kept versions of one record.
    mutating func append(_ id: R.ID, version: Int64, record: R, sequence: Int64 = 0) {
        if order.count < Self.capacity {
            order.append(id)
        } else {
            let forgotten = order[oldest]
            if var kept = versions[forgotten], !kept.isEmpty {
                kept.removeFirst()
                versions[forgotten] = kept.isEmpty ? nil : kept
            }
            order[oldest] = id
            oldest = (oldest + 1) % Self.capacity
        }
        versions[id, default: []].append((version, record, sequence))
    }

    /// Forgets a deleted record's versions (an identity inserted again starts
    /// a new history).
    mutating func forget(_ id: R.ID) { versions[id] = nil }

    /// The newest kept version of a record that `accepts` takes.
    func newest(of id: R.ID, where accepts: (Int64) -> Bool) -> (version: Int64, record: R, sequence: Int64)? {
        versions[id]?.last { accepts($0.version) }
    }
}
