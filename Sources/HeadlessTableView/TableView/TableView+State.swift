import TableDiff
import Foundation

// The table's stored state, grouped by value: each group changes — and rolls
// back — together, so saving one is one copy and putting it back is one
// assignment (a property added to a group cannot escape its rollback).
//
// The accessors below keep the names the code reads. They `yield` the stored
// field (`_read`/`_modify`), so mutating through them (`layout.setHeight`,
// `cells[path] = cell`) mutates in place: no copy of the layout or of the
// cells, as with the stored properties they replace.

extension TableView {
    /// What the table shows. A batch saves it before it changes anything and,
    /// if the data source fails, assigns it back (`commitPendingUpdate`).
    struct _Shown {
        /// The rows of each section.
        var rowCounts: [Int] = []
        /// Where every header, row and footer is.
        var layout = _TableLayout()
        /// The cells of the window's rows.
        var cells: [TablePath: TableViewCell] = [:]
        /// The window's rows, in order: those with a cell in `cells`.
        var windowRows: [TablePath] = []
        /// The header and footer views of the sections in the window, by section.
        var headerViews: [Int: TableHeaderFooterView] = [:]
        var footerViews: [Int: TableHeaderFooterView] = [:]
        /// Header and footer views a batch replaced, queued once the window is
        /// filled (empty between operations).
        var staleViews: [TableHeaderFooterView] = []
        var selected = Set<TablePath>()
        /// The section index, as the data source gave it.
        var indexTitles: [String]?
        /// The distance from the content's top to the window's top.
        var contentOffset: Double = 0
        /// During a staged change (`performStaged`): the cells of rows that
        /// left the window in one of its batches, kept for their rows (paths
        /// after the last batch), so that a row coming back in a later batch
        /// has its own cell again; nil outside one.
        var carried: [TablePath: TableViewCell]?
    }

    /// The batch being collected: the changes, the rows to reconfigure, the
    /// animations asked for, and how deep `beginUpdates()` calls nest. A batch
    /// whose block throws assigns the value saved before it back.
    struct _PendingBatch {
        var update = BatchUpdate()
        var reconfigure: [TablePath] = []
        var animations: [BatchChange: RowAnimation] = [:]
        var depth = 0

        /// Whether no change is collected.
        var isEmpty: Bool { update.isEmpty && reconfigure.isEmpty && animations.isEmpty }

        /// Drops the changes collected (a reload supersedes them); the nesting stays.
        mutating func discardChanges() {
            self = _PendingBatch(depth: depth)
        }
    }

    /// The cell being made and the window being filled — what the dequeue
    /// methods consult while the data source makes a cell.
    struct _CellMaking {
        /// The row whose cell the data source is making, if any.
        var row: TablePath?
        /// Whether `dequeueReusableCell(withIdentifier:for:)` was called for `row`.
        var dequeuedForRow = false
        /// The cells the data source dequeued while making `row`: those it
        /// does not return go back to the pool.
        var dequeuedMeanwhile: [TableViewCell] = []
        /// The cell a reconfigure hands back to the dequeue for `row`.
        var reconfiguredCell: TableViewCell?
        /// While the window fills: the cells of rows that scrolled out of it, by
        /// reuse identifier — dequeued before the pool's, as UIKit reuses the
        /// cells that left (so a jump does not make a second window of cells) —
        /// and those taken, with the rows they showed.
        var departedCells: [String: [(TablePath, TableViewCell)]] = [:]
        var takenDepartedCells: [(TablePath, TableViewCell)] = []
        /// Whether the table is filling its window (asking for cells): it cannot change meanwhile.
        var isBusy = false

        /// Whether no cell is being made and no window filled.
        var isIdle: Bool {
            row == nil && !isBusy && dequeuedMeanwhile.isEmpty && reconfiguredCell == nil
                && departedCells.isEmpty && takenDepartedCells.isEmpty
        }
    }

    // MARK: What the table shows

    var rowCounts: [Int] {
        _read { yield shown.rowCounts }
        _modify { yield &shown.rowCounts }
    }
    var layout: _TableLayout {
        _read { yield shown.layout }
        _modify { yield &shown.layout }
    }
    var cells: [TablePath: TableViewCell] {
        _read { yield shown.cells }
        _modify { yield &shown.cells }
    }
    var windowRows: [TablePath] {
        _read { yield shown.windowRows }
        _modify { yield &shown.windowRows }
    }
    var headerViews: [Int: TableHeaderFooterView] {
        _read { yield shown.headerViews }
        _modify { yield &shown.headerViews }
    }
    var footerViews: [Int: TableHeaderFooterView] {
        _read { yield shown.footerViews }
        _modify { yield &shown.footerViews }
    }
    var staleViews: [TableHeaderFooterView] {
        _read { yield shown.staleViews }
        _modify { yield &shown.staleViews }
    }
    var selected: Set<TablePath> {
        _read { yield shown.selected }
        _modify { yield &shown.selected }
    }
    var indexTitles: [String]? {
        _read { yield shown.indexTitles }
        _modify { yield &shown.indexTitles }
    }

    // MARK: The batch being collected

    var updateDepth: Int {
        _read { yield batch.depth }
        _modify { yield &batch.depth }
    }
    var pendingUpdate: BatchUpdate {
        _read { yield batch.update }
        _modify { yield &batch.update }
    }
    var pendingReconfigure: [TablePath] {
        _read { yield batch.reconfigure }
        _modify { yield &batch.reconfigure }
    }
    var pendingAnimations: [BatchChange: RowAnimation] {
        _read { yield batch.animations }
        _modify { yield &batch.animations }
    }

    // MARK: The cell being made

    /// Whether the table is filling its window (asking for cells): it cannot change meanwhile.
    var isBusy: Bool {
        get { cellMaking.isBusy }
        set { cellMaking.isBusy = newValue }
    }
}
