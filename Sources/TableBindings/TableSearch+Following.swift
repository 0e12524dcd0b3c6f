import FetchedResults
import Foundation
import TableDiff
import Records

extension TableSearch {
    /// A change of the main controller: the rows of every remembered search
    /// follow it (positions removed and shifted, the changed rows tested),
    /// and the results table too. What fails is reported (``onError``).
    ///
    /// - Complexity: O(*k* + the rows remembered) for *k* changed rows.
    func follow(removed: [Int32], inserted: [(position: Int32, record: R)]) {
        guard isActive, !remembered.isEmpty, remembered.isCurrent(generation: base.controller.fetchGeneration) else {
            remembered.forgetAll()
            return
        }
        // A search testing its candidates a slice at a time found them at
        // the positions before the change: it starts again after it (others
        // testing theirs are let go). Scans still running found positions as
        // they were before the change too: theirs first.
        let restart = remembered.letGoOfSearchesBeingTested().map { $0 == text } ?? false
        let wasScanning = isFindingResults
        remembered.takeFinishedScans(waiting: true)
        let followed = remembered.follow(
            removing: Array(Set(removed)).sorted(), inserting: inserted.sorted { $0.position < $1.position },
            index: indexedKeys.flatMap { base.controller.searchIndex($0) })
        var failures = followed.failure.map { [Failure(error: $0, reloadError: nil, date: Date())] } ?? []
        defer { record(failures) }
        if restart, let text {
            // A row whose predicate fails is left out, as a changed row is
            // above, and reported.
            do {
                try search(text, scope: selectedSearchScopeIndex, leavingOutFailures: true)
                if let leftOut = remembered.latest?.leftOut { failures.append(Failure(error: leftOut, reloadError: nil, date: Date())) }
            } catch {
                // The search cannot go on: it ends, and says why.
                let emptying = end()
                failures.append(Failure(error: error, reloadError: emptying, date: Date()))
            }
            return
        }
        guard let current = remembered.latest, current.text == text else { return }
        if let failure = shown.follow(to: current.rows, deleted: followed.deleted, inserted: followed.inserted, reloading: wasScanning, animations: base.rowAnimations) {
            failures.append(failure)
        }
    }
}

/// Follows the main controller for a search: the positions each change took
/// out (before it) and put in (after it), with their records.
final class _SearchFollower<R: Record & Codable>: FetchedResultsControllerDelegate {
    typealias Object = R
    weak var search: TableSearch<R>?
    /// The main sections' starts before the change (after the last one).
    var knownStarts: [Int] = [0]
    var removed: [Int32] = []
    var inserted: [(position: Int32, record: R)] = []

    func controllerWillChangeContent(_ controller: FetchedResultsController<R>) {
        removed = []
        inserted = []
    }

    func controller(_ controller: FetchedResultsController<R>, didChange object: R, at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?) {
        if let old = indexPath, knownStarts.indices.contains(old.section) {
            removed.append(Int32(truncatingIfNeeded: knownStarts[old.section] + old.row))
        }
        if let new = newIndexPath ?? (type == .update ? indexPath : nil), let position = controller.position(of: new) {
            inserted.append((Int32(truncatingIfNeeded: position), object))
        }
    }

    func controllerDidChangeContent(_ controller: FetchedResultsController<R>) {
        knownStarts = controller.sectionStartPositions
        search?.follow(removed: removed, inserted: inserted)
        removed = []
        inserted = []
    }
}
