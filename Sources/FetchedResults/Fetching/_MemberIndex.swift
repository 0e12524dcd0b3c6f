import PredicateFormat
import Records
import TableDiff

/// A controller's index from identity to the chunk that holds it, without
/// the identities: an open-addressing table of 8-byte slots, each the low 32
/// bits of an identity's hash and the number of its chunk (+ 1; 0 is empty),
/// at most half full — 16–32 bytes an element, where a `Dictionary` from
/// identity to chunk costs 64–85 (a 24-byte identity and a reference, at up
/// to 3/4 load).
///
/// The slots are a multiset of (hash, chunk) pairs, one per element: a
/// lookup checks each slot of the identity's hash against its chunk's
/// elements; a removal or a move names the chunk the element was in, and
/// removes or rewrites one slot of that pair (two elements with the same
/// pair are interchangeable). Linear probing; a removal shifts the probe run
/// back (no tombstones).
@usableFromInline
struct _MemberIndex<R: Record> {
    @usableFromInline var slots: [UInt64] = []
    @usableFromInline var count = 0
    /// The chunks by number; nil for a chunk forgotten (removed, empty).
    @usableFromInline var chunks: [_Chunk<R>?] = []
    @usableFromInline var numbers: [ObjectIdentifier: Int] = [:]

    /// Room for `n` identities without growing.
    init(capacity n: Int) {
        var capacity = 16
        while capacity / 2 < n { capacity *= 2 }
        slots = Array(repeating: 0, count: capacity)
    }

    @inline(__always)
    static func hash(_ id: R.ID) -> UInt64 { UInt64(truncatingIfNeeded: UInt32(truncatingIfNeeded: id.hashValue)) }

    private var mask: Int { slots.count - 1 }

    private mutating func number(of chunk: _Chunk<R>) -> Int {
        if let number = numbers[ObjectIdentifier(chunk)] { return number }
        chunks.append(chunk)
        numbers[ObjectIdentifier(chunk)] = chunks.count - 1
        return chunks.count - 1
    }

    /// The chunk holding `id`, and its offset there; nil when none does.
    ///
    /// - Complexity: O(1) slots on average, and O(`maxChunk`) to find the
    ///   identity in its chunk.
    @usableFromInline
    func locate(_ id: R.ID) -> (chunk: _Chunk<R>, offset: Int)? {
        guard !slots.isEmpty else { return nil }
        let hash = Self.hash(id)
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var k = Int(truncatingIfNeeded: hash) & mask
            while slots[k] != 0 {
                if slots[k] >> 32 == hash, let chunk = chunks[Int(truncatingIfNeeded: slots[k] & 0xFFFF_FFFF) - 1],
                    let offset = chunk.ids.firstIndex(of: id) {
                    return (chunk, offset)
                }
                k = (k + 1) & mask
            }
            return nil
        }
    }

    /// The chunk holding `id`, or nil.
    @usableFromInline
    func chunk(for id: R.ID) -> _Chunk<R>? { locate(id)?.chunk }

    /// Adds `id`, held by `chunk`.
    mutating func insert(_ id: R.ID, in chunk: _Chunk<R>) {
        reserve(count + 1)
        add(Self.hash(id) << 32 | UInt64(number(of: chunk) + 1))
        count += 1
    }

    /// Adds `ids`, held by `chunk`.
    mutating func insert(_ ids: [R.ID], in chunk: _Chunk<R>) {
        reserve(count + ids.count)
        let number = UInt64(number(of: chunk) + 1)
        ids.withUnsafeBufferPointer { ids in
            for k in ids.indices { add(Self.hash(ids[k]) << 32 | number) }
        }
        count += ids.count
    }

    private mutating func reserve(_ n: Int) {
        guard n * 2 > slots.count else { return }
        var capacity = Swift.max(16, slots.count)
        while capacity / 2 < n { capacity *= 2 }
        resize(capacity)
    }

    /// Puts a slot's value in the first empty slot from its hash's.
    @inline(__always)
    private mutating func add(_ slot: UInt64) {
        slots.withUnsafeMutableBufferPointer { slots in
            let mask = slots.count - 1
            var k = Int(truncatingIfNeeded: slot >> 32) & mask
            while slots[k] != 0 { k = (k + 1) & mask }
            slots[k] = slot
        }
    }

    /// The slot of `id`'s pair with `chunk`, or nil.
    private func slot(of id: R.ID, in chunk: _Chunk<R>) -> Int? {
        guard !slots.isEmpty, let number = numbers[ObjectIdentifier(chunk)] else { return nil }
        let slot = Self.hash(id) << 32 | UInt64(number + 1)
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var k = Int(truncatingIfNeeded: slot >> 32) & mask
            while slots[k] != 0 {
                if slots[k] == slot { return k }
                k = (k + 1) & mask
            }
            return nil
        }
    }

    /// Removes `id`, which `chunk` held when it was added or last moved;
    /// nothing happens when it is not there.
    mutating func remove(_ id: R.ID, from chunk: _Chunk<R>) {
        guard let found = slot(of: id, in: chunk) else { return }
        let mask = mask
        slots.withUnsafeMutableBufferPointer { slots in
            // Shift the rest of the probe run back over the hole.
            var hole = found
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
        count -= 1
    }

    /// Records that `id` moved from chunk `from` to chunk `to`.
    mutating func move(_ id: R.ID, from: _Chunk<R>, to: _Chunk<R>) {
        guard let found = slot(of: id, in: from) else { return insert(id, in: to) }
        slots[found] = slots[found] & 0xFFFF_FFFF_0000_0000 | UInt64(number(of: to) + 1)
    }

    /// Lets go of a chunk no identity is in any more.
    mutating func forget(_ chunk: _Chunk<R>) {
        guard let number = numbers.removeValue(forKey: ObjectIdentifier(chunk)) else { return }
        chunks[number] = nil
    }

    private mutating func resize(_ capacity: Int) {
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
}
