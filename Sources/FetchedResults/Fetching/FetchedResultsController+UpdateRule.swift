import TableDiff

/// An object in the results before and after a change.
struct _Kept<R: Record> {
    var record: R
    var old: TablePath
    var new: TablePath
    /// Whether its section (by name) is the same before and after.
    var sameSection: Bool
}

extension FetchedResultsController {
    /// Which objects that stay in the results are Core Data's updates, and
    /// which are moves.
    ///
    /// An object is an **update** when its index path is the same before and
    /// after (Core Data's rule) *and* the table code the Core Data books teach
    /// can apply it as one: it is in the same section (by name), and it keeps
    /// its place among the objects the change does not report. Such code
    /// treats an update as an unmoved row (it only configures its cell), and
    /// UIKit puts unmoved rows back in their old order around the rows a batch
    /// deletes, inserts and moves — so an object that overtook an unchanged
    /// one, or changed sections under the same numbers, would land in the
    /// wrong place. Everything else is a **move** (possibly to its own index
    /// path), which such code applies as a delete and an insert.
    ///
    /// An object keeps its place among the unreported ones when as many
    /// reported rows precede it in its section before the change as after it
    /// (its row number being the same, so is the number of unreported rows
    /// before it — and the unreported rows of a section keep their order).
    /// Updates keep their order among themselves: their rows are the same.
    ///
    /// - Complexity: O(*k* log *k*) for *k* reported objects.
    static func updatesAndMoves(
        _ kept: [_Kept<R>], deletes: [(R, TablePath)], inserts: [(R, TablePath)]
    ) -> (updates: [(R, TablePath)], moves: [(R, TablePath, TablePath)]) {
        let reportedBefore = (deletes.map(\.1) + kept.map(\.old)).sorted()
        let reportedAfter = (inserts.map(\.1) + kept.map(\.new)).sorted()
        /// Reported rows before `path` in its section.
        func precedingInSection(_ path: TablePath, in sorted: [TablePath]) -> Int {
            sorted.partitioningIndex { $0 >= path } - sorted.partitioningIndex { $0 >= TablePath(row: 0, section: path.section) }
        }
        var updates: [(R, TablePath)] = [], moves: [(R, TablePath, TablePath)] = []
        for object in kept {
            if object.old == object.new, object.sameSection,
                precedingInSection(object.old, in: reportedBefore) == precedingInSection(object.new, in: reportedAfter)
            {
                updates.append((object.record, object.old))
            } else {
                moves.append((object.record, object.old, object.new))
            }
        }
        return (updates, moves)
    }
}

extension Array {
    /// The first index whose element satisfies `belongs`, for a predicate
    /// that is false and then true along the array (binary search).
    fileprivate func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if belongs(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
