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
/// an inserted one is a delete and an insert, as UIKit needs. An object whose
/// changed keys show nothing (`shows` false: none of the keys its cell shows
/// changed) is not reconfigured: a moved one only moves.
struct _ReportedChange {
    var update = BatchUpdate()
    /// The rows (after the change) whose objects changed and stay in their cells.
    var reconfigured: [TablePath] = []
    /// Whether some changed object moved.
    var hasMoves = false
    /// The index paths before and after of the objects that stay (updated or moved).
    var kept: [(old: TablePath, new: TablePath)] = []

    mutating func section(at index: Int, _ type: FetchedResultsChangeType) {
        switch type {
        case .insert: update.insertSections([index])
        case .delete: update.deleteSections([index])
        default: break
        }
    }

    mutating func object(at indexPath: TablePath?, _ type: FetchedResultsChangeType, newIndexPath: TablePath?, shows: Bool = true) {
        switch (type, indexPath, newIndexPath) {
        case (.insert, _, let new?):
            update.insertRows(at: [new])
        case (.delete, let old?, _):
            update.deleteRows(at: [old])
        case (.update, let old?, let new):
            if shows { reconfigured.append(new ?? old) }   // after the change
            kept.append((old, new ?? old))
        case (.move, let old?, let new?):
            hasMoves = true
            kept.append((old, new))
            if update.deletedSections.contains(old.section) || update.insertedSections.contains(new.section) {
                update.deleteRows(at: [old])   // sections come first in the report, so they are known here
                update.insertRows(at: [new])
            } else {
                update.moveRow(at: old, to: new)
                if shows { reconfigured.append(new) }
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

    /// The batch of a change that is exactly a user's move, as the table
    /// shows it: one move of the row, and every object the change reports
    /// (the moved one, and the neighbours renumbered for it) reconfigured in
    /// place. Nil when the change is something else too (rows inserted or
    /// deleted, a row that lands elsewhere): it is then shown as reported.
    ///
    /// The change is the move when the moved object is among the reported
    /// ones and every reported object lands where the move puts it: the
    /// unreported rows then keep their order around them, as in the move.
    func batch(forUserMove move: (from: TablePath, to: TablePath)) -> (update: BatchUpdate, reconfiguring: [TablePath])? {
        guard update.deletedSections.isEmpty, update.insertedSections.isEmpty, update.movedSections.isEmpty, update.reloadedSections.isEmpty,
            update.deletedRows.isEmpty, update.insertedRows.isEmpty, update.reloadedRows.isEmpty,
            kept.contains(where: { $0.old == move.from })
        else { return nil }
        for object in kept where object.new != Self.path(object.old, after: move) { return nil }
        var batch = BatchUpdate()
        batch.moveRow(at: move.from, to: move.to)
        return (batch, kept.map(\.new))
    }

    /// Where a row is after a move of one row (`to`: where the moved row is after it).
    static func path(_ old: TablePath, after move: (from: TablePath, to: TablePath)) -> TablePath {
        guard old != move.from else { return move.to }
        var path = old
        if path.section == move.from.section, path.row > move.from.row { path.row -= 1 }
        if path.section == move.to.section, path.row >= move.to.row { path.row += 1 }
        return path
    }
}
