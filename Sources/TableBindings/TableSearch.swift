import FetchedResults
import Foundation
import HeadlessTableView
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
///
/// **Errors.** What a call cannot do, it throws, and the search stays as it
/// was. What goes wrong while the search follows a change of the main
/// controller — a changed row whose predicate throws (the row is left out,
/// and that text is tested again when it is searched again), or a change
/// the results table refuses or cannot make the cells of (the table is then
/// reloaded) — goes to ``onError`` and is kept in ``lastError``, as the
/// binding reports its own (`FetchedResultsTableBinding/onError`).
public final class TableSearch<R: Record & Codable> {
    // The parts, one job each: the searches remembered (`remembered`), how
    // much of a search is done now and how much later (`slices`), and the
    // results table (`shown`). This type decides how each update is
    // answered, and reports what fails.

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

    /// What went wrong following a change of the main controller (see
    /// **Errors** in ``TableSearch``): the error, the reload's if it failed
    /// too, and when.
    public typealias Failure = FetchedResultsTableBinding<R>.Failure

    /// The table of results, while a search is on.
    public var resultsTable: TableView { shown.table }
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

    /// Called with every failure while the search follows a change of the
    /// main controller: a changed row whose predicate threw (left out of
    /// the results), a change the results table refused (it reloaded) or
    /// whose cells could not be made, a search started again after the
    /// change that failed (the search is then cancelled).
    public var onError: ((Failure) -> Void)?
    /// The failure of the last change followed (or of the last
    /// ``cancel()``), or nil when it applied.
    public private(set) var lastError: Failure?

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
    /// The results table, its data source and its delegate.
    let shown: _SearchResultsTable<R>
    let follower: _SearchFollower<R>
    /// Earlier searches, the latest last, by text and scope.
    var remembered = _RememberedSearches<R>()
    /// When a search finds its first rows now and the rest later
    /// (internal: tests lower the thresholds).
    var slices = _SearchSlices()

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
    public convenience init(
        _ binding: FetchedResultsTableBinding<R>, results: ResultsLayout = .flat, scopes: [Scope] = [],
        predicate: @escaping (String) throws -> RecordPredicate<R>, narrows: ((_ new: String, _ old: String) -> Bool)? = nil
    ) {
        self.init(binding, results: results, scopes: scopes, makePredicate: predicate, makeFormat: nil, textNarrows: narrows, indexedKeys: nil)
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
    convenience init(
        _ binding: FetchedResultsTableBinding<R>, results: ResultsLayout, scopes: [Scope], probe: FormatPredicate,
        makeFormat: @escaping (String) throws -> FormatPredicate
    ) {
        var indexedKeys: [String]?
        if let plan = _IndexedSearch(probe), binding.controller.startIndexing(plan.keys) { indexedKeys = plan.keys }
        self.init(
            binding, results: results, scopes: scopes, makePredicate: { text in RecordPredicate(try makeFormat(text)) },
            makeFormat: makeFormat, textNarrows: nil, indexedKeys: indexedKeys)
    }

    /// Every search: the results table made, the main controller followed.
    private init(
        _ binding: FetchedResultsTableBinding<R>, results: ResultsLayout, scopes: [Scope],
        makePredicate: @escaping (String) throws -> RecordPredicate<R>, makeFormat: ((String) throws -> FormatPredicate)?,
        textNarrows: ((String, String) -> Bool)?, indexedKeys: [String]?
    ) {
        base = binding
        self.makePredicate = makePredicate
        self.makeFormat = makeFormat
        self.textNarrows = textNarrows
        self.indexedKeys = indexedKeys
        resultsLayout = results
        self.scopes = scopes
        shown = _SearchResultsTable(for: binding, layout: results)
        follower = _SearchFollower<R>()
        follower.knownStarts = binding.controller.sectionStartPositions
        binding.controller.addObserver(follower)
        follower.search = self
    }

    deinit {
        if let indexedKeys { base.controller.stopIndexing(indexedKeys) }
        base.controller.removeObserver(follower)
    }

    /// Whether a search is on.
    public var isActive: Bool { text != nil }

    /// Searches (again): the results table shows the main table's rows that
    /// match `text` and the selected scope, found the fastest way there is
    /// (see ``TableSearch``).
    ///
    /// When it returns, the results table shows every result, or — in a big
    /// table — at least the first two screens of them (never fewer while
    /// more match); the rest is found later (see ``isFindingResults``).
    ///
    /// - Throws: what making the predicate throws, or a `FetchError` (a key
    ///   the records do not have, a predicate failing on a row); the search
    ///   stays as it was.
    /// - Complexity: O(1) for a remembered text; O(*m* + the bytes of *m*
    ///   rows) with the index, for *m* rows an earlier text found (every row
    ///   at first) — in a table of 32,768 rows or more, only until two
    ///   screens of results are found, the rest on a thread of its own; with
    ///   a scope or rows the bytes cannot decide, the scan and scope or
    ///   predicate tests. O(*m*) predicate evaluations otherwise. The tests
    ///   (and that scan), in a table of 4,096 rows or more, only until two
    ///   screens of results are found, the rest later. So a text matching
    ///   many rows costs about the window; a text matching few costs the
    ///   rows up to its first screens: a mask test a row with the index, a
    ///   predicate test a row without it (before the index is made, those
    ///   tests stop as soon as it is, and the index finds the first rows).
    ///   Then the window.
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
        try shown.results.object(at: indexPath)
    }

