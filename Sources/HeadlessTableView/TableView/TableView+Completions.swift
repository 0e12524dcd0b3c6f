import TableDiff

/// A renderer that takes time to show a batch (it animates) and says when it
/// is done: the table waits for it before calling the batch's completions and
/// before applying the updates queued meanwhile.
///
/// ```swift
/// final class AnimatedScreen: AcknowledgingTableRenderer {
///     func display(_ frame: TableFrame) { draw(frame) }
///     func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame, completion: @escaping (Bool) -> Void) {
///         animate(update.changes, from: old, to: new) { finished in completion(finished) }
///     }
/// }
/// ```
///
/// Call `completion` once, on the table's isolation (the main actor in an
/// app), with `true` when the animation ran to its end and `false` when it
/// was interrupted. It may be called at once (a renderer that does not
/// animate this batch). A second call is ignored.
public protocol AcknowledgingTableRenderer: TableRenderer {
    /// Shows a batch update, from the frame displayed before it to the frame
    /// after it, and calls `completion` when it has finished.
    func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame, completion: @escaping (Bool) -> Void)
}

extension AcknowledgingTableRenderer {
    /// Shows the batch and ignores its end (the table calls the acknowledging
    /// variant itself).
    public func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame) {
        display(update, from: old, to: new) { _ in }
    }
}

/// The batches an acknowledging renderer is still showing, the completions
/// waiting for them, and the updates queued until they end.
struct _BatchAnimation {
    /// The presentations handed to the renderer and not yet acknowledged.
    var outstanding: Set<Int> = []
    var nextToken = 0
    /// Whether one of the outstanding presentations was interrupted.
    var interrupted = false
    /// Completions waiting for the outstanding presentations to end.
    var completions: [(Bool) -> Void] = []
    /// Completions of batches nested in an open batch, waiting for it.
    var awaitingCommit: [(Bool) -> Void] = []
    /// Work queued while a batch was showing, run in order once it ends.
    var queue: [(TableView) -> Void] = []
    var isDraining = false
    /// What the last queued batch that failed threw.
    var lastDeferredError: (any Error)?
}

extension TableView {
    /// Whether the renderer is still showing a batch (an
    /// ``AcknowledgingTableRenderer`` that has not called its completion):
    /// ``performBatchUpdates(_:completion:)`` and a diffable data source's
    /// `apply(_:animatingDifferences:completion:)` are then queued.
    public var isAnimatingUpdates: Bool { !animation.outstanding.isEmpty }

    /// What the last queued batch of ``performBatchUpdates(_:completion:)``
    /// threw when it ran (its completion got `false`); nil when none failed.
    public var lastDeferredUpdateError: (any Error)? { animation.lastDeferredError }

    /// Whether new queued-able updates wait: a batch is showing, or updates
    /// queued before are still to run.
    package var queuesUpdates: Bool {
        !animation.outstanding.isEmpty || (!animation.queue.isEmpty && !animation.isDraining)
    }

