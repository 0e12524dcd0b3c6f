import FetchedResults
import Foundation
import HeadlessTableView
import InternalTableUtilities
import PredicateFormat
import Records
import TableDiff

/// A search over a bound table, as `UISearchController` does it: a second
/// table, ``resultsTable``, showing the main table's rows that also match the
/// search text — and the selected scope, when there are scope buttons.
///
/// ```swift
/// let search = try TableSearch(binding, format: "name CONTAINS[cd] %@",
///                              scopes: [.init("All"), .init("Friends", predicate: try RecordPredicate(format: "friend == YES"))])
/// try search.update(text: "jo")       // resultsTable shows the matching people, in one section
/// try search.selectScope(at: 1)       // … who are friends
/// try search.update(text: "jos")      // scans the "jo" rows, not every row
/// try search.resultsTable.commit(.delete, forRowAt: TablePath(row: 0, section: 0))
/// search.cancel()                     // back to the full table
/// ```
///
/// **Results.** The results are the main table's rows that match, in its
/// order: a list of the main controller's row positions (4 bytes a row),
/// never a record or a cell per row — a million results cost the window and
/// the list. ``ResultsLayout/flat`` (the default) shows one section without
/// an index (the seeds' search, and Contacts'); ``ResultsLayout/sectioned``
/// keeps the main table's sections and index. A save not yet merged into the
/// main controller's context shows in neither table.
///
/// **Scopes.** Each ``Scope`` has a title and a predicate (nil: every object,
/// like an "All" button); the selected scope's predicate is combined with the
/// text's. ``selectScope(at:)`` searches again.
///
/// **Tables.** The results table shares the main table's reuse pool — its
/// registrations and cells — its cell provider and its row heights: its
/// delegate asks the main table's delegate for each row's height, with the
/// row's index path in the main table. Both tables follow every change to
/// the main controller: a delete from the results, or a save anywhere. While
/// a search is on, both tables show the search field
/// (`TableView/searchFieldText`) and the scope buttons
/// (`TableView/searchScopeTitles`), which the text renderer draws above the
/// rows (`Search: jo`, `Scope: [All] Friends`).
///
/// **Search as you type** (see <doc:Searching> for the costs). Each update
/// takes the fastest way that gives exactly the predicate's answer
/// (``lastUpdateMethod`` says which):
/// - the same text (and scope) searched before: its results, remembered
///   (backspace, an erased field, a word typed again);
/// - a format of `KEY CONTAINS[cd] %@`, `KEY BEGINSWITH[cd] %@`, `KEY ==[cd] %@`
///   or the `OR` of such comparisons: the main controller's folded index of
///   those keys (made off the caller's thread after every fetch, kept current
///   by every change), scanning the rows an earlier text inside the new one
///   found, or every row; the predicate decides the few rows the bytes do not
///   (clusters of several scalars, values that are not strings);
/// - any other search, or before the index is made: the predicate over the
///   results of an earlier text it provably narrows
///   (`FormatPredicate.provablyNarrows(_:for:)`; for a closure search, when
///   `narrows` says so), or over every row of the main table.
///
/// In a big table a search finds the first two screens of results at once
/// and the rest later — on a thread of its own where the index's bytes
/// decide every row, else a slice of tests at a time (``isFindingResults``);
/// ``showFoundResults(waiting:)`` or ``showAllResults(isolation:)`` adds them
/// when the caller is idle.
public final class TableSearch<R: Record & Codable> {
    /// How the results are laid out.
    public enum ResultsLayout: Hashable, Sendable {
        /// One section, no section index: the seeds' search (the default).
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

    /// How an update found its results.
    public enum UpdateMethod: Hashable, Sendable {
        /// The results of the same text and scope, remembered.
        case remembered
        /// The folded index, over the rows an earlier text found (that
        /// text), or over every row (nil).
        case index(narrowedFrom: String?)
        /// The predicate, over the results of an earlier text (that text),
        /// or over every row of the main table (nil).
        case predicate(narrowedFrom: String?)
    }

    /// The table of results, while a search is on.
    public let resultsTable: TableView
    /// The search text; nil when no search is on.
    public private(set) var text: String?
    /// Flat or sectioned results.
    public let resultsLayout: ResultsLayout
    /// The scope buttons; empty for none.
    public let scopes: [Scope]
    /// The scope buttons' titles (a search bar's `scopeButtonTitles`).
    public var searchScopeTitles: [String] { scopes.map(\.title) }
    /// The selected scope button (0 with no scopes).
    public private(set) var selectedSearchScopeIndex = 0
    /// How the last update found its results; nil before one.
    public private(set) var lastUpdateMethod: UpdateMethod?
    /// Whether the last update started from earlier results (remembered, or
    /// narrowed from an earlier text's) instead of every row.
    public var lastUpdateNarrowed: Bool {
        switch lastUpdateMethod {
        case .remembered?: true
        case .index(let from)?, .predicate(let from)?: from != nil
        case nil: false
        }
    }
    /// Whether the main controller's folded index answers this search: true
    /// for the formats it folds (`KEY CONTAINS[cd] %@`, `BEGINSWITH[cd]`,
    /// `==[cd]` and their `OR`), false for any other format or a closure
    /// search (those take the predicate).
    public var usesSearchIndex: Bool { indexedKeys != nil }

