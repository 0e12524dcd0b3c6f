import TableDiff
import Foundation

/// A table's data source driven by snapshots — UIKit's
/// `UITableViewDiffableDataSource`.
///
/// Give it the table and a cell provider; it becomes the table's data source.
/// Describe what the table shows as a `TableSnapshot` and ``apply(_:animatingDifferences:)``
/// it: the data source diffs it with what the table shows and performs the
/// difference as checked batch updates.
///
/// ```swift
/// let dataSource = TableViewDiffableDataSource<String, Todo.ID>(tableView: table) { table, indexPath, id in
///     let cell = try table.dequeueReusableCell(withIdentifier: "todo", for: indexPath)
///     cell.text = store[id]?.title
///     return cell
/// }
/// var snapshot = TableSnapshot<String, Todo.ID>()
/// try snapshot.appendSections(["Today"])
/// try snapshot.appendItems(todos.map(\.id))
/// try dataSource.apply(snapshot)
/// ```
///
/// **Keep it.** The table holds its data source weakly (as UIKit's does): the
/// screen that creates the data source owns it.
///
/// **What applying does.** Items and sections are paired by identifier: a
/// paired item is never deleted and inserted again, it stays or moves, across
/// sections too; items marked by `TableSnapshot/reloadItems(_:)` get new cells;
/// items marked by `TableSnapshot/reconfigureItems(_:)` keep their cells, which
/// the cell provider configures again in place (its dequeue hands back the
/// row's own cell); sections marked by `TableSnapshot/reloadSections(_:)` are
/// reloaded. Each batch is checked with UIKit's rules before it changes the
/// table, and reaches the table's renderer like any other batch, with
/// ``defaultRowAnimation`` (or `.none` when not animating).
///
/// **Errors.** If the cell provider throws (or returns nil) during an apply,
/// the error is thrown and the table and the data source are left as they were:
/// a batch that fails changes nothing; when a later batch of a change made of
/// several fails, the earlier ones are undone by reloading the previous
/// snapshot.
///
/// **Isolation.** Like the table, a data source belongs to one isolation domain
/// (the main actor in an app; it is not `Sendable`). The `async` form of
/// ``apply(_:animatingDifferences:isolation:)`` runs in the caller's isolation,
/// so it can be awaited from the main actor as UIKit's is, without sending the
/// table anywhere.
///
/// **Editing.** Subclass to allow swipe-to-delete (override
/// ``tableView(_:canEditRowAt:)`` and ``tableView(_:commit:forRowAt:)``) or
/// moves by the user (override ``tableView(_:canMoveRowAt:)``): after a user
/// move the data source's own snapshot follows the table, as UIKit's does.
open class TableViewDiffableDataSource<SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable>: TableViewDataSource {
    public typealias Snapshot = TableSnapshot<SectionIdentifierType, ItemIdentifierType>
    /// The outline of one section (see `apply(_:to:animatingDifferences:completion:)`).
    public typealias SectionSnapshot = TableSectionSnapshot<ItemIdentifierType>
    /// Makes the cell of a row for its item: dequeue a cell and configure it.
    /// Returning nil is an error (``TableViewError/noCell(_:)``).
    public typealias CellProvider = (TableView, TablePath, ItemIdentifierType) throws -> TableViewCell?