    /// The index path in the main table of a row of the results table; nil
    /// for a path outside the results.
    ///
    /// - Complexity: O(log *s*) for *s* sections.
    public func mainIndexPath(forResultsIndexPath indexPath: TablePath) -> TablePath? {
        shown.results.mainIndexPath(for: indexPath)
    }

    /// The objects of the results the results table shows, in order (the
    /// first ones while ``isFindingResults``); nil when no search is on.
    ///
    /// - Complexity: O(*m*) for *m* results (and reads every record, with a batch size).
    public var fetchedObjects: [R]? {
        guard isActive else { return nil }
        return shown.rows.compactMap { base.controller.object(atPosition: Int($0)) }
    }

    // MARK: Searching

    /// A search's predicates: the text's as a tree (a format search), the
    /// text's and the scope's together, and the scope's alone, compiled.
    private struct Matching {
        var format: FormatPredicate?
        var matches: (R) throws(FetchError) -> Bool
        var scopeMatches: ((R) throws(FetchError) -> Bool)?
    }

    /// Searches `text` in `scope`, and shows what it found: remembered, or
    /// found through the index or by the predicate; then remembered, and the
    /// results table, the search field and the state set.
    ///
    /// - Parameter leavingOutFailures: whether a row whose predicate throws
    ///   is left out (the first error kept in the search's `leftOut`)
    ///   instead of failing the search.
    func search(_ text: String, scope: Int, leavingOutFailures: Bool = false) throws {
        let controller = base.controller
        follower.knownStarts = controller.sectionStartPositions
        remembered.start(generation: controller.fetchGeneration)
        remembered.takeFinishedScans(waiting: false)
        let matching = try matching(text, scope: scope)

        let entry: _RememberedSearch<R>
        let method: UpdateMethod
        if let known = remembered.take(text: text, scope: scope) {
            (entry, method) = (known, .remembered)
        } else {
            (entry, method) = try find(text, scope: scope, matching, leavingOutFailures: leavingOutFailures)
        }
        remembered.remember(entry, mainRows: controller.numberOfRows)
        try shown.show(entry.rows)
        lastUpdateMethod = method
        self.text = text
        selectedSearchScopeIndex = scope
        showSearchField()
    }

    /// The predicates of `text` in `scope`.
    ///
    /// - Throws: what making the text's predicate throws; a `FetchError`
    ///   compiling them.
    private func matching(_ text: String, scope: Int) throws -> Matching {
        let format = try makeFormat?(text)
        let textPredicate = try format.map { RecordPredicate($0) } ?? makePredicate(text)
        let scopePredicate = scopes.indices.contains(scope) ? scopes[scope].predicate : nil
        let predicate = scopePredicate.map { $0.and(textPredicate) } ?? textPredicate
        return Matching(format: format, matches: try predicate.makeEvaluator(), scopeMatches: try scopePredicate?.makeEvaluator())
    }

    /// The main controller's object at a position, for a search's tests (a
    /// function of the controller, not of the search, which remembers them).
    private static func object(atPosition position: Int32, in controller: FetchedResultsController<R>) throws(FetchError) -> R {
        guard let record = controller.object(atPosition: Int(position)) else {
            throw .noObject(at: controller.indexPath(ofPosition: Int(position)), sectionCount: controller.numberOfSections, rowCount: nil)
        }
        return record
    }

    /// Finds a search's rows: through the folded index when it answers the
    /// search and is made, else by the predicate — and through the index
    /// after all when it is made while the predicate's tests are still
    /// short of the first rows.
    private func find(
        _ text: String, scope: Int, _ matching: Matching, leavingOutFailures: Bool
    ) throws(FetchError) -> (_RememberedSearch<R>, UpdateMethod) {
        let controller = base.controller
        let anyPlan = matching.format.flatMap { _IndexedSearch($0) }
        let plan = anyPlan?.keys == indexedKeys ? anyPlan : nil   // the index this search keeps answers it
        if let plan, let index = controller.searchIndex(plan.keys) {
            return try findThroughIndex(text, scope: scope, plan: plan, index: index, matching, leavingOutFailures: leavingOutFailures)
        }
        let found = try findByPredicate(
            text, scope: scope, plan: anyPlan, matching, leavingOutFailures: leavingOutFailures,
            untilIndexIsMade: plan.map { plan in { controller.searchIndex(plan.keys) != nil } })
        if found.stoppedForIndex, let plan, let index = controller.searchIndex(plan.keys) {
            return try findThroughIndex(text, scope: scope, plan: plan, index: index, matching, leavingOutFailures: leavingOutFailures)
        }
        return (found.entry, found.method)
    }

