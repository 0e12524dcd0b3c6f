import Foundation
import InternalTableUtilities
import PredicateFormat
import RecordStore
import Records
import TableDiff

/// A sorted, sectioned view of the records of a context that tells its delegate
/// exactly what changed — Core Data's `NSFetchedResultsController`, headless.
///
/// ```swift
/// let controller = FetchedResultsController(
///     fetchRequest: FetchRequest<Entry>(sortKeys: [SortKey("month", ascending: false), SortKey("created", ascending: false)]),
///     context: context, sectionNameKeyPath: "month")
/// controller.delegate = self
/// try controller.performFetch()
/// let entry = try controller.object(at: TablePath(row: 0, section: 0))
/// ```
///
/// The rules are Core Data's: the request needs at least one sort key; with a
/// section key, the first sort key must order the sections (otherwise
/// `performFetch()` fails with Core Data's "out of order section name" error);
/// without one there is exactly one section, even with no objects; with one and
/// no objects there are none; a nil section value goes into the section "".
///
/// **Changes.** While a delegate is set, the controller follows its context:
/// changes processed there (`ObjectContext.processPendingChanges()`, which
/// `save()` does first), rolled back, or merged from another context's save.
/// It works out each change from the records that changed — O(*k* log *n*) for
/// *k* changed records in results of *n* — and reports it to the delegate. Without
/// a delegate, the results stay as they were until the next `performFetch()`.
///
/// **Batches.** With a positive ``FetchRequest/fetchBatchSize``, the controller
/// keeps the identities and sort values of every match, and reads the records
/// from the store a batch at a time as they are accessed.
public final class FetchedResultsController<R: Record & Codable> {
    /// The request: as given, or as last set. Setting it changes nothing until
    /// the next ``performFetch()``, which fetches with it (the results, and the
    /// changes reported, are the last fetch's until then) — as with Core Data.
    /// A controller with a ``cacheName`` must delete its cache
    /// (``deleteCache(withName:in:)``) before fetching with a changed request:
    /// otherwise `performFetch()` fails with ``FetchError/cacheMismatch(cacheName:)``.
    public var fetchRequest: FetchRequest<R> {
        didSet { requestChangedSinceFetch = true }
    }
    /// Whether ``fetchRequest`` was set since the last successful fetch (the
    /// cache check of `performFetch()`).
    @usableFromInline var requestChangedSinceFetch = false
    /// Counts successful fetches (a search knows by it that the results it
    /// filtered came from the same request).
    @usableFromInline package internal(set) var fetchGeneration = 0
    /// The context whose records the controller shows.
    public let context: ObjectContext
    /// The context seen as the request's entity: the last fetch's (the
    /// initial request's before one).
    @usableFromInline var access: _EntityAccess<R>
    /// What each fetched object's key paths through relationships read (nil
    /// when none does): a change of an object read is a change of those
    /// that read it.
    @usableFromInline var reverse: _ReverseMap<R>?
    /// The key path whose value names an object's section; nil for one section.
    public let sectionNameKeyPath: String?
    /// When set, an object's section is this collation's section of its
    /// ``sectionNameKeyPath`` value, named by its title (`A`, `Ö`, `#`): a
    /// contacts-style index. With `SortKey(sectionNameKeyPath, collation:)`
    /// (the same collation) as the first sort key, the sections are always in
    /// order, in the collation's order. See <doc:CollationAndSectionIndex>.
    public let sectionCollation: TableIndexCollation?
    /// With a ``sectionCollation``: whether ``sectionIndexTitles`` lists every
    /// title of the collation (UIKit's contacts index, `A` to `#`), rather than
    /// only the titles of the sections there are. Default: false.
    public var showsEveryCollationIndexTitle = false
    /// A name under which the results are kept in the store for a later
    /// controller with the same request (see ``deleteCache(withName:in:)``).
    public let cacheName: String?

    /// Told about changes. Setting a delegate starts change tracking; clearing it
    /// (with no observers left) stops it.
    ///
    /// There is one delegate, as in Core Data; code that follows the controller
    /// beside the app's delegate (a table binding, a diffable data source)
    /// adds itself with ``addObserver(_:)`` instead.
    public weak var delegate: (any FetchedResultsControllerDelegate<R>)? {
        didSet {
            results.cachedIndexTitles = nil   // the delegate may give other titles
            updateTracking()
        }
    }