    /// The table this data source feeds.
    public private(set) weak var tableView: TableView?
    let cellProvider: CellProvider
    /// The snapshot the table shows, without marks. Reading it first writes
    /// back the rows of sections expanded or collapsed since
    /// (`TableViewDiffableDataSource+Outlines.swift`).
    @usableFromInline var current: Snapshot {
        get {
            if !outlineRows.isEmpty { settleOutlines() }
            return _current
        }
        set {
            outlineRows = [:]
            _current = newValue
            currentGeneration &+= 1
        }
    }
    var _current = Snapshot()
    /// The outline of each section given one (`apply(_:to:animatingDifferences:completion:)`).
    var outlines: [SectionIdentifierType: SectionSnapshot] = [:]
    /// The sections, by index, whose rows are their outline's visible items
    /// while `_current` and `reported` lag behind: those expanded or
    /// collapsed since the last full change. Their rows are answered from the
    /// outline, so that an expand costs the rows it shows, not the section.
    var outlineRows: [Int: SectionIdentifierType] = [:]
    /// What expanding and collapsing rows by a tap asks and tells — UIKit's
    /// `sectionSnapshotHandlers`.
    public var sectionSnapshotHandlers = SectionSnapshotHandlers()
    /// Counts the changes of ``current`` and the background applies started
    /// (`TableViewDiffableDataSource+Background.swift`): a diff made off the
    /// caller's thread applies only if neither moved meanwhile.
    var currentGeneration = 0
    var backgroundApplies = 0
    /// What the data source reports: the current snapshot, or during a change
    /// made of several batches, the table after the batch being performed.
    var reported: (sections: [SectionIdentifierType], items: [[ItemIdentifierType]]) = ([], [])

    /// How rows and sections show when a snapshot is applied with
    /// `animatingDifferences` (UIKit's default: `.automatic`).
    public var defaultRowAnimation: TableView.RowAnimation = .automatic
    /// The title of a section's header (nil for none, the default).
    public var headerTitleProvider: ((SectionIdentifierType, Int) -> String?)?
    /// The title of a section's footer (nil for none, the default).
    public var footerTitleProvider: ((SectionIdentifierType, Int) -> String?)?
    /// The section index titles (nil for none, the default).
    public var sectionIndexTitlesProvider: (() -> [String]?)?
    /// The section an index title jumps to (by default the title's position).
    public var sectionForSectionIndexTitleProvider: ((String, Int) -> Int)?

    /// Called when applying a followed controller's change fails (see
    /// `follow(_:animatingDifferences:)`); nil keeps the error in ``lastFollowError``.
    public var followErrorHandler: ((any Error) -> Void)?
    /// The error of the last followed change, when it failed and there is no
    /// ``followErrorHandler``; cleared when a later change applies.
    public private(set) var lastFollowError: (any Error)?
    /// The newest snapshot applied while the table was showing a batch, with
    /// the completions of every apply it supersedes (`TableViewDiffableDataSource+Completions.swift`).
    var pendingApply: (snapshot: Snapshot, animatingDifferences: Bool, completions: [() -> Void])?
    /// What the last queued apply threw when it ran; nil when none failed.
    public internal(set) var lastDeferredApplyError: (any Error)?
    /// What the user may move, and what the data source tells before and after
    /// a move (`TableViewDiffableDataSource+Reordering.swift`).
    public var reorderingHandlers = ReorderingHandlers()
    /// What the data source follows, when it does: the rows come from it.
    package var live: _LiveSource<SectionIdentifierType, ItemIdentifierType>?

    /// Creates the data source of `tableView`: sets itself as its data source
    /// and shows an empty table.
    ///
    /// - Throws: what the table throws when it reloads (nothing for a table
    ///   that is not in a batch).
    public init(tableView: TableView, cellProvider: @escaping CellProvider) throws {
        self.tableView = tableView
        self.cellProvider = cellProvider
        tableView.dataSource = self
        try tableView.reloadData()
    }

    // MARK: Snapshots

    /// A copy of the snapshot the table shows (without reload or reconfigure marks).
    ///
    /// - Complexity: O(1); O(*n*) while following a fetched results controller
    ///   (the snapshot is built from its results).
    public final func snapshot() -> Snapshot { live?.snapshot() ?? current }

