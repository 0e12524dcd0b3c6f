import FetchedResults
import Foundation
import HeadlessTableView
import PredicateFormat
import Records
import TableDiff

/// A fetched results controller's report of one change, collected as one
/// batch update — shared by the table binding and the following diffable data
/// source.
///
/// Sections inserted and deleted, rows deleted, inserted and moved, as the
/// controller reports them. An updated object (the controller reports an
/// update only where its row keeps its place among the unreported rows of the
/// same section) is reconfigured in place, at its new index path; a moved object moves and is
/// reconfigured at its new row. A row moving out of a deleted section or into
/// an inserted one is a delete and an insert, as UIKit needs.
struct _ReportedChange {
    var update = BatchUpdate()
    /// The rows (after the change) whose objects changed and stay in their cells.
    var reconfigured: [TablePath] = []
    /// Whether some changed object moved.
    var hasMoves = false

    mutating func section(at index: Int, _ type: FetchedResultsChangeType) {
        switch type {
        case .insert: update.insertSections([index])
        case .delete: update.deleteSections([index])
        default: break
        }
    }

    mutating func object(at indexPath: TablePath?, _ type: FetchedResultsChangeType, newIndexPath: TablePath?) {
        switch (type, indexPath, newIndexPath) {
        case (.insert, _, let new?):
            update.insertRows(at: [new])
        case (.delete, let old?, _):
            update.deleteRows(at: [old])
        case (.update, let old?, let new):
            reconfigured.append(new ?? old)   // after the change
        case (.move, let old?, let new?):
            hasMoves = true
            if update.deletedSections.contains(old.section) || update.insertedSections.contains(new.section) {
                update.deleteRows(at: [old])   // sections come first in the report, so they are known here
                update.insertRows(at: [new])
            } else {
                update.moveRow(at: old, to: new)
                reconfigured.append(new)
            }
        default:
            break
        }
    }

    /// The batch and the rows to reconfigure after it. A change of edits
    /// alone is, with `reloadingEdits`, UIKit's reload of their rows (new
    /// cells) instead.
    func batch(reloadingEdits: Bool) -> (update: BatchUpdate, reconfiguring: [TablePath]) {
        guard reloadingEdits, update.isEmpty, !hasMoves, !reconfigured.isEmpty else { return (update, reconfigured) }
        var reloads = BatchUpdate()
        reloads.reloadRows(at: reconfigured)
        return (reloads, [])
    }
}
