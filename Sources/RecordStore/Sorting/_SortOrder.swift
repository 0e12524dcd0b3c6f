import PredicateFormat
import Records
import TableDiff
/// Ordering the matches of a fetch: a radix sort on keys of the first two sort
/// values, then a comparison sort of each run the keys leave tied.

/// One sort key's values for every match, in the most direct form for
/// comparing: typed buffers, so that a comparison costs no reference counting.
@usableFromInline
package enum _TypedColumn {
    case strings(UnsafeMutableBufferPointer<String>)
    case ints(UnsafeMutableBufferPointer<Int>)
    case doubles(UnsafeMutableBufferPointer<Double>)
    /// Dates, as seconds since the reference date.
    case dates(UnsafeMutableBufferPointer<Double>)
    /// Collated strings (localized-standard or a collation's): every key's
    /// words in one buffer, value `k`'s from `starts[k]` to `starts[k + 1]`,
    /// and the strings for ties.
    case collated(words: UnsafeMutableBufferPointer<UInt32>, starts: UnsafeMutableBufferPointer<Int>, strings: UnsafeMutableBufferPointer<String>)
    /// Mixed kinds of values, and the kinds with no direct comparison.
    case general(UnsafeMutableBufferPointer<_SortValue>)

    /// The column of `count` values, `value(k)` for each position `k`.
    @usableFromInline
    init(count: Int, value: (Int) -> _SortValue) {
        func kind(_ v: _SortValue) -> Int {
            switch v {
            case .string: 0
            case .int: 1
            case .double: 2
            case .date: 3
            case .collated: 5
            default: 4
            }
        }
        let first = count > 0 ? kind(value(0)) : 1
        let uniform = first != 4 && (1..<Swift.max(1, count)).allSatisfy { kind(value($0)) == first }
        func buffer<T>(_ map: (_SortValue) -> T) -> UnsafeMutableBufferPointer<T> {
            let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: count)
            for k in 0..<count { (buffer.baseAddress.unsafelyUnwrapped + k).initialize(to: map(value(k))) }
            return buffer
        }
        switch uniform ? first : 4 {
        case 0: self = .strings(buffer { if case .string(let s) = $0 { s } else { "" } })
        case 1: self = .ints(buffer { if case .int(let i) = $0 { i } else { 0 } })
        case 2: self = .doubles(buffer { if case .double(let d) = $0 { d } else { 0 } })
        case 3: self = .dates(buffer { if case .date(let d) = $0 { d } else { 0 } })
        case 5:
            let starts = UnsafeMutableBufferPointer<Int>.allocate(capacity: count + 1)
            var total = 0
            for k in 0..<count {
                starts[k] = total
                if case .collated(let c) = value(k) { total += c.key.count }
            }
            starts[count] = total
            let words = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: Swift.max(1, total))
            let strings = UnsafeMutableBufferPointer<String>.allocate(capacity: count)
            for k in 0..<count {
                guard case .collated(let c) = value(k) else { continue }
                (strings.baseAddress.unsafelyUnwrapped + k).initialize(to: c.string)
                var at = starts[k]
                for word in c.key {
                    words[at] = word
                    at += 1
                }
            }
            self = .collated(words: words, starts: starts, strings: strings)
        default: self = .general(buffer { $0 })
        }
    }

    func free() {
        switch self {
        case .strings(let b): b.deinitialize().deallocate()
        case .ints(let b): b.deallocate()
        case .doubles(let b), .dates(let b): b.deallocate()
        case let .collated(words, starts, strings):
            words.deallocate()
            starts.deallocate()
            strings.deinitialize().deallocate()
        case .general(let b): b.deinitialize().deallocate()
        }
    }

    /// -1, 0 or 1.
    @inline(__always)
    func compare(_ a: Int, _ b: Int) -> Int {
        switch self {
        case .strings(let v): return _comparePlain(v[a], v[b])
        case .ints(let v): return v[a] == v[b] ? 0 : (v[a] < v[b] ? -1 : 1)
        case .doubles(let v), .dates(let v): return v[a] == v[b] ? 0 : (v[a] < v[b] ? -1 : 1)
        case let .collated(words, starts, strings):
            // As _SortValue.compare: the keys, then the strings.
            var i = starts[a], j = starts[b]
            let (endA, endB) = (starts[a + 1], starts[b + 1])
            while i < endA && j < endB {
                let (x, y) = (words[i], words[j])
                if x != y { return x < y ? -1 : 1 }
                i += 1
                j += 1
            }
            if endA - starts[a] != endB - starts[b] { return endA - starts[a] < endB - starts[b] ? -1 : 1 }
            return _comparePlain(strings[a], strings[b])
        case .general(let v): return _SortValue.compare(v[a], v[b])
        }
    }

    /// The value at position `k`, as the fetch found it.
    @inlinable
    package func value(at k: Int) -> _SortValue {
        switch self {
        case .strings(let v): return .string(v[k])
        case .ints(let v): return .int(v[k])
        case .doubles(let v): return .double(v[k])
        case .dates(let v): return .date(v[k])
        case let .collated(words, starts, strings): return .collatedString(Array(words[starts[k]..<starts[k + 1]]), strings[k])
        case .general(let v): return v[k]
        }
    }

    /// For collated strings, a 128-bit key for every value (high and low
    /// halves) such that a smaller key means a smaller value: the first five
    /// words of its collation key, 24 bits each, missing words as zero (which
    /// orders a key before the keys it is a prefix of). Never exact; nil for
    /// other columns, or when one of those words does not fit in 24 bits.
    func wideKeys(count: Int) -> (high: [UInt64], low: [UInt64])? {
        guard case let .collated(words, starts, _) = self else { return nil }
        var high = [UInt64](repeating: 0, count: count), low = [UInt64](repeating: 0, count: count)
        for k in 0..<count {
            var w: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
            let start = starts[k], length = Swift.min(5, starts[k + 1] - start)
            for i in 0..<length {
                let word = words[start + i]
                if word >= 1 << 24 { return nil }
                switch i {
                case 0: w.0 = UInt64(word)
                case 1: w.1 = UInt64(word)
                case 2: w.2 = UInt64(word)
                case 3: w.3 = UInt64(word)
                default: w.4 = UInt64(word)
                }
            }
            high[k] = w.0 << 40 | w.1 << 16 | w.2 >> 8
            low[k] = (w.2 & 0xFF) << 56 | w.3 << 32 | w.4 << 8
        }
        return (high, low)
    }

    /// A key for every value such that a smaller key means a smaller value;
    /// `exact` when equal keys also mean equal values. Nil when the column
    /// has none: mixed kinds, a string with no prefix key, a NaN.
    func keys(count: Int) -> (keys: [UInt64], exact: Bool)? {
        switch self {
        case .strings(let v):
            // Exact when every string is its key: at most eight bytes, no NUL
            // (zero is the padding).
            var keys = [UInt64](repeating: 0, count: count)
            var exact = true
            for k in 0..<count {
                keys[k] = _prefixKey(v[k])
                if keys[k] == .max { return nil }
                if exact && (v[k].utf8.count > 8 || v[k].utf8.contains(0)) { exact = false }
            }
            return (keys, exact)
        case .ints(let v):
            return (v.map { UInt64(bitPattern: Int64($0)) ^ (1 << 63) }, true)
        case .doubles(let v), .dates(let v):
            if v.contains(where: \.isNaN) { return nil }
            return (v.map { d in
                let bits = (d == 0 ? 0 : d).bitPattern   // -0 and 0 are equal
                return bits >> 63 == 1 ? ~bits : bits | (1 << 63)
            }, true)
        case .collated, .general:
            return nil
        }
    }

    /// For strings, a key of UTF-8 bytes 8 to 16 of every value, zero-padded
    /// (`_nextPrefixKey`): with the keys of ``keys(count:)`` before it, a
    /// 128-bit key that orders strings sharing their first eight bytes.
    /// `exact` when equal 128-bit keys also mean equal strings. Nil for other
    /// columns, or when a string's first sixteen bytes cannot be a key.
    func nextKeys(count: Int) -> (keys: [UInt64], exact: Bool)? {
        guard case .strings(let v) = self else { return nil }
        var keys = [UInt64](repeating: 0, count: count)
        var exact = true
        for k in 0..<count {
            guard let key = _nextPrefixKey(v[k]) else { return nil }
            keys[k] = key
            if exact && (v[k].utf8.count > 16 || v[k].utf8.contains(0)) { exact = false }
        }
        return (keys, exact)
    }
}

