import FetchedResults
import Foundation
import HeadlessTableView
import Records
import TableDiff

/// Why a binding could not restore a saved state.
public enum TableRestorationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The offset into the first visible row is NaN or infinite.
    case invalidOffset(Double)
    /// A measured height is NaN, infinite or negative (the object's identity, the height).
    case invalidHeight(object: String, height: Double)
    /// The search scope is not one of the binding's search's scopes.
    case searchScopeOutOfRange(index: Int, scopeCount: Int)

    public var description: String {
        switch self {
        case .invalidOffset(let offset):
            return "the state's offset into the first visible row is \(offset): it must be a finite number"
        case let .invalidHeight(object, height):
            return "the state's height of object \(object) is \(height): heights must be finite numbers ≥ 0"
        case let .searchScopeOutOfRange(index, count):
            return "the state's search scope \(index) is not one of the search's \(count) scopes (0..<\(count))"
        }
    }
}

extension FetchedResultsTableBinding where R.ID: Codable {
    /// What a reader leaves in a table, as a value to save and restore in a
    /// later launch (UIKit's state restoration with
    /// `UIDataSourceModelAssociation`; Compose's saved `LazyListState` with
    /// item keys): the first visible object and how far into its row the
    /// window starts, the selection, the heights measured, by identity, and
    /// the search's text and scope.
    ///
    /// ```swift
    /// let saved = try JSONEncoder().encode(binding.restorableState)
    /// // … a later launch: a new store, controller, table and binding over the same data …
    /// try binding.restore(try JSONDecoder().decode(FetchedResultsTableBinding<Person>.RestorableState.self, from: saved))
    /// ```
    public struct RestorableState: Codable, Sendable {
        /// The selection: some objects, or every object but some.
        public enum Selection: Codable, Sendable, Equatable {
            /// These objects (in the table's order when saved).
            case objects([R.ID])
            /// Every object but these.
            case allObjectsExcept([R.ID])
        }

        /// The identity of the first visible object; nil for an empty table.
        public var firstVisibleObjectID: R.ID?
        /// The first visible object as it was: where the place comes back to
        /// when the object is gone since (the nearest following object).
        public var firstVisibleObject: R?
        /// How far below the top of the first visible object's row the
        /// window starts (negative when the window starts above it, in a header).
        public var offsetIntoFirstVisibleRow: Double
        /// The selected objects.
        public var selection: Selection
        /// The heights measured, by identity: the rows of these objects are
        /// not measured again.
        public var rowHeights: [R.ID: Double]
        /// The search's text (nil: no search on) and its scope.
        public var searchText: String?
        public var searchScopeIndex: Int

        public init(
            firstVisibleObjectID: R.ID?, firstVisibleObject: R?, offsetIntoFirstVisibleRow: Double, selection: Selection,
            rowHeights: [R.ID: Double], searchText: String?, searchScopeIndex: Int
        ) {
            self.firstVisibleObjectID = firstVisibleObjectID
            self.firstVisibleObject = firstVisibleObject
            self.offsetIntoFirstVisibleRow = offsetIntoFirstVisibleRow
            self.selection = selection
            self.rowHeights = rowHeights
            self.searchText = searchText
            self.searchScopeIndex = searchScopeIndex
        }
    }

    /// The table's state now, to save (see ``RestorableState``).
    ///
    /// - Complexity: O(*k* log *n* + *m*) for *k* objects selected (or left
    ///   out of a selection of every object) and *m* heights measured.
    public var restorableState: RestorableState {
        reconcileSelection()
        var firstID: R.ID?, first: R?, offset = 0.0
        if let table = tableView, let path = table.indexPathsForVisibleRows.first, let rect = table.rectForRow(at: path) {
            firstID = controller.objectID(at: path)
            first = try? controller.object(at: path)   // (the path is the window's: it exists)
            offset = table.contentOffset - rect.y
        }
        let selected: RestorableState.Selection
        switch selection.mode {
        case .only: selected = .objects(Array(selectedObjectIDs))
        case .allBut: selected = .allObjectsExcept(Array(selection.ids))
        }
        var heights: [R.ID: Double] = [:]
        for (identity, height) in tableView?.measuredHeightsByIdentity ?? [:] {
            if let id = identity.base as? R.ID { heights[id] = height }
        }
        let search = self.search
        return RestorableState(
            firstVisibleObjectID: firstID, firstVisibleObject: first, offsetIntoFirstVisibleRow: offset, selection: selected,
            rowHeights: heights, searchText: search?.text, searchScopeIndex: search?.selectedSearchScopeIndex ?? 0)
    }

