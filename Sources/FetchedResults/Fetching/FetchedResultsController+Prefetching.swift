import RecordStore
import TableDiff

/// How many batches a controller with a batch size read from its context:
/// on demand (a row of a batch not held was asked for) and ahead
/// (``FetchedResultsController/prefetchObjects(at:)``).
package struct _BatchReads: Hashable, Sendable {
    package var onDemand = 0
    package var ahead = 0
}

extension FetchedResultsController {
    /// Reads ahead the batches holding the objects at `indexPaths` that are
    /// not held, so that asking for those objects later reads nothing — what a
    /// table's prefetch data source does with the rows about to show. Without
    /// a ``FetchRequest/fetchBatchSize`` (every record is kept) it does
    /// nothing; paths that name no object are skipped.
    ///
    /// The batches are read now, on the caller's thread (the context is not
    /// shared across threads): a table calls this a scroll step or more before
    /// the rows show, so the frame that shows them reads nothing. The
    /// controller holds its last four batches: announce at most about three
    /// batches ahead of the window.
    ///
    /// - Complexity: O(*p* + *b* × `fetchBatchSize`) for *p* paths spanning
    ///   *b* batches not held.
    public func prefetchObjects(at indexPaths: [TablePath]) {
        guard results.compiled != nil, !results.ordered.keepsRecords else { return }
        let size = max(fetchRequest.fetchBatchSize, 1)
        let sectionList = results.sectionList, sectionStarts = results.sectionStarts
        var batches: [Int] = []
        for path in indexPaths {
            guard sectionList.indices.contains(path.section), (0..<sectionList[path.section].count).contains(path.row) else { continue }
            let position = sectionStarts[path.section] + path.row
            if results.ordered.record(at: position) != nil { continue }
            let batch = position / size
            if !results.batchCache.holds(batch), !batches.contains(batch) { batches.append(batch) }
        }
        // The order read into a local: the cache's closure must not read
        // `results` while the cache (part of it) is being changed.
        let ordered = results.ordered, access = access
        for batch in batches {
            _ = results.batchCache.batch(batch) {
                batchReads.ahead += 1
                let range = (batch * size)..<min(ordered.count, (batch + 1) * size)
                return range.map { access.object(withID: ordered.id(at: $0)) }.compactMap { $0 }
            }
        }
    }
}
