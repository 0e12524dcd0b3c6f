/// Results a fetched results controller computed, kept in the store by cache
/// name: for which request (a key the query side makes), whether they hold
/// the records, and at which version of the store. The store drops them all
/// when it changes; the query side reads and writes them
/// (`ObjectStore+FetchCache.swift`).
@usableFromInline
package struct _FetchCacheEntry: @unchecked Sendable {
    @usableFromInline package var key: AnyHashable
    @usableFromInline package var keepsRecords: Bool
    @usableFromInline package var storeVersion: Int64
    /// The results, of a type the query side knows.
    @usableFromInline package var results: Any

    @inlinable
    package init(key: AnyHashable, keepsRecords: Bool, storeVersion: Int64, results: Any) {
        self.key = key
        self.keepsRecords = keepsRecords
        self.storeVersion = storeVersion
        self.results = results
    }
}

extension ObjectStore {
    /// Forgets the results kept by `name` (every name when nil), and the sections kept on disk by it.
    package func deleteCache(named name: String?) {
        state.withLock { state in
            if let name { state.fetchCaches[name] = nil } else { state.fetchCaches.removeAll() }
        }
        removeSectionCaches(named: name)
    }
}
