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
