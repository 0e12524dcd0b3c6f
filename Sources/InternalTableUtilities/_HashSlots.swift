/// An open-addressing hash table that holds no keys: each slot is 8 bytes,
/// the low 32 bits of a key's hash (where the slot is, and a filter before
/// the caller compares keys) and a small value + 1 (0: empty) — a position
/// or a number the caller turns back into its key. At most half the slots
/// are used, so a table costs 16–32 bytes an entry, where a `Dictionary`
/// from a 24-byte identity to an `Int` costs about 75.
///
/// Linear probing; a removal shifts the rest of the probe run back over the
/// hole (no tombstones, so a lookup never walks past what was removed).
/// Keys are the caller's: ``first(_:where:)`` offers each value of a hash in
/// its probe run to a closure that compares the key it stands for. Several
/// entries may share a hash and a value (a multiset: ``insert(_:value:)``
/// does not look for an equal one; ``insertIfAbsent(_:value:where:)`` does).
///
/// The store's identity index and the fetched results' member index are
/// made of it.
@usableFromInline
package struct _HashSlots {
    /// The slots: a hash in the high half, the value + 1 in the low half, 0 when empty.
    @usableFromInline package var slots: [UInt64]
    /// The number of entries.
    @usableFromInline package var count: Int

    /// An empty table with room for `n` entries without growing.
    @inlinable
    package init(capacity n: Int = 0) {
        slots = []
        count = 0
        if n > 0 { reserveCapacity(n) }
    }

    /// The 32 bits of a key's hash the table keeps.
    @inlinable @inline(__always)
    package static func hash<Key: Hashable>(_ key: Key) -> UInt32 { UInt32(truncatingIfNeeded: key.hashValue) }

    /// Room for `n` entries without growing (at most half the slots used).
    ///
    /// - Complexity: O(*n*) when the table grows.
    @inlinable
    package mutating func reserveCapacity(_ n: Int) {
        guard n * 2 > slots.count else { return }
        var capacity = Swift.max(16, slots.count)
        while capacity / 2 < n { capacity *= 2 }
        resize(capacity)
    }

    @inlinable
    mutating func resize(_ capacity: Int) {
        let old = slots
        slots = Array(repeating: 0, count: capacity)
        slots.withUnsafeMutableBufferPointer { slots in
            for slot in old where slot != 0 { Self.place(slot, in: slots) }
        }
    }

    /// Puts a slot's content in the first empty slot of its probe run.
    @inlinable @inline(__always)
    static func place(_ slot: UInt64, in slots: UnsafeMutableBufferPointer<UInt64>) {
        let mask = slots.count - 1
        var k = Int(truncatingIfNeeded: slot >> 32) & mask
        while slots[k] != 0 { k = (k + 1) & mask }
        slots[k] = slot
    }

    /// The first entry of `hash` in its probe run whose value `matches`
    /// accepts: its slot and value; or, when none does, the empty slot that
    /// ends the run and nil (nil, nil in an empty table).
    ///
    /// - Complexity: O(1) slots on average.
    @inlinable
    package func first(_ hash: UInt32, where matches: (Int) throws -> Bool) rethrows -> (slot: Int?, value: Int?) {
        guard !slots.isEmpty else { return (nil, nil) }
        let hash = UInt64(hash)
        return try slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var k = Int(truncatingIfNeeded: hash) & mask
            while true {
                let slot = slots[k]
                if slot == 0 { return (k, nil) }
                if slot >> 32 == hash {
                    let value = Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 1
                    if try matches(value) { return (k, value) }
                }
                k = (k + 1) & mask
            }
        }
    }

    /// The value of the first entry of `hash` that `matches` accepts, or nil.
    ///
    /// - Complexity: O(1) slots on average.
    @inlinable
    package func value(_ hash: UInt32, where matches: (Int) throws -> Bool) rethrows -> Int? {
        try first(hash, where: matches).value
    }

    /// Adds an entry, without looking for an equal one.
    ///
    /// - Complexity: O(1) on average (amortized over growing).
    @inlinable
    package mutating func insert(_ hash: UInt32, value: Int) {
        reserveCapacity(count + 1)
        slots.withUnsafeMutableBufferPointer { Self.place(UInt64(hash) << 32 | UInt64(value + 1), in: $0) }
        count += 1
    }

    /// Adds an entry unless one of `hash` that `matches` accepts is there:
    /// then returns its value, and nothing changes.
    ///
    /// - Complexity: O(1) on average (amortized over growing).
    @inlinable
    package mutating func insertIfAbsent(_ hash: UInt32, value: Int, where matches: (Int) throws -> Bool) rethrows -> Int? {
        reserveCapacity(count + 1)
        let (slot, existing) = try first(hash, where: matches)
        if let existing { return existing }
        guard let slot else { return nil }   // not reached: the table has slots now
        slots[slot] = UInt64(hash) << 32 | UInt64(value + 1)
        count += 1
        return nil
    }

    /// Removes the first entry of `hash` that `matches` accepts; returns its
    /// value, or nil when there is none.
    ///
    /// - Complexity: O(1) slots on average.
    @inlinable
    @discardableResult
    package mutating func remove(_ hash: UInt32, where matches: (Int) throws -> Bool) rethrows -> Int? {
        let (slot, value) = try first(hash, where: matches)
        guard let slot, let value else { return nil }
        remove(at: slot)
        return value
    }

    /// Removes the entry in `slot`: the rest of its probe run shifts back,
    /// each entry into the hole when the hole lies between its home and its slot.
    @inlinable
    mutating func remove(at slot: Int) {
        count -= 1
        slots.withUnsafeMutableBufferPointer { slots in
            let mask = slots.count - 1
            var hole = slot
            var k = (hole + 1) & mask
            while slots[k] != 0 {
                let home = Int(truncatingIfNeeded: slots[k] >> 32) & mask
                // Movable into the hole when its home is not in (hole, k].
                if (k - home) & mask >= (k - hole) & mask {
                    slots[hole] = slots[k]
                    hole = k
                }
                k = (k + 1) & mask
            }
            slots[hole] = 0
        }
    }

    /// Gives the first entry of `hash` that `matches` accepts the value
    /// `new`; returns whether there was one.
    ///
    /// - Complexity: O(1) slots on average.
    @inlinable
    @discardableResult
    package mutating func replaceValue(_ hash: UInt32, with new: Int, where matches: (Int) throws -> Bool) rethrows -> Bool {
        let (slot, value) = try first(hash, where: matches)
        guard let slot, value != nil else { return false }
        slots[slot] = UInt64(hash) << 32 | UInt64(new + 1)
        return true
    }
}