    /// Runs `updates` as ``performBatchUpdates(_:)`` does, and calls
    /// `completion` once when the renderer has finished showing the batch —
    /// UIKit's `performBatchUpdates(_:completion:)`.
    ///
    /// `completion` gets `true` when the batch was shown to its end: at once
    /// without a renderer, with a renderer that is not an
    /// ``AcknowledgingTableRenderer``, or for a batch that changes nothing;
    /// otherwise when the acknowledging renderer calls back. It gets `false`
    /// when the animation was interrupted, or the batch was not applied
    /// (`updates` threw, or the batch did not add up: the table stays as it
    /// was).
    ///
    /// **While a batch is showing** (``isAnimatingUpdates``) the call is
    /// queued: `updates` does not run yet — change the model inside it, as
    /// UIKit code does — and the table, its ``indexPathsForVisibleRows``,
    /// ``indexPathForRow(at:)`` and ``cellForRow(at:)`` keep answering for
    /// what is shown. Queued calls run in order once the renderer has
    /// finished, each checked as its own batch, and each shown as the
    /// renderer's next batch (the next queued one waits for it in turn). A
    /// queued batch that throws is dropped (``lastDeferredUpdateError``) and
    /// its completion gets `false`; the call itself then does not throw.
    ///
    /// Inside an open batch, `updates` joins it, and `completion` waits for
    /// the outermost batch.
    ///
    /// - Throws: what ``performBatchUpdates(_:)`` throws, when run at once.
    public func performBatchUpdates(_ updates: @escaping () throws -> Void, completion: ((Bool) -> Void)?) throws {
        if queuesUpdates {
            animation.queue.append { table in
                do {
                    try table.performBatchUpdates(updates, completion: completion)
                } catch {
                    table.animation.lastDeferredError = error
                }
            }
            return
        }
        let completion = completion ?? { _ in }
        if updateDepth > 0 {
            let mark = animation.awaitingCommit.count
            animation.awaitingCommit.append(completion)
            do {
                try performBatchUpdates(updates)
            } catch {
                // This batch's completion, and those of batches nested in it, are dropped with it.
                let dropped = animation.awaitingCommit[mark...]
                animation.awaitingCommit.removeSubrange(mark...)
                for completion in dropped { completion(false) }
                throw error
            }
            return
        }
        try whenPresented(completion) {
            try performBatchUpdates(updates)
        }
    }

    /// Runs `body` (an outermost change of the table), then hands `completion`
    /// to the presentations it started — or calls it at once when none is
    /// showing; with `false` if `body` throws. Then runs what was queued, if
    /// the renderer has finished.
    package func whenPresented(_ completion: @escaping (Bool) -> Void, _ body: () throws -> Void) rethrows {
        do {
            try body()
        } catch {
            completion(false)
            throw error
        }
        if animation.outstanding.isEmpty {
            completion(true)
        } else {
            animation.completions.append(completion)
        }
        drainQueuedUpdates()
    }

    /// Queues work to run once the renderer has finished the batches it is
    /// showing (at once when none is showing and nothing is queued).
    package func enqueueAfterPresentation(_ work: @escaping (TableView) -> Void) {
        if queuesUpdates {
            animation.queue.append(work)
        } else {
            work(self)
        }
    }

    /// An outermost batch ended: completions of the batches nested in it wait
    /// for its presentation (`false` when it failed).
    func settleNestedCompletions(applied: Bool) {
        let waiting = animation.awaitingCommit
        animation.awaitingCommit = []
        guard !waiting.isEmpty else { return }
        if !applied {
            for completion in waiting { completion(false) }
        } else if animation.outstanding.isEmpty {
            for completion in waiting { completion(true) }
        } else {
            animation.completions += waiting
        }
    }

    /// Hands a batch to the renderer; an acknowledging one keeps the batch
    /// outstanding until it calls back.
    func present(_ update: TableUpdate, from old: TableFrame, to new: TableFrame, on renderer: any TableRenderer) {
        guard let renderer = renderer as? any AcknowledgingTableRenderer else {
            return renderer.display(update, from: old, to: new)
        }
        let token = animation.nextToken
        animation.nextToken += 1
        animation.outstanding.insert(token)
        renderer.display(update, from: old, to: new) { [weak self] finished in
            self?.presentationDidEnd(token, finished: finished)
        }
    }

    /// The renderer finished a batch: once every outstanding one has, the
    /// completions waiting are called, then the queued updates run.
    func presentationDidEnd(_ token: Int, finished: Bool) {
        guard animation.outstanding.remove(token) != nil else { return }   // a second call
        if !finished { animation.interrupted = true }
        guard animation.outstanding.isEmpty else { return }
        let completions = animation.completions, allFinished = !animation.interrupted
        animation.completions = []
        animation.interrupted = false
        for completion in completions { completion(allFinished) }
        drainQueuedUpdates()
    }

    /// Runs the queued updates in order while no batch is showing — never in
    /// the middle of another change of the table.
    func drainQueuedUpdates() {
        guard !animation.isDraining, updateDepth == 0, !isBusy, shown.carried == nil else { return }
        animation.isDraining = true
        defer { animation.isDraining = false }
        while animation.outstanding.isEmpty, !animation.queue.isEmpty {
            let work = animation.queue.removeFirst()
            work(self)
        }
    }
}
