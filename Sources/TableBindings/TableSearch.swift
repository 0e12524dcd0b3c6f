import FetchedResults
import Foundation
import HeadlessTableView
import PredicateFormat
import Records
import TableDiff

/// A search over a bound table, as `UISearchController` does it: a second
/// table, ``resultsTable``, showing the objects that also match the search
/// text — and the selected scope, when there are scope buttons.
///
/// ```swift
/// let search = try TableSearch(binding, format: "name CONTAINS[cd] %@", results: .flat,
///                              scopes: [.init("All"), .init("Friends", predicate: try RecordPredicate(format: "friend == YES"))])
/// try search.update(text: "jo")       // resultsTable shows the matching people, in one section
/// try search.selectScope(at: 1)       // … who are friends
/// try search.update(text: "jos")      // filters the "jo" results, not the store
/// try search.resultsTable.commit(.delete, forRowAt: TablePath(row: 0, section: 0))
/// search.cancel()                     // back to the full table
/// ```
///
/// **Results.** ``ResultsLayout/flat`` shows one section without an index (the
/// seeds' search, and Contacts'); ``ResultsLayout/sectioned`` keeps the main
/// table's sections and index. Either way the order is the main table's.
///
/// **Scopes.** Each ``Scope`` has a title and a predicate (nil: every object,
/// like an "All" button); the selected scope's predicate is combined with the
/// text's, and with the main request's. ``selectScope(at:)`` searches again.
///
/// **Tables.** The results table shares the main table's reuse pool — its
/// registrations and cells — its cell provider and its row heights (set its own
/// delegate for per-row heights: the main one's index paths are not the
/// results'). Its own fetched results controller runs on the same context with
/// the same sort keys, so both tables follow every change: a delete from the
/// results, or a save anywhere. While a search is on, both tables show the
/// search field (`TableView/searchFieldText`) and the scope buttons
/// (`TableView/searchScopeTitles`), which the text renderer draws above the
/// rows (`Search: jo`, `Scope: [All] Friends`).
///
/// **Narrowing.** Typing on usually narrows the search: every object matching
/// `jos` matches `jo`. Then the search filters its previous results instead of
/// fetching from the whole store — O(*m*) for *m* previous results instead of
/// O(*n*) for *n* records. It does so only when that is provably the same as
/// fetching:
/// - the text predicate narrows: for a format search, by
///   `FormatPredicate.provablyNarrows(_:for:)` (the text substituted into
///   `CONTAINS`, `BEGINSWITH` or `ENDSWITH` of a `String` key, the new text
///   containing — starting with, ending with — the old one, folded as the
///   comparison folds); for a closure search, only when the caller opted in
///   with `narrows` and it says so;
/// - the scope, and the main table's request (and its last fetch), are the same;
/// - the results are current: no change in the context waits to be processed,
///   every save in the store was made or merged in the context, and the
///   request has no offset or limit.
/// Otherwise it fetches from the store; ``lastUpdateNarrowed`` says which.
public final class TableSearch<R: Record & Codable> {
    /// How the results are laid out.
    public enum ResultsLayout: Hashable, Sendable {
        /// One section, no section index: the seeds' search.
        case flat
        /// The main table's sections and index.
        case sectioned
    }

    /// A scope button: a title, and which objects it lets through.
    public struct Scope: Sendable {
        /// The button's title.
        public var title: String
        /// The objects of this scope; nil for every object.
        public var predicate: RecordPredicate<R>?

        /// A scope with a title and a predicate (nil: every object).
        public init(_ title: String, predicate: RecordPredicate<R>? = nil) {
            self.title = title
            self.predicate = predicate
        }
    }

    /// The table of results, while a search is on.
    public let resultsTable: TableView
    /// The search text; nil when no search is on.
    public private(set) var text: String?
    /// The binding of the results (nil when no search is on).
    public private(set) var resultsBinding: FetchedResultsTableBinding<R>?
    /// Flat or sectioned results.
    public let resultsLayout: ResultsLayout
    /// The scope buttons; empty for none.
    public let scopes: [Scope]
    /// The scope buttons' titles (a search bar's `scopeButtonTitles`).
    public var searchScopeTitles: [String] { scopes.map(\.title) }
    /// The selected scope button (0 with no scopes).
    public private(set) var selectedSearchScopeIndex = 0
    /// Whether the last search filtered the previous results (a narrowing)
    /// instead of fetching from the store.
    public private(set) var lastUpdateNarrowed = false

