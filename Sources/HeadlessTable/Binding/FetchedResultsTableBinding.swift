import Foundation

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
/// into it — becomes one checked batch update: sections inserted and deleted,
/// rows deleted, inserted and moved, and every changed row's cell reconfigured
/// in place, so there is no configuring with stale paths and no update
/// colliding with a move. A change of updates alone is a reload of their
/// rows. Among other changes, an updated object is moved to its own index
/// path instead: Core Data reports an update when an object's path is the same before
/// and after, while UIKit places unmoved rows by filling in order — around
/// other changes, that can be another row's place. A row moving out of a deleted section or into an inserted one is a
/// delete and an insert, as UIKit needs. The cost is that of the change (the
/// controller's O(*k* log *n*)) plus the window.
///
/// Keep the binding: the table holds its data source weakly.
public final class FetchedResultsTableBinding<R: Record & Codable>: TableViewDataSource, FetchedResultsControllerDelegate {
    public typealias Object = R
    public typealias CellProvider = (TableView, TablePath, R) throws -> TableViewCell

    public let controller: FetchedResultsController<R>
    public private(set) weak var tableView: TableView?
    let cellProvider: CellProvider
    /// Called for a swipe-to-delete: delete the object and save (or process
    /// pending changes); the table follows through the controller. Nil: rows
    /// cannot be deleted.
    public var onDelete: ((R) throws -> Void)?
    /// The last change that could not be applied as a batch update (the table
    /// reloaded instead) — never expected; kept to be looked at.
    public internal(set) var lastError: (any Error)?

    var pending = BatchUpdate()
    var pendingReconfigure: [TablePath] = []

    /// Connects `controller` to `tableView`, fetches if it has not, and loads the table.
    public init(controller: FetchedResultsController<R>, tableView: TableView, cell: @escaping CellProvider) throws {
        self.controller = controller
        self.tableView = tableView
        cellProvider = cell
        controller.delegate = self
        if controller.sections == nil { try controller.performFetch() }
        tableView.dataSource = self
        try tableView.reloadData()
    }

    // MARK: Data source

    public func numberOfSections(in tableView: TableView) -> Int { controller.numberOfSections }

    public func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        controller.numberOfObjects(inSection: section)
    }

    public func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
        try cellProvider(tableView, indexPath, try controller.object(at: indexPath))
    }

    public func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? {
        guard controller.sectionNameKeyPath != nil, let sections = controller.sections, sections.indices.contains(section) else { return nil }
        return sections[section].name
    }

    public func sectionIndexTitles(for tableView: TableView) -> [String]? {
        controller.sectionNameKeyPath == nil ? nil : controller.sectionIndexTitles
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
        pending = BatchUpdate()
        pendingReconfigure = []
    }

    public func controller(_ controller: FetchedResultsController<R>, didChange section: FetchedResultsSectionInfo<R>, atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        switch type {
        case .insert: pending.insertSections([sectionIndex])
        case .delete: pending.deleteSections([sectionIndex])
        default: break
        }
    }

    public func controller(_ controller: FetchedResultsController<R>, didChange object: R, at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?) {
        switch (type, indexPath, newIndexPath) {
        case (.insert, _, let new?):
            pending.insertRows(at: [new])
        case (.delete, let old?, _):
            pending.deleteRows(at: [old])
        case (.update, let old?, _), (.move, let old?, _):
            // Core Data's update is an object at the same index path before and
            // after — numbers only: its section may even be deleted and another
            // inserted at that index. UIKit places an unmoved row by filling in
            // order, which changes around it can make another place; a move to
            // its own path pins it.
            let new = type == .move ? newIndexPath ?? old : old
            // Sections come first in Core Data's order, so they are known here.
            if pending.deletedSections.contains(old.section) || pending.insertedSections.contains(new.section) {
                pending.deleteRows(at: [old])
                pending.insertRows(at: [new])
            } else {
                pending.moveRow(at: old, to: new)
                pendingReconfigure.append(new)
            }
        default:
            break
        }
    }

    public func controllerDidChangeContent(_ controller: FetchedResultsController<R>) {
        guard let tableView else { return }
        var update = pending, reconfigure = pendingReconfigure
        if update.changeCount == update.movedRows.count, update.movedRows.allSatisfy({ $0.from == $0.to }) {
            // Only updates: nothing around them to misplace a row, so they are
            // UIKit's reloads, as the Core Data table code has them.
            update = BatchUpdate()
            update.reloadRows(at: pending.movedRows.map(\.from))
            reconfigure = []
        }
        pending = BatchUpdate()
        pendingReconfigure = []
        do {
            try tableView.performBatchUpdates {
                tableView.pendingUpdate.merge(update)
                try tableView.reconfigureRows(at: reconfigure)
            }
        } catch {
            lastError = error
            try? tableView.reloadData()
        }
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
