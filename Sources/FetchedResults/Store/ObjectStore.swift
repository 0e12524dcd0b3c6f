import Foundation
import TableDiff
import InternalTableUtilities

/// The embedded object store: records of one type, in memory, optionally kept
/// in a file that every save replaces atomically.
///
/// A store is shared: any number of ``ObjectContext``s — on any threads — read
/// from it and save into it; its state is behind a lock. Every save posts
/// `Notification.Name.objectContextDidSave` and is delivered to every
/// ``didSaveNotifications()`` sequence.
///
/// ```swift
/// let store = try ObjectStore<Entry>(fileURL: url)   // or ObjectStore<Entry>() in memory
/// let context = ObjectContext(store: store)
/// try context.insert(Entry(id: UUID(), text: "Fog", created: .now))
/// try context.save()
/// ```
///
/// **Files.** A save writes the whole store to a temporary file next to the
/// store's, flushes it to disk, and renames it over the store's file: a crash at
/// any moment leaves either the previous file or the new one, never a mix.
/// Opening reads it back exactly (dates to the bit, any Unicode, nested values).
/// A damaged or unreadable file is an error that leaves the file untouched.
public final class ObjectStore<R: Record & Codable>: Sendable {
    /// The file the store lives in, or nil for a store in memory.
    public let fileURL: URL?
    @usableFromInline let state: _Lock<_StoreState<R>>

    /// A store in memory.
    public init() {
        fileURL = nil
        state = _Lock(_StoreState())
    }

    /// The store in `fileURL`: read if the file exists, created at the first save
    /// otherwise.
    ///
    /// - Throws: ``StoreError/unreadable(path:reason:)`` or
    ///   ``StoreError/corrupt(path:reason:)``; the file is not changed.
    public init(fileURL: URL) throws(StoreError) {
        self.fileURL = fileURL
        state = _Lock(try _StoreFile<R>.read(fileURL) ?? _StoreState())
    }

    /// The number of records in the store.
    public var count: Int { state.withLock { $0.records.count } }

    /// The record with an identity, as last saved.
    public func object(withID id: R.ID) -> R? {
        state.withLock { state in state.index[id].map { state.records[$0] } }
    }

    /// Every record, in the order they were first inserted.
    public func allObjects() -> [R] {
        state.withLock { state in state.order().map { state.records[$0] } }
    }

    /// A sequence of every save into this store, from now on, from any context.
    public func didSaveNotifications() -> AsyncStream<ContextDidSave<R>> {
        let (stream, continuation) = AsyncStream<ContextDidSave<R>>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        state.withLock { $0.subscribers[key] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: key) }
        }
        return stream
    }

    /// Reserves the first-insertion order of a record a context inserts, so that
    /// its place among equal sort keys is final before it is saved.
    func reserveSequence() -> Int64 {
        state.withLock { state in
            defer { state.nextSequence += 1 }
            return state.nextSequence
        }
    }

    /// Applies a context's changes at once, writes the file, and returns what
    /// was saved. On any error nothing changes, in memory or on disk.
    func commit(inserted: [(record: R, sequence: Int64)], updated: [R], deleted: [R.ID], contextName: String?) throws(StoreError) -> ContextDidSave<R> {
        let (saved, subscribers) = try state.withLock { state throws(StoreError) -> (ContextDidSave<R>, [AsyncStream<ContextDidSave<R>>.Continuation]) in
            var seen = Set<R.ID>()
            for (record, _) in inserted {
                if state.index[record.id] != nil || !seen.insert(record.id).inserted {
                    throw .duplicateIdentity("\(record.id)")
                }
            }
            for record in updated where state.index[record.id] == nil { throw .missingObject("\(record.id)") }
            let deleted = deleted.filter { state.index[$0] != nil }

            var undo = _StoreState<R>.Undo()
            for record in updated { state.replace(record, undo: &undo) }
            for id in deleted { state.remove(id, undo: &undo) }
            for (record, sequence) in inserted { state.append(record, sequence: sequence, undo: &undo) }
            state.version += 1
            if let fileURL {
                do throws(StoreError) {
                    try _StoreFile<R>.write(state, to: fileURL)
                } catch {
                    state.revert(undo)
                    state.version -= 1
                    throw error
                }
            }
            state.fetchCaches.removeAll()
            let saved = ContextDidSave(
                insertedObjects: inserted.map(\.record), updatedObjects: updated, deletedObjects: undo.removed.map(\.0),
                storeVersion: state.version, contextName: contextName)
            return (saved, Array(state.subscribers.values))
        }
        for subscriber in subscribers { subscriber.yield(saved) }
        return saved
    }
}

