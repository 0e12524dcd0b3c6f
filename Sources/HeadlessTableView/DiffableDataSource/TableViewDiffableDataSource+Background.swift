import Foundation
import TableDiff

extension TableViewDiffableDataSource {
    /// Shows `snapshot`, diffing it on another thread and applying the
    /// difference in the caller's isolation (the table's own: the main actor
    /// in an app) — UIKit's `apply` from a background queue, and Android's
    /// `AsyncListDiffer`.
    ///
    /// The diff of the snapshot shown against `snapshot` runs on a thread of
    /// its own (not on the cooperative pool, which a long diff would hold
    /// up), so a large snapshot does not hold up the caller while it is
    /// worked out. The newest apply wins: when, by the time the diff is done,
    /// another apply has started (this method again) or the data source's
    /// snapshot changed (any apply, a reload, a user move), this diff is
    /// dropped and the method returns `false` without touching the table.
    /// Otherwise the batches are performed as ``apply(_:animatingDifferences:)``
    /// performs them (at once, even while the renderer is showing a batch)
    /// and it returns `true`.
    ///
    /// ```swift
    /// Task { @MainActor in
    ///     try await dataSource.applyDiffingInBackground(bigSnapshot)
    /// }
    /// ```
    ///
    /// - Throws: what ``apply(_:animatingDifferences:)`` throws, when the diff
    ///   is applied; the table and the data source are then as they were.
    /// - Complexity: the diff's O(*n* + *s* + *m* log *m*) off the caller
    ///   (unspecialized: generic code on the diff's thread), then the batches'
    ///   cost on it.
    @discardableResult
    public final func applyDiffingInBackground(
        _ snapshot: Snapshot, animatingDifferences: Bool = true, isolation: isolated (any Actor)? = #isolation
    ) async throws -> Bool {
        guard tableView != nil else { return false }
        guard live == nil else { throw TableViewDiffableDataSourceError.following }
        backgroundApplies &+= 1
        let (apply, generation, base) = (backgroundApplies, currentGeneration, current)
        let stages = await withCheckedContinuation(isolation: isolation) { continuation in
            Thread.detachNewThread { continuation.resume(returning: base.stages(to: snapshot)) }
        }
        guard apply == backgroundApplies, generation == currentGeneration, live == nil else { return false }
        try performApply(snapshot, stages: stages, animatingDifferences: animatingDifferences)
        return true
    }
}
