import Foundation
import PredicateFormat
import RecordStore
import Records

// A fetch read from an index of the store's file (format 2): the index
// gives the snapshot's records in the request's order without decoding them;
// the records saved since the snapshot, and the context's unsaved ones, are
// placed among them by binary search (decoding O(log n) records each). The
// results keep identities only — a lean order (`_Placement`) — and records
// are read a batch at a time, as with any batch size.

extension FetchedResultsController {
    /// The results of the request, read from an index of the store's file
    /// when one covers it; nil when none does (the caller fetches as usual).
    ///
    /// An index covers a request of a controller with a batch size (and not
    /// ``deliversWholeChanges``) of one entity without sub-entities of its
    /// record type, without key paths through relationships, sorted by
    /// exactly the index's keys, each ascending and compared plainly.
    ///
    /// - Throws: what `performFetch()` throws for the predicate, the sections
    ///   and the store's file.
    /// - Complexity: O(*n*) index entries read for *n* records of the
    ///   snapshot (no record decoded without a predicate or a section key;
    ///   each decoded with one) — O(log *n* + *m*) for the *m* entries a
    ///   predicate's leading comparisons bound (see `indexRange`) — plus
    ///   O(*k* log *n*) records decoded to place *k* records saved since the
    ///   snapshot or not yet saved.
    @usableFromInline
    func indexedFetch(_ compiled: _CompiledRequest<R>, access: _EntityAccess<R>) throws(FetchError) -> (ordered: _OrderedElements<R>, sections: [_SectionRun])? {
        _indexPositionsRead = nil
        indexIsServed = false
        let request = compiled.request
        guard request.fetchBatchSize > 0, !deliversWholeChanges, compiled.relationships == nil, access.members.count == 1, let k = access.entity,
            request.sortKeys.allSatisfy({ $0.ascending && $0.comparison == .plain })
        else { return nil }
        let keys = request.sortKeys.map(\.keyPath)
        let pending = context.pending(k, R.self).pending
        let store = context.store
        let sectioned = sectionNameKeyPath != nil

        typealias Read = (ids: _ChunkedIDs, placed: [R.ID: _ElementDetails], version: Int64, nextSequence: Int64, epoch: Int, positions: Range<Int>?, served: Bool)
        let result: Result<Read?, FetchError> = store.state.withLock { state in
            let table = state.table(k, R.self)
            guard let base = table.base, let number = base.indexKeys.firstIndex(of: keys) else { return .success(nil) }
            do throws(FetchError) {
                let read = try Self.readIndex(number, of: table, base: base, pending: pending, compiled: compiled)
                return .success((read.ids, read.placed, state.version, state.nextSequence, state.historyEpoch, read.positions, base.findsIdentities))
            } catch {
                return .failure(error)
            }
        }
        guard var read = try result.get() else { return nil }
        let version = read.version
        _indexPositionsRead = read.positions
        indexIsServed = read.served

        // Offset and limit.
        let start = min(max(0, request.fetchOffset), read.ids.count)
        let end = request.fetchLimit.map { start + min(read.ids.count - start, max(0, $0)) } ?? read.ids.count
        if start > 0 || end < read.ids.count { read.ids = _ChunkedIDs(Array(read.ids.all.dropFirst(start).prefix(end - start))) }

        let placement = _Placement<R>(
            version: version, nextSequence: read.nextSequence, epoch: read.epoch, compare: { compiled.compare($0, 0, $1, 0) },
            read: { [store] id in
                store.state.withLock { state in state.table(k, R.self).record(id, asOf: version) }.map { compiled.element($0.record, sequence: $0.sequence).details }
            })
        placement.placed = read.placed

        // The sections: one, those kept on disk under the cache name for this
        // request and store version, or each row's name (its record read).
        var sections = _SectionRuns(checkingOrder: true)
        let persistentKey = cacheName == nil || context.hasChanges ? nil : cacheKey(entity: k).persistentDescription
        let onDisk = cacheName.flatMap { name in persistentKey.flatMap { store.sectionCache(named: name, request: $0, version: version) } }
        if let onDisk, onDisk.sections.reduce(0, { $0 + $1.count }) == read.ids.count {
            for section in onDisk.sections { sections.append(section.name, count: section.count) }
        } else if !sectioned {
            sections.append("", count: read.ids.count)
        } else {
            for (position, id) in read.ids.all.enumerated() {
                guard let details = placement.details(of: id) else { throw .unreadable(store.state.withLock { $0.damage } ?? .corrupt(path: "the store", reason: "\(id) cannot be read")) }
                guard sections.append(details.sectionName) else {
                    let index = position.addingReportingOverflow(request.fetchOffset)
                    throw .sectionsOutOfOrder(index: index.overflow ? Int.max : index.partialValue, sectionName: details.sectionName)
                }
            }
        }
        if let damage = store.state.withLock({ $0.damage }) { throw .unreadable(damage) }
        if let cacheName, let persistentKey, onDisk == nil { keepSections(sections.runs, named: cacheName, request: persistentKey, version: version) }

        var chunks: [_Chunk<R>] = []
        chunks.reserveCapacity(read.ids.chunks.count)
        for ids in read.ids.chunks { chunks.append(_Chunk(ids: ids, index: chunks.count)) }
        read.ids = _ChunkedIDs()
        return (_OrderedElements(lean: chunks, placement: placement), sections.runs)
    }

