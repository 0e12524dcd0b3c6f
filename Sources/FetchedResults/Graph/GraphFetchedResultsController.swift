import Foundation
import PredicateFormat
import Records
import TableDiff

/// Told about every change of a ``GraphFetchedResultsController``'s results,
/// as a ``FetchedResultsControllerDelegate`` is told about a
/// ``FetchedResultsController``'s: will change, then section changes
/// (deletes, then inserts), then object changes (deletes, updates, moves,
/// inserts), then did change. Every method has an empty default.
///
/// Index paths follow Core Data: a delete, an update and a move's source are
/// positions before the change; an insert and a move's destination, after it.
public protocol GraphFetchedResultsControllerDelegate: AnyObject {
    /// A change begins.
    func controllerWillChangeContent(_ controller: GraphFetchedResultsController)

    /// A section was inserted (at its new index) or deleted (at its old one).
    func controller(
        _ controller: GraphFetchedResultsController, didChange section: FetchedResultsSectionInfo<GraphObject>,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)

    /// An object was inserted, deleted, moved or updated.
    func controller(
        _ controller: GraphFetchedResultsController, didChange object: GraphObject,
        at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?)

    /// A change ended.
    func controllerDidChangeContent(_ controller: GraphFetchedResultsController)

    /// The index title of a section, instead of the capitalized first letter
    /// of its name; nil for the default.
    func controller(_ controller: GraphFetchedResultsController, sectionIndexTitleForSectionName sectionName: String) -> String?

    /// The controller could not follow a change: the predicate failed on a
    /// changed object, or a key path met a reference to a missing object (a
    /// `noAction` delete not yet repaired). Nothing else is reported for that
    /// change; the results stay as they were, and the error is the
    /// controller's ``GraphFetchedResultsController/lastError`` until the
    /// next successful ``GraphFetchedResultsController/performFetch()``.
    func controller(_ controller: GraphFetchedResultsController, didFailWith error: GraphFetchError)
}

extension GraphFetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: GraphFetchedResultsController) {}
    public func controller(
        _ controller: GraphFetchedResultsController, didChange section: FetchedResultsSectionInfo<GraphObject>,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
    ) {}
    public func controller(
        _ controller: GraphFetchedResultsController, didChange object: GraphObject,
        at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?
    ) {}
    public func controllerDidChangeContent(_ controller: GraphFetchedResultsController) {}
    public func controller(_ controller: GraphFetchedResultsController, sectionIndexTitleForSectionName sectionName: String) -> String? { nil }
    public func controller(_ controller: GraphFetchedResultsController, didFailWith error: GraphFetchError) {}
}

/// A sorted, sectioned view of the objects of an entity in an
/// ``ObjectGraphContext`` — Core Data's `NSFetchedResultsController` over a
/// model — whose predicate, sort keys and section key may go through
/// relationships, and which follows the objects those key paths read.
///
/// ```swift
/// let controller = GraphFetchedResultsController(
///     fetchRequest: GraphFetchRequest(entityName: "Medium", sortKeys: [SortKey("entry.month"), SortKey("id")]),
///     context: context, sectionNameKeyPath: "entry.month")
/// controller.delegate = self
/// try controller.performFetch()
/// ```
///
/// The rules are ``FetchedResultsController``'s (Core Data's): at least one
/// sort key, the first ordering the sections; a nil section value goes
/// into the section "".
///
/// **Changes.** After ``performFetch()`` the controller follows its context
/// — each insert, update and delete (the context processes each at once),
/// a rollback, a merge — and reports every change to its delegate. Unlike
/// Core Data's controller, which watches its own entity only, it also
/// follows the objects its key paths read: edit an entry's `month` and its
/// media move to another section; relink a medium and it moves. It keeps a
/// reverse map from each object read to the fetched objects that read it,
/// so a change costs O(*r* log *n*) for *r* objects that read the changed
/// one (or are it) in results of *n* — never a refetch (except with a
/// ``GraphFetchRequest/fetchLimit``, whose window any change may move:
/// O(*n* log *n*)). An object is reported updated when its own record
/// changed, or when a value its sort or section key reads did.
///
/// It is a ``FetchedResultsController`` underneath (over the objects'
/// key-path values, kept beside the results): sections, index paths,
/// snapshots and the changes reported are that controller's.
public final class GraphFetchedResultsController {
    /// The request: as given, or as last set. Setting it changes nothing
    /// until the next ``performFetch()``.
    public var fetchRequest: GraphFetchRequest
    /// The context whose objects the controller shows.
    public let context: ObjectGraphContext
    /// The key path whose value names an object's section (it may go through
    /// relationships: `entry.month`); nil for one section.
    public let sectionNameKeyPath: String?
    /// Told about changes.
    public weak var delegate: (any GraphFetchedResultsControllerDelegate)?