    /// Receivers told about every change after the delegate, in the order they
    /// were added; held weakly.
    private var observers: [_WeakDelegate<R>] = []
    /// The consumers of ``changes(includingSnapshots:)`` (`FetchedResultsController+AsyncChanges.swift`).
    let changeStreams = _ChangeStreams<R>()

    /// Adds a receiver of changes beside the ``delegate``: it is told every
    /// change, with the same calls, after the delegate and the observers added
    /// before it. Held weakly; adding one twice adds it once. Change tracking
    /// runs while there is a delegate or an observer.
    public func addObserver(_ observer: any FetchedResultsControllerDelegate<R>) {
        observers.removeAll { $0.receiver == nil }
        guard !observers.contains(where: { $0.receiver === observer }) else { return }
        observers.append(_WeakDelegate(receiver: observer))
        updateTracking()
    }

    /// Removes an observer added with ``addObserver(_:)`` (nothing happens for
    /// one that is not there).
    public func removeObserver(_ observer: any FetchedResultsControllerDelegate<R>) {
        observers.removeAll { $0.receiver == nil || $0.receiver === observer }
        updateTracking()
    }

    /// The delegate, then the observers still alive.
    var receivers: [any FetchedResultsControllerDelegate<R>] {
        (delegate.map { [$0] } ?? []) + observers.compactMap(\.receiver)
    }

    func updateTracking() {
        let tracking = delegate != nil || observers.contains { $0.receiver != nil } || !changeStreams.isEmpty
        if !tracking {
            observation = nil
        } else if observation == nil {
            observation = context.addObserver { [weak self] in self?.contextDidChange($0) }
        }
    }

    /// The error the last change ran into, if any: a change after which the first
    /// sort key no longer orders the sections (the change applied), or one
    /// the controller could not follow because its predicate failed on a
    /// changed record (the change did not apply: see
    /// ``FetchedResultsControllerDelegate/controller(_:didFailWith:)``).
    /// Cleared by `performFetch()`.
    public var lastError: FetchError? { results.lastError }

    /// When on, every change is also delivered whole, as the sections before and
    /// after (see ``FetchedResultsControllerDelegate/controller(_:didChangeContentWith:)``);
    /// this costs O(*n*) per change, and keeps every record in memory (even with a
    /// batch size: the sections before need the records before).
    public var deliversWholeChanges = false {
        didSet { if deliversWholeChanges && !oldValue { keepAllRecords() } }
    }

    /// How the objects that changed are marked in the snapshots delivered to a
    /// ``FetchedResultsControllerSnapshotDelegate`` (default: reconfigured).
    public var changedObjectsInSnapshots = ChangedObjectMarking.reconfigure

    /// Whether elements hold their records.
    @usableFromInline var keepsRecords: Bool { fetchRequest.fetchBatchSize <= 0 || deliversWholeChanges }

    private func keepAllRecords() {
        let access = access
        results.ordered.keepRecords { access.object(withID: $0) }
        rebuildSections()
        startBuildingSearchIndexes()   // rows whose records are gone left
    }

    /// The results and what is derived from them: one value, replaced
    /// whole by each fetch.
    @usableFromInline var results = _ControllerResults<R>()
    private var observation: _ObservationToken?
    /// The folded text searches asked for (see `startIndexing(_:)`).
    var searchIndexes: [_SearchIndexSlot<R>] = []
    /// What the making of a search index on a thread of its own waits for
    /// before it reads a row (tests: ``_holdSearchIndexMaking()``).
    var searchIndexMakingWaitsFor: _Latch?
    /// How many batches were read, on demand and ahead (`FetchedResultsController+Prefetching.swift`).
    package internal(set) var batchReads = _BatchReads()
    /// The positions of the index the last fetch read from the store's file,
    /// when its predicate bounded them (`_IndexedFetch.swift`; for tests).
    package internal(set) var _indexPositionsRead: Range<Int>?
    /// Whether the last fetch read its order from an index a persistence of
    /// your own serves (`_IndexedFetch.swift`): the debug builds' check then
    /// reads no record (it would read every row from that database).
    var indexIsServed = false

