// The first half of the diff: pairing rows (or sections) of the old and the new
// table by identity, in time linear in their number.
//
// This is the only generic part of the diff: it reads identities and contents
// and hands flat integer arrays to the planner (`_StagePlanner.swift`).
//
// Design (see `TableDiff.docc/Diffing.md`):
// - Every identity is hashed at most once (`_hash`: a fast seeded mix for
//   integers, `hashValue` otherwise).
// - Old identities go into a compact open-addressing table: power-of-two
//   capacity, linear probing, 4-byte slots holding the row's index and a tag of
//   hash bits. A probe compares tags before it reads any identity, so it
//   touches one cache line of the table per lookup.
// - New rows are first compared with the old row after the last pair (and two
//   more places a run may resume): long runs of unchanged rows pair without
//   being hashed or touching the table.
// - Duplicates are detected exactly (they are reported), and paired in order:
//   the k-th occurrence of an identity in the new table takes the k-th unpaired
//   occurrence in the old one.

/// The pairing of old and new elements by identity.
@usableFromInline
struct _Matching: Sendable {
    /// For every old element, the index of its new partner, or -1.
    @usableFromInline var oldToNew: [Int32]
    /// For every new element, the index of its old partner, or -1.
    @usableFromInline var newToOld: [Int32]
    /// For every old element, whether its content differs from its partner's.
    @usableFromInline var changed: _BitSet
    /// Whether any paired element changed.
    @usableFromInline var hasChanges: Bool
    /// One element for every identity that occurs more than once in the old or
    /// the new elements (its first occurrence on the side where it repeats):
    /// the old ones first, each side in order.
    @usableFromInline var duplicates: [_ElementRef]

    @inlinable
    init(oldCount: Int, newCount: Int) {
        oldToNew = [Int32](repeating: -1, count: oldCount)
        newToOld = [Int32](repeating: -1, count: newCount)
        changed = _BitSet(count: oldCount)
        hasChanges = false
        duplicates = []
    }
}

/// An element of the old or of the new elements, by index: how the pairing
/// names a duplicated identity. (The stage planner packs the same two sides
/// into one `Int32` per row, `_Ref`; duplicates are few and need no packing.)
///
/// Ordered as the duplicates are reported: old before new, each side by index.
@usableFromInline
enum _ElementRef: Hashable, Comparable, Sendable {
    /// Old element `i`.
    case old(Int)
    /// New element `j`.
    case new(Int)

    /// The element it names.
    @inlinable
    func element<T>(old: [T], new: [T]) -> T {
        switch self {
        case .old(let i): old[i]
        case .new(let j): new[j]
        }
    }
}

/// A set of small integers, one bit each.
@usableFromInline
struct _BitSet: Sendable {
    @usableFromInline var words: [UInt64]

    @inlinable
    init(count: Int) { words = [UInt64](repeating: 0, count: (count + 63) >> 6) }

    @inlinable
    subscript(i: Int) -> Bool {
        get { words[i >> 6] & (1 << UInt64(i & 63)) != 0 }
        set {
            if newValue { words[i >> 6] |= 1 << UInt64(i & 63) } else { words[i >> 6] &= ~(1 << UInt64(i & 63)) }
        }
    }
}

/// The table of old identities: open addressing with linear probing, 4-byte
/// slots, sized once for the old elements (at most three quarters full).
///
/// A slot is 0 when empty; otherwise its low `indexBits` bits hold the element's
/// index plus one, the bits above them up to bit 30 a tag (high bits of the hash,
/// independent of the position, which comes from the low bits), and bit 31 marks
/// an identity already reported as duplicated. A probe compares tags before it
/// reads an identity.
///
/// The table does not own its slots: they are `_MatcherScratch`'s, which
/// lives only for one `_matchIdentities` call.
@usableFromInline
struct _OldTable {
    @usableFromInline let slots: UnsafeMutableBufferPointer<UInt32>
    @usableFromInline let mask: Int
    @usableFromInline let indexMask: UInt32
    @usableFromInline let tagMask: UInt32
    @usableFromInline static let reportedBit: UInt32 = 1 << 31

    /// The number of slots for `count` elements: a power of two, at least
    /// 16, with the elements filling at most three quarters.
    @inlinable
    static func capacity(for count: Int) -> Int {
        var capacity = 16
        while capacity * 3 < count * 4 { capacity <<= 1 }
        return capacity
    }

