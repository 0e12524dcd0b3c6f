import Foundation
import PredicateFormat
import Records
import TableDiff

/// The state behind a store's lock.
@usableFromInline
struct _StoreState<R: Record> {
    /// The records, densely; a deleted record's place is taken by the last one.
    @usableFromInline var records: [R] = []
    /// For every record, the order it was first inserted in (stable, never reused).
    @usableFromInline var sequences: [Int64] = []
    /// For every record, the version of the save that last wrote it.
    @usableFromInline var versions = _Versions()
    /// Identity to position in `records`.
    @usableFromInline var index = _RecordIndex()
    @usableFromInline var nextSequence: Int64 = 1
    /// The version of the last save.
    @usableFromInline var version: Int64 = 0
    var subscribers: [UUID: AsyncStream<ContextDidSave<R>>.Continuation] = [:]
    /// Cached fetch results, by cache name (see `FetchedResultsController`).
    @usableFromInline var fetchCaches: [String: _FetchCache<R>] = [:]
    /// Damage the persistence repaired.
    var recoveries: [StoreRecovery] = []
    /// The versions the most recent saves replaced: what a context's update
    /// is based on when it read a record that another save then replaced.
    var replaced = _ReplacedVersions<R>()

    init() {}

    /// The state a persistence loaded (before its change sets).
    ///
    /// - Complexity: O(*n*).
    init(_ contents: StoreContents<R>) throws(StoreError) {
        let count = contents.records.count
        records.reserveCapacity(count)
        sequences.reserveCapacity(count)
        versions.reserveCapacity(count)
        index.reserveCapacity(count)
        var maxSequence: Int64 = 0
        for stored in contents.records {
            guard index.insert(stored.record.id, at: records.count, in: records) == nil else {
                throw .corrupt(path: "the persistence", reason: "the identity \(stored.record.id) occurs twice")
            }
            records.append(stored.record)
            sequences.append(stored.sequence)
            versions.append(stored.version)
            maxSequence = max(maxSequence, stored.sequence)
        }
        version = contents.version
        nextSequence = max(contents.nextSequence, maxSequence + 1)
        recoveries = contents.recoveries
        _checkInvariants()
    }

    /// Makes an empty state hold `records`, saved once in this order.
    ///
    /// - Complexity: O(*n*).
    @inlinable
    @_specialize(where R == DynamicObject)   // the tool's records: identities read without copying records
    mutating func load(_ records: [R]) throws(StoreError) {
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
        sequences = (0..<records.count).map { Int64($0) + nextSequence }
        let version: Int64 = records.isEmpty ? self.version : self.version + 1
        versions = _Versions(repeating: version, count: records.count)
        self.version = version
        nextSequence += Int64(records.count)
        _checkInvariants()
    }

    /// The position of the record with an identity, or nil.
    ///
    /// - Complexity: O(1) on average.
    @inlinable
    func position(of id: R.ID) -> Int? { index.position(of: id, in: records) }

    /// Positions of the records in order of first insertion.
    func order() -> [Int] { records.indices.sorted { sequences[$0] < sequences[$1] } }

    // MARK: Applying saves

    /// What applying a change set did.
    struct Applied {
        var inserted: [R] = []
        var updated: [R] = []
        var deleted: [R] = []
    }

    /// Applies a save: deletes, then inserts and updates.
    ///
    /// - Complexity: O(*k*) for *k* records in the change set.
    @discardableResult
    mutating func apply(_ changeSet: StoreChangeSet<R>) -> Applied {
        var applied = Applied()
        for record in changeSet.deleted {
            if let removed = remove(record.id) { applied.deleted.append(removed) }
        }
        for stored in changeSet.saved {
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
        version = changeSet.version
        nextSequence = max(nextSequence, changeSet.nextSequence)
        _checkInvariants(of: changeSet.saved.lazy.map(\.record.id))
        return applied
    }

    /// Applies a save read from a persistence: it must follow the last.
    mutating func applyChecked(_ changeSet: StoreChangeSet<R>) throws(StoreError) -> Applied {
        guard changeSet.version == version + 1 else {
            throw .corrupt(path: "the persistence", reason: "save \(changeSet.version) follows save \(version)")
        }
        return apply(changeSet)
    }

    /// Applies what other stores saved, and returns it as saves to deliver.
    ///
    /// - Complexity: O(*k*) for *k* changed records; O(*n*) for a replacement.
    mutating func applyExternal(_ changes: ExternalChanges<R>) throws(StoreError) -> [ContextDidSave<R>] {
        recoveries += changes.recoveries
        var saves: [ContextDidSave<R>] = []
        if let replacement = changes.replacement {
            if let saved = try replace(with: replacement) { saves.append(saved) }
        }
        for changeSet in changes.changeSets where changeSet.version > version {
            let applied = try applyChecked(changeSet)
            saves.append(ContextDidSave(
                insertedObjects: applied.inserted, updatedObjects: applied.updated, deletedObjects: applied.deleted,
                storeVersion: version, contextName: nil, isExternal: true))
        }
        if !saves.isEmpty { fetchCaches.removeAll() }
        return saves
    }

    /// Replaces everything with what a persistence read again, and returns
    /// the difference as one save (nil when nothing changed).
    private mutating func replace(with contents: StoreContents<R>) throws(StoreError) -> ContextDidSave<R>? {
        var fresh = try _StoreState(contents)
        for changeSet in contents.changeSets { _ = try fresh.applyChecked(changeSet) }
        var inserted: [R] = [], updated: [R] = [], deleted: [R] = []
        for k in fresh.records.indices {
            let id = fresh.records[k].id
            if let old = position(of: id) {
                if versions[old] != fresh.versions[k] { updated.append(fresh.records[k]) }
            } else {
                inserted.append(fresh.records[k])
            }
        }
        for k in records.indices where fresh.position(of: records[k].id) == nil { deleted.append(records[k]) }
        let first = version + 1
        fresh.subscribers = subscribers
        fresh.recoveries = recoveries
        fresh.nextSequence = max(fresh.nextSequence, nextSequence)
        self = fresh
        _checkInvariants()
        guard !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty) || version >= first else { return nil }
        return ContextDidSave(
            insertedObjects: inserted, updatedObjects: updated, deletedObjects: deleted,
            storeVersion: version, contextName: nil, isExternal: true, firstStoreVersion: first)
    }

    // MARK: Changing one record

    /// Removes a record; returns it.
    mutating func remove(_ id: R.ID) -> R? {
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

    mutating func append(_ stored: StoredRecord<R>) {
        _ = index.insert(stored.record.id, at: records.count, in: records)
        records.append(stored.record)
        sequences.append(stored.sequence)
        versions.append(stored.version)
        nextSequence = max(nextSequence, stored.sequence + 1)
    }
}

/// The versions of records that the most recent saves replaced, with the
/// record each version held — the most recent ``capacity`` of them.
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