    /// What the last successful fetch set up; nil before.
    var follower: _GraphFollower?
    /// The error the last change the controller could not follow ran into.
    var followError: GraphFetchError?

    /// A controller of a request's results in a context, in sections by a
    /// key path's value (one section without); call ``performFetch()`` to fetch.
    public init(fetchRequest: GraphFetchRequest, context: ObjectGraphContext, sectionNameKeyPath: String? = nil) {
        self.fetchRequest = fetchRequest
        self.context = context
        self.sectionNameKeyPath = sectionNameKeyPath
    }

    /// Fetches the results, and starts following the context.
    ///
    /// - Throws: ``GraphFetchError/unknownEntity(_:)``,
    ///   ``GraphFetchError/unknownKey(entity:keyPath:key:)``,
    ///   ``GraphFetchError/evaluation(_:)``, ``GraphFetchError/graph(_:)``,
    ///   ``GraphFetchError/controller(_:)`` (no sort keys, a negative
    ///   limit, sections out of order); the previous results stay.
    /// - Complexity: O(*n* log *n*) for *n* objects of the entities fetched,
    ///   each key path through a to-one relationship one lookup per object.
    public func performFetch() throws(GraphFetchError) {
        let follower = try _GraphFollower(fetchRequest, sectionNameKeyPath: sectionNameKeyPath, context: context)
        follower.owner = self
        self.follower = follower
        followError = nil
    }

    /// The error the last change ran into: one the controller could not
    /// follow (see
    /// ``GraphFetchedResultsControllerDelegate/controller(_:didFailWith:)``),
    /// or a change after which the first sort key no longer orders the
    /// sections. Cleared by ``performFetch()``.
    public var lastError: GraphFetchError? {
        followError ?? follower?.controller.lastError.map { .controller($0) }
    }

    // MARK: Reading

    /// Every fetched object, in order; nil before a successful `performFetch()`.
    ///
    /// - Complexity: O(*n*).
    public var fetchedObjects: [GraphObject]? { follower?.controller.fetchedObjects?.map(\.object) }

    /// The sections; nil before a successful `performFetch()`.
    ///
    /// - Complexity: O(*s*) for *s* sections; each section's objects are
    ///   read when asked.
    public var sections: [FetchedResultsSectionInfo<GraphObject>]? {
        follower?.controller.sections?.map(Self.sectionInfo)
    }

    static func sectionInfo(_ section: FetchedResultsSectionInfo<_GraphRow>) -> FetchedResultsSectionInfo<GraphObject> {
        FetchedResultsSectionInfo(
            name: section.name, indexTitle: section.indexTitle, numberOfObjects: section.numberOfObjects,
            load: { section.objects.map(\.object) })
    }

    /// The number of sections (0 before a fetch).
    public var numberOfSections: Int { follower?.controller.numberOfSections ?? 0 }

    /// The number of objects in every section, in order (empty before a fetch).
    ///
    /// - Complexity: O(*s*).
    public var numberOfObjectsInSections: [Int] { follower?.controller.numberOfObjectsInSections ?? [] }

    /// The number of objects in a section (0 for a section that does not exist).
    public func numberOfObjects(inSection section: Int) -> Int { follower?.controller.numberOfObjects(inSection: section) ?? 0 }

    /// The name of a section (nil for a section that does not exist).
    public func name(ofSection section: Int) -> String? { follower?.controller.name(ofSection: section) }

