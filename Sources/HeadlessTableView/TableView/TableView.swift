import TableDiff
import Foundation

/// A table without a screen: the part of `UITableView` that decides which rows
/// exist, where they are, which cells show them, and whether a batch update adds
/// up.
///
/// ```swift
/// let table = TableView(viewportHeight: 600)
/// try table.register(EntryCell.self, forCellReuseIdentifier: "entry")
/// table.dataSource = diary
/// try table.reloadData()
/// try table.setContentOffset(1_000)            // scrolls: cells for the new rows only
/// try table.performBatchUpdates {
///     diary.entries.insert(entry, at: 0)
///     try table.insertRows(at: [TablePath(row: 0, section: 0)])
/// }                                            // checked like UIKit; throws UIKit's message
/// ```
///
/// The table asks its ``dataSource`` for counts when it reloads and at the end
/// of every batch update, and for cells only for the rows in its window — the
/// rows meeting `[contentOffset, contentOffset + viewportHeight)`. Rows leaving
/// the window give their cells back to the ``reusePool``; rows entering it get
/// cells from the data source, which dequeues them. A row's cell is made before
/// the cells of the rows that left are queued, so the cells alive never exceed
/// the old window and the new one together (one row more than the window when
/// scrolling by less than a row).
///
/// Layout is a Fenwick tree over sections and chunked ones over rows: the row
/// at an offset, a row's place, and a row's height changing cost O(log *n*); a
/// batch update changes only the rows it names (plus O(sections)). Heights are
/// fixed (``rowHeight``), given per row by the delegate, or — with
/// ``automaticDimension`` — estimated until the row is shown and then measured
/// (the cell's ``TableViewCell/preferredHeight``, or its template's).
///
/// The table, its cells and its pool belong to one isolation domain (they are
/// not `Sendable`); errors are ``TableViewError``s, or what the data source throws.
public final class TableView {
    /// A row height: measured from each cell as it is shown.
    public static let automaticDimension: Double = -1

    /// How a table sets its sections apart — UIKit's `UITableView.Style`,
    /// given when the table is made (``init(viewportHeight:style:reusePool:)``)
    /// and fixed afterwards.
    public enum Style: String, Hashable, Sendable, CaseIterable {
        /// Rows one after another; a section's header and footer float: the
        /// header of the section at the window's top is pinned there (the
        /// next section's header pushes it up), the footer of the section at
        /// its bottom pinned there. Sections without a title have no header.
        case plain
        /// Each section a group: every section has a header and a footer
        /// (``TableView/sectionHeaderHeight`` and
        /// ``TableView/sectionFooterHeight``, titled or not), which scroll
        /// with the content.
        case grouped
        /// As ``grouped``, each group inset from the table's edges (UIKit
        /// rounds its corners).
        case insetGrouped
    }

    /// Whether the table keeps what the reader sees in place when rows
    /// change above it (see ``anchoring``).
    public enum Anchoring: String, Hashable, Sendable, CaseIterable {
        /// UIKit's behaviour: the content offset stays, and the content moves
        /// under it.
        case none
        /// The first visible row stays where it is in the window — through
        /// inserts, deletes, moves and height changes above it, and row
        /// heights measured as rows enter the window; if it is deleted, the
        /// next row that stays takes its place.
        case firstVisibleRow
        /// A chat: at the bottom of the content, the window stays at the
        /// bottom as rows arrive or change; scrolled up, the first visible row
        /// stays, as with ``firstVisibleRow``.
        case bottom
    }

    public enum EditingStyle: Hashable, Sendable { case none, delete, insert }
    /// Where ``scrollToRow(at:at:)`` puts the row: at the window's top, middle
    /// or bottom, or just into view.
    public enum ScrollPosition: Hashable, Sendable { case none, top, middle, bottom }

    public weak var dataSource: (any TableViewDataSource)? {
        // A data source that keeps the selection by identity starts from its own.
        didSet { if dataSource is any _TableSelectionKeeping { selected.removeAll() } }
    }
    public weak var delegate: (any TableViewDelegate)?
    /// Told of the rows about to enter the window (see ``TableViewDataSourcePrefetching``).
    public weak var prefetchDataSource: (any TableViewDataSourcePrefetching)?
    /// The registrations and reuse queues (shared with a search results table).
    public let reusePool: ReusePool
    /// The heights measured, by the identity of the objects the rows show
    /// (with a data source that has identities: `TableView+Identities.swift`).
    var measuredHeights = _MeasuredHeights()

    /// The height of every row, or ``automaticDimension``.
    public var rowHeight: Double = 44
    /// Rows' height until they are measured, with ``automaticDimension``.
    public var estimatedRowHeight: Double = 44
    /// The table's style, given when it was made.
    public let style: Style
    /// Whether the table keeps the reader's place when rows change above the
    /// window (default ``Anchoring/none``, as UIKit).
    public var anchoring: Anchoring = .none
    /// The height of a section's header: in a ``Style/plain`` table, of
    /// sections with a title (28 by default); in the grouped styles, of
    /// every section (18 by default, UIKit's spacing between groups). The
    /// delegate's ``TableViewDelegate/tableView(_:heightForHeaderInSection:)``
    /// overrides it.
    public var sectionHeaderHeight: Double
    /// The height of a section's footer, as ``sectionHeaderHeight`` is of its
    /// header (28 in a plain table, for sections with a footer title; 18 for
    /// every section in the grouped styles).
    public var sectionFooterHeight: Double
    public var allowsSelection = true
    public var allowsMultipleSelection = false
    /// Whether deleting the selected row selects the row that takes its
    /// place — the one at its position in the table's order of rows after the
    /// batch (the row below moving up, across sections), or the last row
    /// when the deleted row was last — as a mail list selects the next
    /// message. Off (the default), a deleted row's selection is gone, as in
    /// UIKit. It applies to a single selected row; a reloaded row is
    /// deselected either way.
    ///
    /// - Complexity: O(*s*) for *s* sections, in a batch that deletes the
    ///   selected row.
    public var selectionFollowsDeletes = false