/// One sort key's values, appended as a fetch finds its matches: kept typed
/// (`_TypedColumn`'s forms) while every value is of the first one's kind, as
/// general values from the first value of another kind. The typed buffers
/// have room for `capacity` values from the start: what a predicate leaves
/// unused is never touched, so it takes no memory.
///
/// It owns its buffers until ``column()`` hands them to the column it makes;
/// a builder let go before that — a fetch whose predicate throws half-way —
/// frees them (and the values in them) in its `deinit`.
@usableFromInline
package final class _ColumnBuilder {
    private enum Kind { case none, strings, ints, doubles, dates, collated, general }
    private var kind = Kind.none
    private var capacity: Int
    private(set) var count = 0
    private var strings = UnsafeMutableBufferPointer<String>(start: nil, count: 0)
    private var numbers = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    private var reals = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)
    private var general = UnsafeMutableBufferPointer<_SortValue>(start: nil, count: 0)
    /// Collated strings: every key's words, and where each begins.
    private var words: [UInt32] = []
    private var starts = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)

    /// Room for `capacity` values (more grow the buffers, as an array grows:
    /// a store may gain records between counting them and reading them).
    @usableFromInline
    package init(capacity: Int) {
        self.capacity = Swift.max(1, capacity)
    }

    private static func kind(of value: _SortValue) -> Kind {
        switch value {
        case .string: .strings
        case .int: .ints
        case .double: .doubles
        case .date: .dates
        case .collated: .collated
        default: .general
        }
    }

    /// Appends the value of the next match (at most `capacity` in all).
    @usableFromInline
    func append(_ value: _SortValue) {
        if count == capacity { grow() }
        switch (kind, value) {
        case (.strings, .string(let s)): (strings.baseAddress.unsafelyUnwrapped + count).initialize(to: s)
        case (.ints, .int(let i)): numbers[count] = i
        case (.doubles, .double(let d)), (.dates, .date(let d)): reals[count] = d
        case (.collated, .collated(let c)):
            (strings.baseAddress.unsafelyUnwrapped + count).initialize(to: c.string)
            starts[count] = words.count
            words.append(contentsOf: c.key)
        case (.general, _): (general.baseAddress.unsafelyUnwrapped + count).initialize(to: value)
        case (.none, _):
            start(Self.kind(of: value))
            return append(value)
        default:
            becomeGeneral()
            return append(value)
        }
        count += 1
    }

    /// Appends the value of the next match under `comparison`: a string
    /// under a collation goes into a collated column as its key and itself.
    @usableFromInline
    package func append(_ value: RecordValue, comparison: SortKey.StringComparison) {
        if kind == .collated || kind == .none {
            switch comparison {
            case .collation(let collation):
                let name = _sectionName(value)
                return appendCollated(collation.key(of: name), name)
            case .localizedStandard:
                if case .string(let s) = value { return appendCollated(_standardCollationKey(s), s) }
            case .plain:
                break
            }
        }
        append(_SortValue(value, comparison: comparison))
    }

    private func appendCollated(_ key: [UInt32], _ string: String) {
        if kind == .none { start(.collated) }
        if count == capacity { grow() }
        (strings.baseAddress.unsafelyUnwrapped + count).initialize(to: string)
        starts[count] = words.count
        words.append(contentsOf: key)
        count += 1
    }

    /// Doubles the room of the buffers in use.
    private func grow() {
        func moved<T>(_ buffer: UnsafeMutableBufferPointer<T>, keeping n: Int, capacity: Int) -> UnsafeMutableBufferPointer<T> {
            guard let base = buffer.baseAddress else { return buffer }
            let new = UnsafeMutableBufferPointer<T>.allocate(capacity: capacity)
            new.baseAddress.unsafelyUnwrapped.moveInitialize(from: base, count: n)
            buffer.deallocate()
            return new
        }
        let larger = capacity * 2
        strings = moved(strings, keeping: count, capacity: larger)
        numbers = moved(numbers, keeping: count, capacity: larger)
        reals = moved(reals, keeping: count, capacity: larger)
        general = moved(general, keeping: count, capacity: larger)
        starts = moved(starts, keeping: count, capacity: larger + 1)
        capacity = larger
    }

    /// Makes room for values of `kind`, the first one's.
    private func start(_ kind: Kind) {
        self.kind = kind
        switch kind {
        case .strings: strings = .allocate(capacity: capacity)
        case .ints: numbers = .allocate(capacity: capacity)
        case .doubles, .dates: reals = .allocate(capacity: capacity)
        case .collated:
            strings = .allocate(capacity: capacity)
            starts = .allocate(capacity: capacity + 1)
        case .general, .none: general = .allocate(capacity: capacity)
        }
    }

    /// The value at `k` of a typed column, as it was appended.
    private func value(at k: Int) -> _SortValue {
        switch kind {
        case .strings: .string(strings[k])
        case .ints: .int(numbers[k])
        case .doubles: .double(reals[k])
        case .dates: .date(reals[k])
        case .collated: .collatedString(Array(words[starts[k]..<(k + 1 < count ? starts[k + 1] : words.count)]), strings[k])
        case .general: general[k]
        case .none: .null
        }
    }

    /// Moves the values so far into general values (a value of another kind came).
    private func becomeGeneral() {
        let values = UnsafeMutableBufferPointer<_SortValue>.allocate(capacity: capacity)
        for k in 0..<count { (values.baseAddress.unsafelyUnwrapped + k).initialize(to: value(at: k)) }
        release()
        general = values
        kind = .general
    }

    /// Frees the typed buffers (not `general`).
    private func release() {
        if strings.baseAddress != nil { strings.extracting(0..<count).deinitialize().deallocate() }
        if numbers.baseAddress != nil { numbers.deallocate() }
        if reals.baseAddress != nil { reals.deallocate() }
        if starts.baseAddress != nil { starts.deallocate() }
        strings = .init(start: nil, count: 0)
        numbers = .init(start: nil, count: 0)
        reals = .init(start: nil, count: 0)
        starts = .init(start: nil, count: 0)
        words = []
    }

    deinit {
        release()
        if general.baseAddress != nil { general.extracting(0..<count).deinitialize().deallocate() }
    }

    /// The column of the values appended: its buffers are the column's now,
    /// and the builder is empty.
    @usableFromInline
    package func column() -> _TypedColumn {
        defer { handOver() }
        switch kind {
        case .strings: return .strings(strings.extracting(0..<count))
        case .ints: return .ints(numbers.extracting(0..<count))
        case .doubles: return .doubles(reals.extracting(0..<count))
        case .dates: return .dates(reals.extracting(0..<count))
        case .collated:
            starts[count] = words.count
            let buffer = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: Swift.max(1, words.count))
            _ = buffer.initialize(from: words)
            return .collated(words: buffer, starts: starts.extracting(0...count), strings: strings.extracting(0..<count))
        case .general: return .general(general.extracting(0..<count))
        case .none: return .ints(.allocate(capacity: 0))
        }
    }

    /// Forgets the buffers a column owns now (the `deinit` frees none of them).
    private func handOver() {
        strings = .init(start: nil, count: 0)
        numbers = .init(start: nil, count: 0)
        reals = .init(start: nil, count: 0)
        general = .init(start: nil, count: 0)
        starts = .init(start: nil, count: 0)
        words = []
        count = 0
        kind = .none
    }
}