    /// The object at an index path.
    ///
    /// - Throws: ``GraphFetchError/controller(_:)`` with
    ///   ``FetchError/noObject(at:sectionCount:rowCount:)`` for a path outside
    ///   the results, ``FetchError/notFetched`` before a fetch.
    /// - Complexity: O(log *n*).
    public func object(at indexPath: TablePath) throws(GraphFetchError) -> GraphObject {
        guard let follower else { throw .controller(.notFetched) }
        do throws(FetchError) {
            return try follower.controller.object(at: indexPath).object
        } catch {
            throw .controller(error)
        }
    }

    /// The identity of the object at an index path; nil for a path outside
    /// the results.
    ///
    /// - Complexity: O(log *n*).
    public func objectID(at indexPath: TablePath) -> ObjectID? { follower?.controller.objectID(at: indexPath) }

    /// The index path of the object with an identity, or nil when it is not
    /// in the results.
    ///
    /// - Complexity: O(log *n*) (the first call builds an index, O(*n*)).
    public func indexPath(forObjectWithID id: ObjectID) -> TablePath? { follower?.controller.indexPath(forObjectWithID: id) }

    /// The results as a snapshot: the sections by name, the objects by
    /// identity, in order (empty before a successful `performFetch()`).
    ///
    /// - Throws: `TableSnapshotError/duplicateSections(_:)` when a change
    ///   made the first sort key stop ordering the sections (``lastError``
    ///   says so too).
    /// - Complexity: O(*n* + *s*).
    public func snapshot() throws(TableSnapshotError<String, ObjectID>) -> TableSnapshot<String, ObjectID> {
        guard let follower else { return TableSnapshot() }
        return try follower.controller.snapshot()
    }

    /// The titles of the section index: each section's title, in order, a
    /// title equal to the one before it skipped (see
    /// ``FetchedResultsController/sectionIndexTitles``).
    public var sectionIndexTitles: [String] { follower?.controller.sectionIndexTitles ?? [] }

    /// The index title of a section name: the delegate's, or the capitalized
    /// first letter.
    public func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        if let title = delegate?.controller(self, sectionIndexTitleForSectionName: sectionName) { return title }
        return _sectionIndexTitle(forSectionName: sectionName, collation: nil)
    }

    /// A change the controller could not follow.
    func didFail(_ error: GraphFetchError) {
        followError = error
        delegate?.controller(self, didFailWith: error)
    }
}

extension GraphObject: Record {
    /// The keys of the object's record, as its record type reads them.
    public static var recordKeys: RecordKeys<GraphObject> {
        .lookup { object, key in
            func value<T: Record>(_ record: T) -> RecordValue? { T.recordKeys.value(of: record, forKey: key) }
            return value(object.record)
        }
    }
}

/// An object of a graph controller's entity, as its inner controller sorts
/// it: the object, whether the predicate matches it, and the values of the
/// request's key paths (`k0`, `k1`, … in the order of
/// `_GraphFollower.keyPaths`).
package struct _GraphRow: Record, Codable {
    package var id: ObjectID
    var object: GraphObject
    var matches: Bool
    var values: [RecordValue]

    init(object: GraphObject, matches: Bool, values: [RecordValue]) {
        id = object.id
        self.object = object
        self.matches = matches
        self.values = values
    }

    package static let recordKeys = RecordKeys<_GraphRow>.lookup { row, key in
        guard key.first == "k", let k = Int(key.dropFirst()), row.values.indices.contains(k) else { return nil }
        return row.values[k]
    }

    private enum CodingKeys: String, CodingKey { case id, entity, values }

    // Rows live in a store in memory only; encoded for messages.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(object.entityName, forKey: .entity)
        try container.encode(values, forKey: .values)
    }

    package init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "a graph controller's rows are not read back"))
    }
}

/// What a graph controller's fetch set up: the request compiled, the rows
/// in a context of their own with a ``FetchedResultsController`` on them,
/// the reverse map, and the observation of the graph context.
final class _GraphFollower {
    let context: ObjectGraphContext
    let names: Set<String>
    var reader: _GraphKeyReader
    let visits = _GraphKeyReader._VisitBox()
    let test: CompiledPredicate<_Resolved>?
    /// The distinct key paths of the sort keys and the section key.
    let keyPaths: [String]
    let keyReaders: [(_Resolved) -> RecordValue]
    let rows: ObjectContext<_GraphRow>
    let controller: FetchedResultsController<_GraphRow>
    let relay = _GraphRelay()
    /// Each object read through a relationship (found or not) → the objects
    /// of the entity whose key paths read it; and the other way.
    var readers: [ObjectID: Set<ObjectID>] = [:]
    var reads: [ObjectID: [ObjectID]] = [:]
    private var observation: _ObservationToken?
    weak var owner: GraphFetchedResultsController? {
        didSet { relay.owner = owner }
    }

