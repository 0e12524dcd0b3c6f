import FetchedResults
import Foundation
import HeadlessTableView
import PredicateFormat
import Records
import TableDiff

extension TableViewDiffableDataSource where SectionIdentifierType == String {
    /// Shows a fetched results controller's results and follows its changes,
    /// at the cost of each change: the one line that drives a diffable data
    /// source from Core Data's controller.
    ///
    /// ```swift
    /// let dataSource = try TableViewDiffableDataSource<String, Note.ID>(tableView: table) { table, indexPath, id in … }
    /// try dataSource.follow(controller)
    /// ```
    ///
    /// The data source observes the controller (beside its delegate, see
    /// `FetchedResultsController.addObserver(_:)`), fetches if the controller has not, and
    /// shows its results: sections by name, rows by object identity. After
    /// every change it performs one checked batch built from the controller's
    /// own report of what changed — no snapshot is built and nothing is diffed,
    /// so a save of *k* objects costs O(*k* log *n* + *s*) plus the window, as
    /// with `FetchedResultsTableBinding`. The objects that changed are
    /// reconfigured in place; with `FetchedResultsController.changedObjectsInSnapshots`
    /// `.reload`, a change made only of edits reloads them instead (a row that
    /// also moves is reconfigured: UIKit cannot reload and move one row in one
    /// batch).
    ///
    /// While it follows, ``snapshot()`` is built from the controller's results
    /// when asked (O(*n*)), and applying snapshots or moving rows by hand throws
    /// ``TableViewDiffableDataSourceError/following``. ``stopFollowing()`` ends it.
    ///
    /// A change that the table refuses or that the cell provider fails on
    /// reloads the table from the controller; the error goes to
    /// ``followErrorHandler``, or when there is none is kept in
    /// ``lastFollowError`` until a later change applies. A change the
    /// controller could not follow (its predicate failed on a changed record)
    /// is reported the same way; the table stays as it was.
    ///
    /// - Throws: what `performFetch()` throws, or the table's reload.
    public func follow<R: Record & Codable>(_ controller: FetchedResultsController<R>, animatingDifferences: Bool = true) throws
    where ItemIdentifierType == R.ID {
        stopFollowing()
        if controller.sections == nil { try controller.performFetch() }
        let follower = _ControllerFollower(controller: controller, animatingDifferences: animatingDifferences)
        follower.dataSource = self
        controller.addObserver(follower)
        live = follower.source
        try tableView?.reloadData()
    }
}

extension TableViewDiffableDataSource {
    /// Stops following the controller given to `follow(_:animatingDifferences:)`:
    /// the data source stops observing the controller, and keeps what the
    /// table shows as its snapshot (built now, O(*n*)).
    public final func stopFollowing() {
        guard let live else { return }
        show(live.snapshot())
        live.stop()
        self.live = nil
    }
}

/// A fetched results controller's results as a data source's rows, and an
/// observer of it: each change it reports becomes one checked batch.
final class _ControllerFollower<R: Record & Codable>: FetchedResultsControllerDelegate {
    typealias Object = R
    weak var dataSource: TableViewDiffableDataSource<String, R.ID>?
    let controller: FetchedResultsController<R>
    let animatingDifferences: Bool
    var change = _ReportedChange()

    init(controller: FetchedResultsController<R>, animatingDifferences: Bool) {
        self.controller = controller
        self.animatingDifferences = animatingDifferences
    }

    // MARK: The rows

    /// The controller's rows, as the data source reads them (the source keeps
    /// this follower, the controller's observer, alive while it follows).
    var source: _LiveSource<String, R.ID> {
        let controller = controller
        return _LiveSource(
            numberOfSections: { controller.numberOfSections },
            numberOfRows: { controller.numberOfObjects(inSection: $0) },
            numberOfRowsInSections: { controller.numberOfObjectsInSections },
            item: { controller.objectID(at: $0) },
            section: { controller.name(ofSection: $0) },
            indexPath: { controller.indexPath(forObjectWithID: $0) },
            index: { section in (0..<controller.numberOfSections).first { controller.name(ofSection: $0) == section } },
            // Section names are unique unless a change broke the sections' order
            // (the controller reports it in its `lastError`); a snapshot cannot
            // hold a name twice, so it is then empty.
            snapshot: { (try? controller.snapshot()) ?? TableSnapshot() },
            stop: { controller.removeObserver(self) })
    }

    // MARK: The controller's changes

    func controllerWillChangeContent(_ controller: FetchedResultsController<R>) { change = _ReportedChange() }

    func controller(_ controller: FetchedResultsController<R>, didChange section: FetchedResultsSectionInfo<R>, atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        change.section(at: sectionIndex, type)
    }

    func controller(_ controller: FetchedResultsController<R>, didChange object: R, at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?) {
        change.object(at: indexPath, type, newIndexPath: newIndexPath)
    }

    func controllerDidChangeContent(_ controller: FetchedResultsController<R>) {
        guard let dataSource else { return }
        let (update, reconfigure) = change.batch(reloadingEdits: controller.changedObjectsInSnapshots == .reload)
        change = _ReportedChange()
        dataSource.performFollowedChange(update, reconfiguring: reconfigure, animatingDifferences: animatingDifferences)
    }

    /// A change the controller could not follow: it and the table stay as
    /// they were; the error is reported as a refused change's is.
    func controller(_ controller: FetchedResultsController<R>, didFailWith error: FetchError) {
        change = _ReportedChange()
        dataSource?.report(followError: error)
    }
}

extension TableViewDiffableDataSource {
    /// Performs a followed controller's change as one checked batch; on
    /// failure the table reloads from the controller, and the error is reported.
    func performFollowedChange(_ update: BatchUpdate, reconfiguring: [TablePath], animatingDifferences: Bool) {
        guard let tableView else { return }
        do {
            try tableView.performBatchUpdates(update, reconfiguring: reconfiguring, animations: TableView.RowAnimations(animatingDifferences ? defaultRowAnimation : .none))
            report(followError: nil)
        } catch {
            do {
                try tableView.reloadData()
                report(followError: error)
            } catch let reload {
                report(followError: TableViewDiffableDataSourceError.restoreFailed(original: error, restoring: reload))
            }
        }
    }
}
