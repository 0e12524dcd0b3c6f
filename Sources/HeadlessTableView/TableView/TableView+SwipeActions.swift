import TableDiff

// Swipe actions: what a UI layer calls for a user's swipe, and how the
// swiped row follows the table's changes. The delegate gives the actions
// (`TableViewDelegate`'s swipe methods, defaults below); the frame shows them
// (`TableFrame.swipedRow`), and `TextRenderer` draws them.

extension TableViewDelegate {
    public func tableView(_ tableView: TableView, leadingSwipeActionsConfigurationForRowAt indexPath: TablePath) -> SwipeActionsConfiguration? { nil }
    public func tableView(_ tableView: TableView, trailingSwipeActionsConfigurationForRowAt indexPath: TablePath) -> SwipeActionsConfiguration? { nil }
    public func tableView(_ tableView: TableView, willBeginEditingRowAt indexPath: TablePath) {}
    public func tableView(_ tableView: TableView, didEndEditingRowAt indexPath: TablePath?) {}
}

/// The row whose swipe actions are open, and the session that tells a late
/// completion from a current one.
struct _SwipeActions {
    struct Open {
        var row: TablePath
        var edge: TableView.SwipeActionsEdge
        var configuration: SwipeActionsConfiguration
        /// The action whose handler has not called its completion yet.
        var performing: Int?
    }

    var open: Open?
    /// Counts opens and closes: a completion of an earlier session is ignored.
    var session = 0
}

extension TableView {
    /// The edge of a row a user swipes from, and whose actions then show.
    public enum SwipeActionsEdge: String, Hashable, Sendable, CaseIterable {
        /// The leading edge (the left in a left-to-right language): the
        /// delegate's ``TableViewDelegate/tableView(_:leadingSwipeActionsConfigurationForRowAt:)``.
        case leading
        /// The trailing edge: the delegate's
        /// ``TableViewDelegate/tableView(_:trailingSwipeActionsConfigurationForRowAt:)``,
        /// by default a Delete action.
        case trailing
    }

    /// A row showing its swipe actions, as a value: the row, the edge, and
    /// each action's title and style, the first at the row's edge.
    public struct SwipedRow: Hashable, Sendable {
        /// An action's button.
        public struct Action: Hashable, Sendable {
            public var title: String?
            public var style: ContextualAction.Style

            public init(title: String?, style: ContextualAction.Style) {
                self.title = title
                self.style = style
            }
        }

        public var indexPath: TablePath
        public var edge: SwipeActionsEdge
        /// The actions' buttons, the first at the row's edge.
        public var actions: [Action]
        /// The action being performed — its handler has not called its
        /// completion yet — if any.
        public var performingActionIndex: Int?

        public init(indexPath: TablePath, edge: SwipeActionsEdge, actions: [Action], performingActionIndex: Int? = nil) {
            self.indexPath = indexPath
            self.edge = edge
            self.actions = actions
            self.performingActionIndex = performingActionIndex
        }
    }

    /// The row showing its swipe actions, if any: at most one row at a time,
    /// always a row in the window.
    public var swipedRow: SwipedRow? {
        guard let open = swipe.open else { return nil }
        return SwipedRow(
            indexPath: open.row, edge: open.edge,
            actions: open.configuration.actions.map { SwipedRow.Action(title: $0.title, style: $0.style) },
            performingActionIndex: open.performing)
    }

    /// The actions a row shows when swiped from an edge: the delegate's
    /// configuration; for the trailing edge without one, a Delete action when
    /// the data source can edit the row and its editing style is `.delete`
    /// (as UIKit); nil when there are none.
    func swipeActionsConfiguration(_ edge: SwipeActionsEdge, forRowAt path: TablePath) -> SwipeActionsConfiguration? {
        let given: SwipeActionsConfiguration?
        switch edge {
        case .leading: given = delegate?.tableView(self, leadingSwipeActionsConfigurationForRowAt: path)
        case .trailing: given = delegate?.tableView(self, trailingSwipeActionsConfigurationForRowAt: path)
        }
        if let given { return given.actions.isEmpty ? nil : given }
        guard edge == .trailing, let dataSource, dataSource.tableView(self, canEditRowAt: path),
            (delegate?.tableView(self, editingStyleForRowAt: path) ?? .delete) == .delete
        else { return nil }
        return SwipeActionsConfiguration(actions: [ContextualAction(deleteTitled: "Delete")])
    }

