import FetchedResults
import Foundation
import HeadlessTableView
import PredicateFormat
import Records
import TableDiff

/// A fetched results controller connected to a table: the table's data source
/// and the controller's delegate — the code every Core Data app writes by hand,
/// written once.
///
/// ```swift
/// let binding = try table.bind(to: controller) { table, indexPath, entry in
///     let cell = try table.dequeueReusableCell(withIdentifier: "entry", for: indexPath)
///     cell.text = entry.text
///     return cell
/// }
/// binding.onDelete = { entry in try context.delete(entry.id); _ = try context.save() }
/// ```
///
/// Each change the controller reports — a save in its context, or one merged
/// into it — becomes one checked batch update, made with public API only
/// (`TableView/performBatchUpdates(_:reconfiguring:animations:)`): sections
/// inserted and deleted, rows deleted, inserted and moved, and every changed
/// row's cell reconfigured in place (a change of edits alone is a reload of
/// their rows, as Core Data table code has it). The controller reports an
/// update only where the row keeps its place, so nothing lands in another
/// row's place; a row moving out of a deleted section or into an inserted one
/// is a delete and an insert, as UIKit needs. The cost is that of the change
/// (the controller's O(*k* log *n*)) plus the window, and a pass over the
/// sections' counts, which the binding gives the table at once
/// (``numberOfRowsInSections(in:)``); a header title is O(1).
///
/// The binding observes the controller (`FetchedResultsController.addObserver(_:)`):
/// the controller's `delegate` stays the app's, and several bindings and
/// observers can follow one controller.
///
/// **Prefetching.** The binding is the table's prefetch data source too: the
/// rows the table announces (`TableView.prefetchDistance` beyond the window,
/// in the direction of the scroll) have their batch read ahead
/// (`FetchedResultsController.prefetchObjects(at:)`), so that with a
/// `fetchBatchSize` a scroll of up to the prefetch distance a step never reads
/// a batch on the step that shows its rows.
///
/// **Errors.** A change the table refuses, or one whose cells the cell
/// provider fails to make, leaves the table reloaded from the controller (so
/// that it shows the results); the error goes to ``onError`` and is kept in
/// ``lastError`` with its time, until a later change applies. So does a
/// change the controller could not follow (its predicate failed on a changed
/// record), which leaves the controller and the table as they were.
///
/// Keep the binding: the table holds its data source weakly.
public final class FetchedResultsTableBinding<R: Record & Codable>: TableViewDataSource, FetchedResultsControllerDelegate {
    public typealias Object = R
    public typealias CellProvider = (TableView, TablePath, R) throws -> TableViewCell

    /// A change that could not be applied as a batch update.
    public struct Failure: CustomStringConvertible {
        /// What the table or the cell provider threw.
        public var error: any Error
        /// What the reload after it threw, if it failed too (the table then
        /// shows the old counts until the next change or reload).
        public var reloadError: (any Error)?
        /// When it happened.
        public var date: Date

        public var description: String {
            "\(date): \(error)" + (reloadError.map { "; reloading failed too: \($0)" } ?? "")
        }
    }

    public let controller: FetchedResultsController<R>
    public private(set) weak var tableView: TableView?
    let cellProvider: CellProvider
    /// Called for a swipe-to-delete: delete the object and save (or process
    /// pending changes); the table follows through the controller. Nil: rows
    /// cannot be deleted.
    public var onDelete: ((R) throws -> Void)?
    /// Called with every change that could not be applied as a batch update
    /// (after the table reloaded).
    public var onError: ((Failure) -> Void)?
    /// The failure of the last change, or nil when it applied.
    public private(set) var lastError: Failure?
    /// How each kind of change shows; Apple's Core Data table template fades
    /// everything, and so does the binding unless told otherwise.
    public var rowAnimations = TableView.RowAnimations.fade
    /// Whether the table shows the controller's section index titles (true
    /// by default, as for a contacts list; a diary's months want none).
    /// Set it before the table is first shown, or reload the table.
    public var showsSectionIndex = true

