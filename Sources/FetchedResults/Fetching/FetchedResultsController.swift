import Foundation
import InternalTableUtilities
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
/// changes processed there (``ObjectContext/processPendingChanges()``, which
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
    public let context: ObjectContext<R>
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
            cachedIndexTitles = nil   // the delegate may give other titles
            updateTracking()
        }
    }

    /// Receivers told about every change after the delegate, in the order they
    /// were added; held weakly.
    private var observers: [_WeakDelegate<R>] = []

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
    private var receivers: [any FetchedResultsControllerDelegate<R>] {
        (delegate.map { [$0] } ?? []) + observers.compactMap(\.receiver)
    }

    private func updateTracking() {
        let tracking = delegate != nil || observers.contains { $0.receiver != nil }
        if !tracking {
            observation = nil
        } else if observation == nil {
            observation = context.addObserver { [weak self] in self?.contextDidChange($0) }
        }
    }

    /// The error the last change ran into, if any: a change after which the first
    /// sort key no longer orders the sections. Cleared by `performFetch()`.
    public var lastError: FetchError? { _lastError }
    @usableFromInline var _lastError: FetchError?

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
        let context = context
        ordered.keepRecords { context.object(withID: $0) }
        rebuildSections()
    }

    @usableFromInline var compiled: _CompiledRequest<R>?
    @usableFromInline var ordered = _OrderedElements<R>()
    @usableFromInline var sectionList: [(name: String, count: Int)] = []
    @usableFromInline var sectionStarts: [Int] = [0]
    /// Whether a change made the first sort key stop ordering the sections (a name in two runs).
    @usableFromInline var sectionsRepeatNames = false
    /// The section index titles, kept until the sections or the delegate change.
    @usableFromInline var cachedIndexTitles: [String]?
    private var observation: _ObservationToken?
    /// Records read on demand, by batch (batch size only); cleared on every change.
    @usableFromInline var batchCache: [Int: [R]] = [:]
    @usableFromInline var batchCacheOrder: [Int] = []

    /// A controller of a request's results in a context, in sections by a key
    /// path's value (one section without), its results kept under a cache
    /// name; call ``performFetch()`` to fetch.
    public init(fetchRequest: FetchRequest<R>, context: ObjectContext<R>, sectionNameKeyPath: String? = nil, cacheName: String? = nil) {
        self.fetchRequest = fetchRequest
        self.context = context
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
        fetchRequest: FetchRequest<R>, context: ObjectContext<R>, sectionNameKeyPath: String?, sectionCollation: TableIndexCollation?,
        cacheName: String? = nil
    ) {
        self.fetchRequest = fetchRequest
        self.context = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.sectionCollation = sectionCollation
        self.cacheName = cacheName
    }

    // MARK: Fetching

    /// Fetches the results.
    ///
    /// - Throws: ``FetchError/noSortKeys``, ``FetchError/unknownKey(_:)``,
    ///   ``FetchError/sectionsOutOfOrder(index:sectionName:)``,
    ///   ``FetchError/predicateFailed(_:)``, ``FetchError/cacheMismatch(cacheName:)``
    ///   (the request changed and the cache was not deleted); the previous results stay.
    /// - Complexity: O(*n* + *m* log *m*) for *n* records and *m* matches; O(1)
    ///   from a valid cache.
    @inlinable
    public func performFetch() throws(FetchError) {
        guard !fetchRequest.sortKeys.isEmpty else { throw .noSortKeys }
        let compiled = try _CompiledRequest(fetchRequest, sectionKeyPath: sectionNameKeyPath, sectionCollation: sectionCollation)
        let fingerprint = cacheFingerprint
        let keepRecords = keepsRecords
        if requestChangedSinceFetch, let cacheName, _cacheDiffers(cacheName, fingerprint) { throw .cacheMismatch(cacheName: cacheName) }
        var fetched: _Fetched<R>
        if let cacheName, let fingerprint, !context.hasChanges,
            let cached = context.store.state.withLock({ (state: inout _StoreState<R>) -> _Fetched<R>? in
                guard let cache = state.fetchCaches[cacheName], cache.storeVersion == state.version,
                    cache.fingerprint == "\(fingerprint)|\(keepRecords)"
                else { return nil }
                return cache.payload as? _Fetched<R>
            })
        {
            fetched = cached
        } else {
            fetched = try _Fetch.run(compiled, in: context, keepRecords: keepRecords)
            if let cacheName, let fingerprint, !context.hasChanges {
                let payload = fetched
                context.store.state.withLock { state in
                    state.fetchCaches[cacheName] = _FetchCache(fingerprint: "\(fingerprint)|\(keepRecords)", storeVersion: state.version, payload: payload)
                }
            }
        }
        fetched.narrow(offset: fetchRequest.fetchOffset, limit: fetchRequest.fetchLimit)
        // Sections: contiguous runs of a name; a name seen before is out of order.
        var sections: [(name: String, count: Int)] = []
        if sectionNameKeyPath == nil {
            sections = [("", fetched.count)]
        } else {
            var seen = Set<String>()
            for k in 0..<fetched.count {
                let name = fetched.sectionName(at: k)
                if let last = sections.last, last.name == name {
                    sections[sections.count - 1].count += 1
                } else {
                    guard seen.insert(name).inserted else { throw .sectionsOutOfOrder(index: k.addingReportingOverflow(fetchRequest.fetchOffset).overflow ? Int.max : k + fetchRequest.fetchOffset, sectionName: name) }
                    sections.append((name, 1))
                }
            }
        }
        self.compiled = compiled
        _lastError = nil
        sectionsRepeatNames = false
        cachedIndexTitles = nil
        requestChangedSinceFetch = false
        fetchGeneration &+= 1
        ordered = _OrderedElements(consume fetched)
        sectionList = sections
        recomputeStarts()
        batchCache.removeAll()
        batchCacheOrder.removeAll()
    }

    /// What identifies the request for a cache; nil when it cannot be
    /// identified (a closure or Foundation predicate: delete the cache yourself
    /// when you change it, as with Core Data).
    @usableFromInline var cacheFingerprint: String? {
        let predicate: String
        if let p = fetchRequest.predicate {
            predicate = p.fingerprint ?? "closure"
        } else {
            predicate = "all"
        }
        return "\(R.self)|\(predicate)|\(fetchRequest.sortKeys)|\(sectionNameKeyPath ?? "")\(sectionCollation.map { "@" + $0.tableIdentifier } ?? "")|\(fetchRequest.fetchOffset)|\(fetchRequest.fetchLimit ?? -1)"
    }

    /// Deletes the results kept under a cache name (every cache for nil).
    public static func deleteCache(withName name: String?, in store: ObjectStore<R>) {
        store.state.withLock { state in
            if let name { state.fetchCaches[name] = nil } else { state.fetchCaches.removeAll() }
        }
    }

    @usableFromInline func recomputeStarts() {
        sectionStarts = [0]
        sectionStarts.reserveCapacity(sectionList.count + 1)
        for section in sectionList { sectionStarts.append(sectionStarts[sectionStarts.count - 1] + section.count) }
    }

    // MARK: Reading

    /// Every fetched object, in order; nil before a successful `performFetch()`.
    ///
    /// - Complexity: O(*n*) (and reads every record, with a batch size).
    public var fetchedObjects: [R]? {
        guard compiled != nil else { return nil }
        return (0..<ordered.count).compactMap { record(at: $0) }
    }

    /// The sections; nil before a successful `performFetch()`.
    public var sections: [FetchedResultsSectionInfo<R>]? {
        guard compiled != nil else { return nil }
        return sectionList.enumerated().map { k, section in sectionInfo(k, name: section.name, count: section.count) }
    }

    private func sectionInfo(_ k: Int, name: String, count: Int) -> FetchedResultsSectionInfo<R> {
        let start = sectionStarts[k]
        return FetchedResultsSectionInfo(
            name: name, indexTitle: sectionIndexTitle(forSectionName: name), numberOfObjects: count,
            load: { [weak self] in
                guard let self else { return [] }
                return (start..<min(start + count, self.ordered.count)).compactMap { self.record(at: $0) }
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
        guard compiled != nil else { return snapshot }
        try snapshot.appendSections(sectionList.map(\.name))
        let ids = ordered.identities
        if sectionList.count == 1 {
            try snapshot.appendItems(ids)
        } else {
            var start = 0
            for section in sectionList {
                try snapshot.appendItems(Array(ids[start..<start + section.count]), toSection: section.name)
                start += section.count
            }
        }
        return snapshot
    }

    /// The number of sections (0 before a fetch).
    public var numberOfSections: Int { compiled == nil ? 0 : sectionList.count }

    /// The name of a section (nil for a section that does not exist): what
    /// `sections?[section].name` says, without building the sections.
    ///
    /// A table's header titles come from here, once per section shown.
    public func name(ofSection section: Int) -> String? {
        sectionList.indices.contains(section) ? sectionList[section].name : nil
    }

    /// The number of objects in a section (0 for a section that does not exist).
    public func numberOfObjects(inSection section: Int) -> Int {
        sectionList.indices.contains(section) ? sectionList[section].count : 0
    }

    /// The object at an index path.
    ///
    /// - Throws: ``FetchError/noObject(at:sectionCount:rowCount:)`` for a path
    ///   outside the results, ``FetchError/notFetched`` before a fetch.
    /// - Complexity: O(log *n*); with a batch size, a batch is read on a miss.
    public func object(at indexPath: TablePath) throws(FetchError) -> R {
        guard compiled != nil else { throw .notFetched }
        guard sectionList.indices.contains(indexPath.section) else {
            throw .noObject(at: indexPath, sectionCount: sectionList.count, rowCount: nil)
        }
        let count = sectionList[indexPath.section].count
        guard (0..<count).contains(indexPath.row), let record = record(at: sectionStarts[indexPath.section] + indexPath.row) else {
            throw .noObject(at: indexPath, sectionCount: sectionList.count, rowCount: count)
        }
        return record
    }

    /// The identity of the object at an index path, without reading the
    /// object; nil for a path outside the results.
    ///
    /// - Complexity: O(log *n*).
    public func objectID(at indexPath: TablePath) -> R.ID? {
        guard compiled != nil, sectionStarts.indices.contains(indexPath.section + 1), indexPath.row >= 0,
            indexPath.row < numberOfObjects(inSection: indexPath.section)
        else { return nil }
        return ordered.element(at: sectionStarts[indexPath.section] + indexPath.row).id
    }

    /// The index path of an object (by identity), or nil when it is not in the results.
    ///
    /// - Complexity: O(log *n*) (the first call builds an index, O(*n*)).
    public func indexPath(for object: R) -> TablePath? { indexPath(forObjectWithID: object.id) }

    /// The index path of the object with an identity, or nil.
    public func indexPath(forObjectWithID id: R.ID) -> TablePath? {
        guard compiled != nil, let position = ordered.position(of: id) else { return nil }
        return path(ofPosition: position)
    }

    private func path(ofPosition position: Int) -> TablePath {
        // The last section starting at or before the position (sections may be empty only transiently).
        var low = 0, high = sectionList.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if sectionStarts[mid] <= position { low = mid } else { high = mid - 1 }
        }
        while low + 1 < sectionList.count && sectionStarts[low + 1] <= position { low += 1 }
        return TablePath(row: position - sectionStarts[low], section: low)
    }

    /// The record at a position: kept, or read from the context a batch at a time.
    private func record(at position: Int) -> R? {
        if let record = ordered.record(at: position) { return record }
        let element = ordered.element(at: position)
        let size = max(fetchRequest.fetchBatchSize, 1)
        let batch = position / size
        if batchCache[batch] == nil {
            let range = (batch * size)..<min(ordered.count, (batch + 1) * size)
            batchCache[batch] = range.map { context.object(withID: ordered.element(at: $0).id) }.compactMap { $0 }
            batchCacheOrder.append(batch)
            if batchCacheOrder.count > 4 { batchCache[batchCacheOrder.removeFirst()] = nil }
        }
        if let records = batchCache[batch], position - batch * size < records.count, records[position - batch * size].id == element.id {
            return records[position - batch * size]
        }
        return context.object(withID: element.id)
    }

    // MARK: Section index

    /// The index title of a section name: the delegate's, or the capitalized
    /// first letter — with a ``sectionCollation``, the name itself (a title of
    /// the collation).
    public func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        if let title = delegate?.controller(self, sectionIndexTitleForSectionName: sectionName) { return title }
        if sectionCollation != nil { return sectionName }
        return sectionName.first.map { String($0).uppercased() }
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
        if let cachedIndexTitles { return cachedIndexTitles }
        var titles: [String] = []
        for section in sectionList {
            if let title = sectionIndexTitle(forSectionName: section.name), !title.isEmpty, title != titles.last {
                titles.append(title)
            }
        }
        cachedIndexTitles = titles
        return titles
    }

    /// The section a section index title jumps to: the first section with that
    /// title. `index` is the title's position in ``sectionIndexTitles``; nil when
    /// no section has the title — except with every title of a
    /// ``sectionCollation`` shown, where a title without a section jumps to
    /// the next section in the index's order (the last section when none follows).
    public func section(forSectionIndexTitle title: String, at index: Int) -> Int? {
        if let found = sectionList.firstIndex(where: { sectionIndexTitle(forSectionName: $0.name) == title }) { return found }
        guard sectionCollation != nil, showsEveryCollationIndexTitle, !sectionList.isEmpty else { return nil }
        let titles = sectionIndexTitles
        guard let position = titles.firstIndex(of: title) else { return nil }
        let place = Dictionary(titles.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        return sectionList.firstIndex { (place[$0.name] ?? Int.max) > position } ?? sectionList.count - 1
    }

    // MARK: Sections as table sections

    /// The results as table sections (reads every record).
    public var tableSections: [TableSection<R>] {
        sectionList.enumerated().map { k, section in
            TableSection(name: section.name, rows: (sectionStarts[k]..<sectionStarts[k] + section.count).compactMap { record(at: $0) })
        }
    }

    // MARK: Following changes

    /// Updates the results for the records with these identities, and reports
    /// the change. O(*k* log *n* + *c* + *s*) for *k* identities, *c* = *n* / 512
    /// chunks and *s* sections. A request with an offset or a limit refetches
    /// (its window moves with every change): O(*n* log *n*).
    private func contextDidChange(_ contextChange: _ContextChange<R>) {
        guard let compiled, !receivers.isEmpty else { return }
        let ids = contextChange.ids
        let before = deliversWholeChanges ? tableSections : []
        let oldSections = sectionList

        // 1. What each identity was and is.
        var changes: [_Change<R>] = []
        for id in ids {
            var change = _Change<R>()
            var oldRecord: R?
            if let position = ordered.position(of: id) {
                change.old = (ordered.element(at: position), path(ofPosition: position))
                oldRecord = ordered.record(at: position)
            }
            if let record = context.object(withID: id), (try? compiled.matches?(record) ?? true) == true {
                let sequence = change.old?.element.sequence ?? context.sequence(of: id) ?? Int64.max
                change.new = compiled.element(record, sequence: sequence)
                change.record = record
            } else {
                change.record = oldRecord ?? contextChange.removed[id] ?? context.object(withID: id) ?? context.store.object(withID: id)
            }
            if change.old != nil || change.new != nil { changes.append(change) }
        }
        // With an offset or a limit, any change may move the window.
        if compiled.request.fetchOffset > 0 || compiled.request.fetchLimit != nil {
            refetchAndReport(changes, before: before)
            return
        }
        guard !changes.isEmpty else { return }

        // 2. Apply: out with the old, in with the new.
        for change in changes {
            if let old = change.old { _ = ordered.remove(old.element.id) }
        }
        let isBefore = { (a: _Element<R>, b: _Element<R>) in compiled.compare(a.sortValues, a.sequence, b.sortValues, b.sequence) < 0 }
        for change in changes {
            if let element = change.new, let record = change.record { ordered.insert(element, record: record, isBefore: isBefore) }
        }
        batchCache.removeAll()
        batchCacheOrder.removeAll()
        rebuildSections()

        // 3. Sections deleted and inserted, by name.
        let (deletedSections, insertedSections) = sectionsDeletedAndInserted(from: oldSections, by: changes)

        // 4. Object changes, with Core Data's index paths.
        var deletes: [(R, TablePath)] = [], inserts: [(R, TablePath)] = [], kept: [_Kept<R>] = []
        for change in changes {
            guard let record = change.record else { continue }
            switch (change.old, change.new) {
            case let (old?, nil):
                deletes.append((record, old.path))
            case let (nil, new?):
                if let position = ordered.position(of: new.id) { inserts.append((record, path(ofPosition: position))) }
            case let (old?, new?):
                guard let position = ordered.position(of: new.id) else { continue }
                let newPath = path(ofPosition: position)
                kept.append(_Kept(record: record, old: old.path, new: newPath, sameSection: oldSections[old.path.section].name == sectionList[newPath.section].name))
            default:
                break
            }
        }
        let (updates, moves) = Self.updatesAndMoves(kept, deletes: deletes, inserts: inserts)

        report(
            deletedSections: deletedSections, insertedSections: insertedSections,
            deletes: deletes, updates: updates, moves: moves, inserts: inserts, before: before)
    }

    /// A change of a request with an offset or a limit: fetch again, and report
    /// the changed records, and those the window let in or out.
    private func refetchAndReport(_ changes: [_Change<R>], before: [TableSection<R>]) {
        let oldSections = sectionList
        var oldPaths: [R.ID: (path: TablePath, record: R?)] = [:]
        for position in 0..<ordered.count {
            oldPaths[ordered.element(at: position).id] = (path(ofPosition: position), ordered.record(at: position))
        }
        do {
            try performFetch()
        } catch {
            _lastError = error
            return
        }
        var newPaths: [R.ID: TablePath] = [:]
        for position in 0..<ordered.count { newPaths[ordered.element(at: position).id] = path(ofPosition: position) }
        let changedRecords = Dictionary(changes.compactMap { c in c.record.map { ($0.id, $0) } }, uniquingKeysWith: { a, _ in a })
        var deletes: [(R, TablePath)] = [], inserts: [(R, TablePath)] = [], kept: [_Kept<R>] = []
        for (id, old) in oldPaths {
            if let newPath = newPaths[id] {
                guard let record = changedRecords[id] else { continue }   // unchanged: not reported
                kept.append(_Kept(record: record, old: old.path, new: newPath, sameSection: oldSections[old.path.section].name == sectionList[newPath.section].name))
            } else if let record = changedRecords[id] ?? old.record ?? context.object(withID: id) {
                deletes.append((record, old.path))
            }
        }
        for (id, newPath) in newPaths where oldPaths[id] == nil {
            if let record = changedRecords[id] ?? context.object(withID: id) { inserts.append((record, newPath)) }
        }
        let oldNames = Set(oldSections.map(\.name)), newNames = Set(sectionList.map(\.name))
        if deletes.isEmpty && inserts.isEmpty && kept.isEmpty && oldNames == newNames { return }
        let (updates, moves) = Self.updatesAndMoves(kept, deletes: deletes, inserts: inserts)
        report(
            deletedSections: oldSections.enumerated().filter { !newNames.contains($0.element.name) },
            insertedSections: sectionList.enumerated().filter { !oldNames.contains($0.element.name) },
            deletes: deletes, updates: updates, moves: moves, inserts: inserts, before: before)
    }

    /// Tells the delegate and the observers, in Core Data's order.
    private func report(
        deletedSections: [(offset: Int, element: (name: String, count: Int))],
        insertedSections: [(offset: Int, element: (name: String, count: Int))],
        deletes: [(R, TablePath)], updates: [(R, TablePath, TablePath)], moves: [(R, TablePath, TablePath)], inserts: [(R, TablePath)],
        before: [TableSection<R>]
    ) {
        let after = deliversWholeChanges ? tableSections : []
        for delegate in receivers {
            if let receiver = delegate as? any FetchedResultsControllerSnapshotDelegate {
                deliverSnapshot(to: receiver, changed: updates.map(\.0.id) + moves.map(\.0.id))
                continue
            }
            tell(
                delegate, deletedSections: deletedSections, insertedSections: insertedSections,
                deletes: deletes, updates: updates, moves: moves, inserts: inserts)
            if deliversWholeChanges {
                delegate.controller(self, didChangeContentWith: FetchedResultsChange(sectionsBefore: before, sectionsAfter: after))
            }
        }
    }

    /// Tells one receiver a change, in Core Data's order.
    private func tell(
        _ delegate: any FetchedResultsControllerDelegate<R>,
        deletedSections: [(offset: Int, element: (name: String, count: Int))],
        insertedSections: [(offset: Int, element: (name: String, count: Int))],
        deletes: [(R, TablePath)], updates: [(R, TablePath, TablePath)], moves: [(R, TablePath, TablePath)], inserts: [(R, TablePath)]
    ) {
        delegate.controllerWillChangeContent(self)
        for (k, section) in deletedSections {
            delegate.controller(self, didChange: FetchedResultsSectionInfo(name: section.name, indexTitle: sectionIndexTitle(forSectionName: section.name), numberOfObjects: 0, load: { [] }), atSectionIndex: k, for: .delete)
        }
        for (k, section) in insertedSections {
            delegate.controller(self, didChange: sectionInfo(k, name: section.name, count: section.count), atSectionIndex: k, for: .insert)
        }
        for (record, path) in deletes.sorted(by: { $0.1 < $1.1 }) {
            delegate.controller(self, didChange: record, at: path, for: .delete, newIndexPath: nil)
        }
        for (record, path, newPath) in updates.sorted(by: { $0.1 < $1.1 }) {
            delegate.controller(self, didChange: record, at: path, for: .update, newIndexPath: newPath)
        }
        for (record, from, to) in moves.sorted(by: { $0.1 < $1.1 }) {
            delegate.controller(self, didChange: record, at: from, for: .move, newIndexPath: to)
        }
        for (record, path) in inserts.sorted(by: { $0.1 < $1.1 }) {
            delegate.controller(self, didChange: record, at: nil, for: .insert, newIndexPath: path)
        }
        delegate.controllerDidChangeContent(self)
    }

    /// Hands a snapshot delegate the results, with the changed objects marked.
    private func deliverSnapshot<D: FetchedResultsControllerSnapshotDelegate>(to receiver: D, changed: [R.ID]) {
        guard let controller = self as? FetchedResultsController<D.Object>, let changed = changed as? [D.Object.ID] else { return }
        guard var snapshot = try? controller.snapshot() else { return }   // sections out of order: lastError says so
        let present = changed.filter { snapshot.indexOfItem($0) != nil }   // so marking cannot fail
        switch changedObjectsInSnapshots {
        case .reconfigure: try? snapshot.reconfigureItems(present)
        case .reload: try? snapshot.reloadItems(present)
        }
        receiver.controller(controller, didChangeContentWith: snapshot)
    }

    /// Sections from the order: its runs of one section name. O(*c* + *s*).
    private func rebuildSections() {
        sectionList = sectionNameKeyPath == nil ? [("", ordered.count)] : ordered.sectionRuns
        recomputeStarts()
    }

    /// The sections a change deleted (old indexes) and inserted (new ones).
    ///
    /// Only the sections of the changed objects can come or go: a section is
    /// gone when its objects before, less those that left it, plus those
    /// that came, are none — and new when the same holds the other way.
    /// That is O(*k* log *n*) without looking at the other sections. When the
    /// count of sections does not add up, or a new section's name is also
    /// another section's, the first sort key stopped ordering the sections
    /// (a name in two runs): the sections are compared by name, O(*s*), and
    /// ``lastError`` says so (the runs stay separate sections, as the objects
    /// are ordered).
    private func sectionsDeletedAndInserted(
        from oldSections: [(name: String, count: Int)], by changes: [_Change<R>]
    ) -> (deleted: [(offset: Int, element: (name: String, count: Int))], inserted: [(offset: Int, element: (name: String, count: Int))]) {
        guard sectionNameKeyPath != nil else { return ([], []) }
        var delta: [String: Int] = [:], oldIndex: [String: Int] = [:], newIndex: [String: Int] = [:]
        for change in changes {
            if let old = change.old {
                let name = oldSections[old.path.section].name
                delta[name, default: 0] -= 1
                oldIndex[name] = old.path.section
            }
            if let new = change.new, let position = ordered.position(of: new.id) {
                let section = path(ofPosition: position).section, name = sectionList[section].name
                delta[name, default: 0] += 1
                newIndex[name] = section
            }
        }
        let deleted = oldIndex.filter { oldSections[$0.value].count + delta[$0.key, default: 0] == 0 }.map(\.value).sorted()
        let inserted = newIndex.filter { sectionList[$0.value].count - delta[$0.key, default: 0] == 0 }.map(\.value).sorted()
        let consistent = !sectionsRepeatNames && sectionList.count == oldSections.count - deleted.count + inserted.count
            && inserted.allSatisfy { t in !sectionList.indices.contains { $0 != t && sectionList[$0].name == sectionList[t].name } }
        if consistent {
            if !deleted.isEmpty || !inserted.isEmpty { cachedIndexTitles = nil }
            return (deleted.map { ($0, oldSections[$0]) }, inserted.map { ($0, sectionList[$0]) })
        }
        // By name, over all sections.
        cachedIndexTitles = nil
        var seen = Set<String>(), offset = 0
        sectionsRepeatNames = false
        for section in sectionList {
            if !seen.insert(section.name).inserted {
                _lastError = .sectionsOutOfOrder(index: offset, sectionName: section.name)
                sectionsRepeatNames = true
                break
            }
            offset += section.count
        }
        let oldNames = Set(oldSections.map(\.name)), newNames = seen.union(sectionList.map(\.name))
        return (
            oldSections.enumerated().filter { !newNames.contains($0.element.name) },
            sectionList.enumerated().filter { !oldNames.contains($0.element.name) }
        )
    }
}

/// A receiver of changes, held weakly.
struct _WeakDelegate<R: Record & Codable> {
    weak var receiver: (any FetchedResultsControllerDelegate<R>)?
}

/// What one identity was and is, in a change.
struct _Change<R: Record> {
    var old: (element: _Element<R>, path: TablePath)?
    var new: _Element<R>?
    var record: R?
}
