/// Where an item of a snapshot is: the stable slot of its section and its row
/// there.
@usableFromInline
struct _ItemLocation: Sendable, Equatable {
    @usableFromInline var slot: Int32
    @usableFromInline var row: Int32

    @inlinable
    init(slot: Int32, row: Int32) {
        self.slot = slot
        self.row = row
    }
}

/// One bucket of a ``_SnapshotIndex``: where an item is, and a tag of its hash.
@usableFromInline
struct _IndexBucket: Sendable {
    /// 0 empty, 1 removed, else the item's section slot + 2.
    @usableFromInline var state: UInt32
    /// The upper half of the item's 64-bit hash.
    @usableFromInline var tag: UInt32
    /// The item's row in its section.
    @usableFromInline var row: Int32

    @inlinable
    init(state: UInt32, tag: UInt32, row: Int32) {
        self.state = state
        self.tag = tag
        self.row = row
    }
}

/// A snapshot's index of its items: from an identifier to where the item is
/// (its section's slot and its row), by open addressing.
///
/// The index does not keep the identifiers: a bucket holds the item's location
/// and the upper half of its 64-bit hash, and a key is compared with the
/// identifier stored at that location in the snapshot's sections (`items`, with
/// `positions`, the position of each slot's section). Building a snapshot thus
/// writes each identifier once (into its section) and the table once per item,
/// and a lookup reads one bucket and one identifier. The hash half is both the
/// tag compared before any identifier and the bucket's source, so the table
/// grows without hashing an identifier again.
///
/// Every call that compares needs the sections and the buckets to agree (each
/// live bucket's location holds its identifier). A change that moves rows
/// finds the buckets of the rows it moves first (``position(of:in:positions:)``),
/// then changes the sections, then sets those buckets' rows.
@usableFromInline
struct _SnapshotIndex<Key: Hashable & Sendable>: Sendable {
    @usableFromInline var buckets: [_IndexBucket] = []
    /// Live items, and buckets not empty (live or removed).
    @usableFromInline var count = 0
    @usableFromInline var used = 0
    /// For a ``_BitwiseHashable`` key (a `UUID`), its size in 8-byte words:
    /// such keys are hashed as their bytes, several times faster than
    /// `hashValue`; 0 for other keys.
    @usableFromInline let bitwiseWords: Int
    /// ``_hashSeed``, read once.
    @usableFromInline let seed: UInt64

    @inlinable
    init() {
        bitwiseWords = _bitwiseWords(Key.self)
        seed = _hashSeed
    }

