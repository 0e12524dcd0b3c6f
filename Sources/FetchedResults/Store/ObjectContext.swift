import Foundation
import InternalTableUtilities
import PredicateFormat
import Records
import TableDiff

extension Notification.Name {
    /// Posted by an ``ObjectContext`` after every save; the object is the
    /// context, `userInfo` holds the identities under ``ObjectContext/insertedKey``,
    /// ``ObjectContext/updatedKey`` and ``ObjectContext/deletedKey`` (each an
    /// `[AnyHashable]`) and the whole ``ContextDidSave`` under
    /// ``ObjectContext/changesKey``. A store posts it too, with itself as the
    /// object, for each save of another store on the same file that it picks
    /// up (``ContextDidSave/isExternal``).
    public static let objectContextDidSave = Notification.Name("HeadlessTable.ObjectContextDidSave")

    /// Posted by an ``ObjectContext`` at the start of a save that has changes,
    /// before they are processed (Core Data's `NSManagedObjectContextWillSave`):
    /// an observer may still change the context, and the save includes it. The
    /// object is the context; ``ObjectContext/changesKey`` holds a
    /// ``ContextWillSave``.
    public static let objectContextWillSave = Notification.Name("HeadlessTable.ObjectContextWillSave")

    /// Posted by an ``ObjectContext`` each time changes in it are processed
    /// (Core Data's `NSManagedObjectContextObjectsDidChange`): its own changes
    /// by ``ObjectContext/processPendingChanges()`` (which a save does first),
    /// a rollback, a merged save, records a merge policy changed in a save.
    /// The object is the context; `userInfo` holds the identities under
    /// ``ObjectContext/insertedKey``, ``ObjectContext/updatedKey`` and
    /// ``ObjectContext/deletedKey``, and a ``ContextObjectsDidChange`` under
    /// ``ObjectContext/changesKey``. Posted after the context's fetched results
    /// controllers have been told.
    public static let objectContextObjectsDidChange = Notification.Name("HeadlessTable.ObjectContextObjectsDidChange")
}

/// A scratch pad of changes on an ``ObjectStore``: insert, update and delete
/// records, then ``save()`` them into the store at once, or ``rollback()``.
///
/// A context belongs to one thread (or actor) at a time; several contexts, on
/// different threads, share one store. What one context saves reaches another
/// when that one merges the save:
///
/// ```swift
/// let task = Task { @MainActor in
///     for await saved in store.didSaveNotifications() {
///         viewContext.mergeChanges(fromContextDidSave: saved)
///     }
/// }
/// ```
///
/// A context's view of the records is the store's, with its own pending changes
/// on top. Fetched results controllers on the context follow its changes when
/// they are processed (``processPendingChanges()``, which ``save()`` does first,
/// or at once with ``automaticallyProcessesPendingChanges``), rolled back, or
/// merged from another context's save.
///
/// **Conflicts.** A save of a record that changed in the store since this
/// context read it is resolved by the context's ``mergePolicy``; by default it
/// fails with ``StoreError/mergeConflicts(_:)`` and changes nothing.
public final class ObjectContext<R: Record & Codable> {
    /// `userInfo` keys of the context's notifications.
    public static var insertedKey: String { _ContextKeys.inserted }
    public static var updatedKey: String { _ContextKeys.updated }
    public static var deletedKey: String { _ContextKeys.deleted }
    public static var changesKey: String { _ContextKeys.changes }

    /// The store the context reads from and saves into.
    public let store: ObjectStore<R>
    /// A name for messages and notifications.
    public var name: String?
    /// How a save resolves records that changed in the store since this
    /// context read them; ``MergePolicy/error`` (refuse the save) by default,
    /// as in Core Data.
    public var mergePolicy: MergePolicy = .error
    /// Whether each change is processed as it is made, so that the context's
    /// fetched results controllers (and `objectContextObjectsDidChange`
    /// observers) see it at once, without a call to ``processPendingChanges()``.
    ///
    /// Core Data processes pending changes at the end of each event of the
    /// main run loop; a headless context has no run loop, so the event is the
    /// call: with this on, each ``insert(_:)``, ``update(_:)`` and
    /// ``delete(_:)`` processes its change before it returns — one change per
    /// report. Changes made inside ``performChanges(_:)`` are processed once,
    /// together, when the outermost block returns. Off by default: changes
    /// are processed by ``processPendingChanges()`` and by ``save()``.
    public var automaticallyProcessesPendingChanges = false