    /// Identities in order, in the controller's chunks (half full: room for
    /// inserts): read from an index straight into them, not into one array
    /// copied into chunks after — at 10M rows, 80 MB less at the peak.
    struct _ChunkedIDs {
        static var size: Int { _OrderedElements<R>.maxChunk / 2 }
        private(set) var chunks: [[R.ID]] = []
        private(set) var count = 0

        init() {}

        /// `ids` in chunks.
        init(_ ids: [R.ID]) {
            var p = 0
            while p < ids.count {
                let end = Swift.min(ids.count, p + Self.size)
                chunks.append(Array(ids[p..<end]))
                p = end
            }
            count = ids.count
        }

        /// Every identity, in order.
        var all: FlattenSequence<[[R.ID]]> { chunks.joined() }

        /// Appends a chunk (at most ``size`` identities).
        mutating func append(_ chunk: [R.ID]) {
            chunks.append(chunk)
            count += chunk.count
        }
    }

    /// The positions of index `number` that can hold matches, when the
    /// request's predicate begins with comparisons of the index's first key
    /// with constants (`==`, `<`, `<=`, `>`, `>=`, `BETWEEN`, no options) —
    /// and of its second key, which narrow the range where the first is
    /// equal to one value — each key holding values of its constants' kind
    /// only (numbers, dates or strings; no NaN) or nil. Outside them, one
    /// of those comparisons is false for every record, and none fails on
    /// any record — as a test of each record would find — and a false
    /// comparison ends the predicate's test. `exact` when those comparisons
    /// are the whole predicate, each in the range: every record in it
    /// matches. Nil otherwise: the whole index is read and each record
    /// tested.
    ///
    /// - Complexity: O(log *n*) records decoded (a binary search of the
    ///   index for each bound).
    static func indexRange(
        _ number: Int, of table: _EntityTable<R>, base: _BaseEntity, compiled: _CompiledRequest<R>
    ) throws(StoreError) -> (positions: Range<Int>, exact: Bool)? {
        guard let kinds = base.keyKinds[number], let predicate = compiled.request.predicate else { return nil }
        let keys = base.indexKeys[number], readers = compiled.sortReaders
        // The leading comparisons of the first key, and of the second, with
        // constants of their values' kind: a range of each.
        let (comparisons, alone) = _leadingComparisons(predicate)
        var found: [_IndexBounds?] = [nil, nil]
        var used = 0
        search: for comparison in comparisons {
            for k in 0..<Swift.min(2, keys.count, kinds.count, readers.count) {
                guard let next = _IndexBounds(comparison, key: keys[k]), !kinds[k].contains(.nan), kinds[k].isSubset(of: .rank(next.rank)) else { continue }
                found[k] = found[k].map { $0.intersection(next) } ?? next
                used += 1
                continue search
            }
            break
        }
        guard let first = found[0] else { return nil }
        // The second key's range counts where the first is one value (its
        // entries then in the second's order).
        let second = first.isOneValue ? found[1] : nil
        // The keys' values at a position of the index.
        func values(at position: Int) throws(StoreError) -> (_SortValue, _SortValue) {
            let ordinal = try base.indexOrdinal(number, position)
            let record = try table.baseRecordForAPass(ordinal)
            return (_SortValue(readers[0](record), comparison: .plain), second == nil ? .null : _SortValue(readers[1](record), comparison: .plain))
        }
        // The first position in `range` whose values are not before a bound.
        func firstNotBefore(_ range: Range<Int>, _ before: ((_SortValue, _SortValue)) -> Bool) throws(StoreError) -> Int {
            var low = range.lowerBound, high = range.upperBound
            while low < high {
                let mid = low + (high - low) / 2
                if before(try values(at: mid)) { low = mid + 1 } else { high = mid }
            }
            return low
        }
        // Before the lower bound: nil first, never in a range.
        func beforeLower(_ bounds: _IndexBounds?, _ value: _SortValue) -> Bool? {
            guard let bound = bounds?.lower else { return value.rank == 0 ? true : nil }
            let c = _SortValue.compare(value, bound.value)
            return c != 0 || !bound.inclusive ? c <= 0 : nil
        }
        func beforeUpper(_ bounds: _IndexBounds?, _ value: _SortValue) -> Bool? {
            guard let bound = bounds?.upper else { return nil }
            let c = _SortValue.compare(value, bound.value)
            return c != 0 || !bound.inclusive ? c < 0 : nil
        }
        // Each answers for the first key, or (equal to its bound) for the second.
        let lower = try firstNotBefore(0..<base.count) { values in
            beforeLower(first, values.0) ?? (second.map { beforeLower($0, values.1) ?? false } ?? false)
        }
        let upper = try firstNotBefore(lower..<base.count) { values in
            beforeUpper(first, values.0) ?? (second.map { beforeUpper($0, values.1) ?? true } ?? true)
        }
        return (lower..<upper, alone && used == comparisons.count && (found[1] == nil || second != nil))
    }

