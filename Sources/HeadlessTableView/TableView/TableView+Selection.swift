import TableDiff
import Foundation

extension TableView {
    // MARK: Selection

    /// The selected row (the first, with multiple selection), if any.
    ///
    /// A data source that keeps the selection by identity
    /// (`FetchedResultsTableBinding`) answers where its selected objects are now.
    public var indexPathForSelectedRow: TablePath? { selectionKeeper.map { $0._indexPathForSelectedRow(in: self) } ?? selected.min() }

    /// The selected rows, in order.
    ///
    /// - Complexity: O(*k* log *k*) for *k* selected rows (for a binding's
    ///   selection by identity, O(*k* log *n*), or every row for a selection
    ///   of all but some).
    public var indexPathsForSelectedRows: [TablePath] { selectedRowsInOrder }

    /// Selects a row from code — no delegate method is called; nil deselects
    /// every row. With single selection, the row replaces the selection.
    ///
    /// - Throws: ``TableViewError/invalidIndexPath(_:sectionCount:rowCount:)``.
    public func selectRow(at path: TablePath?, scrollPosition: ScrollPosition = .none) throws {
        defer { displayIfNeeded() }
        guard let path else {
            deselectAllRows()
            return
        }
        try check(path)
        guard allowsSelection else { return }
        if !allowsMultipleSelection { deselectAllRows() }
        setRowSelected(path)
        if scrollPosition != .none { try scrollToRow(at: path, at: scrollPosition) }
    }

    /// Deselects a row from code (no delegate method is called).
    public func deselectRow(at path: TablePath) {
        defer { displayIfNeeded() }
        guard isValid(path) else {
            selected.remove(path)
            return
        }
        setRowDeselected(path)
    }

    /// What a tap on a row does: `willSelectRowAt` may redirect or refuse the
    /// selection, the previous selection is deselected (single selection; the
    /// delegate hears of it), the row is selected, and `didSelectRowAt` follows.
    /// With multiple selection, a tap on a selected row deselects it.
    ///
    /// A tap on a parent row of an outline (a section a
    /// ``TableViewDiffableDataSource`` shows from a `TableSectionSnapshot`)
    /// expands or collapses it instead, as the data source's
    /// ``TableViewDiffableDataSource/sectionSnapshotHandlers`` allow — UIKit's
    /// outline disclosure of the header style — and does not select it.
    ///
    /// - Throws: ``TableViewError/invalidIndexPath(_:sectionCount:rowCount:)``;
    ///   for a parent row, what expanding or collapsing it throws.
    public func tapRow(at path: TablePath) throws {
        defer { displayIfNeeded() }
        try check(path)
        // A tap while a row shows its swipe actions closes it, and selects nothing (UIKit).
        if swipe.open != nil { return endSwipe(at: swipe.open?.row) }
        if !isEditing, let outlines = dataSource as? any _OutlineTapHandling, try outlines.tableView(self, toggleOutlineAt: path) { return }
        guard allowsSelection, !isEditing else { return }
        if allowsMultipleSelection, isRowSelected(path) {
            try userDeselect(path)
            return
        }
        let target = delegate.map { $0.tableView(self, willSelectRowAt: path) } ?? path
        guard let target else { return }
        try check(target)
        if !allowsMultipleSelection {
            for row in selectedRowsInOrder where row != target { try userDeselect(row) }
        }
        guard !isRowSelected(target) else { return }
        setRowSelected(target)
        delegate?.tableView(self, didSelectRowAt: target)
    }

    func userDeselect(_ path: TablePath) throws {
        let target = delegate.map { $0.tableView(self, willDeselectRowAt: path) } ?? path
        guard let target, isValid(target), isRowSelected(target) else { return }
        setRowDeselected(target)
        delegate?.tableView(self, didDeselectRowAt: target)
    }

    // MARK: Editing

    /// Turns editing mode on or off (cells show it through ``TableViewCell/isEditing``).
    public func setEditing(_ editing: Bool) {
        defer { displayIfNeeded() }
        endSwipe(at: swipe.open?.row)
        isEditing = editing
        for cell in cells.values { cell.isEditing = editing }
    }

    /// What a swipe-to-delete (or an insert control) does: the data source
    /// commits the edit — removing the object and the row through the normal
    /// update path. Afterwards the table's counts must agree with the data
    /// source's.
    ///
    /// - Throws: ``TableViewError/notEditable(_:)`` when `canEditRowAt` says no;
    ///   what the data source throws; ``TableViewError/inconsistentUpdate(_:)``
    ///   when the data source changed its counts without updating the table.
    public func commit(_ style: EditingStyle, forRowAt path: TablePath) throws {
        try check(path)
        guard let dataSource else { throw TableViewError.noDataSource }
        guard dataSource.tableView(self, canEditRowAt: path) else { throw TableViewError.notEditable(path) }
        try dataSource.tableView(self, commit: style, forRowAt: path)
        try checkCountsAgree()
    }

    /// The user moved a row (a drag in editing mode, dropped at `destination`:
    /// where the row is after the move). See `TableView+Reordering.swift`.
    ///
    /// - Throws: ``TableViewError/notEditing`` outside editing mode;
    ///   ``TableViewError/notMovable(_:)`` when `canMoveRowAt` says no;
    ///   ``TableViewError/invalidIndexPath(_:sectionCount:rowCount:)`` for a
    ///   source, or a destination (proposed, or the delegate's), outside the table;
    ///   ``TableViewError/userMoveInsideBatch`` inside a batch;
    ///   ``TableViewError/inconsistentUpdate(_:)`` when the model's counts do not follow.
    public func moveRowByUser(from source: TablePath, to destination: TablePath) throws {
        try performUserMove(from: source, to: destination)
    }

    /// Throws when the data source's counts are not the table's.
    func checkCountsAgree() throws {
        guard updateDepth == 0, let dataSource else { return }
        let counts = try Self.counts(of: dataSource, in: self)
        guard counts != rowCounts else { return }
        do throws(BatchUpdateError) {
            _ = try BatchUpdate().validate(rowCountsBefore: rowCounts, rowCountsAfter: counts)
        } catch {
            throw TableViewError.inconsistentUpdate(error)
        }
    }
}