    /// The changes not yet saved, and those not yet processed: one value,
    /// replaced whole by a save and by a rollback.
    @usableFromInline var pending = _PendingChanges<R>()
    /// Records read with `object(withID:)` whose version came from a save this
    /// context has not merged: what it read.
    var snapshots: [R.ID: _Base<R>] = [:]
    /// The store versions this context has seen: the store's when it was
    /// created, its own saves, the saves it merged.
    var seen: _SeenVersions
    private var observers: [Int: (_ContextChange<R>) -> Void] = [:]
    private var nextObserver = 0
    /// How deep in `performChanges` blocks the context is.
    private var changeDepth = 0
    private let streams = _Lock(_ContextStreams<R>())

    /// A context on `store`, with no pending changes; `name` appears in its
    /// notifications (``ContextDidSave/contextName``) and messages.
    public init(store: ObjectStore<R>, name: String? = nil) {
        self.store = store
        self.name = name
        seen = _SeenVersions(through: store.version)
    }

    // MARK: Reading

    /// The record with an identity as this context sees it: its pending change,
    /// or the store's; nil when absent or deleted here. (A pending update of a
    /// record another context deleted is not seen.)
    ///
    /// Reading a record counts as having read its version: a later update of
    /// it conflicts only if the store changes it again before the save.
    public func object(withID id: R.ID) -> R? {
        if pending.deleted.contains(id) { return nil }
        if let record = pending.inserted[id] { return record }
        guard let saved = store.lookup(id) else { return nil }
        if let update = pending.updated[id] { return update }
        if !seen.contains(saved.version) {
            snapshots[id] = _Base(version: saved.version, record: saved.record, sequence: saved.sequence)
        }
        return saved.record
    }

    /// What `object(withID:)` says now, readable from another thread: the
    /// context's unsaved records as they are now (copied), then the store's
    /// (read under its lock, a batch of identities at a time), with the
    /// store's version when they were read: a save in the store meanwhile
    /// shows through, and the caller compares versions.
    package func sendableReader() -> @Sendable ([R.ID]) -> (records: [R?], version: Int64) {
        let inserted = pending.inserted, updated = pending.updated, deleted = pending.deleted, store = self.store
        return { ids in
            store.state.withLock { state in
                (ids.map { id -> R? in
                    if deleted.contains(id) { return nil }
                    if let record = inserted[id] { return record }
                    guard let k = state.position(of: id) else { return nil }
                    return updated[id] ?? state.records[k]
                }, state.version)
            }
        }
    }

    /// The store's version (of its last save).
    package var storeVersion: Int64 { store.state.withLock { $0.version } }

    /// `object(withID:)` without counting as a read.
    func peek(_ id: R.ID) -> R? {
        if pending.deleted.contains(id) { return nil }
        if let record = pending.inserted[id] { return record }
        guard let saved = store.object(withID: id) else { return nil }
        return pending.updated[id] ?? saved
    }

    /// Whether the fetched results controllers following this context show what
    /// a fetch would show now: no change waits to be processed, and every save
    /// in the store was made or merged here. (Narrowing a search relies on it.)
    package var controllersAreCurrent: Bool {
        pending.unprocessed.isEmpty && store.state.withLock { seen.contains($0.version) && seen.through >= $0.version }
    }

    /// Whether the context has changes not yet saved.
    @inlinable
    public var hasChanges: Bool { pending.hasChanges }

    /// The records inserted, updated and deleted here and not yet saved.
    public var insertedObjects: [R] { pending.insertedIDs.compactMap { pending.inserted[$0] } }
    public var updatedObjects: [R] { Array(pending.updated.values) }
    public var deletedIDs: Set<R.ID> { pending.deleted }

    /// The records matching a request, in its order, as this context sees them.
    ///
    /// - Complexity: O(*n* log *n*) for *n* records in the store.
    public func fetch(_ request: FetchRequest<R>) throws(FetchError) -> [R] {
        let compiled = try _CompiledRequest(request, sectionKeyPath: nil)
        var fetched = try _Fetch.run(compiled, in: self, keepRecords: true)
        fetched.narrow(offset: request.fetchOffset, limit: request.fetchLimit)
        return (consume fetched).sortedRecords()
    }