    /// Shows `snapshot`, performing the difference from the current one as
    /// checked batch updates (see ``TableViewDiffableDataSource``).
    ///
    /// `animatingDifferences: false` performs the same batches with the `.none`
    /// animation, as iOS 15 and later do (not a reload).
    ///
    /// - Throws: ``TableViewError/applyInsideBatch`` inside a batch of the
    ///   table, ``TableViewError/busy`` from inside a cell provider,
    ///   ``TableViewDiffableDataSourceError/following`` while following a
    ///   fetched results controller, or what the cell provider throws; the
    ///   table and the data source are then as they were.
    /// - Complexity: O(*n* + *s* + *m* log *m*) for the diff (see
    ///   `TableSnapshot/stages(to:)`), plus O(*k* log *n* + *w* log *n*) for
    ///   each batch of *k* changes with a window of *w* rows.
    @inlinable
    public final func apply(_ snapshot: Snapshot, animatingDifferences: Bool = true) throws {
        // The diff is inlined into the caller, so that it is specialized for the
        // identifier types; performing its batches is not generic work.
        try performApply(snapshot, stages: current.stages(to: snapshot), animatingDifferences: animatingDifferences)
    }

    /// Shows `snapshot`, as ``apply(_:animatingDifferences:)``, from async code:
    /// it runs in the caller's isolation (the main actor in an app) and returns
    /// when the table shows the snapshot.
    @inlinable
    public final func apply(
        _ snapshot: Snapshot, animatingDifferences: Bool = true, isolation: isolated (any Actor)? = #isolation
    ) async throws {
        try performApply(snapshot, stages: current.stages(to: snapshot), animatingDifferences: animatingDifferences)
    }

    /// Shows `snapshot` by reloading the table: no diff and no animation; every
    /// visible cell is made again.
    ///
    /// - Throws: what the table's reload throws; the data source then reports
    ///   the previous snapshot again and the table is reloaded with it.
    /// - Complexity: O(*n*) for the snapshot, plus the table's reload.
    public final func applySnapshotUsingReloadData(_ snapshot: Snapshot) throws {
        guard let tableView else { return }
        guard live == nil else { throw TableViewDiffableDataSourceError.following }
        let previous = current
        show(snapshot.withoutMarks)
        do {
            try tableView.reloadData()
        } catch {
            try restore(previous, after: error, in: tableView)
        }
    }

    /// The item of a row, or nil when there is no such row.
    public final func itemIdentifier(for indexPath: TablePath) -> ItemIdentifierType? {
        if let live { return live.item(indexPath) }
        if let section = outlineRows[indexPath.section] { return outlines[section]?.visibleItem(at: indexPath.row) }
        guard reported.items.indices.contains(indexPath.section), reported.items[indexPath.section].indices.contains(indexPath.row) else { return nil }
        return reported.items[indexPath.section][indexPath.row]
    }

    /// The row of an item, or nil when the table does not show it.
    public final func indexPath(for itemIdentifier: ItemIdentifierType) -> TablePath? {
        if let live { return live.indexPath(itemIdentifier) }
        for (index, section) in outlineRows {
            guard let outline = outlines[section], outline.contains(itemIdentifier) else { continue }
            return outline.visibleIndex(of: itemIdentifier).map { TablePath(row: $0, section: index) }
        }
        return _current.indexPath(ofItem: itemIdentifier)
    }

    /// The section at an index, or nil when there is none.
    public final func sectionIdentifier(for index: Int) -> SectionIdentifierType? {
        if let live { return live.section(index) }
        return reported.sections.indices.contains(index) ? reported.sections[index] : nil
    }

    /// The index of a section, or nil when the table does not show it.
    public final func index(for sectionIdentifier: SectionIdentifierType) -> Int? {
        live.map { $0.index(sectionIdentifier) } ?? _current.indexOfSection(sectionIdentifier)
    }

    // MARK: Applying

