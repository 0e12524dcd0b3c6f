import Foundation
import HeadlessTable

/// The browser of `headless-table browse` without a terminal: an ordinary
/// embedder of the library. A `TableView` bound to a fetched results
/// controller over the store, a `TableSearch` for `/`, both drawn by
/// `TextRenderer` through a `TableRenderer`; each key becomes a table call
/// (`pressKey(_:)` for the arrows, pages and ends, `commit(.delete, forRowAt:)`
/// for `d`, the search's `update(text:)` as the text is typed). The model
/// keeps no rows, sections, selection or scroll places of its own: what it
/// adds is the title and status lines, and the search field's cursor.
///
/// The terminal loop only reads keys, hands them to ``handle(_:)`` and
/// writes ``screen()``; tests and the benchmark drive it the same way, headless.
public final class BrowserModel {
    /// The file's (or store's) name, for the title line.
    let name: String
    /// The fetch, and the main table bound to it.
    public let controller: FetchedResultsController<DynamicObject>
    let table: TableView
    let binding: FetchedResultsTableBinding<DynamicObject>
    /// The search: its results table shows while it is on; whether it leaves out the rows its predicate cannot take.
    private(set) var search: TableSearch<DynamicObject>, leavesOutUnsearchableRows = false
    /// What each table last showed (the frame and its last batch).
    private let mainScreen = BrowserScreen(), resultsScreen = BrowserScreen()
    /// The row's text key; what the status line says of deletes (nil: they last).
    let textKey: String?, unsavedNote: String?

    /// Typing into the search field; its text.
    public private(set) var typing = false, searchText = ""
    /// The last change, for the status line (shown once); the ids deleted.
    public private(set) var status = "", deletedIDs: [RecordValue] = []
    public private(set) var columns = 80, lines = 24
    /// Whether the search field always shows, holding the search text and no
    /// cursor (`serve`'s page: the field is an input of its own, typed into
    /// at any time); off, it shows while typing or while a search is on.
    public var alwaysShowsSearchField = false

    /// A browser of `controller`'s objects (fetched here if they are not), each row showing its `textKey` (else title,
    /// name or text) and `detailKey`, in a table of `style`; the first row selected. `delete` deletes an object through
    /// the store (what it throws is shown); `unsavedNote` is the status line's note after a delete that will not last (nil: saved).
    public init(
        name: String, controller: FetchedResultsController<DynamicObject>, style: TableView.Style = .plain, textKey: String?, detailKey: String?,
        unsavedNote: String?, delete: @escaping (DynamicObject) throws -> Void
    ) throws {
        self.name = name
        self.controller = controller
        self.textKey = textKey
        self.unsavedNote = unsavedNote
        let sectioned = controller.sectionNameKeyPath != nil
        table = TableView(viewportHeight: Double(lines - 2), style: style)
        table.rowHeight = 1
        table.sectionHeaderHeight = sectioned ? 1 : 0
        // A grouped style sets its sections apart by a blank footer line.
        table.sectionFooterHeight = sectioned && style != .plain ? 1 : 0
        table.selectionFollowsDeletes = true
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        binding = try table.bind(to: controller) { table, path, object in
            let cell = try table.dequeueReusableCell(withIdentifier: "row", for: path)
            cell.text = RecordTable.text(of: object.fields, textKey: textKey)
            cell.detailText = detailKey.flatMap { object.fields[$0] }.map(RecordTable.display)
            return cell
        }
        binding.rowAnimations = .automatic
        search = try TableSearch(binding, results: sectioned ? .sectioned : .flat) { text in try RecordTable.matching(text, textKey: textKey) }
        binding.onDelete = { [unowned self] object in try delete(object); self.deletedIDs.append(object.id) }
        table.renderer = mainScreen
        attachResultsTable()
        try table.pressKey(.home)
    }