    /// A controller of a request's results in a context, in sections by a key
    /// path's value (one section without), its results kept under a cache
    /// name; call ``performFetch()`` to fetch.
    public init(fetchRequest: FetchRequest<R>, context: ObjectContext, sectionNameKeyPath: String? = nil, cacheName: String? = nil) {
        self.fetchRequest = fetchRequest
        self.context = context
        access = _EntityAccess(unchecked: fetchRequest, in: context)
        self.sectionNameKeyPath = sectionNameKeyPath
        self.sectionCollation = nil
        self.cacheName = cacheName
    }

    /// A controller whose sections are a collation's sections of a key path's
    /// value (see ``sectionCollation``):
    ///
    /// ```swift
    /// let german = TableIndexCollation(localeIdentifier: "de")
    /// let controller = FetchedResultsController(
    ///     fetchRequest: FetchRequest<Person>(sortKeys: [SortKey("name", collation: german)]),
    ///     context: context, sectionNameKeyPath: "name", sectionCollation: german)
    /// ```
    public init(
        fetchRequest: FetchRequest<R>, context: ObjectContext, sectionNameKeyPath: String?, sectionCollation: TableIndexCollation?,
        cacheName: String? = nil
    ) {
        self.fetchRequest = fetchRequest
        self.context = context
        access = _EntityAccess(unchecked: fetchRequest, in: context)
        self.sectionNameKeyPath = sectionNameKeyPath
        self.sectionCollation = sectionCollation
        self.cacheName = cacheName
    }

    // MARK: Fetching

    /// Fetches the results.
    ///
    /// - Throws: ``FetchError/noSortKeys``, ``FetchError/unknownEntity(_:)``,
    ///   ``FetchError/unknownKey(_:)``,
    ///   ``FetchError/danglingReference(object:relationship:destination:)``,
    ///   ``FetchError/sectionsOutOfOrder(index:sectionName:)``,
    ///   ``FetchError/predicateFailed(_:)``, ``FetchError/predicateThrew(_:)``,
    ///   ``FetchError/cacheMismatch(cacheName:)``
    ///   (the request changed and the cache was not deleted); the previous results stay.
    /// - Complexity: O(*n* + *m* log *m*) for *n* records and *m* matches; O(1)
    ///   from a valid cache. A key path through a to-one relationship reads
    ///   each distinct destination once, one through a to-many relationship
    ///   each destination of each object.
    @inlinable
    public func performFetch() throws(FetchError) {
        guard !fetchRequest.sortKeys.isEmpty else { throw .noSortKeys }
        let access = try _EntityAccess(fetchRequest, in: context)
        let compiled = try _CompiledRequest(fetchRequest, sectionKeyPath: sectionNameKeyPath, sectionCollation: sectionCollation, access: access)
        let key = cacheKey(entity: access.entity)
        let keepRecords = keepsRecords
        let store = context.store
        if requestChangedSinceFetch, let cacheName, store.keepsResults(named: cacheName, forAnotherRequestThan: key) {
            throw .cacheMismatch(cacheName: cacheName)
        }
        // A request an index of the store's file covers: its order read from the index.
        if let indexed = try indexedFetch(compiled, access: access) {
            self.access = access
            self.reverse = nil
            didFetch(compiled, indexed.ordered, sections: indexed.sections)
            return
        }
        var fetched: _Fetched<R>
        // Results read through relationships are not cached: their reverse map is made by the fetch.
        let cacheable = compiled.relationships == nil && !context.hasChanges
        let reverse = compiled.relationships == nil ? nil : _ReverseMap<R>()
        if let cacheName, cacheable, let cached: _Fetched<R> = store.cachedResults(named: cacheName, for: key, keepingRecords: keepRecords) {
            fetched = cached
        } else {
            let version = store.version
            fetched = try _Fetch.run(compiled, in: access, keepRecords: keepRecords, reads: reverse.map { map in { id, refs in map.replaceReads(of: id, with: refs) } })
            if let failure = compiled.failure { throw failure }
            if let cacheName, cacheable {
                store.keep(fetched, named: cacheName, for: key, keepingRecords: keepRecords, fetchedAt: version)
            }
        }
        fetched.narrow(offset: fetchRequest.fetchOffset, limit: fetchRequest.fetchLimit)
        let sections = try fetched.sections(keyed: sectionNameKeyPath != nil, offset: fetchRequest.fetchOffset)
        if let cacheName, cacheable { keepSectionsOnDisk(sections, named: cacheName, entity: access.entity) }
        self.access = access
        self.reverse = reverse
        didFetch(compiled, _OrderedElements(consume fetched), sections: sections)
    }