/// The order of `count` values by keys read with `keys` (each ascending,
/// strings compared plainly), ties by `sequences`: a fetch's order for the
/// same sort keys — what an index of the store's file keeps.
///
/// - Complexity: O(*n* log *n*) at worst, as ``_sortOrder(keys:ascending:sequences:)``.
func _indexOrder(_ count: Int, keys: [(Int) -> RecordValue], sequences: [Int64]) -> [Int32] {
    let columns = _SortColumns(keys.map { key in
        let builder = _ColumnBuilder(capacity: count)
        for k in 0..<count { builder.append(key(k), comparison: .plain) }
        return builder.column()
    })
    return withExtendedLifetime(columns) { _sortOrder(keys: columns.columns, ascending: keys.map { _ in true }, sequences: sequences) }
}

/// The sort values of a fetch's matches, a column per sort key; freed with it.
/// Read-only once made (a fetch cache and a controller may share it).
@usableFromInline
package final class _SortColumns: @unchecked Sendable {
    @usableFromInline package let columns: [_TypedColumn]

    @usableFromInline
    package init(_ columns: [_TypedColumn]) {
        self.columns = columns
    }

    deinit {
        for column in columns { column.free() }
    }

    /// The sort values of match `k`, one per column.
    @inlinable @inline(__always)
    package func sortValues(at k: Int) -> _SortValues {
        switch columns.count {
        case 0: return _SortValues(first: .null)
        case 1: return _SortValues(first: columns[0].value(at: k))
        case 2: return _SortValues(first: columns[0].value(at: k), second: columns[1].value(at: k))
        default: return _SortValues(columns.map { $0.value(at: k) })
        }
    }
}

