// Invariant checks, swift-collections style: compiled in debug builds (or any
// build with `-Xswiftc -DHEADLESS_TABLE_INTERNAL_CHECKS`), empty otherwise.

extension _HashSlots {
    /// Traps when the table's parts disagree: a capacity that is not a power
    /// of two, more than half the slots used, the count against the used
    /// slots, or an entry a lookup cannot reach (an empty slot between its
    /// home and its slot: what a removal must not leave).
    ///
    /// - Complexity: O(*c*) for *c* slots in the builds that check; O(1) otherwise.
    @inlinable
    package func _checkInvariants() {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        precondition(slots.count & (slots.count - 1) == 0, "\(slots.count) slots: not a power of two")
        precondition(count * 2 <= slots.count, "\(count) entries in \(slots.count) slots: more than half full")
        let mask = slots.count - 1
        var used = 0
        for (k, slot) in slots.enumerated() where slot != 0 {
            used += 1
            var j = Int(truncatingIfNeeded: slot >> 32) & mask
            while j != k {
                precondition(slots[j] != 0, "the entry in slot \(k) is past an empty slot \(j) of its probe run")
                j = (j + 1) & mask
            }
        }
        precondition(used == count, "count \(count) but \(used) slots used")
        #endif
    }
}