    /// Finds a search's rows through the folded index: from the candidates
    /// of the longest earlier text inside this one, or every row. In a big
    /// table, the first screens' worth now and the rest later.
    private func findThroughIndex(
        _ text: String, scope: Int, plan: _IndexedSearch, index: _FoldedRows, _ matching: Matching, leavingOutFailures: Bool
    ) throws(FetchError) -> (_RememberedSearch<R>, UpdateMethod) {
        let controller = base.controller
        let from = remembered.indexSource(for: plan)
        var source = _ScanSource(positions: 0..<Int32(truncatingIfNeeded: controller.numberOfRows))
        if let from, let list = from.candidates {
            // An earlier search still scanning: its candidates so far, then what it has left.
            source = from.scan.map { $0.source.after(list) } ?? from.scanLeft.map { $0.after(list) } ?? _ScanSource(list: list)
        }
        var entry: _RememberedSearch<R>
        if index.isExact && matching.scopeMatches == nil {
            // The bytes decide every row: the rows are the candidates (the
            // same list, shared); the rest on a thread of its own.
            let inParts = slices.scansInBackground(mainRows: controller.numberOfRows)
            let found = index.scan(plan, source, limit: inParts ? firstScanRows : .max)
            entry = _RememberedSearch(text: text, scope: scope, plan: plan, format: matching.format, candidates: found.found, rows: found.found, matches: matching.matches)
            entry.scan = found.rest.map { _BackgroundScan(index, plan, $0, after: found.found) }
        } else {
            // The scope, or the predicate for a row the bytes cannot
            // decide, tests each candidate: the scan and the tests a slice
            // at a time on this thread (`showFoundResults`).
            entry = _RememberedSearch(text: text, scope: scope, plan: plan, format: matching.format, candidates: [], rows: [], matches: matching.matches)
            entry.scanLeft = source
            let (matches, scopeMatches) = (matching.matches, matching.scopeMatches)
            entry.startTesting(.candidates) { position, index throws(FetchError) in
                // The predicate decides a row the bytes cannot (or, the index gone, every row).
                guard let index, index.kind(at: Int(position)) == _FoldedRows.exact else {
                    return try matches(try Self.object(atPosition: position, in: controller))
                }
                guard let scopeMatches else { return true }
                return try scopeMatches(try Self.object(atPosition: position, in: controller))
            }
            try testFirstRows(of: &entry, index: index, leavingOutFailures: leavingOutFailures)
        }
        return (entry, .index(narrowedFrom: from?.text))
    }

    /// Finds a search's rows by its predicate: over the results of an
    /// earlier text it provably narrows (and what that search had yet to
    /// test), or every row.
    ///
    /// - Parameters:
    ///   - plan: the text's indexed form, if it has one (kept with the
    ///     search: once the index is made, it finds the rest).
    ///   - indexIsMade: for a search the index answers, whether its index is
    ///     made now: the tests stop for it (`stoppedForIndex`) when it is,
    ///     still short of the first rows.
    private func findByPredicate(
        _ text: String, scope: Int, plan: _IndexedSearch?, _ matching: Matching, leavingOutFailures: Bool, untilIndexIsMade indexIsMade: (() -> Bool)?
    ) throws(FetchError) -> (entry: _RememberedSearch<R>, method: UpdateMethod, stoppedForIndex: Bool) {
        let controller = base.controller
        let from = remembered.predicateSource(scope: scope) { earlier in
            self.textNarrows(text, matching.format, from: earlier.text, earlier.format)
        }
        var entry = _RememberedSearch(text: text, scope: scope, plan: plan, format: matching.format, candidates: nil, rows: [], matches: matching.matches)
        let matches = matching.matches
        entry.startTesting(from?.tested ?? .positions([], then: 0..<controller.numberOfRows)) { position, _ throws(FetchError) in
            try matches(try Self.object(atPosition: position, in: controller))
        }
        let stopped = try testFirstRows(of: &entry, index: nil, leavingOutFailures: leavingOutFailures, untilIndexIsMade: indexIsMade)
        return (entry, .predicate(narrowedFrom: from?.text), stopped)
    }