    // MARK: A user's swipe

    /// The user swipes a row open from an edge: the row shows the actions the
    /// delegate gives for that edge (see
    /// ``TableViewDelegate/tableView(_:trailingSwipeActionsConfigurationForRowAt:)``).
    /// A row swiped open before closes first — one row at a time. In editing
    /// mode, and for an edge without actions, nothing opens.
    ///
    /// The delegate hears of it (``TableViewDelegate/tableView(_:willBeginEditingRowAt:)``),
    /// and the renderer gets a frame whose ``TableFrame/swipedRow`` is the row.
    /// Swiping the row that is open, from the same edge, changes nothing.
    ///
    /// - Returns: whether the row now shows actions.
    /// - Throws: ``TableViewError/invalidIndexPath(_:sectionCount:rowCount:)``
    ///   for a row that does not exist; ``TableViewError/invalidSwipeAction(_:)``
    ///   with ``SwipeActionError/rowNotVisible(_:)`` for one outside the window;
    ///   ``TableViewError/busy`` while the table asks for a cell. Nothing changes then.
    @discardableResult
    public func openSwipeActions(_ edge: SwipeActionsEdge, forRowAt path: TablePath) throws(TableViewError) -> Bool {
        guard !isBusy else { throw .busy }
        try check(path)
        guard windowRows.contains(path) else { throw .invalidSwipeAction(.rowNotVisible(path)) }
        if let open = swipe.open, open.row == path, open.edge == edge { return true }
        defer { displayIfNeeded() }
        if let open = swipe.open { endSwipe(at: open.row) }
        guard !isEditing, let configuration = swipeActionsConfiguration(edge, forRowAt: path) else { return false }
        // The delegate may have changed the table meanwhile: the row must still be on screen.
        guard swipe.open == nil, isValid(path), windowRows.contains(path) else { return false }
        swipe.session += 1
        swipe.open = _SwipeActions.Open(row: path, edge: edge, configuration: configuration)
        delegate?.tableView(self, willBeginEditingRowAt: path)
        return true
    }

    /// The user taps an action of the swiped row: its handler runs, once.
    ///
    /// When the handler calls its completion with `true`, the row closes (if
    /// the action deleted the row, it closed with the update); with `false`,
    /// the row stays open and its actions can be performed again. Until the
    /// completion is called, the row's actions cannot be performed
    /// (``SwipeActionError/actionInProgress(index:row:)``); the row may still
    /// close meanwhile (a tap elsewhere, a scroll, an update that deletes
    /// it), and the completion then changes nothing. A second call of a
    /// completion is ignored.
    ///
    /// The table's own Delete action commits `.delete` through the data
    /// source — ``commit(_:forRowAt:)``, as before swipe actions: the data
    /// source removes the object and the row.
    ///
    /// - Throws: ``TableViewError/invalidSwipeAction(_:)``:
    ///   ``SwipeActionError/noSwipedRow`` when no row is open,
    ///   ``SwipeActionError/noSuchAction(index:count:row:)``,
    ///   ``SwipeActionError/actionInProgress(index:row:)`` (nothing changes);
    ///   for the Delete action, what ``commit(_:forRowAt:)`` throws (the row stays open).
    public func performSwipeAction(at index: Int) throws {
        guard !isBusy else { throw TableViewError.busy }
        guard let open = swipe.open else { throw TableViewError.invalidSwipeAction(.noSwipedRow) }
        if let performing = open.performing { throw TableViewError.invalidSwipeAction(.actionInProgress(index: performing, row: open.row)) }
        let actions = open.configuration.actions
        guard actions.indices.contains(index) else {
            throw TableViewError.invalidSwipeAction(.noSuchAction(index: index, count: actions.count, row: open.row))
        }
        defer { displayIfNeeded() }
        let action = actions[index], session = swipe.session
        if action.commitsDelete {
            try commit(.delete, forRowAt: open.row)
            if swipe.session == session { closeSwipeActions() }
            return
        }
        swipe.open?.performing = index
        action.handler(action) { [weak self] performed in
            self?.swipeActionDidComplete(session: session, index: index, performed: performed)
        }
    }

