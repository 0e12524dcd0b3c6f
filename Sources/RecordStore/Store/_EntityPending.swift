import Foundation
import InternalTableUtilities
import Records

/// One entity's part of a context: its pending changes and what it read,
/// erased. The typed part is ``_EntityPending``; the context holds one per
/// entity of its store's model.
@usableFromInline
package class _AnyEntityPending {
    /// The entity's index in the model.
    @usableFromInline package let entity: Int

    init(entity: Int) { self.entity = entity }

    var hasChanges: Bool { false }
    var hasUnprocessed: Bool { false }
    /// The record of an identity as the context sees it, erased (not counted as a read).
    func peekErased(_ id: AnyHashable, in context: ObjectContext) -> (any Record & Codable)? { nil }
    /// Inserts (or updates, or deletes with nil) a record given erased, as
    /// the relationship code decided: the context has (or has not) it.
    func putErased(_ id: AnyHashable, _ record: (any Record & Codable)?, in context: ObjectContext) {}
    /// The changes made since the last call, as the controllers are told them.
    func takeUnprocessed(into change: inout _ContextChange, _ notice: inout _ContextNotice) {}
    /// The entity's part of a save; nil without changes.
    func saveRequest(in context: ObjectContext) -> _AnyEntitySaveRequest? { nil }
    /// After a save: the pending changes are the store's now.
    func didSave() {}
    /// Discards the pending changes; what the observers see change.
    func rollback(into change: inout _ContextChange, _ notice: inout _ContextNotice) {}
    /// Brings the entity's part of another context's save in.
    func merge(_ part: _AnyEntityPart, saved: ContextDidSave, in context: ObjectContext, fallbacks: inout [PropertyMergeFallback],
               change: inout _ContextChange, notice: inout _ContextNotice) {}
    /// After a save a merge policy resolved: the objects it saved otherwise
    /// than the context had them, as the observers see them change.
    func noteResolved(_ ids: [AnyHashable], in context: ObjectContext, change: inout _ContextChange, notice: inout _ContextNotice) {}
    /// The identities of pending updates, erased.
    func updatedIDs() -> [AnyHashable] { [] }
    /// The identities inserted or updated here, with their records, erased.
    func changedRecords() -> [(id: AnyHashable, record: any Record & Codable)] { [] }
    /// The identities deleted here, erased.
    func deletedIDs() -> [AnyHashable] { [] }
    /// What the context read of a pending update, erased.
    func readRecord(_ id: AnyHashable) -> (any Record & Codable)? { nil }
    /// The pending inserts, updates and deletes, erased (for the will-save notice).
    func willSavePart() -> _AnyEntityPart { _AnyEntityPart(entity: entity) }
    /// Records of the entity this context sees: the store's (pending changes
    /// on top), then pending inserts; erased.
    func forEachErased(in context: ObjectContext, _ body: (any Record & Codable) throws -> Void) throws {}
    func _checkInvariants(seen: _SeenVersions) {}
}

