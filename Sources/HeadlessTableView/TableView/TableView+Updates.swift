import TableDiff
import Foundation

extension TableView {
    // MARK: Batches

    /// Starts a batch: changes are collected until the matching ``endUpdates()``.
    /// Batches nest; only the outermost one is applied.
    public func beginUpdates() { updateDepth += 1 }

    /// Ends a batch; the outermost one is checked and applied (see
    /// ``performBatchUpdates(_:)``). An `endUpdates` without a `beginUpdates`
    /// does nothing.
    public func endUpdates() throws {
        guard updateDepth > 0 else { return }
        updateDepth -= 1
        if updateDepth == 0 {
            do {
                try commitPendingUpdate()
            } catch {
                settleNestedCompletions(applied: false)
                throw error
            }
            settleNestedCompletions(applied: true)
        }
    }

    /// Runs `updates`, collecting the row and section changes it makes, then
    /// checks the batch the way UIKit does and applies it.
    ///
    /// Deletes and reloads name rows before the batch, inserts after it; a move
    /// names its source before and its destination after. At the end the table
    /// asks the data source for its counts; if they do not add up — or a change
    /// names a row that does not exist, or two changes collide — it throws
    /// ``TableViewError/inconsistentUpdate(_:)`` with UIKit's message, and the
    /// table stays as it was. Otherwise rows move with their cells (a move does
    /// not refresh content), reloaded and inserted rows in the window get new
    /// cells, and selection follows the rows (a reloaded row loses it).
    ///
    /// Header and footer heights are asked again for every section when the
    /// batch inserts, deletes or moves sections (as UIKit does), and otherwise
    /// only for the sections it reloads or whose rows it changes; the other
    /// sections keep theirs (UIKit asks every section's): reload a section
    /// whose title changed on its own (``reloadSections(_:with:)``).
    ///
    /// If `updates` throws, the batch is dropped and the error rethrown. A
    /// geometry setting, or a height the delegate or a new cell gives, that is
    /// NaN, infinite or negative is ``TableViewError/invalidGeometry(_:)``, and
    /// the table stays as it was (rows to reconfigure are refreshed once the
    /// batch is applied: a refused height there leaves those rows as they were).
    ///
    /// - Complexity: O(*k* log *n* + *s* + *w* log *n*) for *k* changes, *s*
    ///   sections and a window of *w* rows; the *s* is a pass over the counts
    ///   (one call per section, or one in all with
    ///   ``TableViewDataSource/numberOfRowsInSections(in:)``) and, for a batch
    ///   that inserts, deletes, moves or reloads sections, the sections' layout.
    public func performBatchUpdates(_ updates: () throws -> Void) throws {
        let saved = batch
        beginUpdates()
        do {
            try updates()
        } catch {
            // The block's changes are dropped — and only them, in a nested batch.
            batch = saved
            // An outermost batch dropped: the completions of batches nested in it get false.
            if updateDepth == 0 { settleNestedCompletions(applied: false) }
            throw error
        }
        try endUpdates()
    }

    // Each change may name how it shows (UIKit's `with:` argument); the
    // renderer receives it with the applied batch.
    public func insertRows(at paths: [TablePath], with animation: RowAnimation = .automatic) throws {
        try record(paths.map(BatchChange.insertRow), animation) { $0.insertRows(at: paths) }
    }
    public func deleteRows(at paths: [TablePath], with animation: RowAnimation = .automatic) throws {
        try record(paths.map(BatchChange.deleteRow), animation) { $0.deleteRows(at: paths) }
    }
    public func reloadRows(at paths: [TablePath], with animation: RowAnimation = .automatic) throws {
        try record(paths.map(BatchChange.reloadRow), animation) { $0.reloadRows(at: paths) }
    }
    public func moveRow(at path: TablePath, to newPath: TablePath) throws {
        try record([], .automatic) { $0.moveRow(at: path, to: newPath) }
    }
    public func insertSections(_ sections: [Int], with animation: RowAnimation = .automatic) throws {
        try record(sections.map(BatchChange.insertSection), animation) { $0.insertSections(sections) }
    }
    public func deleteSections(_ sections: [Int], with animation: RowAnimation = .automatic) throws {
        try record(sections.map(BatchChange.deleteSection), animation) { $0.deleteSections(sections) }
    }
    public func reloadSections(_ sections: [Int], with animation: RowAnimation = .automatic) throws {
        try record(sections.map(BatchChange.reloadSection), animation) { $0.reloadSections(sections) }
    }
    public func moveSection(_ section: Int, toSection newSection: Int) throws {
        try record([], .automatic) { $0.moveSection(section, toSection: newSection) }
    }

