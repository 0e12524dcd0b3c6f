import Foundation

/// A search over a bound table: a second table, ``resultsTable``, showing the
/// objects that also match a search predicate — as the search display
/// controller did.
///
/// ```swift
/// let search = try TableSearch(binding, format: "text CONTAINS[cd] %@")
/// try search.update(text: "fog")      // resultsTable shows the matching entries
/// try search.resultsTable.commit(.delete, forRowAt: TablePath(row: 0, section: 0))
/// search.cancel()                     // back to the full table
/// ```
///
/// The results table shares the main table's reuse pool — its registrations
/// and cells — its cell provider and its row heights (set its own delegate
/// for per-row heights: the main one's index paths are not the results'). Its own fetched results controller runs
/// on the same context with the same sort and section keys, so both tables
/// follow every change: a delete from the results, or a save anywhere. The
/// results table shows the search text in its search field
/// (``TableView/searchFieldText``).
public final class TableSearch<R: Record & Codable> {
    /// The table of results, while a search is on.
    public let resultsTable: TableView
    /// The search text; nil when no search is on.
    public private(set) var text: String?
    /// The binding of the results (nil when no search is on).
    public private(set) var resultsBinding: FetchedResultsTableBinding<R>?

    let base: FetchedResultsTableBinding<R>
    let makePredicate: (String) throws -> RecordPredicate<R>

    /// A search whose predicate comes from the search text.
    public init(_ binding: FetchedResultsTableBinding<R>, predicate: @escaping (String) throws -> RecordPredicate<R>) {
        base = binding
        makePredicate = predicate
        let main = binding.tableView
        resultsTable = TableView(viewportHeight: main?.viewportHeight ?? 480, reusePool: main?.reusePool ?? ReusePool())
        // The delegate is not shared: its index paths would be the main table's.
        if let main {
            resultsTable.rowHeight = main.rowHeight
            resultsTable.estimatedRowHeight = main.estimatedRowHeight
            resultsTable.sectionHeaderHeight = main.sectionHeaderHeight
            resultsTable.sectionFooterHeight = main.sectionFooterHeight
        }
    }

    /// A search with a format predicate taking the text as its one argument,
    /// such as `text CONTAINS[cd] %@`.
    ///
    /// - Throws: `PredicateSyntaxError` when the format is malformed.
    public convenience init(_ binding: FetchedResultsTableBinding<R>, format: String) throws(PredicateSyntaxError) {
        _ = try FormatPredicate(format: format, arguments: [""])
        self.init(binding, predicate: { text in try RecordPredicate(format: format, text) })
    }

    /// Whether a search is on.
    public var isActive: Bool { text != nil }

    /// Searches (again): the results table shows the base results that match `text`.
    public func update(text: String) throws {
        var request = base.controller.fetchRequest
        let search = try makePredicate(text)
        request.predicate = request.predicate.map { $0.and(search) } ?? search
        let controller = FetchedResultsController(
            fetchRequest: request, context: base.controller.context, sectionNameKeyPath: base.controller.sectionNameKeyPath,
            sectionCollation: base.controller.sectionCollation)
        controller.showsEveryCollationIndexTitle = base.controller.showsEveryCollationIndexTitle
        try controller.performFetch()
        let binding = try FetchedResultsTableBinding(controller: controller, tableView: resultsTable, cell: base.cellProvider)
        binding.onDelete = { [weak base] object in try base?.onDelete?(object) }
        resultsBinding = binding
        self.text = text
        resultsTable.searchFieldText = text
    }

    /// Ends the search: the results table empties; the main table, kept up to
    /// date all along, is the table again.
    public func cancel() {
        if let resultsBinding { resultsBinding.controller.removeObserver(resultsBinding) }
        resultsBinding = nil
        text = nil
        resultsTable.searchFieldText = nil
        let empty = _EmptyDataSource()
        resultsTable.dataSource = empty
        try? resultsTable.reloadData()
        resultsTable.dataSource = nil
    }
}

/// No sections: what a cancelled search's table shows.
final class _EmptyDataSource: TableViewDataSource {
    func numberOfSections(in tableView: TableView) -> Int { 0 }
    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 0 }
    func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? { nil }
}