    /// Whether the main controller's folded index for this search is made:
    /// false for a search the index cannot answer (see ``usesSearchIndex``:
    /// it never becomes true then), and until it is made after a fetch
    /// (updates meanwhile take the predicate, without waiting).
    public var isSearchIndexReady: Bool {
        guard let indexedKeys else { return false }
        return base.controller.searchIndex(indexedKeys) != nil
    }

    /// Waits until the main controller's folded index for this search is
    /// made (see ``isSearchIndexReady``), at most `timeout` seconds, and says
    /// whether it is. It blocks the calling thread: for tools, tests and
    /// benchmarks that want the index's answers from the first keystroke —
    /// a UI needs no wait (a search takes the predicate meanwhile).
    ///
    /// - Returns: ``isSearchIndexReady``: false at once for a search the index
    ///   cannot answer (``usesSearchIndex`` is false).
    @discardableResult
    public func waitForSearchIndex(timeout: TimeInterval = 60) -> Bool {
        guard let indexedKeys else { return false }
        return base.controller.waitForSearchIndex(indexedKeys, until: Date(timeIntervalSinceNow: timeout))
    }

    /// The main table's binding.
    let base: FetchedResultsTableBinding<R>
    let makePredicate: (String) throws -> RecordPredicate<R>
    /// For a format search: the text's predicate as a tree.
    let makeFormat: ((String) throws -> FormatPredicate)?
    /// A closure search's opt-in: whether the new text (first) narrows the old.
    let textNarrows: ((String, String) -> Bool)?
    /// The keys the main controller indexes for this search; nil when the
    /// index cannot answer it.
    let indexedKeys: [String]?
    let results: _SearchResults<R>
    let heights: _SearchResultsDelegate<R>
    let follower: _SearchFollower<R>
    /// Earlier searches, the latest last, by text and scope.
    var remembered: [_RememberedSearch<R>] = []
    /// The main controller's fetch the remembered rows are positions of.
    var rememberedGeneration = -1

    /// At most this many searches are remembered …
    static var rememberedLimit: Int { 32 }
    /// … holding at most this many rows, with this many more for each main row.
    static var rememberedRowsBase: Int { 1 << 16 }
    static var rememberedRowsPerRow: Int { 4 }

    /// A search whose predicate comes from the search text.
    ///
    /// - Parameters:
    ///   - binding: the main table's binding: its controller, cells and table.
    ///   - results: flat (one section, the default) or sectioned (the main table's) results.
    ///   - scopes: the scope buttons; the first is selected.
    ///   - predicate: the objects matching a search text.
    ///   - narrows: whether every object matching the first text matches the
    ///     second (the old) one too — so that typing on filters the previous
    ///     results; nil (the default): a new text is tested on every row.
    public init(
        _ binding: FetchedResultsTableBinding<R>, results: ResultsLayout = .flat, scopes: [Scope] = [],
        predicate: @escaping (String) throws -> RecordPredicate<R>, narrows: ((_ new: String, _ old: String) -> Bool)? = nil
    ) {
        base = binding
        makePredicate = predicate
        makeFormat = nil
        textNarrows = narrows
        indexedKeys = nil
        resultsLayout = results
        self.scopes = scopes
        let made = Self.makeResultsTable(for: binding, layout: results)
        resultsTable = made.table
        self.results = made.results
        heights = made.heights
        follower = made.follower
        follower.search = self
    }

    /// A search with a format predicate taking the text as its arguments
    /// (every `%@`), such as `name CONTAINS[cd] %@` or
    /// `name CONTAINS[cd] %@ OR city CONTAINS[cd] %@`. Searches of the
    /// indexed forms (see ``TableSearch``) ask the main controller to keep a
    /// folded index of their keys from now on.
    ///
    /// - Throws: `PredicateSyntaxError` when the format is malformed.
    public convenience init(_ binding: FetchedResultsTableBinding<R>, format: String, results: ResultsLayout = .flat, scopes: [Scope] = []) throws(PredicateSyntaxError) {
        let arguments = max(1, format.components(separatedBy: "%@").count - 1)
        let probe = try FormatPredicate(format: format, arguments: Array(repeating: .string(""), count: arguments))
        self.init(binding, results: results, scopes: scopes, probe: probe) { text in
            try FormatPredicate(format: format, arguments: Array(repeating: .string(text), count: arguments))
        }
    }