    /// An empty table for `count` elements in `slots` (of
    /// `capacity(for: count)` slots, which it clears).
    @inlinable
    init(count: Int, slots: UnsafeMutableBufferPointer<UInt32>) {
        assert(slots.count == Self.capacity(for: count))
        self.slots = slots
        slots.initialize(repeating: 0)
        mask = slots.count - 1
        var indexBits = 1
        while (1 << indexBits) <= count + 1 { indexBits += 1 }
        indexMask = UInt32((1 << indexBits) - 1)
        tagMask = 0x7FFF_FFFF & ~indexMask
    }

    /// The one probe of the table: from the hash's home slot, the slot holding
    /// an element (with the hash's tag) for which `isSame` holds, or else the
    /// empty slot where the identity would go.
    @inlinable @inline(__always)
    func probe(_ hash: UInt64, isSame: (Int) -> Bool) -> (slot: Int, found: Bool) {
        let tag = UInt32(truncatingIfNeeded: hash >> 32) & tagMask
        var p = Int(truncatingIfNeeded: hash) & mask
        while true {
            let v = slots[p]
            if v == 0 { return (p, false) }
            if v & tagMask == tag && isSame(Int(v & indexMask) - 1) { return (p, true) }
            p = (p + 1) & mask
        }
    }

    /// Puts element `index` with `hash` in the empty slot `slot`.
    @inlinable @inline(__always)
    func insert(_ index: Int, hash: UInt64, at slot: Int) {
        slots[slot] = UInt32(truncatingIfNeeded: hash >> 32) & tagMask | UInt32(index + 1)
    }

    /// The element in a full slot.
    @inlinable @inline(__always)
    func element(at slot: Int) -> Int { Int(slots[slot] & indexMask) - 1 }

    /// Marks the identity in `slot` as reported duplicated; whether it was not yet.
    @inlinable @inline(__always)
    func markReported(_ slot: Int) -> Bool {
        let v = slots[slot]
        if v & Self.reportedBit != 0 { return false }
        slots[slot] = v | Self.reportedBit
        return true
    }
}

/// The table of new identities that are not among the old ones (to find
/// duplicates among the new): 8-byte slots, growing as needed. A slot holds 31
/// bits of the hash as a tag (which also gives the position, so that the table
/// grows without re-hashing), a reported-duplicate bit, and the index plus one.
@usableFromInline
struct _NewTable {
    @usableFromInline var slots: [UInt64]
    @usableFromInline var count = 0

    @usableFromInline static let tagMask: UInt64 = 0x7FFF_FFFF_0000_0000
    @usableFromInline static let reportedBit: UInt64 = 1 << 63
    @usableFromInline static let indexMask: UInt64 = 0xFFFF_FFFF

    /// A table for about `expectedCount` identities (it grows past them).
    @inlinable
    init(expectedCount: Int) {
        var capacity = 64
        while capacity * 3 < expectedCount * 4 { capacity <<= 1 }
        slots = [UInt64](repeating: 0, count: capacity)
    }

    @inlinable
    static func tag(_ hash: UInt64) -> UInt64 { (hash >> 32) & 0x7FFF_FFFF }

    /// Finds the new element with `tag` for which `isSame` holds, or adds
    /// `index`; returns the slot found, or nil when added.
    @inlinable
    mutating func findOrAdd(tag: UInt64, index: Int, isSame: (Int) -> Bool) -> Int? {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let mask = slots.count - 1
        var p = Int(tag) & mask
        while true {
            let v = slots[p]
            if v == 0 {
                slots[p] = tag << 32 | UInt64(index + 1)
                count += 1
                return nil
            }
            if (v & Self.tagMask) >> 32 == tag && isSame(Int(v & Self.indexMask) - 1) { return p }
            p = (p + 1) & mask
        }
    }

    /// The element in a full slot.
    @inlinable
    func element(at slot: Int) -> Int { Int(slots[slot] & Self.indexMask) - 1 }

    /// Marks the identity in `slot` as reported duplicated; whether it was not yet.
    @inlinable
    mutating func markReported(_ slot: Int) -> Bool {
        let v = slots[slot]
        if v & Self.reportedBit != 0 { return false }
        slots[slot] = v | Self.reportedBit
        return true
    }

