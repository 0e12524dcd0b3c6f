import InternalTableUtilities
import PredicateFormat
import RecordStore
import Records
import TableDiff
/// One fetched object as a controller keeps it: what places it (its record,
/// when kept, is beside it in its chunk).
@usableFromInline
struct _Element<R: Record>: Sendable {
    @usableFromInline var id: R.ID
    /// First-insertion order: the last tie-breaker.
    @usableFromInline var sequence: Int64
    @usableFromInline var sortValues: _SortValues
    @usableFromInline var sectionName: String

    @inlinable
    init(id: R.ID, sequence: Int64, sortValues: _SortValues, sectionName: String) {
        self.id = id
        self.sequence = sequence
        self.sortValues = sortValues
        self.sectionName = sectionName
    }
}

/// What places one fetched object in the order, beside its identity: its
/// first-insertion order, sort values and section name.
@usableFromInline
struct _ElementDetails: Sendable {
    @usableFromInline var sequence: Int64
    @usableFromInline var sortValues: _SortValues
    @usableFromInline var sectionName: String

    @inlinable
    init(sequence: Int64, sortValues: _SortValues, sectionName: String) {
        self.sequence = sequence
        self.sortValues = sortValues
        self.sectionName = sectionName
    }
}

extension _Element {
    @inlinable var details: _ElementDetails { _ElementDetails(sequence: sequence, sortValues: sortValues, sectionName: sectionName) }

    @inlinable
    init(id: R.ID, _ details: _ElementDetails) {
        self.init(id: id, sequence: details.sequence, sortValues: details.sortValues, sectionName: details.sectionName)
    }
}

/// A run of the fetched objects, in order: their identities, and (unless
/// the order is lean: see `_Placement`) what places them, and (when records
/// are kept) their records — arrays in step.
@usableFromInline
final class _Chunk<R: Record> {
    @usableFromInline var ids: [R.ID]
    /// The elements' details, in step with `ids`; empty in a lean order.
    @usableFromInline var details: [_ElementDetails] { didSet { runs = Self.runs(of: details) } }
    /// The elements' records, in step with them; empty when records are read
    /// on demand (a batch size).
    @usableFromInline var records: [R]
    /// The chunk's place in `_OrderedElements.chunks`.
    @usableFromInline var index: Int
    /// The chunk's section runs: consecutive elements with one section name
    /// (none in a lean order).
    @usableFromInline var runs: [_SectionRun]

    @inlinable
    convenience init(_ elements: [_Element<R>], records: [R], index: Int) {
        self.init(ids: elements.map(\.id), details: elements.map(\.details), records: records, index: index)
    }

    /// A chunk of these identities and details (in step), and records (in step, or none).
    @inlinable
    init(ids: [R.ID], details: [_ElementDetails], records: [R], index: Int) {
        self.ids = ids
        self.details = details
        self.records = records
        self.index = index
        runs = Self.runs(of: details)
    }

    /// A chunk of a lean order: identities only.
    @inlinable
    init(ids: [R.ID], index: Int) {
        self.ids = ids
        details = []
        records = []
        self.index = index
        runs = []
    }

    @inlinable var count: Int { ids.count }

    /// The chunk's elements (of an order that is not lean).
    @usableFromInline var elements: [_Element<R>] { zip(ids, details).map { _Element(id: $0, $1) } }

    @inlinable
    static func runs(of details: [_ElementDetails]) -> [_SectionRun] {
        var runs = _SectionRuns(checkingOrder: false)
        // Through the buffer: reading a name does not copy the details.
        details.withUnsafeBufferPointer { details in
            for k in details.indices { runs.append(details[k].sectionName) }
        }
        return runs.runs
    }

    /// Inserts an element at `offset`.
    @inlinable
    func insert(_ element: _Element<R>, lean: Bool, at offset: Int) {
        ids.insert(element.id, at: offset)
        if !lean { details.insert(element.details, at: offset) }
    }

    /// Removes the element at `offset`; returns its identity.
    @inlinable
    func remove(at offset: Int, lean: Bool) -> R.ID {
        if !lean { details.remove(at: offset) }
        return ids.remove(at: offset)
    }
}

