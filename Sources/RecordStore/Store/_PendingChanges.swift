import Records
import TableDiff

/// A context's changes not yet saved, as one value: a save that succeeds
/// replaces it with an empty one and a rollback discards it whole, so that
/// neither can forget a part (the rule `TableView` follows for its state).
///
/// Two parts: the changes a save commits (inserts, updates, deletes and what
/// each was based on), and the changes not yet processed (`unprocessed`),
/// which `processPendingChanges()` hands to the context's observers and
/// clears. A save processes first, so it clears both; an observer that
/// changes the context while being told is the one way something is left
/// unprocessed after a save, and the save keeps that part.
@usableFromInline
package struct _PendingChanges<R: Record> {
    /// The pending inserts' identities, in the order inserted.
    @usableFromInline package var insertedIDs: [R.ID] = []
    /// The pending inserts.
    @usableFromInline package var inserted: [R.ID: R] = [:]
    /// The first-insertion order reserved for each pending insert.
    @usableFromInline package var insertedSequences: [R.ID: Int64] = [:]
    /// The pending updates of saved records.
    @usableFromInline package var updated: [R.ID: R] = [:]
    /// The pending deletes of saved records.
    @usableFromInline package var deleted: Set<R.ID> = []
    /// For each pending update and delete, what the change was based on.
    var bases: [R.ID: _Base<R>] = [:]
    /// What changed since the last `processPendingChanges()`.
    var unprocessed = _UnprocessedChanges<R>()

    @usableFromInline init() {}

    /// No changes, but those not yet processed of `pending` (after a save).
    init(keepingUnprocessedOf pending: _PendingChanges<R>) {
        unprocessed = pending.unprocessed
    }

    /// Whether there is anything to save.
    @inlinable var hasChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty }
}

/// A context's changes since it last processed them: what its observers
/// (the fetched results controllers) have not been told yet.
struct _UnprocessedChanges<R: Record> {
    /// Identities changed, in order (with repeats).
    var ids: [R.ID] = []
    /// Pending inserts deleted again: observers may still show them.
    var discarded: [R.ID: R] = [:]
    /// The records updated since, as the context showed them before (what
    /// the controllers compare the new records with: their changed keys).
    var replaced: [R.ID: R] = [:]

    var isEmpty: Bool { ids.isEmpty && discarded.isEmpty }
}
