import TableDiff

extension TableViewDiffableDataSource {
    /// Shows `snapshot` as ``apply(_:animatingDifferences:)`` does, and calls
    /// `completion` once when the table's renderer has finished showing it —
    /// UIKit's `apply(_:animatingDifferences:completion:)`.
    ///
    /// `completion` is called at once when the table has no
    /// ``AcknowledgingTableRenderer`` (or the apply changes nothing), else
    /// when the renderer calls back; it is called too when the apply fails
    /// (the table then shows what it showed before).
    ///
    /// **While the table shows a batch** (``TableView/isAnimatingUpdates``)
    /// the apply is queued: ``snapshot()``, ``itemIdentifier(for:)`` and the
    /// table keep answering for what is shown. Applies queued meanwhile
    /// coalesce: when the renderer has finished, only the newest snapshot is
    /// diffed against the one shown and applied — one change, not one per
    /// apply — and the completions of all of them are called once it has
    /// been shown. No snapshot is applied twice; an older one is skipped, not
    /// lost: the newest is what it was to become. A queued apply that fails
    /// leaves the table showing the snapshot before it; its error is kept in
    /// ``lastDeferredApplyError`` (the completions are still called).
    ///
    /// - Throws: what ``apply(_:animatingDifferences:)`` throws, when applied
    ///   at once (not when queued).
    /// - Complexity: that of ``apply(_:animatingDifferences:)``, when it runs.
    public final func apply(_ snapshot: Snapshot, animatingDifferences: Bool = true, completion: (() -> Void)?) throws {
        guard let tableView else {
            completion?()
            return
        }
        guard live == nil else {
            completion?()
            throw TableViewDiffableDataSourceError.following
        }
        if tableView.queuesUpdates || pendingApply != nil {
            if var pending = pendingApply {
                pending.snapshot = snapshot
                pending.animatingDifferences = animatingDifferences
                if let completion { pending.completions.append(completion) }
                pendingApply = pending
            } else {
                pendingApply = (snapshot, animatingDifferences, completion.map { [$0] } ?? [])
                tableView.enqueueAfterPresentation { [weak self] table in self?.applyPending(on: table) }
            }
            return
        }
        try tableView.whenPresented({ _ in completion?() }) {
            try performApply(snapshot, stages: current.stages(to: snapshot), animatingDifferences: animatingDifferences)
        }
    }

    /// Applies the newest queued snapshot, once the table has finished showing
    /// what it showed.
    func applyPending(on tableView: TableView) {
        guard let pending = pendingApply else { return }
        pendingApply = nil
        let completions = pending.completions
        do {
            try tableView.whenPresented({ _ in for completion in completions { completion() } }) {
                guard live == nil else { throw TableViewDiffableDataSourceError.following }
                try performApply(pending.snapshot, stages: current.stages(to: pending.snapshot), animatingDifferences: pending.animatingDifferences)
            }
            lastDeferredApplyError = nil
        } catch {
            lastDeferredApplyError = error
        }
    }
}
