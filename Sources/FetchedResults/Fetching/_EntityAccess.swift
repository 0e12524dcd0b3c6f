import Foundation
import InternalTableUtilities
import Records

/// A context seen as the records of one entity (and of its sub-entities of
/// the same record type): what a fetch and a controller of `R` read.
@usableFromInline
struct _EntityAccess<R: Record & Codable> {
    @usableFromInline let context: ObjectContext
    /// The entity fetched; nil when the model has none for the request.
    @usableFromInline let entity: Int?
    /// The entities whose records are read: the entity, and its sub-entities
    /// of the same record type when the request includes them.
    @usableFromInline let members: [Int]
    /// Why there is no entity (the request names none of the model's).
    @usableFromInline let error: FetchError?

    /// The entity a request of `R` reads, in `context`.
    @usableFromInline
    init(_ request: FetchRequest<R>, in context: ObjectContext) throws(FetchError) {
        self.init(unchecked: request, in: context)
        if let error { throw error }
    }

    /// The entity a request of `R` reads; ``error`` says why there is none.
    @usableFromInline
    init(unchecked request: FetchRequest<R>, in context: ObjectContext) {
        self.context = context
        let model = context.model
        do throws(ContextError) {
            let k = try model.entityIndex(of: R.self, named: request.entityName)
            entity = k
            members = request.includesSubentities ? model.typedFamily(of: k, R.self) : [k]
            error = nil
        } catch {
            entity = nil
            members = []
            if case .unknownEntity(let name) = error { self.error = .unknownEntity(name) } else { self.error = .unknownEntity("\(R.self)") }
        }
    }

    @usableFromInline var store: ObjectStore { context.store }
    @usableFromInline var model: ObjectModel { context.model }

    /// The record with an identity as the context sees it (counts as a read).
    func object(withID id: R.ID) -> R? {
        for member in members {
            if let found = context.pending(member, R.self).object(id, in: context) { return found }
        }
        return nil
    }

    /// The record as last saved.
    func storeObject(withID id: R.ID) -> R? {
        store.state.withLock { state in
            for member in members {
                if let found = state.table(member, R.self).lookup(id) { return found.record }
            }
            return nil
        }
    }

    /// The sequence (first-insertion order) of a record the context sees.
    func sequence(of id: R.ID) -> Int64? {
        for member in members {
            if let sequence = context.pending(member, R.self).sequence(of: id, in: context) { return sequence }
        }
        return nil
    }

    /// At most how many records a fetch visits.
    @inlinable
    var capacity: Int {
        store.state.withLock { state in members.reduce(0) { $0 + state.tables[$1].count } }
            + members.reduce(0) { $0 + context.pending($1, R.self).pending.insertedIDs.count }
    }

    /// Calls `body` with every record the context sees, unordered.
    @inlinable
    func forEachRecord(_ body: (borrowing R, Int64) throws(FetchError) -> Void) throws(FetchError) {
        for member in members { try context.pending(member, R.self).forEachRecord(in: store, body) }
    }

    /// What `object(withID:)` says now, readable from another thread: the
    /// context's unsaved records as they are now (copied), then the store's
    /// (read under its lock, a batch of identities at a time), with the
    /// store's version when they were read: a save in the store meanwhile
    /// shows through, and the caller compares versions.
    func sendableReader() -> @Sendable ([R.ID]) -> (records: [R?], version: Int64) {
        let parts = members.map { member -> (entity: Int, inserted: [R.ID: R], updated: [R.ID: R], deleted: Set<R.ID>) in
            let pending = context.pending(member, R.self).pending
            return (member, pending.inserted, pending.updated, pending.deleted)
        }
        let store = self.store
        // One entity and nothing unsaved (a context that only reads): each
        // identity is one look-up in one table, found once a batch.
        if parts.count == 1, parts[0].inserted.isEmpty, parts[0].updated.isEmpty, parts[0].deleted.isEmpty {
            let entity = parts[0].entity
            return { ids in
                store.state.withLock { state in
                    let table = state.table(entity, R.self)
                    let records = table.records
                    return (ids.map { id in table.position(of: id).map { records[$0] } }, state.version)
                }
            }
        }
        return { ids in
            store.state.withLock { state in
                let tables = parts.map { state.table($0.entity, R.self) }
                return (ids.map { id -> R? in
                    for (part, table) in zip(parts, tables) {
                        if part.deleted.contains(id) { return nil }
                        if let record = part.inserted[id] { return record }
                        if let k = table.position(of: id) { return part.updated[id] ?? table.records[k] }
                    }
                    return nil
                }, state.version)
            }
        }
    }
}