    /// The user swipes a row all the way from an edge: its actions open, and
    /// the first one is performed (``performSwipeAction(at:)``) when the
    /// configuration's ``SwipeActionsConfiguration/performsFirstActionWithFullSwipe``
    /// is on (the default); otherwise the row just shows its actions.
    ///
    /// - Returns: whether an action was performed.
    /// - Throws: what ``openSwipeActions(_:forRowAt:)`` and
    ///   ``performSwipeAction(at:)`` throw;
    ///   ``SwipeActionError/actionInProgress(index:row:)`` when the row is
    ///   open at this edge with an action being performed.
    @discardableResult
    public func performFullSwipe(_ edge: SwipeActionsEdge, forRowAt path: TablePath) throws -> Bool {
        if let open = swipe.open, open.row == path, open.edge == edge, let performing = open.performing {
            throw TableViewError.invalidSwipeAction(.actionInProgress(index: performing, row: path))
        }
        guard try openSwipeActions(edge, forRowAt: path), let open = swipe.open, open.configuration.performsFirstActionWithFullSwipe else {
            return false
        }
        try performSwipeAction(at: 0)
        return true
    }

    /// Closes the swiped row, if any (the user taps elsewhere, or swipes it
    /// back); the delegate hears of it
    /// (``TableViewDelegate/tableView(_:didEndEditingRowAt:)``). An action
    /// still being performed goes on; its completion changes nothing.
    public func closeSwipeActions() {
        guard let open = swipe.open else { return }
        endSwipe(at: open.row)
        displayIfNeeded()
    }

    /// Ends the swipe session: the row (nil when its path no longer names
    /// it) is told to the delegate. The caller displays the frame.
    func endSwipe(at path: TablePath?) {
        guard takeSwipe() else { return }
        delegate?.tableView(self, didEndEditingRowAt: path)
    }

    /// Ends the swipe session without telling the delegate (yet): whether a row was open.
    func takeSwipe() -> Bool {
        guard swipe.open != nil else { return false }
        swipe.open = nil
        swipe.session += 1
        return true
    }

    /// A handler called its completion.
    func swipeActionDidComplete(session: Int, index: Int, performed: Bool) {
        guard swipe.session == session, let open = swipe.open, open.performing == index else { return }   // late, or a second call
        if performed {
            endSwipe(at: open.row)
        } else {
            swipe.open?.performing = nil
        }
        displayIfNeeded()
    }

    // MARK: Following the table

    /// After a batch: the swiped row follows its row; it closes when the row
    /// was deleted or reloaded (the delegate hears of a nil row), or when it
    /// left the window.
    func followSwipedRow(_ mapping: BatchMapping) {
        guard let open = swipe.open else { return }
        guard !mapping.isRowReloaded(old: open.row), let new = mapping.newIndexPath(forOld: open.row) else { return endSwipe(at: nil) }
        swipe.open?.row = new
        if !windowRows.contains(new) { endSwipe(at: new) }
    }

    /// After the window changed in place (a new viewport height, heights
    /// measured again): the swiped row closes if it left the window.
    func closeSwipedRowIfOffScreen() {
        guard let open = swipe.open, !windowRows.contains(open.row) else { return }
        endSwipe(at: open.row)
    }

    /// Traps when the swiped row is not a row of the window, or its actions
    /// are none (debug builds).
    func _checkSwipeInvariants() {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        guard let open = swipe.open else { return }
        precondition(isValid(open.row) && windowRows.contains(open.row), "the swiped row \(open.row) is not in the window")
        precondition(!open.configuration.actions.isEmpty, "a swiped row without actions")
        if let performing = open.performing { precondition(open.configuration.actions.indices.contains(performing), "performing action \(performing)") }
        #endif
    }
}