    /// Makes a fetch's results the controller's: its request, its objects in
    /// order and its sections; clears what the last results left (the last
    /// change's error, the index titles, the batches read).
    @usableFromInline
    func didFetch(_ compiled: _CompiledRequest<R>, _ ordered: consuming _OrderedElements<R>, sections: [_SectionRun]) {
        results = _ControllerResults(compiled, ordered, sections: sections)
        requestChangedSinceFetch = false
        fetchGeneration &+= 1
        // What the first change or search needs, built while the caller draws.
        results.ordered.startBuildingMembers()
        startBuildingSearchIndexes()
        // The whole check reads every row — every record, of results read
        // from an index — so a debug build checks each fetch of up to
        // `checkedAfterEachFetchUpTo` rows only: an app's debug build at a
        // million rows waited 406 s for its first frame, against 0.35 s
        // without. The tests call the check themselves; a build with
        // HEADLESS_TABLE_INTERNAL_CHECKS checks every fetch.
        #if HEADLESS_TABLE_INTERNAL_CHECKS
        _checkInvariants()
        #else
        if results.ordered.count <= Self.checkedAfterEachFetchUpTo { _checkInvariants() }
        #endif
    }

    /// The most rows a debug build checks after each fetch (`_checkInvariants()`).
    static var checkedAfterEachFetchUpTo: Int { 10_000 }

    /// What identifies the request's results in the store's cache.
    /// A closure or Foundation predicate cannot be identified: every such
    /// predicate counts as the same (delete the cache yourself when you
    /// change it, as with Core Data).
    @usableFromInline func cacheKey(entity: Int?) -> _FetchCacheKey {
        _FetchCacheKey(fetchRequest, entity: entity, sectionKeyPath: sectionNameKeyPath, sectionCollation: sectionCollation)
    }

    /// Deletes the results kept under a cache name (every cache for nil).
    public static func deleteCache(withName name: String?, in store: ObjectStore) {
        store.deleteCache(named: name)
    }

    // MARK: Reading

    /// Every fetched object, in order; nil before a successful `performFetch()`.
    ///
    /// - Complexity: O(*n*) (and reads every record, with a batch size).
    public var fetchedObjects: [R]? {
        guard results.compiled != nil else { return nil }
        return results.ordered.records(in: 0..<results.ordered.count) ?? (0..<results.ordered.count).compactMap { record(at: $0) }
    }

    /// The sections; nil before a successful `performFetch()`.
    public var sections: [FetchedResultsSectionInfo<R>]? {
        guard results.compiled != nil else { return nil }
        return results.sectionList.enumerated().map { k, section in sectionInfo(k, name: section.name, count: section.count) }
    }

    func sectionInfo(_ k: Int, name: String, count: Int) -> FetchedResultsSectionInfo<R> {
        let start = results.sectionStarts[k]
        return FetchedResultsSectionInfo(
            name: name, indexTitle: sectionIndexTitle(forSectionName: name), numberOfObjects: count,
            load: { [weak self] in
                guard let self else { return [] }
                let range = start..<min(start + count, self.results.ordered.count)
                return self.results.ordered.records(in: range) ?? range.compactMap { self.record(at: $0) }
            })
    }