    /// A search whose format predicate is made from the text: for keys
    /// chosen at run time, or named with `%K`. Searches of the indexed forms
    /// (see ``TableSearch``) ask the main controller to keep a folded index
    /// of their keys (those of the predicate for the empty text) from now on.
    ///
    /// ```swift
    /// let search = try TableSearch(binding) { text in
    ///     try FormatPredicate(format: "%K CONTAINS[cd] %@ OR %K CONTAINS[cd] %@", "title", text, "name", text)
    /// }
    /// ```
    ///
    /// - Throws: what `formatPredicate` throws for the empty text.
    public convenience init(
        _ binding: FetchedResultsTableBinding<R>, results: ResultsLayout = .flat, scopes: [Scope] = [],
        formatPredicate: @escaping (String) throws -> FormatPredicate
    ) throws {
        self.init(binding, results: results, scopes: scopes, probe: try formatPredicate(""), makeFormat: formatPredicate)
    }

    /// A format search: `probe` (the predicate of some text) names the keys to index.
    init(
        _ binding: FetchedResultsTableBinding<R>, results: ResultsLayout, scopes: [Scope], probe: FormatPredicate,
        makeFormat: @escaping (String) throws -> FormatPredicate
    ) {
        base = binding
        self.makeFormat = makeFormat
        makePredicate = { text in RecordPredicate(try makeFormat(text)) }
        textNarrows = nil
        if let plan = _IndexedSearch(probe), binding.controller.startIndexing(plan.keys) {
            indexedKeys = plan.keys
        } else {
            indexedKeys = nil
        }
        resultsLayout = results
        self.scopes = scopes
        let made = Self.makeResultsTable(for: binding, layout: results)
        resultsTable = made.table
        self.results = made.results
        heights = made.heights
        follower = made.follower
        follower.search = self
    }

    deinit {
        if let indexedKeys { base.controller.stopIndexing(indexedKeys) }
        base.controller.removeObserver(follower)
    }

    private static func makeResultsTable(
        for binding: FetchedResultsTableBinding<R>, layout: ResultsLayout
    ) -> (table: TableView, results: _SearchResults<R>, heights: _SearchResultsDelegate<R>, follower: _SearchFollower<R>) {
        let main = binding.tableView
        let table = TableView(viewportHeight: main?.viewportHeight ?? 480, style: main?.style ?? .plain, reusePool: main?.reusePool ?? ReusePool())
        if let main {
            table.rowHeight = main.rowHeight
            table.estimatedRowHeight = main.estimatedRowHeight
            table.sectionHeaderHeight = main.sectionHeaderHeight
            table.sectionFooterHeight = main.sectionFooterHeight
            table.anchoring = main.anchoring
        }
        let results = _SearchResults(binding, sectioned: layout == .sectioned && binding.controller.sectionNameKeyPath != nil)
        let heights = _SearchResultsDelegate(results)
        table.dataSource = results
        table.delegate = heights
        let follower = _SearchFollower<R>()
        follower.knownStarts = binding.controller.sectionStartPositions
        binding.controller.addObserver(follower)
        return (table, results, heights, follower)
    }

    /// Whether a search is on.
    public var isActive: Bool { text != nil }

    /// Searches (again): the results table shows the main table's rows that
    /// match `text` and the selected scope, found the fastest way there is
    /// (see ``TableSearch``).
    ///
    /// - Throws: what making the predicate throws, or a `FetchError` (a key
    ///   the records do not have, a predicate failing on a row); the search
    ///   stays as it was.
    /// - Complexity: O(1) for a remembered text; O(*m* + the bytes of *m*
    ///   rows) with the index, for *m* rows an earlier text found (every row
    ///   at first) — in a table of 32,768 rows or more, only until two
    ///   screens of results are found (or 65,536 rows scanned), the rest on a
    ///   thread of its own; with a scope or rows the bytes cannot decide,
    ///   the scan and scope or predicate tests. O(*m*) predicate
    ///   evaluations otherwise. The tests (and that scan), in a table of
    ///   4,096 rows or more, only until two screens of results are found (or
    ///   about 4 ms of tests are done), the rest later (see
    ///   ``isFindingResults``). Then the window.
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

    /// The object of a row of the results table.
    ///
    /// - Throws: `FetchError/noObject(at:sectionCount:rowCount:)` for a path
    ///   outside the results.
    /// - Complexity: O(log *n*); with a batch size, a batch is read on a miss.
    public func object(at indexPath: TablePath) throws(FetchError) -> R {
        try results.object(at: indexPath)
    }

