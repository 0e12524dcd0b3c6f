import Foundation
import InternalTableUtilities
import TableDiff

extension Notification.Name {
    /// Posted by an ``ObjectContext`` after every save; the object is the
    /// context, `userInfo` holds the identities under ``ObjectContext/insertedKey``,
    /// ``ObjectContext/updatedKey`` and ``ObjectContext/deletedKey`` (each an
    /// `[AnyHashable]`) and the whole ``ContextDidSave`` under
    /// ``ObjectContext/changesKey``.
    public static let objectContextDidSave = Notification.Name("HeadlessTable.ObjectContextDidSave")
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
/// they are processed (``processPendingChanges()``, which ``save()`` does first),
/// rolled back, or merged from another context's save.
public final class ObjectContext<R: Record & Codable> {
    /// `userInfo` keys of `Notification.Name.objectContextDidSave`.
    public static var insertedKey: String { "inserted" }
    public static var updatedKey: String { "updated" }
    public static var deletedKey: String { "deleted" }
    public static var changesKey: String { "changes" }

    /// The store the context reads from and saves into.
    public let store: ObjectStore<R>
    /// A name for messages and notifications.
    public var name: String?

    @usableFromInline var insertedIDs: [R.ID] = []
    @usableFromInline var inserted: [R.ID: R] = [:]
    /// The first-insertion order reserved for each pending insert.
    @usableFromInline var insertedSequences: [R.ID: Int64] = [:]
    @usableFromInline var updated: [R.ID: R] = [:]
    @usableFromInline var deleted: Set<R.ID> = []
    /// Identities changed since the last `processPendingChanges()`, in order.
    private var unprocessed: [R.ID] = []
    /// Pending inserts deleted again before being processed: observers may still show them.
    private var discarded: [R.ID: R] = [:]
    private var observers: [Int: (_ContextChange<R>) -> Void] = [:]
    private var nextObserver = 0

    public init(store: ObjectStore<R>, name: String? = nil) {
        self.store = store
        self.name = name
    }

    // MARK: Reading

    /// The record with an identity as this context sees it: its pending change,
    /// or the store's; nil when absent or deleted here. (A pending update of a
    /// record another context deleted is not seen: saving it would fail.)
    public func object(withID id: R.ID) -> R? {
        if deleted.contains(id) { return nil }
        if let record = inserted[id] { return record }
        guard let saved = store.object(withID: id) else { return nil }
        return updated[id] ?? saved
    }

    /// Whether the context has changes not yet saved.
    @inlinable
    public var hasChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty }

    /// The records inserted, updated and deleted here and not yet saved.
    public var insertedObjects: [R] { insertedIDs.compactMap { inserted[$0] } }
    public var updatedObjects: [R] { Array(updated.values) }
    public var deletedIDs: Set<R.ID> { deleted }

    /// The records matching a request, in its order, as this context sees them.
    ///
    /// - Complexity: O(*n* log *n*) for *n* records in the store.
    public func fetch(_ request: FetchRequest<R>) throws(FetchError) -> [R] {
        let compiled = try _CompiledRequest(request, sectionKeyPath: nil)
        var fetched = try _Fetch.run(compiled, in: self, keepRecords: true)
        fetched.narrow(offset: request.fetchOffset, limit: request.fetchLimit)
        return fetched.sortedRecords()
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
        let changed = !updated.isEmpty || !deleted.isEmpty
        try store.state.withLock { state throws(FetchError) in
            // Through the buffer: the body borrows each record, no copy.
            let sequences = state.sequences
            try state.records.withUnsafeBufferPointer { records throws(FetchError) in
                for k in records.indices {
                    if changed {
                        let id = records[k].id
                        if deleted.contains(id) { continue }
                        if let pending = updated[id] {
                            try body(pending, sequences[k])
                            continue
                        }
                    }
                    try body(records[k], sequences[k])
                }
            }
        }
        for id in insertedIDs {
            if let record = inserted[id], let sequence = insertedSequences[id] { try body(record, sequence) }
        }
    }

    /// The sequence (first-insertion order) of a record this context sees.
    func sequence(of id: R.ID) -> Int64? {
        if inserted[id] != nil { return insertedSequences[id] }
        return store.state.withLock { state in state.index[id].map { state.sequences[$0] } }
    }

    // MARK: Changing

    /// Inserts a record.
    ///
    /// - Throws: ``ContextError/alreadyExists(_:)`` when the context already has
    ///   a record with its identity; nothing changes.
    public func insert(_ record: R) throws(ContextError) {
        let id = record.id
        if deleted.remove(id) != nil {
            updated[id] = record   // deleted here, saved in the store: it comes back as an update
        } else {
            guard object(withID: id) == nil else { throw .alreadyExists("\(id)") }
            inserted[id] = record
            insertedIDs.append(id)
            insertedSequences[id] = store.reserveSequence()
        }
        unprocessed.append(id)
    }