    /// The height of the window onto the content: the one given to
    /// ``init(viewportHeight:reusePool:)`` or ``setViewportHeight(_:)``.
    public internal(set) var viewportHeight: Double
    /// The distance from the content's top to the window's top.
    public internal(set) var contentOffset: Double {
        get { shown.contentOffset }
        set { shown.contentOffset = newValue }
    }
    /// Whether rows show their editing controls.
    public internal(set) var isEditing = false

    /// Draws the table: told of every change of what it shows (see
    /// ``TableRenderer``). Setting one displays the current frame.
    public var renderer: (any TableRenderer)? {
        didSet {
            lastDisplayedFrame = nil
            displayIfNeeded()
        }
    }
    /// The text of a search field shown above the rows; nil for none. A
    /// `TableSearch` sets it on its results table.
    public var searchFieldText: String? {
        didSet { displayIfNeeded() }
    }
    /// The titles of the scope buttons under the search field (as a search
    /// bar's `scopeButtonTitles`); nil or empty for none. A `TableSearch`
    /// with scopes sets them while a search is on.
    public var searchScopeTitles: [String]? {
        didSet { displayIfNeeded() }
    }
    /// The scope button selected, an index into ``searchScopeTitles``.
    public var selectedSearchScopeIndex = 0 {
        didSet { displayIfNeeded() }
    }
    /// The frame the renderer last displayed.
    var lastDisplayedFrame: TableFrame?

    // The table's state, grouped by what changes — and rolls back — together
    // (`TableView+State.swift` names the parts).

    /// What the table shows: counts, layout, the window's rows and cells,
    /// header and footer views, selection, index titles and offset. A batch
    /// that fails assigns the value saved before it back.
    var shown = _Shown()
    /// The batch being collected, and how deep the batches nest.
    var batch = _PendingBatch()
    /// The cell being made and the window being filled: the state machine
    /// that dequeuing reads.
    var cellMaking = _CellMaking()
    /// The rows announced to the prefetch data source (`TableView+Prefetching.swift`).
    var prefetching = _Prefetching()
    /// The batches the renderer is still showing, and what waits for them (`TableView+Completions.swift`).
    var animation = _BatchAnimation()
    /// Counts the batches applied and the reloads: a user's move whose data
    /// source changed the table meanwhile is not moved again (`TableView+Reordering.swift`).
    var dataGeneration = 0
    /// The row showing its swipe actions (`TableView+SwipeActions.swift`).
    var swipe = _SwipeActions()

    /// A ``Style/plain`` table with a window `viewportHeight` high, and its
    /// own reuse pool or a shared one.
    ///
    /// A `viewportHeight` that is NaN, infinite or negative is kept as given
    /// — as a bad ``rowHeight`` is — and refused by the first operation that
    /// lays the table out (``reloadData()``, a batch update, a scroll,
    /// ``reconfigureRows(at:)``) with ``TableViewError/invalidGeometry(_:)``
    /// naming the viewport height, the table left empty;
    /// ``setViewportHeight(_:)`` replaces it.
    public convenience init(viewportHeight: Double = 480, reusePool: ReusePool = ReusePool()) {
        self.init(viewportHeight: viewportHeight, style: .plain, reusePool: reusePool)
    }

    /// A table of a style — UIKit's `init(frame:style:)`: a window
    /// `viewportHeight` high, and its own reuse pool or a shared one.
    ///
    /// The style sets the defaults of ``sectionHeaderHeight`` and
    /// ``sectionFooterHeight`` (28 in a plain table, 18 in the grouped
    /// styles) and cannot change afterwards. A bad `viewportHeight` is kept
    /// and refused later, as with ``init(viewportHeight:reusePool:)``.
    public init(viewportHeight: Double = 480, style: Style, reusePool: ReusePool = ReusePool()) {
        self.viewportHeight = viewportHeight
        self.reusePool = reusePool
        self.style = style
        let sectionHeight: Double = style == .plain ? 28 : 18
        sectionHeaderHeight = sectionHeight
        sectionFooterHeight = sectionHeight
    }

    /// A height setting as the layout takes it: ``automaticDimension`` (and,
    /// as a backstop, anything the check at the operation's start refused)
    /// is 0.
    static func sanitized(_ height: Double) -> Double { height.isFinite && height > 0 ? height : 0 }

    /// Checks the geometry settings before an operation lays them out: the
    /// viewport's height (unless the operation replaces it) — a finite number
    /// ≥ 0 — and the height settings (``rowHeight``, ``estimatedRowHeight``,
    /// ``sectionHeaderHeight``, ``sectionFooterHeight``): each a finite number
    /// ≥ 0, or ``automaticDimension``.
    func checkGeometrySettings(includingViewport: Bool = true) throws(TableViewError) {
        do throws(TableGeometryError) {
            if includingViewport { _ = try _Geometry.checked(viewportHeight, "the viewport height") }
            _ = try _Geometry.checkedSetting(rowHeight, "rowHeight", allowsAutomatic: true)
            _ = try _Geometry.checkedSetting(estimatedRowHeight, "estimatedRowHeight", allowsAutomatic: true)
            _ = try _Geometry.checkedSetting(sectionHeaderHeight, "sectionHeaderHeight", allowsAutomatic: true)
            _ = try _Geometry.checkedSetting(sectionFooterHeight, "sectionFooterHeight", allowsAutomatic: true)
        } catch {
            throw .invalidGeometry(error)
        }
    }

