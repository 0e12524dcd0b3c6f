import Foundation
import PredicateFormat
import RecordStore
import Records

/// A fetch request made ready: readers resolved, predicate ready.
@usableFromInline
struct _CompiledRequest<R: Record & Codable> {
    @usableFromInline let request: FetchRequest<R>
    @usableFromInline let matches: ((R) throws(FetchError) -> Bool)?
    @usableFromInline let sortReaders: [RecordReader<R>]
    @usableFromInline let sectionReader: RecordReader<R>?
    @usableFromInline let sectionIsFirstSortKey: Bool
    /// Sections by this collation's index title of the section key's value.
    @usableFromInline let sectionCollation: TableIndexCollation?
    /// Whether the first sort key is the section key, ordered by the section
    /// collation: the section is then the first sort value's key's first weight.
    @usableFromInline let sectionIsFirstKeysSection: Bool
    /// What reads the key paths that go through relationships; nil when none does.
    @usableFromInline let relationships: _RelationshipReader?

    /// The request compiled for records of `access`'s entity, its key paths
    /// through relationships read in `access`'s context.
    @inlinable
    init(_ request: FetchRequest<R>, sectionKeyPath: String?, sectionCollation: TableIndexCollation? = nil, access: _EntityAccess<R>?) throws(FetchError) {
        for (name, value) in [("fetchLimit", request.fetchLimit ?? 0), ("fetchOffset", request.fetchOffset), ("fetchBatchSize", request.fetchBatchSize)] where value < 0 {
            throw .negativeSetting(name, value)
        }
        self.request = request
        let reading = access.flatMap { _PredicateReading<R>($0, request: request, sectionKeyPath: sectionKeyPath) }
        relationships = reading?.reader
        matches = try request.predicate?.evaluator(relationships: reading?.formats)
        sectionIsFirstSortKey = sectionKeyPath != nil && sectionKeyPath == request.sortKeys.first?.keyPath
        self.sectionCollation = sectionCollation
        if let sectionCollation, sectionIsFirstSortKey, let first = request.sortKeys.first {
            sectionIsFirstKeysSection = first.comparison == .collation(sectionCollation)
        } else {
            sectionIsFirstKeysSection = false
        }
        func reader(_ path: String) throws(FetchError) -> RecordReader<R> {
            if let reading, let reader = try reading.reader(path) { return reader }
            do throws(RecordKeyError) { return try R._reader(forKeyPath: path) } catch { throw .unknownKey(error) }
        }
        sortReaders = try request.sortKeys.map { key throws(FetchError) in try reader(key.keyPath) }
        sectionReader = try sectionKeyPath.map { path throws(FetchError) in try reader(path) }
    }

    /// The first reference to a missing object a key path met (reported
    /// after a fetch, as an error).
    @usableFromInline var failure: FetchError? { relationships?.failure }

    /// The sort values of a record, one per sort key.
    @inlinable
    func sortValues(_ record: R) -> _SortValues {
        switch sortReaders.count {
        case 1: return _SortValues(first: _SortValue(sortReaders[0](record), comparison: request.sortKeys[0].comparison))
        case 2:
            return _SortValues(
                first: _SortValue(sortReaders[0](record), comparison: request.sortKeys[0].comparison),
                second: _SortValue(sortReaders[1](record), comparison: request.sortKeys[1].comparison))
        default:
            return _SortValues(zip(sortReaders, request.sortKeys).map { _SortValue($0(record), comparison: $1.comparison) })
        }
    }

    @inlinable
    func sectionName(_ record: R) -> String {
        guard let sectionReader else { return "" }
        let name = _sectionName(sectionReader(record))
        return sectionCollation.map { $0.sectionTitle(for: name) } ?? name
    }