    /// The results as a snapshot: the sections by name, the objects by
    /// identity, in order (empty before a successful `performFetch()`).
    ///
    /// - Throws: `TableSnapshotError/duplicateSections(_:)` when a
    ///   change made the first sort key stop ordering the sections, so that a
    ///   section name occurs twice (``lastError`` says so too).
    /// - Complexity: O(*n* + *s*).
    public func snapshot() throws(TableSnapshotError<String, R.ID>) -> TableSnapshot<String, R.ID> {
        var snapshot = TableSnapshot<String, R.ID>()
        guard results.compiled != nil else { return snapshot }
        try snapshot.appendSections(results.sectionList.map(\.name))
        let ids = results.ordered.identities
        if results.sectionList.count == 1 {
            try snapshot.appendItems(ids)
        } else {
            var start = 0
            for section in results.sectionList {
                try snapshot.appendItems(Array(ids[start..<start + section.count]), toSection: section.name)
                start += section.count
            }
        }
        return snapshot
    }

    /// The number of sections (0 before a fetch).
    public var numberOfSections: Int { results.compiled == nil ? 0 : results.sectionList.count }

    /// The name of a section (nil for a section that does not exist): what
    /// `sections?[section].name` says, without building the sections.
    ///
    /// A table's header titles come from here, once per section shown.
    public func name(ofSection section: Int) -> String? {
        results.sectionList.indices.contains(section) ? results.sectionList[section].name : nil
    }

    /// The number of objects in every section, in order (empty before a
    /// fetch): what ``numberOfObjects(inSection:)`` says of each — a table's
    /// counts in one call.
    ///
    /// - Complexity: O(*s*) for *s* sections, one pass over the sections kept.
    public var numberOfObjectsInSections: [Int] { results.compiled == nil ? [] : results.sectionList.map { $0.count } }

    /// The number of objects in a section (0 for a section that does not exist).
    public func numberOfObjects(inSection section: Int) -> Int {
        results.sectionList.indices.contains(section) ? results.sectionList[section].count : 0
    }

    /// The object at an index path.
    ///
    /// - Throws: ``FetchError/noObject(at:sectionCount:rowCount:)`` for a path
    ///   outside the results, ``FetchError/notFetched`` before a fetch.
    /// - Complexity: O(log *n*); with a batch size, a batch is read on a miss.
    public func object(at indexPath: TablePath) throws(FetchError) -> R {
        guard results.compiled != nil else { throw .notFetched }
        guard results.sectionList.indices.contains(indexPath.section) else {
            throw .noObject(at: indexPath, sectionCount: results.sectionList.count, rowCount: nil)
        }
        let count = results.sectionList[indexPath.section].count
        guard (0..<count).contains(indexPath.row), let record = record(at: results.sectionStarts[indexPath.section] + indexPath.row) else {
            if let damage = context.store.damage { throw .unreadable(damage) }
            throw .noObject(at: indexPath, sectionCount: results.sectionList.count, rowCount: count)
        }
        return record
    }

    /// The identity of the object at an index path, without reading the
    /// object; nil for a path outside the results.
    ///
    /// - Complexity: O(log *n*).
    public func objectID(at indexPath: TablePath) -> R.ID? {
        guard results.compiled != nil, results.sectionStarts.indices.contains(indexPath.section + 1), indexPath.row >= 0,
            indexPath.row < numberOfObjects(inSection: indexPath.section)
        else { return nil }
        return results.ordered.id(at: results.sectionStarts[indexPath.section] + indexPath.row)
    }

    /// The index path of an object (by identity), or nil when it is not in the results.
    ///
    /// - Complexity: O(log *n*) (the first call builds an index, O(*n*)).
    public func indexPath(for object: R) -> TablePath? { indexPath(forObjectWithID: object.id) }

    /// The index path of the object with an identity, or nil.
    public func indexPath(forObjectWithID id: R.ID) -> TablePath? {
        guard results.compiled != nil, let position = results.ordered.position(of: id) else { return nil }
        return path(ofPosition: position)
    }

