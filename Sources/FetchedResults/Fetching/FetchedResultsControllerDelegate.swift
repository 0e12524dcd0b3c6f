import Foundation
import PredicateFormat
import RecordStore
import Records
import TableDiff

/// What happened to a section or an object, as Core Data reports it.
public enum FetchedResultsChangeType: Hashable, Sendable, CustomStringConvertible {
    /// New: reported at its new index path.
    case insert
    /// Gone: reported at its old index path.
    case delete
    /// Its place among the other objects changed (or its section): old and
    /// new index paths, possibly equal in numbers. A move implies an update;
    /// no separate update is reported.
    case move
    /// Changed in place — not moved among the objects around it, in the same
    /// section: reported at its old index path, with its new one (which
    /// differs only when rows before it came or went). Table code that only
    /// configures the cell at the old index path inside the batch is right.
    case update

    public var description: String {
        switch self {
        case .insert: "insert"
        case .delete: "delete"
        case .move: "move"
        case .update: "update"
        }
    }
}

/// Told about every change of a ``FetchedResultsController``'s results, the way
/// Core Data tells an `NSFetchedResultsControllerDelegate`: will change, then
/// section changes (deletes, then inserts), then object changes, then did change.
/// Every method has an empty default.
///
/// Index paths follow Core Data: a delete, an update and a move's source are
/// positions before the change; an insert and a move's destination, after it.
/// (To drive a table view from these, prefer the changeset in
/// ``controller(_:didChangeContentWith:)`` or HeadlessTable's binding: a single
/// batch of these callbacks is not always one UIKit accepts.)
public protocol FetchedResultsControllerDelegate<Object>: AnyObject {
    associatedtype Object: Record & Codable

    func controllerWillChangeContent(_ controller: FetchedResultsController<Object>)

    func controller(
        _ controller: FetchedResultsController<Object>, didChange section: FetchedResultsSectionInfo<Object>,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)

    func controller(
        _ controller: FetchedResultsController<Object>, didChange object: Object,
        at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?)

    /// An object change with the keys that changed: what the controller
    /// calls. Its default calls
    /// ``controller(_:didChange:at:for:newIndexPath:)`` (Core Data's call);
    /// implement this one instead to read `changedKeys`.
    ///
    /// `changedKeys`, for an ``FetchedResultsChangeType/update`` or a
    /// ``FetchedResultsChangeType/move``: the keys of the object whose values
    /// differ between the saved record and the one it replaced (the names of
    /// the record's `recordKeys`, as predicates and sort keys use them) —
    /// empty when the record was saved
    /// unchanged. Nil for an insert and a delete, and where the keys are not
    /// known: an object that changed through an object its key paths read,
    /// or whose earlier version the controller no longer has (code that
    /// refreshes by key should then refresh everything).
    func controller(
        _ controller: FetchedResultsController<Object>, didChange object: Object,
        at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?, changedKeys: Set<String>?)

    func controllerDidChangeContent(_ controller: FetchedResultsController<Object>)

    /// The whole change: the sections before and after (and, for
    /// `TableDiffable` records, the staged changeset). Called after
    /// ``controllerDidChangeContent(_:)``, only when the controller's
    /// ``FetchedResultsController/deliversWholeChanges`` is on (it costs O(*n*)).
    func controller(_ controller: FetchedResultsController<Object>, didChangeContentWith change: FetchedResultsChange<Object>)

    /// The index title of a section, instead of the capitalized first letter of
    /// its name; nil for the default.
    func controller(_ controller: FetchedResultsController<Object>, sectionIndexTitleForSectionName sectionName: String) -> String?

    /// The controller could not follow a change: its predicate failed on a
    /// changed record (``FetchError/predicateFailed(_:)``), as
    /// ``FetchedResultsController/performFetch()`` would have thrown — or,
    /// for a request with an offset or a limit, fetching again failed.
    /// Nothing else is reported for that change: the results stay as they
    /// were, the error is the controller's
    /// ``FetchedResultsController/lastError`` until the next successful
    /// `performFetch()`, which brings the results up to date.
    ///
    /// Core Data has no counterpart (an `NSPredicate` that cannot evaluate
    /// raises an exception there); without this, a change the predicate
    /// cannot evaluate would be silently wrong.
    func controller(_ controller: FetchedResultsController<Object>, didFailWith error: FetchError)
}

extension FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Object>) {}
    public func controller(
        _ controller: FetchedResultsController<Object>, didChange section: FetchedResultsSectionInfo<Object>,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
    ) {}
    public func controller(
        _ controller: FetchedResultsController<Object>, didChange object: Object,
        at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?
    ) {}
    public func controller(
        _ controller: FetchedResultsController<Object>, didChange object: Object,
        at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?, changedKeys: Set<String>?
    ) {
        self.controller(controller, didChange: object, at: indexPath, for: type, newIndexPath: newIndexPath)
    }
    public func controllerDidChangeContent(_ controller: FetchedResultsController<Object>) {}
    public func controller(_ controller: FetchedResultsController<Object>, didChangeContentWith change: FetchedResultsChange<Object>) {}
    public func controller(_ controller: FetchedResultsController<Object>, sectionIndexTitleForSectionName sectionName: String) -> String? { nil }
    public func controller(_ controller: FetchedResultsController<Object>, didFailWith error: FetchError) {}
}

