import RecordStore
import Records
import TableDiff

/// An object in the results before and after a change.
struct _Kept<R: Record> {
    var record: R
    var old: TablePath
    var new: TablePath
    /// Whether its section (by name) is the same before and after.
    var sameSection: Bool
    /// The keys whose values changed; nil when not known.
    var changedKeys: Set<String>?
}

extension _ChangeReport {
    /// Which objects that stay in the results are Core Data's updates, and
    /// which are moves.
    ///
    /// An object is an **update** when the change did not move it among the
    /// objects around it — so that the table code the Core Data books teach
    /// can apply it as one: that code treats an update as an unmoved row (it
    /// only configures the row's cell, at its old index path), and UIKit puts
    /// unmoved rows back in their old order around the rows a batch deletes,
    /// inserts and moves. Precisely: it is in the same section (by name), it
    /// has as many of the rows the change does not report before it as
    /// before the change, and it keeps its order with the other updates of
    /// its section (taken in order, an object that would overtake an update
    /// before it is a move). Its index path may differ in numbers, when rows
    /// before it come or go — as with Core Data, which reports such an
    /// object as an update with its old index path. Everything else that
    /// stays is a **move** (possibly to its own index path), which such code
    /// applies as a delete and an insert.
    ///
    /// - Complexity: O(*k* log *k*) for *k* reported objects.
    static func updatesAndMoves(
        _ kept: [_Kept<R>], deletes: [_PlacedObject<R>], inserts: [_PlacedObject<R>]
    ) -> (updates: [_MovedObject<R>], moves: [_MovedObject<R>]) {
        let reportedBefore = (deletes.map(\.path) + kept.map(\.old)).sorted()
        let reportedAfter = (inserts.map(\.path) + kept.map(\.new)).sorted()
        /// The rows of a section, before `path`, that the change does not report.
        func unreportedBefore(_ path: TablePath, reported sorted: [TablePath]) -> Int {
            let reported = sorted.partitioningIndex { $0 >= path } - sorted.partitioningIndex { $0 >= TablePath(row: 0, section: path.section) }
            return path.row - reported
        }
        var updates: [_MovedObject<R>] = [], moves: [_MovedObject<R>] = []
        var lastUpdateRow: [Int: Int] = [:]   // by old section: the new row of the last update taken
        for object in kept.sorted(by: { $0.old < $1.old }) {
            if object.sameSection,
                unreportedBefore(object.old, reported: reportedBefore) == unreportedBefore(object.new, reported: reportedAfter),
                object.new.row > lastUpdateRow[object.old.section, default: -1]
            {
                updates.append(_MovedObject(record: object.record, old: object.old, new: object.new, changedKeys: object.changedKeys))
                lastUpdateRow[object.old.section] = object.new.row
            } else {
                moves.append(_MovedObject(record: object.record, old: object.old, new: object.new, changedKeys: object.changedKeys))
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
