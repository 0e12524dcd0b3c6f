import Foundation
import PredicateFormat
import RecordStore
import Records
import TableDiff

extension FetchedResultsController {
    /// The request of the last successful fetch (nil before one): what the
    /// results show, whatever ``fetchRequest`` was set to since.
    package var fetchedRequest: FetchRequest<R>? { results.compiled?.request }
}

extension FetchedResultsController {
    /// Fetches with `request` by filtering the current results instead of the
    /// store — for a request whose predicate matches only records the current
    /// one matches (the caller proves it: `TableSearch` does, for a narrowed
    /// search text). Returns false, changing nothing, when the results cannot
    /// be filtered: not fetched, a cache name, a request set since the fetch,
    /// a change that left the sections out of order, another order, an offset
    /// or a limit, another batch size, or a context whose controllers are not
    /// current (see `ObjectContext.controllersAreCurrent`). The caller then
    /// fetches as usual.
    ///
    /// - Throws: ``FetchError`` from compiling or evaluating the predicate;
    ///   the results and the request stay as they were.
    /// - Complexity: O(*m*) predicate evaluations for *m* current results.
    package func performFetch(narrowingTo request: FetchRequest<R>) throws(FetchError) -> Bool {
        guard let current = results.compiled, cacheName == nil, !requestChangedSinceFetch, results.lastError == nil, !results.sectionsRepeatNames, context.controllersAreCurrent,
            request.sortKeys == current.request.sortKeys, !request.sortKeys.isEmpty,
            request.fetchOffset == 0, request.fetchLimit == nil, current.request.fetchOffset == 0, current.request.fetchLimit == nil,
            request.fetchBatchSize == current.request.fetchBatchSize, !results.ordered.isLean
        else { return false }
        let narrowed = try _CompiledRequest(request, sectionKeyPath: sectionNameKeyPath, sectionCollation: sectionCollation, access: access)
        // Read through relationships, the narrowed results would need a reverse map of their own: fetch.
        guard narrowed.relationships == nil, current.relationships == nil else { return false }
        let keepRecords = results.ordered.keepsRecords
        var found: [_Element<R>] = [], records: [R] = []
        found.reserveCapacity(results.ordered.count)
        if keepRecords { records.reserveCapacity(results.ordered.count) }
        let matches = narrowed.matches
        for chunk in results.ordered.chunks {
            // Each chunk's arrays once, not through the class at every element.
            let elements = chunk.elements, kept = chunk.records
            let hasRecords = kept.count == elements.count
            for k in elements.indices {
                let record: R
                if hasRecords {
                    record = kept[k]
                } else {
                    guard let read = access.object(withID: elements[k].id) else { continue }
                    record = read
                }
                if let matches, try !matches(record) { continue }
                found.append(elements[k])
                if keepRecords { records.append(record) }
            }
        }
        // The sections; a section name in two runs: a fetch would fail (out of order); let it.
        var sections = _SectionRuns(checkingOrder: true)
        if sectionNameKeyPath == nil {
            sections.append("", count: found.count)
        } else {
            for element in found {
                guard sections.append(element.sectionName) else { return false }
            }
        }
        fetchRequest = request
        didFetch(narrowed, _OrderedElements(inOrder: found, records: records, keepsRecords: keepRecords), sections: sections.runs)
        return true
    }
}
