import RecordStore
import Records

// The controller's way into the results kept in the store
// (`_FetchCacheEntry`), read and written under the store's lock.
extension ObjectStore {
    @usableFromInline
    func cachedResults<R: Record>(named name: String, for key: _FetchCacheKey, keepingRecords: Bool) -> _Fetched<R>? {
        state.withLock { state in
            guard let entry = state.fetchCaches[name], entry.storeVersion == state.version,
                  entry.key == AnyHashable(key), entry.keepsRecords == keepingRecords
            else { return nil }
            return entry.results as? _Fetched<R>
        }
    }

    @usableFromInline
    func keep<R: Record>(_ results: _Fetched<R>, named name: String, for key: _FetchCacheKey, keepingRecords: Bool, fetchedAt version: Int64) {
        state.withLock { state in
            guard state.version == version else { return }
            state.fetchCaches[name] = _FetchCacheEntry(key: AnyHashable(key), keepsRecords: keepingRecords, storeVersion: version, results: results)
        }
    }

    @usableFromInline
    func keepsResults(named name: String, forAnotherRequestThan key: _FetchCacheKey) -> Bool {
        state.withLock { state in
            guard let cache = state.fetchCaches[name] else { return false }
            return cache.key != AnyHashable(key)
        }
    }
}