    func path(ofPosition position: Int) -> TablePath {
        // The last section starting at or before the position (sections may be empty only transiently).
        var low = 0, high = results.sectionList.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if results.sectionStarts[mid] <= position { low = mid } else { high = mid - 1 }
        }
        while low + 1 < results.sectionList.count && results.sectionStarts[low + 1] <= position { low += 1 }
        return TablePath(row: position - results.sectionStarts[low], section: low)
    }

    /// The record at a position: kept, or read from the context a batch at a time.
    func record(at position: Int) -> R? {
        if let record = results.ordered.record(at: position) { return record }
        let id = results.ordered.id(at: position)
        let size = max(fetchRequest.fetchBatchSize, 1)
        let batch = position / size
        // The order read into a local: the cache's closure must not read
        // `results` while the cache (part of it) is being changed.
        let ordered = results.ordered, access = access
        let records = results.batchCache.batch(batch) {
            batchReads.onDemand += 1
            let range = (batch * size)..<min(ordered.count, (batch + 1) * size)
            return range.map { access.object(withID: ordered.id(at: $0)) }.compactMap { $0 }
        }
        if position - batch * size < records.count, records[position - batch * size].id == id {
            return records[position - batch * size]
        }
        return access.object(withID: id)
    }

    // MARK: Section index

    /// The index title of a section name: the delegate's, or the capitalized
    /// first letter — with a ``sectionCollation``, the name itself (a title of
    /// the collation).
    public func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        if let title = delegate?.controller(self, sectionIndexTitleForSectionName: sectionName) { return title }
        return _sectionIndexTitle(forSectionName: sectionName, collation: sectionCollation)
    }

    /// The titles of the section index: each section's title, in order, a title
    /// equal to the one before it skipped. With a ``sectionCollation`` and
    /// ``showsEveryCollationIndexTitle``, every title of the collation, in the
    /// sections' order (reversed when the first sort key is descending).
    ///
    /// - Complexity: O(*s*) after a change that inserted or deleted sections;
    ///   O(1) otherwise (kept).
    public var sectionIndexTitles: [String] {
        if let sectionCollation, showsEveryCollationIndexTitle {
            let titles = sectionCollation.sectionIndexTitles
            return fetchRequest.sortKeys.first?.ascending == false ? titles.reversed() : titles
        }
        if let titles = results.cachedIndexTitles { return titles }
        var titles: [String] = []
        for section in results.sectionList {
            if let title = sectionIndexTitle(forSectionName: section.name), !title.isEmpty, title != titles.last {
                titles.append(title)
            }
        }
        results.cachedIndexTitles = titles
        return titles
    }

    /// The section a section index title jumps to: the first section with that
    /// title. `index` is the title's position in ``sectionIndexTitles``; nil when
    /// no section has the title — except with every title of a
    /// ``sectionCollation`` shown, where a title without a section jumps to
    /// the next section in the index's order (the last section when none follows).
    public func section(forSectionIndexTitle title: String, at index: Int) -> Int? {
        if let found = results.sectionList.firstIndex(where: { sectionIndexTitle(forSectionName: $0.name) == title }) { return found }
        guard sectionCollation != nil, showsEveryCollationIndexTitle, !results.sectionList.isEmpty else { return nil }
        let titles = sectionIndexTitles
        guard let position = titles.firstIndex(of: title) else { return nil }
        let place = Dictionary(titles.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        return results.sectionList.firstIndex { (place[$0.name] ?? Int.max) > position } ?? results.sectionList.count - 1
    }

    // MARK: Sections as table sections

    /// The results as table sections (reads every record).
    public var tableSections: [TableSection<R>] {
        results.sectionList.enumerated().map { k, section in
            let range = results.sectionStarts[k]..<results.sectionStarts[k] + section.count
            return TableSection(name: section.name, rows: results.ordered.records(in: range) ?? range.compactMap { record(at: $0) })
        }
    }
}

/// The index title of a section name when no delegate gives one: with a
/// section collation, the name itself (a title of the collation); otherwise
/// its first character, capitalized (nil for "") — the one rule of a
/// controller's titles and of the tool's browser, which sections its data
/// without a controller.
package func _sectionIndexTitle(forSectionName sectionName: String, collation: TableIndexCollation?) -> String? {
    if collation != nil { return sectionName }
    return sectionName.first.map { String($0).uppercased() }
}

/// A receiver of changes, held weakly.
struct _WeakDelegate<R: Record & Codable> {
    weak var receiver: (any FetchedResultsControllerDelegate<R>)?
}