/// The state behind a store's lock.
@usableFromInline
struct _StoreState<R: Record> {
    /// The records, densely; a deleted record's place is taken by the last one.
    @usableFromInline var records: [R] = []
    /// For every record, the order it was first inserted in (stable, never reused).
    @usableFromInline var sequences: [Int64] = []
    @usableFromInline var index: [R.ID: Int] = [:]
    var nextSequence: Int64 = 1
    /// Increases with every save.
    @usableFromInline var version: Int64 = 0
    var subscribers: [UUID: AsyncStream<ContextDidSave<R>>.Continuation] = [:]
    /// Cached fetch results, by cache name (see `FetchedResultsController`).
    @usableFromInline var fetchCaches: [String: _FetchCache] = [:]

    init() {}

    init(records: [R], sequences: [Int64], nextSequence: Int64) {
        self.records = records
        self.sequences = sequences
        self.nextSequence = nextSequence
        for (k, record) in records.enumerated() { index[record.id] = k }
    }

    /// Positions of the records in order of first insertion.
    func order() -> [Int] { records.indices.sorted { sequences[$0] < sequences[$1] } }

    /// What a save changed, to take it back.
    struct Undo {
        var replaced: [R] = []
        var removed: [(R, Int64)] = []
        var appended: [R.ID] = []
    }

    mutating func replace(_ record: R, undo: inout Undo) {
        guard let k = index[record.id] else { return }
        undo.replaced.append(records[k])
        records[k] = record
    }

    mutating func remove(_ id: R.ID, undo: inout Undo) {
        guard let k = index.removeValue(forKey: id) else { return }
        undo.removed.append((records[k], sequences[k]))
        let last = records.count - 1
        if k != last {
            records[k] = records[last]
            sequences[k] = sequences[last]
            index[records[k].id] = k
        }
        records.removeLast()
        sequences.removeLast()
    }

    mutating func append(_ record: R, sequence: Int64, undo: inout Undo) {
        append(record, sequence: sequence)
        nextSequence = max(nextSequence, sequence + 1)
        undo.appended.append(record.id)
    }

    mutating func append(_ record: R, sequence: Int64) {
        index[record.id] = records.count
        records.append(record)
        sequences.append(sequence)
    }

    mutating func revert(_ undo: Undo) {
        var ignored = Undo()
        for id in undo.appended.reversed() { remove(id, undo: &ignored) }
        for (record, sequence) in undo.removed.reversed() { append(record, sequence: sequence) }
        for record in undo.replaced.reversed() { replace(record, undo: &ignored) }
    }
}

/// What one save changed: posted as `Notification.Name.objectContextDidSave`,
/// delivered by ``ObjectStore/didSaveNotifications()``, and merged into other
/// contexts with ``ObjectContext``'s `mergeChanges(fromContextDidSave:)`.
public struct ContextDidSave<R: Record>: Sendable {
    /// The records inserted, as saved.
    public var insertedObjects: [R]
    /// The records updated, as saved.
    public var updatedObjects: [R]
    /// The records deleted, as they were.
    public var deletedObjects: [R]
    /// The store's version after the save.
    public var storeVersion: Int64
    /// The saving context's name, if it has one.
    public var contextName: String?

    /// The identities inserted.
    public var insertedIDs: [R.ID] { insertedObjects.map(\.id) }
    /// The identities updated.
    public var updatedIDs: [R.ID] { updatedObjects.map(\.id) }
    /// The identities deleted.
    public var deletedIDs: [R.ID] { deletedObjects.map(\.id) }
}
