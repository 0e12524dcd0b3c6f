import Foundation
import InternalTableUtilities
import PredicateFormat
import Records
import TableDiff

/// The embedded object store: records of one type, in memory, kept by a
/// persistence — a journal file, your own database, or nothing.
///
/// A store is shared: any number of ``ObjectContext``s — on any threads — read
/// from it and save into it; its state is behind a lock. Every save posts
/// `Notification.Name.objectContextDidSave` and is delivered to
/// every ``didSaveNotifications()`` sequence.
///
/// ```swift
/// let store = try ObjectStore<Entry>(fileURL: url)   // or ObjectStore<Entry>() in memory
/// let context = ObjectContext(store: store)
/// try context.insert(Entry(id: UUID(), text: "Fog", created: Date()))
/// try context.save()
/// ```
///
/// **Files.** ``init(fileURL:)`` keeps the store in a ``JournalFilePersistence``:
/// a checksummed snapshot followed by an append-only journal. A save appends
/// one checksummed record of what it changed and flushes it to the disk
/// before it returns, so it costs the change, not the store; the journal is
/// folded into a new snapshot, atomically, in the background. A crash at any
/// moment loses no acknowledged save and applies no partial one; a damaged
/// file is an error that names the offset and leaves the file untouched.
/// Files written by earlier versions (one JSON document) are read and
/// converted. The format is documented in <doc:StoreFileFormat>.
///
/// **Sharing a file.** Several stores may open the same file, in one process
/// or several: a save takes the file's lock, picks up what the others saved
/// since this store last read (delivering it as a save with
/// ``ContextDidSave/isExternal`` set), resolves conflicts by the saving
/// context's ``MergePolicy``, and appends. ``mergeExternalChanges()`` picks
/// them up without saving.
public final class ObjectStore<R: Record & Codable>: Sendable {
    /// The file the store lives in, or nil when its persistence is not a file.
    public let fileURL: URL?
    /// The records and their bookkeeping, behind the store's lock: the first
    /// lock of a save (`_LockLevel.objectStore`; the order of the store's
    /// locks is in `_LockLevel+Store.swift` and <doc:StoreFileFormat>). A
    /// save holds it while the persistence takes its own locks and writes.
    @usableFromInline let state: _Lock<_StoreState<R>>
    let persistence: _PersistenceBase<R>

    /// A store in memory (its persistence is a ``MemoryPersistence``).
    public init() {
        fileURL = nil
        persistence = _PersistenceBox(MemoryPersistence<R>())
        state = _Lock(_StoreState(), level: .objectStore)
    }

    /// The store in the journal file at `fileURL`: read if it exists (a file
    /// of an earlier version is converted), created otherwise.
    ///
    /// - Throws: ``StoreError/unreadable(path:reason:)`` (a folder, a dangling
    ///   symbolic link, no permission), ``StoreError/corrupt(path:reason:)`` (not
    ///   a store), ``StoreError/damaged(path:offset:reason:)`` (a checksum
    ///   fails), ``StoreError/unwritable(path:reason:)`` (it cannot be
    ///   created); the file is not changed.
    /// - Complexity: O(*n*) for *n* records in the file.
    public convenience init(fileURL: URL) throws(StoreError) {
        try self.init(persistence: JournalFilePersistence<R>(fileURL: fileURL), fileURL: fileURL)
    }

    /// A store kept by `persistence`: everything it holds is loaded now.
    ///
    /// - Throws: what the persistence's ``StorePersistence/load()`` throws.
    /// - Complexity: O(*n*) for *n* records loaded.
    public convenience init<P: StorePersistence>(persistence: P) throws(StoreError) where P.Object == R {
        try self.init(persistence: persistence, fileURL: (persistence as? JournalFilePersistence<R>)?.fileURL)
    }

    private init<P: StorePersistence>(persistence: P, fileURL: URL?) throws(StoreError) where P.Object == R {
        self.fileURL = fileURL
        self.persistence = _PersistenceBox(persistence)
        let contents = try persistence.load()
        var state = try _StoreState<R>(contents)
        for changeSet in contents.changeSets { _ = try state.applyChecked(changeSet) }
        self.state = _Lock(state, level: .objectStore)
    }

    /// A store in memory (a ``MemoryPersistence``) that starts with `records`,
    /// as if a context had inserted them in this order and saved them once
    /// (the store's version is then 1; nobody is notified): the fast way to
    /// load many records, without a context's bookkeeping per record.
    ///
    /// - Throws: ``StoreError/duplicateIdentity(_:)`` when two records have
    ///   the same identity; no store is made.
    /// - Complexity: O(*n*) for *n* records.
    @inlinable
    public convenience init(records: [R]) throws(StoreError) {
        self.init()
        try state.withLock { state throws(StoreError) in try state.load(records) }
    }

