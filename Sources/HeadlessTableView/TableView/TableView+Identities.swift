import TableDiff
import Foundation

/// A data source whose rows show objects with identities — UIKit's
/// `UIDataSourceModelAssociation`, with hashable identities: what lets a
/// table keep the heights it measured by identity (and a binding its
/// selection and the reader's place). `FetchedResultsTableBinding` adopts it.
package protocol _TableRowIdentities: AnyObject {
    /// The identity of the object a row shows; nil for a row outside the data.
    func _identity(ofRowAt path: TablePath, in tableView: TableView) -> AnyHashable?
    /// Where the object with an identity is shown now; nil when it is not.
    func _indexPath(ofRowWithIdentity identity: AnyHashable, in tableView: TableView) -> TablePath?
}

/// A data source that keeps the table's selection itself — by the identity
/// of the objects its rows show — so that it survives reloads and follows
/// its objects through every change: the table asks it instead of keeping
/// index paths. `FetchedResultsTableBinding` adopts it. What a tap, the keys
/// and `selectRow(at:)` do, and the delegate's calls, are the table's as
/// ever; only where the answer is kept changes.
package protocol _TableSelectionKeeping: AnyObject {
    /// Whether a row is selected.
    func _isRowSelected(at path: TablePath, in tableView: TableView) -> Bool
    /// Selects a row (the table checked it exists).
    func _selectRow(at path: TablePath, in tableView: TableView)
    /// Deselects a row.
    func _deselectRow(at path: TablePath, in tableView: TableView)
    /// Deselects every row.
    func _deselectAllRows(in tableView: TableView)
    /// The selected rows, in order.
    func _indexPathsForSelectedRows(in tableView: TableView) -> [TablePath]
    /// The first selected row, if any.
    func _indexPathForSelectedRow(in tableView: TableView) -> TablePath?
    /// Answers whether rows are selected for a pass over the window (a frame
    /// drawn, a fill committed), the selection made ready once for it; used
    /// before the selection or the rows change again.
    func _selectedRowTest(in tableView: TableView) -> (TablePath) -> Bool
}

/// The heights a table measured, by the identity of the objects its rows
/// show (with a data source that has identities): a row whose object and
/// content are unchanged is not measured again — through reloads, refetches
/// and batch updates (TanStack Virtual's measurement cache). A memo, not
/// what the table shows: an operation that fails keeps what it measured
/// (true heights of those objects), and forgetting one only measures again.
struct _MeasuredHeights {
    /// The heights, by identity.
    var byIdentity: [AnyHashable: Double] = [:]
    /// The most heights kept: past it, the oldest half is let go (measured
    /// again when shown).
    static var capacity: Int { 1 << 20 }
    /// The identities in the order their heights were kept (for the cap).
    private var order: [AnyHashable] = []

    var isEmpty: Bool { byIdentity.isEmpty }
    var count: Int { byIdentity.count }

    subscript(identity: AnyHashable) -> Double? { byIdentity[identity] }

    /// Keeps a height.
    ///
    /// - Complexity: amortized O(1).
    mutating func keep(_ height: Double, for identity: AnyHashable) {
        if byIdentity.updateValue(height, forKey: identity) == nil { order.append(identity) }
        if order.count > Self.capacity {
            let dropped = order.prefix(order.count / 2)
            for identity in dropped { byIdentity[identity] = nil }
            order.removeFirst(dropped.count)
            order.removeAll { byIdentity[$0] == nil }
        }
    }

    /// Forgets a height (the object's content changed).
    mutating func forget(_ identity: AnyHashable) {
        byIdentity[identity] = nil   // (its place in `order` goes when the cap is reached)
    }

    /// Forgets every height.
    mutating func removeAll() {
        byIdentity = [:]
        order = []
    }
}

extension TableView {
    /// The data source's identities, when it has them.
    var rowIdentities: (any _TableRowIdentities)? { dataSource as? any _TableRowIdentities }

    /// The data source that keeps the selection, when it does.
    var selectionKeeper: (any _TableSelectionKeeping)? { dataSource as? any _TableSelectionKeeping }

    // MARK: Selection, wherever it is kept

    /// Whether a row is selected.
    func isRowSelected(_ path: TablePath) -> Bool {
        if let keeper = selectionKeeper { return keeper._isRowSelected(at: path, in: self) }
        return selected.contains(path)
    }