    /// Refreshes the content of rows in place: the data source is asked for
    /// their cells, and its dequeue hands back each row's own cell (no
    /// `prepareForReuse()`). Rows outside the window are left for when they
    /// show. Inside a batch, paths are after the batch, and the rows are
    /// refreshed once it is applied. All or nothing: if the data source
    /// fails, or a row's new height is refused, no row changes (a cell the
    /// data source configured again in place keeps that content).
    ///
    /// - Throws: ``TableViewError/invalidIndexPath(_:sectionCount:rowCount:)``
    ///   for a row that does not exist (after the batch, inside one);
    ///   ``TableViewError/invalidGeometry(_:)`` for a height that is NaN,
    ///   infinite or negative — a setting, or one the delegate or a cell
    ///   gives for a refreshed row; what the data source throws.
    public func reconfigureRows(at paths: [TablePath]) throws {
        if updateDepth > 0 {
            pendingReconfigure += paths
        } else {
            for path in paths { try check(path) }
            let before = renderer == nil ? nil : (lastDisplayedFrame ?? currentFrame)
            defer { display(TableUpdate(batch: BatchUpdate(), reconfiguredRows: paths), from: before) }
            try reconfigure(paths)
        }
    }

    /// Applies a changeset's stages, one batch each; `updateData` makes the data
    /// source report the stage's sections before its batch is checked.
    ///
    /// ```swift
    /// try table.apply(changeset) { stage in diary.sections = stage.sections }
    /// ```
    ///
    /// A row keeps its cell across the stages as it would in one batch: one
    /// that leaves the window in a stage and comes back in a later one has its
    /// own cell again. A stage that does not add up throws; the stages before
    /// it stay applied.
    ///
    /// - Throws: ``TableViewError/applyInsideBatch`` inside a batch (its stages
    ///   are batches of their own).
    public func apply<Row>(
        _ changeset: TableChangeset<Row>, animation: RowAnimation = .automatic,
        _ updateData: (TableChangeset<Row>.Stage) throws -> Void
    ) throws {
        guard updateDepth == 0 else { throw TableViewError.applyInsideBatch }
        try performStaged {
            for stage in changeset.stages {
                try updateData(stage)
                try performBatchUpdates(stage.update, animations: RowAnimations(animation))
            }
        }
    }

    /// Runs the batches of one change that UIKit would apply as one batch (a
    /// changeset's or a snapshot's stages): a row that leaves the window in
    /// one batch and comes back in a later one keeps its cell, as it would in
    /// one batch — not configured again, unless it is reconfigured, and then
    /// in place. The cells of rows still out of the window at the end leave
    /// it then (the delegate hears of it, and they are queued).
    func performStaged<T>(_ stages: () throws -> T) rethrows -> T {
        guard shown.carried == nil else { return try stages() }
        shown.carried = [:]
        defer {
            let carried = shown.carried ?? [:]
            shown.carried = nil
            for (path, cell) in carried.sorted(by: { $0.key < $1.key }) { leave(cell, at: path) }
        }
        return try stages()
    }

    /// Performs a prepared batch as one checked batch update — what a binding
    /// of the table to a model does with each change it hears of.
    ///
    /// ```swift
    /// var update = BatchUpdate()
    /// update.deleteRows(at: [TablePath(row: 2, section: 0)])
    /// update.moveRow(at: TablePath(row: 0, section: 0), to: TablePath(row: 3, section: 0))
    /// try table.performBatchUpdates(update, reconfiguring: [TablePath(row: 3, section: 0)], animations: .fade)
    /// ```
    ///
    /// The data source must already report the data after the batch. The batch
    /// is checked as ``performBatchUpdates(_:)`` checks one (and the table
    /// stays as it was when it does not add up); the rows at `reconfiguring`
    /// (paths after the batch) are configured again in place, and each change
    /// shows with the animation `animations` gives its kind. The
    /// reconfigurations are part of the batch: if the data source fails on
    /// one, or its height is refused, the batch is refused with it.
    ///
    /// - Throws: ``TableViewError/inconsistentUpdate(_:)``,
    ///   ``TableViewError/invalidIndexPath(_:sectionCount:rowCount:)`` for a
    ///   row to reconfigure that does not exist, or what the data source throws.
    /// - Complexity: that of ``performBatchUpdates(_:)``.
    public func performBatchUpdates(
        _ update: BatchUpdate, reconfiguring: [TablePath] = [], animations: RowAnimations = .automatic
    ) throws {
        try performBatchUpdates {
            pendingUpdate.merge(update)
            if animations != .automatic {
                for change in update.changes {
                    let animation = animations.animation(for: change)
                    if animation != .automatic { pendingAnimations[change] = animation }
                }
            }
            pendingReconfigure += reconfiguring
        }
    }

