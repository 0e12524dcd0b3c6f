// Invariant checks, swift-collections style: compiled in debug builds (or any
// build with `-Xswiftc -DHEADLESS_TABLE_INTERNAL_CHECKS`), empty otherwise.
// A context checks itself after processing, saving, rolling back and merging
// (each O(k) for k pending changes already), and checks the one identity it
// changed after an insert, an update or a delete (O(1), so that a debug
// import of many records stays linear).

import Records

extension ObjectContext {
    /// Traps when the context's pending changes disagree with themselves:
    /// the inserts' identities against the inserts and their reserved
    /// sequences (each once, in both); an identity both inserted and updated,
    /// inserted and deleted, or updated and deleted; a record filed under
    /// another identity; an update or a delete without the base it was made
    /// on, or a base without one; a pending insert deleted again that was
    /// never reported as unprocessed; or the versions seen out of shape.
    ///
    /// - Complexity: O(*k*) for *k* pending changes in the builds that
    ///   check; O(1) otherwise.
    package func _checkInvariants() {
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
        precondition(seen.above.allSatisfy { $0 > seen.through + 1 }, "versions seen above \(seen.through): \(seen.above.sorted())")
        #endif
    }

    /// Traps when one identity's pending change disagrees with the rest: in
    /// two of the inserts, the updates and the deletes; an insert without its
    /// reserved sequence, or a sequence without an insert; a record filed
    /// under another identity; an update or a delete without its base, or a
    /// base without one. (Whether an insert is in the inserts' order is
    /// `_checkInvariants()`'s: it counts them.)
    ///
    /// - Complexity: O(1).
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