    /// The first rows of a search's tests: in a big table, slices of tests
    /// until two screens of results are found or every row is tested — the
    /// results table is never empty, nor short of two screens, while more
    /// rows match — the rest later; every row in a smaller one.
    ///
    /// - Parameter indexIsMade: whether the index that answers the search
    ///   is made now, asked between slices: when it is, the tests stop.
    /// - Returns: whether the tests stopped for the index.
    @discardableResult
    private func testFirstRows(
        of entry: inout _RememberedSearch<R>, index: _FoldedRows?, leavingOutFailures: Bool, untilIndexIsMade indexIsMade: (() -> Bool)? = nil
    ) throws(FetchError) -> Bool {
        guard slices.testsInSlices(mainRows: base.controller.numberOfRows) else {
            try entry.test(nil, index: index, leavingOutFailures: leavingOutFailures)
            return false
        }
        let limit = firstScanRows
        while true {
            try entry.test(slices.slice, rowLimit: limit, index: index, leavingOutFailures: leavingOutFailures)
            if entry.isComplete || entry.rows.count >= limit { return false }
            if indexIsMade?() == true { return true }
        }
    }

    /// Rows of the results table two screens hold: what a search in a big
    /// table finds before the rest goes to a thread of its own.
    var firstScanRows: Int { _SearchSlices.firstRows(shownBy: resultsTable) }

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

    // MARK: Results found later

    /// Whether results of the current search are still being found: the
    /// results table shows the first ones, and ``showFoundResults(waiting:)``
    /// (or ``showAllResults(isolation:)``) adds the rest.
    ///
    /// A search of a big table finds the first rows — two screens of the
    /// results table — before ``update(text:)`` returns, and the rest later:
    /// a keystroke costs about the window, not the table. Where the index's
    /// bytes decide every row (a table of 32,768 rows or more), the rest is
    /// found on a thread of its own. Where rows are tested — by a scope, or
    /// by the predicate (rows the bytes cannot decide, a format the index
    /// does not answer, a closure search, a search before the index is
    /// made) — the rest is tested on the caller's thread (in a table of
    /// 4,096 rows or more), about 4 ms of tests in each
    /// ``showFoundResults(waiting:)``. A
    /// search typed before the index is made goes on through the index once
    /// it is (the rows found so far keep their paths).
    public var isFindingResults: Bool {
        guard isActive, let current = remembered.latest, current.text == text else { return false }
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
        guard isActive, remembered.isCurrent(generation: base.controller.fetchGeneration) else {
            remembered.forgetAll()
            return true
        }
        guard isFindingResults else { return true }
        remembered.takeFinishedScans(waiting: waiting)
        if let current = remembered.latest, current.candidates == nil, current.leftOut == nil, let plan = current.plan, plan.keys == indexedKeys,
           base.controller.searchIndex(plan.keys) != nil {
            // Typed before the index was made, the predicate tests every
            // row; now that it is made, the index finds the rest (a search
            // of a million rows in a moment, not a thousand slices of tests).
            // Both find the rows in the table's order: a selected row keeps
            // its path (its rest waited for when the index's first rows end
            // before it).
            let selected = resultsTable.indexPathsForSelectedRows
            _ = remembered.take(text: current.text, scope: current.scope)
            try search(current.text, scope: current.scope)
            if !selected.allSatisfy(resultsTable.isValid) { _ = try showFoundResults(waiting: true) }
            for path in selected where resultsTable.isValid(path) { try resultsTable.selectRow(at: path) }
            return !isFindingResults
        }
        // The index the candidates were found in (a change since started the search again).
        try remembered.testLatest(waiting ? nil : slices.slice, index: indexedKeys.flatMap { base.controller.searchIndex($0) })
        guard !isFindingResults, let current = remembered.latest else { return false }
        try shown.append(upTo: current.rows, animations: base.rowAnimations)
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

    // MARK: Ending, and what fails

    /// Ends the search: the results table empties; the main table, kept up to
    /// date all along, is the table again (without the search field). The
    /// selected scope stays selected; the remembered results are let go. A
    /// failure emptying the results table goes to ``onError``.
    public func cancel() {
        record(end().map { [Failure(error: $0, reloadError: nil, date: Date())] } ?? [])
    }

    /// Ends the search (see ``cancel()``): what emptying the results table
    /// threw, if it did.
    func end() -> (any Error)? {
        text = nil
        remembered.forgetAll()
        lastUpdateMethod = nil
        var failure: (any Error)?
        do { try shown.clear() } catch { failure = error }
        showSearchField()
        return failure
    }

    /// Records the failures of a change or a cancel in ``lastError`` (the
    /// last; nil for none) and reports each to ``onError``.
    func record(_ failures: [Failure]) {
        lastError = failures.last
        for failure in failures { onError?(failure) }
    }
}