    /// Records a change, and the animation asked for it: applied at once
    /// outside a batch.
    func record(_ changes: @autoclosure () -> [BatchChange], _ animation: RowAnimation, _ change: (inout BatchUpdate) -> Void) throws {
        change(&pendingUpdate)
        if animation != .automatic {
            for c in changes() { pendingAnimations[c] = animation }
        }
        if updateDepth == 0 {
            do {
                try commitPendingUpdate()
            } catch {
                settleNestedCompletions(applied: false)
                throw error
            }
            settleNestedCompletions(applied: true)
        }
    }

    /// Checks the collected batch and applies it — all or nothing: if the data
    /// source then fails to make a cell, the table is put back as it was.
    ///
    /// The phases: the batch checked against the data source's counts; the
    /// reader's place followed through it; the layout, cells and selection
    /// following the rows; the rows to reconfigure made again; the window
    /// filled (or everything put back); then shown and reported.
    func commitPendingUpdate() throws {
        let update = pendingUpdate, reconfigure = pendingReconfigure, animations = pendingAnimations
        pendingUpdate = BatchUpdate()
        pendingReconfigure = []
        pendingAnimations = [:]
        guard !isBusy else { throw TableViewError.busy }
        let (dataSource, counts, mapping) = try checked(update, reconfiguring: reconfigure)
        let before = renderer == nil ? nil : (lastDisplayedFrame ?? currentFrame)
        let saved = shown
        let countsBefore = rowCounts
        // Reloaded rows are measured again: their content changed.
        forgetHeights(ofReloadedRowsIn: mapping, counts: counts)
        let anchor = anchorFollowing(mapping, countsBefore: countsBefore, countsAfter: counts)
        layout = try updatedLayout(mapping, counts: counts)
        rowCounts = counts
        dataGeneration &+= 1
        indexTitles = dataSource.sectionIndexTitles(for: self)
        let (followed, leaving) = cellsFollowRows(mapping)
        selectionFollowsRows(mapping, countsBefore: countsBefore, countsAfter: counts)
        // The rows to reconfigure get their cells and heights before the
        // window is filled (for those heights too), so that a failure of
        // either leaves the table as it was.
        let refreshed: [_RefreshedCell]
        do {
            refreshed = try refreshedCells(at: reconfigure)
        } catch {
            shown = saved
            throw error
        }
        for row in refreshed { layout.setHeight(row.height, ofRow: row.path) }
        contentOffset = anchoredOffset(anchor)
        do {
            try fillWindow(leaving: leaving, anchor: anchor)
        } catch {
            putBack(saved, followed: followed, refreshed: refreshed)
            throw error
        }
        show(refreshed)
        if selectionKeeper != nil {
            // (A data source that keeps the selection by identity has it follow its objects itself.)
            let isSelected = selectedRowTest()
            for (path, cell) in cells { cell.isSelected = isSelected(path) }
        } else {
            for path in selected { cells[path]?.isSelected = true }
        }
        followPrefetchedRows(mapping)
        followSwipedRow(mapping)
        display(TableUpdate(batch: update, animations: animations, reconfiguredRows: reconfigure), from: before)
    }