    /// `value`, or ``TableViewError/invalidGeometry(_:)`` naming `quantity`
    /// (made only for the error: a height the delegate gives is checked per row).
    static func checkedGeometry(_ value: Double, _ quantity: @autoclosure () -> String) throws(TableViewError) -> Double {
        guard _Geometry.isValid(value) else { throw .invalidGeometry(TableGeometryError(quantity: quantity(), value: value)) }
        return value
    }

    // MARK: Registering and dequeuing

    /// Registers a cell class for an identifier (nil unregisters).
    public func register(_ cellClass: TableViewCell.Type?, forCellReuseIdentifier identifier: String) throws(TableViewError) {
        try reusePool.register(cellClass, forCellReuseIdentifier: identifier)
    }

    /// Registers a cell template — a prototype archived once (nil unregisters).
    public func register(_ template: ViewTemplate?, forCellReuseIdentifier identifier: String) throws(TableViewError) {
        try reusePool.register(template, forCellReuseIdentifier: identifier)
    }

    public func register(_ viewClass: TableHeaderFooterView.Type?, forHeaderFooterViewReuseIdentifier identifier: String) throws(TableViewError) {
        try reusePool.register(viewClass, forHeaderFooterViewReuseIdentifier: identifier)
    }

    /// A queued cell (after `prepareForReuse()`), else a new one from the
    /// registration, else nil when nothing is registered.
    public func dequeueReusableCell(withIdentifier identifier: String) -> TableViewCell? {
        let cell = takeDepartedCell(identifier) ?? reusePool.dequeueReusableCell(withIdentifier: identifier)
        if cellMaking.row != nil, let cell { cellMaking.dequeuedMeanwhile.append(cell) }
        return cell
    }

    /// A cell for the row being made: a queued one, else a new one.
    ///
    /// - Throws: ``TableViewError/unregisteredIdentifier(_:)`` when nothing is
    ///   registered; ``TableViewError/multipleDequeues(_:)`` on a second dequeue
    ///   for the same row while it is being made.
    public func dequeueReusableCell(withIdentifier identifier: String, for indexPath: TablePath) throws(TableViewError) -> TableViewCell {
        if cellMaking.row == indexPath {
            if cellMaking.dequeuedForRow { throw .multipleDequeues(indexPath) }
            cellMaking.dequeuedForRow = true
            // A reconfigure hands back the row's own cell, as it is.
            if let cell = cellMaking.reconfiguredCell, cell.reuseIdentifier == identifier {
                cellMaking.reconfiguredCell = nil
                return cell
            }
        }
        guard let cell = takeDepartedCell(identifier) ?? reusePool.dequeueReusableCell(withIdentifier: identifier) else {
            throw .unregisteredIdentifier(identifier)
        }
        if cellMaking.row != nil { cellMaking.dequeuedMeanwhile.append(cell) }
        return cell
    }

    /// A cell of a row that scrolled out of the window while it fills, for the row being made.
    func takeDepartedCell(_ identifier: String) -> TableViewCell? {
        guard cellMaking.row != nil, var list = cellMaking.departedCells[identifier], let (path, cell) = list.popLast() else { return nil }
        cellMaking.departedCells[identifier] = list
        cellMaking.takenDepartedCells.append((path, cell))
        reusePool.cells.count(identifier) { $0.reused += 1 }
        cell.prepareForReuse()
        return cell
    }

    public func dequeueReusableHeaderFooterView(withIdentifier identifier: String) -> TableHeaderFooterView? {
        reusePool.dequeueReusableHeaderFooterView(withIdentifier: identifier)
    }

    // MARK: Loading

    /// Asks the data source for everything again: counts, heights, titles, and
    /// the cells of the window (the window's cells are reused). Clears the
    /// selection (a data source that keeps it by identity, such as
    /// `FetchedResultsTableBinding`, keeps it); keeps the offset where the
    /// content allows. Heights measured of objects with identities are kept:
    /// their rows are not measured again (see ``invalidateRowHeights()``).
    ///
    /// Inside a batch, the reload supersedes the batch's changes. If the data
    /// source fails to make a cell, the error is thrown with the new counts in
    /// place and an empty window; the next reload tries again.
    ///
    /// - Throws: ``TableViewError/invalidGeometry(_:)`` for a geometry setting,
    ///   or a height the delegate gives, that is NaN, infinite or negative
    ///   (the new layout is worked out first: nothing changes); for a height a
    ///   cell measures, as when a cell fails (the new counts, an empty window).
    ///   What the data source throws.
    public func reloadData() throws {
        guard !isBusy else { throw TableViewError.busy }
        guard let dataSource else { throw TableViewError.noDataSource }
        try checkGeometrySettings()
        let counts = try Self.counts(of: dataSource, in: self)
        // The new layout is made — and the delegate's heights checked — before anything changes.
        let newLayout = _TableLayout(try counts.indices.map { s throws(TableViewError) in
            _TableLayout.Section(header: try headerHeight(s), rows: try initialHeights(section: s, count: counts[s]), footer: try footerHeight(s))
        })
        defer { displayIfNeeded() }
        // A swiped row closes: its path no longer names it (the delegate hears at the end).
        let swipeEnded = takeSwipe()
        defer { if swipeEnded { delegate?.tableView(self, didEndEditingRowAt: nil) } }
        let wasAtBottom = isAtBottom
        dataGeneration &+= 1
        batch.discardChanges()
        rowCounts = counts
        layout = newLayout
        indexTitles = dataSource.sectionIndexTitles(for: self)
        selected.removeAll()   // (a data source that keeps the selection by identity keeps it)
        // Every cell goes back to the queue before the window is filled again.
        for path in windowRows {
            if let cell = cells.removeValue(forKey: path) { leave(cell, at: path) }
        }
        if let carried = shown.carried {
            shown.carried = [:]
            for (path, cell) in carried { leave(cell, at: path) }
        }
        windowRows = []
        for (s, view) in headerViews { reusePool.enqueue(view); headerViews[s] = nil }
        for (s, view) in footerViews { reusePool.enqueue(view); footerViews[s] = nil }
        // A chat at the bottom stays there; otherwise the offset stays (UIKit).
        let anchor: _Anchor = anchoring == .bottom && wasAtBottom ? .bottom : .offset
        contentOffset = anchoredOffset(anchor)
        cancelAllPrefetching()
        try fillWindow(leaving: [], anchor: anchor)
        updatePrefetching(scrolledBy: 0)
    }

