import FetchedResults
import Foundation
import HeadlessTableView
import Records
import TableDiff

// The selection by identity: the binding keeps the table's selection as the
// identities of the objects selected — some, or all but some — so that it
// follows its objects through every change, a reload and a new request, and
// selecting every row of a million costs O(1).

/// Why a binding could not select what it was asked to.
public enum TableSelectionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No object with this identity is in the results (its description).
    case noSuchObject(String)
    /// The table does not allow selection (`TableView.allowsSelection` is off).
    case selectionNotAllowed
    /// Selecting every object needs multiple selection (`TableView.allowsMultipleSelection`).
    case multipleSelectionNotAllowed

    public var description: String {
        switch self {
        case .noSuchObject(let id):
            return "no object with identity \(id) in the results: select an object the controller's results hold"
        case .selectionNotAllowed:
            return "the table does not allow selection: set allowsSelection on the table first"
        case .multipleSelectionNotAllowed:
            return "selecting every object needs multiple selection: set allowsMultipleSelection on the table first"
        }
    }
}

extension FetchedResultsTableBinding {
    /// Selects an object from code, by identity — as `selectRow(at:)` does,
    /// no delegate method is called; with single selection it replaces the
    /// selection. The selection follows the object wherever it goes: moved
    /// or re-sectioned by a save, rows inserted and deleted around it, a
    /// reload, a new request; it leaves the selection when it leaves the
    /// results.
    ///
    /// - Throws: ``TableSelectionError/noSuchObject(_:)`` for an identity the
    ///   results do not hold; ``TableSelectionError/selectionNotAllowed``
    ///   when the table does not allow selection. The selection stays as it was.
    /// - Complexity: O(log *n*) (to find the object), plus O(*w*) to show it
    ///   on the window's cells.
    public func selectObject(withID id: R.ID) throws(TableSelectionError) {
        guard tableView?.allowsSelection ?? true else { throw .selectionNotAllowed }
        guard let position = controller.position(ofObjectWithID: id) else { throw .noSuchObject("\(id)") }
        reconcileSelection()
        if !(tableView?.allowsMultipleSelection ?? true) { selection.removeAll() }
        selection.insert(id)
        rememberPosition(position, ofSelected: id)
        tableView?.selectionDidChange()
    }

    /// Deselects an object from code (no delegate method is called); nothing
    /// happens for one that is not selected.
    ///
    /// - Complexity: O(1), plus O(*w*) to show it on the window's cells.
    public func deselectObject(withID id: R.ID) {
        reconcileSelection()
        guard isObjectSelected(withID: id) else { return }
        selection.remove(id)
        tableView?.selectionDidChange()
    }

    /// Selects every object of the results — in O(1): the selection is then
    /// every object but those deselected since. Objects that come into the
    /// results later are not selected. UIKit has no select-all (apps select
    /// row by row); no delegate method is called.
    ///
    /// - Throws: ``TableSelectionError/multipleSelectionNotAllowed`` unless
    ///   the table allows multiple selection;
    ///   ``TableSelectionError/selectionNotAllowed`` when it allows none.
    /// - Complexity: O(1), plus O(*w*) to show it on the window's cells.
    public func selectAllObjects() throws(TableSelectionError) {
        if let tableView {
            guard tableView.allowsSelection else { throw .selectionNotAllowed }
            guard tableView.allowsMultipleSelection else { throw .multipleSelectionNotAllowed }
        }
        reconcileSelection()
        selection.selectAll()
        tableView?.selectionDidChange()
    }

    /// Deselects every object (no delegate method is called).
    ///
    /// - Complexity: O(1), plus O(*w*) to show it on the window's cells.
    public func deselectAllObjects() {
        reconcileSelection()
        selection.removeAll()
        tableView?.selectionDidChange()
    }