    /// The keys the cells show (the names of the record's `recordKeys`): a
    /// visible row is reconfigured only when one of them changed — or when
    /// the controller does not know which keys changed. Nil (the default):
    /// every changed row is reconfigured. Realm's `observe(keyPaths:)` and
    /// DiffUtil's change payloads are the models.
    ///
    /// ```swift
    /// binding.shownKeys = ["name", "city"]   // a save of `age` alone leaves the cells as they are
    /// ```
    ///
    /// A row not reconfigured keeps its cell and its measured height.
    public var shownKeys: Set<String>?

    var change = _ReportedChange()
    /// The objects whose shown keys changed in the change being reported
    /// (their heights are measured again).
    var changedIdentities: [AnyHashable] = []
    /// The one selected object the change being reported deleted, at its
    /// index path before it (`TableView.selectionFollowsDeletes`).
    var deletedSelection: TablePath?
    /// How a user's move is written into the model; nil (the default): rows
    /// cannot be moved (`FetchedResultsTableBinding+Reordering.swift`).
    public var ordering: Ordering?
    /// The user's move being saved, while the controller reports it.
    var userMove: (from: TablePath, to: TablePath)?
    /// The objects selected, by identity (`FetchedResultsTableBinding+Selection.swift`).
    var selection = _IdentitySelection<R.ID>()
    /// Where selected objects were last found among the results, by
    /// identity (hints, checked when used: `position(ofSelected:)`).
    var selectedPositions: [R.ID: Int] = [:]
    /// The controller's fetch the selection was last reconciled with.
    var selectionGeneration = 0
    /// The search over this binding made last (its text and scope are part
    /// of the restorable state).
    weak var search: TableSearch<R>?

    /// Connects `controller` to `tableView`, fetches if it has not, and loads the table.
    public init(controller: FetchedResultsController<R>, tableView: TableView, cell: @escaping CellProvider) throws {
        self.controller = controller
        self.tableView = tableView
        cellProvider = cell
        if controller.sections == nil { try controller.performFetch() }
        selectionGeneration = controller.fetchGeneration
        controller.addObserver(self)
        tableView.dataSource = self
        tableView.prefetchDataSource = self
        try tableView.reloadData()
    }

    deinit { controller.removeObserver(self) }

    // MARK: Data source

    public func numberOfSections(in tableView: TableView) -> Int { controller.numberOfSections }

