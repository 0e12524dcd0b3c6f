// The first half of the diff: pairing rows (or sections) of the old and the new
// table by identity, in time linear in their number.
//
// This is the only generic part of the diff: it reads identities and contents
// and hands flat integer arrays to the planner (`_StagePlanner.swift`).
//
// Design (see `Guides/TableDiff.md` for the measurements behind it):
// - Every identity is hashed exactly once.
// - Old identities go into a compact open-addressing table: power-of-two
//   capacity, linear probing, 8-byte slots holding 31 bits of the hash as a tag
//   and the row's index. A probe compares tags before it reads any identity, so
//   it touches one cache line of the table per lookup. Positions come from the
//   tag, so the table can grow without re-hashing identities.
// - New rows are first compared with the old row after the last match (a
//   cursor): long runs of unchanged rows match without touching the table.
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

/// The open-addressing table of identities.
///
/// A slot is 0 when empty; otherwise bits 32…62 hold the tag (31 bits of the
/// identity's hash), bit 63 marks an identity already reported as duplicated,
/// bit 31 marks an element of the *new* side, and bits 0…30 hold the element's
/// index plus one.
@usableFromInline
struct _SlotTable {
    @usableFromInline var slots: [UInt64]
    @usableFromInline var mask: Int
    @usableFromInline var count: Int

    @usableFromInline static let tagMask: UInt64 = 0x7FFF_FFFF_0000_0000
    @usableFromInline static let reportedBit: UInt64 = 1 << 63
    @usableFromInline static let newSideBit: UInt64 = 1 << 31
    @usableFromInline static let indexMask: UInt64 = 0x7FFF_FFFF

    @inlinable
    init(expectedCount: Int) {
        var capacity = 16
        while capacity < expectedCount * 2 { capacity <<= 1 }
        slots = [UInt64](repeating: 0, count: capacity)
        mask = capacity - 1
        count = 0
    }

    @inlinable
    static func tag(_ hash: Int) -> UInt64 { UInt64(UInt32(truncatingIfNeeded: hash) & 0x7FFF_FFFF) }

    /// Doubles the capacity; positions are recomputed from the stored tags.
    @inlinable
    mutating func grow() {
        let newCapacity = slots.count * 2
        var newSlots = [UInt64](repeating: 0, count: newCapacity)
        let newMask = newCapacity - 1
        newSlots.withUnsafeMutableBufferPointer { target in
            for v in slots where v != 0 {
                var p = Int((v & Self.tagMask) >> 32) & newMask
                while target[p] != 0 { p = (p + 1) & newMask }
                target[p] = v
            }
        }
        slots = newSlots
        mask = newMask
    }
}

/// Pairs old and new elements by identity and compares the contents of pairs.
///
/// - Complexity: O(*n* + *m*) expected, where *n* and *m* are the numbers of old
///   and new elements; each identity is hashed once.
@inlinable
func _matchIdentities<Element, ID: Hashable>(
    old: [Element], new: [Element],
    identity: (Element) -> ID,
    contentEqual: ((Element, Element) -> Bool)?
) -> _Matching {
    let oldCount = old.count, newCount = new.count
    precondition(oldCount < Int(Int32.max) && newCount < Int(Int32.max), "HeadlessTable diffs at most 2^31 - 2 rows")
    var result = _Matching(oldCount: oldCount, newCount: newCount)
    var table = _SlotTable(expectedCount: oldCount)

    // Duplicate chains in the old elements, allocated on the first duplicate:
    // `next[i]` is the next occurrence after `i`; for a first occurrence `f`,
    // `tail[f]` is its last occurrence and `cursor[f]` the next one to pair.
    var next: [Int32] = [], tail: [Int32] = [], cursor: [Int32] = []

    old.withUnsafeBufferPointer { old in
        for i in 0..<oldCount {
            let id = identity(old[i])
            let tag = _SlotTable.tag(id.hashValue)
            var p = Int(tag) & table.mask
            while true {
                let v = table.slots[p]
                if v == 0 {
                    table.slots[p] = tag << 32 | UInt64(i + 1)
                    table.count += 1
                    break
                }
                if (v & _SlotTable.tagMask) >> 32 == tag {
                    let f = Int(v & _SlotTable.indexMask) - 1
                    if identity(old[f]) == id {
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
                        if v & _SlotTable.reportedBit == 0 {
                            table.slots[p] = v | _SlotTable.reportedBit
                            result.duplicates.append(Int32(f))
                        }
                        break
                    }
                }
                p = (p + 1) & table.mask
            }
            if table.count * 2 > table.slots.count { table.grow() }
        }
    }
    let oldHasDuplicates = !next.isEmpty

    old.withUnsafeBufferPointer { old in
        new.withUnsafeBufferPointer { new in
            var nextOld = 0   // the old element after the last pair: runs match here without the table
            for j in 0..<newCount {
                let id = identity(new[j])
                var partner = -1
                if !oldHasDuplicates, nextOld < oldCount, result.oldToNew[nextOld] < 0, identity(old[nextOld]) == id {
                    partner = nextOld
                } else {
                    let tag = _SlotTable.tag(id.hashValue)
                    var p = Int(tag) & table.mask
                    probing: while true {
                        let v = table.slots[p]
                        if v == 0 {
                            // Not in the old table: remember it, to find duplicates among the new.
                            table.slots[p] = tag << 32 | _SlotTable.newSideBit | UInt64(j + 1)
                            table.count += 1
                            if table.count * 2 > table.slots.count { table.grow() }
                            break probing
                        }
                        if (v & _SlotTable.tagMask) >> 32 == tag {
                            let k = Int(v & _SlotTable.indexMask) - 1
                            if v & _SlotTable.newSideBit == 0 {
                                if identity(old[k]) == id {
                                    if oldHasDuplicates, tail[k] >= 0 {
                                        partner = Int(cursor[k])
                                        if partner >= 0 { cursor[k] = next[partner] }
                                    } else if result.oldToNew[k] < 0 {
                                        partner = k
                                    }
                                    if partner < 0, v & _SlotTable.reportedBit == 0 {
                                        // More occurrences in the new table than in the old.
                                        table.slots[p] = v | _SlotTable.reportedBit
                                        result.duplicates.append(Int32(k))
                                    }
                                    break probing
                                }
                            } else if identity(new[k]) == id {
                                if v & _SlotTable.reportedBit == 0 {
                                    table.slots[p] = v | _SlotTable.reportedBit
                                    result.duplicates.append(Int32(-(k + 1)))
                                }
                                break probing
                            }
                        }
                        p = (p + 1) & table.mask
                    }
                }
                if partner >= 0 {
                    result.oldToNew[partner] = Int32(j)
                    result.newToOld[j] = Int32(partner)
                    nextOld = partner + 1
                    if let contentEqual, !contentEqual(old[partner], new[j]) {
                        result.changed[partner] = true
                        result.hasChanges = true
                    }
                }
            }
        }
    }
    // Old duplicates first, each side in order of position.
    result.duplicates.sort { a, b in
        (a >= 0) != (b >= 0) ? a >= 0 : (a >= 0 ? a < b : a > b)
    }
    return result
}