    /// The upper half of a key's hash (`words`: ``bitwiseWords``).
    @inlinable @inline(__always)
    static func tag(_ key: Key, words: Int, seed: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: (words == 0 ? _hash(key, seed: seed) : _bitwiseHash(key, words: words, seed: seed)) >> 32)
    }

    /// The bucket that holds a key, or nil.
    @inlinable
    func position(of key: Key, in items: [[Key]], positions: [Int32]) -> Int? {
        guard !buckets.isEmpty else { return nil }
        let probe = probe(key, in: items, positions: positions)
        return probe.found ? probe.bucket : nil
    }

    /// Where a key's probe ends: the bucket that holds it (`found`), or the
    /// empty bucket where it would go; and the key's tag. The table must have
    /// a bucket (``reserve(_:final:)``).
    @inlinable @inline(__always)
    func probe(_ key: Key, in items: [[Key]], positions: [Int32]) -> (bucket: Int, tag: UInt32, found: Bool) {
        let tag = Self.tag(key, words: bitwiseWords, seed: seed), mask = buckets.count - 1
        var b = Int(truncatingIfNeeded: tag) & mask
        while true {
            let bucket = buckets[b]
            if bucket.state == 0 { return (b, tag, false) }
            if bucket.tag == tag, bucket.state > 1,
                items[Int(positions[Int(bucket.state - 2)])][Int(bucket.row)] == key
            {
                return (b, tag, true)
            }
            b = (b + 1) & mask
        }
    }

    /// Adds a key at an empty bucket its ``probe(_:in:positions:)`` ended on
    /// (with no change to the table since).
    @inlinable
    mutating func add(at bucket: Int, tag: UInt32, location: _ItemLocation) {
        buckets[bucket] = _IndexBucket(state: UInt32(location.slot) + 2, tag: tag, row: location.row)
        used += 1
        count += 1
    }

    /// Where a key is, or nil.
    @inlinable
    func location(of key: Key, in items: [[Key]], positions: [Int32]) -> _ItemLocation? {
        position(of: key, in: items, positions: positions).map { location(at: $0) }
    }

    /// The location held by a live bucket.
    @inlinable
    func location(at position: Int) -> _ItemLocation {
        _ItemLocation(slot: Int32(buckets[position].state - 2), row: buckets[position].row)
    }

    /// Sets the location held by a live bucket.
    @inlinable
    mutating func setLocation(_ location: _ItemLocation, at position: Int) {
        buckets[position].state = UInt32(location.slot) + 2
        buckets[position].row = location.row
    }

    /// Adds keys appended to the end of a section, all or none: returns the
    /// keys that are in the index already or given twice (in order), and then
    /// adds none.
    ///
    /// `slot` is the section's slot, `row` its number of items (where the first
    /// key goes); `items` and `positions` are the snapshot's sections before the
    /// keys are appended to them (a bucket of this call, at a row from `row` on,
    /// is compared with `added`).
    ///
    /// Hashes are computed a batch at a time and the batch's probes run in a
    /// short loop, so that the processor overlaps their cache misses.
    @inlinable
    mutating func append(
        contentsOf added: [Key], slot: Int32, row: Int, in items: [[Key]], positions: [Int32]
    ) -> [Key] {
        guard !added.isEmpty else { return [] }
        reserve(added.count)
        let mask = buckets.count - 1, words = bitwiseWords, hashSeed = seed
        let state = UInt32(slot) + 2
        var duplicates: [Key] = []
        var written = 0   // buckets written so far (one per key added)
        let batch = Swift.min(added.count, 64)
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: batch) { tags in
            added.withUnsafeBufferPointer { added in
                buckets.withUnsafeMutableBufferPointer { buckets in
                    var base = 0
                    while base < added.count {
                        let end = Swift.min(base + batch, added.count)
                        for k in base..<end { tags[k - base] = Self.tag(added[k], words: words, seed: hashSeed) }
                        var touched: UInt32 = 0
                        for k in 0..<end - base { touched |= buckets[Int(truncatingIfNeeded: tags[k]) & mask].state }
                        _touch(touched)
                        for k in base..<end {
                            let tag = tags[k - base], key = added[k]
                            var b = Int(truncatingIfNeeded: tag) & mask
                            var present = false
                            while true {
                                let bucket = buckets[b]
                                if bucket.state == 0 { break }
                                if bucket.tag == tag, bucket.state > 1 {
                                    let r = Int(bucket.row)
                                    let other = bucket.state == state && r >= row
                                        ? added[r - row] : items[Int(positions[Int(bucket.state - 2)])][r]
                                    if other == key {
                                        present = true
                                        break
                                    }
                                }
                                b = (b + 1) & mask
                            }
                            if present {
                                duplicates.append(key)
                            } else {
                                buckets[b] = _IndexBucket(state: state, tag: tag, row: Int32(truncatingIfNeeded: row + k))
                                written += 1
                            }
                        }
                        base = end
                    }
                }
            }
        }
        used += written
        guard duplicates.isEmpty else {
            // Undo: remove the bucket each key of this call was given (its
            // location is unique: the key's row).
            for (k, key) in added.enumerated() {
                let tag = Self.tag(key, words: bitwiseWords, seed: seed)
                var b = Int(truncatingIfNeeded: tag) & mask
                while buckets[b].state != 0 {
                    if buckets[b].state == state, buckets[b].row == Int32(truncatingIfNeeded: row + k) {
                        buckets[b].state = 1
                        break
                    }
                    b = (b + 1) & mask
                }
            }
            return duplicates
        }
        count += added.count
        return []
    }

    /// Adds keys known to be in neither the index nor given twice, at rows
    /// `row`, `row + 1`, … of the section of `slot`, comparing no key. Call
    /// ``reserve(_:final:)`` for them first: this then moves no bucket.
    @inlinable
    mutating func insertUnique(_ added: [Key], slot: Int32, row: Int) {
        reserve(added.count)
        let mask = buckets.count - 1, state = UInt32(slot) + 2
        for (k, key) in added.enumerated() {
            let tag = Self.tag(key, words: bitwiseWords, seed: seed)
            var b = Int(truncatingIfNeeded: tag) & mask
            while buckets[b].state != 0 { b = (b + 1) & mask }
            buckets[b] = _IndexBucket(state: state, tag: tag, row: Int32(truncatingIfNeeded: row + k))
        }
        used += added.count
        count += added.count
    }

    /// Removes a key, if it is in the index.
    @inlinable
    mutating func remove(_ key: Key, in items: [[Key]], positions: [Int32]) {
        guard let b = position(of: key, in: items, positions: positions) else { return }
        buckets[b].state = 1
        count -= 1
        if used > 64 && count < used / 2 { rebuild(buckets: Self.size(for: count, from: 16, final: false)) }
    }

    /// The number of buckets for `needed` keys: at most 3/8 used (`final`
    /// false), or half.
    @inlinable
    static func size(for needed: Int, from start: Int, final: Bool) -> Int {
        var size = Swift.max(16, start)
        while final ? needed * 2 > size : needed * 8 > size * 3 { size *= 2 }
        return size
    }

    /// Makes room for `extra` more keys, so that adding them moves no bucket.
    ///
    /// When the keys arrive one call at a time (`final` false), the rebuild
    /// leaves at most 3/8 of the buckets used: the next one is an eighth of the
    /// table away (amortized O(1) per change). When the caller names the final
    /// size (`reserveCapacity`), up to half are used: a smaller table, with
    /// fewer cache misses per insertion.
    @inlinable
    mutating func reserve(_ extra: Int, final: Bool = false) {
        guard (used + extra) * 2 > buckets.count else { return }
        rebuild(buckets: Self.size(for: count + extra, from: buckets.count, final: final))
    }

    /// Places the live buckets in a table of `size` buckets (removed ones are
    /// dropped), by their tags: no key is hashed or compared.
    @inlinable
    mutating func rebuild(buckets size: Int) {
        var table = [_IndexBucket](repeating: _IndexBucket(state: 0, tag: 0, row: 0), count: size)
        let mask = size - 1
        table.withUnsafeMutableBufferPointer { table in
            for bucket in buckets where bucket.state > 1 {
                var b = Int(truncatingIfNeeded: bucket.tag) & mask
                while table[b].state != 0 { b = (b + 1) & mask }
                table[b] = bucket
            }
        }
        buckets = table
        used = count
    }
}

/// Does nothing with a value, in a way the optimizer cannot see through: the
/// loads that computed it happen. ``_SnapshotIndex/append(contentsOf:slot:row:in:positions:)``
/// reads the first bucket of each key of a batch this way, with no branch
/// between the loads, so that their cache misses overlap before the probes.
@usableFromInline @inline(never) @_optimize(none)
func _touch(_ value: UInt32) {}