    /// The most rows a section may have: enough for any table, and a bound on
    /// the memory its layout takes.
    public static let maximumRowCount = 1 << 28

    /// The data source's counts, checked: all at once when it gives them so
    /// (one pass), else section by section.
    static func counts(of dataSource: any TableViewDataSource, in table: TableView) throws(TableViewError) -> [Int] {
        if let counts = dataSource.numberOfRowsInSections(in: table) {
            guard counts.count <= maximumRowCount else { throw .tooManyRows(section: nil, count: counts.count) }
            // One pass for the largest count taken unsigned (a negative one is
            // larger than any); the first out of range is found after.
            let largest = counts.withUnsafeBufferPointer { counts in
                counts.reduce(UInt(0)) { Swift.max($0, UInt(bitPattern: $1)) }
            }
            if largest > UInt(maximumRowCount), let s = counts.firstIndex(where: { $0 < 0 || $0 > maximumRowCount }) {
                throw counts[s] < 0 ? .negativeCount(section: s, count: counts[s]) : .tooManyRows(section: s, count: counts[s])
            }
            return counts
        }
        let sections = dataSource.numberOfSections(in: table)
        guard sections >= 0 else { throw .negativeCount(section: nil, count: sections) }
        guard sections <= maximumRowCount else { throw .tooManyRows(section: nil, count: sections) }
        return try (0..<sections).map { s throws(TableViewError) in
            let rows = dataSource.tableView(table, numberOfRowsInSection: s)
            guard rows >= 0 else { throw .negativeCount(section: s, count: rows) }
            guard rows <= maximumRowCount else { throw .tooManyRows(section: s, count: rows) }
            return rows
        }
    }

    // MARK: Heights

    // The settings are checked when an operation starts
    // (`checkGeometrySettings`); a height the delegate, a cell or a template
    // gives is checked where it is read, and refused naming where it came
    // from — the operation then leaves the table as it was.

    var estimate: Double { estimatedRowHeight > 0 ? Self.sanitized(estimatedRowHeight) : 44 }

    func headerHeight(_ s: Int) throws(TableViewError) -> Double {
        if let h = delegate?.tableView(self, heightForHeaderInSection: s) {
            return try Self.checkedGeometry(h, "the delegate's header height for section \(s)")
        }
        switch style {
        case .plain: return dataSource?.tableView(self, titleForHeaderInSection: s) != nil ? Self.sanitized(sectionHeaderHeight) : 0
        case .grouped, .insetGrouped: return Self.sanitized(sectionHeaderHeight)
        }
    }

    func footerHeight(_ s: Int) throws(TableViewError) -> Double {
        if let h = delegate?.tableView(self, heightForFooterInSection: s) {
            return try Self.checkedGeometry(h, "the delegate's footer height for section \(s)")
        }
        switch style {
        case .plain: return dataSource?.tableView(self, titleForFooterInSection: s) != nil ? Self.sanitized(sectionFooterHeight) : 0
        case .grouped, .insetGrouped: return Self.sanitized(sectionFooterHeight)
        }
    }

    /// A row's height before it is shown: the height measured of its object
    /// (with identities); with ``automaticDimension``, the delegate's
    /// estimate, else the table's (the delegate's height, like a cell's
    /// measure, is asked when the row is shown, as UIKit does with
    /// estimates); else the delegate's height, else the fixed height.
    func initialHeight(_ path: TablePath) throws(TableViewError) -> Double {
        if let h = rememberedHeight(ofRowAt: path) { return h }
        if rowHeight == Self.automaticDimension {
            if let h = delegate?.tableView(self, estimatedHeightForRowAt: path) {
                return try Self.checkedGeometry(h, "the delegate's estimated height for row \(path)")
            }
            return estimate
        }
        if let h = delegate?.tableView(self, heightForRowAt: path) {
            let height = try Self.checkedGeometry(h, "the delegate's height for row \(path)")
            rememberHeight(height, ofRowAt: path)
            return height
        }
        return Self.sanitized(rowHeight)
    }