/// The first eight UTF-8 bytes of a string, big-endian, zero-padded: when two
/// keys differ they order the strings plainly, as `_comparePlain` does (by
/// the scalars of the NFC forms; UTF-8 bytes order like scalars). Only for strings whose
/// leading scalars — those in the eight bytes and the one after — are below
/// U+0300: every such scalar is a starter that normalization leaves as it is
/// and that no later scalar composes with. `UInt64.max` for the others (a
/// lead byte from 0xCC on, which can not begin a key).
@inline(__always)
func _prefixKey(_ s: String) -> UInt64 {
    var key: UInt64 = 0
    var n = 0
    for byte in s.utf8 {
        if byte >= 0xCC { return .max }   // the lead byte of a scalar from U+0300 on
        if n < 8 {
            key = key << 8 | UInt64(byte)
            n += 1
        } else if byte & 0xC0 != 0x80 {
            return key   // the next scalar begins below U+0300: the key is final
        }
    }
    return key << (8 * (8 - n))
}

/// UTF-8 bytes 8 to 16 of a string, big-endian, zero-padded: the key that
/// follows `_prefixKey`'s, under the same rule for sixteen bytes (the leading
/// scalars — those in the sixteen bytes and the one after — below U+0300).
/// Nil for the others.
@inline(__always)
func _nextPrefixKey(_ s: String) -> UInt64? {
    var key: UInt64 = 0
    var n = 0
    for byte in s.utf8 {
        if byte >= 0xCC { return nil }   // the lead byte of a scalar from U+0300 on
        if n < 16 {
            if n >= 8 { key = key << 8 | UInt64(byte) }
            n += 1
        } else if byte & 0xC0 != 0x80 {
            return key   // the next scalar begins below U+0300: the key is final
        }
    }
    return n <= 8 ? 0 : key << (8 * (16 - n))
}