    /// The number of records matching a request (its offset and limit applied).
    ///
    /// - Complexity: O(*n*) for *n* records in the store.
    public func count(for request: FetchRequest<R>) throws(FetchError) -> Int {
        let matches = try _Fetch.count(try _CompiledRequest(request, sectionKeyPath: nil), in: self)
        let afterOffset = max(0, matches - max(0, request.fetchOffset))
        return request.fetchLimit.map { min(afterOffset, max(0, $0)) } ?? afterOffset
    }

    /// Calls `body` with every record this context sees, unordered: the store's
    /// under its lock (pending changes on top), then pending inserts.
    @inlinable
    func forEachRecord(_ body: (borrowing R, Int64) throws(FetchError) -> Void) throws(FetchError) {
        let updated = pending.updated, deleted = pending.deleted
        let changed = !updated.isEmpty || !deleted.isEmpty
        try store.state.withLock { state throws(FetchError) in
            // Through the buffer: the body borrows each record, no copy.
            let sequences = state.sequences
            try state.records.withUnsafeBufferPointer { records throws(FetchError) in
                for k in records.indices {
                    if changed {
                        let id = records[k].id
                        if deleted.contains(id) { continue }
                        if let update = updated[id] {
                            try body(update, sequences[k])
                            continue
                        }
                    }
                    try body(records[k], sequences[k])
                }
            }
        }
        for id in pending.insertedIDs {
            if let record = pending.inserted[id], let sequence = pending.insertedSequences[id] { try body(record, sequence) }
        }
    }

    /// The sequence (first-insertion order) of a record this context sees.
    func sequence(of id: R.ID) -> Int64? {
        if pending.inserted[id] != nil { return pending.insertedSequences[id] }
        return store.state.withLock { state in state.position(of: id).map { state.sequences[$0] } }
    }

    // MARK: Changing

    /// Inserts a record.
    ///
    /// - Throws: ``ContextError/alreadyExists(_:)`` when the context already has
    ///   a record with its identity; nothing changes.
    public func insert(_ record: R) throws(ContextError) {
        let id = record.id
        if pending.deleted.remove(id) != nil {
            pending.updated[id] = record   // deleted here, saved in the store: it comes back as an update
        } else {
            guard peek(id) == nil else { throw .alreadyExists("\(id)") }
            pending.inserted[id] = record
            pending.insertedIDs.append(id)
            pending.insertedSequences[id] = store.reserveSequence()
        }
        didChange(id)
    }

    /// Replaces a record with a new version of it (same identity).
    ///
    /// - Throws: ``ContextError/noSuchObject(_:)`` when the context has no record
    ///   with that identity; nothing changes.
    public func update(_ record: R) throws(ContextError) {
        let id = record.id
        guard peek(id) != nil else { throw .noSuchObject("\(id)") }
        if pending.inserted[id] != nil {
            pending.inserted[id] = record
        } else {
            if pending.bases[id] == nil { pending.bases[id] = base(of: id) }
            pending.updated[id] = record
        }
        didChange(id)
    }

    /// Deletes the record with an identity.
    ///
    /// - Throws: ``ContextError/noSuchObject(_:)`` when the context has no record
    ///   with that identity; nothing changes.
    public func delete(_ id: R.ID) throws(ContextError) {
        guard peek(id) != nil else { throw .noSuchObject("\(id)") }
        if let record = pending.inserted.removeValue(forKey: id) {
            pending.unprocessed.discarded[id] = record
            pending.insertedIDs.removeAll { $0 == id }
            pending.insertedSequences[id] = nil
        } else {
            if pending.bases[id] == nil { pending.bases[id] = base(of: id) }
            pending.updated.removeValue(forKey: id)
            pending.deleted.insert(id)
        }
        didChange(id)
    }

    /// What this context read of a saved record: what it read with
    /// `object(withID:)` of a version it had not seen, else the newest
    /// version it has seen — the store's, or the one a save replaced since
    /// (the context read that one, if any: it has not merged the save).
    private func base(of id: R.ID) -> _Base<R> {
        let seen = self.seen
        guard let current = store.lookup(id, newestOf: { seen.contains($0) }) else {
            return _Base(version: nil, record: nil, sequence: sequence(of: id) ?? .max)
        }
        if let snapshot = snapshots[id] { return snapshot }
        return _Base(version: current.accepted?.version, record: current.accepted?.record, sequence: current.sequence)
    }

    private func didChange(_ id: R.ID) {
        pending.unprocessed.ids.append(id)
        _checkInvariants(of: id)
        if automaticallyProcessesPendingChanges && changeDepth == 0 { processPendingChanges() }
    }