/// How a lean order places its objects without keeping their details: a
/// fetch read from an index of the store's file keeps only identities (about
/// 8 bytes an object), and an object's details are those of its record as
/// it was when it was placed — the store's as of the fetch's version (read
/// from the file, or from the versions recent saves replaced), or, for the
/// objects a change placed since (and the context's unsaved records the
/// fetch placed), the details kept then.
@usableFromInline
final class _Placement<R: Record> {
    /// The store's version the fetch read.
    let version: Int64
    /// The first first-insertion order after the fetch: a record of this
    /// one or a later one was inserted since, and the fetch did not place it.
    let nextSequence: Int64
    /// The store's history epoch at the fetch (`_StoreState.historyEpoch`):
    /// when it moved on, the records as of `version` are no longer known.
    let epoch: Int
    /// Details kept: of the objects placed since the fetch, and of the
    /// context's unsaved records the fetch placed.
    var placed: [R.ID: _ElementDetails] = [:]
    /// The details of an identity's record as the store had it at
    /// `version`; nil when it had none then, or that version is no longer known.
    let read: (R.ID) -> _ElementDetails?
    /// The order of two elements' sort values (-1, 0, 1), before sequences.
    let compare: (_SortValues, _SortValues) -> Int

    init(version: Int64, nextSequence: Int64, epoch: Int, compare: @escaping (_SortValues, _SortValues) -> Int, read: @escaping (R.ID) -> _ElementDetails?) {
        self.version = version
        self.nextSequence = nextSequence
        self.epoch = epoch
        self.compare = compare
        self.read = read
    }

    /// The details an object was placed by; nil when not known.
    func details(of id: R.ID) -> _ElementDetails? { placed[id] ?? read(id) }

    /// Whether the placement cannot tell if, or where, it placed an object
    /// of this first-insertion order (nil: the object is gone): its record
    /// as of the fetch is no longer known — another store's compaction
    /// handed the store a new snapshot, or the versions saves replaced were
    /// forgotten — and it is not newer than the fetch.
    func forgot(_ id: R.ID, sequence: Int64?) -> Bool {
        details(of: id) == nil && (sequence ?? 0) < nextSequence
    }
}

/// The fetched objects in order: a list of chunks of at most `maxChunk`
/// elements, a Fenwick tree over the chunks' sizes, and (once asked for) an
/// index from identity to chunk. Finding the element at a position, the
/// position of an identity, and inserting or removing one element cost
/// O(log *n*) plus O(`maxChunk`).
@usableFromInline
struct _OrderedElements<R: Record> {
    @inlinable static var maxChunk: Int { 512 }

    @usableFromInline var chunks: [_Chunk<R>] = []
    @usableFromInline var tree = _Fenwick<Int>([])
    @usableFromInline var count = 0
    @usableFromInline var members: _MemberIndex<R>? = nil
    /// The identity index being built on a thread of its own since the
    /// fetch (``startBuildingMembers()``); taken by the first call that needs it.
    @usableFromInline var pendingMembers: _BackgroundValue<_UncheckedSendable<_MemberIndex<R>>>? = nil
    /// Whether every chunk keeps its elements' records.
    @usableFromInline var keepsRecords = false
    /// How a lean order places its objects (nil: each chunk keeps its
    /// elements' details).
    @usableFromInline var placement: _Placement<R>? = nil
    /// Whether the order keeps identities only (see `_Placement`).
    @inlinable var isLean: Bool { placement != nil }

    /// No elements.
    @inlinable
    init() {}

    /// The matches of a fetch, in their order.
    @inlinable
    init(_ fetched: consuming _Fetched<R>) {
        count = fetched.count
        keepsRecords = fetched.keepsRecords
        chunks.reserveCapacity((count + Self.maxChunk / 2 - 1) / (Self.maxChunk / 2))
        fetched.take(inPiecesOf: Self.maxChunk / 2) { ids, details, records in
            chunks.append(_Chunk(ids: ids, details: details, records: records, index: chunks.count))
        }
        rebuildTree()
        _checkInvariants()
    }

    /// A lean order: identities in order, placed by `placement`.
    @inlinable
    init(lean chunks: [_Chunk<R>], placement: _Placement<R>) {
        self.chunks = chunks
        count = chunks.reduce(0) { $0 + $1.count }
        self.placement = placement
        rebuildTree()
        _checkInvariants()
    }

    /// Elements already in order, with their records when `keepsRecords`
    /// (in step with them).
    @inlinable
    init(inOrder elements: [_Element<R>], records: [R], keepsRecords: Bool) {
        count = elements.count
        self.keepsRecords = keepsRecords
        let size = Self.maxChunk / 2
        chunks.reserveCapacity((count + size - 1) / size)
        var k = 0
        while k < count {
            let end = Swift.min(count, k + size)
            chunks.append(_Chunk(Array(elements[k..<end]), records: keepsRecords ? Array(records[k..<end]) : [], index: chunks.count))
            k = end
        }
        rebuildTree()
        _checkInvariants()
    }

    // MARK: The Fenwick tree over chunk sizes