    /// The number of records in the store.
    public var count: Int { state.withLock { $0.records.count } }

    /// The version of the last save (0 before the first).
    public var version: Int64 { state.withLock { $0.version } }

    /// The record with an identity, as last saved.
    public func object(withID id: R.ID) -> R? {
        state.withLock { state in state.position(of: id).map { state.records[$0] } }
    }

    /// Every record, in the order they were first inserted.
    ///
    /// - Complexity: O(*n* log *n*).
    public func allObjects() -> [R] {
        state.withLock { state in state.order().map { state.records[$0] } }
    }

    /// Damage the persistence repaired since the store opened: saves whose
    /// writer died while writing them (never acknowledged), dropped.
    public var recoveries: [StoreRecovery] { state.withLock { $0.recoveries } }

    /// A sequence of every save into this store, from now on, from any
    /// context, and of the saves other stores on the same file made, as this
    /// store picks them up.
    public func didSaveNotifications() -> AsyncStream<ContextDidSave<R>> {
        let (stream, continuation) = AsyncStream<ContextDidSave<R>>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        state.withLock { $0.subscribers[key] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: key) }
        }
        return stream
    }

    /// Picks up the saves other stores on the same file (or database) made
    /// since this store last read it, and delivers each as a save with
    /// ``ContextDidSave/isExternal`` set: to ``didSaveNotifications()`` and
    /// as `Notification.Name.objectContextDidSave` with the store
    /// as its object. A save does this first on its own.
    ///
    /// - Returns: the saves picked up, oldest first.
    /// - Throws: ``StoreError`` when the file cannot be read or is damaged;
    ///   the store is unchanged.
    /// - Complexity: O(*k*) for *k* records changed, O(*n*) when another
    ///   store compacted the file meanwhile.
    @discardableResult
    public func mergeExternalChanges() throws(StoreError) -> [ContextDidSave<R>] {
        let (saves, subscribers) = try state.withLock { state throws(StoreError) in
            let changes = try persistence.changesSinceLastRead()
            return (try state.applyExternal(changes), Array(state.subscribers.values))
        }
        deliver(saves, to: subscribers)
        return saves
    }

    /// Rewrites the persistence in its most compact form (the journal file
    /// folds its journal into a new snapshot; it also does this by itself, in
    /// the background, when the journal outgrows half the snapshot).
    ///
    /// - Complexity: O(*n*).
    public func compact() throws(StoreError) {
        try persistence.compact()
    }

    /// Reserves the first-insertion order of a record a context inserts, so that
    /// its place among equal sort keys is final before it is saved.
    func reserveSequence() -> Int64 {
        state.withLock { state in
            defer { state.nextSequence += 1 }
            return state.nextSequence
        }
    }

    /// A record with its version and first-insertion order.
    func lookup(_ id: R.ID) -> (record: R, version: Int64, sequence: Int64)? {
        state.withLock { state in state.position(of: id).map { (state.records[$0], state.versions[$0], state.sequences[$0]) } }
    }

    /// A record's newest version that `accepts` takes — the current one, or
    /// one a recent save replaced (see `_ReplacedVersions`) — with the
    /// current version's first-insertion order; nil when the store has no
    /// such record, and a nil version when it no longer knows one accepted.
    func lookup(_ id: R.ID, newestOf accepts: (Int64) -> Bool) -> (accepted: (record: R, version: Int64)?, sequence: Int64)? {
        state.withLock { state in
            guard let k = state.position(of: id) else { return nil }
            if accepts(state.versions[k]) { return ((state.records[k], state.versions[k]), state.sequences[k]) }
            return (state.replaced.newest(of: id, where: accepts).map { ($0.record, $0.version) }, state.sequences[k])
        }
    }

    /// Commits a context's changes: picks up other stores' saves, resolves
    /// conflicts by the request's policy, writes, and applies. On any error
    /// nothing of the request changes, in memory or in the persistence (other
    /// stores' saves picked up on the way stay picked up, and are delivered).
    ///
    /// Locks, in order (`_LockLevel+Store.swift`): the store's state, held
    /// throughout; inside it the persistence takes its own (the journal's
    /// state, then the file's flock) and calls back with the state held here.
    func commit(_ request: _SaveRequest<R>) throws(StoreError) -> _SaveOutcome<R> {
        var external: [ContextDidSave<R>] = []
        var subscribers: [AsyncStream<ContextDidSave<R>>.Continuation] = []
        let result: Result<_SaveOutcome<R>, StoreError> = state.withLock { state in
            subscribers = Array(state.subscribers.values)
            var resolution: _Resolution<R>?
            do throws(StoreError) {
                try persistence.commit { changes throws(StoreError) -> StoreChangeSet<R>? in
                    external += try state.applyExternal(changes)
                    let resolved = try _Resolution(request, in: state)
                    resolution = resolved
                    return resolved.changeSet
                }
            } catch {
                return .failure(error)
            }
            guard let resolution else { return .failure(.unwritable(path: fileURL?.path ?? "memory", reason: "the persistence did not commit")) }
            var saved = ContextDidSave<R>(
                insertedObjects: [], updatedObjects: [], deletedObjects: [],
                storeVersion: state.version, contextName: request.contextName)
            saved.firstStoreVersion = state.version + 1
            if let changeSet = resolution.changeSet {
                let applied = state.apply(changeSet)
                saved = ContextDidSave(
                    insertedObjects: applied.inserted, updatedObjects: applied.updated, deletedObjects: applied.deleted,
                    storeVersion: state.version, contextName: request.contextName)
                state.fetchCaches.removeAll()
            }
            saved.propertyMergeFallbacks = resolution.fallbacks
            return .success(_SaveOutcome(saved: saved, resolvedIDs: resolution.resolvedIDs))
        }
        deliver(external, to: subscribers)
        let outcome = try result.get()
        if outcome.saved.firstStoreVersion <= outcome.saved.storeVersion {
            for subscriber in subscribers { subscriber.yield(outcome.saved) }
        }
        return outcome
    }

    /// Delivers saves picked up from the persistence.
    private func deliver(_ saves: [ContextDidSave<R>], to subscribers: [AsyncStream<ContextDidSave<R>>.Continuation]) {
        for saved in saves {
            for subscriber in subscribers { subscriber.yield(saved) }
            NotificationCenter.default.post(name: .objectContextDidSave, object: self, userInfo: saved.userInfo)
        }
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
    /// Whether another store on the same file (or database) made the save,
    /// and this store picked it up.
    public var isExternal = false
    /// The conflicting records the saving context's merge-by-property policy
    /// saved whole, not merged property by property (see
    /// ``PropertyMergeFallback``); empty under the other policies and when
    /// every conflict merged.
    public var propertyMergeFallbacks: [PropertyMergeFallback] = []
    /// The first store version the save covers (the save covers
    /// `firstStoreVersion...storeVersion`; more than one when picked up from
    /// a compacted file, none when nothing was written).
    var firstStoreVersion: Int64

    init(insertedObjects: [R], updatedObjects: [R], deletedObjects: [R], storeVersion: Int64, contextName: String?, isExternal: Bool = false, firstStoreVersion: Int64? = nil) {
        self.insertedObjects = insertedObjects
        self.updatedObjects = updatedObjects
        self.deletedObjects = deletedObjects
        self.storeVersion = storeVersion
        self.contextName = contextName
        self.isExternal = isExternal
        self.firstStoreVersion = firstStoreVersion ?? storeVersion
    }

    /// The identities inserted.
    public var insertedIDs: [R.ID] { insertedObjects.map(\.id) }
    /// The identities updated.
    public var updatedIDs: [R.ID] { updatedObjects.map(\.id) }
    /// The identities deleted.
    public var deletedIDs: [R.ID] { deletedObjects.map(\.id) }

    /// The notification's `userInfo`.
    var userInfo: [AnyHashable: Any] {
        [
            _ContextKeys.inserted: insertedIDs.map(AnyHashable.init),
            _ContextKeys.updated: updatedIDs.map(AnyHashable.init),
            _ContextKeys.deleted: deletedIDs.map(AnyHashable.init),
            _ContextKeys.changes: self,
        ]
    }
}

