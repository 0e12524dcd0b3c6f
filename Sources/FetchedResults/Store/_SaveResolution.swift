import Foundation
import PredicateFormat
import Records
import TableDiff

/// What a context read of a record before changing it.
struct _Base<R: Record> {
    /// The version read; nil when the record's current version came from a
    /// save the context neither merged nor read.
    var version: Int64?
    /// The record as read (for merging by property), when known.
    var record: R?
    /// The record's first-insertion order.
    var sequence: Int64
}

/// A context's save, for the store.
struct _SaveRequest<R: Record> {
    var inserted: [(record: R, sequence: Int64)]
    var updated: [(record: R, base: _Base<R>)]
    var deleted: [(id: R.ID, base: _Base<R>)]
    var policy: MergePolicy
    var contextName: String?
}

/// What a save did: the save, and the records whose saved value is not the
/// context's pending one (a merge policy changed or dropped them).
struct _SaveOutcome<R: Record> {
    var saved: ContextDidSave<R>
    var resolvedIDs: [R.ID]
}

/// A save checked against the store: conflicts found and resolved by the
/// policy, and the change set to write.
///
/// - Complexity: O(*k*) for *k* records in the save (and their sizes, for
///   merges by property).
struct _Resolution<R: Record & Codable> {
    /// What to write; nil when nothing is left to write.
    var changeSet: StoreChangeSet<R>?
    var resolvedIDs: [R.ID] = []
    /// The conflicting records merged whole, not by property.
    var fallbacks: [PropertyMergeFallback] = []

    init(_ request: _SaveRequest<R>, in state: _StoreState<R>) throws(StoreError) {
        let version = state.version + 1
        let policy = request.policy
        let contextWins = policy == .mergeByPropertyObjectTrump || policy == .overwrite
        var saved: [StoredRecord<R>] = []
        var deleted: [R] = []
        var conflicts: [MergeConflict] = []
        saved.reserveCapacity(request.inserted.count + request.updated.count)

        // Inserts: an identity the store already has (a uniqueness conflict).
        for (record, sequence) in request.inserted {
            guard let k = state.position(of: record.id) else {
                saved.append(StoredRecord(record: record, sequence: sequence, version: version))
                continue
            }
            if policy == .error { throw .duplicateIdentity("\(record.id)") }
            resolvedIDs.append(record.id)
            if contextWins { saved.append(StoredRecord(record: record, sequence: state.sequences[k], version: version)) }
        }

        // Updates: the record changed or was deleted since the context read it.
        for (record, base) in request.updated {
            let id = record.id
            guard let k = state.position(of: id) else {
                if policy == .error {
                    conflicts.append(MergeConflict(objectID: "\(id)", change: .update, contextVersion: base.version, storeVersion: nil))
                    continue
                }
                resolvedIDs.append(id)
                if contextWins { saved.append(StoredRecord(record: record, sequence: base.sequence, version: version)) }
                continue
            }
            if let read = base.version, read == state.versions[k] {
                saved.append(StoredRecord(record: record, sequence: state.sequences[k], version: version))
                continue
            }
            if policy == .error {
                conflicts.append(MergeConflict(objectID: "\(id)", change: .update, contextVersion: base.version, storeVersion: state.versions[k]))
                continue
            }
            resolvedIDs.append(id)
            let merged: R?
            switch policy {
            case .error, .rollback: merged = nil
            case .overwrite: merged = record
            case .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump:
                let merge = _PropertyMerge.merge(
                    base: base.version == nil ? nil : base.record, context: record, store: state.records[k], contextWins: contextWins)
                merged = merge.record
                if let reason = merge.fallback {
                    fallbacks.append(PropertyMergeFallback(objectID: "\(id)", reason: reason, keptContextRecord: contextWins))
                }
            }
            if let merged { saved.append(StoredRecord(record: merged, sequence: state.sequences[k], version: version)) }
        }

        // Deletes: of a record changed since the context read it (one already
        // gone is simply gone).
        for (id, base) in request.deleted {
            guard let k = state.position(of: id) else { continue }
            if let read = base.version, read == state.versions[k] {
                deleted.append(state.records[k])
                continue
            }
            if policy == .error {
                conflicts.append(MergeConflict(objectID: "\(id)", change: .delete, contextVersion: base.version, storeVersion: state.versions[k]))
                continue
            }
            resolvedIDs.append(id)
            if contextWins { deleted.append(state.records[k]) }
        }

        if !conflicts.isEmpty { throw .mergeConflicts(conflicts) }
        if !saved.isEmpty || !deleted.isEmpty {
            changeSet = StoreChangeSet(version: version, nextSequence: state.nextSequence, saved: saved, deleted: deleted)
        }
    }
}