    /// Whether the object with an identity is selected (false for one the
    /// results do not hold).
    ///
    /// - Complexity: O(1) for an object selected by itself; for a selection
    ///   of every object, O(1) plus finding the object among the results
    ///   (O(log *n*)).
    public func isObjectSelected(withID id: R.ID) -> Bool {
        reconcileSelection()
        switch selection.mode {
        case .only: return selection.ids.contains(id)
        case .allBut: return !selection.ids.contains(id) && controller.containsObject(withID: id)
        }
    }

    /// The number of objects selected.
    ///
    /// - Complexity: O(1).
    public var numberOfSelectedObjects: Int {
        reconcileSelection()
        return selection.count(of: controller.numberOfRows)
    }

    /// The identities of the objects selected, in the table's order.
    ///
    /// - Complexity: O(*k* log *n*) for *k* objects selected by themselves,
    ///   to put them in order; for a selection of every object, each next
    ///   identity costs O(log *n*) as it is read.
    public var selectedObjectIDs: SelectedObjectIDs {
        reconcileSelection()
        return SelectedObjectIDs(binding: self)
    }

    /// The identities of a binding's selected objects, in the table's order
    /// (see ``FetchedResultsTableBinding/selectedObjectIDs``): read as they
    /// were when it was made.
    public struct SelectedObjectIDs: Sequence {
        enum Source {
            /// The selected objects' positions and identities, in order.
            case positions([(Int, R.ID)])
            /// Every position but those left out.
            case allBut(Set<R.ID>, count: Int, controller: FetchedResultsController<R>)
        }

        let source: Source

        init(binding: FetchedResultsTableBinding) {
            switch binding.selection.mode {
            case .only:
                let placed = binding.selection.ids.compactMap { id in binding.position(ofSelected: id).map { ($0, id) } }
                source = .positions(placed.sorted { $0.0 < $1.0 })
            case .allBut:
                source = .allBut(binding.selection.ids, count: binding.controller.numberOfRows, controller: binding.controller)
            }
        }

        public struct Iterator: IteratorProtocol {
            let source: Source
            var position = 0

            public mutating func next() -> R.ID? {
                switch source {
                case .positions(let placed):
                    guard position < placed.count else { return nil }
                    defer { position += 1 }
                    return placed[position].1
                case .allBut(let left, let count, let controller):
                    while position < count {
                        defer { position += 1 }
                        if let id = controller.objectID(atPosition: position), !left.contains(id) { return id }
                    }
                    return nil
                }
            }
        }

        public func makeIterator() -> Iterator { Iterator(source: source) }

        /// The number of identities.
        public var underestimatedCount: Int {
            switch source {
            case .positions(let placed): placed.count
            case .allBut(let left, let count, _): count - left.count
            }
        }
    }

    // MARK: Following the results

    /// After a fetch the binding did not make (the app's own
    /// `performFetch()`): the objects the new results do not hold leave the
    /// selection. Those that came into them are not known: in a selection
    /// of every object, they are selected.
    ///
    /// - Complexity: O(1) when the results are the binding's last; else O(*k*
    ///   log *n*) for *k* identities kept.
    func reconcileSelection() {
        guard selectionGeneration != controller.fetchGeneration else { return }
        selectionGeneration = controller.fetchGeneration
        let gone = selection.ids.filter { !controller.containsObject(withID: $0) }
        for id in gone { selection.objectLeft(id) }
    }

    /// Where a selected object is now: the position it was last found at
    /// when it is still there, else found among the results (and kept) —
    /// so that asking for the selected rows again and again (a key press
    /// each) finds them in O(1) until a change moves them.
    ///
    /// - Complexity: O(1) when the object has not moved since; else
    ///   O(log *n*).
    func position(ofSelected id: R.ID) -> Int? {
        if let hint = selectedPositions[id], controller.objectID(atPosition: hint) == id { return hint }
        guard let position = controller.position(ofObjectWithID: id) else {
            selectedPositions[id] = nil
            return nil
        }
        rememberPosition(position, ofSelected: id)
        return position
    }

    /// Keeps where a selected object was found (a hint, checked when used;
    /// at most `selectedPositionsCapacity` are kept).
    func rememberPosition(_ position: Int, ofSelected id: R.ID) {
        if selectedPositions.count >= Self.selectedPositionsCapacity, selectedPositions[id] == nil { selectedPositions.removeAll(keepingCapacity: true) }
        selectedPositions[id] = position
    }