    /// Performs the stages from the current snapshot to `snapshot`.
    @usableFromInline
    func performApply(_ snapshot: Snapshot, stages: [Snapshot.Stage], animatingDifferences: Bool) throws {
        guard let tableView else { return }
        guard live == nil else { throw TableViewDiffableDataSourceError.following }
        // An apply queued before (`apply(_:animatingDifferences:completion:)`)
        // is superseded: its completions wait for this one.
        let superseded = pendingApply?.completions ?? []
        pendingApply = nil
        defer {
            if !superseded.isEmpty { tableView.whenPresented({ _ in for completion in superseded { completion() } }) {} }
        }
        let previous = current
        let target = snapshot.withoutMarks
        let reconfigure = snapshot.reconfiguredItemIdentifiers.compactMap { snapshot.indexPath(ofItem: $0) }
        let animation: TableView.RowAnimation = animatingDifferences ? defaultRowAnimation : .none
        if stages.isEmpty {
            current = target
            if !reconfigure.isEmpty { try tableView.reconfigureRows(at: reconfigure) }
            return
        }
        // One change, as UIKit applies it in one batch: a row that leaves the
        // window in one stage and comes back in a later one keeps its cell.
        try tableView.performStaged {
            for (index, stage) in stages.enumerated() {
                let last = index == stages.count - 1
                do {
                    reported = (stage.sectionIdentifiers, stage.itemIdentifiers)
                    try tableView.performBatchUpdates(stage.update, reconfiguring: last ? reconfigure : [], animations: TableView.RowAnimations(animation))
                } catch {
                    if index == 0 {
                        // A batch that fails changes nothing in the table (its
                        // reconfigurations included).
                        show(previous)
                        throw error
                    }
                    try restore(previous, after: error, in: tableView)
                }
            }
        }
        current = target
        reported = (target.sectionIdentifiers, target.itemIdentifiersBySection)
        keepMatchingOutlines()
    }

    /// A followed change applied, or failed.
    package func report(followError error: (any Error)?) {
        if let error, let followErrorHandler {
            followErrorHandler(error)
        } else {
            lastFollowError = error
        }
    }

    /// Reports `snapshot` from now on.
    package func show(_ snapshot: Snapshot) {
        current = snapshot
        reported = (snapshot.sectionIdentifiers, snapshot.itemIdentifiersBySection)
        keepMatchingOutlines()
    }

    /// Puts the previous snapshot back after `error` and reloads the table with
    /// it, then throws `error`.
    func restore(_ previous: Snapshot, after error: any Error, in tableView: TableView) throws -> Never {
        show(previous)
        do {
            try tableView.reloadData()
        } catch let second {
            throw TableViewDiffableDataSourceError.restoreFailed(original: error, restoring: second)
        }
        throw error
    }

    // MARK: Data source

    open func numberOfSections(in tableView: TableView) -> Int { live?.numberOfSections() ?? reported.sections.count }

    open func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        if let live { return live.numberOfRows(section) }
        if let identifier = outlineRows[section] { return outlines[identifier]?.visibleCount ?? 0 }
        return reported.items.indices.contains(section) ? reported.items[section].count : 0
    }

    open func numberOfRowsInSections(in tableView: TableView) -> [Int]? {
        if let live { return live.numberOfRowsInSections() }
        var counts = reported.items.map { $0.count }
        for (index, section) in outlineRows where counts.indices.contains(index) { counts[index] = outlines[section]?.visibleCount ?? 0 }
        return counts
    }

    open func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
        guard let item = itemIdentifier(for: indexPath) else { return nil }
        let cell = try cellProvider(tableView, indexPath, item)
        if let cell { showOutline(of: item, inSection: indexPath.section, on: cell) }
        return cell
    }

    open func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? {
        guard let provider = headerTitleProvider, let identifier = sectionIdentifier(for: section) else { return nil }
        return provider(identifier, section)
    }

    open func tableView(_ tableView: TableView, titleForFooterInSection section: Int) -> String? {
        guard let provider = footerTitleProvider, let identifier = sectionIdentifier(for: section) else { return nil }
        return provider(identifier, section)
    }

    open func sectionIndexTitles(for tableView: TableView) -> [String]? { sectionIndexTitlesProvider?() }

    open func tableView(_ tableView: TableView, sectionForSectionIndexTitle title: String, at index: Int) -> Int {
        sectionForSectionIndexTitleProvider?(title, index) ?? index
    }

    /// Whether a row can be deleted by a swipe. Default: no (UIKit's diffable
    /// data source's default); override to allow it.
    open func tableView(_ tableView: TableView, canEditRowAt indexPath: TablePath) -> Bool { false }

    /// Commits a swipe-to-delete. Default: nothing; override to delete the item
    /// from your model and apply a snapshot without it.
    open func tableView(_ tableView: TableView, commit editingStyle: TableView.EditingStyle, forRowAt indexPath: TablePath) throws {}

    /// Whether the user may move a row. Default: what
    /// ``ReorderingHandlers/canReorderItem`` says of its item (no without one);
    /// override to decide otherwise.
    open func tableView(_ tableView: TableView, canMoveRowAt indexPath: TablePath) -> Bool { canReorder(at: indexPath) }

    /// The user moved a row: the data source's snapshot follows, the table
    /// shows the move, and the ``reorderingHandlers`` hear of it (see
    /// ``ReorderingHandlers``). Overrides must call `super` to keep the
    /// snapshot right.
    ///
    /// - Throws: ``TableViewDiffableDataSourceError/following`` while
    ///   following a fetched results controller (change its objects instead); `TableSnapshotError/itemNotFound(_:)` when no item is at
    ///   `sourceIndexPath`, or a `TableSnapshotError/sectionNotFound(_:)` when
    ///   the destination's section does not exist; the snapshot is then unchanged.
    /// - Complexity: O(*r* + *s*) for the rows after the two places.
    open func tableView(_ tableView: TableView, moveRowAt sourceIndexPath: TablePath, to destinationIndexPath: TablePath) throws {
        try reorder(from: sourceIndexPath, to: destinationIndexPath, in: tableView)
    }
}