    /// The identities of index `number`'s order, with the records saved
    /// since the snapshot and the context's unsaved ones placed among them,
    /// the predicate applied; and the details of the unsaved ones placed
    /// (a lean order keeps them). Runs under the store's lock.
    static func readIndex(
        _ number: Int, of table: _EntityTable<R>, base: _BaseEntity, pending: _PendingChanges<R>, compiled: _CompiledRequest<R>
    ) throws(FetchError) -> (ids: _ChunkedIDs, placed: [R.ID: _ElementDetails], positions: Range<Int>?) {
        let matches = compiled.matches
        // The records not read from the index: in memory, and unsaved.
        var extras: [(record: R, details: _ElementDetails, unsaved: Bool)] = []
        var hidden = Set<R.ID>(pending.deleted)
        for id in pending.updated.keys { hidden.insert(id) }
        for k in table.records.indices {
            let record = table.records[k]
            if pending.deleted.contains(record.id) { continue }
            let shown = pending.updated[record.id] ?? record
            if let matches, try !matches(shown) { continue }
            extras.append((shown, compiled.element(shown, sequence: table.sequences[k]).details, pending.updated[record.id] != nil))
        }
        for (id, record) in pending.updated where table.position(of: id) == nil {
            guard let sequence = table.lookup(id)?.sequence else { continue }
            if let matches, try !matches(record) { continue }
            extras.append((record, compiled.element(record, sequence: sequence).details, true))
        }
        for id in pending.insertedIDs {
            guard let record = pending.inserted[id], let sequence = pending.insertedSequences[id] else { continue }
            if let matches, try !matches(record) { continue }
            extras.append((record, compiled.element(record, sequence: sequence).details, true))
        }
        extras.sort { compiled.compare($0.details.sortValues, $0.details.sequence, $1.details.sortValues, $1.details.sequence) < 0 }

        // The index's order, without the records shadowed, hidden or not
        // matching: the entries the predicate's leading comparisons bound
        // (those alone, without testing each, when they are the predicate).
        var positions: Range<Int>? = nil
        var test = matches
        do throws(StoreError) {
            if let range = try indexRange(number, of: table, base: base, compiled: compiled) {
                positions = range.positions
                if range.exact { test = nil }
            }
        } catch {
            throw .unreadable(error)
        }
        var ordinals: [Int32] = []
        if !extras.isEmpty { ordinals.reserveCapacity(base.count) }
        var failure: FetchError?
        // Read once, outside the loop over a million entries. (The bits of
        // the records shadowed are read only when some are: read in the
        // index's order, they are a cache miss a row.)
        let shadowed = table.shadowed, readKept = table.keptIdentityReader
        let hiding = !hidden.isEmpty, placing = !extras.isEmpty, shadowing = table.shadowedCount > 0
        var unreadable: StoreError?
        // Where most of the index is read and each record tested, every
        // record is tested first in the file's order, a chunk at a time
        // (each record once, its chunk read in order: about 1.4 µs a record
        // at 1M), not each found in its chunk in the index's order (a walk
        // of half a chunk: about 2.3 µs).
        var matched: _Bits?
        if let test, (positions?.count ?? base.count) >= base.count / 3 * 2 {
            var bits = _Bits(count: base.count)
            do throws(StoreError) {
                for c in 0..<base.chunkCount where failure == nil {
                    try base.forEachRecord(inChunk: c, from: 0) { ordinal, _, _, bytes throws(StoreError) in
                        if shadowing && shadowed[ordinal] { return true }
                        let record = try table.decode(bytes, ordinal: ordinal)
                        if hiding && hidden.contains(record.id) { return true }
                        do throws(FetchError) {
                            if try test(record) { bits[ordinal] = true }
                        } catch {
                            failure = error
                            return false
                        }
                        return true
                    }
                }
            } catch {
                throw .unreadable(error)
            }
            if let failure { throw failure }
            matched = bits
        }
        // Written in place into a chunk's worth of room, then moved into a
        // chunk: an append to an array of `R.ID` would look up the array's
        // type for each row (this code is not specialized for the app's type).
        var ids = _ChunkedIDs()
        let size = _ChunkedIDs.size
        let room = UnsafeMutableBufferPointer<R.ID>.allocate(capacity: size)
        var filled = 0
        defer {
            _ = UnsafeMutableBufferPointer(rebasing: room[0..<filled]).deinitialize()
            room.deallocate()
        }
        func moveIntoAChunk() {
            ids.append([R.ID](unsafeUninitializedCapacity: filled) { chunk, initialized in
                initialized = chunk.moveInitialize(fromContentsOf: UnsafeMutableBufferPointer(rebasing: room[0..<filled]))
            })
            filled = 0
        }
        do throws(StoreError) {
            try base.forEachBlock(ofIndex: number, in: positions) { block throws(StoreError) in
                for j in 0..<block.count {
                    let ordinal = block.ordinal(j)
                    if shadowing && shadowed[ordinal] { continue }
                    let id: R.ID
                    if let identities = block.identities {
                        id = identities.assumingMemoryBound(to: R.ID.self)[j]
                    } else if let readKept {
                        id = readKept(block.identity(j))
                    } else {
                        id = try table.baseIdentity(ordinal, block.identity(j))
                    }
                    if hiding && hidden.contains(id) { continue }
                    if let matched {
                        guard matched[ordinal] else { continue }
                    } else if let test {
                        let record = try table.baseRecordForAPass(ordinal)
                        do throws(FetchError) {
                            guard try test(record) else { continue }
                        } catch {
                            failure = error
                            return false
                        }
                    }
                    room.initializeElement(at: filled, to: id)
                    filled += 1
                    if filled == size { moveIntoAChunk() }
                    if placing { ordinals.append(Int32(truncatingIfNeeded: ordinal)) }
                }
                return true
            }
        } catch {
            unreadable = error
        }
        if filled > 0 { moveIntoAChunk() }
        if let unreadable { throw .unreadable(unreadable) }
        if let failure { throw failure }
        var placed: [R.ID: _ElementDetails] = [:]
        for extra in extras where extra.unsaved { placed[extra.record.id] = extra.details }
        guard !extras.isEmpty else { return (ids, placed, positions) }

        // Each extra's place among the index's rows: by binary search.
        func details(at position: Int) throws(StoreError) -> _ElementDetails {
            let found = try table.baseRecord(Int(ordinals[position]))
            return compiled.element(found.record, sequence: found.sequence).details
        }
        let flat = Array(ids.all)
        var merged: [R.ID] = []
        merged.reserveCapacity(flat.count + extras.count)
        var next = 0
        do throws(StoreError) {
            for extra in extras {
                var low = next, high = flat.count
                while low < high {
                    let mid = (low + high) / 2
                    let row = try details(at: mid)
                    if compiled.compare(row.sortValues, row.sequence, extra.details.sortValues, extra.details.sequence) < 0 { low = mid + 1 } else { high = mid }
                }
                merged.append(contentsOf: flat[next..<low])
                merged.append(extra.record.id)
                next = low
            }
        } catch {
            throw .unreadable(error)
        }
        merged.append(contentsOf: flat[next...])
        return (_ChunkedIDs(merged), placed, positions)
    }
}