    /// A section's row heights: one height for all when neither the delegate's
    /// heights nor its estimates are per row (no per-row memory), with the
    /// heights measured of its rows' objects put in (with identities). With
    /// ``automaticDimension`` the delegate's heights are asked as rows are
    /// shown: a section of a million rows costs its estimates, not a million
    /// calls.
    func initialHeights(section s: Int, count: Int) throws(TableViewError) -> _HeightList {
        guard count > 0 else { return _HeightList(count: 0, height: 0) }
        let first = TablePath(row: 0, section: s)
        let perRow: Bool
        if rowHeight == Self.automaticDimension {
            perRow = delegate?.tableView(self, estimatedHeightForRowAt: first) != nil
        } else {
            // (A first row whose height is known asks the delegate nothing: the rows go one by one.)
            perRow = rememberedHeight(ofRowAt: first) != nil || delegate?.tableView(self, heightForRowAt: first) != nil
        }
        if perRow { return _HeightList(heights: try (0..<count).map { r throws(TableViewError) in try initialHeight(TablePath(row: r, section: s)) }) }
        let list = _HeightList(count: count, height: rowHeight == Self.automaticDimension ? estimate : Self.sanitized(rowHeight))
        return withRememberedHeights(list, section: s, count: count)
    }

    /// A shown row's height: the height measured of its object before (with
    /// identities, and `remembered`), else the delegate's, else the fixed
    /// height, else the cell's measure (its own preferred height, else its
    /// template's). A height the delegate or the cell gives is kept by the
    /// row's identity.
    func measuredHeight(of cell: TableViewCell, at path: TablePath, remembered: Bool = true) throws(TableViewError) -> Double {
        if remembered, let h = rememberedHeight(ofRowAt: path) { return h }
        if let h = delegate?.tableView(self, heightForRowAt: path) {
            let height = try Self.checkedGeometry(h, "the delegate's height for row \(path)")
            rememberHeight(height, ofRowAt: path)
            return height
        }
        if rowHeight != Self.automaticDimension { return Self.sanitized(rowHeight) }
        var measured: Double?
        if let h = cell.preferredHeight {
            measured = try Self.checkedGeometry(h, "the preferred height of the cell for row \(path)")
        } else if let identifier = cell.reuseIdentifier, let h = reusePool.preferredHeight(forCellReuseIdentifier: identifier) {
            measured = try Self.checkedGeometry(h, "the preferred height of template \"\(identifier)\" for row \(path)")
        }
        if let measured {
            rememberHeight(measured, ofRowAt: path)
            return measured
        }
        return try initialHeight(path)
    }

    // MARK: The window

    /// Sets the viewport's height; the window changes with it.
    ///
    /// - Throws: ``TableViewError/invalidGeometry(_:)`` for a height that is
    ///   NaN, infinite or negative — this one, a setting, or one the delegate
    ///   or a cell gives for a row entering the window (the table is left as
    ///   it was) — or what the data source throws making a cell.
    public func setViewportHeight(_ height: Double) throws {
        guard !isBusy else { throw TableViewError.busy }
        let height = try Self.checkedGeometry(height, "the viewport height")
        try checkGeometrySettings(includingViewport: false)
        defer { displayIfNeeded() }
        let (oldHeight, oldOffset) = (viewportHeight, contentOffset)
        let anchor: _Anchor = anchoring == .bottom && isAtBottom ? .bottom : .offset
        viewportHeight = height
        do {
            contentOffset = anchoredOffset(anchor)
            try fillWindow(leaving: [], anchor: anchor)
        } catch {
            (viewportHeight, contentOffset) = (oldHeight, oldOffset)
            throw error
        }
        closeSwipedRowIfOffScreen()
    }

    /// Scrolls: the window's top moves to `offset` (kept within the content).
    /// Rows leaving the window give back their cells; rows entering it get
    /// cells. If the data source fails to make a cell, nothing moves.
    ///
    /// - Throws: ``TableViewError/invalidGeometry(_:)`` for an offset that is
    ///   NaN, infinite or negative, for such a geometry setting, or for such a
    ///   height the delegate or a cell gives for a row entering the window
    ///   (nothing moves); what the data source throws making a cell.
    /// - Complexity: O(*w* log *n*) for a window of *w* rows.
    public func setContentOffset(_ offset: Double) throws {
        guard !isBusy else { throw TableViewError.busy }
        try checkGeometrySettings()
        let offset = try Self.checkedGeometry(offset, "the content offset")
        defer { displayIfNeeded() }
        let old = contentOffset
        contentOffset = clampedOffset(offset)
        do {
            // Anchored, rows measured as they enter move what was shown no more.
            try fillWindow(leaving: [], anchor: anchoring == .none ? .offset : .keptRow)
        } catch {
            contentOffset = old
            throw error
        }
        updatePrefetching(scrolledBy: contentOffset - old)
        if contentOffset != old { endSwipe(at: swipe.open?.row) }   // a scroll closes the swiped row, as in UIKit
    }

    func clampedOffset(_ offset: Double) -> Double {
        Swift.max(0, Swift.min(offset, layout.contentHeight - viewportHeight))
    }

    // MARK: Keeping the reader's place

    /// How the window is held while the layout changes under it.
    enum _Anchor: Equatable {
        /// The offset stays (within the content).
        case offset
        /// A row's top stays this far below the window's top.
        case row(TablePath, Double)
        /// The window stays at the content's bottom.
        case bottom
        /// While scrolling: the first row of the new window that was in the
        /// old one (else the new window's first row) stays where it is.
        case keptRow
    }

    /// Whether the window is at the content's bottom (or the content is no
    /// taller than the window).
    var isAtBottom: Bool {
        let end = layout.contentHeight - viewportHeight
        return contentOffset >= end - 1e-9 * Swift.max(1, Swift.abs(end))
    }