    /// Doubles the capacity; positions are recomputed from the stored tags.
    @inlinable
    mutating func grow() {
        let newCapacity = slots.count * 2
        var newSlots = [UInt64](repeating: 0, count: newCapacity)
        let newMask = newCapacity - 1
        for v in slots where v != 0 {
            var p = Int((v & Self.tagMask) >> 32) & newMask
            while newSlots[p] != 0 { p = (p + 1) & newMask }
            newSlots[p] = v
        }
        slots = newSlots
    }
}

/// A random seed for `_hash`, drawn once per process.
@usableFromInline
let _hashSeed = UInt64.random(in: .min ... .max)

/// The 64-bit hash of an identity.
///
/// Fixed-width integers (the usual database keys) are mixed with murmur3's
/// finalizer after an exclusive-or with a per-process random seed: a bijection
/// that costs a nanosecond, against several for `hashValue` (SipHash), and that
/// nobody without the seed can steer into collisions. Everything else uses
/// `hashValue`. No result of the diff depends on hash values.
@inlinable @inline(__always)
func _hash<ID: Hashable>(_ id: ID) -> UInt64 {
    _hash(id, seed: _hashSeed)
}

/// ``_hash(_:)`` with the seed read once by the caller: a loop that hashes
/// many identities reads the global (a `swift_once` call on Linux) once.
@inlinable @inline(__always)
func _hash<ID: Hashable>(_ id: ID, seed: UInt64) -> UInt64 {
    func mix(_ x: UInt64) -> UInt64 { _murmurFinalizer(x ^ seed) }
    if ID.self == Int.self { return mix(UInt64(bitPattern: Int64(unsafeBitCast(id, to: Int.self)))) }
    if ID.self == Int64.self { return mix(UInt64(bitPattern: unsafeBitCast(id, to: Int64.self))) }
    if ID.self == UInt64.self { return mix(unsafeBitCast(id, to: UInt64.self)) }
    if ID.self == UInt.self { return mix(UInt64(unsafeBitCast(id, to: UInt.self))) }
    if ID.self == Int32.self { return mix(UInt64(UInt32(bitPattern: unsafeBitCast(id, to: Int32.self)))) }
    if ID.self == UInt32.self { return mix(UInt64(unsafeBitCast(id, to: UInt32.self))) }
    #if _pointerBitWidth(_32)
    // Where Int has 32 bits (watchOS on arm64_32), hashValue is mixed too:
    // its upper half, the tag and home of the snapshot index, would be 0.
    return mix(UInt64(UInt(bitPattern: id.hashValue)))
    #else
    return UInt64(bitPattern: Int64(id.hashValue))
    #endif
}

/// murmur3's 64-bit finalizer: a bijection that spreads every bit of `x` over
/// the result.
@inlinable @inline(__always)
func _murmurFinalizer(_ x: UInt64) -> UInt64 {
    var h = x
    h ^= h >> 33
    h &*= 0xFF51_AFD7_ED55_8CCD
    h ^= h >> 33
    h &*= 0xC4CE_B9FE_1A85_EC53
    return h ^ (h >> 33)
}

/// The number of 8-byte words of a ``_BitwiseHashable`` identity type, hashed
/// as its bytes; 0 for any other type (hashed by ``_hash(_:)``).
@inlinable
func _bitwiseWords<ID: Hashable>(_ type: ID.Type) -> Int {
    let size = MemoryLayout<ID>.size
    guard type is any _BitwiseHashable.Type, size > 0, size % 8 == 0, size <= 64 else { return 0 }
    return size / 8
}

/// The 64-bit hash of a ``_BitwiseHashable`` identity of `words` 8-byte
/// words: each word mixed in with murmur3's finalizer, after `seed` (the
/// per-process ``_hashSeed``, read once by the caller).
@inlinable @inline(__always)
func _bitwiseHash<ID: Hashable>(_ id: ID, words: Int, seed: UInt64) -> UInt64 {
    withUnsafeBytes(of: id) { raw in
        var h = seed
        for w in 0..<words { h = _murmurFinalizer(h ^ raw.loadUnaligned(fromByteOffset: w &* 8, as: UInt64.self)) }
        return h
    }
}