    let base: FetchedResultsTableBinding<R>
    let makePredicate: (String) throws -> RecordPredicate<R>
    /// For a format search: the text's predicate as a tree, to prove narrowings.
    let makeFormat: ((String) throws -> FormatPredicate)?
    /// A closure search's opt-in: whether the new text (first) narrows the old.
    let textNarrows: ((String, String) -> Bool)?
    /// What the current results were made from.
    var last: (text: String, format: FormatPredicate?, scope: Int, baseGeneration: Int)?

    /// A search whose predicate comes from the search text.
    ///
    /// - Parameters:
    ///   - binding: the main table's binding: its request, context, cells and table.
    ///   - results: flat (one section) or sectioned (the main table's) results.
    ///   - scopes: the scope buttons; the first is selected.
    ///   - predicate: the objects matching a search text.
    ///   - narrows: whether every object matching the first text matches the
    ///     second (the old) one too — so that typing on filters the previous
    ///     results; nil (the default): a closure search always fetches.
    public init(
        _ binding: FetchedResultsTableBinding<R>, results: ResultsLayout = .sectioned, scopes: [Scope] = [],
        predicate: @escaping (String) throws -> RecordPredicate<R>, narrows: ((_ new: String, _ old: String) -> Bool)? = nil
    ) {
        base = binding
        makePredicate = predicate
        makeFormat = nil
        textNarrows = narrows
        resultsLayout = results
        self.scopes = scopes
        resultsTable = TableSearch.makeResultsTable(for: binding)
    }

    /// A search with a format predicate taking the text as its one argument,
    /// such as `text CONTAINS[cd] %@`. Typing on narrows by the rule above.
    ///
    /// - Throws: `PredicateSyntaxError` when the format is malformed.
    public init(_ binding: FetchedResultsTableBinding<R>, format: String, results: ResultsLayout = .sectioned, scopes: [Scope] = []) throws(PredicateSyntaxError) {
        _ = try FormatPredicate(format: format, arguments: [""])
        let makeFormat = { (text: String) throws -> FormatPredicate in try FormatPredicate(format: format, arguments: [.string(text)]) }
        base = binding
        self.makeFormat = makeFormat
        makePredicate = { text in RecordPredicate(try makeFormat(text)) }
        textNarrows = nil
        resultsLayout = results
        self.scopes = scopes
        resultsTable = TableSearch.makeResultsTable(for: binding)
    }

    private static func makeResultsTable(for binding: FetchedResultsTableBinding<R>) -> TableView {
        let main = binding.tableView
        let table = TableView(viewportHeight: main?.viewportHeight ?? 480, reusePool: main?.reusePool ?? ReusePool())
        // The delegate is not shared: its index paths would be the main table's.
        if let main {
            table.rowHeight = main.rowHeight
            table.estimatedRowHeight = main.estimatedRowHeight
            table.sectionHeaderHeight = main.sectionHeaderHeight
            table.sectionFooterHeight = main.sectionFooterHeight
        }
        return table
    }

    /// Whether a search is on.
    public var isActive: Bool { text != nil }

    /// Searches (again): the results table shows the main results that match
    /// `text` and the selected scope — by filtering the previous results when
    /// the new text narrows the old (see ``TableSearch``).
    ///
    /// - Throws: what making the predicate throws, or a `FetchError`; the
    ///   search stays as it was.
    public func update(text: String) throws {
        try search(text, scope: selectedSearchScopeIndex)
    }

    /// Selects a scope button; while a search is on, searches again within it.
    ///
    /// - Throws: ``TableSearchError/scopeOutOfRange(index:scopeCount:)`` for an
    ///   index that is not a scope's, ``TableSearchError/searchFailed(_:)`` when
    ///   searching again fails; the selection and the results stay as they were.
    public func selectScope(at index: Int) throws(TableSearchError) {
        guard scopes.indices.contains(index) else { throw .scopeOutOfRange(index: index, scopeCount: scopes.count) }
        if let text {
            do {
                try search(text, scope: index)
            } catch {
                throw .searchFailed("\(error)")
            }
        }
        selectedSearchScopeIndex = index
        showSearchField()
    }

