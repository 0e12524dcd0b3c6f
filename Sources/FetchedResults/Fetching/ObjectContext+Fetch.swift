import RecordStore
import Records

// A context's fetches: the query side's way into a context (the store and
// its contexts know nothing of requests).

extension ObjectContext {
    /// The records matching a request, in its order, as this context sees them.
    ///
    /// - Throws: ``FetchError``; nothing is returned then.
    /// - Complexity: O(*n* log *n*) for *n* records of the entities fetched.
    public func fetch<R: Record & Codable>(_ request: FetchRequest<R>) throws(FetchError) -> [R] {
        let access = try _EntityAccess<R>(request, in: self)
        let compiled = try _CompiledRequest(request, sectionKeyPath: nil, access: access)
        var fetched = try _Fetch.run(compiled, in: access, keepRecords: true)
        if let dangling = compiled.failure { throw dangling }
        fetched.narrow(offset: request.fetchOffset, limit: request.fetchLimit)
        return (consume fetched).sortedRecords()
    }

    /// The number of records matching a request (its offset and limit applied).
    ///
    /// - Throws: ``FetchError``.
    /// - Complexity: O(*n*) for *n* records of the entities fetched.
    public func count<R: Record & Codable>(for request: FetchRequest<R>) throws(FetchError) -> Int {
        let access = try _EntityAccess<R>(request, in: self)
        let compiled = try _CompiledRequest(request, sectionKeyPath: nil, access: access)
        let matches = try _Fetch.count(compiled, in: access)
        if let dangling = compiled.failure { throw dangling }
        let afterOffset = max(0, matches - max(0, request.fetchOffset))
        return request.fetchLimit.map { min(afterOffset, max(0, $0)) } ?? afterOffset
    }
}