extension FetchedResultsController {
    /// Keeps the sections of a fetch on disk under the cache name (a store
    /// with a file; see `_SectionCache`), with the index titles a controller
    /// without a delegate gives them.
    func keepSections(_ sections: [_SectionRun], named name: String, request: String, version: Int64) {
        guard let identity = context.store.cacheIdentity, identity.version == version else { return }
        var titles: [String] = []
        for section in sections {
            if let title = _sectionIndexTitle(forSectionName: section.name, collation: sectionCollation), !title.isEmpty, title != titles.last { titles.append(title) }
        }
        context.store.keepSectionCache(_SectionCache(
            name: name, storeID: identity.storeID, storeVersion: version, request: request,
            sections: sections.map { _SectionCache.Section(name: $0.name, count: $0.count) }, indexTitles: titles))
    }

    /// Keeps a fetch's sections on disk under the cache name, unless they
    /// are there already (a fetch that did not read them from there).
    @usableFromInline
    func keepSectionsOnDisk(_ sections: [_SectionRun], named name: String, entity: Int?) {
        guard let identity = context.store.cacheIdentity, let request = cacheKey(entity: entity).persistentDescription,
            context.store.sectionCache(named: name, request: request, version: identity.version)?.sections.map(\.name) != sections.map(\.name)
        else { return }
        keepSections(sections, named: name, request: request, version: identity.version)
    }

