// Invariant checks, swift-collections style: compiled in debug builds (or any
// build with `-Xswiftc -DHEADLESS_TABLE_INTERNAL_CHECKS`), empty otherwise.
// `_matchIdentities` calls them after each of its phases.

extension _OldTable {
    /// Traps when the table is inconsistent with the `count` elements it was
    /// filled from: an index out of range or in two slots, more than three
    /// quarters full, a tag that is not the element's hash's, or an element
    /// that a probe from its home slot would not reach (an empty slot between).
    ///
    /// - Complexity: O(capacity) plus one hash per element, in the builds that check.
    @inlinable
    func _checkInvariants(count: Int, hashOf: (Int) -> UInt64) {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        var seen = _BitSet(count: count)
        var full = 0
        for p in 0..<slots.count where slots[p] != 0 {
            let i = element(at: p)
            precondition(i >= 0 && i < count, "slot \(p) holds element \(i) of \(count)")
            precondition(!seen[i], "element \(i) in two slots")
            seen[i] = true
            full += 1
            let hash = hashOf(i)
            precondition(slots[p] & tagMask == UInt32(truncatingIfNeeded: hash >> 32) & tagMask, "slot \(p): a tag not its hash's")
            var q = Int(truncatingIfNeeded: hash) & mask
            while q != p {
                precondition(slots[q] != 0, "element \(i) is beyond an empty slot from its home")
                q = (q + 1) & mask
            }
        }
        precondition(full * 4 <= slots.count * 3 || slots.count == 16, "more than three quarters full")
        #endif
    }
}

extension _NewTable {
    /// Traps when the table is inconsistent: its count against its full
    /// slots, more than three quarters full, an index in two slots, or an
    /// element a probe from its home slot (its tag's low bits) would not reach.
    ///
    /// - Complexity: O(capacity), in the builds that check.
    @inlinable
    func _checkInvariants() {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        let mask = slots.count - 1
        var indexes = Set<Int>()
        for p in slots.indices where slots[p] != 0 {
            precondition(indexes.insert(element(at: p)).inserted, "an element in two slots")
            var q = Int((slots[p] & Self.tagMask) >> 32) & mask
            while q != p {
                precondition(slots[q] != 0, "slot \(p) is beyond an empty slot from its home")
                q = (q + 1) & mask
            }
        }
        precondition(indexes.count == count, "count \(count) but \(indexes.count) full slots")
        precondition(count * 4 <= slots.count * 3, "more than three quarters full")
        #endif
    }
}

extension _Matching {
    /// Traps when the pairing is not one-to-one: `oldToNew` and `newToOld`
    /// must be inverse where they pair, and a changed bit set only on a paired
    /// old element.
    ///
    /// - Complexity: O(*n* + *m*), in the builds that check.
    @inlinable
    func _checkInvariants() {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        for (i, j) in oldToNew.enumerated() where j >= 0 {
            precondition(Int(j) < newToOld.count && newToOld[Int(j)] == Int32(i), "old \(i) → new \(j) is not mutual")
        }
        for (j, i) in newToOld.enumerated() where i >= 0 {
            precondition(Int(i) < oldToNew.count && oldToNew[Int(i)] == Int32(j), "new \(j) → old \(i) is not mutual")
        }
        if !changed.words.isEmpty {
            for i in oldToNew.indices where changed[i] { precondition(oldToNew[i] >= 0, "old \(i) changed but unpaired") }
        }
        #endif
    }
}
