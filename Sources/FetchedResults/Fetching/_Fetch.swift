import Foundation
import PredicateFormat
import Records
import TableDiff

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

    @inlinable
    init(_ request: FetchRequest<R>, sectionKeyPath: String?, sectionCollation: TableIndexCollation? = nil) throws(FetchError) {
        for (name, value) in [("fetchLimit", request.fetchLimit ?? 0), ("fetchOffset", request.fetchOffset), ("fetchBatchSize", request.fetchBatchSize)] where value < 0 {
            throw .negativeSetting(name, value)
        }
        self.request = request
        matches = try request.predicate?.evaluator()
        sectionIsFirstSortKey = sectionKeyPath != nil && sectionKeyPath == request.sortKeys.first?.keyPath
        self.sectionCollation = sectionCollation
        if let sectionCollation, sectionIsFirstSortKey, let first = request.sortKeys.first {
            sectionIsFirstKeysSection = first.comparison == .collation(sectionCollation)
        } else {
            sectionIsFirstKeysSection = false
        }
        let keys = R.recordKeys
        do throws(RecordKeyError) {
            sortReaders = try request.sortKeys.map { key throws(RecordKeyError) in try keys.reader(forKeyPath: key.keyPath) }
            sectionReader = try sectionKeyPath.map { path throws(RecordKeyError) in try keys.reader(forKeyPath: path) }
        } catch {
            throw .unknownKey(error)
        }
    }

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
            if sectionIsFirstKeysSection, case .collated(let key, _) = sortValues.first, let section = key.first {
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

/// A section's name from its key's value: a string as it is, nil as "", other
/// values as they print.
@usableFromInline
func _sectionName(_ value: RecordValue) -> String {
    switch value {
    case .string(let s): return s
    case .null: return ""
    case .date(let d): return ISO8601.string(from: d)
    case .int(let i): return String(i)
    case .double(let d): return Int64(exactly: d).map(String.init) ?? "\(d)"
    case .bool(let b): return b ? "true" : "false"
    default: return JSON.string(value)
    }
}

/// The matches of a fetch: the elements as they were found (with their
/// records, when kept), and their order. Offset and limit narrow the order;
/// nothing moves until the elements are taken, in order, once.
@usableFromInline
struct _Fetched<R: Record>: Sendable {
    @usableFromInline var found: [_Element<R>?]
    /// In step with `found` when records are kept; empty otherwise.
    @usableFromInline var records: [R?]
    @usableFromInline let keepsRecords: Bool
    @usableFromInline var order: ArraySlice<Int32>

    /// The matches `found` in the order `keys` give them (ties in the order
    /// they were inserted, their sequence).
    @inlinable
    init(found: [_Element<R>?], records: [R?], keepsRecords: Bool, sortKeys keys: [SortKey]) {
        let order = found.withUnsafeBufferPointer { found in
            _sortOrder(
                keys: keys.indices.map { k in _TypedColumn(count: found.count) { found[$0].unsafelyUnwrapped.sortValues[k] } },
                ascending: keys.map(\.ascending), sequences: found.map { $0.unsafelyUnwrapped.sequence })
        }
        self.init(found: found, records: records, keepsRecords: keepsRecords, order: order[...])
    }

    @inlinable
    init(found: [_Element<R>?], records: [R?], keepsRecords: Bool, order: ArraySlice<Int32>) {
        self.found = found
        self.records = records
        self.keepsRecords = keepsRecords
        self.order = order
    }

    @inlinable var count: Int { order.count }

    /// The section name of the `k`th match in order.
    @inlinable
    func sectionName(at k: Int) -> String {
        found[Int(order[order.startIndex + k])].unsafelyUnwrapped.sectionName
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
    func sections(keyed: Bool, offset: Int) throws(FetchError) -> [_SectionRun] {
        var sections = _SectionRuns(checkingOrder: true)
        guard keyed else {
            sections.append("", count: count)
            return sections.runs
        }
        // Through the buffers: reading a name does not copy its element.
        try found.withUnsafeBufferPointer { found throws(FetchError) in
            try order.withUnsafeBufferPointer { order throws(FetchError) in
                for k in order.indices {
                    let name = found[Int(order[k])].unsafelyUnwrapped.sectionName
                    guard sections.append(name) else {
                        let index = k.addingReportingOverflow(offset)
                        throw .sectionsOutOfOrder(index: index.overflow ? Int.max : index.partialValue, sectionName: name)
                    }
                }
            }
        }
        return sections.runs
    }

    /// Keeps the matches from `offset`, at most `limit` of them.
    @inlinable
    mutating func narrow(offset: Int, limit: Int?) {
        let start = order.startIndex + min(max(0, offset), order.count)
        // At most what is left: a limit up to Int.max does not overflow.
        let end = limit.map { start + min(order.endIndex - start, max(0, $0)) } ?? order.endIndex
        order = order[start..<end]
    }

    /// Moves the elements and their records out in order, calling `body` with
    /// each run of at most `size` of them.
    @inlinable
    consuming func take(inPiecesOf size: Int, _ body: ([_Element<R>], [R]) -> Void) {
        var k = order.startIndex
        while k < order.endIndex {
            let end = min(order.endIndex, k + size)
            var pieceElements: [_Element<R>] = [], pieceRecords: [R] = []
            pieceElements.reserveCapacity(end - k)
            if keepsRecords { pieceRecords.reserveCapacity(end - k) }
            for j in k..<end {
                let at = Int(order[j])
                if let element = found[at].take() { pieceElements.append(element) }
                if keepsRecords, let record = records[at].take() { pieceRecords.append(record) }
            }
            body(pieceElements, pieceRecords)
            k = end
        }
    }

    /// The records in order (records kept); the elements are dropped.
    @inlinable
    consuming func sortedRecords() -> [R] {
        // The elements are not needed once ordered: their memory goes before the result's comes.
        found = []
        var all: [R] = []
        all.reserveCapacity(count)
        // Moved out of the records, which are this value's alone now: no copy.
        var records: [R?] = []
        swap(&records, &self.records)
        records.withUnsafeMutableBufferPointer { records in
            for k in order.indices {
                if let record = records[Int(order[k])].take() { all.append(record) }
            }
        }
        return all
    }
}

@usableFromInline
enum _Fetch {
    /// Evaluates, orders and names the sections of every record the context
    /// sees.
    ///
    /// - Complexity: O(*n* + *m* log *m*) for *n* records and *m* matches.
    @inlinable
    static func run<R: Record & Codable>(_ compiled: _CompiledRequest<R>, in context: ObjectContext<R>, keepRecords: Bool) throws(FetchError) -> _Fetched<R> {
        var found: [_Element<R>?] = []
        var records: [R?] = []
        // Room for every record at once, not grown by copies (each growth
        // holds the old and the new buffer): what a predicate leaves unused
        // is never touched, so it takes no memory.
        let count = context.store.count + context.pending.insertedIDs.count
        found.reserveCapacity(count)
        if keepRecords { records.reserveCapacity(count) }
        try context.forEachRecord { record, sequence throws(FetchError) in
            if let matches = compiled.matches, try !matches(record) { return }
            found.append(compiled.element(record, sequence: sequence))
            if keepRecords { records.append(copy record) }
        }
        return _Fetched(found: found, records: records, keepsRecords: keepRecords, sortKeys: compiled.request.sortKeys)
    }

    /// Evaluates and orders `records` as `run(_:in:keepRecords:)` does those
    /// of a context over a store that holds them alone, inserted in this
    /// order; records kept.
    ///
    /// - Complexity: O(*n* + *m* log *m*) for *n* records and *m* matches.
    @inlinable
    static func run<R: Record & Codable>(_ compiled: _CompiledRequest<R>, records given: [R]) throws(FetchError) -> _Fetched<R> {
        var found: [_Element<R>?] = []
        var records: [R?] = []
        if compiled.matches == nil {
            found.reserveCapacity(given.count)
            records.reserveCapacity(given.count)
        }
        try given.withUnsafeBufferPointer { given throws(FetchError) in
            for k in given.indices {
                if let matches = compiled.matches, try !matches(given[k]) { continue }
                found.append(compiled.element(given[k], sequence: Int64(k + 1)))
                records.append(given[k])
            }
        }
        return _Fetched(found: found, records: records, keepsRecords: true, sortKeys: compiled.request.sortKeys)
    }

    /// The number of matches, without ordering them.
    ///
    /// - Complexity: O(*n*).
    @inlinable
    static func count<R: Record & Codable>(_ compiled: _CompiledRequest<R>, in context: ObjectContext<R>) throws(FetchError) -> Int {
        var count = 0
        try context.forEachRecord { record, _ throws(FetchError) in
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
        var fetched = try _Fetch.run(try _CompiledRequest(self, sectionKeyPath: nil), records: records)
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
        let compiled = try _CompiledRequest(self, sectionKeyPath: sectionKeyPath, sectionCollation: sectionCollation)
        var fetched = try _Fetch.run(compiled, records: records)
        fetched.narrow(offset: fetchOffset, limit: fetchLimit)
        let sections = try fetched.sections(keyed: sectionKeyPath != nil, offset: fetchOffset)
        return ((consume fetched).sortedRecords(), sections)
    }
}
