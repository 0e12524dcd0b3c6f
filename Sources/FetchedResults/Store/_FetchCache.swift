import PredicateFormat
import Records
/// Results a fetched results controller computed, kept in the store by cache
/// name: for which request, whether they hold the records, and at which
/// version of the store.
@usableFromInline
struct _FetchCacheEntry: @unchecked Sendable {
    @usableFromInline var key: _FetchCacheKey
    @usableFromInline var keepsRecords: Bool
    @usableFromInline var storeVersion: Int64
    /// The results: a `_Fetched` of the key's record type.
    @usableFromInline var results: Any

    @inlinable
    init(key: _FetchCacheKey, keepsRecords: Bool, storeVersion: Int64, results: Any) {
        self.key = key
        self.keepsRecords = keepsRecords
        self.storeVersion = storeVersion
        self.results = results
    }

    @inlinable
    func results<R: Record>(for key: _FetchCacheKey, keepingRecords: Bool, atVersion version: Int64) -> _Fetched<R>? {
        guard storeVersion == version, self.key == key, keepsRecords == keepingRecords else { return nil }
        return results as? _Fetched<R>
    }
}

// The controller's way into the store's caches: the store's locked state is
// read and written here, in the store's code, never by a controller.
extension ObjectStore {
    @usableFromInline
    func cachedResults<R: Record>(named name: String, for key: _FetchCacheKey, keepingRecords: Bool) -> _Fetched<R>? {
        state.withLock { state in
            state.fetchCaches[name]?.results(for: key, keepingRecords: keepingRecords, atVersion: state.version)
        }
    }

    @usableFromInline
    func keep<R: Record>(_ results: _Fetched<R>, named name: String, for key: _FetchCacheKey, keepingRecords: Bool, fetchedAt version: Int64) {
        state.withLock { state in
            guard state.version == version else { return }
            state.fetchCaches[name] = _FetchCacheEntry(key: key, keepsRecords: keepingRecords, storeVersion: version, results: results)
        }
    }

    @usableFromInline
    func keepsResults(named name: String, forAnotherRequestThan key: _FetchCacheKey) -> Bool {
        state.withLock { state in
            guard let cache = state.fetchCaches[name] else { return false }
            return cache.key != key
        }
    }

    func deleteCache(named name: String?) {
        state.withLock { state in
            if let name { state.fetchCaches[name] = nil } else { state.fetchCaches.removeAll() }
        }
        removeSectionCaches(named: name)
    }
}