/// One entity's part of a context, typed: its pending changes (one value,
/// replaced whole by a save and by a rollback) and the versions it read of
/// saves it has not merged.
@usableFromInline
package final class _EntityPending<R: Record & Codable>: _AnyEntityPending {
    /// The changes not yet saved, and those not yet processed.
    @usableFromInline package var pending = _PendingChanges<R>()
    /// Records read with `object(_:id:)` whose version came from a save this
    /// context has not merged: what it read.
    var snapshots: [R.ID: _Base<R>] = [:]

    override var hasChanges: Bool { pending.hasChanges }
    override var hasUnprocessed: Bool { !pending.unprocessed.ids.isEmpty }

    // MARK: Reading

    /// The store's table of the entity.
    func table(_ state: _StoreState) -> _EntityTable<R> { state.table(entity, R.self) }

    /// The record with an identity as this context sees it: its pending change,
    /// or the store's; nil when absent or deleted here. Reading a record
    /// counts as having read its version.
    package func object(_ id: R.ID, in context: ObjectContext) -> R? {
        if pending.deleted.contains(id) { return nil }
        if let record = pending.inserted[id] { return record }
        guard let saved = context.store.state.withLock({ table($0).lookup(id) }) else { return nil }
        if let update = pending.updated[id] { return update }
        if !context.seen.contains(saved.version) {
            snapshots[id] = _Base(version: saved.version, record: saved.record, sequence: saved.sequence)
        }
        return saved.record
    }

    /// `object(_:in:)` without counting as a read.
    func peek(_ id: R.ID, in context: ObjectContext) -> R? {
        if pending.deleted.contains(id) { return nil }
        if let record = pending.inserted[id] { return record }
        guard let saved = context.store.state.withLock({ table($0).lookup(id)?.record }) else { return nil }
        return pending.updated[id] ?? saved
    }

    override func peekErased(_ id: AnyHashable, in context: ObjectContext) -> (any Record & Codable)? {
        guard let id = id.base as? R.ID else { return nil }
        return peek(id, in: context)
    }

    /// The sequence (first-insertion order) of a record this context sees.
    package func sequence(of id: R.ID, in context: ObjectContext) -> Int64? {
        if pending.inserted[id] != nil { return pending.insertedSequences[id] }
        return context.store.state.withLock { state in table(state).lookup(id)?.sequence }
    }

    override func forEachErased(in context: ObjectContext, _ body: (any Record & Codable) throws -> Void) throws {
        let updated = pending.updated, deleted = pending.deleted
        var records: [R] = []
        try context.store.state.withLock { state in
            try table(state).forEachRecord(damaged: { $0 as any Error }) { record, _, _ in records.append(copy record) }
        }
        for record in records where !deleted.contains(record.id) { try body(updated[record.id] ?? record) }
        for id in pending.insertedIDs { if let record = pending.inserted[id] { try body(record) } }
    }

    // MARK: Changing

    /// Inserts a record (the context checked that its family has no such identity).
    func insert(_ record: R, in context: ObjectContext) {
        let id = record.id
        if pending.deleted.remove(id) != nil {
            pending.updated[id] = record   // deleted here, saved in the store: it comes back as an update
        } else {
            pending.inserted[id] = record
            pending.insertedIDs.append(id)
            pending.insertedSequences[id] = context.store.reserveSequence()
        }
        pending.unprocessed.ids.append(id)
        _checkInvariants(of: id)
    }

    /// Replaces a record the context has and shows as `shown`.
    func update(_ record: R, shown: R, in context: ObjectContext) {
        let id = record.id
        if context.hasObservers, pending.unprocessed.replaced[id] == nil { pending.unprocessed.replaced[id] = shown }
        if pending.inserted[id] != nil {
            pending.inserted[id] = record
        } else {
            if pending.bases[id] == nil { pending.bases[id] = base(of: id, in: context) }
            pending.updated[id] = record
        }
        pending.unprocessed.ids.append(id)
        _checkInvariants(of: id)
    }

    /// Deletes a record the context has.
    func delete(_ id: R.ID, in context: ObjectContext) {
        if let record = pending.inserted.removeValue(forKey: id) {
            pending.unprocessed.discarded[id] = record
            pending.insertedIDs.removeAll { $0 == id }
            pending.insertedSequences[id] = nil
        } else {
            if pending.bases[id] == nil { pending.bases[id] = base(of: id, in: context) }
            pending.updated.removeValue(forKey: id)
            pending.deleted.insert(id)
        }
        pending.unprocessed.ids.append(id)
        _checkInvariants(of: id)
    }

    override func putErased(_ id: AnyHashable, _ record: (any Record & Codable)?, in context: ObjectContext) {
        guard let id = id.base as? R.ID else { return }
        if let record = record as? R {
            if let shown = peek(id, in: context) { update(record, shown: shown, in: context) } else { insert(record, in: context) }
        } else if record == nil, peek(id, in: context) != nil {
            delete(id, in: context)
        }
    }

    /// What this context read of a saved record: what it read with
    /// `object(_:id:)` of a version it had not seen, else the newest
    /// version it has seen — the store's, or the one a save replaced since
    /// (the context read that one, if any: it has not merged the save).
    func base(of id: R.ID, in context: ObjectContext) -> _Base<R> {
        let seen = context.seen
        guard let current = context.store.state.withLock({ table($0).lookup(id, newestOf: { seen.contains($0) }) }) else {
            return _Base(version: nil, record: nil, sequence: sequence(of: id, in: context) ?? .max)
        }
        if let snapshot = snapshots[id] { return snapshot }
        return _Base(version: current.accepted?.version, record: current.accepted?.record, sequence: current.sequence)
    }

    // MARK: Processing, saving, rolling back, merging

    override func takeUnprocessed(into change: inout _ContextChange, _ notice: inout _ContextNotice) {
        guard !pending.unprocessed.ids.isEmpty else { return }
        let unprocessed = pending.unprocessed
        pending.unprocessed = _UnprocessedChanges()
        var seenIDs = Set<R.ID>()
        var inserted: [R.ID] = [], updated: [R.ID] = [], deleted: [R.ID] = []
        for id in unprocessed.ids where seenIDs.insert(id).inserted {
            if pending.inserted[id] != nil {
                inserted.append(id)
            } else if pending.updated[id] != nil {
                updated.append(id)
            } else if pending.deleted.contains(id) || unprocessed.discarded[id] != nil {
                deleted.append(id)
            } else {
                updated.append(id)
            }
        }
        change.add(entity, ids: inserted + updated + deleted, removed: unprocessed.discarded, replaced: unprocessed.replaced)
        notice.add(entity, inserted: inserted, updated: updated, deleted: deleted, removed: unprocessed.discarded)
    }

    override func saveRequest(in context: ObjectContext) -> _AnyEntitySaveRequest? {
        guard pending.hasChanges else { return nil }
        let request = _EntitySaveRequest<R>(entity: entity)
        request.inserted = pending.insertedIDs.compactMap { id in pending.inserted[id].flatMap { record in pending.insertedSequences[id].map { (record, $0) } } }
        request.updated = pending.updated.map { id, record in (record, pending.bases[id] ?? base(of: id, in: context)) }
        request.deleted = pending.deleted.map { id in (id, pending.bases[id] ?? base(of: id, in: context)) }
        return request
    }

    override func didSave() {
        for id in pending.insertedIDs { snapshots[id] = nil }
        for id in pending.updated.keys { snapshots[id] = nil }
        for id in pending.deleted { snapshots[id] = nil }
        pending = _PendingChanges(keepingUnprocessedOf: pending)
    }

    override func rollback(into change: inout _ContextChange, _ notice: inout _ContextNotice) {
        let old = pending
        pending = _PendingChanges()
        let wasInserted = old.insertedIDs + Array(old.unprocessed.discarded.keys)
        let wasUpdated = Array(old.updated.keys)
        let wasDeleted = Array(old.deleted)
        var removed = old.unprocessed.discarded
        for (id, record) in old.inserted { removed[id] = record }
        // What the context's observers see change: its inserts leave, its deletes come back.
        // What the observers were told each record is: before its unprocessed changes, else its pending update.
        let replaced = old.updated.merging(old.unprocessed.replaced) { _, told in told }
        change.add(entity, ids: wasDeleted + wasUpdated + wasInserted, removed: removed, replaced: replaced)
        notice.add(entity, inserted: wasDeleted, updated: wasUpdated, deleted: wasInserted, removed: removed)
    }

    override func merge(
        _ part: _AnyEntityPart, saved: ContextDidSave, in context: ObjectContext, fallbacks: inout [PropertyMergeFallback],
        change: inout _ContextChange, notice: inout _ContextNotice
    ) {
        guard let part = part.typed(R.self) else { return }
        // What the observers were told each updated record is: before its
        // unprocessed changes, else its pending update, else the version
        // the save replaced — looked up only for an observer that does not
        // keep the record itself (a controller with a batch size).
        var replaced: [R.ID: R] = [:]
        if !pending.unprocessed.replaced.isEmpty || !pending.updated.isEmpty {
            for record in part.updated {
                let id = record.id
                replaced[id] = pending.unprocessed.replaced[id] ?? pending.updated[id]
            }
        }
        let store = context.store, entity = entity, before = saved.firstStoreVersion
        let replacedInStore = { (id: R.ID) in
            store.state.withLock { $0.table(entity, R.self).lookup(id, newestOf: { $0 < before })?.accepted?.record }
        }
        defer {
            // The observers read the records now, unprocessed changes and all.
            for id in replaced.keys where pending.unprocessed.replaced[id] != nil { pending.unprocessed.replaced[id] = peek(id, in: context) }
        }
        for record in part.deleted {
            let id = record.id
            pending.updated.removeValue(forKey: id)
            pending.deleted.remove(id)
            pending.bases[id] = nil
            snapshots[id] = nil
        }
        for record in part.updated + part.inserted {
            let id = record.id
            snapshots[id] = nil
            guard pending.updated[id] != nil || pending.deleted.contains(id) else { continue }
            let current = context.store.state.withLock { table($0).lookup(id) }
            let version = current.flatMap { (saved.firstStoreVersion...saved.storeVersion).contains($0.version) ? $0.version : nil }
            if let update = pending.updated[id] {
                let base = pending.bases[id]
                let merge = _PropertyMerge.merge(
                    base: base?.version == nil ? nil : base?.record, context: update, store: record, contextWins: true)
                pending.updated[id] = merge.record
                if let reason = merge.fallback {
                    fallbacks.append(PropertyMergeFallback(objectID: "\(id)", reason: reason, keptContextRecord: true))
                }
            }
            pending.bases[id] = _Base(version: version, record: record, sequence: current?.sequence ?? pending.bases[id]?.sequence ?? .max)
        }
        let removed = Dictionary(part.deleted.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let inserted = part.inserted.map { $0.id }, updated = part.updated.map { $0.id }, deleted = part.deleted.map { $0.id }
        change.add(entity, ids: inserted + updated + deleted, removed: removed, replaced: replaced, replacedInStore: replacedInStore)
        notice.add(entity, inserted: inserted, updated: updated, deleted: deleted, removed: removed)
    }

    override func noteResolved(_ ids: [AnyHashable], in context: ObjectContext, change: inout _ContextChange, notice: inout _ContextNotice) {
        let typed = ids.compactMap { $0.base as? R.ID }
        let saved = context.store.state.withLock { state in typed.map { table(state).lookup($0) != nil } }
        let visible = zip(typed, saved).filter { $0.1 }.map { $0.0 }, gone = zip(typed, saved).filter { !$0.1 }.map { $0.0 }
        change.add(entity, ids: visible + gone, removed: [R.ID: R](), replaced: [R.ID: R]())
        notice.add(entity, inserted: [], updated: visible, deleted: gone, removed: [R.ID: R]())
    }

    override func updatedIDs() -> [AnyHashable] { pending.updated.keys.map(AnyHashable.init) }
    override func changedRecords() -> [(id: AnyHashable, record: any Record & Codable)] {
        // Inserts in the order made, then updates in the records' first-insertion order: the same order every run.
        let updates = pending.updated.sorted { (pending.bases[$0.key]?.sequence ?? .max, "\($0.key)") < (pending.bases[$1.key]?.sequence ?? .max, "\($1.key)") }
        return pending.insertedIDs.compactMap { id in pending.inserted[id].map { (AnyHashable(id), $0) } }
            + updates.map { (AnyHashable($0.key), $0.value) }
    }
    override func deletedIDs() -> [AnyHashable] {
        pending.deleted.sorted { (pending.bases[$0]?.sequence ?? .max, "\($0)") < (pending.bases[$1]?.sequence ?? .max, "\($1)") }.map(AnyHashable.init)
    }
    override func readRecord(_ id: AnyHashable) -> (any Record & Codable)? {
        guard let id = id.base as? R.ID else { return nil }
        return pending.bases[id]?.record
    }

    override func willSavePart() -> _AnyEntityPart {
        _EntityPart<R>(
            entity: entity, inserted: pending.insertedIDs.compactMap { pending.inserted[$0] },
            updated: Array(pending.updated.values), deleted: [])
    }

    // MARK: Invariants

    override func _checkInvariants(seen: _SeenVersions) {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        let pending = self.pending
        precondition(pending.insertedIDs.count == pending.inserted.count, "\(pending.insertedIDs.count) inserted identities for \(pending.inserted.count) inserts")
        precondition(pending.insertedSequences.count == pending.inserted.count, "\(pending.insertedSequences.count) reserved sequences for \(pending.inserted.count) inserts")
        for id in pending.insertedIDs {
            precondition(pending.inserted[id] != nil, "\(id) in the inserts' order, not inserted")
            _checkInvariants(of: id)
        }
        for id in pending.updated.keys { _checkInvariants(of: id) }
        for id in pending.deleted { _checkInvariants(of: id) }
        precondition(pending.bases.count == pending.updated.count + pending.deleted.count,
                     "\(pending.bases.count) bases for \(pending.updated.count) updates and \(pending.deleted.count) deletes")
        let unprocessed = Set(pending.unprocessed.ids)
        precondition(pending.unprocessed.discarded.keys.allSatisfy(unprocessed.contains), "a discarded insert that is not unprocessed")
        #endif
    }

    func _checkInvariants(of id: R.ID) {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        let inserted = pending.inserted[id], updated = pending.updated[id], deleted = pending.deleted.contains(id)
        precondition([inserted != nil, updated != nil, deleted].filter { $0 }.count <= 1, "\(id) is in two of the inserts, the updates and the deletes")
        if let inserted {
            precondition(inserted.id == id, "the insert of \(id) holds \(inserted.id)")
            precondition(pending.insertedSequences[id] != nil, "the insert of \(id) has no sequence")
        } else {
            precondition(pending.insertedSequences[id] == nil, "a sequence reserved for \(id), not inserted")
        }
        if let updated { precondition(updated.id == id, "the update of \(id) holds \(updated.id)") }
        precondition((pending.bases[id] != nil) == (updated != nil || deleted), "\(id): a base \(pending.bases[id] == nil ? "missing" : "without a change")")
        #endif
    }
}

/// The identities whose records may have changed in a context, by entity,
/// and the records of those that left it (which the store may no longer
/// have): what the context's observers — its controllers — are told.
package struct _ContextChange {
    /// Each entity's part, by entity index.
    var parts: [Int: _AnyContextChangePart] = [:]

    var isEmpty: Bool { parts.values.allSatisfy { $0.isEmpty } }

    /// Adds an entity's identities (repeats and those added before are
    /// left out), the records of those that left, and what the observers
    /// were told the updated ones are: `replaced`, else what
    /// `replacedInStore` finds.
    mutating func add<R: Record & Codable>(
        _ entity: Int, ids: [R.ID], removed: [R.ID: R], replaced: [R.ID: R], replacedInStore: ((R.ID) -> R?)? = nil
    ) {
        guard !ids.isEmpty else { return }
        let part = (parts[entity] as? _ContextChangePart<R>) ?? _ContextChangePart<R>(entity: entity)
        parts[entity] = part
        for id in ids where part.seen.insert(id).inserted { part.ids.append(id) }
        part.removed.mergeKeepingFirst(removed)
        part.replaced.mergeKeepingFirst(replaced)
        if part.replacedInStore == nil { part.replacedInStore = replacedInStore }
    }

    /// Entity `k`'s part, typed.
    package func part<R: Record & Codable>(_ k: Int, _ type: R.Type) -> _ContextChangePart<R>? { parts[k] as? _ContextChangePart<R> }

    /// Every changed object, as a reference (for the controllers that read
    /// through relationships).
    package func refs(_ model: ObjectModel) -> [_Ref] {
        parts.values.flatMap { part in part.erasedIDs().map { _Ref(family: model.roots[part.entity], id: $0) } }
    }
}

/// One entity's part of a context's change, erased.
package class _AnyContextChangePart {
    let entity: Int
    init(entity: Int) { self.entity = entity }
    var isEmpty: Bool { true }
    func erasedIDs() -> [AnyHashable] { [] }
}

/// One entity's part of a context's change: the identities (in order, with
/// repeats) and the records of those that left.
package final class _ContextChangePart<R: Record & Codable>: _AnyContextChangePart {
    /// The identities, in order, each once.
    package var ids: [R.ID] = []
    var seen: Set<R.ID> = []
    package var removed: [R.ID: R] = [:]
    /// The records updated, as the context showed them before the change
    /// (where known): what the controllers compare the new ones with.
    var replaced: [R.ID: R] = [:]
    /// For a merged save, the version it replaced of an identity not in
    /// `replaced` (read from the store when asked).
    var replacedInStore: ((R.ID) -> R?)?

    /// The record an updated identity replaced, as the context showed it; nil when not known.
    package func replaced(_ id: R.ID) -> R? { replaced[id] ?? replacedInStore?(id) }
    override var isEmpty: Bool { ids.isEmpty }
    override func erasedIDs() -> [AnyHashable] { ids.map(AnyHashable.init) }
}

/// What a context's objects-did-change notice says, by entity, as identities
/// (the records are read when it is posted).
struct _ContextNotice {
    var parts: [Int: _AnyContextNoticePart] = [:]
    var isEmpty: Bool { parts.values.allSatisfy { $0.isEmpty } }

    mutating func add<R: Record & Codable>(_ entity: Int, inserted: [R.ID], updated: [R.ID], deleted: [R.ID], removed: [R.ID: R]) {
        guard !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty) else { return }
        let part = (parts[entity] as? _ContextNoticePart<R>) ?? _ContextNoticePart<R>(entity: entity)
        parts[entity] = part
        part.inserted += inserted
        part.updated += updated
        part.deleted += deleted
        part.removed.mergeKeepingFirst(removed)
    }
}

