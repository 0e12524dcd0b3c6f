import Records

/// The store's index from identity to position: an open-addressing table
/// that holds no identities, only positions into the store's records (whose
/// identities it compares).
///
/// Each slot is 8 bytes: the low 32 bits of the identity's hash (where the
/// slot is, and a filter before comparing identities) and the position + 1
/// (0: empty). At most half the slots are used, so the table costs 16–32
/// bytes a record — a `Dictionary` from identity to position costs its keys
/// and values at up to 4/3 over (75 bytes a record for a 24-byte identity).
/// Linear probing; a removal shifts the probe run back (no tombstones).
@usableFromInline
struct _RecordIndex {
    @usableFromInline var slots: [UInt64] = []
    @usableFromInline var count = 0

    @inlinable init() {}

    @inlinable var mask: Int { slots.count - 1 }

    @inlinable
    static func hash<ID: Hashable>(_ id: ID) -> UInt64 { UInt64(truncatingIfNeeded: UInt32(truncatingIfNeeded: id.hashValue)) }

    /// Room for `n` identities without growing.
    @inlinable
    mutating func reserveCapacity(_ n: Int) {
        var capacity = 16
        while capacity / 2 < n { capacity *= 2 }
        if capacity > slots.count { resize(capacity) }
    }

    @inlinable
    mutating func resize(_ capacity: Int) {
        let old = slots
        slots = Array(repeating: 0, count: capacity)
        let mask = capacity - 1
        slots.withUnsafeMutableBufferPointer { slots in
            for slot in old where slot != 0 {
                var k = Int(truncatingIfNeeded: slot >> 32) & mask
                while slots[k] != 0 { k = (k + 1) & mask }
                slots[k] = slot
            }
        }
    }

    /// The slot of `id` (among `records`), or of the empty slot where it would go.
    @inlinable
    func probe<R: Record>(_ id: R.ID, hash: UInt64, in records: UnsafeBufferPointer<R>) -> (slot: Int, position: Int?) {
        slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var k = Int(truncatingIfNeeded: hash) & mask
            while true {
                let slot = slots[k]
                if slot == 0 { return (k, nil) }
                if slot >> 32 == hash {
                    let position = Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 1
                    if records[position].id == id { return (k, position) }
                }
                k = (k + 1) & mask
            }
        }
    }

    /// The position of `id` in `records`, or nil.
    ///
    /// - Complexity: O(1) on average.
    @inlinable
    func position<R: Record>(of id: R.ID, in records: [R]) -> Int? {
        guard count > 0 else { return nil }
        return records.withUnsafeBufferPointer { probe(id, hash: Self.hash(id), in: $0).position }
    }

    /// Adds `id` at `position`, unless `records` hold it already: then
    /// returns its position, and nothing changes. (`records[position]` need
    /// not be there yet.)
    @inlinable
    mutating func insert<R: Record>(_ id: R.ID, at position: Int, in records: [R]) -> Int? {
        if (count + 1) * 2 > slots.count { resize(Swift.max(16, slots.count * 2)) }
        let hash = Self.hash(id)
        let (slot, existing) = records.withUnsafeBufferPointer { probe(id, hash: hash, in: $0) }
        if let existing { return existing }
        slots[slot] = hash << 32 | UInt64(position + 1)
        count += 1
        return nil
    }

    /// Removes `id`, which `records` hold; returns its position.
    @inlinable
    mutating func remove<R: Record>(_ id: R.ID, in records: [R]) -> Int? {
        guard count > 0 else { return nil }
        let (slot, position) = records.withUnsafeBufferPointer { probe(id, hash: Self.hash(id), in: $0) }
        guard let position else { return nil }
        count -= 1
        // Shift back the rest of the run: each entry moves into the hole when
        // the hole lies between its home and its slot.
        slots.withUnsafeMutableBufferPointer { slots in
            let mask = slots.count - 1
            var hole = slot
            var k = (slot + 1) & mask
            while slots[k] != 0 {
                let home = Int(truncatingIfNeeded: slots[k] >> 32) & mask
                if (k - home) & mask >= (k - hole) & mask {
                    slots[hole] = slots[k]
                    hole = k
                }
                k = (k + 1) & mask
            }
            slots[hole] = 0
        }
        return position
    }

    /// Records that `id` (which `records` hold at `old`) is at `new` now.
    @inlinable
    mutating func move<R: Record>(_ id: R.ID, from old: Int, to new: Int, in records: [R]) {
        let hash = Self.hash(id)
        slots.withUnsafeMutableBufferPointer { slots in
            let mask = slots.count - 1
            var k = Int(truncatingIfNeeded: hash) & mask
            while slots[k] != 0 {
                if slots[k] == hash << 32 | UInt64(old + 1) {
                    slots[k] = hash << 32 | UInt64(new + 1)
                    return
                }
                k = (k + 1) & mask
            }
        }
    }
}