/// A match being sorted: the keys of its first two sort values, in the
/// direction of their sort keys (0 for a column without keys), and its position.
struct _SortEntry {
    var first: UInt64
    var second: UInt64
    var index: Int32
}

/// Sorts positions by sort values (one column per key, each with its
/// direction), then by first-insertion order. The columns stay the caller's.
///
/// The entries are radix-sorted by the keys of the first column, and of the
/// second when the first's are exact (a pass per byte that is not the same
/// everywhere); each run of entries the keys leave tied is then sorted by
/// comparing values. Keys of different values usually differ, so the runs are
/// short.
///
/// - Complexity: O(*m*) for the radix passes, plus O(*r* log *r*) for each
///   tied run of *r*; O(*m* log *m*) at worst (no keys).
@usableFromInline
package func _sortOrder(keys columns: [_TypedColumn], ascending: [Bool], sequences: [Int64]) -> [Int32] {
    let count = sequences.count
    // No sort keys, and the matches found in insertion order (as a store's
    // records are until a delete moves one): nothing to sort, and no entries
    // to sort them in. O(m).
    if columns.isEmpty, sequences.withUnsafeBufferPointer({ s in s.indices.dropFirst().allSatisfy { s[$0 - 1] < s[$0] } }) {
        return (0..<count).map { Int32(truncatingIfNeeded: $0) }
    }
    let signs = ascending.map { $0 ? 1 : -1 }
    func keys(_ k: Int) -> (keys: [UInt64], exact: Bool)? {
        guard k < columns.count, var found = columns[k].keys(count: count) else { return nil }
        if !ascending[k] { found.keys = found.keys.map { ~$0 } }
        return found
    }
    // The second column's keys order only within equal first values: usable
    // when equal first keys mean equal first values.
    var first = keys(0)
    var second = first?.exact == true ? keys(1) : nil
    // A collated first column has no 64-bit keys but 128-bit ones: they take
    // both halves of an entry's key, and the second column is compared by value.
    var secondContinuesFirst = false
    if first == nil, let wide = columns.first?.wideKeys(count: count) {
        first = (ascending[0] ? wide.high : wide.high.map { ~$0 }, false)
        second = (ascending[0] ? wide.low : wide.low.map { ~$0 }, false)
        secondContinuesFirst = true
    } else if first?.exact == false, let next = columns[0].nextKeys(count: count) {
        // Strings longer than eight bytes: their next eight bytes take the
        // second half of the key (names that share a first name and the start
        // of a last name are ordered by the radix passes, not compared).
        second = (ascending[0] ? next.keys : next.keys.map { ~$0 }, next.exact)
        secondContinuesFirst = true
    }
    // Already in order (exact first keys rising strictly: no ties for the
    // other keys to break): nothing to sort. O(m).
    if let first, first.exact, first.keys.indices.dropFirst().allSatisfy({ first.keys[$0 - 1] < first.keys[$0] }) {
        return (0..<count).map { Int32(truncatingIfNeeded: $0) }
    }
    var entries = (0..<count).map { k in
        _SortEntry(first: first?.keys[k] ?? 0, second: second?.keys[k] ?? 0, index: Int32(k))
    }
    // Values are compared only where the keys are equal and do not say the
    // values are. When the second half of the key continues the first
    // column's, it says nothing of the second column.
    let firstKeysExact = first?.exact == true || (secondContinuesFirst && second?.exact == true)
    let (compareFirst, compareSecond) = (columns.count > 0 && !firstKeysExact, columns.count > 1 && (secondContinuesFirst || second?.exact != true))
    // The keys are in the entries now: their memory goes before the sort's scratch comes.
    first = nil
    second = nil
    // Entries the keys leave tied that only their sequences order leave the
    // (stable) radix sort in position order: already in order when the
    // sequences rise with the positions (matches found in insertion order,
    // as given records and a store's are). O(m).
    let tiesInOrder = !compareFirst && !compareSecond && columns.count <= 2
        && sequences.withUnsafeBufferPointer { s in s.indices.dropFirst().allSatisfy { s[$0 - 1] < s[$0] } }
    columns.withUnsafeBufferPointer { columns in
        signs.withUnsafeBufferPointer { signs in
            sequences.withUnsafeBufferPointer { sequences in
                func isBefore(_ e: _SortEntry, _ f: _SortEntry) -> Bool {
                    if e.first != f.first { return e.first < f.first }
                    let a = Int(e.index), b = Int(f.index)
                    if compareFirst {
                        let c = columns[0].compare(a, b)
                        if c != 0 { return c * signs[0] < 0 }
                    }
                    if e.second != f.second { return e.second < f.second }
                    if compareSecond {
                        let c = columns[1].compare(a, b)
                        if c != 0 { return c * signs[1] < 0 }
                    }
                    for k in columns.indices.dropFirst(2) {
                        let c = columns[k].compare(a, b)
                        if c != 0 { return c * signs[k] < 0 }
                    }
                    return sequences[a] < sequences[b]
                }
                _radixSort(&entries)
                if tiesInOrder { return }
                var start = 0
                while start < count {
                    var end = start + 1
                    while end < count && entries[end].first == entries[start].first && entries[end].second == entries[start].second { end += 1 }
                    if end - start > 1 { entries[start..<end].sort(by: isBefore) }
                    start = end
                }
            }
        }
    }
    return entries.map(\.index)
}