    /// Makes changes as one event: they are processed together when the
    /// outermost such block returns (or throws), in one report to the
    /// context's controllers and one `objectContextObjectsDidChange`.
    ///
    /// ```swift
    /// context.automaticallyProcessesPendingChanges = true
    /// try context.performChanges {
    ///     for entry in imported { try context.insert(entry) }
    /// }   // the controllers report every insert at once, here
    /// ```
    public func performChanges<T>(_ changes: () throws -> T) rethrows -> T {
        changeDepth += 1
        defer {
            changeDepth -= 1
            if changeDepth == 0 { processPendingChanges() }
        }
        return try changes()
    }

    /// Tells the fetched results controllers on this context about the changes
    /// made since the last call, then posts
    /// `Notification.Name.objectContextObjectsDidChange`. ``save()``
    /// calls it first.
    public func processPendingChanges() {
        guard !pending.unprocessed.ids.isEmpty else { return }
        let unprocessed = pending.unprocessed
        pending.unprocessed = _UnprocessedChanges()
        var seenIDs = Set<R.ID>()
        var insertedNow: [R.ID] = [], updatedNow: [R.ID] = [], deletedNow: [R.ID] = []
        for id in unprocessed.ids where seenIDs.insert(id).inserted {
            if pending.inserted[id] != nil {
                insertedNow.append(id)
            } else if pending.updated[id] != nil {
                updatedNow.append(id)
            } else if pending.deleted.contains(id) || unprocessed.discarded[id] != nil {
                deletedNow.append(id)
            } else {
                updatedNow.append(id)
            }
        }
        _checkInvariants()
        notify(inserted: insertedNow, updated: updatedNow, deleted: deletedNow, removed: unprocessed.discarded)
    }

    // MARK: Saving

    /// Saves the pending changes into the store at once, then posts
    /// `Notification.Name.objectContextDidSave` and returns what was saved.
    ///
    /// First it posts `Notification.Name.objectContextWillSave`
    /// and processes pending changes. Records that changed in the store since
    /// this context read them are resolved by ``mergePolicy``. Without
    /// changes it posts nothing and returns an empty save.
    ///
    /// - Throws: ``StoreError`` (``StoreError/mergeConflicts(_:)`` under the
    ///   default policy, ``StoreError/duplicateIdentity(_:)`` for an identity
    ///   inserted elsewhere meanwhile, a file that cannot be written); the
    ///   store is unchanged and the changes stay pending.
    /// - Complexity: O(*k*) for *k* changed records (plus what other stores on
    ///   the same file saved meanwhile).
    @discardableResult
    public func save() throws(StoreError) -> ContextDidSave<R> {
        guard hasChanges else {
            processPendingChanges()
            return ContextDidSave(insertedObjects: [], updatedObjects: [], deletedObjects: [], storeVersion: store.version, contextName: name, firstStoreVersion: .max)
        }
        postWillSave()
        processPendingChanges()
        guard hasChanges else {
            return ContextDidSave(insertedObjects: [], updatedObjects: [], deletedObjects: [], storeVersion: store.version, contextName: name, firstStoreVersion: .max)
        }
        let request = _SaveRequest(
            inserted: pending.insertedIDs.compactMap { id in pending.inserted[id].flatMap { record in pending.insertedSequences[id].map { (record, $0) } } },
            updated: pending.updated.map { id, record in (record, pending.bases[id] ?? base(of: id)) },
            deleted: pending.deleted.map { id in (id, pending.bases[id] ?? base(of: id)) },
            policy: mergePolicy, contextName: name)
        let outcome = try store.commit(request)
        let saved = outcome.saved
        for id in pending.insertedIDs { snapshots[id] = nil }
        for id in pending.updated.keys { snapshots[id] = nil }
        for id in pending.deleted { snapshots[id] = nil }
        pending = _PendingChanges(keepingUnprocessedOf: pending)
        if saved.firstStoreVersion <= saved.storeVersion { seen.insert(saved.firstStoreVersion...saved.storeVersion) }
        NotificationCenter.default.post(name: .objectContextDidSave, object: self, userInfo: saved.userInfo)
        if !outcome.resolvedIDs.isEmpty {
            // The policy saved something else than what the controllers show.
            let visible = outcome.resolvedIDs.filter { store.object(withID: $0) != nil }
            let gone = outcome.resolvedIDs.filter { store.object(withID: $0) == nil }
            notify(inserted: [], updated: visible, deleted: gone, removed: [:])
        }
        _checkInvariants()
        return saved
    }