/// The `userInfo` keys of the context's notifications.
enum _ContextKeys {
    static let inserted = "inserted"
    static let updated = "updated"
    static let deleted = "deleted"
    static let changes = "changes"
}

/// The persistence behind a store, whatever its type.
class _PersistenceBase<R: Record & Codable>: @unchecked Sendable {
    func load() throws(StoreError) -> StoreContents<R> { StoreContents() }
    func changesSinceLastRead() throws(StoreError) -> ExternalChanges<R> { .none }
    func commit(_ prepare: (ExternalChanges<R>) throws(StoreError) -> StoreChangeSet<R>?) throws(StoreError) { _ = try prepare(.none) }
    func compact() throws(StoreError) {}
}

final class _PersistenceBox<P: StorePersistence>: _PersistenceBase<P.Object>, @unchecked Sendable {
    let base: P
    init(_ base: P) { self.base = base }
    override func load() throws(StoreError) -> StoreContents<P.Object> { try base.load() }
    override func changesSinceLastRead() throws(StoreError) -> ExternalChanges<P.Object> { try base.changesSinceLastRead() }
    override func commit(_ prepare: (ExternalChanges<P.Object>) throws(StoreError) -> StoreChangeSet<P.Object>?) throws(StoreError) {
        try base.commit(prepare)
    }
    override func compact() throws(StoreError) { try base.compact() }
}
