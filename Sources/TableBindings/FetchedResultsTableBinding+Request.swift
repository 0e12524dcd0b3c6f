import FetchedResults
import Foundation
import HeadlessTableView
import PredicateFormat
import Records
import TableDiff

extension FetchedResultsTableBinding {
    /// Fetches with another request — another predicate, other sort keys, a
    /// limit, an offset or a batch size — and moves the table to the new
    /// results with one checked batch update: rows that stay are moved (a
    /// switch of sort order animates as moves), the others deleted or
    /// inserted, sections by name. Returns the batch (nil when the table had
    /// to reload instead: see ``lastError``).
    ///
    /// ```swift
    /// var request = binding.controller.fetchRequest
    /// request.sortKeys = [SortKey("name", ascending: false)]
    /// try binding.performFetch(with: request)
    /// ```
    ///
    /// A row whose section is new, or whose old section is gone, is deleted
    /// and inserted rather than moved (UIKit moves no row into an inserted
    /// section, nor out of a deleted one); the objects are the same, so no row
    /// is reloaded.
    ///
    /// - Throws: `FetchError` from the fetch (including
    ///   `FetchError.cacheMismatch(cacheName:)` for a controller with a cache
    ///   name: delete the cache first); the request, the results and the table
    ///   stay as they were.
    /// - Complexity: the fetch, plus O(*n* + *s* + *m* log *m*) for the diff of
    ///   *n* rows in *s* sections (*m* rows out of order).
    @discardableResult
    public func performFetch(with request: FetchRequest<R>) throws(FetchError) -> BatchUpdate? {
        try refetch { () throws(FetchError) in
            let previous = controller.fetchRequest
            controller.fetchRequest = request
            do throws(FetchError) {
                try controller.performFetch()
            } catch {
                controller.fetchRequest = previous
                throw error
            }
        }
    }

    /// Runs a fetch of the controller, then brings the table to its results
    /// with one batch (a diff of the results before and after).
    func refetch(_ fetch: () throws(FetchError) -> Void) throws(FetchError) -> BatchUpdate? {
        reconcileSelection()
        let before = try? controller.snapshot()
        try fetch()
        if let before, let after = try? controller.snapshot() { followSelection(from: before, to: after) }
        guard let tableView else { return nil }
        guard let before, let after = try? controller.snapshot(), let update = Self.batch(from: before, to: after) else {
            reload(tableView, after: nil)
            return nil
        }
        return perform(update, reconfiguring: [], on: tableView) ? update : nil
    }

    /// The selection after a fetch: objects the new results do not hold
    /// leave it; in a selection of every object, those that came into them
    /// are not selected.
    ///
    /// - Complexity: O(*k*) for *k* identities kept; O(*n*) for a selection
    ///   of every object.
    func followSelection(from before: TableSnapshot<String, R.ID>, to after: TableSnapshot<String, R.ID>) {
        selectionGeneration = controller.fetchGeneration
        for id in selection.ids where after.indexOfItem(id) == nil { selection.objectLeft(id) }
        guard selection.mode == .allBut else { return }
        for name in after.sectionIdentifiers {
            for id in (try? after.itemIdentifiers(inSection: name)) ?? [] where before.indexOfItem(id) == nil { selection.objectArrived(id) }
        }
    }

    /// The one batch from one set of results to another, or nil when the diff
    /// needs more than one (never expected).
    static func batch(from old: TableSnapshot<String, R.ID>, to new: TableSnapshot<String, R.ID>) -> BatchUpdate? {
        // A row that would move into a new section, or out of one that goes,
        // becomes two identities: deleted as one, inserted as the other.
        typealias Key = _RefetchKey<R.ID>
        let oldNames = Set(old.sectionIdentifiers), newNames = Set(new.sectionIdentifiers)
        var oldSection: [R.ID: String] = [:]
        oldSection.reserveCapacity(old.numberOfItems)
        for name in old.sectionIdentifiers {
            for id in (try? old.itemIdentifiers(inSection: name)) ?? [] { oldSection[id] = name }
        }
        var crossing = Set<R.ID>()
        for name in new.sectionIdentifiers {
            for id in (try? new.itemIdentifiers(inSection: name)) ?? [] {
                guard let from = oldSection[id], from != name else { continue }
                if !oldNames.contains(name) || !newNames.contains(from) { crossing.insert(id) }
            }
        }
        func keyed(_ snapshot: TableSnapshot<String, R.ID>, _ crossed: (R.ID) -> Key) -> TableSnapshot<String, Key>? {
            var keyed = TableSnapshot<String, Key>()
            do {
                try keyed.appendSections(snapshot.sectionIdentifiers)
                for name in snapshot.sectionIdentifiers {
                    try keyed.appendItems(((try? snapshot.itemIdentifiers(inSection: name)) ?? []).map { crossing.contains($0) ? crossed($0) : .row($0) }, toSection: name)
                }
            } catch {
                return nil
            }
            return keyed
        }
        guard let from = keyed(old, { .leaving($0) }), let to = keyed(new, { .arriving($0) }) else { return nil }
        let stages = from.stages(to: to)
        switch stages.count {
        case 0: return BatchUpdate()
        case 1: return stages[0].update
        default: return nil
        }
    }
}

/// A row's identity in the diff of two fetches: a row crossing into a new
/// section, or out of one that goes, is one identity leaving and another arriving.
enum _RefetchKey<ID: Hashable & Sendable>: Hashable, Sendable { case row(ID), leaving(ID), arriving(ID) }