    /// Discards the pending changes; controllers on the context see the saved
    /// records again.
    public func rollback() {
        let old = pending
        pending = _PendingChanges()
        _checkInvariants()
        let wasInserted = old.insertedIDs + Array(old.unprocessed.discarded.keys)
        let wasUpdated = Array(old.updated.keys)
        let wasDeleted = Array(old.deleted)
        var removed = old.unprocessed.discarded
        for (id, record) in old.inserted { removed[id] = record }
        // What the context's observers see change: its inserts leave, its deletes come back.
        notify(inserted: wasDeleted, updated: wasUpdated, deleted: wasInserted, removed: removed)
    }

    /// Brings another context's save into this one: controllers on this context
    /// update for the records it inserted, updated and deleted.
    ///
    /// This context's own pending changes stay on top, merged property by
    /// property (its own changes win, the save's changes to other properties
    /// are kept), and count as based on the merged save; pending changes of
    /// records the save deleted are dropped.
    ///
    /// - Returns: the pending updates that could not be merged property by
    ///   property and stay whole (the save's changes to them are not in
    ///   them); see ``PropertyMergeFallback``.
    @discardableResult
    public func mergeChanges(fromContextDidSave saved: ContextDidSave<R>) -> [PropertyMergeFallback] {
        var fallbacks: [PropertyMergeFallback] = []
        for record in saved.deletedObjects {
            let id = record.id
            pending.updated.removeValue(forKey: id)
            pending.deleted.remove(id)
            pending.bases[id] = nil
            snapshots[id] = nil
        }
        for record in saved.updatedObjects + saved.insertedObjects {
            let id = record.id
            snapshots[id] = nil
            guard pending.updated[id] != nil || pending.deleted.contains(id) else { continue }
            let current = store.lookup(id)
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
        if saved.firstStoreVersion <= saved.storeVersion { seen.insert(saved.firstStoreVersion...saved.storeVersion) }
        _checkInvariants()
        notify(
            inserted: saved.insertedIDs, updated: saved.updatedIDs, deleted: saved.deletedIDs,
            removed: Dictionary(saved.deletedObjects.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }))
        return fallbacks
    }

    /// Merges the save a `Notification.Name.objectContextDidSave`
    /// notification carries; ignores other notifications.
    ///
    /// - Returns: what merging the save it carries returns (the pending
    ///   updates kept whole); empty for another notification.
    @discardableResult
    public func mergeChanges(fromContextDidSave notification: Notification) -> [PropertyMergeFallback] {
        guard let saved = notification.userInfo?[Self.changesKey] as? ContextDidSave<R> else { return [] }
        return mergeChanges(fromContextDidSave: saved)
    }

    // MARK: Notifications

    /// A sequence of the context's `Notification.Name.objectContextObjectsDidChange`
    /// notifications, from now on.
    public func objectsDidChangeNotifications() -> AsyncStream<ContextObjectsDidChange<R>> {
        let (stream, continuation) = AsyncStream<ContextObjectsDidChange<R>>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        let streams = self.streams
        streams.withLock { $0.objectsDidChange[key] = continuation }
        continuation.onTermination = { _ in _ = streams.withLock { $0.objectsDidChange.removeValue(forKey: key) } }
        return stream
    }

    /// A sequence of the context's `Notification.Name.objectContextWillSave`
    /// notifications, from now on.
    public func willSaveNotifications() -> AsyncStream<ContextWillSave<R>> {
        let (stream, continuation) = AsyncStream<ContextWillSave<R>>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        let streams = self.streams
        streams.withLock { $0.willSave[key] = continuation }
        continuation.onTermination = { _ in _ = streams.withLock { $0.willSave.removeValue(forKey: key) } }
        return stream
    }

    private func postWillSave() {
        let willSave = ContextWillSave(
            insertedObjects: insertedObjects, updatedObjects: updatedObjects, deletedIDs: Array(pending.deleted), contextName: name)
        NotificationCenter.default.post(name: .objectContextWillSave, object: self, userInfo: [Self.changesKey: willSave])
        for continuation in streams.withLock({ Array($0.willSave.values) }) { continuation.yield(willSave) }
    }

    // MARK: Observers