    @inlinable
    mutating func rebuildTree() {
        for (k, chunk) in chunks.enumerated() { chunk.index = k }
        tree = _Fenwick(chunks.map { $0.count })
    }

    /// The chunk holding position `p` (0 ≤ p < count), and the offset in it.
    private func locate(_ p: Int) -> (chunk: Int, offset: Int) {
        let (chunk, offset) = tree.find(p)
        return (chunk, offset)
    }

    // MARK: Reading

    /// Every identity, in order. O(*n*).
    var identities: [R.ID] {
        var ids: [R.ID] = []
        ids.reserveCapacity(count)
        for chunk in chunks { ids.append(contentsOf: chunk.ids) }
        return ids
    }

    /// The identity at position `p`.
    func id(at p: Int) -> R.ID {
        let (k, offset) = locate(p)
        return chunks[k].ids[offset]
    }

    /// The element at position `p`: its details as kept, or (in a lean
    /// order) as it was placed — nil when that is no longer known.
    func element(at p: Int) -> _Element<R>? {
        let (k, offset) = locate(p)
        return element(in: chunks[k], at: offset)
    }

    /// The element at `offset` of `chunk`.
    func element(in chunk: _Chunk<R>, at offset: Int) -> _Element<R>? {
        let id = chunk.ids[offset]
        if let placement { return placement.details(of: id).map { _Element(id: id, $0) } }
        return _Element(id: id, chunk.details[offset])
    }

    /// The kept record of the element at `p`; nil when records are not kept.
    func record(at p: Int) -> R? {
        guard keepsRecords else { return nil }
        let (k, offset) = locate(p)
        return chunks[k].records[offset]
    }

    /// The kept records of the positions in `range` (within `0..<count`), in
    /// order, a chunk's run at a time; nil when records are not kept.
    ///
    /// - Complexity: O(log *n* + *k*) for *k* positions.
    func records(in range: Range<Int>) -> [R]? {
        guard keepsRecords else { return nil }
        var result: [R] = []
        result.reserveCapacity(range.count)
        guard !range.isEmpty else { return result }
        var (k, offset) = locate(range.lowerBound)
        while result.count < range.count && k < chunks.count {
            let records = chunks[k].records
            let end = Swift.min(records.count, offset + range.count - result.count)
            result.append(contentsOf: records[offset..<end])
            k += 1
            offset = 0
        }
        return result
    }

    /// Keeps every element's record from now on, reading them with `read`;
    /// an element whose record can not be read is dropped.
    mutating func keepRecords(reading read: (R.ID) -> R?) {
        guard !keepsRecords else { return }
        if pendingMembers != nil { buildMembers() }   // the chunks change below
        for chunk in chunks {
            var ids: [R.ID] = [], details: [_ElementDetails] = [], records: [R] = []
            for offset in chunk.ids.indices {
                let id = chunk.ids[offset]
                // A lean order's details, as placed, are kept from now on.
                guard let record = read(id), let placed = isLean ? placement?.details(of: id) : chunk.details[offset] else {
                    members?.remove(id, from: chunk)
                    continue
                }
                ids.append(id)
                details.append(placed)
                records.append(record)
            }
            chunk.records = records
            chunk.ids = ids
            chunk.details = details
        }
        for chunk in chunks where chunk.ids.isEmpty { members?.forget(chunk) }
        chunks.removeAll { $0.ids.isEmpty }
        count = chunks.reduce(0) { $0 + $1.count }
        keepsRecords = true
        placement = nil
        rebuildTree()
        _checkInvariants()
    }

    /// The section runs of the whole order: consecutive elements with one name.
    ///
    /// - Complexity: O(*c* + *s*) for *c* chunks and *s* runs.
    var sectionRuns: [_SectionRun] {
        var runs = _SectionRuns(checkingOrder: false)
        for chunk in chunks {
            for run in chunk.runs { runs.append(run.name, count: run.count) }
        }
        return runs.runs
    }

    /// The position of an identity, or nil.
    mutating func position(of id: R.ID) -> Int? {
        if let placement {
            // A lean order: found by where it was placed.
            guard let details = placement.details(of: id) else { return nil }
            let compare = placement.compare
            return position(of: id, orderedAs: _Element(id: id, details)) { compare($0.sortValues, $1.sortValues) }
        }
        buildMembers()
        guard let (chunk, offset) = members?.locate(id) else { return nil }
        return tree.prefix(chunk.index) + offset
    }

    /// Results this small build their identity index on first use, at once.
    static var membersInBackgroundFrom: Int { 4096 }

