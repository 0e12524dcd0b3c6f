import InternalTableUtilities
import PredicateFormat
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

@usableFromInline
final class _Chunk<R: Record> {
    @usableFromInline var elements: [_Element<R>] { didSet { runs = Self.runs(of: elements) } }
    /// The elements' records, in step with them; empty when records are read
    /// on demand (a batch size).
    @usableFromInline var records: [R]
    /// The chunk's place in `_OrderedElements.chunks`.
    @usableFromInline var index: Int
    /// The chunk's section runs: consecutive elements with one section name.
    @usableFromInline var runs: [_SectionRun]

    @inlinable
    init(_ elements: [_Element<R>], records: [R], index: Int) {
        self.elements = elements
        self.records = records
        self.index = index
        runs = Self.runs(of: elements)
    }

    @inlinable
    static func runs(of elements: [_Element<R>]) -> [_SectionRun] {
        var runs = _SectionRuns(checkingOrder: false)
        // Through the buffer: reading a name does not copy the element.
        elements.withUnsafeBufferPointer { elements in
            for k in elements.indices { runs.append(elements[k].sectionName) }
        }
        return runs.runs
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

    /// No elements.
    @inlinable
    init() {}

    /// The matches of a fetch, in their order.
    @inlinable
    init(_ fetched: consuming _Fetched<R>) {
        count = fetched.count
        keepsRecords = fetched.keepsRecords
        chunks.reserveCapacity((count + Self.maxChunk / 2 - 1) / (Self.maxChunk / 2))
        fetched.take(inPiecesOf: Self.maxChunk / 2) { elements, records in
            chunks.append(_Chunk(elements, records: records, index: chunks.count))
        }
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
        tree = _Fenwick(chunks.map { $0.elements.count })
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
        for chunk in chunks { for element in chunk.elements { ids.append(element.id) } }
        return ids
    }

    func element(at p: Int) -> _Element<R> {
        let (k, offset) = locate(p)
        return chunks[k].elements[offset]
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
            var elements: [_Element<R>] = [], records: [R] = []
            for element in chunk.elements {
                guard let record = read(element.id) else { members?.remove(element.id, from: chunk); continue }
                elements.append(element)
                records.append(record)
            }
            chunk.records = records
            if elements.count != chunk.elements.count { chunk.elements = elements }
        }
        for chunk in chunks where chunk.elements.isEmpty { members?.forget(chunk) }
        chunks.removeAll { $0.elements.isEmpty }
        count = chunks.reduce(0) { $0 + $1.elements.count }
        keepsRecords = true
        rebuildTree()
        _checkInvariants()
    }

    /// Every element, in order.
    var elements: [_Element<R>] { chunks.flatMap { $0.elements } }

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
        guard members == nil, pendingMembers == nil, count >= Self.membersInBackgroundFrom else { return }
        // The elements are copied (arrays, retained) here; the chunks travel
        // as references the thread only stores.
        let parts = _UncheckedSendable(chunks.map { ($0, $0.elements) })
        let count = count
        pendingMembers = _BackgroundValue {
            var index = _MemberIndex<R>(capacity: count)
            for (chunk, elements) in parts.value { index.insert(elements, in: chunk) }
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
        guard members == nil else { return }
        if let pending = pendingMembers {
            var index = pending.wait().value
            for (id, chunk) in removedWhileIndexing { index.remove(id, from: chunk) }
            for chunk in index.chunks.compactMap({ $0 }) where chunk.elements.isEmpty { index.forget(chunk) }
            removedWhileIndexing = []
            members = index
            pendingMembers = nil
            return
        }
        var index = _MemberIndex<R>(capacity: count)
        for chunk in chunks { index.insert(chunk.elements, in: chunk) }
        members = index
    }

    // MARK: Changing

    /// Removes the element with an identity; returns it, its record when
    /// kept, and its position.
    mutating func remove(_ id: R.ID) -> (element: _Element<R>, record: R?, position: Int)? {
        buildMembers()
        guard let (chunk, offset) = members?.locate(id) else { return nil }
        let position = tree.prefix(chunk.index) + offset
        let record = keepsRecords ? chunk.records.remove(at: offset) : nil
        let element = chunk.elements.remove(at: offset)
        members?.remove(id, from: chunk)
        count -= 1
        if chunk.elements.isEmpty {
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
        var low = 0, high = chunks.count - 1
        while low < high {
            let mid = (low + high) / 2
            if let last = chunks[mid].elements.last, order(last, probe) < 0 { low = mid + 1 } else { high = mid }
        }
        var k = low
        var offset: Int
        do {
            let elements = chunks[k].elements
            var lo = 0, hi = elements.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if order(elements[mid], probe) < 0 { lo = mid + 1 } else { hi = mid }
            }
            offset = lo
        }
        var position = tree.prefix(k) + offset
        while k < chunks.count {
            let elements = chunks[k].elements
            while offset < elements.count {
                if order(elements[offset], probe) != 0 { return nil }
                if elements[offset].id == id { return position }
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
        let record = keepsRecords ? chunk.records.remove(at: offset) : nil
        let removed = chunk.elements.remove(at: offset)
        members?.remove(removed.id, from: chunk)
        if isIndexingMembers { removedWhileIndexing.append((removed.id, chunk)) }
        count -= 1
        if chunk.elements.isEmpty {
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
        var low = 0, high = chunks.count - 1
        while low < high {
            let mid = (low + high) / 2
            if let last = chunks[mid].elements.last, isBefore(last, element) { low = mid + 1 } else { high = mid }
        }
        let elements = chunks[low].elements
        var lo = 0, hi = elements.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if isBefore(elements[mid], element) { lo = mid + 1 } else { hi = mid }
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
        if chunks.isEmpty {
            chunks.append(_Chunk([element], records: keepsRecords ? [record] : [], index: 0))
            rebuildTree()
            members?.insert(element.id, in: chunks[0])
            count = 1
            _checkInvariants(touched: chunks[0])
            return 0
        }
        let (k, lo) = insertionPoint(of: element, isBefore: isBefore)
        let chunk = chunks[k]
        if keepsRecords { chunk.records.insert(record, at: lo) }
        chunk.elements.insert(element, at: lo)
        members?.insert(element.id, in: chunk)
        count += 1
        let position = tree.prefix(chunk.index) + lo
        if chunk.elements.count > Self.maxChunk {
            let half = chunk.elements.count / 2
            let tail = _Chunk(Array(chunk.elements[half...]), records: keepsRecords ? Array(chunk.records[half...]) : [], index: chunk.index + 1)
            chunk.elements.removeSubrange(half...)
            if keepsRecords { chunk.records.removeSubrange(half...) }
            chunks.insert(tail, at: chunk.index + 1)
            for moved in tail.elements { members?.move(moved.id, from: chunk, to: tail) }
            rebuildTree()
        } else {
            tree.add(1, at: chunk.index)
        }
        _checkInvariants(touched: chunk)
        return position
    }
}
