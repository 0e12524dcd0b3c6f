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

    /// What `readers` read from the records `object(withID:)` gives now,
    /// readable from another thread: the context's unsaved records as they
    /// are now (copied), then the store's — in memory or read from its file
    /// (under its lock, a batch of identities at a time) — with the store's
    /// version when they were read: a save in the store meanwhile shows
    /// through, and the caller compares versions.
    ///
    /// The values of a batch come one identity after the other,
    /// `readers.count` each; nil for an identity with no record. (Values,
    /// not records: a record is read where it is kept, not copied out.)
    func sendableValueReader(_ readers: [RecordReader<R>]) -> @Sendable ([R.ID]) -> (values: [RecordValue?], version: Int64) {
        let parts = members.map { member -> (entity: Int, inserted: [R.ID: R], updated: [R.ID: R], deleted: Set<R.ID>) in
            let pending = context.pending(member, R.self).pending
            return (member, pending.inserted, pending.updated, pending.deleted)
        }
        let store = self.store
        // One entity and nothing unsaved (a context that only reads): each
        // identity is one look-up in one table.
        if parts.count == 1, parts[0].inserted.isEmpty, parts[0].updated.isEmpty, parts[0].deleted.isEmpty {
            let entity = parts[0].entity
            return { ids in
                store.state.withLock { state in
                    let table = state.table(entity, R.self)
                    var values: [RecordValue?] = []
                    values.reserveCapacity(ids.count * readers.count)
                    // Read in place, `inout` (see `_RecordIndex.withIdentityTest`): never written.
                    func read(_ record: inout R) {
                        for reader in readers { values.append(reader(record)) }
                    }
                    table.records.withUnsafeBufferPointer { buffer in
                        let records = buffer.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
                        for id in ids {
                            if let k = table.position(of: id), let records {
                                read(&records[k])
                            } else if var record = table.recordForAPass(id) {
                                read(&record)
                            } else {
                                for _ in readers { values.append(nil) }
                            }
                        }
                    }
                    return (values, state.version)
                }
            }
        }
        return { ids in
            store.state.withLock { state in
                let tables = parts.map { state.table($0.entity, R.self) }
                var values: [RecordValue?] = []
                values.reserveCapacity(ids.count * readers.count)
                for id in ids {
                    var found: R?
                    for (part, table) in zip(parts, tables) {
                        if part.deleted.contains(id) { break }
                        if let record = part.inserted[id] {
                            found = record
                            break
                        }
                        if let record = table.recordForAPass(id) {
                            found = part.updated[id] ?? record
                            break
                        }
                    }
                    if let found {
                        for reader in readers { values.append(reader(found)) }
                    } else {
                        for _ in readers { values.append(nil) }
                    }
                }
                return (values, state.version)
            }
        }
    }
}