    /// Restores a saved state — in a later launch, over a new store,
    /// controller and binding on the same data: the same first object at
    /// the same offset into its row, the same selection, the heights
    /// measured before (those rows are not measured again), and the search
    /// (when the binding has a `TableSearch`: make it first). Objects gone
    /// since are skipped: the nearest object following the first visible
    /// one takes its place, selected objects gone are not selected.
    ///
    /// - Throws: ``TableRestorationError`` for a value a state cannot hold
    ///   (nothing changes); what scrolling the table throws (the data
    ///   source failing on a cell: the heights are kept, nothing else
    ///   changes); what the search throws (the place and the selection are
    ///   restored).
    /// - Complexity: O(*w* log *n*) for a window of *w* rows, plus O(*k*
    ///   log *n* + *m*) for *k* selected objects (or left out of a selection
    ///   of every object) and *m* heights — never a pass over the rows.
    public func restore(_ state: RestorableState) throws {
        guard state.offsetIntoFirstVisibleRow.isFinite else { throw TableRestorationError.invalidOffset(state.offsetIntoFirstVisibleRow) }
        for (id, height) in state.rowHeights where !(height.isFinite && height >= 0) {
            throw TableRestorationError.invalidHeight(object: "\(id)", height: height)
        }
        if state.searchText != nil, let search, !search.scopes.isEmpty, !search.scopes.indices.contains(state.searchScopeIndex) {
            throw TableRestorationError.searchScopeOutOfRange(index: state.searchScopeIndex, scopeCount: search.scopes.count)
        }
        reconcileSelection()
        if let table = tableView {
            var heights: [AnyHashable: Double] = [:]
            heights.reserveCapacity(state.rowHeights.count)
            for (id, height) in state.rowHeights { heights[AnyHashable(id)] = height }
            table.rememberMeasuredHeights(heights)
            if let (position, kept) = anchorPosition(of: state) {
                // The object itself at its offset; the nearest following one at its top.
                try table.scroll(toRow: controller.indexPath(ofPosition: position), offsetIntoRow: kept ? state.offsetIntoFirstVisibleRow : 0)
            }
        }
        var restored = _IdentitySelection<R.ID>()
        switch state.selection {
        case .objects(let ids):
            for id in ids where controller.containsObject(withID: id) { restored.insert(id) }
        case .allObjectsExcept(let ids):
            restored.selectAll()
            for id in ids where controller.containsObject(withID: id) { restored.remove(id) }
        }
        selection = restored
        tableView?.selectionDidChange()
        if let search {
            if let text = state.searchText {
                if !search.scopes.isEmpty { try search.selectScope(at: state.searchScopeIndex) }
                try search.update(text: text)
            } else if search.isActive {
                search.cancel()
            }
        }
    }

    /// The position of the saved first visible object: where it is now
    /// (`kept`), or — gone — where the nearest following one is (the last
    /// row when none follows); nil for empty results.
    private func anchorPosition(of state: RestorableState) -> (position: Int, kept: Bool)? {
        let count = controller.numberOfRows
        guard count > 0 else { return nil }
        if let id = state.firstVisibleObjectID, let position = controller.position(ofObjectWithID: id) { return (position, true) }
        guard let record = state.firstVisibleObject else { return (0, false) }
        return (Swift.min(controller.position(ofFirstObjectOrderedAtOrAfter: record), count - 1), false)
    }
}