    /// Starts building the index from identity to chunk on a thread of its
    /// own, from the chunks as they are now: the first change, or the first
    /// `position(of:)`, then finds it made (a fetch of a million rows takes
    /// ~0.3 s to index, which was the first delete's cost).
    ///
    /// Until the index is taken, nothing changes the chunks: every change
    /// takes it first (and waits for it if it is not made yet).
    @usableFromInline
    mutating func startBuildingMembers() {
        guard !isLean, members == nil, pendingMembers == nil, count >= Self.membersInBackgroundFrom else { return }
        // The identities are copied (arrays, retained) here; the chunks travel
        // as references the thread only stores.
        let parts = _UncheckedSendable(chunks.map { ($0, $0.ids) })
        let count = count
        pendingMembers = _BackgroundValue {
            var index = _MemberIndex<R>(capacity: count)
            for (chunk, ids) in parts.value { index.insert(ids, in: chunk) }
            return _UncheckedSendable(index)
        }
    }

    /// The identities removed (by ``remove(_:order:)``) while the identity
    /// index was being made, with the chunks they were in: taken out of it
    /// when it is taken.
    @usableFromInline var removedWhileIndexing: [(id: R.ID, chunk: _Chunk<R>)] = []

    /// Whether the identity index is still being made (and not taken).
    var isIndexingMembers: Bool { members == nil && pendingMembers != nil }

    /// Takes the identity index if it is made (never waits).
    mutating func takeMembersIfMade() {
        if members == nil, pendingMembers?.valueIfMade() != nil { buildMembers() }
    }

    private mutating func buildMembers() {
        guard members == nil, !isLean else { return }
        if let pending = pendingMembers {
            var index = pending.wait().value
            for (id, chunk) in removedWhileIndexing { index.remove(id, from: chunk) }
            for chunk in index.chunks.compactMap({ $0 }) where chunk.ids.isEmpty { index.forget(chunk) }
            removedWhileIndexing = []
            members = index
            pendingMembers = nil
            return
        }
        var index = _MemberIndex<R>(capacity: count)
        for chunk in chunks { index.insert(chunk.ids, in: chunk) }
        members = index
    }

    // MARK: Changing

    /// Removes the element with an identity; returns it, its record when
    /// kept, and its position.
    mutating func remove(_ id: R.ID) -> (element: _Element<R>, record: R?, position: Int)? {
        buildMembers()
        guard let (chunk, offset) = members?.locate(id), let element = element(in: chunk, at: offset) else { return nil }
        let position = tree.prefix(chunk.index) + offset
        let record = keepsRecords ? chunk.records.remove(at: offset) : nil
        _ = chunk.remove(at: offset, lean: isLean)
        members?.remove(id, from: chunk)
        count -= 1
        if chunk.ids.isEmpty {
            members?.forget(chunk)
            chunks.remove(at: chunk.index)
            rebuildTree()
        } else {
            tree.add(-1, at: chunk.index)
        }
        _checkInvariants(touched: chunk)
        return (element, record, position)
    }