    init(_ request: GraphFetchRequest, sectionNameKeyPath: String?, context: ObjectGraphContext) throws(GraphFetchError) {
        let model = context.model
        guard model.entity(named: request.entityName) != nil else { throw .unknownEntity(request.entityName) }
        guard !request.sortKeys.isEmpty else { throw .controller(.noSortKeys) }
        if let limit = request.fetchLimit, limit < 0 { throw .controller(.negativeSetting("fetchLimit", limit)) }
        self.context = context
        names = Set(request.includesSubentities ? model.entityNames(including: request.entityName) : [request.entityName])
        reader = _GraphKeyReader(context: context)
        reader.visits = visits
        reader.expansions = request.predicate?.subqueryExpansions ?? [:]
        let reader = reader
        test = try request.predicate.map { predicate throws(GraphFetchError) in
            for path in predicate.keyPaths { try reader.check(path, from: request.entityName) }
            do throws(RecordKeyError) {
                return try predicate.compiled(
                    reader: { path throws(RecordKeyError) in reader.reader(path) },
                    rootValue: { object in _graphRecordValue(object.record) })
            } catch {
                throw GraphFetchError.evaluation(error.description)
            }
        }
        var keyPaths: [String] = []
        for path in request.sortKeys.map(\.keyPath) + (sectionNameKeyPath.map { [$0] } ?? []) where !keyPaths.contains(path) {
            try reader.check(path, from: request.entityName)
            keyPaths.append(path)
        }
        self.keyPaths = keyPaths
        keyReaders = keyPaths.map { reader.reader($0) }
        let inner = { (path: String) in "k\(keyPaths.firstIndex(of: path) ?? 0)" }
        var sortKeys = request.sortKeys
        for k in sortKeys.indices { sortKeys[k].keyPath = inner(sortKeys[k].keyPath) }

        // The candidates in their order of insertion, then a row each.
        var candidates: [(stored: _GraphObject, sequence: Int64)] = []
        let names = names
        do throws(FetchError) {
            try context.base.forEachRecord { borrowed, sequence throws(FetchError) in
                if names.contains(borrowed.entity) { candidates.append((copy borrowed, sequence)) }
            }
        } catch {
            throw .evaluation(error.description)
        }
        candidates.sort { $0.sequence < $1.sequence }
        let store = ObjectStore<_GraphRow>()
        rows = ObjectContext(store: store, name: "graph controller rows")
        controller = FetchedResultsController(
            fetchRequest: FetchRequest(predicate: RecordPredicate { $0.matches }, sortKeys: sortKeys, fetchLimit: request.fetchLimit),
            context: rows, sectionNameKeyPath: sectionNameKeyPath.map(inner))
        var made: [_GraphRow] = []
        made.reserveCapacity(candidates.count)
        for (stored, _) in candidates {
            let (row, read) = try self.row(stored)
            made.append(row)
            note(stored.id, reads: read)
        }
        do {
            for row in made { try rows.insert(row) }
            try rows.save()
        } catch {
            throw .evaluation("\(error)")   // a store in memory of distinct identities: not expected
        }
        do throws(FetchError) {
            try controller.performFetch()
        } catch {
            throw .controller(error)
        }
        controller.delegate = relay
        observation = context.base.addObserver { [weak self] change in self?.graphDidChange(change) }
    }

    /// An object's row, and the objects its key paths read.
    func row(_ stored: _GraphObject) throws(GraphFetchError) -> (_GraphRow, [ObjectID]) {
        visits.ids.removeAll(keepingCapacity: true)
        reader.failure.value = nil
        let record: any Record & Codable
        do throws(ObjectGraphError) { record = try stored.record(in: context.model) } catch { throw .graph(error) }
        let object = _Resolved(stored: stored, record: record)
        var matches = true
        if let test {
            do throws(PredicateEvaluationError) { matches = try test(object) } catch { throw .evaluation(error.description) }
        }
        // The sort and section values of an object that does not match are never read.
        let values = matches ? keyReaders.map { $0(object) } : []
        if let dangling = reader.failure.value {
            reader.failure.value = nil
            throw .graph(dangling)
        }
        return (_GraphRow(object: GraphObject(entityName: stored.entity, id: stored.id, record: record), matches: matches, values: values), visits.ids)
    }