    /// Replaces a record with a new version of it (same identity).
    ///
    /// - Throws: ``ContextError/noSuchObject(_:)`` when the context has no record
    ///   with that identity; nothing changes.
    public func update(_ record: R) throws(ContextError) {
        let id = record.id
        guard object(withID: id) != nil else { throw .noSuchObject("\(id)") }
        if inserted[id] != nil { inserted[id] = record } else { updated[id] = record }
        unprocessed.append(id)
    }

    /// Deletes the record with an identity.
    ///
    /// - Throws: ``ContextError/noSuchObject(_:)`` when the context has no record
    ///   with that identity; nothing changes.
    public func delete(_ id: R.ID) throws(ContextError) {
        guard object(withID: id) != nil else { throw .noSuchObject("\(id)") }
        if let record = inserted.removeValue(forKey: id) {
            discarded[id] = record
            insertedIDs.removeAll { $0 == id }
            insertedSequences[id] = nil
        } else {
            updated.removeValue(forKey: id)
            deleted.insert(id)
        }
        unprocessed.append(id)
    }

    /// Tells the fetched results controllers on this context about the changes
    /// made since the last call. ``save()`` calls it first.
    public func processPendingChanges() {
        guard !unprocessed.isEmpty else { return }
        let ids = unprocessed
        let removed = discarded
        unprocessed.removeAll()
        discarded.removeAll()
        notify(ids, removed: removed)
    }

    /// Saves the pending changes into the store at once, then posts
    /// `Notification.Name.objectContextDidSave` and returns what was saved.
    ///
    /// - Throws: ``StoreError`` (an identity inserted elsewhere meanwhile, an
    ///   updated record deleted elsewhere, a file that cannot be written);
    ///   the store is unchanged and the changes stay pending.
    @discardableResult
    public func save() throws(StoreError) -> ContextDidSave<R> {
        processPendingChanges()
        let saved = try store.commit(
            inserted: insertedIDs.compactMap { id in inserted[id].flatMap { record in insertedSequences[id].map { (record, $0) } } },
            updated: Array(updated.values), deleted: Array(deleted), contextName: name)
        insertedIDs.removeAll()
        inserted.removeAll()
        insertedSequences.removeAll()
        updated.removeAll()
        deleted.removeAll()
        NotificationCenter.default.post(
            name: .objectContextDidSave, object: self,
            userInfo: [
                Self.insertedKey: saved.insertedIDs.map(AnyHashable.init),
                Self.updatedKey: saved.updatedIDs.map(AnyHashable.init),
                Self.deletedKey: saved.deletedIDs.map(AnyHashable.init),
                Self.changesKey: saved,
            ])
        return saved
    }

    /// Discards the pending changes; controllers on the context see the saved
    /// records again.
    public func rollback() {
        let ids = insertedIDs + Array(updated.keys) + Array(deleted) + Array(discarded.keys)
        var removed = discarded
        for (id, record) in inserted { removed[id] = record }
        discarded.removeAll()
        insertedIDs.removeAll()
        inserted.removeAll()
        insertedSequences.removeAll()
        updated.removeAll()
        deleted.removeAll()
        unprocessed.removeAll()
        notify(ids, removed: removed)
    }

    /// Brings another context's save into this one: controllers on this context
    /// update for the records it inserted, updated and deleted. This context's
    /// own pending changes stay on top, but for records the save deleted: those
    /// are dropped.
    public func mergeChanges(fromContextDidSave saved: ContextDidSave<R>) {
        for id in saved.deletedIDs {
            updated.removeValue(forKey: id)
            deleted.remove(id)
        }
        notify(
            saved.insertedIDs + saved.updatedIDs + saved.deletedIDs,
            removed: Dictionary(saved.deletedObjects.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }))
    }

    /// Merges the save a `Notification.Name.objectContextDidSave`
    /// notification carries; ignores other notifications.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        guard let saved = notification.userInfo?[Self.changesKey] as? ContextDidSave<R> else { return }
        mergeChanges(fromContextDidSave: saved)
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

    private func notify(_ ids: [R.ID], removed: [R.ID: R]) {
        guard !ids.isEmpty else { return }
        var seen = Set<R.ID>()
        let change = _ContextChange(ids: ids.filter { seen.insert($0).inserted }, removed: removed)
        for key in observers.keys.sorted() { observers[key]?(change) }
    }
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
