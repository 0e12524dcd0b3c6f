import FetchedResults
import HeadlessTableView
import Records
import TableDiff

extension FetchedResultsTableBinding: TableViewDataSourcePrefetching {
    /// Reads ahead the batches of the rows about to show (see
    /// `FetchedResultsController.prefetchObjects(at:)`).
    public func tableView(_ tableView: TableView, prefetchRowsAt indexPaths: [TablePath]) {
        controller.prefetchObjects(at: indexPaths)
    }
}