    /// The first phase of a batch: the data source, its row counts now, and
    /// the batch checked against them and the counts before.
    ///
    /// - Throws: ``TableViewError/noDataSource``, a geometry setting's error,
    ///   ``TableViewError/inconsistentUpdate(_:)``, or
    ///   ``TableViewError/invalidIndexPath(_:sectionCount:rowCount:)`` for a
    ///   row to reconfigure that is not there after the batch.
    private func checked(
        _ update: BatchUpdate, reconfiguring reconfigure: [TablePath]
    ) throws -> (dataSource: any TableViewDataSource, counts: [Int], mapping: BatchMapping) {
        guard let dataSource else { throw TableViewError.noDataSource }
        try checkGeometrySettings()
        let counts = try Self.counts(of: dataSource, in: self)
        let mapping: BatchMapping
        do throws(BatchUpdateError) {
            mapping = try update.validate(rowCountsBefore: rowCounts, rowCountsAfter: counts)
        } catch {
            throw TableViewError.inconsistentUpdate(error)
        }
        for path in reconfigure where !(counts.indices.contains(path.section) && (0..<counts[path.section]).contains(path.row)) {
            throw TableViewError.invalidIndexPath(path, sectionCount: counts.count, rowCount: counts.indices.contains(path.section) ? counts[path.section] : nil)
        }
        return (dataSource, counts, mapping)
    }

    /// The reader's place (``anchoring``) followed through a batch: the
    /// anchor row where the batch takes it, or the offset when it goes.
    private func anchorFollowing(_ mapping: BatchMapping, countsBefore: [Int], countsAfter: [Int]) -> _Anchor {
        let anchor = anchorBeforeChange()
        guard case .row(let path, let y) = anchor else { return anchor }
        return Self.survivingRow(from: path, mapping, countsBefore: countsBefore, countsAfter: countsAfter).map { _Anchor.row($0, y) } ?? .offset
    }

    /// Cells follow their rows through a batch; deleted and reloaded rows
    /// give theirs back (the cells returned as leaving, handed to the pool
    /// after the new cells are made: a reloaded row gets another cell).
    /// Headers and footers are made again.
    private func cellsFollowRows(_ mapping: BatchMapping) -> (followed: [TablePath: TableViewCell], leaving: [(TablePath, TableViewCell)]) {
        var leaving: [(TablePath, TableViewCell)] = []
        func follow(_ cell: TableViewCell, at path: TablePath, into followed: inout [TablePath: TableViewCell]) {
            if !mapping.isRowReloaded(old: path), let new = mapping.newIndexPath(forOld: path) {
                followed[new] = cell
            } else {
                leaving.append((path, cell))
            }
        }
        var followed: [TablePath: TableViewCell] = [:]
        for path in windowRows {
            if let cell = cells[path] { follow(cell, at: path, into: &followed) }
        }
        if let carried = shown.carried {
            var kept: [TablePath: TableViewCell] = [:]
            for (path, cell) in carried { follow(cell, at: path, into: &kept) }
            shown.carried = kept
        }
        cells = followed
        windowRows = followed.keys.sorted()
        staleViews = Array(headerViews.values) + Array(footerViews.values)
        headerViews = [:]
        footerViews = [:]
        return (followed, leaving)
    }

    /// The selection follows its rows through a batch (a reloaded row is
    /// deselected); with ``selectionFollowsDeletes``, a deleted selected row
    /// passes the selection to the row taking its place.
    private func selectionFollowsRows(_ mapping: BatchMapping, countsBefore: [Int], countsAfter: [Int]) {
        let selectedBefore = selected
        selected = Set(selected.compactMap { mapping.isRowReloaded(old: $0) ? nil : mapping.newIndexPath(forOld: $0) })
        if selectionFollowsDeletes, selected.isEmpty, selectedBefore.count == 1, let old = selectedBefore.first, !mapping.isRowReloaded(old: old),
            let place = Self.rowTakingThePlace(of: old, countsBefore: countsBefore, countsAfter: countsAfter)
        {
            selected = [place]
        }
    }

    /// After a failed fill: the table as it was before the batch, and the
    /// cells made for rows to reconfigure back in the pool.
    private func putBack(_ saved: _Shown, followed: [TablePath: TableViewCell], refreshed: [_RefreshedCell]) {
        // Putting the window back may have given a row another cell (the
        // data source's, when it did not hand back the row's own): the
        // saved window shows that one too, not the cell now queued.
        var replaced: [ObjectIdentifier: TableViewCell] = [:]
        for (path, cell) in followed {
            if let now = cells[path], now !== cell { replaced[ObjectIdentifier(cell)] = now }
        }
        shown = saved
        for (path, cell) in cells {
            if let now = replaced[ObjectIdentifier(cell)] { cells[path] = now }
        }
        for row in refreshed where row.cell !== row.existing { reusePool.enqueue(row.cell) }
    }