    /// A record as a controller keeps it. The section name is taken from the
    /// first sort value when the section key is the first sort key (as it
    /// usually is), so that the key is read once.
    @inlinable
    func element(_ record: borrowing R, sequence: Int64) -> _Element<R> {
        let sortValues = sortValues(record)
        let name: String
        if sectionReader == nil {
            name = ""
        } else if let sectionCollation {
            if sectionIsFirstKeysSection, case .collated(let c) = sortValues.first, let section = c.key.first {
                name = sectionCollation.sectionTitles[Int(section)]
            } else {
                name = sectionName(record)
            }
        } else {
            name = sectionIsFirstSortKey ? _sectionName(sortValues.first.recordValue) : sectionName(record)
        }
        return _Element(id: record.id, sequence: sequence, sortValues: sortValues, sectionName: name)
    }

    /// -1, 0 or 1: the order of two elements by sort values, then sequence.
    @inlinable
    func compare(_ a: _SortValues, _ sa: Int64, _ b: _SortValues, _ sb: Int64) -> Int {
        for (k, key) in request.sortKeys.enumerated() {
            let c = _SortValue.compare(a[k], b[k])
            if c != 0 { return key.ascending ? c : -c }
        }
        return sa < sb ? -1 : (sa > sb ? 1 : 0)
    }
}

/// How a fetch names a match's section: as `_CompiledRequest.element`
/// does, from the match's first sort value when the section key is the
/// first sort key, from its record otherwise.
@usableFromInline
struct _SectionNaming<R: Record>: Sendable {
    @usableFromInline let reader: RecordReader<R>?
    @usableFromInline let collation: TableIndexCollation?
    @usableFromInline let fromFirstKey: Bool
    @usableFromInline let fromFirstKeysSection: Bool

    /// The section name of match `k` of `records`; `first` is the first
    /// column of `columns`. The record is read only when the name is not
    /// in the columns: reading it through an optional copies it (a retain
    /// and a release of each of its strings, and a cache miss on each, as
    /// the matches are visited in sorted order).
    @inlinable
    func name(at k: Int, in records: UnsafeBufferPointer<R?>, first: _TypedColumn?) -> String {
        guard let reader else { return "" }
        if let collation {
            if fromFirstKeysSection, case let .collated(words, starts, _)? = first, starts[k] < starts[k + 1] {
                return collation.sectionTitles[Int(words[starts[k]])]
            }
            return collation.sectionTitle(for: _sectionName(reader(records[k].unsafelyUnwrapped)))
        }
        guard fromFirstKey, let first else { return _sectionName(reader(records[k].unsafelyUnwrapped)) }
        if case .strings(let v) = first { return v[k] }
        return _sectionName(first.value(at: k).recordValue)
    }
}

extension _SectionNaming where R: Codable {
    @inlinable
    init(_ compiled: _CompiledRequest<R>) {
        reader = compiled.sectionReader
        collation = compiled.sectionCollation
        fromFirstKey = compiled.sectionIsFirstSortKey
        fromFirstKeysSection = compiled.sectionIsFirstKeysSection
    }
}

/// The matches of a fetch as they were found — their records, sequences and
/// sort values (in columns, `_SortColumns`) — and their order. Offset and
/// limit narrow the order. No element exists until the matches are taken in
/// order (`take(inPiecesOf:_:)`): a controller's chunks are the only copy.
@usableFromInline
struct _Fetched<R: Record>: Sendable {
    /// Every match's record (kept by the chunks only when `keepsRecords`);
    /// moved out (nil) as the matches are taken.
    @usableFromInline var records: [R?]
    @usableFromInline var sequences: [Int64]
    @usableFromInline let columns: _SortColumns
    @usableFromInline let naming: _SectionNaming<R>
    @usableFromInline let keepsRecords: Bool
    @usableFromInline var order: ArraySlice<Int32>
    /// The sections of `order`, once ``sections(keyed:offset:)`` made them:
    /// the names the elements take.
    @usableFromInline var runs: [_SectionRun]?