/// Why a diffable data source refused a call, or could not put the table back.
public enum TableViewDiffableDataSourceError: Error, CustomStringConvertible {
    /// A snapshot was applied, or a row moved by the user, while the data
    /// source follows a fetched results controller: its rows are the
    /// controller's (call `stopFollowing()` first, or change the objects).
    case following
    /// The apply failed with `original`; reloading the previous snapshot then
    /// failed with `restoring`. The data source reports the previous snapshot;
    /// the table's next reload shows it.
    case restoreFailed(original: any Error, restoring: any Error)

    public var description: String {
        switch self {
        case .following:
            "the data source follows a fetched results controller, whose results are its rows: call stopFollowing() before applying snapshots, or change the controller's objects"
        case let .restoreFailed(original, restoring):
            "applying the snapshot failed (\(original)), and reloading the previous one failed too (\(restoring))"
        }
    }
}

/// Where a following data source's rows come from: a source of rows outside
/// the data source (a fetched results controller, in `TableBindings`).
package struct _LiveSource<SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable> {
    package var numberOfSections: () -> Int
    package var numberOfRows: (_ section: Int) -> Int
    /// Every section's number of rows, when at hand at once.
    package var numberOfRowsInSections: () -> [Int]?
    package var item: (_ indexPath: TablePath) -> ItemIdentifierType?
    package var section: (_ index: Int) -> SectionIdentifierType?
    package var indexPath: (_ item: ItemIdentifierType) -> TablePath?
    package var index: (_ section: SectionIdentifierType) -> Int?
    package var snapshot: () -> TableSnapshot<SectionIdentifierType, ItemIdentifierType>
    package var stop: () -> Void

    package init(
        numberOfSections: @escaping () -> Int,
        numberOfRows: @escaping (_ section: Int) -> Int,
        numberOfRowsInSections: @escaping () -> [Int]?,
        item: @escaping (_ indexPath: TablePath) -> ItemIdentifierType?,
        section: @escaping (_ index: Int) -> SectionIdentifierType?,
        indexPath: @escaping (_ item: ItemIdentifierType) -> TablePath?,
        index: @escaping (_ section: SectionIdentifierType) -> Int?,
        snapshot: @escaping () -> TableSnapshot<SectionIdentifierType, ItemIdentifierType>,
        stop: @escaping () -> Void
    ) {
        self.numberOfSections = numberOfSections
        self.numberOfRows = numberOfRows
        self.numberOfRowsInSections = numberOfRowsInSections
        self.item = item
        self.section = section
        self.indexPath = indexPath
        self.index = index
        self.snapshot = snapshot
        self.stop = stop
    }
}