    /// The layout after a checked batch (see `_TableLayout.apply(_:counts:_:)`):
    /// rows leave and arrive where the batch says, moved rows keep their
    /// heights, new sections and rows start at their initial heights, reloaded
    /// rows go back to theirs; headers and footers are asked again for every
    /// section when sections are inserted, deleted or moved, else only for
    /// the sections reloaded or whose rows change.
    ///
    /// - Complexity: O(*k* log *n* + *s* / 64) for a batch that keeps the
    ///   sections; O(*k* log *n* + *s*) for one that changes them.
    func updatedLayout(_ mapping: BatchMapping, counts: [Int]) throws -> _TableLayout {
        var new = layout
        try new.apply(mapping, counts: counts, _TableLayout.NewHeights(
            header: { try self.headerHeight($0) }, footer: { try self.footerHeight($0) },
            row: { try self.initialHeight($0) }, rows: { try self.initialHeights(section: $0, count: $1) }))
        return new
    }

    /// Refreshes the cells of these rows that are in the window, in place —
    /// all or nothing: if the data source fails to make a cell, or a row's
    /// height is refused, or the window cannot be filled again for the rows'
    /// new heights, no row changes (the cells made go back to the pool; a
    /// cell the data source configured again in place keeps that content).
    func reconfigure(_ paths: [TablePath]) throws {
        guard !isBusy else { throw TableViewError.busy }
        try checkGeometrySettings()
        let refreshed = try refreshedCells(at: paths)
        let anchor = anchorBeforeChange()
        // New heights first: the window is filled again for them.
        var oldHeights: [(TablePath, Double)] = []
        for row in refreshed {
            let old = layout.span(ofRow: row.path).height
            if row.height != old {
                oldHeights.append((row.path, old))
                layout.setHeight(row.height, ofRow: row.path)
            }
        }
        if !oldHeights.isEmpty {
            let oldOffset = contentOffset
            contentOffset = anchoredOffset(anchor)
            do {
                try fillWindow(leaving: [], anchor: anchor)
            } catch {
                for (path, old) in oldHeights.reversed() { layout.setHeight(old, ofRow: path) }
                contentOffset = oldOffset
                for row in refreshed where row.cell !== row.existing { reusePool.enqueue(row.cell) }
                throw error
            }
            closeSwipedRowIfOffScreen()
        }
        show(refreshed)
    }

    /// The shown rows of `paths` (in the window, or kept for a staged change),
    /// each with the cell the data source gives for it now (the row's own
    /// cell, configured again, or another) and the height it measures.
    /// Nothing changes; on an error, the other cells made go back to the pool.
    private func refreshedCells(at paths: [TablePath]) throws -> [_RefreshedCell] {
        var refreshed: [_RefreshedCell] = []
        do {
            for path in Set(paths).sorted() {
                guard let existing = cells[path] ?? shown.carried?[path] else { continue }
                isBusy = true
                let made = Result { try makeCell(path, reconfiguring: existing) }
                isBusy = false
                let cell = try made.get()
                do {
                    // Measured afresh: its content changed.
                    refreshed.append(_RefreshedCell(path: path, cell: cell, existing: existing, height: try measuredHeight(of: cell, at: path, remembered: false)))
                } catch {
                    if cell !== existing { reusePool.enqueue(cell) }
                    throw error
                }
            }
        } catch {
            for row in refreshed where row.cell !== row.existing { reusePool.enqueue(row.cell) }
            throw error
        }
        return refreshed
    }

    /// Once the window is filled: the cells the data source gave in place of
    /// the rows' own take their places.
    private func show(_ refreshed: [_RefreshedCell]) {
        for row in refreshed where row.cell !== row.existing {
            guard cells[row.path] === row.existing else {
                reusePool.enqueue(row.cell)   // the row is not in the window (any more)
                continue
            }
            cells[row.path] = row.cell
            row.cell.isSelected = isRowSelected(row.path)
            row.cell.isEditing = isEditing
            delegate?.tableView(self, willDisplay: row.cell, forRowAt: row.path)
            leave(row.existing, at: row.path)
        }
    }
}

/// A row to reconfigure: the cell the data source gave for it (its own, or
/// another), the cell it had, and the height the new one measures.
struct _RefreshedCell {
    var path: TablePath
    var cell: TableViewCell
    var existing: TableViewCell
    var height: Double
}