    /// The offset that holds `anchor`, within the content.
    func anchoredOffset(_ anchor: _Anchor) -> Double {
        switch anchor {
        case .offset, .keptRow: clampedOffset(contentOffset)
        case .row(let path, let y): clampedOffset(layout.span(ofRow: path).y - y)
        case .bottom: clampedOffset(layout.contentHeight - viewportHeight)
        }
    }

    /// Where to hold the window through a change, by ``anchoring``, before
    /// the change (the row in the coordinates before it).
    func anchorBeforeChange() -> _Anchor {
        switch anchoring {
        case .none: return .offset
        case .bottom where isAtBottom: return .bottom
        case .bottom, .firstVisibleRow:
            guard let first = windowRows.first else { return .offset }
            return .row(first, layout.span(ofRow: first).y - contentOffset)
        }
    }

    /// The anchor row after a batch: the row itself where it went, else the
    /// next row (in the order before the batch) that stays; in a reloaded
    /// section, its row at the same index (or the last).
    ///
    /// - Complexity: O(*k* + *s*) lookups at most for a batch of *k* changes
    ///   over *s* sections (deleted sections are skipped whole).
    static func survivingRow(from path: TablePath, _ mapping: BatchMapping, countsBefore: [Int], countsAfter: [Int]) -> TablePath? {
        var s = path.section, r = path.row
        while s < countsBefore.count {
            if let t = mapping.newSection(forOld: s) {
                if mapping.isSectionReloaded(old: s) {
                    if r < countsBefore[s] && countsAfter[t] > 0 { return TablePath(row: Swift.min(r, countsAfter[t] - 1), section: t) }
                } else {
                    while r < countsBefore[s] {
                        if let p = mapping.newIndexPath(forOld: TablePath(row: r, section: s)) { return p }
                        r += 1
                    }
                }
            }
            s += 1
            r = 0
        }
        return nil
    }

    /// Scrolls so that a row shows where asked.
    ///
    /// In a ``Style/plain`` table the top of the window is below the header
    /// of the row's section, which floats there (as UIKit scrolls a row to
    /// the top below its pinned header): a row scrolled to the top, or into
    /// view from above, is not covered by it (when the window is tall enough for
    /// both).
    ///
    /// - Throws: ``TableViewError/invalidIndexPath(_:sectionCount:rowCount:)``
    ///   for a row that does not exist.
    public func scrollToRow(at path: TablePath, at position: ScrollPosition) throws {
        try check(path)
        let row = layout.span(ofRow: path)
        // The floating header covers the window's top, when the window holds it and the row.
        let header = style == .plain ? layout.span(ofHeader: path.section).height : 0
        let covered = header + row.height <= viewportHeight ? header : 0
        let target: Double
        switch position {
        case .top: target = row.y - covered
        case .middle: target = row.y + row.height / 2 - viewportHeight / 2
        case .bottom: target = row.y + row.height - viewportHeight
        case .none:
            if row.y < contentOffset + covered { target = row.y - covered }
            else if row.y + row.height > contentOffset + viewportHeight { target = row.y + row.height - viewportHeight }
            else { return }
        }
        try setContentOffset(Swift.max(0, target))
    }

    /// Makes the window show the rows at the current offset — all or nothing.
    ///
    /// The cells of rows entering the window are made first, and measured;
    /// measured heights can move rows, and the window is then filled again
    /// until nothing moves. If the data source fails, every cell made here goes
    /// back to the pool, every height measured here is put back, and the table
    /// is as it was. Otherwise the cells of rows that left the window — and
    /// `leaving`, cells of rows an update removed — go back to the pool, and
    /// the delegate hears of both.
    func fillWindow(leaving updateLeaving: [(TablePath, TableViewCell)], anchor: _Anchor = .offset) throws {
        guard !isBusy else { throw TableViewError.busy }
        let anchor = concreteAnchor(anchor)
        isBusy = true
        // In a staged change, the cells of rows leaving the window are kept
        // for their rows (not reused), and rows coming back take theirs.
        var fill = _WindowFill(window: cells, offset: contentOffset, carried: shown.carried)
        cellMaking.departedCells = [:]
        cellMaking.takenDepartedCells = []
        defer {
            cellMaking.departedCells = [:]
            cellMaking.takenDepartedCells = []
        }
        do {
            try makeCells(&fill, anchor: anchor)
        } catch {
            rollBack(fill)
            isBusy = false
            throw error
        }
        commitFill(fill, leaving: updateLeaving)
    }

    /// A window being filled (see ``fillWindow(leaving:anchor:)``): its cells
    /// by row, those made for it, the heights it measured (with each row's
    /// height before, to put back), its offset and the rows wanted there,
    /// and in a staged change the cells carried for their rows.
    struct _WindowFill {
        var window: [TablePath: TableViewCell]
        var made: [TablePath: TableViewCell] = [:]
        var measured: [(TablePath, Double)] = []
        var offset: Double
        var wanted: [TablePath] = []
        var carried: [TablePath: TableViewCell]?

        init(window: [TablePath: TableViewCell], offset: Double, carried: [TablePath: TableViewCell]?) {
            self.window = window
            self.offset = offset
            self.carried = carried
        }
    }

    /// The anchor of a fill, a kept row made concrete: the first row of the
    /// window that has a cell (else its first row), where it is now.
    private func concreteAnchor(_ anchor: _Anchor) -> _Anchor {
        guard anchor == .keptRow else { return anchor }
        let rows = layout.rows(from: contentOffset, to: contentOffset + viewportHeight)
        let kept = rows.first { cells[$0] != nil } ?? rows.first
        return kept.map { .row($0, layout.span(ofRow: $0).y - contentOffset) } ?? .offset
    }