    /// The matches found, in the order their sort keys give them (ties in
    /// the order they were inserted, their sequence).
    @inlinable
    init(records: [R?], sequences: [Int64], columns: _SortColumns, naming: _SectionNaming<R>, keepsRecords: Bool, sortKeys keys: [SortKey]) {
        let order = _sortOrder(keys: columns.columns, ascending: keys.map(\.ascending), sequences: sequences)
        self.records = records
        self.sequences = sequences
        self.columns = columns
        self.naming = naming
        self.keepsRecords = keepsRecords
        self.order = order[...]
    }

    @inlinable var count: Int { order.count }

    /// The section name of the `k`th match in order.
    @inlinable
    func sectionName(at k: Int) -> String {
        let i = Int(order[order.startIndex + k])
        let first = columns.columns.first
        return records.withUnsafeBufferPointer { naming.name(at: i, in: $0, first: first) }
    }

    /// The sections of the matches in order, as a controller makes them:
    /// without a section key (`keyed` false) one section of every match, even
    /// of none; with one, each run of a section name (none without matches).
    ///
    /// - Throws: ``FetchError/sectionsOutOfOrder(index:sectionName:)`` for
    ///   the first name that starts a second run (the first sort key does
    ///   not order the sections); its index counts `offset`, the matches
    ///   narrowed away before the first.
    /// - Complexity: O(*m*) for *m* matches (a hash for each section).
    @inlinable
    mutating func sections(keyed: Bool, offset: Int) throws(FetchError) -> [_SectionRun] {
        var sections = _SectionRuns(checkingOrder: true)
        guard keyed else {
            sections.append("", count: count)
            return sections.runs
        }
        let (naming, first) = (naming, columns.columns.first)
        // Through the buffers: reading a name does not copy its record.
        try records.withUnsafeBufferPointer { records throws(FetchError) in
            try order.withUnsafeBufferPointer { order throws(FetchError) in
                for k in order.indices {
                    let name = naming.name(at: Int(order[k]), in: records, first: first)
                    guard sections.append(name) else {
                        let index = k.addingReportingOverflow(offset)
                        throw .sectionsOutOfOrder(index: index.overflow ? Int.max : index.partialValue, sectionName: name)
                    }
                }
            }
        }
        runs = sections.runs
        return sections.runs
    }

    /// Keeps the matches from `offset`, at most `limit` of them.
    @inlinable
    mutating func narrow(offset: Int, limit: Int?) {
        let start = order.startIndex + min(max(0, offset), order.count)
        // At most what is left: a limit up to Int.max does not overflow.
        let end = limit.map { start + min(order.endIndex - start, max(0, $0)) } ?? order.endIndex
        order = order[start..<end]
        runs = nil
    }

    /// Makes the elements — identities and details, in step — (and takes
    /// the records, when kept) in order, calling `body` with each run of at
    /// most `size` of them.
    @inlinable
    consuming func take(inPiecesOf size: Int, _ body: ([R.ID], [_ElementDetails], [R]) -> Void) {
        let (naming, columns, keepsRecords) = (naming, columns, keepsRecords)
        let first = columns.columns.first
        // The section names: those of the runs when made, a run at a time.
        var runs = (self.runs ?? [])[...]
        let named = self.runs != nil
        var left = runs.first?.count ?? 0
        // Moved out of the records, which are this value's alone now: no
        // copy (unless a fetch cache shares them).
        records.withUnsafeMutableBufferPointer { records in
            sequences.withUnsafeBufferPointer { sequences in
                order.withUnsafeBufferPointer { order in
                    var k = 0
                    while k < order.count {
                        let end = min(order.count, k + size)
                        var pieceIDs: [R.ID] = [], pieceDetails: [_ElementDetails] = [], pieceRecords: [R] = []
                        pieceIDs.reserveCapacity(end - k)
                        pieceDetails.reserveCapacity(end - k)
                        if keepsRecords { pieceRecords.reserveCapacity(end - k) }
                        for j in k..<end {
                            let i = Int(order[j])
                            let name: String
                            if named {
                                while left == 0 && runs.count > 1 {
                                    runs.removeFirst()
                                    left = runs[runs.startIndex].count
                                }
                                left -= 1
                                name = runs.first?.name ?? ""
                            } else {
                                name = naming.name(at: i, in: UnsafeBufferPointer(records), first: first)
                            }
                            let id: R.ID
                            if keepsRecords {
                                // Moved out, then read: no copy of the record.
                                let record = records[i].take().unsafelyUnwrapped
                                id = record.id
                                pieceRecords.append(record)
                            } else {
                                id = records[i].unsafelyUnwrapped.id
                            }
                            pieceIDs.append(id)
                            pieceDetails.append(_ElementDetails(sequence: sequences[i], sortValues: columns.sortValues(at: i), sectionName: name))
                        }
                        body(pieceIDs, pieceDetails, pieceRecords)
                        k = end
                    }
                }
            }
        }
    }