    /// The index path in the main table of a row of the results table; nil
    /// for a path outside the results.
    ///
    /// - Complexity: O(log *s*) for *s* sections.
    public func mainIndexPath(forResultsIndexPath indexPath: TablePath) -> TablePath? {
        results.mainIndexPath(for: indexPath)
    }

    /// The objects of the results the results table shows, in order (the
    /// first ones while ``isFindingResults``); nil when no search is on.
    ///
    /// - Complexity: O(*m*) for *m* results (and reads every record, with a batch size).
    public var fetchedObjects: [R]? {
        guard isActive else { return nil }
        return results.rows.compactMap { base.controller.object(atPosition: Int($0)) }
    }

    // MARK: Searching

    private func search(_ text: String, scope: Int, leavingOutFailures: Bool = false) throws {
        let controller = base.controller
        follower.knownStarts = controller.sectionStartPositions
        if rememberedGeneration != controller.fetchGeneration {
            forgetRemembered()
            rememberedGeneration = controller.fetchGeneration
        }
        takeFinishedScans(waiting: false)
        let format = try makeFormat?(text)
        let textPredicate = try format.map { RecordPredicate($0) } ?? makePredicate(text)
        let scopePredicate = scopes.indices.contains(scope) ? scopes[scope].predicate : nil
        let predicate = scopePredicate.map { $0.and(textPredicate) } ?? textPredicate
        let matches = try predicate.makeEvaluator()
        let scopeMatches = try scopePredicate?.makeEvaluator()

        var entry: _RememberedSearch<R>
        let method: UpdateMethod
        if let known = remembered.lastIndex(where: { $0.text == text && $0.scope == scope }) {
            entry = remembered.remove(at: known)
            method = .remembered
        } else {
            func record(_ position: Int32) throws(FetchError) -> R {
                guard let record = controller.object(atPosition: Int(position)) else {
                    throw .noObject(at: controller.indexPath(ofPosition: Int(position)), sectionCount: controller.numberOfSections, rowCount: nil)
                }
                return record
            }
            let plan = format.flatMap { _IndexedSearch($0) }
            if let plan, plan.keys == indexedKeys, let index = controller.searchIndex(plan.keys) {
                // The index: from the candidates of the longest earlier text inside this one.
                var from: _RememberedSearch<R>?
                for earlier in remembered where earlier.candidates != nil && earlier.plan.map({ plan.narrows($0) }) == true {
                    if from == nil || earlier.plan!.length > from!.plan!.length { from = earlier }
                }
                var source = _ScanSource(positions: 0..<Int32(truncatingIfNeeded: controller.numberOfRows))
                if let from, let list = from.candidates {
                    // An earlier search still scanning: its candidates so far, then what it has left.
                    source = from.scan.map { $0.source.after(list) } ?? from.scanLeft.map { $0.after(list) } ?? _ScanSource(list: list)
                }
                // In a big table, the first screens' worth now and the rest later.
                let inParts = controller.numberOfRows >= scanInBackgroundFrom
                if index.isExact && scopeMatches == nil {
                    // The bytes decide every row: the rows are the candidates
                    // (the same list, shared); the rest on a thread of its own.
                    let found = index.scan(plan, source, limit: inParts ? firstScanRows : .max, budget: inParts ? 1 << 16 : .max)
                    entry = _RememberedSearch(text: text, scope: scope, plan: plan, format: format, candidates: found.found, rows: found.found, matches: matches)
                    entry.scan = found.rest.map { _BackgroundScan(index, plan, $0, after: found.found) }
                } else {
                    // The scope, or the predicate for a row the bytes cannot
                    // decide, tests each candidate: the scan and the tests a
                    // slice at a time on this thread (`showFoundResults`).
                    entry = _RememberedSearch(text: text, scope: scope, plan: plan, format: format, candidates: [], rows: [], matches: matches)
                    entry.scanLeft = source
                    entry.startTesting(.candidates) { position, index throws(FetchError) in
                        // The predicate decides a row the bytes cannot (or, the index gone, every row).
                        guard let index, index.kind(at: Int(position)) == _FoldedRows.exact else { return try matches(try record(position)) }
                        guard let scopeMatches else { return true }
                        return try scopeMatches(try record(position))
                    }
                    try testFirstSlice(of: &entry, index: index, leavingOutFailures: leavingOutFailures)
                }
                method = .index(narrowedFrom: from?.text)
            } else {
                // The predicate: over the results of an earlier text it provably narrows.
                var from: _RememberedSearch<R>?
                for earlier in remembered.reversed() where earlier.scope == scope && earlier.isComplete && (from == nil || earlier.rows.count < from!.rows.count) {
                    if textNarrows(text, format, from: earlier.text, earlier.format) { from = earlier }
                }
                entry = _RememberedSearch(text: text, scope: scope, plan: plan, format: format, candidates: nil, rows: [], matches: matches)
                entry.startTesting(from.map { .list($0.rows) } ?? .every(controller.numberOfRows)) { position, _ throws(FetchError) in
                    try matches(try record(position))
                }
                try testFirstSlice(of: &entry, index: nil, leavingOutFailures: leavingOutFailures)
                method = .predicate(narrowedFrom: from?.text)
            }
        }
        remember(entry)
        results.rows = entry.rows
        results.isActive = true
        results.recomputeRuns()
        try resultsTable.reloadData()
        lastUpdateMethod = method
        self.text = text
        selectedSearchScopeIndex = scope
        showSearchField()
    }