    /// The position of the element with identity `id` among those ordered as
    /// `probe` is (`order` gives 0 for them: the same sort values), found by
    /// binary search without the identity index; nil when it is not there.
    ///
    /// - Complexity: O(log *n* + the elements ordered as `probe`).
    func position(of id: R.ID, orderedAs probe: _Element<R>, order: (_Element<R>, _Element<R>) -> Int) -> Int? {
        guard !chunks.isEmpty else { return nil }
        // An element whose details are not known any more (a lean order)
        // compares as the probe's equal: the search then looks at both sides.
        func compare(_ chunk: _Chunk<R>, _ offset: Int) -> Int {
            guard let element = element(in: chunk, at: offset) else { return 0 }
            return order(element, probe)
        }
        var low = 0, high = chunks.count - 1
        while low < high {
            let mid = (low + high) / 2
            if chunks[mid].count > 0, compare(chunks[mid], chunks[mid].count - 1) < 0 { low = mid + 1 } else { high = mid }
        }
        var k = low
        var offset: Int
        do {
            let chunk = chunks[k]
            var lo = 0, hi = chunk.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if compare(chunk, mid) < 0 { lo = mid + 1 } else { hi = mid }
            }
            offset = lo
        }
        var position = tree.prefix(k) + offset
        while k < chunks.count {
            let chunk = chunks[k]
            while offset < chunk.count {
                if chunk.ids[offset] == id { return position }
                if compare(chunk, offset) != 0 { return nil }
                offset += 1
                position += 1
            }
            k += 1
            offset = 0
        }
        return nil
    }

    /// Removes `element` (found by its sort values and sequence: `order` is
    /// the full order) without the identity index; returns it, its record
    /// when kept, and its position.
    ///
    /// - Complexity: O(log *n* + `maxChunk`).
    mutating func remove(_ element: _Element<R>, order: (_Element<R>, _Element<R>) -> Int) -> (element: _Element<R>, record: R?, position: Int)? {
        guard let position = position(of: element.id, orderedAs: element, order: order) else { return nil }
        let (k, offset) = locate(position)
        let chunk = chunks[k]
        let removed = self.element(in: chunk, at: offset) ?? element
        let record = keepsRecords ? chunk.records.remove(at: offset) : nil
        _ = chunk.remove(at: offset, lean: isLean)
        placement?.placed[removed.id] = nil
        members?.remove(removed.id, from: chunk)
        if isIndexingMembers { removedWhileIndexing.append((removed.id, chunk)) }
        count -= 1
        if chunk.ids.isEmpty {
            members?.forget(chunk)
            chunks.remove(at: chunk.index)
            rebuildTree()
        } else {
            tree.add(-1, at: chunk.index)
        }
        _checkInvariants(touched: chunk)
        return (removed, record, position)
    }

    /// Where `element` goes among the elements (`isBefore(a, b)`: a comes
    /// before b): the first chunk whose last element does not come before
    /// it, and the place in it of the first element that does not (the
    /// chunk's end when none). The chunks must not be empty.
    ///
    /// - Complexity: O(log *n*).
    private func insertionPoint(of element: _Element<R>, isBefore: (_Element<R>, _Element<R>) -> Bool) -> (chunk: Int, offset: Int) {
        // An element whose details are not known any more (a lean order) is
        // taken as coming before the new one.
        func before(_ chunk: _Chunk<R>, _ offset: Int) -> Bool {
            guard let other = self.element(in: chunk, at: offset) else { return true }
            return isBefore(other, element)
        }
        var low = 0, high = chunks.count - 1
        while low < high {
            let mid = (low + high) / 2
            if chunks[mid].count > 0, before(chunks[mid], chunks[mid].count - 1) { low = mid + 1 } else { high = mid }
        }
        let chunk = chunks[low]
        var lo = 0, hi = chunk.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if before(chunk, mid) { lo = mid + 1 } else { hi = mid }
        }
        return (low, lo)
    }

    /// The position of the first element that does not come before `probe`
    /// (`count` when every element does): where an object ordered as
    /// `probe` is, or would be.
    ///
    /// - Complexity: O(log *n*).
    func firstPosition(notBefore probe: _Element<R>, isBefore: (_Element<R>, _Element<R>) -> Bool) -> Int {
        guard !chunks.isEmpty else { return 0 }
        let (k, offset) = insertionPoint(of: probe, isBefore: isBefore)
        return tree.prefix(k) + offset
    }

    /// Inserts an element (with its record, when records are kept) where
    /// `isBefore` says it goes (`isBefore(a, b)`: a comes before b); returns
    /// its position.
    @discardableResult
    mutating func insert(_ element: _Element<R>, record: R, isBefore: (_Element<R>, _Element<R>) -> Bool) -> Int {
        buildMembers()
        let lean = isLean
        placement?.placed[element.id] = element.details
        if chunks.isEmpty {
            chunks.append(lean ? _Chunk(ids: [element.id], index: 0) : _Chunk([element], records: [], index: 0))
            if keepsRecords { chunks[0].records = [record] }
            rebuildTree()
            members?.insert(element.id, in: chunks[0])
            count = 1
            _checkInvariants(touched: chunks[0])
            return 0
        }
        let (k, lo) = insertionPoint(of: element, isBefore: isBefore)
        let chunk = chunks[k]
        if keepsRecords { chunk.records.insert(record, at: lo) }
        chunk.insert(element, lean: lean, at: lo)
        members?.insert(element.id, in: chunk)
        count += 1
        let position = tree.prefix(chunk.index) + lo
        if chunk.count > Self.maxChunk {
            let half = chunk.count / 2
            let tail = _Chunk<R>(ids: Array(chunk.ids[half...]), index: chunk.index + 1)
            if !lean { tail.details = Array(chunk.details[half...]) }
            if keepsRecords { tail.records = Array(chunk.records[half...]) }
            chunk.ids.removeSubrange(half...)
            if !lean { chunk.details.removeSubrange(half...) }
            if keepsRecords { chunk.records.removeSubrange(half...) }
            chunks.insert(tail, at: chunk.index + 1)
            for moved in tail.ids { members?.move(moved, from: chunk, to: tail) }
            rebuildTree()
        } else {
            tree.add(1, at: chunk.index)
        }
        _checkInvariants(touched: chunk)
        return position
    }
}
