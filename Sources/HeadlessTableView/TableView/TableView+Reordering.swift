import TableDiff

// A user's move: what UIKit does when a row dragged in editing mode is dropped.
//
// UIKit asks the data source whether the row can move (`canMoveRowAt`), the
// delegate where it lands (`targetIndexPathForMoveFromRowAt:toProposedIndexPath:`,
// asked as the drag goes; here once, for the drop), and then tells the data
// source (`moveRowAt`): the table already shows the move, and the data source
// only updates its model. Here the table shows the move as a batch of one
// move, right after the data source updated its model — unless the data
// source changed the table itself meanwhile: a binding whose model reports
// the move back (a fetched results controller), or a diffable data source
// that shows the move before it calls its `didReorder` handler. The table
// then takes that change as the move and does not move the row again: the
// "user-driven change" Core Data apps flag by hand, handled here once.

extension TableView {
    /// Moves a row as a user's drag and drop does (see `moveRowByUser(from:to:)`).
    /// All or nothing up to the data source: a refused source or destination
    /// changes nothing and asks nothing of the data source.
    func performUserMove(from source: TablePath, to proposed: TablePath) throws {
        guard updateDepth == 0 else { throw TableViewError.userMoveInsideBatch }
        guard !isBusy else { throw TableViewError.busy }
        try check(source)
        guard isEditing else { throw TableViewError.notEditing }
        guard let dataSource else { throw TableViewError.noDataSource }
        guard dataSource.tableView(self, canMoveRowAt: source) else { throw TableViewError.notMovable(source) }
        try checkMoveDestination(proposed, from: source)
        let destination = delegate?.tableView(self, targetIndexPathForMoveFromRowAt: source, toProposedIndexPath: proposed) ?? proposed
        if destination != proposed { try checkMoveDestination(destination, from: source) }
        guard source != destination else { return }
        let generation = dataGeneration
        try dataSource.tableView(self, moveRowAt: source, to: destination)
        if dataGeneration != generation {
            // The data source showed the move itself (or its model's report of it).
            try checkCountsAgree()
            return
        }
        try moveRow(at: source, to: destination)
    }

    /// Throws unless `destination` is a place for the row at `source` after
    /// the move: a row of an existing section, or one past its last row
    /// (counted without the moved row).
    func checkMoveDestination(_ destination: TablePath, from source: TablePath) throws(TableViewError) {
        let count = rowCounts.indices.contains(destination.section)
            ? rowCounts[destination.section] - (destination.section == source.section ? 1 : 0) : nil
        guard let count, destination.row >= 0, destination.row <= count else {
            throw TableViewError.invalidIndexPath(destination, sectionCount: rowCounts.count, rowCount: count.map { $0 + 1 })
        }
    }
}
