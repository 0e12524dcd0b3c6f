import Foundation
import Records

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

/// A context's save, for the store: each entity's part, typed.
struct _SaveRequest {
    var parts: [_AnyEntitySaveRequest]
    var policy: MergePolicy
    var contextName: String?
}

/// One entity's part of a context's save, erased.
class _AnyEntitySaveRequest {
    let entity: Int
    init(entity: Int) { self.entity = entity }

    /// The identities the part inserts.
    func insertedIDs() -> [AnyHashable] { [] }

    /// The part checked against the store's table of its entity: conflicts
    /// found and resolved by the policy.
    func resolve(in state: _StoreState, version: Int64, policy: MergePolicy, into resolution: inout _Resolution) throws(StoreError) {}
}

/// One entity's part of a context's save: its inserts (with the sequences
/// reserved for them), its updates and deletes with what each was based on.
final class _EntitySaveRequest<R: Record & Codable>: _AnyEntitySaveRequest {
    var inserted: [(record: R, sequence: Int64)] = []
    var updated: [(record: R, base: _Base<R>)] = []
    var deleted: [(id: R.ID, base: _Base<R>)] = []

    override func insertedIDs() -> [AnyHashable] { inserted.map { AnyHashable($0.record.id) } }

    override func resolve(in state: _StoreState, version: Int64, policy: MergePolicy, into resolution: inout _Resolution) throws(StoreError) {
        let table = state.table(entity, R.self)
        let contextWins = policy == .mergeByPropertyObjectTrump || policy == .overwrite
        var saved: [StoredRecord<R>] = []
        var deletedRecords: [R] = []
        var resolvedIDs: [R.ID] = []
        saved.reserveCapacity(inserted.count + updated.count)

        // Inserts: an identity the store already has (a uniqueness conflict).
        for (record, sequence) in inserted {
            guard let current = try table.find(record.id) else {
                saved.append(StoredRecord(record: record, sequence: sequence, version: version))
                continue
            }
            if policy == .error {
                resolution.duplicate = resolution.duplicate ?? "\(record.id)"
                continue
            }
            resolvedIDs.append(record.id)
            if contextWins { saved.append(StoredRecord(record: record, sequence: current.sequence, version: version)) }
        }

        // Updates: the record changed or was deleted since the context read it.
        for (record, base) in updated {
            let id = record.id
            guard let current = try table.find(id) else {
                if policy == .error {
                    resolution.conflicts.append(MergeConflict(objectID: "\(id)", change: .update, contextVersion: base.version, storeVersion: nil))
                    continue
                }
                resolvedIDs.append(id)
                if contextWins { saved.append(StoredRecord(record: record, sequence: base.sequence, version: version)) }
                continue
            }
            if let read = base.version, read == current.version {
                saved.append(StoredRecord(record: record, sequence: current.sequence, version: version))
                continue
            }
            if policy == .error {
                resolution.conflicts.append(MergeConflict(objectID: "\(id)", change: .update, contextVersion: base.version, storeVersion: current.version))
                continue
            }
            resolvedIDs.append(id)
            let merged: R?
            switch policy {
            case .error, .rollback: merged = nil
            case .overwrite: merged = record
            case .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump:
                let merge = _PropertyMerge.merge(
                    base: base.version == nil ? nil : base.record, context: record, store: current.record, contextWins: contextWins)
                merged = merge.record
                if let reason = merge.fallback {
                    resolution.fallbacks.append(PropertyMergeFallback(objectID: "\(id)", reason: reason, keptContextRecord: contextWins))
                }
            }
            if let merged { saved.append(StoredRecord(record: merged, sequence: current.sequence, version: version)) }
        }

        // Deletes: of a record changed since the context read it (one already
        // gone is simply gone).
        for (id, base) in deleted {
            guard let current = try table.find(id) else { continue }
            if let read = base.version, read == current.version {
                deletedRecords.append(current.record)
                continue
            }
            if policy == .error {
                resolution.conflicts.append(MergeConflict(objectID: "\(id)", change: .delete, contextVersion: base.version, storeVersion: current.version))
                continue
            }
            resolvedIDs.append(id)
            if contextWins { deletedRecords.append(current.record) }
        }

        if !resolvedIDs.isEmpty { resolution.resolvedIDs[entity] = resolvedIDs.map(AnyHashable.init) }
        if !saved.isEmpty || !deletedRecords.isEmpty {
            resolution.parts.append(_EntityChangeSet(entity: entity, saved: saved, deleted: deletedRecords))
        }
    }
}

/// What a save did: the save, and the objects whose saved value is not the
/// context's pending one (a merge policy changed or dropped them), by entity.
struct _SaveOutcome {
    var saved: ContextDidSave
    var resolvedIDs: [Int: [AnyHashable]]
}

/// A save checked against the store: conflicts found and resolved by the
/// policy, and the change set to write.
///
/// - Complexity: O(*k*) for *k* records in the save (and their sizes, for
///   merges by property).
struct _Resolution {
    /// What to write; nil when nothing is left to write.
    var changeSet: _ChangeSet?
    var resolvedIDs: [Int: [AnyHashable]] = [:]
    /// The conflicting records merged whole, not by property.
    var fallbacks: [PropertyMergeFallback] = []
    var parts: [_AnyEntityChangeSet] = []
    var conflicts: [MergeConflict] = []
    /// The first inserted identity the store already has (under the error policy).
    var duplicate: String?

    init(_ request: _SaveRequest, in state: _StoreState, model: ObjectModel) throws(StoreError) {
        let version = state.version + 1
        for part in request.parts {
            // An identity inserted into one entity of a hierarchy that another holds.
            let family = model.families[model.roots[part.entity]]
            if family.count > 1 {
                for id in part.insertedIDs() {
                    for other in family where other != part.entity && state.tables[other].contains(id) {
                        if request.policy == .error { throw .duplicateIdentity("\(model.objectID(part.entity, id))") }
                    }
                }
            }
            try part.resolve(in: state, version: version, policy: request.policy, into: &self)
        }
        if let duplicate { throw .duplicateIdentity(duplicate) }
        if !conflicts.isEmpty { throw .mergeConflicts(conflicts) }
        if !parts.isEmpty {
            changeSet = _ChangeSet(version: version, nextSequence: state.nextSequence, parts: parts)
        }
    }
}