/// Pairs old and new elements by identity and compares the contents of pairs.
///
/// - Complexity: O(*n* + *m*) expected, where *n* and *m* are the numbers of old
///   and new elements; each old identity is hashed once, and a new one only when
///   it does not continue a run of unchanged rows.
@inlinable
func _matchIdentities<Row: TableDiffable>(old: [Row], new: [Row]) -> _Matching {
    old.withUnsafeBufferPointer { old in
        new.withUnsafeBufferPointer { new in _matchIdentities(old: old, new: new) }
    }
}

/// Pairs old and new elements by identity, as `_matchIdentities(old:new:)` for
/// arrays, from elements in memory.
@inlinable
func _matchIdentities<Row: TableDiffable>(old: UnsafeBufferPointer<Row>, new: UnsafeBufferPointer<Row>) -> _Matching {
    precondition(old.count < Int(Int32.max) && new.count < Int(Int32.max), "HeadlessTable diffs at most 2^31 - 2 rows")
    var result = _Matching(oldCount: old.count, newCount: new.count)
    var changed = result.changed
    result.changed = _BitSet(count: 0)   // one owner, so that setting a bit does not copy the set
    var hasChanges = false, duplicates: [_ElementRef] = []
    // Every buffer the matcher reaches is scoped to this call: the pairing's
    // arrays through their own buffers, the scratch memory by
    // `_MatcherScratch.with(oldCount:_:)` (nothing to free by hand).
    result.oldToNew.withUnsafeMutableBufferPointer { oldToNew in
        result.newToOld.withUnsafeMutableBufferPointer { newToOld in
            _MatcherScratch.with(oldCount: old.count) { scratch in
                var matcher = _IdentityMatcher(old: old, new: new, oldToNew: oldToNew, newToOld: newToOld, changed: changed, scratch: scratch)
                changed = _BitSet(count: 0)   // the matcher's alone now
                matcher.insertOldIdentities()
                matcher.table._checkInvariants(count: old.count) { _hash(old[$0].diffIdentifier) }
                matcher.pairNewElements()
                matcher.table._checkInvariants(count: old.count) { _hash(old[$0].diffIdentifier) }
                matcher.newTable._checkInvariants()
                (changed, hasChanges, duplicates) = (matcher.changed, matcher.hasChanges, matcher.duplicates)
            }
        }
    }
    result.changed = changed
    result.hasChanges = hasChanges
    result.duplicates = duplicates.sorted()   // old ones first, each side in order (`_ElementRef`'s order)
    result._checkInvariants()
    return result
}

/// The scratch memory of one `_matchIdentities` call: the old identities'
/// table slots, and a batch of hashes and of the slots their lookups found.
/// It exists only inside `with(oldCount:_:)`, which allocates it (on the stack
/// where it is small, `withUnsafeTemporaryAllocation`) and releases it when
/// the body returns: no buffer outlives the call or is freed by hand.
@usableFromInline
struct _MatcherScratch {
    /// The old table's slots (`_OldTable.capacity(for:)` of them), uninitialized.
    @usableFromInline let tableSlots: UnsafeMutableBufferPointer<UInt32>
    /// A batch's hashes (`_IdentityMatcher.batchSize` of them).
    @usableFromInline let hashes: UnsafeMutableBufferPointer<UInt64>
    /// For a batch of new elements, the old table's slot holding each one's identity (-1: none).
    @usableFromInline let found: UnsafeMutableBufferPointer<Int>

    @inlinable
    init(tableSlots: UnsafeMutableBufferPointer<UInt32>, hashes: UnsafeMutableBufferPointer<UInt64>, found: UnsafeMutableBufferPointer<Int>) {
        self.tableSlots = tableSlots
        self.hashes = hashes
        self.found = found
    }

    /// Calls `body` with scratch memory for matching `oldCount` old elements.
    @inlinable
    static func with<Result>(oldCount: Int, _ body: (_MatcherScratch) -> Result) -> Result {
        let batch = _IdentityMatcherBatch.size
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: _OldTable.capacity(for: oldCount)) { slots in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: batch) { hashes in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: batch) { found in
                    body(_MatcherScratch(tableSlots: slots, hashes: hashes, found: found))
                }
            }
        }
    }
}

/// How many elements the matcher hashes and looks up at a time, at most.
@usableFromInline
enum _IdentityMatcherBatch {
    @inlinable static var size: Int { 64 }
}