    /// The records in order.
    @inlinable
    consuming func sortedRecords() -> [R] {
        var all: [R] = []
        all.reserveCapacity(count)
        records.withUnsafeMutableBufferPointer { records in
            for k in order.indices {
                if let record = records[Int(order[k])].take() { all.append(record) }
            }
        }
        return all
    }
}

/// The matches of a fetch as they are found: what `_Fetched` keeps of each.
/// A scan dropped half-way (a predicate that throws) frees what it holds:
/// its records and sequences are arrays, its sort values column builders
/// that free their buffers when they go.
@usableFromInline
struct _FetchScan<R: Record & Codable> {
    @usableFromInline let compiled: _CompiledRequest<R>
    @usableFromInline var records: [R?] = []
    @usableFromInline var sequences: [Int64] = []
    @usableFromInline var builders: [_ColumnBuilder]

    /// Room for `capacity` matches, not grown by copies (each growth holds
    /// the old and the new buffer): what a predicate leaves unused is never
    /// touched, so it takes no memory.
    @inlinable
    init(_ compiled: _CompiledRequest<R>, capacity: Int) {
        self.compiled = compiled
        records.reserveCapacity(capacity)
        sequences.reserveCapacity(capacity)
        builders = compiled.request.sortKeys.map { _ in _ColumnBuilder(capacity: capacity) }
    }

    @inlinable
    mutating func append(_ record: borrowing R, sequence: Int64) {
        let keys = compiled.request.sortKeys
        for k in builders.indices {
            builders[k].append(compiled.sortReaders[k](record), comparison: keys[k].comparison)
        }
        records.append(copy record)
        sequences.append(sequence)
    }

    /// The matches, ordered.
    @inlinable
    consuming func fetched(keepsRecords: Bool) -> _Fetched<R> {
        let columns = _SortColumns(builders.map { $0.column() })
        builders = []
        return _Fetched(
            records: records, sequences: sequences, columns: columns, naming: _SectionNaming(compiled),
            keepsRecords: keepsRecords, sortKeys: compiled.request.sortKeys)
    }
}

@usableFromInline
enum _Fetch {
    /// Evaluates and orders every record the context sees.
    ///
    /// - Throws: what the predicate throws on a record; the matches found
    ///   before it are let go (the scan's column builders free their buffers).
    /// - Complexity: O(*n* + *m* log *m*) for *n* records and *m* matches.
    @inlinable
    static func run<R: Record & Codable>(
        _ compiled: _CompiledRequest<R>, in access: _EntityAccess<R>, keepRecords: Bool, reads: ((R.ID, [_Ref]) -> Void)? = nil
    ) throws(FetchError) -> _Fetched<R> {
        var scan = _FetchScan(compiled, capacity: access.capacity)
        if let relationships = compiled.relationships {
            // Key paths through relationships read other objects (under the
            // store's lock): the records first, then each is tested, with
            // what its key paths read kept for a controller's reverse map.
            var candidates: [(record: R, sequence: Int64)] = []
            candidates.reserveCapacity(access.capacity)
            try access.forEachRecord { record, sequence throws(FetchError) in candidates.append((copy record, sequence)) }
            for (record, sequence) in candidates {
                if reads != nil { relationships.visits = [] }
                let matched = try compiled.matches?(record) ?? true
                if matched { scan.append(record, sequence: sequence) }
                if let reads {
                    reads(record.id, relationships.visits ?? [])
                    relationships.visits = nil
                }
            }
        } else {
            try access.forEachRecord { record, sequence throws(FetchError) in
                if let matches = compiled.matches, try !matches(record) { return }
                scan.append(record, sequence: sequence)
            }
        }
        return scan.fetched(keepsRecords: keepRecords)
    }