    // MARK: Results found later

    /// Whether results of the current search are still being found: the
    /// results table shows the first ones, and ``showFoundResults(waiting:)``
    /// (or ``showAllResults(isolation:)``) adds the rest.
    ///
    /// A search of a table of 32,768 rows or more through the folded index
    /// finds the first rows — two screens of the results table — before
    /// ``update(text:)`` returns, and the rest later: a keystroke costs about
    /// the window, not the table. Where the index's bytes decide every row,
    /// the rest is found on a thread of its own (the first rows, or what
    /// 65,536 rows hold, now). Where rows are tested — by a scope, or by the
    /// predicate (rows the bytes cannot decide, a format the index does not
    /// answer, a closure search, a search before the index is made) — the
    /// rest is tested on the caller's thread (in a table of 4,096 rows or
    /// more), about 4 ms of tests in each ``showFoundResults(waiting:)``. A
    /// search typed before the index is made goes on through the index once
    /// it is (the rows found so far keep their paths).
    public var isFindingResults: Bool {
        guard isActive, let current = remembered.last, current.text == text else { return false }
        return !current.isComplete
    }

    /// Adds to the results table the rest of the results, when the thread
    /// finding them is done (or, `waiting`, once it is) or the last rows
    /// left to test are tested (a slice of them each call; `waiting`, all):
    /// the rows are appended to the table — inserted, or the table reloaded
    /// for many rows, keeping the selection and the offset — and later
    /// updates narrow from them. Call it when the caller is idle: a run
    /// loop's turn, a terminal waiting for a key, a timer.
    ///
    /// - Parameter waiting: whether to wait for the thread (a few
    ///   milliseconds at a million rows), or test every row left.
    /// - Returns: whether every result is shown (``isFindingResults`` is false).
    /// - Throws: a `TableViewError` the results table raised (the search's
    ///   results are complete); a `FetchError` the predicate raised on a row
    ///   tested now, as ``update(text:)`` would have: the results table keeps
    ///   the rows it shows, and the search is not remembered.
    /// - Complexity: O(1) while the thread runs; about 4 ms of scope or
    ///   predicate tests (65,536 at most); O(*m*) for *m* rows found, then
    ///   the window.
    @discardableResult
    public func showFoundResults(waiting: Bool = false) throws -> Bool {
        guard isActive, rememberedGeneration == base.controller.fetchGeneration else {
            forgetRemembered()
            return true
        }
        let shown = results.rows.count
        guard isFindingResults else { return true }
        takeFinishedScans(waiting: waiting)
        if let current = remembered.last, current.candidates == nil, let plan = current.plan, plan.keys == indexedKeys,
           base.controller.searchIndex(plan.keys) != nil {
            // Typed before the index was made, the predicate tests every
            // row; now that it is made, the index finds the rest (a search
            // of a million rows in a moment, not a thousand slices of tests).
            // Both find the rows in the table's order: a selected row keeps
            // its path (its rest waited for when the index's first rows end
            // before it).
            let selected = resultsTable.indexPathsForSelectedRows
            remembered.removeLast()
            try search(current.text, scope: current.scope)
            func isShown(_ path: TablePath) -> Bool {
                path.section < resultsTable.numberOfSections && path.row < resultsTable.numberOfRows(inSection: path.section)
            }
            if !selected.allSatisfy(isShown) { _ = try showFoundResults(waiting: true) }
            for path in selected where isShown(path) { try resultsTable.selectRow(at: path) }
            return !isFindingResults
        }
        if let k = remembered.indices.last, remembered[k].testedUpTo != nil {
            // The index the candidates were found in (a change since started the search again).
            let index = indexedKeys.flatMap { base.controller.searchIndex($0) }
            do {
                try remembered[k].test(waiting ? nil : slice, index: index)
            } catch {
                remembered.removeLast()   // not remembered: the same text searches again
                throw error
            }
        }
        guard !isFindingResults, let current = remembered.last else { return false }
        results.rows = current.rows
        results.recomputeRuns()
        let added = current.rows.count - shown
        if added > 0 && added <= 1024 && !results.isSectioned {
            let update = BatchUpdate(insertedRows: (shown..<current.rows.count).map { TablePath(row: $0, section: 0) })
            try resultsTable.performBatchUpdates(update, animations: base.rowAnimations)
        } else if added > 0 {
            // Many rows (or sections): a reload, the selected rows selected again (their paths are the same).
            let selected = resultsTable.indexPathsForSelectedRows
            try resultsTable.reloadData()
            for path in selected { try resultsTable.selectRow(at: path) }
        }
        return true
    }