    /// Once the predicate failed on a row whose searched value it cannot take
    /// (a number): a search where such rows do not match (over the predicate,
    /// without the folded index) takes over, and searches the text again.
    func searchLeavingOutUnsearchableRows() {
        let textKey = textKey
        search.cancel()
        (search, leavesOutUnsearchableRows) = (TableSearch(binding, results: search.resultsLayout, predicate: { text in
            let compiled = try RecordTable.matching(text, textKey: textKey).compiled(for: DynamicObject.self)
            return RecordPredicate { (try? compiled.evaluate($0, variables: [:])) == true }
        }, narrows: { new, old in
            // The old text's predicate matches the new text: so does every text containing it.
            let probe = DynamicObject(fields: DynamicRecord(fields: [("id", .int(0)), ("text", .string(new))]))
            return (try? RecordTable.matching(old, textKey: "text").evaluate(with: probe)) == true
        }), true)
        attachResultsTable()
        setSearch(searchText)
    }

    /// The search's results table drawn on the results screen, its selection following deletes.
    private func attachResultsTable() {
        search.resultsTable.renderer = resultsScreen
        search.resultsTable.selectionFollowsDeletes = true
    }

    // MARK: Keys

    /// Sets the terminal's size (at least 1 column and 4 lines).
    public func resize(columns: Int, lines: Int) {
        self.columns = Swift.min(TextRenderer.maximumWidth, Swift.max(1, columns))
        self.lines = Swift.min(TextRenderer.maximumLines, Swift.max(4, lines))
        fitTablesToScreen()
    }

    /// Acts on a key; false to quit.
    @discardableResult
    public func handle(_ key: Key) -> Bool {
        defer { fitTablesToScreen() }
        if typing {
            switch key {
            case .character(let c): setSearch(searchText + String(c))
            case .backspace: setSearch(String(searchText.dropLast()))
            case .enter: typing = false
            case .escape: cancelSearch()
            case .quit: return false
            default: move(key)
            }
            return true
        }
        switch key {
        case .quit, .character("q"): return false
        case .character("/"):
            typing = true
            setSearch(searchText)
        case .escape: if search.isActive { cancelSearch() }
        case .character("d"): deleteSelected()
        case .character("j"): move(.down)
        case .character("k"): move(.up)
        default: move(key)
        }
        return true
    }

    /// Whether the search is still finding results: the loop calls ``idle(waiting:)`` soon.
    public var isBusy: Bool { search.isFindingResults }

    /// Between keys: shows what the search found since (`TableSearch.showFoundResults`), the first row selected if none is; true when the screen changed.
    @discardableResult
    public func idle(waiting: Bool = false) -> Bool {
        do {
            guard isBusy, try search.showFoundResults(waiting: waiting) else { return false }
            if search.resultsTable.indexPathForSelectedRow == nil { try search.resultsTable.pressKey(.home) }
        } catch where !leavesOutUnsearchableRows { searchLeavingOutUnsearchableRows() } catch { status = "search: \(error)" }
        fitTablesToScreen()
        return true
    }

    /// The table the keys act on: the search's results while a search is on.
    var shownTable: TableView { search.isActive ? search.resultsTable : table }

    /// Moves the selection as an arrow, page, Home or End key says.
    func move(_ key: Key) {
        let keys: [Key: TableView.SelectionKey] = [.up: .upArrow, .down: .downArrow, .pageUp: .pageUp, .pageDown: .pageDown, .home: .home, .end: .end]
        guard let selectionKey = keys[key] else { return }
        do { try shownTable.pressKey(selectionKey) } catch { status = "\(error)" }
    }

    /// The search field and the window's height on both tables (the screen
    /// less the title, the status line and the search field), and each
    /// table's selection in view. What fails (a cell the table cannot make
    /// for the rows now in view) shows on the status line.
    func fitTablesToScreen() {
        let field = alwaysShowsSearchField ? searchText : typing || search.isActive ? searchText + (typing ? "▏" : "") : nil
        let height = Double(Swift.max(1, lines - 2 - (field == nil ? 0 : 1)))
        for table in [table, search.resultsTable] {
            if table.searchFieldText != field { table.searchFieldText = field }
            do {
                if table.viewportHeight != height { try table.setViewportHeight(height) }
                if let selected = table.indexPathForSelectedRow { try table.scrollToRow(at: selected, at: .none) }
            } catch {
                status = status.isEmpty ? "\(error)" : status + " · \(error)"
            }
        }
    }

