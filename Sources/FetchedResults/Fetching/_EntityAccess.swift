import Foundation
import InternalTableUtilities
import RecordStore
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

    /// What ``sendableValueReader(_:)`` reads, for all the rows at once,
    /// when most of them are records of the store's file: one entity,
    /// nothing unsaved, and rows for a sixth of the file's records or more.
    /// The file is read in its own order, a few chunks under the store's
    /// lock at a time, each record decoded once and its values put at its
    /// row; the rows whose records are not in the file (saved since) are
    /// read by identity after. Row by row, each record is found by its
    /// identity, then walked to in its chunk: at a million rows, about four
    /// times the cost. Nil when it does not apply.
    ///
    /// The reader returns the values of every row, `readers.count` a row,
    /// and the store's version when they were read (-1 when a save came
    /// between two parts of the file: they may disagree); nil when `stop`
    /// returned true.
    ///
    /// - Complexity: O(*n*) records decoded for *n* in the file, and a
    ///   table of the rows' identities.
    func sendableWholeValueReader(
        _ readers: [RecordReader<R>], rowCount: Int
    ) -> (@Sendable (_ rows: [[R.ID]], _ stop: @Sendable () -> Bool) -> (values: [RecordValue?], version: Int64)?)? {
        guard members.count == 1 else { return nil }
        let entity = members[0], pending = context.pending(entity, R.self).pending
        guard pending.inserted.isEmpty, pending.updated.isEmpty, pending.deleted.isEmpty else { return nil }
        let store = self.store
        let fileRecords = store.state.withLock { $0.table(entity, R.self).base?.count ?? 0 }
        // Up to 2M rows: it holds every row's values and a table of their
        // identities at once (about 60 MB a million rows), where row by row
        // holds a batch.
        guard fileRecords > 0, rowCount >= fileRecords / 6, rowCount <= 2_000_000 else { return nil }
        let byIdentity = sendableValueReader(readers)
        return { rows, stop in
            let keyCount = readers.count
            var rowOf: [R.ID: Int32] = [:]
            rowOf.reserveCapacity(rowCount)
            for chunk in rows { for id in chunk { rowOf[id] = Int32(rowOf.count) } }
            var values = [RecordValue?](repeating: nil, count: rowOf.count * keyCount)
            var read = _Bits(count: rowOf.count)
            var version: Int64?, file: ObjectIdentifier?
            var next = 0, done = false
            while !done {
                if stop() { return nil }
                store.state.withLock { state in
                    let table = state.table(entity, R.self)
                    // A save between two parts: the parts may disagree (the
                    // caller makes the rows again); the file replaced by a
                    // compaction: the rest is read by identity.
                    if version == nil { version = state.version } else if version != state.version { version = -1 }
                    guard let base = table.base, file == nil || file == ObjectIdentifier(base) else {
                        done = true
                        return
                    }
                    file = ObjectIdentifier(base)
                    let chunks = next..<Swift.min(base.chunkCount, next + 8)   // about 64 KB of a file
                    do throws(StoreError) {
                        try table.forEachBaseRecord(inChunks: chunks, damaged: { $0 }) { (_, record: borrowing R, _, _) throws(StoreError) in
                            guard let row = rowOf[record.id].map(Int.init) else { return }
                            for (k, reader) in readers.enumerated() { values[row * keyCount + k] = reader(record) }
                            read[row] = true
                        }
                    } catch {
                        // Damage in the file: the table keeps it (`damage`,
                        // which the controller reports); the rows not read
                        // here are read by identity after, as row by row.
                    }
                    next = chunks.upperBound
                    done = next >= base.chunkCount
                }
            }
            // The rows not read from the file, by identity.
            var rest: [(row: Int, id: R.ID)] = []
            for (id, row) in rowOf where !read[Int(row)] { rest.append((Int(row), id)) }
            var start = 0
            while start < rest.count {
                if stop() { return nil }
                let part = rest[start..<Swift.min(rest.count, start + 1024)]
                let (found, seen) = byIdentity(part.map(\.id))
                if version != seen { version = -1 }
                for (j, entry) in part.enumerated() {
                    for k in 0..<keyCount { values[entry.row * keyCount + k] = found[j * keyCount + k] }
                }
                start += part.count
            }
            return (values, version ?? -1)
        }
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

// A fetch's pass over what a context sees (the store and its contexts know
// nothing of fetches and their errors).
extension _EntityPending {
    /// Calls `body` with every record this context sees, unordered: the store's
    /// under its lock (pending changes on top), then pending inserts.
    ///
    /// - Throws: what `body` throws; ``FetchError/unreadable(_:)`` when a
    ///   record cannot be read from the store's file.
    @inlinable
    func forEachRecord(in store: ObjectStore, _ body: (borrowing R, Int64) throws(FetchError) -> Void) throws(FetchError) {
        let updated = pending.updated, deleted = pending.deleted
        let changed = !updated.isEmpty || !deleted.isEmpty
        let entity = entity
        try store.state.withLock { state throws(FetchError) in
            let table = state.table(entity, R.self)
            // The body borrows each record, no copy.
            try table.forEachRecord(damaged: { FetchError.unreadable($0) }) { record, sequence, _ throws(FetchError) in
                if changed {
                    let id = record.id
                    if deleted.contains(id) { return }
                    if let update = updated[id] {
                        try body(update, sequence)
                        return
                    }
                }
                try body(record, sequence)
            }
        }
        for id in pending.insertedIDs {
            if let record = pending.inserted[id], let sequence = pending.insertedSequences[id] { try body(record, sequence) }
        }
    }
}