/// Sorts entries by (first, second) as one 128-bit number, stably: least
/// significant byte first, skipping the bytes that are the same in every entry.
///
/// - Complexity: O(*m*) per pass, at most 16 passes.
func _radixSort(_ entries: inout [_SortEntry]) {
    let count = entries.count
    guard count > 1 else { return }
    @inline(__always) func digit(_ e: _SortEntry, _ d: Int) -> Int {
        Int(truncatingIfNeeded: (d < 8 ? e.second >> (8 * d) : e.first >> (8 * (d - 8))) & 0xFF)
    }
    var scratch = entries
    var counts = [Int](repeating: 0, count: 16 * 256)
    var inScratch = false
    entries.withUnsafeMutableBufferPointer { a in
        scratch.withUnsafeMutableBufferPointer { b in
            counts.withUnsafeMutableBufferPointer { counts in
                for e in a {
                    for d in 0..<16 { counts[d << 8 | digit(e, d)] += 1 }
                }
                var (source, target) = (a, b)
                for d in 0..<16 where counts[d << 8 | digit(source[0], d)] != count {
                    var offset = 0
                    for bucket in 0..<256 {
                        let n = counts[d << 8 | bucket]
                        counts[d << 8 | bucket] = offset
                        offset += n
                    }
                    for e in source {
                        let slot = d << 8 | digit(e, d)
                        target[counts[slot]] = e
                        counts[slot] += 1
                    }
                    swap(&source, &target)
                    inScratch.toggle()
                }
            }
        }
    }
    if inScratch { entries = scratch }
}
