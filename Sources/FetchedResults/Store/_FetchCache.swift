/// Results a fetched results controller computed, kept in the store by cache
/// name: for which request (a key the query side makes), whether they hold
/// the records, and at which version of the store. The store drops them all
/// when it changes; the query side reads and writes them
/// (`ObjectStore+FetchCache.swift`).
@usableFromInline
struct _FetchCacheEntry: @unchecked Sendable {
    @usableFromInline var key: AnyHashable
    @usableFromInline var keepsRecords: Bool
    @usableFromInline var storeVersion: Int64
    /// The results, of a type the query side knows.
    @usableFromInline var results: Any

    @inlinable
    init(key: AnyHashable, keepsRecords: Bool, storeVersion: Int64, results: Any) {
        self.key = key
        self.keepsRecords = keepsRecords
        self.storeVersion = storeVersion
        self.results = results
    }
}

extension ObjectStore {
    /// Forgets the results kept by `name` (every name when nil), and the sections kept on disk by it.
    func deleteCache(named name: String?) {
        state.withLock { state in
            if let name { state.fetchCaches[name] = nil } else { state.fetchCaches.removeAll() }
        }
        removeSectionCaches(named: name)
    }
}
