import PredicateFormat
import Records
import TableDiff
/// Results a fetched results controller computed, kept in the store by cache
/// name: for which request, whether they hold the records, and at which
/// version of the store.
@usableFromInline
struct _FetchCache<R: Record>: Sendable {
    /// The request the results are for.
    @usableFromInline var key: _FetchCacheKey
    /// Whether the results hold the records (a controller without a batch size).
    @usableFromInline var keepsRecords: Bool
    /// The store's version when they were computed.
    @usableFromInline var storeVersion: Int64
    /// The results: every match, in order.
    @usableFromInline var results: _Fetched<R>

    @inlinable
    init(key: _FetchCacheKey, keepsRecords: Bool, storeVersion: Int64, results: _Fetched<R>) {
        self.key = key
        self.keepsRecords = keepsRecords
        self.storeVersion = storeVersion
        self.results = results
    }

    /// The results, when they are for this request, hold the records as
    /// asked, and the store is still at their version; nil otherwise.
    @inlinable
    func results(for key: _FetchCacheKey, keepingRecords: Bool, atVersion version: Int64) -> _Fetched<R>? {
        guard storeVersion == version, self.key == key, keepsRecords == keepingRecords else { return nil }
        return results
    }
}

// The controller's way into the store's caches: the store's locked state is
// read and written here, in the store's code, never by a controller.
extension ObjectStore {
    /// The results kept under `name` for the request `key` identifies, when
    /// they hold the records as asked and the store is still at their
    /// version; nil otherwise.
    @usableFromInline
    func cachedResults(named name: String, for key: _FetchCacheKey, keepingRecords: Bool) -> _Fetched<R>? {
        state.withLock { state in
            state.fetchCaches[name]?.results(for: key, keepingRecords: keepingRecords, atVersion: state.version)
        }
    }

    /// Keeps `results`, fetched from the store at `version`, under `name`
    /// for the request `key` identifies — unless the store changed since
    /// (another context saved during the fetch): results older than their
    /// version would be served as current.
    @usableFromInline
    func keep(_ results: _Fetched<R>, named name: String, for key: _FetchCacheKey, keepingRecords: Bool, fetchedAt version: Int64) {
        state.withLock { state in
            guard state.version == version else { return }
            state.fetchCaches[name] = _FetchCache(key: key, keepsRecords: keepingRecords, storeVersion: version, results: results)
        }
    }

    /// Whether the store keeps results under `name` for a request other than
    /// the one `key` identifies (whether they hold the records or not).
    @usableFromInline
    func keepsResults(named name: String, forAnotherRequestThan key: _FetchCacheKey) -> Bool {
        state.withLock { state in
            guard let cache = state.fetchCaches[name] else { return false }
            return cache.key != key
        }
    }

    /// Drops the results kept under `name`; every cache for nil.
    func deleteCache(named name: String?) {
        state.withLock { state in
            if let name { state.fetchCaches[name] = nil } else { state.fetchCaches.removeAll() }
        }
    }
}