    /// Whether rows are selected, for a pass over the window (nothing changes
    /// the selection or the rows while it is used): the data source that
    /// keeps the selection makes it ready once for the pass.
    func selectedRowTest() -> (TablePath) -> Bool {
        if let keeper = selectionKeeper { return keeper._selectedRowTest(in: self) }
        let selected = selected
        return { selected.contains($0) }
    }

    /// Selects a row (checked to exist).
    func setRowSelected(_ path: TablePath) {
        if let keeper = selectionKeeper { keeper._selectRow(at: path, in: self) } else { selected.insert(path) }
        cells[path]?.isSelected = true
    }

    /// Deselects a row.
    func setRowDeselected(_ path: TablePath) {
        if let keeper = selectionKeeper { keeper._deselectRow(at: path, in: self) } else { selected.remove(path) }
        cells[path]?.isSelected = false
    }

    /// Deselects every row.
    func deselectAllRows() {
        if let keeper = selectionKeeper {
            keeper._deselectAllRows(in: self)
        } else {
            selected.removeAll()
        }
        for cell in cells.values { cell.isSelected = false }
    }

    /// The selected rows, in order.
    var selectedRowsInOrder: [TablePath] {
        selectionKeeper.map { $0._indexPathsForSelectedRows(in: self) } ?? selected.sorted()
    }

    /// Shows the selection the data source keeps on the window's cells again
    /// (after it changed without the table: by identity, from code) and draws.
    ///
    /// - Complexity: O(*w*) for a window of *w* rows.
    package func selectionDidChange() {
        let isSelected = selectedRowTest()
        for (path, cell) in cells { cell.isSelected = isSelected(path) }
        displayIfNeeded()
    }

    // MARK: Heights by identity

    /// A row's remembered height, if its object's is known.
    func rememberedHeight(ofRowAt path: TablePath) -> Double? {
        guard !measuredHeights.isEmpty, let identities = rowIdentities, let identity = identities._identity(ofRowAt: path, in: self) else { return nil }
        return measuredHeights[identity]
    }

    /// Keeps a row's height by its object's identity (with identities).
    func rememberHeight(_ height: Double, ofRowAt path: TablePath) {
        guard let identities = rowIdentities, let identity = identities._identity(ofRowAt: path, in: self) else { return }
        measuredHeights.keep(height, for: identity)
    }

    /// Forgets the heights measured of these objects (their content
    /// changed): they are measured again when shown.
    package func forgetMeasuredHeights(ofIdentities identities: some Sequence<AnyHashable>) {
        for identity in identities { measuredHeights.forget(identity) }
    }

    /// The heights measured, by identity (what a restorable state keeps).
    package var measuredHeightsByIdentity: [AnyHashable: Double] { measuredHeights.byIdentity }

    /// Heights measured before (a restored state's): kept as if measured
    /// here, used as their rows are shown.
    ///
    /// - Complexity: O(*m*) for *m* heights.
    package func rememberMeasuredHeights(_ heights: [AnyHashable: Double]) {
        for (identity, height) in heights where _Geometry.isValid(height) { measuredHeights.keep(height, for: identity) }
    }

    /// A section's initial heights with the heights remembered of its rows'
    /// objects put in (their rows are not measured again): by each row's
    /// identity when the section has fewer rows than heights are kept, else
    /// by each kept identity's row.
    ///
    /// - Complexity: O(min(*r*, *m*)) identity look-ups (O(log *n*) each
    ///   for a binding) for *r* rows and *m* heights kept.
    func withRememberedHeights(_ list: _HeightList, section s: Int, count: Int) -> _HeightList {
        guard !measuredHeights.isEmpty, count > 0, let identities = rowIdentities else { return list }
        var found: [(row: Int, height: Double)] = []
        if count <= measuredHeights.count {
            for r in 0..<count {
                if let identity = identities._identity(ofRowAt: TablePath(row: r, section: s), in: self), let h = measuredHeights[identity] {
                    found.append((r, h))
                }
            }
        } else {
            for (identity, h) in measuredHeights.byIdentity {
                if let path = identities._indexPath(ofRowWithIdentity: identity, in: self), path.section == s, path.row < count {
                    found.append((path.row, h))
                }
            }
        }
        guard !found.isEmpty else { return list }
        var list = list
        for (row, height) in found { list.setHeight(height, at: row) }
        return list
    }