    /// The most positions of selected objects kept.
    static var selectedPositionsCapacity: Int { 1024 }

    /// The rows of the main table selected after a change that deleted the
    /// one selected object, with `TableView.selectionFollowsDeletes`: the
    /// object now at its place.
    func selectObjectTakingThePlace(of old: TablePath, countsBefore: [Int]) {
        guard let place = TableView.rowTakingThePlace(of: old, countsBefore: countsBefore, countsAfter: controller.numberOfObjectsInSections),
            let id = controller.objectID(at: place)
        else { return }
        selection.insert(id)
    }
}

// MARK: The table asks

extension FetchedResultsTableBinding: _TableSelectionKeeping {
    package func _isRowSelected(at path: TablePath, in tableView: TableView) -> Bool {
        guard !selection.isNone, let id = controller.objectID(at: path) else { return false }
        reconcileSelection()
        return selection.contains(id)
    }

    package func _selectedRowTest(in tableView: TableView) -> (TablePath) -> Bool {
        reconcileSelection()
        let paths = selectedPathsIfFew()
        return { [controller, selection] path in
            if let paths { return paths.contains(path) }
            return controller.objectID(at: path).map { selection.contains($0) } ?? false
        }
    }

    /// The rows of the selected objects when they are few (at most 64, about
    /// a window's rows, or none): found once, for a pass over the window;
    /// nil when each row's object is better asked (more selected, or every
    /// object but some).
    private func selectedPathsIfFew() -> Set<TablePath>? {
        if selection.isNone { return [] }
        guard selection.mode == .only, selection.ids.count <= 64 else { return nil }
        return Set(selection.ids.compactMap { position(ofSelected: $0) }.map { controller.indexPath(ofPosition: $0) })
    }

    package func _selectRow(at path: TablePath, in tableView: TableView) {
        guard let position = controller.position(of: path), let id = controller.objectID(atPosition: position) else { return }
        reconcileSelection()
        selection.insert(id)
        rememberPosition(position, ofSelected: id)
    }

    package func _deselectRow(at path: TablePath, in tableView: TableView) {
        guard let id = controller.objectID(at: path) else { return }
        reconcileSelection()
        selection.remove(id)
    }

    package func _deselectAllRows(in tableView: TableView) {
        selection.removeAll()
    }

    package func _indexPathsForSelectedRows(in tableView: TableView) -> [TablePath] {
        reconcileSelection()
        switch selection.mode {
        case .only:
            return selection.ids.compactMap { position(ofSelected: $0) }.sorted().map { controller.indexPath(ofPosition: $0) }
        case .allBut:
            return (0..<controller.numberOfRows).compactMap { position in
                controller.objectID(atPosition: position).flatMap { selection.ids.contains($0) ? nil : controller.indexPath(ofPosition: position) }
            }
        }
    }

    package func _indexPathForSelectedRow(in tableView: TableView) -> TablePath? {
        reconcileSelection()
        switch selection.mode {
        case .only:
            return selection.ids.lazy.compactMap { self.position(ofSelected: $0) }.min().map { controller.indexPath(ofPosition: $0) }
        case .allBut:
            var position = 0
            while position < controller.numberOfRows {
                if let id = controller.objectID(atPosition: position), !selection.ids.contains(id) { return controller.indexPath(ofPosition: position) }
                position += 1
            }
            return nil
        }
    }
}

extension FetchedResultsTableBinding: _TableRowIdentities {
    package func _identity(ofRowAt path: TablePath, in tableView: TableView) -> AnyHashable? {
        controller.objectID(at: path).map(AnyHashable.init)
    }

    package func _indexPath(ofRowWithIdentity identity: AnyHashable, in tableView: TableView) -> TablePath? {
        guard let id = identity.base as? R.ID else { return nil }
        return controller.indexPathWithoutWaiting(forObjectWithID: id)
    }
}