    /// The first phase of a fill: the cells of rows entering the window are
    /// made and measured (those of rows that scrolled out reused first),
    /// round after round while measured heights move rows.
    ///
    /// - Throws: what making or measuring a cell throws; `fill` then holds
    ///   what was done, for ``rollBack(_:)``.
    private func makeCells(_ fill: inout _WindowFill, anchor: _Anchor) throws {
        while true {
            fill.wanted = layout.rows(from: fill.offset, to: fill.offset + viewportHeight)
            // The cells of rows that scrolled out are reused first.
            let wantedNow = Set(fill.wanted)
            for (path, cell) in fill.window where fill.carried == nil && !wantedNow.contains(path) && fill.made[path] == nil {
                guard let identifier = reusePool.cells.reuseIdentifier(of: cell) else { continue }
                fill.window[path] = nil
                cellMaking.departedCells[identifier, default: []].append((path, cell))
            }
            var moved = false
            for path in fill.wanted where fill.window[path] == nil {
                if let cell = fill.carried?.removeValue(forKey: path) {
                    fill.window[path] = cell   // back in the window, as it was: no new cell, no new height
                    continue
                }
                let cell = try makeCell(path)
                fill.window[path] = cell
                fill.made[path] = cell
                let height = try measuredHeight(of: cell, at: path), old = layout.span(ofRow: path).height
                if height != old {
                    fill.measured.append((path, old))
                    layout.setHeight(height, ofRow: path)
                    moved = true
                }
            }
            if !moved { return }
            switch anchor {
            case .offset, .keptRow: fill.offset = clampedOffset(fill.offset)
            case .row, .bottom: fill.offset = anchoredOffset(anchor)
            }
        }
    }

    /// After a failed fill: every height measured is put back, every cell
    /// made goes back to the pool, and the cells of rows that scrolled out
    /// are the rows' again — the table is as it was.
    private func rollBack(_ fill: _WindowFill) {
        for (path, old) in fill.measured.reversed() { layout.setHeight(old, ofRow: path) }
        let taken = Set(cellMaking.takenDepartedCells.map { ObjectIdentifier($0.1) })
        for cell in fill.made.values where !taken.contains(ObjectIdentifier(cell)) { reusePool.enqueue(cell) }
        restoreDepartedCells()
    }

    /// The last phase of a fill: the window, its offset and its rows are the
    /// table's; the cells of rows that left it — and `updateLeaving`, cells
    /// of rows an update removed — go back to the pool, and the delegate
    /// hears of the cells shown and of those gone.
    private func commitFill(_ fill: consuming _WindowFill, leaving updateLeaving: [(TablePath, TableViewCell)]) {
        let wantedSet = Set(fill.wanted)
        var leaving = updateLeaving
        for list in cellMaking.departedCells.values { leaving += list }
        for (path, cell) in fill.window where !wantedSet.contains(path) {
            fill.window[path] = nil
            // A cell made in an early round for a row a later one moved away was never shown.
            if fill.made[path] != nil {
                reusePool.enqueue(cell)
            } else if fill.carried != nil {
                fill.carried?[path] = cell
            } else {
                leaving.append((path, cell))
            }
        }
        shown.carried = fill.carried
        contentOffset = fill.offset
        cells = fill.window
        windowRows = fill.wanted
        for view in staleViews { reusePool.enqueue(view) }
        staleViews = []
        isBusy = false
        for (path, cell) in cellMaking.takenDepartedCells { delegate?.tableView(self, didEndDisplaying: cell, forRowAt: path) }
        let isSelected = selectedRowTest()
        for path in fill.wanted {
            guard let cell = fill.made[path] else { continue }
            cell.isSelected = isSelected(path)
            cell.isEditing = isEditing
            delegate?.tableView(self, willDisplay: cell, forRowAt: path)
        }
        for (path, cell) in leaving { leave(cell, at: path) }
        refreshHeaderAndFooterViews()
    }

    /// After a failed fill: the cells of rows that scrolled out are the rows'
    /// again; those already reused for other rows are configured for theirs
    /// once more (their rows' own cells, through the data source's dequeue).
    private func restoreDepartedCells() {
        let taken = cellMaking.takenDepartedCells
        cellMaking.departedCells = [:]
        cellMaking.takenDepartedCells = []
        for (path, cell) in taken {
            reusePool.cells.reclaim(cell)   // if the data source dequeued it and gave it back
            let made = try? makeCell(path, reconfiguring: cell)
            if let made, made !== cell {
                cells[path] = made
                reusePool.enqueue(cell)
            }
        }
    }

    /// Asks the data source for a row's cell. Cells it dequeued and did not
    /// return (all of them, if it fails) go back to the pool.
    func makeCell(_ path: TablePath, reconfiguring existing: TableViewCell? = nil) throws -> TableViewCell {
        guard let dataSource else { throw TableViewError.noDataSource }
        cellMaking.row = path
        cellMaking.dequeuedForRow = false
        cellMaking.dequeuedMeanwhile = []
        cellMaking.reconfiguredCell = existing
        defer {
            cellMaking.row = nil
            cellMaking.reconfiguredCell = nil
            cellMaking.dequeuedMeanwhile = []
        }
        let cell: TableViewCell?
        do {
            cell = try dataSource.tableView(self, cellForRowAt: path)
        } catch {
            for dequeued in cellMaking.dequeuedMeanwhile { reusePool.enqueue(dequeued) }
            throw error
        }
        for dequeued in cellMaking.dequeuedMeanwhile where dequeued !== cell { reusePool.enqueue(dequeued) }
        guard let cell else { throw TableViewError.noCell(path) }
        if let level = delegate?.tableView(self, indentationLevelForRowAt: path) { cell.indentationLevel = level }
        return cell
    }