/// The state of one `_matchIdentities`: the elements, the pairing being
/// built, the two identity tables, and where a run of unchanged rows may
/// continue. Its phases are its methods, in order.
@usableFromInline
struct _IdentityMatcher<Row: TableDiffable> {
    @usableFromInline let old: UnsafeBufferPointer<Row>
    @usableFromInline let new: UnsafeBufferPointer<Row>
    @usableFromInline let oldToNew: UnsafeMutableBufferPointer<Int32>
    @usableFromInline let newToOld: UnsafeMutableBufferPointer<Int32>
    @usableFromInline var changed: _BitSet
    @usableFromInline var hasChanges = false
    /// One element per duplicated identity (see `_Matching.duplicates`).
    @usableFromInline var duplicates: [_ElementRef] = []

    @usableFromInline let table: _OldTable
    /// New identities not among the old (to find duplicates among the new).
    @usableFromInline var newTable: _NewTable

    /// Duplicate chains in the old elements, allocated on the first duplicate:
    /// `next[i]` is the next occurrence after `i`; for a first occurrence `f`,
    /// `tail[f]` is its last occurrence and `cursor[f]` the next one to pair.
    @usableFromInline var next: [Int32] = [], tail: [Int32] = [], cursor: [Int32] = []

    /// Hashes of a batch of elements, and for new elements the slot of the
    /// old table holding each one's identity (-1: none): scratch memory
    /// (`_MatcherScratch`), valid while the matcher works.
    @inlinable static var batchSize: Int { _IdentityMatcherBatch.size }
    @usableFromInline let hashes: UnsafeMutableBufferPointer<UInt64>
    @usableFromInline let found: UnsafeMutableBufferPointer<Int>
    /// The new elements whose hashes are in `hashes`, and how many to hash
    /// ahead next time (doubling while elements keep needing the table).
    @usableFromInline var lookahead = 0..<0
    @usableFromInline var window = 1

    /// The old element after the last pair, and where the run was before the last jump.
    @usableFromInline var nextOld = 0
    @usableFromInline var resumeOld = 0

    @inlinable
    init(
        old: UnsafeBufferPointer<Row>, new: UnsafeBufferPointer<Row>,
        oldToNew: UnsafeMutableBufferPointer<Int32>, newToOld: UnsafeMutableBufferPointer<Int32>, changed: _BitSet,
        scratch: _MatcherScratch
    ) {
        self.old = old
        self.new = new
        self.oldToNew = oldToNew
        self.newToOld = newToOld
        self.changed = changed
        table = _OldTable(count: old.count, slots: scratch.tableSlots)
        // New identities not among the old: at least the rows the new table has
        // in excess, and usually a few percent more.
        newTable = _NewTable(expectedCount: max(new.count - old.count, new.count / 16))
        hashes = scratch.hashes
        found = scratch.found
    }

    @inlinable
    var oldHasDuplicates: Bool { !next.isEmpty }

    /// Reports an identity occurring more than once (once per identity: the
    /// tables' reported bits say whether it was reported).
    @inlinable
    mutating func reportDuplicate(old i: Int) { duplicates.append(.old(i)) }

    @inlinable
    mutating func reportDuplicate(new j: Int) { duplicates.append(.new(j)) }

    // MARK: Phase 1: the old identities

    /// Every old identity into the table (sized so that it never grows).
    /// Hashes are computed a batch at a time, then inserted: the insert loop is
    /// short, so the processor overlaps the cache misses of many inserts instead
    /// of waiting for each one after a hash computation.
    @inlinable
    mutating func insertOldIdentities() {
        let old = old, table = table   // the probes' closures capture these, not `self`
        let seed = _hashSeed
        var base = 0
        while base < old.count {
            let end = min(base + Self.batchSize, old.count)
            for i in base..<end { hashes[i - base] = _hash(old[i].diffIdentifier, seed: seed) }
            for i in base..<end {
                let id = old[i].diffIdentifier
                let (slot, present) = table.probe(hashes[i - base]) { old[$0].diffIdentifier == id }
                if present {
                    chainDuplicate(i, of: table.element(at: slot))
                    if table.markReported(slot) { reportDuplicate(old: table.element(at: slot)) }
                } else {
                    table.insert(i, hash: hashes[i - base], at: slot)
                }
            }
            base = end
        }
    }