    /// Waits — without blocking the caller's thread — until every result of
    /// the current search is found, and shows them
    /// (``showFoundResults(waiting:)``); returns at once when they are.
    ///
    /// ```swift
    /// try search.update(text: field.text)      // the first rows, now
    /// Task { @MainActor in try await search.showAllResults() }
    /// ```
    ///
    /// - Throws: `CancellationError` when the task is cancelled; what
    ///   ``showFoundResults(waiting:)`` throws.
    public func showAllResults(isolation: isolated (any Actor)? = #isolation) async throws {
        while try !showFoundResults() {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }

    /// Rows of the results table two screens hold: what a search in a big
    /// table finds before the rest goes to a thread of its own.
    var firstScanRows: Int {
        let row = resultsTable.rowHeight > 0 ? resultsTable.rowHeight : resultsTable.estimatedRowHeight > 0 ? resultsTable.estimatedRowHeight : 44
        let rows = (2 * resultsTable.viewportHeight / row).rounded(.up)
        return rows.isFinite ? Int(Swift.min(4096, Swift.max(64, rows))) : 4096
    }

    /// The number of main rows from which a search through the index finds
    /// all but the first rows later (internal: tests lower it).
    var scanInBackgroundFrom = 1 << 15

    /// The number of main rows from which the rows a search tests (by a
    /// scope or the predicate) are tested in slices (internal: tests lower
    /// it, and ``scanInBackgroundFrom`` lowers it too).
    var testInPartsFrom = 1 << 12

    /// A slice of tests by a scope or the predicate — the first one in
    /// ``update(text:)``, each next one in ``showFoundResults(waiting:)``:
    /// at most so many rows and so long (internal: tests make it rows only).
    var slice = _TestSlice(rows: 1 << 16, nanoseconds: 4_000_000)

    /// The first slice of a search's tests: in a big table until two screens
    /// of results are found (or the slice is spent), the rest later; every
    /// row in a smaller one.
    private func testFirstSlice(of entry: inout _RememberedSearch<R>, index: _FoldedRows?, leavingOutFailures: Bool) throws(FetchError) {
        let inParts = base.controller.numberOfRows >= Swift.min(scanInBackgroundFrom, testInPartsFrom)
        try entry.test(inParts ? slice : nil, rowLimit: inParts ? firstScanRows : .max, index: index, leavingOutFailures: leavingOutFailures)
    }

    /// Adds what the finished scans found to their searches (all positions
    /// as they were when the scans started: every change waits for them).
    private func takeFinishedScans(waiting: Bool) {
        for k in remembered.indices.reversed() {
            guard let scan = remembered[k].scan else { continue }
            guard let done = waiting ? .some(scan.waitForFound()) : scan.foundIfDone() else { continue }
            guard let found = done else {
                remembered.remove(at: k)   // stopped: the search is let go
                continue
            }
            // A scan runs only for a search whose rows are its candidates,
            // and returns them whole (the first ones, then the rest).
            remembered[k].candidates = found
            remembered[k].rows = found
            remembered[k].scan = nil
        }
    }

    /// Keeps a search as the latest, within the limits (the oldest go first).
    /// A new scan in the background stops the others (their searches, half
    /// found, are let go).
    private func remember(_ entry: _RememberedSearch<R>) {
        if entry.scan != nil {
            for earlier in remembered { earlier.scan?.cancel() }
            remembered.removeAll { $0.scan != nil }
        }
        remembered.append(entry)
        let limit = Self.rememberedRowsBase + Self.rememberedRowsPerRow * base.controller.numberOfRows
        var held = remembered.reduce(0) { $0 + $1.size }
        while remembered.count > 1 && (remembered.count > Self.rememberedLimit || held > limit) {
            let dropped = remembered.removeFirst()
            dropped.scan?.cancel()
            held -= dropped.size
        }
    }

    /// Lets every remembered search go (their scans stopped).
    private func forgetRemembered() {
        for entry in remembered { entry.scan?.cancel() }
        remembered = []
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
    /// selected scope stays selected; the remembered results are let go.
    public func cancel() {
        text = nil
        forgetRemembered()
        lastUpdateMethod = nil
        results.isActive = false
        results.rows = []
        results.recomputeRuns()
        showSearchField()
        try? resultsTable.reloadData()
    }

    // MARK: Following the main controller

    /// A change of the main controller: the rows of every remembered search
    /// follow it (positions removed and shifted, the changed rows tested),
    /// and the results table too.
    ///
    /// - Complexity: O(*k* + the rows remembered) for *k* changed rows.
    func follow(removed: [Int32], inserted: [(position: Int32, record: R)]) {
        guard isActive, !remembered.isEmpty, rememberedGeneration == base.controller.fetchGeneration else {
            forgetRemembered()
            return
        }
        // A search testing its candidates a slice at a time found them at
        // the positions before the change: it starts again after it (others
        // testing theirs are let go). Scans still running found positions as
        // they were before the change too: theirs first.
        let restart = remembered.last.map { $0.testedUpTo != nil && $0.text == text } ?? false
        remembered.removeAll { $0.testedUpTo != nil }
        let wasScanning = isFindingResults
        takeFinishedScans(waiting: true)
        let removed = Array(Set(removed)).sorted()
        let inserted = inserted.sorted { $0.position < $1.position }
        let positions = inserted.map(\.position)
        let index = indexedKeys.flatMap { base.controller.searchIndex($0) }
        var changes: (deleted: [Int], inserted: [Int]) = ([], [])
        let records = Dictionary(inserted.map { ($0.position, $0.record) }, uniquingKeysWith: { a, _ in a })
        for k in remembered.indices {
            let entry = remembered[k]
            let isCurrent = k == remembered.count - 1
            let rows = Self.follow(entry.rows, removing: removed, inserting: positions) { position in
                guard let record = records[position] else { return false }
                return (try? entry.matches(record)) == true
            }
            remembered[k].rows = rows.list
            if isCurrent { changes = (rows.deleted, rows.inserted) }
            if let candidates = entry.candidates, let plan = entry.plan {
                if let index {
                    remembered[k].candidates = Self.follow(candidates, removing: removed, inserting: positions) { position in
                        !index.candidates(plan, among: [position]).isEmpty
                    }.list
                } else {
                    remembered[k].candidates = nil
                }
            }
        }
        if restart, let text {
            // A row whose predicate fails is left out, as a changed row is above.
            do { try search(text, scope: selectedSearchScopeIndex, leavingOutFailures: true) } catch { cancel() }
            return
        }
        guard let current = remembered.last, current.text == text else { return }
        results.rows = current.rows
        results.recomputeRuns()
        guard wasScanning || !changes.deleted.isEmpty || !changes.inserted.isEmpty else { return }
        if results.isSectioned || wasScanning {
            try? resultsTable.reloadData()
        } else {
            let update = BatchUpdate(
                deletedRows: changes.deleted.map { TablePath(row: $0, section: 0) },
                insertedRows: changes.inserted.map { TablePath(row: $0, section: 0) })
            do {
                try resultsTable.performBatchUpdates(update, animations: base.rowAnimations)
            } catch {
                try? resultsTable.reloadData()
            }
        }
    }

    /// A sorted list of positions after a change: `removed` (old positions)
    /// out, the rest shifted, and of `inserted` (new positions) those `keep`
    /// says, in. Also the old indexes of the rows out and the new indexes of
    /// the rows in.
    ///
    /// - Complexity: O(*m* + *k*).
    static func follow(
        _ list: [Int32], removing removed: [Int32], inserting inserted: [Int32], keep: (Int32) -> Bool
    ) -> (list: [Int32], deleted: [Int], inserted: [Int]) {
        var deleted: [Int] = []
        var middle: [Int32] = []
        middle.reserveCapacity(list.count)
        if removed.isEmpty {
            middle = list
        } else {
            var j = 0
            for (i, p) in list.enumerated() {
                while j < removed.count && removed[j] < p { j += 1 }
                if j < removed.count && removed[j] == p {
                    deleted.append(i)
                    continue
                }
                middle.append(p - Int32(truncatingIfNeeded: j))
            }
        }
        guard !inserted.isEmpty else { return (middle, deleted, []) }
        var result: [Int32] = []
        result.reserveCapacity(middle.count + inserted.count)
        var added: [Int] = []
        var k = 0
        for q in middle {
            while k < inserted.count && inserted[k] <= q + Int32(truncatingIfNeeded: k) {
                if keep(inserted[k]) {
                    added.append(result.count)
                    result.append(inserted[k])
                }
                k += 1
            }
            result.append(q + Int32(truncatingIfNeeded: k))
        }
        while k < inserted.count {
            if keep(inserted[k]) {
                added.append(result.count)
                result.append(inserted[k])
            }
            k += 1
        }
        return (result, deleted, added)
    }
}

/// A search remembered: its text and scope, the rows it found (and, through
/// the index, the rows whose bytes hold its text: what a longer text scans).
struct _RememberedSearch<R: Record & Codable> {
    var text: String
    var scope: Int
    var plan: _IndexedSearch?
    var format: FormatPredicate?
    var candidates: [Int32]?
    var rows: [Int32]
    /// Its predicate (scope and text), compiled.
    var matches: (R) throws(FetchError) -> Bool
    /// The rest of its scan, while it runs on a thread of its own: the
    /// candidates and rows hold the positions before the scan's source only.
    var scan: _BackgroundScan?
    /// While the rows it tests are tested on the caller's thread a slice at
    /// a time: where the testing stopped (the rows hold those before).
    var testedUpTo: Int?
    /// What it tests: its candidates (more as the scan goes on), an earlier
    /// search's rows, or every position below a count.
    enum Tested { case candidates, list([Int32]), every(Int) }
    var tested = Tested.every(0)
    /// What its index scan has left (at first, all it scans), scanned a
    /// step at a time as the tests reach the end of the candidates found so far.
    var scanLeft: _ScanSource?
    /// Whether a position is a row (its scope and text), given the index
    /// the candidates were found in (when it is still there).
    var keep: ((Int32, _FoldedRows?) throws(FetchError) -> Bool)?

    /// Whether its rows are all found.
    var isComplete: Bool { scan == nil && testedUpTo == nil }

    /// The rows it holds.
    var size: Int { rows.count + (candidates?.count ?? 0) }

    /// Starts testing with `keep`.
    mutating func startTesting(_ tested: Tested, keep: @escaping (Int32, _FoldedRows?) throws(FetchError) -> Bool) {
        self.tested = tested
        self.keep = keep
        testedUpTo = 0
    }

    /// The number of positions to test (so far).
    var testCount: Int {
        switch tested {
        case .candidates: candidates?.count ?? 0
        case .list(let list): list.count
        case .every(let count): count
        }
    }

    /// Tests the positions left — within `slice` (every one when nil),
    /// fewer once `rowLimit` rows are found — and appends those that are rows.
    ///
    /// - Throws: what the predicate throws on a position (unless
    ///   `leavingOutFailures`: then it is left out); the rows hold those
    ///   before it, and the testing stops at it.
    mutating func test(_ slice: _TestSlice?, rowLimit: Int = .max, index: _FoldedRows?, leavingOutFailures: Bool = false) throws(FetchError) {
        guard let from = testedUpTo, let keep else { return }
        var k = from, tests = 0
        defer {
            testedUpTo = k < testCount || scanLeft != nil ? k : nil
            if testedUpTo == nil { (self.keep, tested) = (nil, .every(0)) }
        }
        let budget = slice?.rows ?? .max
        let deadline = slice?.nanoseconds.map { _Monotonic.nanoseconds() &+ $0 }
        func late() -> Bool { deadline.map { _Monotonic.nanoseconds() > $0 } ?? false }
        var count = testCount
        while tests < budget && rows.count < rowLimit {
            if k == count {
                // The candidates found so far are tested: the scan goes on.
                guard let left = scanLeft else { break }
                if let index, let plan {
                    let more = index.scan(plan, left, budget: slice?.scanPositions ?? .max)
                    candidates?.append(contentsOf: more.found)
                    scanLeft = more.rest
                } else {
                    // The index gone: every position left is a candidate (the predicate decides).
                    candidates?.append(contentsOf: left.positions)
                    scanLeft = nil
                }
                count = testCount
                if late() { break }
                continue
            }
            // The clock every 64 tests.
            if tests & 63 == 63 && late() { break }
            let position: Int32
            switch tested {
            case .candidates: position = candidates?[k] ?? 0
            case .list(let list): position = list[k]
            case .every: position = Int32(truncatingIfNeeded: k)
            }
            do {
                if try keep(position, index) { rows.append(position) }
            } catch {
                if !leavingOutFailures { throw error }
            }
            k += 1
            tests += 1
        }
    }
}

/// How much of a search's testing one call does: at most so many rows, and
/// (when `nanoseconds` is not nil) about so long.
struct _TestSlice {
    var rows: Int
    var nanoseconds: UInt64?
    /// The positions of the index one step of a scan goes through.
    var scanPositions = 1 << 16
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