    /// Whether the last fetch was read from an index of the store's file
    /// (its results a lean order: identities only). For tests and benchmarks.
    package var _readFromIndex: Bool { results.ordered.isLean }
}

/// A predicate's leading comparisons — those it tests first, in order, a
/// false one ending the test: the comparisons that begin its `AND`s — and
/// whether they are the whole predicate.
func _leadingComparisons<R>(_ predicate: RecordPredicate<R>) -> (comparisons: [FormatPredicate.Comparison], alone: Bool) {
    func leading(_ conditions: [FormatPredicate.Condition]) -> ([FormatPredicate.Comparison], Bool) {
        var found: [FormatPredicate.Comparison] = []
        for condition in conditions {
            switch condition {
            case .comparison(let comparison): found.append(comparison)
            case .and(let parts):
                let (more, alone) = leading(parts)
                found += more
                if !alone { return (found, false) }
            default: return (found, false)
            }
        }
        return (found, true)
    }
    switch predicate.kind {
    case .format(let format): return leading([format.condition])
    case .all(let predicates):
        var found: [FormatPredicate.Comparison] = []
        for predicate in predicates {
            let (more, alone) = _leadingComparisons(predicate)
            found += more
            if !alone { return (found, false) }
        }
        return (found, true)
    case .closure, .throwing: return ([], false)
    }
}