    /// Evaluates and orders `records` as `run(_:in:keepRecords:)` does those
    /// of a context over a store that holds them alone, inserted in this
    /// order; records kept.
    ///
    /// - Complexity: O(*n* + *m* log *m*) for *n* records and *m* matches.
    @inlinable
    static func run<R: Record & Codable>(_ compiled: _CompiledRequest<R>, records given: [R]) throws(FetchError) -> _Fetched<R> {
        var scan = _FetchScan(compiled, capacity: given.count)
        try given.withUnsafeBufferPointer { given throws(FetchError) in
            for k in given.indices {
                if let matches = compiled.matches, try !matches(given[k]) { continue }
                scan.append(given[k], sequence: Int64(k + 1))
            }
        }
        return scan.fetched(keepsRecords: true)
    }

    /// The number of matches, without ordering them.
    ///
    /// - Complexity: O(*n*).
    @inlinable
    static func count<R: Record & Codable>(_ compiled: _CompiledRequest<R>, in access: _EntityAccess<R>) throws(FetchError) -> Int {
        if compiled.relationships != nil { return try run(compiled, in: access, keepRecords: false).count }
        var count = 0
        try access.forEachRecord { record, _ throws(FetchError) in
            if let matches = compiled.matches, try !matches(record) { return }
            count += 1
        }
        return count
    }
}

extension FetchRequest where R == DynamicObject {
    /// The records of `records` that match, in the request's order (offset
    /// and limit applied): what a context's `fetch(_:)` returns from a store
    /// that holds these records alone, inserted in this order — without a
    /// store (the tool's browser orders its data while its store is built).
    ///
    /// - Complexity: O(*n* + *m* log *m*) for *n* records and *m* matches.
    package func ordered(_ records: [R]) throws(FetchError) -> [R] {
        var fetched = try _Fetch.run(try _CompiledRequest(self, sectionKeyPath: nil, access: nil), records: records)
        fetched.narrow(offset: fetchOffset, limit: fetchLimit)
        return (consume fetched).sortedRecords()
    }

    /// The records of `records` that match, in the request's order (offset
    /// and limit applied), and their sections: what a controller's
    /// `performFetch()` makes of a store that holds these records alone,
    /// inserted in this order, with this section key path and collation —
    /// the same order, section names and counts, and the same errors —
    /// without a store or a controller (the tool's browser sections its data
    /// while its store is built). A section's index title is
    /// `_sectionIndexTitle(forSectionName:collation:)`, as a controller
    /// without a delegate gives it.
    ///
    /// - Throws: ``FetchError/noSortKeys``, ``FetchError/unknownKey(_:)``,
    ///   ``FetchError/predicateFailed(_:)``,
    ///   ``FetchError/sectionsOutOfOrder(index:sectionName:)``, as
    ///   `performFetch()` would.
    /// - Complexity: O(*n* + *m* log *m*) for *n* records and *m* matches.
    package func sectioned(
        _ records: [R], sectionKeyPath: String?, sectionCollation: TableIndexCollation?
    ) throws(FetchError) -> (records: [R], sections: [_SectionRun]) {
        guard !sortKeys.isEmpty else { throw .noSortKeys }
        let compiled = try _CompiledRequest(self, sectionKeyPath: sectionKeyPath, sectionCollation: sectionCollation, access: nil)
        var fetched = try _Fetch.run(compiled, records: records)
        fetched.narrow(offset: fetchOffset, limit: fetchLimit)
        let sections = try fetched.sections(keyed: sectionKeyPath != nil, offset: fetchOffset)
        return ((consume fetched).sortedRecords(), sections)
    }
}