    public func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        controller.numberOfObjects(inSection: section)
    }

    public func numberOfRowsInSections(in tableView: TableView) -> [Int]? { controller.numberOfObjectsInSections }

    public func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
        try cellProvider(tableView, indexPath, try controller.object(at: indexPath))
    }

    public func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? {
        controller.sectionNameKeyPath == nil ? nil : controller.name(ofSection: section)
    }

    public func sectionIndexTitles(for tableView: TableView) -> [String]? {
        controller.sectionNameKeyPath == nil || !showsSectionIndex ? nil : controller.sectionIndexTitles
    }

    public func tableView(_ tableView: TableView, sectionForSectionIndexTitle title: String, at index: Int) -> Int {
        controller.section(forSectionIndexTitle: title, at: index) ?? 0
    }

    public func tableView(_ tableView: TableView, canEditRowAt indexPath: TablePath) -> Bool { onDelete != nil }

    public func tableView(_ tableView: TableView, commit editingStyle: TableView.EditingStyle, forRowAt indexPath: TablePath) throws {
        guard editingStyle == .delete, let onDelete else { return }
        try onDelete(try controller.object(at: indexPath))
    }

    // MARK: Controller delegate

    public func controllerWillChangeContent(_ controller: FetchedResultsController<R>) {
        change = _ReportedChange()
        changedIdentities = []
        deletedSelection = nil
        reconcileSelection()
    }

    public func controller(_ controller: FetchedResultsController<R>, didChange section: FetchedResultsSectionInfo<R>, atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        change.section(at: sectionIndex, type)
    }

    /// An object change: the batch collects it (its row reconfigured only
    /// when a key of ``shownKeys`` changed), and the selection follows it.
    public func controller(
        _ controller: FetchedResultsController<R>, didChange object: R, at indexPath: TablePath?, for type: FetchedResultsChangeType,
        newIndexPath: TablePath?, changedKeys: Set<String>?
    ) {
        let shows = _showsChange(changedKeys, shownKeys: shownKeys)
        change.object(at: indexPath, type, newIndexPath: newIndexPath, shows: shows)
        switch type {
        case .insert:
            selection.objectArrived(object.id)
        case .delete:
            if selection.mode == .only, selection.ids.count == 1, selection.ids.contains(object.id) { deletedSelection = indexPath }
            selection.objectLeft(object.id)
        case .update, .move:
            if shows { changedIdentities.append(AnyHashable(object.id)) }
        }
    }

    public func controllerDidChangeContent(_ controller: FetchedResultsController<R>) {
        guard let tableView else { return }
        let (update, reconfigure) = userMove.flatMap { change.batch(forUserMove: $0) } ?? change.batch(reloadingEdits: true)
        change = _ReportedChange()
        tableView.forgetMeasuredHeights(ofIdentities: changedIdentities)
        changedIdentities = []
        if let old = deletedSelection, tableView.selectionFollowsDeletes {
            selectObjectTakingThePlace(of: old, countsBefore: (0..<tableView.numberOfSections).map { tableView.numberOfRows(inSection: $0) })
        }
        deletedSelection = nil
        perform(update, reconfiguring: reconfigure, on: tableView)
    }

    /// A change the controller could not follow (its predicate failed on a
    /// changed record): the controller's results, and so the table, stay as
    /// they were; the error is recorded in ``lastError`` and reported to
    /// ``onError``, as a change the table refuses is.
    public func controller(_ controller: FetchedResultsController<R>, didFailWith error: FetchError) {
        change = _ReportedChange()
        let failure = Failure(error: error, reloadError: nil, date: Date())
        lastError = failure
        onError?(failure)
    }

    /// Performs a batch; when the table refuses it or a cell cannot be made,
    /// reloads, and records and reports the failure. Whether it applied.
    @discardableResult
    func perform(_ update: BatchUpdate, reconfiguring: [TablePath], on tableView: TableView) -> Bool {
        do {
            try tableView.performBatchUpdates(update, reconfiguring: reconfiguring, animations: rowAnimations)
            lastError = nil
            return true
        } catch {
            reload(tableView, after: error)
            return false
        }
    }

    /// Reloads the table (after a failed batch, or when a change is not one
    /// batch); a failure is recorded and reported.
    func reload(_ tableView: TableView, after error: (any Error)?) {
        let failure = Failure.reloading(tableView, after: error)
        lastError = failure
        if let failure { onError?(failure) }
    }
}

extension FetchedResultsTableBinding.Failure {
    /// Reloads `tableView` after `error` (a batch it refused), or after
    /// nothing (nil): the failure — that error, with the reload's if it
    /// failed too, or the reload's alone — or nil when there is none.
    static func reloading(_ tableView: TableView, after error: (any Error)?) -> Self? {
        var failure = error.map { Self(error: $0, reloadError: nil, date: Date()) }
        do {
            try tableView.reloadData()
        } catch {
            failure = Self(error: failure?.error ?? error, reloadError: failure == nil ? nil : error, date: Date())
        }
        return failure
    }
}

extension TableView {
    /// Connects a fetched results controller to this table (see
    /// ``FetchedResultsTableBinding``); keep the binding it returns.
    public func bind<R: Record & Codable>(
        to controller: FetchedResultsController<R>, cell: @escaping FetchedResultsTableBinding<R>.CellProvider
    ) throws -> FetchedResultsTableBinding<R> {
        try FetchedResultsTableBinding(controller: controller, tableView: self, cell: cell)
    }
}
