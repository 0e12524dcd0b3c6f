import FetchedResults
import HeadlessTableView
import Records
import TableDiff

/// The results table of a ``TableSearch``: the table, its data source (the
/// rows found, as main row positions) and its delegate (the main table's
/// heights) — what shows a search's rows, and how each change of them
/// reaches the table. Its failures are the search's to report.
struct _SearchResultsTable<R: Record & Codable> {
    let table: TableView
    let results: _SearchResults<R>
    let heights: _SearchResultsDelegate<R>

    /// A table that looks like the binding's (its heights, style, anchoring
    /// and reuse pool), empty.
    init(for binding: FetchedResultsTableBinding<R>, layout: TableSearch<R>.ResultsLayout) {
        let main = binding.tableView
        table = TableView(viewportHeight: main?.viewportHeight ?? 480, style: main?.style ?? .plain, reusePool: main?.reusePool ?? ReusePool())
        if let main {
            table.rowHeight = main.rowHeight
            table.estimatedRowHeight = main.estimatedRowHeight
            table.sectionHeaderHeight = main.sectionHeaderHeight
            table.sectionFooterHeight = main.sectionFooterHeight
            table.anchoring = main.anchoring
        }
        results = _SearchResults(binding, sectioned: layout == .sectioned && binding.controller.sectionNameKeyPath != nil)
        heights = _SearchResultsDelegate(results)
        table.dataSource = results
        table.delegate = heights
    }

    /// The rows shown: main row positions, in order.
    var rows: [Int32] { results.rows }

    /// Shows `rows` as a search's results (the table reloaded).
    ///
    /// - Throws: what the table throws reloading (a cell the provider fails to make).
    func show(_ rows: [Int32]) throws {
        results.rows = rows
        results.isActive = true
        results.recomputeRuns()
        try table.reloadData()
    }

    /// Empties the table: no search is on.
    ///
    /// - Throws: what the table throws reloading.
    func clear() throws {
        results.isActive = false
        results.rows = []
        results.recomputeRuns()
        try table.reloadData()
    }

    /// Shows `rows` after a change of the main controller: `deleted` (old
    /// indexes) and `inserted` (new indexes) as one batch in flat results,
    /// a reload in sectioned ones or when `reloading`.
    ///
    /// - Returns: the failure, when the batch was refused (the table then
    ///   reloaded) or the reload failed; nil when the rows are shown.
    func follow(to rows: [Int32], deleted: [Int], inserted: [Int], reloading: Bool, animations: TableView.RowAnimations) -> FetchedResultsTableBinding<R>.Failure? {
        results.rows = rows
        results.recomputeRuns()
        guard !deleted.isEmpty || !inserted.isEmpty || reloading else { return nil }
        if results.isSectioned || reloading { return .reloading(table, after: nil) }
        let update = BatchUpdate(
            deletedRows: deleted.map { TablePath(row: $0, section: 0) },
            insertedRows: inserted.map { TablePath(row: $0, section: 0) })
        do {
            try table.performBatchUpdates(update, animations: animations)
            return nil
        } catch {
            return .reloading(table, after: error)
        }
    }

    /// Shows `rows`, which begin with the rows shown: the rest inserted (a
    /// few, flat) or the table reloaded, its selected rows selected again
    /// (their paths are the same).
    ///
    /// - Throws: what the table throws.
    func append(upTo rows: [Int32], animations: TableView.RowAnimations) throws {
        let shown = results.rows.count
        results.rows = rows
        results.recomputeRuns()
        let added = rows.count - shown
        if added > 0 && added <= 1024 && !results.isSectioned {
            let update = BatchUpdate(insertedRows: (shown..<rows.count).map { TablePath(row: $0, section: 0) })
            try table.performBatchUpdates(update, animations: animations)
        } else if added > 0 {
            let selected = table.indexPathsForSelectedRows
            try table.reloadData()
            for path in selected { try table.selectRow(at: path) }
        }
    }
}