/// A section of a controller's results.
public struct FetchedResultsSectionInfo<R: Record>: CustomStringConvertible {
    /// The section's name: its section key's value ("" for nil, and for the one
    /// section of a controller without a section key).
    public let name: String
    /// Its index title (see ``FetchedResultsController/sectionIndexTitle(forSectionName:)``).
    public let indexTitle: String?
    /// How many objects it holds.
    public let numberOfObjects: Int
    let load: () -> [R]

    /// Its objects, read from the controller when asked.
    public var objects: [R] { load() }

    public var description: String { "\(name.debugDescription) (\(numberOfObjects) objects)" }
}

/// A controller's whole change: the sections before and after it, and the
/// keys that changed of each object that stays.
public struct FetchedResultsChange<R: Record>: Sendable {
    public let sectionsBefore: [TableSection<R>]
    public let sectionsAfter: [TableSection<R>]
    /// The keys whose values changed, of each updated or moved object whose
    /// keys are known (see
    /// ``FetchedResultsControllerDelegate/controller(_:didChange:at:for:newIndexPath:changedKeys:)``);
    /// an object that stays and is not here is unchanged, or its keys are
    /// not known.
    public let changedKeys: [R.ID: Set<String>]

    init(sectionsBefore: [TableSection<R>], sectionsAfter: [TableSection<R>], changedKeys: [R.ID: Set<String>] = [:]) {
        self.sectionsBefore = sectionsBefore
        self.sectionsAfter = sectionsAfter
        self.changedKeys = changedKeys
    }
}

extension FetchedResultsChange where R: TableDiffable {
    /// The staged batch updates from the sections before to the sections after.
    public var changeset: TableChangeset<R> { TableChangeset(from: sectionsBefore, to: sectionsAfter) }
}

/// A delegate that receives each change as a snapshot — Core Data's
/// `controller(_:didChangeContentWith:)` taking an `NSDiffableDataSourceSnapshot`.
///
/// Adopt this protocol instead of implementing the per-object methods: a
/// controller whose delegate adopts it hands over, after every change, a
/// `TableSnapshot` of its results — sections by name, objects by
/// identity — and does not call the per-object and per-section methods (as
/// Core Data does when the snapshot method is implemented).
///
/// Unlike Core Data's snapshot, objects whose content changed are marked: as
/// reconfigured by default, so that a diffable data source configures their
/// cells again in place, or as reloaded (see
/// ``FetchedResultsController/changedObjectsInSnapshots``). An edited row
/// refreshes without any code of yours.
///
/// - Complexity: building the snapshot is O(*n*) for *n* results, and applying
///   it diffs it whole (O(*n*)): a snapshot per change suits tables of up to some
///   hundred thousand rows. A diffable data source that follows the controller
///   (`follow(_:)` in HeadlessTable), or `FetchedResultsTableBinding`, applies a
///   change in O(*k* log *n*) for *k* changed objects, whatever the size.
public protocol FetchedResultsControllerSnapshotDelegate<Object>: FetchedResultsControllerDelegate {
    /// The controller's results changed; `snapshot` is what they are now.
    func controller(_ controller: FetchedResultsController<Object>, didChangeContentWith snapshot: TableSnapshot<String, Object.ID>)

    /// The keys the delegate's cells show: a changed object is marked in the
    /// snapshot only when one of them changed (or its changed keys are not
    /// known) — the rule a `FetchedResultsTableBinding`'s `shownKeys`
    /// follows. Nil (the default): every changed object is marked.
    var shownKeys: Set<String>? { get }
}

extension FetchedResultsControllerSnapshotDelegate {
    public var shownKeys: Set<String>? { nil }
}

/// Whether a changed object's cell shows a change: its changed keys are not
/// known, or one of them is shown (every key when `shownKeys` is nil) — the
/// one rule of the table binding and the snapshot delegate.
package func _showsChange(_ changedKeys: Set<String>?, shownKeys: Set<String>?) -> Bool {
    guard let changedKeys, let shownKeys else { return true }
    return !changedKeys.isDisjoint(with: shownKeys)
}

/// How a controller marks the objects that changed in the snapshots it delivers.
public enum ChangedObjectMarking: Hashable, Sendable {
    /// `TableSnapshot/reconfigureItems(_:)`: the cell is configured again in place.
    case reconfigure
    /// `TableSnapshot/reloadItems(_:)`: the row gets a new cell.
    case reload
}
