import Foundation
import Records

/// One entity's records in the store, erased: what the store's lock guards
/// for each entity of the model. The typed table is ``_EntityTable``.
@usableFromInline
class _AnyEntityTable: @unchecked Sendable {
    /// The entity's index in the model.
    @usableFromInline let entity: Int

    init(entity: Int) { self.entity = entity }

    @usableFromInline var count: Int { 0 }
    func contains(_ id: AnyHashable) -> Bool { false }
    /// The record with an identity, erased.
    func erasedRecord(_ id: AnyHashable) -> (any Record & Codable)? { nil }
    /// The record with its version and first-insertion order, erased.
    func erasedLookup(_ id: AnyHashable) -> (record: any Record & Codable, version: Int64, sequence: Int64)? { nil }
    /// Calls `body` with every record and its sequence.
    func forEachErased(_ body: (any Record & Codable, Int64) throws -> Void) rethrows {}
    /// Applies the entity's part of a save: deletes, then inserts and updates.
    func apply(_ part: _AnyEntityChangeSet) -> _AnyEntityPart { _AnyEntityPart(entity: entity) }
    /// Every record with its sequence and version, in the order they were first inserted.
    func stored() -> _AnyEntityChangeSet { _AnyEntityChangeSet(entity: entity) }
    /// Loads records read from a persistence (before any save).
    ///
    /// - Throws: ``StoreError/corrupt(path:reason:)`` for an identity that occurs twice.
    func load(_ part: _AnyEntityChangeSet) throws(StoreError) {}
    /// The parts of a save that replaced this table with `fresh`: what was
    /// inserted, updated (another version) and deleted.
    func difference(to fresh: _AnyEntityTable) -> _AnyEntityPart { _AnyEntityPart(entity: entity) }
    /// The largest sequence held (0 for none).
    var maxSequence: Int64 { 0 }
    func _checkInvariants(version: Int64, nextSequence: Int64) {}
    /// The records a save wrote are where the index says (O(*k*)).
    func _checkInvariants(of part: _AnyEntityChangeSet, version: Int64, nextSequence: Int64) {}
}

/// One entity's records in the store: densely, with their first-insertion
/// order and version, an index by identity, and the versions recent saves
/// replaced.
@usableFromInline
final class _EntityTable<R: Record & Codable>: _AnyEntityTable, @unchecked Sendable {
    /// The records, densely; a deleted record's place is taken by the last one.
    @usableFromInline var records: [R] = []
    /// For every record, the order it was first inserted in (stable, never reused).
    @usableFromInline var sequences: [Int64] = []
    /// For every record, the version of the save that last wrote it.
    @usableFromInline var versions = _Versions()
    /// Identity to position in `records`.
    @usableFromInline var index = _RecordIndex()
    /// The versions the most recent saves replaced: what a context's update
    /// is based on when it read a record that another save then replaced.
    var replaced = _ReplacedVersions<R>()

    /// The position of the record with an identity, or nil.
    ///
    /// - Complexity: O(1) on average.
    @inlinable
    func position(of id: R.ID) -> Int? { index.position(of: id, in: records) }

    /// A record with its version and first-insertion order.
    @inlinable
    func lookup(_ id: R.ID) -> (record: R, version: Int64, sequence: Int64)? {
        position(of: id).map { (records[$0], versions[$0], sequences[$0]) }
    }

    @usableFromInline override var count: Int { records.count }

    override func contains(_ id: AnyHashable) -> Bool {
        guard let id = id.base as? R.ID else { return false }
        return position(of: id) != nil
    }

    override func erasedRecord(_ id: AnyHashable) -> (any Record & Codable)? {
        guard let id = id.base as? R.ID, let k = position(of: id) else { return nil }
        return records[k]
    }

    override func erasedLookup(_ id: AnyHashable) -> (record: any Record & Codable, version: Int64, sequence: Int64)? {
        guard let id = id.base as? R.ID, let found = lookup(id) else { return nil }
        return found
    }

    override func forEachErased(_ body: (any Record & Codable, Int64) throws -> Void) rethrows {
        for k in records.indices { try body(records[k], sequences[k]) }
    }

    override var maxSequence: Int64 { sequences.max() ?? 0 }

    override func stored() -> _AnyEntityChangeSet {
        _EntityChangeSet<R>(entity: entity, saved: order().map { StoredRecord(record: records[$0], sequence: sequences[$0], version: versions[$0]) })
    }

    /// Positions of the records in order of first insertion.
    func order() -> [Int] { records.indices.sorted { sequences[$0] < sequences[$1] } }

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
            } else {
                append(stored)
                applied.inserted.append(stored.record)
            }
        }
        return applied
    }

    override func difference(to fresh: _AnyEntityTable) -> _AnyEntityPart {
        let fresh = unsafeDowncast(fresh, to: _EntityTable<R>.self)
        let part = _EntityPart<R>(entity: entity)
        for k in fresh.records.indices {
            if let old = position(of: fresh.records[k].id) {
                if versions[old] != fresh.versions[k] { part.updated.append(fresh.records[k]) }
            } else {
                part.inserted.append(fresh.records[k])
            }
        }
        for k in records.indices where fresh.position(of: records[k].id) == nil { part.deleted.append(records[k]) }
        return part
    }

    /// Removes a record; returns it.
    func remove(_ id: R.ID) -> R? {
        guard let k = index.remove(id, in: records) else { return nil }
        replaced.forget(id)
        let removed = records[k]
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
        guard let k = position(of: id) else { return nil }
        if accepts(versions[k]) { return ((records[k], versions[k]), sequences[k]) }
        return (replaced.newest(of: id, where: accepts).map { ($0.record, $0.version) }, sequences[k])
    }

    override func _checkInvariants(version: Int64, nextSequence: Int64) {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        precondition(sequences.count == records.count && versions.count == records.count,
                     "\(records.count) records, \(sequences.count) sequences, \(versions.count) versions")
        precondition(index.count == records.count, "the index holds \(index.count) identities for \(records.count) records")
        for k in records.indices {
            precondition(position(of: records[k].id) == k, "the record at \(k) (identity \(records[k].id)) is at \(String(describing: position(of: records[k].id))) by identity")
        }
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

    /// Each record's replaced versions, oldest first.
    private var versions: [R.ID: [(version: Int64, record: R)]] = [:]
    /// The identities in the order their versions were replaced: a ring of
    /// `capacity` slots, `oldest` the next to be reused.
    private var order: [R.ID] = []
    private var oldest = 0

    /// Remembers that a save replaced `record`, at `version`.
    ///
    /// - Complexity: amortized O(1); O(*k*) when it forgets the oldest of *k*
    ///   kept versions of one record.
    mutating func append(_ id: R.ID, version: Int64, record: R) {
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
        versions[id, default: []].append((version, record))
    }

    /// Forgets a deleted record's versions (an identity inserted again starts
    /// a new history).
    mutating func forget(_ id: R.ID) { versions[id] = nil }

    /// The newest kept version of a record that `accepts` takes.
    func newest(of id: R.ID, where accepts: (Int64) -> Bool) -> (version: Int64, record: R)? {
        versions[id]?.last { accepts($0.version) }
    }
}