class _AnyContextNoticePart {
    let entity: Int
    init(entity: Int) { self.entity = entity }
    var isEmpty: Bool { true }
    /// The records as the context sees them now (the deleted as they were).
    func part(in context: ObjectContext) -> _AnyEntityPart { _AnyEntityPart(entity: entity) }
    func ids() -> (inserted: [AnyHashable], updated: [AnyHashable], deleted: [AnyHashable]) { ([], [], []) }
}

final class _ContextNoticePart<R: Record & Codable>: _AnyContextNoticePart {
    var inserted: [R.ID] = [], updated: [R.ID] = [], deleted: [R.ID] = []
    var removed: [R.ID: R] = [:]
    override var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    override func part(in context: ObjectContext) -> _AnyEntityPart {
        let pending = context.pending(entity, R.self)
        return _EntityPart<R>(
            entity: entity,
            inserted: inserted.compactMap { pending.peek($0, in: context) },
            updated: updated.compactMap { pending.peek($0, in: context) },
            deleted: deleted.compactMap { id in removed[id] ?? context.store.state.withLock { $0.table(entity, R.self).lookup(id)?.record } })
    }

    override func ids() -> (inserted: [AnyHashable], updated: [AnyHashable], deleted: [AnyHashable]) {
        (inserted.map(AnyHashable.init), updated.map(AnyHashable.init), deleted.map(AnyHashable.init))
    }
}

/// An object of a model, by reference: its hierarchy's root entity and its
/// identity (of the hierarchy's identity type).
@usableFromInline
package struct _Ref: Hashable, @unchecked Sendable {
    /// The index of the root entity of the object's hierarchy.
    package var family: Int
    package var id: AnyHashable

    package init(family: Int, id: AnyHashable) {
        self.family = family
        self.id = id
    }
}

extension Dictionary {
    /// Adds `other`'s entries whose keys this does not have; taking `other`
    /// whole when this is empty (O(1), where a merge hashes every key).
    package mutating func mergeKeepingFirst(_ other: [Key: Value]) {
        if isEmpty { self = other } else if !other.isEmpty { merge(other) { first, _ in first } }
    }
}