    private func search(_ text: String, scope: Int) throws {
        var request = base.controller.fetchedRequest ?? base.controller.fetchRequest
        let format = try makeFormat?(text)
        var predicate = try format.map { RecordPredicate($0) } ?? makePredicate(text)
        if let scopePredicate = scopes.indices.contains(scope) ? scopes[scope].predicate : nil { predicate = scopePredicate.and(predicate) }
        if let basePredicate = request.predicate { predicate = basePredicate.and(predicate) }
        request.predicate = predicate

        var narrowed = false
        if let binding = resultsBinding {
            let controller = binding.controller
            if let last, last.scope == scope, last.baseGeneration == base.controller.fetchGeneration,
                textNarrows(text, format, from: last.text, last.format)
            {
                narrowed = try controller.performFetch(narrowingTo: request)
            }
            if !narrowed {
                let previous = controller.fetchRequest
                controller.fetchRequest = request
                do {
                    try controller.performFetch()
                } catch {
                    controller.fetchRequest = previous
                    throw error
                }
            }
            try resultsTable.reloadData()
        } else {
            let controller = FetchedResultsController(
                fetchRequest: request, context: base.controller.context,
                sectionNameKeyPath: resultsLayout == .flat ? nil : base.controller.sectionNameKeyPath,
                sectionCollation: resultsLayout == .flat ? nil : base.controller.sectionCollation)
            controller.showsEveryCollationIndexTitle = base.controller.showsEveryCollationIndexTitle
            try controller.performFetch()
            let binding = try FetchedResultsTableBinding(controller: controller, tableView: resultsTable, cell: base.cellProvider)
            binding.onDelete = { [weak base] object in try base?.onDelete?(object) }
            resultsBinding = binding
        }
        lastUpdateNarrowed = narrowed
        last = (text, format, scope, base.controller.fetchGeneration)
        self.text = text
        selectedSearchScopeIndex = scope
        showSearchField()
    }

    /// Whether the objects matching `new` provably all match `old`.
    private func textNarrows(_ new: String, _ newFormat: FormatPredicate?, from old: String, _ oldFormat: FormatPredicate?) -> Bool {
        if let newFormat, let oldFormat { return newFormat.provablyNarrows(oldFormat, for: R.self) }
        return textNarrows?(new, old) ?? false
    }

    /// The search field and the scope buttons, on both tables while searching.
    private func showSearchField() {
        for table in [base.tableView, resultsTable].compactMap({ $0 }) {
            table.searchFieldText = text
            table.searchScopeTitles = text == nil || scopes.isEmpty ? nil : searchScopeTitles
            table.selectedSearchScopeIndex = selectedSearchScopeIndex
        }
    }

    /// Ends the search: the results table empties; the main table, kept up to
    /// date all along, is the table again (without the search field). The
    /// selected scope stays selected.
    public func cancel() {
        if let resultsBinding { resultsBinding.controller.removeObserver(resultsBinding) }
        resultsBinding = nil
        text = nil
        last = nil
        lastUpdateNarrowed = false
        showSearchField()
        let empty = _EmptyDataSource()
        resultsTable.dataSource = empty
        try? resultsTable.reloadData()
        resultsTable.dataSource = nil
    }
}

/// Why a search could not do what it was asked.
public enum TableSearchError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No scope button at this index.
    case scopeOutOfRange(index: Int, scopeCount: Int)
    /// Searching again (in another scope) failed: why.
    case searchFailed(String)

    public var description: String {
        switch self {
        case let .scopeOutOfRange(index, 0):
            return "no scope at index \(index): the search has no scopes (give TableSearch scopes: to show scope buttons)"
        case let .scopeOutOfRange(index, count):
            return "no scope at index \(index): the search has \(count) scopes (0...\(count - 1))"
        case .searchFailed(let reason):
            return "the search failed: \(reason)"
        }
    }
}

/// No sections: what a cancelled search's table shows.
final class _EmptyDataSource: TableViewDataSource {
    func numberOfSections(in tableView: TableView) -> Int { 0 }
    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 0 }
    func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? { nil }
}