    /// A cell leaves the window: the delegate is told, and the cell is queued.
    func leave(_ cell: TableViewCell, at path: TablePath) {
        delegate?.tableView(self, didEndDisplaying: cell, forRowAt: path)
        reusePool.enqueue(cell)
    }

    /// Header and footer views for the sections in the window, from the delegate.
    func refreshHeaderAndFooterViews() {
        let sections = layout.sections(from: contentOffset, to: contentOffset + viewportHeight)
        for (s, view) in headerViews where !sections.contains(s) { reusePool.enqueue(view); headerViews[s] = nil }
        for (s, view) in footerViews where !sections.contains(s) { reusePool.enqueue(view); footerViews[s] = nil }
        guard let delegate else { return }
        for s in sections {
            if headerViews[s] == nil, layout.sections[s].header > 0 { headerViews[s] = delegate.tableView(self, viewForHeaderInSection: s) }
            if footerViews[s] == nil, layout.sections[s].footer > 0 { footerViews[s] = delegate.tableView(self, viewForFooterInSection: s) }
        }
    }

    // MARK: Questions

    public var numberOfSections: Int { rowCounts.count }

    /// The rows of a section as the table shows them (0 for a section that does not exist).
    public func numberOfRows(inSection section: Int) -> Int {
        rowCounts.indices.contains(section) ? rowCounts[section] : 0
    }

    /// The height of everything: headers, rows and footers.
    public var contentHeight: Double { layout.contentHeight }

    /// A vertical span of the content — its top and its height: where a
    /// section, header, footer or row is (UIKit gives a `CGRect`; a headless
    /// table has no horizontal extent).
    public struct VerticalSpan: Hashable, Sendable, CustomStringConvertible {
        public var y: Double
        public var height: Double
        public init(y: Double, height: Double) {
            self.y = y
            self.height = height
        }
        public var maxY: Double { y + height }
        public var description: String { "y \(y), height \(height)" }
    }

    /// A section's span — header, rows and footer; nil for a section that does not exist.
    public func rect(forSection section: Int) -> VerticalSpan? {
        guard rowCounts.indices.contains(section) else { return nil }
        let span = layout.span(ofSection: section)
        return VerticalSpan(y: span.y, height: span.height)
    }

    public func rectForHeader(inSection section: Int) -> VerticalSpan? {
        guard rowCounts.indices.contains(section) else { return nil }
        let span = layout.span(ofHeader: section)
        return VerticalSpan(y: span.y, height: span.height)
    }

    public func rectForFooter(inSection section: Int) -> VerticalSpan? {
        guard rowCounts.indices.contains(section) else { return nil }
        let span = layout.span(ofFooter: section)
        return VerticalSpan(y: span.y, height: span.height)
    }

    /// A row's span; nil for a row that does not exist.
    ///
    /// - Complexity: O(log *n*).
    public func rectForRow(at path: TablePath) -> VerticalSpan? {
        guard isValid(path) else { return nil }
        let span = layout.span(ofRow: path)
        return VerticalSpan(y: span.y, height: span.height)
    }

    /// The row at a distance from the content's top; nil in a header, a footer,
    /// or outside the content.
    ///
    /// - Complexity: O(log *n*).
    public func indexPathForRow(at y: Double) -> TablePath? { layout.row(at: y) }

    /// The rows in the window, in order.
    public var indexPathsForVisibleRows: [TablePath] { windowRows }

    /// The cells of the rows in the window, in order.
    public var visibleCells: [TableViewCell] { windowRows.compactMap { cells[$0] } }

    /// The cell showing a row; nil when the row is not in the window.
    public func cellForRow(at path: TablePath) -> TableViewCell? { cells[path] }

    /// The row a cell in the window shows; nil for a cell that is not in the
    /// window (a control in a cell finds its row this way).
    ///
    /// - Complexity: O(*w*) for a window of *w* rows.
    public func indexPath(for cell: TableViewCell) -> TablePath? {
        windowRows.first { cells[$0] === cell }
    }

    /// A visible section's header or footer view (from the delegate), if any.
    public func headerView(forSection section: Int) -> TableHeaderFooterView? { headerViews[section] }
    public func footerView(forSection section: Int) -> TableHeaderFooterView? { footerViews[section] }

    /// The section index, as the data source gave it at the last reload.
    public var sectionIndexTitles: [String]? { indexTitles }

    /// The user taps an index title: the table scrolls to the section the data
    /// source names for it.
    public func tapSectionIndexTitle(at index: Int) throws {
        guard let dataSource, let titles = indexTitles, titles.indices.contains(index) else { return }
        let section = dataSource.tableView(self, sectionForSectionIndexTitle: titles[index], at: index)
        guard rowCounts.indices.contains(section) else { return }
        try setContentOffset(layout.top(ofSection: section))
    }

    package func isValid(_ path: TablePath) -> Bool {
        rowCounts.indices.contains(path.section) && path.row >= 0 && path.row < rowCounts[path.section]
    }

    func check(_ path: TablePath) throws(TableViewError) {
        guard isValid(path) else {
            throw .invalidIndexPath(path, sectionCount: rowCounts.count, rowCount: rowCounts.indices.contains(path.section) ? rowCounts[path.section] : nil)
        }
    }
}
