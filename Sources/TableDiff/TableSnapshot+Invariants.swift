// Invariant checks, swift-collections style: compiled in debug builds (or any
// build with `-Xswiftc -DHEADLESS_TABLE_INTERNAL_CHECKS`), empty otherwise.
// The snapshot's property tests call `_checkInvariants()` after every call,
// refused ones included.

extension TableSnapshot {
    /// Traps when the snapshot's derived indexes disagree with its sections
    /// and items (`_sections`, `_items`): a section count that differs
    /// between them and the slots; a section's position by identifier, or a
    /// slot's position, that does not lead back to it; a slot in two
    /// sections; starts that are not the running item counts; the item index
    /// (`_SnapshotIndex._checkInvariants(items:positions:)`) holding another
    /// number of items than the sections, or an item it does not find where
    /// it is (which also catches an item in two places); a mark on an
    /// identifier not in the snapshot, or marks whose order and members
    /// differ.
    ///
    /// - Complexity: O(*n* + *s* + *b*) for *n* items, *s* sections (and
    ///   slots) and *b* buckets of the index, in the builds that check; O(1)
    ///   otherwise.
    package func _checkInvariants() {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        let sectionCount = _sections.count
        precondition(_items.count == sectionCount && _slots.count == sectionCount,
                     "\(sectionCount) sections, \(_items.count) item lists, \(_slots.count) slots")
        // Sections by identifier.
        precondition(_sectionPositions.count == sectionCount, "\(_sectionPositions.count) section positions for \(sectionCount) sections")
        for (k, section) in _sections.enumerated() {
            precondition(_sectionPositions[section] == k, "section \(k) (\(section)) is at \(String(describing: _sectionPositions[section])) by identifier")
        }
        // Slots: each section's slot leads back to it; a slot without a section is -1.
        var slotUsed = [Bool](repeating: false, count: _slotPositions.count)
        for (k, slot) in _slots.enumerated() {
            precondition(slot >= 0 && Int(slot) < _slotPositions.count, "section \(k) has slot \(slot) of \(_slotPositions.count)")
            precondition(!slotUsed[Int(slot)], "slot \(slot) in two sections")
            slotUsed[Int(slot)] = true
            precondition(_slotPositions[Int(slot)] == Int32(k), "slot \(slot) of section \(k) is at \(_slotPositions[Int(slot)])")
        }
        for (slot, position) in _slotPositions.enumerated() where !slotUsed[slot] {
            precondition(position == -1, "slot \(slot) has no section but position \(position)")
        }
        // Starts: the running item counts.
        precondition(_starts.count == sectionCount + 1 && _starts[0] == 0, "\(_starts.count) starts for \(sectionCount) sections")
        for k in 0..<sectionCount {
            precondition(_starts[k + 1] == _starts[k] + _items[k].count, "section \(k) starts at \(_starts[k]) with \(_items[k].count) items, the next at \(_starts[k + 1])")
        }
        // Items: the index against the sections, both ways.
        _locations._checkInvariants(items: _items, positions: _slotPositions)
        precondition(_locations.count == _starts[sectionCount], "the index holds \(_locations.count) items, the sections \(_starts[sectionCount])")
        for (k, items) in _items.enumerated() {
            for (row, item) in items.enumerated() {
                precondition(_location(of: item) == _ItemLocation(slot: _slots[k], row: Int32(row)), "item \(item) at row \(row) of section \(k) is not found there")
            }
        }
        // Marks: of identifiers in the snapshot.
        _reloadedItems._checkInvariants { indexOfItem($0) != nil }
        _reconfiguredItems._checkInvariants { indexOfItem($0) != nil }
        _reloadedSections._checkInvariants { _sectionPositions[$0] != nil }
        #endif
    }
}

extension _Marks {
    /// Traps when the marks' order and members differ (a repeat, or one
    /// missing from either) or a marked identifier is not `isPresent`.
    ///
    /// - Complexity: O(*m*) for *m* marks, in the builds that check.
    func _checkInvariants(isPresent: (Identifier) -> Bool) {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        precondition(ordered.count == members.count && Set(ordered) == members, "marks \(ordered) against members \(members)")
        for identifier in ordered { precondition(isPresent(identifier), "a mark on \(identifier), which is not in the snapshot") }
        #endif
    }
}

extension _SnapshotIndex {
    /// Traps when the index is inconsistent with the sections it indexes
    /// (`items`, and `positions`, the position of each slot's section): a
    /// bucket count that is not 0 or a power of two, more than half the
    /// buckets used, counts of live and used buckets that are not `count`
    /// and `used`, a live bucket whose location holds no item or an item
    /// whose hash's upper half is not the bucket's tag, or a live bucket a
    /// probe from its home would not reach (an empty bucket between).
    ///
    /// - Complexity: O(*b*) for *b* buckets, one hash per live bucket, in
    ///   the builds that check.
    func _checkInvariants(items: [[Key]], positions: [Int32]) {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        precondition(buckets.isEmpty || buckets.count & (buckets.count - 1) == 0, "\(buckets.count) buckets: not a power of two")
        precondition(buckets.isEmpty ? used == 0 && count == 0 : used * 2 <= buckets.count, "\(used) of \(buckets.count) buckets used")
        let mask = buckets.count - 1
        var live = 0, nonEmpty = 0
        for (b, bucket) in buckets.enumerated() where bucket.state != 0 {
            nonEmpty += 1
            guard bucket.state > 1 else { continue }
            live += 1
            let slot = Int(bucket.state - 2)
            precondition(slot < positions.count && positions[slot] >= 0, "bucket \(b): slot \(slot) has no section")
            let section = Int(positions[slot])
            precondition(section < items.count && bucket.row >= 0 && Int(bucket.row) < items[section].count, "bucket \(b): row \(bucket.row) of section \(section) does not exist")
            let key = items[section][Int(bucket.row)]
            precondition(Self.tag(key, words: bitwiseWords, seed: seed) == bucket.tag, "bucket \(b): a tag not its item's")
            var q = Int(truncatingIfNeeded: bucket.tag) & mask
            while q != b {
                precondition(buckets[q].state != 0, "bucket \(b) is beyond an empty bucket from its home")
                q = (q + 1) & mask
            }
        }
        precondition(live == count && nonEmpty == used, "\(live) live and \(nonEmpty) used buckets, counted \(count) and \(used)")
        #endif
    }
}
