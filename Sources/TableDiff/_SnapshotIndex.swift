/// A snapshot's index of its items: from an identifier to a value (where the
/// item is), by open addressing.
///
/// Keys and values are kept in arrays in the order they were added (a removed
/// one stays, dead, until the arrays are compacted); the table holds, per
/// bucket, the upper half of the key's 64-bit hash and the entry's index. The
/// hash half is both the tag compared before any key and the bucket's source,
/// so the table grows without hashing a key again, and appending many keys
/// touches the arrays in order and the table once per key — far fewer cache
/// misses than a `Dictionary` of keys to values.
@usableFromInline
struct _SnapshotIndex<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Per entry: its key, and its value.
    @usableFromInline var keys: [Key] = []
    @usableFromInline var values: [Value] = []
    /// Per bucket: 0 empty, 1 removed, else `tag << 32 | (entry + 2)`.
    @usableFromInline var buckets: [UInt64] = []
    /// Live entries, and buckets not empty (live or removed).
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
    static func tag(_ key: Key, words: Int, seed: UInt64) -> UInt64 {
        (words == 0 ? _hash(key) : _bitwiseHash(key, words: words, seed: seed)) >> 32
    }

    /// The entry of a key, or nil.
    @inlinable
    func entry(of key: Key) -> Int? {
        guard !buckets.isEmpty else { return nil }
        let tag = Self.tag(key, words: bitwiseWords, seed: seed), mask = buckets.count - 1
        var b = Int(truncatingIfNeeded: tag) & mask
        while true {
            let slot = buckets[b]
            if slot == 0 { return nil }
            if slot >> 32 == tag, slot != 1 {
                let entry = Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 2
                if keys[entry] == key { return entry }
            }
            b = (b + 1) & mask
        }
    }

    @inlinable
    subscript(key: Key) -> Value? { entry(of: key).map { values[$0] } }

    /// Adds keys that are not in the index yet, with the values `value(offset)`,
    /// all or none: returns the keys that are in the index already or given
    /// twice (in order), and then adds none.
    ///
    /// Hashes are computed a batch at a time and the batch's probes run in a
    /// short loop, so that the processor overlaps their cache misses; keys and
    /// values are appended at the end, in one go.
    @inlinable
    mutating func insert(contentsOf added: [Key], value: (Int) -> Value) -> [Key] {
        guard !added.isEmpty else { return [] }
        reserve(added.count)
        let start = keys.count, mask = buckets.count - 1, words = bitwiseWords, hashSeed = seed
        var duplicates: [Key] = []
        var written = 0   // buckets written so far (one per key added)
        let batch = Swift.min(added.count, 64)
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: batch) { tags in
            added.withUnsafeBufferPointer { added in
                keys.withUnsafeBufferPointer { keys in
                    buckets.withUnsafeMutableBufferPointer { buckets in
                        var base = 0
                        while base < added.count {
                            let end = Swift.min(base + batch, added.count)
                            for k in base..<end { tags[k - base] = Self.tag(added[k], words: words, seed: hashSeed) }
                            for k in base..<end {
                                let tag = tags[k - base], key = added[k]
                                var b = Int(truncatingIfNeeded: tag) & mask
                                var present = false
                                while true {
                                    let slot = buckets[b]
                                    if slot == 0 { break }
                                    if slot >> 32 == tag, slot != 1 {
                                        let entry = Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 2
                                        if (entry < start ? keys[entry] : added[entry - start]) == key {
                                            present = true
                                            break
                                        }
                                    }
                                    b = (b + 1) & mask
                                }
                                if present {
                                    duplicates.append(key)
                                } else {
                                    buckets[b] = tag << 32 | UInt64(start + k + 2)   // its entry once appended
                                    written += 1
                                }
                            }
                            base = end
                        }
                    }
                }
            }
        }
        used += written
        guard duplicates.isEmpty else {
            // Undo: clear the bucket each key of this call was given.
            for (k, key) in added.enumerated() {
                let tag = Self.tag(key, words: bitwiseWords, seed: seed)
                var b = Int(truncatingIfNeeded: tag) & mask
                while buckets[b] != 0 {
                    if buckets[b] == tag << 32 | UInt64(start + k + 2) {
                        buckets[b] = 1
                        break
                    }
                    b = (b + 1) & mask
                }
            }
            return duplicates
        }
        keys.append(contentsOf: added)
        values.append(contentsOf: (0..<added.count).lazy.map(value))
        count += added.count
        return []
    }

    /// Sets the value of a key in the index.
    @inlinable
    mutating func setValue(_ value: Value, of key: Key) {
        if let entry = entry(of: key) { values[entry] = value }
    }

    /// Removes a key; its entry stays, dead, until the arrays are compacted.
    @inlinable
    mutating func remove(_ key: Key) {
        guard !buckets.isEmpty else { return }
        let tag = Self.tag(key, words: bitwiseWords, seed: seed), mask = buckets.count - 1
        var b = Int(truncatingIfNeeded: tag) & mask
        while true {
            let slot = buckets[b]
            if slot == 0 { return }
            if slot >> 32 == tag, slot != 1, keys[Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 2] == key {
                buckets[b] = 1
                count -= 1
                if keys.count > 64 && count < keys.count / 2 { rebuild(buckets: buckets.count) }
                return
            }
            b = (b + 1) & mask
        }
    }

    /// Makes room for `extra` more keys, so that inserting them rebuilds nothing.
    ///
    /// When the keys arrive one call at a time (`final` false), the rebuild
    /// leaves at most 3/8 of the buckets used: the next one is an eighth of the
    /// table away (amortized O(1) per change). When the caller names the final
    /// size (`reserveCapacity`), up to half are used: a smaller table, with
    /// fewer cache misses per insertion.
    @inlinable
    mutating func reserve(_ extra: Int, final: Bool = false) {
        guard (used + extra) * 2 > buckets.count else { return }
        let needed = count + extra
        var size = Swift.max(16, buckets.count)
        while final ? needed * 2 > size : needed * 8 > size * 3 { size *= 2 }
        rebuild(buckets: size, capacity: needed)
    }

    /// Compacts the entries (dropping dead ones) and places them in `size`
    /// buckets, with room for `capacity` entries.
    @inlinable
    mutating func rebuild(buckets size: Int, capacity: Int = 0) {
        var liveKeys: [Key] = [], liveValues: [Value] = []
        liveKeys.reserveCapacity(Swift.max(count, capacity))
        liveValues.reserveCapacity(Swift.max(count, capacity))
        var table = [UInt64](repeating: 0, count: size)
        let mask = size - 1
        // In entry order, so that the arrays keep the order keys were added.
        var alive = [Bool](repeating: false, count: keys.count)
        var tags = [UInt64](repeating: 0, count: keys.count)
        for slot in buckets where slot > 1 {
            let entry = Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 2
            alive[entry] = true
            tags[entry] = slot >> 32
        }
        for entry in keys.indices where alive[entry] {
            let tag = tags[entry]
            var b = Int(truncatingIfNeeded: tag) & mask
            while table[b] != 0 { b = (b + 1) & mask }
            table[b] = tag << 32 | UInt64(liveKeys.count + 2)
            liveKeys.append(keys[entry])
            liveValues.append(values[entry])
        }
        keys = liveKeys
        values = liveValues
        buckets = table
        used = count
    }
}
