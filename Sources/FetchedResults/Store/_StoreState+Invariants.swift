// Invariant checks, swift-collections style: compiled in debug builds (or any
// build with `-Xswiftc -DHEADLESS_TABLE_INTERNAL_CHECKS`), empty otherwise.
// The state checks itself whole where it is built whole (O(n) already), and
// checks the records a save touched after applying it (O(k)); the store
// tests check it whole after their saves (`ObjectStore._checkInvariants()`).

import Records

extension _StoreState {
    /// Traps when the state disagrees with itself: the records, their
    /// sequences and their versions of different lengths; the index holding
    /// another number of records, or an identity that does not lead to its
    /// record; a sequence not below `nextSequence`; a record's version above
    /// the store's; a cached result newer than the store. (Sequences may
    /// repeat: stores sharing a file reserve them each on its own.)
    ///
    /// - Complexity: O(*n*) for *n* records, in the builds that check.
    @usableFromInline
    func _checkInvariants() {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        precondition(sequences.count == records.count && versions.count == records.count,
                     "\(records.count) records, \(sequences.count) sequences, \(versions.count) versions")
        precondition(index.count == records.count, "the index holds \(index.count) identities for \(records.count) records")
        for k in records.indices {
            precondition(position(of: records[k].id) == k, "the record at \(k) (identity \(records[k].id)) is at \(String(describing: position(of: records[k].id))) by identity")
        }
        _checkInvariants(of: records.lazy.map(\.id))
        for (name, cache) in fetchCaches {
            precondition(cache.storeVersion <= version, "cache \(name) of version \(cache.storeVersion), the store at \(version)")
        }
        #endif
    }

    /// Traps when one of these identities' records disagrees with the rest:
    /// filed under another identity, its sequence not below `nextSequence`,
    /// its version above the store's. (An identity without a record passes.)
    ///
    /// - Complexity: O(*k*) for *k* identities, in the builds that check.
    func _checkInvariants(of ids: some Sequence<R.ID>) {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        for id in ids {
            guard let k = position(of: id) else { continue }
            precondition(k >= 0 && k < records.count && records[k].id == id, "identity \(id) leads to position \(k)")
            precondition(sequences[k] < nextSequence, "identity \(id) has sequence \(sequences[k]), the next is \(nextSequence)")
            precondition(versions[k] <= version, "identity \(id) has version \(versions[k]), the store \(version)")
        }
        #endif
    }
}

extension ObjectStore {
    /// Checks the store's state whole, under its lock
    /// (`_StoreState._checkInvariants()`): for tests, after their saves.
    ///
    /// - Complexity: O(*n*) in the builds that check; a lock otherwise.
    package func _checkInvariants() {
        state.withLock { $0._checkInvariants() }
    }
}