    // MARK: Search

    func setSearch(_ text: String) {
        searchText = text
        guard !text.isEmpty else { return search.isActive ? search.cancel() : () }
        do {
            do { try search.update(text: text) } catch where !leavesOutUnsearchableRows { return searchLeavingOutUnsearchableRows() }
            try search.resultsTable.setContentOffset(0)
            try search.resultsTable.selectRow(at: nil)
            try search.resultsTable.pressKey(.home)
        } catch {
            status = "search: \(error)"
        }
    }

    func cancelSearch() {
        (typing, searchText) = (false, "")
        search.cancel()
    }

    // MARK: Delete

    /// Deletes the selected row's object through the binding (its
    /// `onDelete`); the row below takes the selection.
    func deleteSelected() {
        let table = shownTable
        guard let path = table.indexPathForSelectedRow, let object = try? object(at: path) else { return }
        let screen = search.isActive ? resultsScreen : mainScreen
        screen.changes = nil
        do { try table.commit(.delete, forRowAt: path) } catch { return status = "could not delete: \(error)" }
        let log = (screen.changes ?? []).map { $0.logLine() }.joined(separator: ", ")
        status = "deleted \(RecordTable.text(of: object.fields, textKey: textKey)): \(log)" + (unsavedNote.map { " · " + $0 } ?? "")
    }

    // MARK: What shows

    /// The object of a row of the table on screen.
    func object(at path: TablePath) throws -> DynamicObject {
        try search.isActive ? search.object(at: path) : controller.object(at: path)
    }

    /// The whole screen, a line each (without escape codes): a title line,
    /// the search field and the table's window, and a status line; each
    /// `columns` wide. The status line shows the last change once.
    public func screen() -> [String] {
        let table = shownTable
        var body: [String] = []
        let frame = (search.isActive ? resultsScreen : mainScreen).frame ?? table.currentFrame
        if let renderer = try? TextRenderer(width: columns, pointsPerLine: 1) {
            body = renderer.text(for: frame).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
        let help = typing
            ? "type to filter · Enter: browse the results · Esc: cancel"
            : "↑↓ PgUp PgDn Home End · / search · d delete" + (unsavedNote == nil ? "" : " (not saved)") + " · q quit"
        let bottom = status.isEmpty ? help : takeStatus()
        return [TerminalText.fitting(" " + title, into: columns)] + body.prefix(lines - 2) + [TerminalText.fitting(" " + bottom, into: columns)]
    }

    /// The title line's text: the name, the objects, and while a search is
    /// on how many it found (`…` while it is still finding them).
    public var title: String {
        let found = search.isActive ? rowCount(shownTable) : nil
        let count = rowCount(table)
        return "\(name) — \(count) object\(count == 1 ? "" : "s")" + (found.map { ", \($0)\(search.isFindingResults ? "…" : "") found" } ?? "")
    }

    /// Shows `text` on the status line (once).
    func note(_ text: String) { status = text }

    /// The last change's status line, once: it is cleared.
    public func takeStatus() -> String {
        defer { status = "" }
        return status
    }

    /// The rows of a table. O(*s*) for *s* sections.
    func rowCount(_ table: TableView) -> Int { (0..<table.numberOfSections).reduce(0) { $0 + table.numberOfRows(inSection: $1) } }

    /// The section index of the table on screen; nil without one.
    public var indexTitles: [String]? { shownTable.sectionIndexTitles }

    /// The number of rows of each section of the table on screen.
    public var sectionCounts: [Int] { (0..<shownTable.numberOfSections).map { shownTable.numberOfRows(inSection: $0) } }

    /// The selected row's object, if any.
    public var selectedObject: DynamicObject? { shownTable.indexPathForSelectedRow.flatMap { try? object(at: $0) } }

    /// The objects of the table on screen, in order (for tests).
    public var listedObjects: [DynamicObject] { (search.isActive ? search.fetchedObjects : controller.fetchedObjects) ?? [] }

    /// How the last search found its results (for tests).
    public var lastSearchMethod: TableSearch<DynamicObject>.UpdateMethod? { search.lastUpdateMethod }
}
