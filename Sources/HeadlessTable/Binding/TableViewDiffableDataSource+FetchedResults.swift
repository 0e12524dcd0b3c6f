import Foundation

extension TableViewDiffableDataSource where SectionIdentifierType == String {
    /// Shows a fetched results controller's results and follows its changes:
    /// the one line that drives a diffable data source from Core Data's
    /// controller.
    ///
    /// ```swift
    /// let dataSource = try TableViewDiffableDataSource<String, Note.ID>(tableView: table) { table, indexPath, id in … }
    /// try dataSource.follow(controller)
    /// ```
    ///
    /// The data source becomes the controller's delegate (a
    /// `FetchedResultsControllerSnapshotDelegate`; it replaces any delegate the
    /// controller had), fetches if the controller has not, and applies the
    /// controller's snapshot now and after every change, the changed objects
    /// reconfigured (or reloaded: `FetchedResultsController/changedObjectsInSnapshots`).
    /// The controller is kept alive by the data source until ``stopFollowing()``.
    ///
    /// An apply that fails after a change (the cell provider threw) leaves the
    /// table as it was; the error goes to ``followErrorHandler``, or when there
    /// is none is kept in ``lastFollowError``. The next change applies the whole
    /// difference again.
    ///
    /// - Throws: what `performFetch()` throws, or the first apply.
    /// - Complexity: per change, O(*n*) to build the snapshot and diff it (see
    ///   `FetchedResultsControllerSnapshotDelegate`).
    public func follow<R: Record & Codable>(_ controller: FetchedResultsController<R>, animatingDifferences: Bool = true) throws
    where ItemIdentifierType == R.ID {
        if controller.sections == nil { try controller.performFetch() }
        let follower = _SnapshotFollower(dataSource: self, controller: controller, animatingDifferences: animatingDifferences)
        controller.delegate = follower
        following = follower
        try apply(controller.snapshot(), animatingDifferences: false)
    }
}

extension TableViewDiffableDataSource {
    /// Stops following the controller given to `follow(_:animatingDifferences:)`:
    /// the controller loses its delegate, and the table keeps what it shows.
    public func stopFollowing() {
        following?.stop()
        following = nil
    }
}

/// Something a data source follows, kept alive by it.
protocol _Following: AnyObject {
    func stop()
}

/// The controller's delegate on behalf of a data source that follows it.
final class _SnapshotFollower<R: Record & Codable>: FetchedResultsControllerSnapshotDelegate, _Following {
    typealias Object = R
    weak var dataSource: TableViewDiffableDataSource<String, R.ID>?
    let controller: FetchedResultsController<R>
    let animatingDifferences: Bool

    init(dataSource: TableViewDiffableDataSource<String, R.ID>, controller: FetchedResultsController<R>, animatingDifferences: Bool) {
        self.dataSource = dataSource
        self.controller = controller
        self.animatingDifferences = animatingDifferences
    }

    func controller(_ controller: FetchedResultsController<R>, didChangeContentWith snapshot: TableSnapshot<String, R.ID>) {
        guard let dataSource else { return }
        do {
            try dataSource.apply(snapshot, animatingDifferences: animatingDifferences)
            dataSource.report(followError: nil)
        } catch {
            dataSource.report(followError: error)
        }
    }

    func stop() {
        if controller.delegate === self { controller.delegate = nil }
    }
}