    /// Appends old element `i` to the chain of its identity's first occurrence `f`.
    @inlinable
    mutating func chainDuplicate(_ i: Int, of f: Int) {
        if next.isEmpty {
            next = [Int32](repeating: -1, count: old.count)
            tail = [Int32](repeating: -1, count: old.count)
            cursor = [Int32](repeating: -1, count: old.count)
        }
        if tail[f] < 0 {
            tail[f] = Int32(f)
            cursor[f] = Int32(f)
        }
        next[Int(tail[f])] = Int32(i)
        tail[f] = Int32(i)
    }

    // MARK: Phase 2: the new elements

    /// Every new element: first against the old element after the last pair
    /// (runs of unchanged rows pair here, unhashed), else through the table.
    @inlinable
    mutating func pairNewElements() {
        for j in 0..<new.count {
            let id = new[j].diffIdentifier
            var partner = oldHasDuplicates ? -1 : continuedRun(by: id)
            if partner >= 0 {
                window = 1
            } else {
                partner = partnerThroughTables(j, id)
            }
            if partner >= 0 { pair(partner, j) }
        }
    }

    /// Where a run of unchanged rows continues with `id`, or -1: after the last
    /// pair; one row further (one old row deleted or moved away); or after the
    /// pair before a row moved in from elsewhere.
    @inlinable @inline(__always)
    func continuedRun(by id: Row.DiffIdentifier) -> Int {
        if continues(nextOld, id) { return nextOld }
        if continues(nextOld + 1, id) { return nextOld + 1 }
        if continues(resumeOld, id) { return resumeOld }
        return -1
    }

    /// Whether old element `i` is unpaired and has `id`.
    @inlinable @inline(__always)
    func continues(_ i: Int, _ id: Row.DiffIdentifier) -> Bool {
        i < old.count && oldToNew[i] < 0 && old[i].diffIdentifier == id
    }

    /// The old partner of new element `j` found through the table, or -1; a
    /// duplicated identity is reported on the way.
    @inlinable
    mutating func partnerThroughTables(_ j: Int, _ id: Row.DiffIdentifier) -> Int {
        if !lookahead.contains(j) { lookUpBatch(from: j) }
        let new = new, table = table   // the probes' closures capture these, not `self`
        let slot = found[j - lookahead.lowerBound]
        guard slot >= 0 else {
            // Not an old identity: a duplicate if another new row has it.
            let hash = hashes[j - lookahead.lowerBound]
            if let slot = newTable.findOrAdd(tag: _NewTable.tag(hash), index: j, isSame: { new[$0].diffIdentifier == id }),
                newTable.markReported(slot)
            {
                reportDuplicate(new: newTable.element(at: slot))
            }
            return -1
        }
        let k = table.element(at: slot)
        var partner = -1
        if oldHasDuplicates, tail[k] >= 0 {
            partner = Int(cursor[k])
            if partner >= 0 { cursor[k] = next[partner] }
        } else if oldToNew[k] < 0 {
            partner = k
        }
        // More occurrences in the new table than in the old.
        if partner < 0, table.markReported(slot) { reportDuplicate(old: k) }
        return partner
    }

    /// A new element that needs the table is often followed by more (a block
    /// of inserted or shuffled rows), so while elements keep needing it,
    /// hashes are computed a growing batch ahead (1, 2, 4, … 64 elements), and
    /// the probes too run in a short loop whose misses overlap. The lookups
    /// only read the old table, so they stay valid.
    @inlinable
    mutating func lookUpBatch(from j: Int) {
        let old = old, new = new, table = table, hashes = hashes, found = found
        lookahead = j..<min(j + window, new.count)
        window = min(window * 2, Self.batchSize)
        let seed = _hashSeed
        for k in lookahead { hashes[k - j] = _hash(new[k].diffIdentifier, seed: seed) }
        for k in lookahead {
            let id = new[k].diffIdentifier
            let (slot, present) = table.probe(hashes[k - j]) { old[$0].diffIdentifier == id }
            found[k - j] = present ? slot : -1
        }
    }

    /// Pairs old element `partner` with new element `j`, and compares their contents.
    @inlinable @inline(__always)
    mutating func pair(_ partner: Int, _ j: Int) {
        oldToNew[partner] = Int32(j)
        newToOld[j] = Int32(partner)
        if partner != nextOld && partner != nextOld + 1 { resumeOld = nextOld }
        nextOld = partner + 1
        if !old[partner].isContentEqual(to: new[j]) {
            changed[partner] = true
            hasChanges = true
        }
    }
}