/// The bounds a comparison of a key with a constant puts on the key's
/// values in an index's order, and the constant's sort rank: nil for any
/// other comparison, options, or a constant that is not a number, a date or
/// a string (or is NaN).
struct _IndexBounds {
    var lower: (value: _SortValue, inclusive: Bool)?
    var upper: (value: _SortValue, inclusive: Bool)?
    var rank: Int

    /// Whether the bounds hold one value alone (`==`, or `BETWEEN` one and itself).
    var isOneValue: Bool {
        guard let lower, let upper, lower.inclusive, upper.inclusive else { return false }
        return _SortValue.compare(lower.value, upper.value) == 0
    }

    /// The values both bound (of one rank).
    func intersection(_ other: _IndexBounds) -> _IndexBounds {
        var result = self
        if let b = other.lower {
            if let a = lower {
                let c = _SortValue.compare(a.value, b.value)
                if c < 0 || (c == 0 && !b.inclusive) { result.lower = b }
            } else {
                result.lower = b
            }
        }
        if let b = other.upper {
            if let a = upper {
                let c = _SortValue.compare(a.value, b.value)
                if c > 0 || (c == 0 && !b.inclusive) { result.upper = b }
            } else {
                result.upper = b
            }
        }
        return result
    }

    init?(_ comparison: FormatPredicate.Comparison, key: String) {
        guard comparison.quantifier == nil, comparison.options.isEmpty else { return nil }
        var op = comparison.operator
        let constant: RecordValue
        switch (comparison.left, comparison.right) {
        case (.key(let k), .constant(let v)) where k == key:
            constant = v
        case (.constant(let v), .key(let k)) where k == key:
            // `3 < rank` is `rank > 3`.
            switch op {
            case .equal: break
            case .less: op = .greater
            case .lessOrEqual: op = .greaterOrEqual
            case .greater: op = .less
            case .greaterOrEqual: op = .lessOrEqual
            default: return nil
            }
            constant = v
        default:
            return nil
        }
        func bound(_ value: RecordValue) -> _SortValue? {
            let sortValue = _SortValue(value, comparison: .plain)
            switch sortValue {
            case .int, .uint, .string: return sortValue
            case .double(let d), .date(let d): return d.isNaN ? nil : sortValue
            default: return nil
            }
        }
        switch op {
        case .equal, .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let value = bound(constant) else { return nil }
            rank = value.rank
            if op == .equal || op == .greater || op == .greaterOrEqual { lower = (value, op != .greater) }
            if op == .equal || op == .less || op == .lessOrEqual { upper = (value, op != .less) }
        case .between:
            guard case .array(let pair) = constant, pair.count == 2, let low = bound(pair[0]), let high = bound(pair[1]), low.rank == high.rank else { return nil }
            rank = low.rank
            lower = (low, true)
            upper = (high, true)
        default:
            return nil
        }
    }
}