    /// Forgets the measured heights of the rows a batch reloads (paths
    /// after it): their content changed.
    func forgetHeights(ofReloadedRowsIn mapping: BatchMapping, counts: [Int]) {
        guard !measuredHeights.isEmpty, let identities = rowIdentities else { return }
        for path in mapping.reloadedRowPaths {
            if let new = mapping.newIndexPath(forOld: path), let identity = identities._identity(ofRowAt: new, in: self) { measuredHeights.forget(identity) }
        }
        for t in counts.indices {
            guard let s = mapping.oldSection(forNew: t), mapping.isSectionReloaded(old: s) else { continue }
            for r in 0..<counts[t] {
                if let identity = identities._identity(ofRowAt: TablePath(row: r, section: t), in: self) { measuredHeights.forget(identity) }
            }
        }
    }

    // MARK: The reader's place

    /// Scrolls so that the window starts `offset` below the top of a row's
    /// span (above it, for a negative offset), held there while the rows
    /// entering the window are measured (within the content): where a
    /// restored state puts the reader back.
    ///
    /// - Throws: ``TableViewError/invalidIndexPath(_:sectionCount:rowCount:)``
    ///   for a row that does not exist; ``TableViewError/invalidGeometry(_:)``
    ///   for an offset that is not finite, or such a height given for a row
    ///   entering the window; what the data source throws making a cell
    ///   (nothing moves).
    /// - Complexity: O(*w* log *n*) for a window of *w* rows.
    package func scroll(toRow path: TablePath, offsetIntoRow offset: Double) throws {
        guard !isBusy else { throw TableViewError.busy }
        try check(path)
        try checkGeometrySettings()
        guard offset.isFinite else { throw TableViewError.invalidGeometry(TableGeometryError(quantity: "the offset into row \(path)", value: offset)) }
        defer { displayIfNeeded() }
        let old = contentOffset
        // The row's own height, when its object's is known: the offset is into that.
        let oldHeight = layout.span(ofRow: path).height
        if let h = rememberedHeight(ofRowAt: path), h != oldHeight { layout.setHeight(h, ofRow: path) }
        let anchor = _Anchor.row(path, -offset)
        contentOffset = anchoredOffset(anchor)
        do {
            try fillWindow(leaving: [], anchor: anchor)
        } catch {
            layout.setHeight(oldHeight, ofRow: path)
            contentOffset = old
            throw error
        }
        updatePrefetching(scrolledBy: contentOffset - old)
        if contentOffset != old { endSwipe(at: swipe.open?.row) }
    }

    // MARK: Measuring again

    /// Measures the rows again — after a change of width, say, that changes
    /// every row's height (TanStack Virtual's `measure()`): the heights kept
    /// by identity are let go, the window's rows are measured again at once
    /// (the delegate's heights asked, the cells measured) and the first
    /// visible row keeps its place in the window; every other row is
    /// measured when it is shown.
    ///
    /// - Throws: ``TableViewError/invalidGeometry(_:)`` for a height that is
    ///   NaN, infinite or negative, or what the data source throws making a
    ///   cell for a row entering the window: the window's heights are put
    ///   back (the heights kept are let go all the same).
    /// - Complexity: O(*w* log *n*) for a window of *w* rows.
    public func invalidateRowHeights() throws {
        guard !isBusy else { throw TableViewError.busy }
        try checkGeometrySettings()
        measuredHeights.removeAll()
        defer { displayIfNeeded() }
        let anchor: _Anchor = anchoring == .bottom && isAtBottom ? .bottom : windowRows.first.map { .row($0, layout.span(ofRow: $0).y - contentOffset) } ?? .offset
        var old: [(TablePath, Double)] = []
        do {
            for path in windowRows {
                guard let cell = cells[path] else { continue }
                let height = try measuredHeight(of: cell, at: path, remembered: false), before = layout.span(ofRow: path).height
                if height != before {
                    old.append((path, before))
                    layout.setHeight(height, ofRow: path)
                }
            }
            let oldOffset = contentOffset
            contentOffset = anchoredOffset(anchor)
            do {
                try fillWindow(leaving: [], anchor: anchor)
            } catch {
                contentOffset = oldOffset
                throw error
            }
        } catch {
            for (path, height) in old.reversed() { layout.setHeight(height, ofRow: path) }
            throw error
        }
    }
}