    /// Keeps what an object's key paths read, in both maps.
    func note(_ id: ObjectID, reads new: [ObjectID]) {
        for old in reads[id] ?? [] {
            readers[old]?.remove(id)
            if readers[old]?.isEmpty == true { readers[old] = nil }
        }
        if new.isEmpty {
            reads[id] = nil
        } else {
            reads[id] = new
            for destination in new { readers[destination, default: []].insert(id) }
        }
    }

    /// A change of the graph context: the objects of the entity that changed,
    /// and those whose key paths read an object that changed, get new rows;
    /// the inner controller reports what that did to the results.
    ///
    /// - Complexity: O(*r* (*p* + log *n*)) for *r* such objects, each of
    ///   whose key paths reads *p* objects.
    func graphDidChange(_ change: _ContextChange<_GraphObject>) {
        reader.invalidate()
        var affected: [ObjectID] = []
        var seen = Set<ObjectID>()
        let changed = Set(change.ids)
        for id in change.ids {
            if seen.insert(id).inserted { affected.append(id) }
            for reader in readers[id] ?? [] where seen.insert(reader).inserted { affected.append(reader) }
        }
        var updates: [(id: ObjectID, row: _GraphRow?, reads: [ObjectID], own: Bool)] = []
        do throws(GraphFetchError) {
            for id in affected {
                guard let stored = context.base.peek(id), names.contains(stored.entity) else {
                    if rows.peek(id) != nil || reads[id] != nil { updates.append((id, nil, [], true)) }
                    continue
                }
                let (row, read) = try self.row(stored)
                updates.append((id, row, read, changed.contains(id)))
            }
        } catch {
            owner?.didFail(error)
            return
        }
        rows.performChanges {
            for update in updates {
                note(update.id, reads: update.reads)
                let old = rows.peek(update.id)
                do {
                    if let row = update.row {
                        if old == nil {
                            try rows.insert(row)
                        } else if update.own || old?.matches != row.matches || old?.values != row.values {
                            try rows.update(row)
                        }
                    } else if old != nil {
                        try rows.delete(update.id)
                    }
                } catch {
                    continue   // peeked just before: the rows have (or have not) it
                }
            }
        }
        _ = try? rows.save()
    }
}

/// Receives the inner controller's report and tells the graph controller's
/// delegate, with the graph's objects.
final class _GraphRelay: FetchedResultsControllerDelegate {
    typealias Object = _GraphRow
    weak var owner: GraphFetchedResultsController?

    func controllerWillChangeContent(_ controller: FetchedResultsController<_GraphRow>) {
        guard let owner else { return }
        owner.delegate?.controllerWillChangeContent(owner)
    }

    func controller(
        _ controller: FetchedResultsController<_GraphRow>, didChange section: FetchedResultsSectionInfo<_GraphRow>,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
    ) {
        guard let owner else { return }
        owner.delegate?.controller(owner, didChange: GraphFetchedResultsController.sectionInfo(section), atSectionIndex: sectionIndex, for: type)
    }

    func controller(
        _ controller: FetchedResultsController<_GraphRow>, didChange object: _GraphRow,
        at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?
    ) {
        guard let owner else { return }
        owner.delegate?.controller(owner, didChange: object.object, at: indexPath, for: type, newIndexPath: newIndexPath)
    }

    func controllerDidChangeContent(_ controller: FetchedResultsController<_GraphRow>) {
        guard let owner else { return }
        owner.delegate?.controllerDidChangeContent(owner)
    }

    func controller(_ controller: FetchedResultsController<_GraphRow>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        guard let owner else { return nil }
        return owner.delegate?.controller(owner, sectionIndexTitleForSectionName: sectionName)
    }

    func controller(_ controller: FetchedResultsController<_GraphRow>, didFailWith error: FetchError) {
        guard let owner else { return }
        owner.didFail(.controller(error))
    }
}
