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
    /// the new elements: an old index (≥ 0), or a new index `j` as `-(j + 1)`.
    @usableFromInline var duplicates: [Int32]

    @inlinable
    init(oldCount: Int, newCount: Int) {
        oldToNew = [Int32](repeating: -1, count: oldCount)
        newToOld = [Int32](repeating: -1, count: newCount)
        changed = _BitSet(count: oldCount)
        hasChanges = false
        duplicates = []
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
@usableFromInline
struct _OldTable {
    @usableFromInline var slots: [UInt32]
    @usableFromInline let mask: Int
    @usableFromInline let indexMask: UInt32
    @usableFromInline let tagMask: UInt32
    @usableFromInline static let reportedBit: UInt32 = 1 << 31

    @inlinable
    init(count: Int) {
        var capacity = 16
        while capacity * 3 < count * 4 { capacity <<= 1 }
        slots = [UInt32](repeating: 0, count: capacity)
        mask = capacity - 1
        var indexBits = 1
        while (1 << indexBits) <= count + 1 { indexBits += 1 }
        indexMask = UInt32((1 << indexBits) - 1)
        tagMask = 0x7FFF_FFFF & ~indexMask
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
    func mix(_ x: UInt64) -> UInt64 {
        var h = x ^ _hashSeed
        h ^= h >> 33
        h &*= 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h &*= 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 33)
    }
    if ID.self == Int.self { return mix(UInt64(bitPattern: Int64(unsafeBitCast(id, to: Int.self)))) }
    if ID.self == Int64.self { return mix(UInt64(bitPattern: unsafeBitCast(id, to: Int64.self))) }
    if ID.self == UInt64.self { return mix(unsafeBitCast(id, to: UInt64.self)) }
    if ID.self == UInt.self { return mix(UInt64(unsafeBitCast(id, to: UInt.self))) }
    if ID.self == Int32.self { return mix(UInt64(UInt32(bitPattern: unsafeBitCast(id, to: Int32.self)))) }
    if ID.self == UInt32.self { return mix(UInt64(unsafeBitCast(id, to: UInt32.self))) }
    return UInt64(bitPattern: Int64(id.hashValue))
}

/// Pairs old and new elements by identity and compares the contents of pairs.
///
/// - Complexity: O(*n* + *m*) expected, where *n* and *m* are the numbers of old
///   and new elements; each old identity is hashed once, and a new one only when
///   it does not continue a run of unchanged rows.
@inlinable
func _matchIdentities<Row: TableDiffable>(old: [Row], new: [Row]) -> _Matching {
    let oldCount = old.count, newCount = new.count
    precondition(oldCount < Int(Int32.max) && newCount < Int(Int32.max), "HeadlessTable diffs at most 2^31 - 2 rows")
    var result = _Matching(oldCount: oldCount, newCount: newCount)
    var table = _OldTable(count: oldCount)
    let mask = table.mask, tagMask = table.tagMask, indexMask = table.indexMask
    // New identities not among the old: at least the rows the new table has in
    // excess, and usually a few percent more.
    var newTable = _NewTable(expectedCount: max(newCount - oldCount, newCount / 16))
    let batchSize = 64
    let hashes = UnsafeMutablePointer<UInt64>.allocate(capacity: batchSize)
    defer { hashes.deallocate() }
    // For each new row of the lookahead batch: the slot of the old table holding
    // its identity, or -1.
    let found = UnsafeMutablePointer<Int>.allocate(capacity: batchSize)
    defer { found.deallocate() }

    // Duplicate chains in the old elements, allocated on the first duplicate:
    // `next[i]` is the next occurrence after `i`; for a first occurrence `f`,
    // `tail[f]` is its last occurrence and `cursor[f]` the next one to pair.
    var next: [Int32] = [], tail: [Int32] = [], cursor: [Int32] = []

    // 1. Every old identity into the table (sized so that it never grows).
    // Hashes are computed a batch at a time, then inserted: the insert loop is
    // short, so the processor overlaps the cache misses of many inserts instead
    // of waiting for each one after a hash computation.
    old.withUnsafeBufferPointer { old in
        table.slots.withUnsafeMutableBufferPointer { slots in
            var base = 0
            while base < oldCount {
                let end = min(base + batchSize, oldCount)
                for i in base..<end { hashes[i - base] = _hash(old[i].diffIdentifier) }
                for i in base..<end {
                    let hash = hashes[i - base]
                    let tag = UInt32(truncatingIfNeeded: hash >> 32) & tagMask
                    var p = Int(truncatingIfNeeded: hash) & mask
                    while true {
                        let v = slots[p]
                        if v == 0 {
                            slots[p] = tag | UInt32(i + 1)
                            break
                        }
                        if v & tagMask == tag {
                            let f = Int(v & indexMask) - 1
                            if old[f].diffIdentifier == old[i].diffIdentifier {
                                if next.isEmpty {
                                    next = [Int32](repeating: -1, count: oldCount)
                                    tail = [Int32](repeating: -1, count: oldCount)
                                    cursor = [Int32](repeating: -1, count: oldCount)
                                }
                                if tail[f] < 0 {
                                    tail[f] = Int32(f)
                                    cursor[f] = Int32(f)
                                }
                                next[Int(tail[f])] = Int32(i)
                                tail[f] = Int32(i)
                                if v & _OldTable.reportedBit == 0 {
                                    slots[p] = v | _OldTable.reportedBit
                                    result.duplicates.append(Int32(f))
                                }
                                break
                            }
                        }
                        p = (p + 1) & mask
                    }
                }
                base = end
            }
        }
    }
    let oldHasDuplicates = !next.isEmpty

    // 2. Every new element: first against the old element after the last pair
    // (runs of unchanged rows pair here, unhashed), else through the table. A
    // row that needs the table is often followed by more (a block of inserted
    // or shuffled rows), so while rows keep needing it, hashes are computed a
    // growing batch ahead (1, 2, 4, … 64 rows), and the probes too run in a
    // short loop whose misses overlap.
    var changed = result.changed
    result.changed = _BitSet(count: 0)   // one owner, so that setting a bit does not copy the set
    var hasChanges = false
    var nextOld = 0     // the old element after the last pair
    var resumeOld = 0   // where the run was before the last jump
    var lookahead = 0..<0   // the new rows whose hashes are in `hashes`
    var window = 1          // rows hashed ahead: doubles while rows keep needing the table
    old.withUnsafeBufferPointer { old in
        new.withUnsafeBufferPointer { new in
            result.oldToNew.withUnsafeMutableBufferPointer { oldToNew in
                result.newToOld.withUnsafeMutableBufferPointer { newToOld in
                    table.slots.withUnsafeMutableBufferPointer { slots in
                        for j in 0..<newCount {
                            let id = new[j].diffIdentifier
                            var partner = -1
                            // Where a run of unchanged rows may continue: after the last
                            // pair; one row further (one old row deleted or moved away);
                            // or after the pair before a row moved in from elsewhere.
                            if !oldHasDuplicates, nextOld < oldCount, oldToNew[nextOld] < 0, old[nextOld].diffIdentifier == id {
                                partner = nextOld
                                window = 1
                            } else if !oldHasDuplicates, nextOld + 1 < oldCount, oldToNew[nextOld + 1] < 0,
                                old[nextOld + 1].diffIdentifier == id
                            {
                                partner = nextOld + 1
                                window = 1
                            } else if !oldHasDuplicates, resumeOld < oldCount, oldToNew[resumeOld] < 0,
                                old[resumeOld].diffIdentifier == id
                            {
                                partner = resumeOld
                                window = 1
                            } else {
                                if !lookahead.contains(j) {
                                    // Hash and look up a batch of rows ahead: the lookups
                                    // only read the old table, so they stay valid.
                                    lookahead = j..<min(j + window, newCount)
                                    window = min(window * 2, batchSize)
                                    for k in lookahead { hashes[k - j] = _hash(new[k].diffIdentifier) }
                                    for k in lookahead {
                                        let hash = hashes[k - j]
                                        let tag = UInt32(truncatingIfNeeded: hash >> 32) & tagMask
                                        var p = Int(truncatingIfNeeded: hash) & mask
                                        found[k - j] = -1
                                        while true {
                                            let v = slots[p]
                                            if v == 0 { break }
                                            if v & tagMask == tag && old[Int(v & indexMask) - 1].diffIdentifier == new[k].diffIdentifier {
                                                found[k - j] = p
                                                break
                                            }
                                            p = (p + 1) & mask
                                        }
                                    }
                                }
                                let p = found[j - lookahead.lowerBound]
                                if p >= 0 {
                                    let v = slots[p]
                                    let k = Int(v & indexMask) - 1
                                    if oldHasDuplicates, tail[k] >= 0 {
                                        partner = Int(cursor[k])
                                        if partner >= 0 { cursor[k] = next[partner] }
                                    } else if oldToNew[k] < 0 {
                                        partner = k
                                    }
                                    if partner < 0, v & _OldTable.reportedBit == 0 {
                                        // More occurrences in the new table than in the old.
                                        slots[p] = v | _OldTable.reportedBit
                                        result.duplicates.append(Int32(k))
                                    }
                                } else {
                                    // Not an old identity: a duplicate if another new row has it.
                                    let hash = hashes[j - lookahead.lowerBound]
                                    if let slot = newTable.findOrAdd(tag: _NewTable.tag(hash), index: j, isSame: { new[$0].diffIdentifier == id }) {
                                        let v = newTable.slots[slot]
                                        if v & _NewTable.reportedBit == 0 {
                                            newTable.slots[slot] = v | _NewTable.reportedBit
                                            result.duplicates.append(Int32(-(Int(v & _NewTable.indexMask))))
                                        }
                                    }
                                }
                            }
                            if partner >= 0 {
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
                    }
                }
            }
        }
    }
    result.changed = changed
    result.hasChanges = hasChanges
    // Old duplicates first, each side in order of position.
    result.duplicates.sort { a, b in
        (a >= 0) != (b >= 0) ? a >= 0 : (a >= 0 ? a < b : a > b)
    }
    return result
}