    /// Calls `observer` with the identities whose records may have changed, each
    /// time changes are processed, rolled back or merged. Keep the token: the
    /// observation ends when it is released.
    func addObserver(_ observer: @escaping (_ContextChange<R>) -> Void) -> _ObservationToken {
        let key = nextObserver
        nextObserver += 1
        observers[key] = observer
        return _ObservationToken { [weak self] in self?.observers.removeValue(forKey: key) }
    }

    /// Tells the observers (the controllers), then posts objects-did-change.
    private func notify(inserted insertedNow: [R.ID], updated updatedNow: [R.ID], deleted deletedNow: [R.ID], removed: [R.ID: R]) {
        var seenIDs = Set<R.ID>()
        let ids = (insertedNow + updatedNow + deletedNow).filter { seenIDs.insert($0).inserted }
        guard !ids.isEmpty else { return }
        let change = _ContextChange(ids: ids, removed: removed)
        for key in observers.keys.sorted() { observers[key]?(change) }

        let didChange = ContextObjectsDidChange(
            insertedObjects: insertedNow.compactMap { peek($0) },
            updatedObjects: updatedNow.compactMap { peek($0) },
            deletedObjects: deletedNow.compactMap { removed[$0] ?? store.object(withID: $0) },
            contextName: name)
        NotificationCenter.default.post(
            name: .objectContextObjectsDidChange, object: self,
            userInfo: [
                Self.insertedKey: insertedNow.map(AnyHashable.init),
                Self.updatedKey: updatedNow.map(AnyHashable.init),
                Self.deletedKey: deletedNow.map(AnyHashable.init),
                Self.changesKey: didChange,
            ])
        for continuation in streams.withLock({ Array($0.objectsDidChange.values) }) { continuation.yield(didChange) }
    }
}

/// The changes a context processed: posted as
/// `Notification.Name.objectContextObjectsDidChange` and
/// delivered by ``ObjectContext/objectsDidChangeNotifications()``.
public struct ContextObjectsDidChange<R: Record>: Sendable {
    /// Records that appeared in the context (inserted, or brought back by a rollback), as it now sees them.
    public var insertedObjects: [R]
    /// Records that changed, as the context now sees them.
    public var updatedObjects: [R]
    /// Records that left the context, as they were.
    public var deletedObjects: [R]
    /// The context's name, if it has one.
    public var contextName: String?

    /// The identities inserted.
    public var insertedIDs: [R.ID] { insertedObjects.map(\.id) }
    /// The identities updated.
    public var updatedIDs: [R.ID] { updatedObjects.map(\.id) }
    /// The identities deleted.
    public var deletedIDs: [R.ID] { deletedObjects.map(\.id) }
}

/// A save about to start: posted as `Notification.Name.objectContextWillSave`
/// and delivered by ``ObjectContext/willSaveNotifications()``.
public struct ContextWillSave<R: Record>: Sendable {
    /// The pending inserts.
    public var insertedObjects: [R]
    /// The pending updates.
    public var updatedObjects: [R]
    /// The pending deletes.
    public var deletedIDs: [R.ID]
    /// The context's name, if it has one.
    public var contextName: String?
}

/// The store versions a context has seen: every version up to `through`,
/// and some above it.
struct _SeenVersions {
    var through: Int64
    var above: Set<Int64> = []

    func contains(_ version: Int64) -> Bool { version <= through || above.contains(version) }

    mutating func insert(_ versions: ClosedRange<Int64>) {
        if versions.lowerBound <= through + 1 {
            through = max(through, versions.upperBound)
        } else {
            for version in versions { above.insert(version) }
        }
        while above.remove(through + 1) != nil { through += 1 }
        if !above.isEmpty { above = above.filter { $0 > through } }
    }
}

/// The continuations of a context's notification streams.
struct _ContextStreams<R: Record> {
    var objectsDidChange: [UUID: AsyncStream<ContextObjectsDidChange<R>>.Continuation] = [:]
    var willSave: [UUID: AsyncStream<ContextWillSave<R>>.Continuation] = [:]
}

/// The identities whose records may have changed in a context, and the records
/// of those that left it (which the store may no longer have).
struct _ContextChange<R: Record> {
    var ids: [R.ID]
    var removed: [R.ID: R]
}

/// Ends an observation when released.
final class _ObservationToken {
    private let cancel: () -> Void
    init(_ cancel: @escaping () -> Void) { self.cancel = cancel }
    deinit { cancel() }
}
