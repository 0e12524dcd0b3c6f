import Foundation
import InternalTableUtilities
import PredicateFormat
import RecordStore
import Records
import TableDiff

// A search's folded text, kept by the controller whose rows it searches.
//
// Every row's searched strings are folded once, as `[cd]` folds them, into one
// byte buffer (with a 32-bit mask of the bytes each row holds, which answers a
// one-letter search alone and skips most rows of a longer one); a keystroke
// then scans bytes. Containing the folded text's bytes is what the predicate
// asks of a row whose every scalar is a character (ASCII, accented letters:
// `exact` rows); a row with clusters of several scalars (CR LF, Hangul,
// emoji) that contains them is a candidate the predicate decides (`check`),
// and so is every row with a searched value that is not a string (`complex`).
// So the index narrows, the predicate has the last word, and the answers are
// the predicate's.
//
// Positions are the controller's: `slots[p]` is the entry of the row at
// position p — until the first change, entry p itself (no slots are held).
// A change removes and inserts slots (a shift of 4-byte integers; the first
// one writes them) and appends the new rows' entries; entries no row uses
// are dropped when they are half of all (and the slots with them).

/// A search the folded index can answer: comparisons `KEY CONTAINS[cd] text`,
/// `KEY BEGINSWITH[cd] text` or `KEY ==[cd] text`, alone or `OR`-ed.
package struct _IndexedSearch: Hashable, Sendable {
    /// Where the text must be found in a key's folded string.
    package enum Place: UInt8, Hashable, Sendable {
        case anywhere, start, whole
    }

    /// One comparison: a key (an index into ``keys``), a place and the folded text.
    package struct Term: Hashable, Sendable {
        package var key: Int
        package var place: Place
        package var needle: [UInt8]
    }

    /// The keys searched, sorted, once each: what the index folds.
    package let keys: [String]
    package let terms: [Term]

    /// The search a predicate is, or nil when the index cannot answer it
    /// (another operator or option, a quantifier, a key path through a
    /// relationship, a text holding a NUL).
    package init?(_ predicate: FormatPredicate) {
        var comparisons: [FormatPredicate.Comparison] = []
        switch predicate.condition {
        case .comparison(let c): comparisons = [c]
        case .or(let conditions):
            for condition in conditions {
                guard case .comparison(let c) = condition else { return nil }
                comparisons.append(c)
            }
        default: return nil
        }
        var raw: [(key: String, place: Place, needle: [UInt8])] = []
        for c in comparisons {
            guard c.quantifier == nil, case .key(let key) = c.left, !key.contains("."), case .constant(.string(let text)) = c.right,
                c.options.subtracting(.localeSensitive) == [.caseInsensitive, .diacriticInsensitive]
            else { return nil }
            let place: Place
            switch c.operator {
            case .contains: place = .anywhere
            case .beginsWith: place = .start
            case .equal: place = .whole
            default: return nil
            }
            let needle = _SearchFolding.caseAndDiacriticInsensitive(text)
            guard !needle.contains(0) else { return nil }
            raw.append((key, place, needle))
        }
        guard !raw.isEmpty else { return nil }
        let sorted = Array(Set(raw.map(\.key))).sorted()
        keys = sorted
        terms = raw.map { Term(key: sorted.firstIndex(of: $0.key) ?? 0, place: $0.place, needle: $0.needle) }
    }

    /// Whether every row whose bytes this search's terms find, `wider`'s find
    /// too: the same keys and places, each text containing (starting with,
    /// equal to) the wider one's. Then the rows found for `wider` are the
    /// ones to scan.
    package func narrows(_ wider: _IndexedSearch) -> Bool {
        guard keys == wider.keys, terms.count == wider.terms.count else { return false }
        for (a, b) in zip(terms, wider.terms) {
            guard a.key == b.key, a.place == b.place else { return false }
            switch a.place {
            case .anywhere: if !Self.bytes(a.needle, contain: b.needle) { return false }
            case .start: if !a.needle.starts(with: b.needle) { return false }
            case .whole: if a.needle != b.needle { return false }
            }
        }
        return true
    }

    /// The total length of the texts: a longer one narrows more.
    package var length: Int { terms.reduce(0) { $0 + $1.needle.count } }

    static func bytes(_ haystack: [UInt8], contain needle: [UInt8]) -> Bool {
        if needle.isEmpty { return true }
        guard needle.count <= haystack.count else { return false }
        for i in 0...(haystack.count - needle.count) where haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
        return false
    }
}

/// Positions to scan, in increasing order: the rest of a list of positions
/// (an earlier search's candidates) and runs of every position.
package struct _ScanSource: Sendable {
    package enum Segment: Sendable {
        /// The positions of a list, from its `from`th.
        case list([Int32], from: Int)
        /// Every position of a range.
        case range(Range<Int32>)
    }

    package var segments: [Segment]

    package init(segments: [Segment]) { self.segments = segments }
    /// The positions of a sorted list.
    package init(list: [Int32]) { segments = [.list(list, from: 0)] }
    /// Every position of a range.
    package init(positions: Range<Int32>) { segments = [.range(positions)] }

    /// A sorted list of positions before this source's, then this source.
    package func after(_ list: [Int32]) -> _ScanSource { _ScanSource(segments: [.list(list, from: 0)] + segments) }

    /// The positions to scan, in order.
    package var positions: [Int32] {
        segments.flatMap { segment -> [Int32] in
            switch segment {
            case .list(let list, let from): Array(list[Swift.min(Swift.max(0, from), list.count)...])
            case .range(let range): Array(range)
            }
        }
    }

    /// The number of positions to scan.
    var count: Int {
        segments.reduce(0) { total, segment in
            switch segment {
            case .list(let list, let from): total + Swift.max(0, list.count - from)
            case .range(let range): total + range.count
            }
        }
    }
}

/// The folded text of a controller's rows for some keys (see the notes at the
/// top of this file).
package struct _FoldedRows: Sendable {
    /// The bytes decide.
    package static let exact: UInt8 = 0
    /// The bytes say whether the row can match; the predicate decides.
    package static let check: UInt8 = 1
    /// The predicate alone decides.
    package static let complex: UInt8 = 2
    /// A key without a string (nil, or missing): one byte no text holds.
    static let absent: UInt8 = 0xFF

    /// The number of keys each entry holds.
    let keyCount: Int
    /// The entry of each position; nil while it is the position itself
    /// (from the building or a compaction to the next change).
    private var slots: [Int32]?
    /// Each entry's first byte; one more at the end.
    private var starts: [UInt32] = [0]
    private var kinds: [UInt8] = []
    /// Which byte values (modulo 32) each entry holds: a bit for each
    /// lowercase ASCII letter.
    private var masks: [UInt32] = []
    /// Each key's folded string followed by a 0 byte, entry after entry.
    private var bytes: [UInt8] = []
    /// Entries no position uses.
    private var unused = 0
    /// Entries (used or not) that are not `exact`: none, and the bytes alone
    /// decide every row.
    private var inexactEntries = 0

    /// Whether the bytes alone decide every row (no row to check, none complex).
    package var isExact: Bool { inexactEntries == 0 }

    /// The number of rows.
    package var count: Int { slots?.count ?? kinds.count }

    /// The entries held, used or not (for tests: a compaction drops some).
    var entryCount: Int { kinds.count }

    /// The rows expected while building: the bytes' room is set from the
    /// first ``sampleRows`` rows (see ``append(_:)``).
    private let expectedRows: Int
    private static let sampleRows = 4096

    /// Room for `capacity` rows; for their bytes, `byteCapacity` when known,
    /// else as the first rows appended suggest.
    init(keyCount: Int, capacity: Int, byteCapacity: Int? = nil) {
        self.keyCount = keyCount
        expectedRows = byteCapacity == nil ? capacity : 0
        starts.reserveCapacity(capacity + 1)
        kinds.reserveCapacity(capacity)
        masks.reserveCapacity(capacity)
        bytes.reserveCapacity(byteCapacity ?? Swift.min(capacity, Self.sampleRows) * 32)
    }

    /// The bytes held must stay addressable by 32-bit starts.
    var isFull: Bool { bytes.count > Int(UInt32.max) - (1 << 24) }

    // MARK: Building and changing

    /// Appends an entry for `values` (one per key, nil for a missing key);
    /// returns it.
    private mutating func appendEntry(_ values: some Collection<RecordValue?>) -> Int32 {
        let entry = Int32(truncatingIfNeeded: kinds.count)
        let mark = bytes.count
        var kind = Self.exact
        for value in values {
            switch value {
            case .string(let text)?:
                if !Self.append(text, to: &bytes, kind: &kind) {
                    kind = Self.complex
                }
            case .null?, nil:
                bytes.append(Self.absent)
                bytes.append(0)
            default:
                kind = Self.complex
            }
            if kind == Self.complex { break }
        }
        if kind == Self.complex { bytes.removeSubrange(mark...) }
        var mask: UInt32 = 0
        for k in mark..<bytes.count { mask |= 1 << UInt32(bytes[k] & 31) }
        kinds.append(kind)
        if kind != Self.exact { inexactEntries += 1 }
        masks.append(mask)
        starts.append(UInt32(truncatingIfNeeded: bytes.count))
        return entry
    }

    /// Appends `text` folded and a 0 byte; false (nothing appended) when it
    /// holds a NUL. Clusters of several scalars make the row one to check.
    private static func append(_ text: String, to bytes: inout [UInt8], kind: inout UInt8) -> Bool {
        var text = text
        let ascii = text.withUTF8 { utf8 -> Bool? in
            for b in utf8 where b >= 0x80 { return false }
            for b in utf8 where b == 0 { return nil }
            var previous: UInt8 = 0
            for b in utf8 {
                if previous == 0x0D && b == 0x0A { kind = Swift.max(kind, check) }
                bytes.append(b >= 0x41 && b <= 0x5A ? b + 32 : b)
                previous = b
            }
            return true
        }
        switch ascii {
        case nil: return false
        case true?: break
        case false?:
            let folded = _SearchFolding.caseAndDiacriticInsensitive(text)
            if folded.contains(0) { return false }
            let string = String(decoding: folded, as: UTF8.self)
            if string.count != string.unicodeScalars.count { kind = Swift.max(kind, check) }
            bytes += folded
        }
        bytes.append(0)
        return true
    }

    /// Appends a row at the end (building).
    mutating func append(_ values: some Collection<RecordValue?>) {
        let entry = appendEntry(values)
        slots?.append(entry)
        // Room for every row's bytes, once, from the first rows' average and
        // an eighth more: doubling a buffer of a million rows' bytes would
        // hold the old one and the new one at once.
        if kinds.count == Self.sampleRows && expectedRows > Self.sampleRows {
            let perRow = (bytes.count + Self.sampleRows - 1) / Self.sampleRows
            bytes.reserveCapacity(expectedRows * (perRow + perRow / 8 + 1))
        }
    }

    /// Removes the row at a position.
    mutating func remove(at position: Int) {
        guard (0..<count).contains(position) else { return }
        writeSlots()
        slots?.remove(at: position)
        unused += 1
        compactIfNeeded()
    }

    /// Inserts a row at a position.
    mutating func insert(_ values: [RecordValue?], at position: Int) {
        writeSlots()
        let at = Swift.min(Swift.max(0, position), count)
        let entry = appendEntry(values)
        slots?.insert(entry, at: at)
    }

    /// Holds the slots (each position's entry) for a change to move them:
    /// O(*n*) once, as the change's own shift of the slots is.
    private mutating func writeSlots() {
        if slots == nil { slots = (0..<Int32(truncatingIfNeeded: kinds.count)).map { $0 } }
    }

    /// Drops the entries no row uses once they are half of all.
    private mutating func compactIfNeeded() {
        guard unused > 1024, unused * 2 > kinds.count else { return }
        guard let slots else { return }
        var fresh = _FoldedRows(keyCount: keyCount, capacity: slots.count, byteCapacity: bytes.count)
        for entry in slots {
            let e = Int(entry)
            fresh.bytes += bytes[Int(starts[e])..<Int(starts[e + 1])]
            fresh.kinds.append(kinds[e])
            if kinds[e] != Self.exact { fresh.inexactEntries += 1 }
            fresh.masks.append(masks[e])
            fresh.starts.append(UInt32(truncatingIfNeeded: fresh.bytes.count))
        }
        self = fresh
    }

    // MARK: Searching

    /// The kind of the row at a position.
    package func kind(at position: Int) -> UInt8 { kinds[slots.map { Int($0[position]) } ?? position] }

    /// The positions, of `positions` (sorted; nil for every row), whose bytes
    /// the search's terms find — and every complex row among them: the
    /// candidates, in order.
    ///
    /// - Complexity: O(*m* + the bytes of the rows whose mask holds the
    ///   text's bytes) for *m* positions.
    package func candidates(_ search: _IndexedSearch, among positions: [Int32]?) -> [Int32] {
        scan(search, positions.map { _ScanSource(list: $0) } ?? _ScanSource(positions: 0..<Int32(truncatingIfNeeded: count))).found
    }

    /// The candidates of `search` in `source`, in order (see
    /// ``candidates(_:among:)``), stopping once `limit` are found or `budget`
    /// positions are tested; and what is left of `source` (nil when it was
    /// scanned to its end).
    ///
    /// - Complexity: as ``candidates(_:among:)``, for the positions tested.
    package func scan(_ search: _IndexedSearch, _ source: _ScanSource, limit: Int = .max, budget: Int = .max) -> (found: [Int32], rest: _ScanSource?) {
        var found: [Int32] = []
        var rest: _ScanSource?
        let terms = search.terms
        let termMasks = terms.map { term in term.needle.reduce(UInt32(0)) { $0 | 1 << UInt32($1 & 31) } }
        let oneKey = keyCount == 1
        let identity = slots == nil
        (slots ?? []).withUnsafeBufferPointer { slots in
            starts.withUnsafeBufferPointer { starts in
                kinds.withUnsafeBufferPointer { kinds in
                    masks.withUnsafeBufferPointer { masks in
                        bytes.withUnsafeBufferPointer { bytes in
                            func test(_ position: Int32) -> Bool {
                                let e = identity ? Int(position) : Int(slots[Int(position)])
                                if kinds[e] == Self.complex { return true }
                                let mask = masks[e]
                                for (t, term) in terms.enumerated() where mask & termMasks[t] == termMasks[t] {
                                    var lower = Int(starts[e]), upper = Int(starts[e + 1]) - 1   // less the key's 0
                                    if !oneKey {
                                        // The key's segment: past the 0s of the keys before it.
                                        var key = 0
                                        while key < term.key {
                                            while bytes[lower] != 0 { lower += 1 }
                                            lower += 1
                                            key += 1
                                        }
                                        upper = lower
                                        while bytes[upper] != 0 { upper += 1 }
                                    }
                                    if Self.find(term.needle, term.place, in: bytes, lower, upper) { return true }
                                }
                                return false
                            }
                            // Tests a segment's positions from its `k`th up to `count`; false when it stopped early (at `k`).
                            let rows = Int32(truncatingIfNeeded: count)
                            var tested = 0
                            func run(_ count: Int, _ k: inout Int, _ position: (Int) -> Int32) -> Bool {
                                while k < count {
                                    if found.count >= limit || tested >= budget { return false }
                                    let end = budget - tested >= count - k ? count : k + (budget - tested)
                                    tested += end - k
                                    while k < end {
                                        let p = position(k)
                                        k += 1
                                        if p >= 0 && p < rows && test(p) {   // (a list this index made holds no other)
                                            found.append(p)
                                            if found.count >= limit {
                                                tested -= end - k
                                                break
                                            }
                                        }
                                    }
                                }
                                return true
                            }
                            for (s, segment) in source.segments.enumerated() {
                                var k = 0
                                let left: _ScanSource.Segment
                                switch segment {
                                case .list(let list, let from):
                                    k = Swift.max(0, from)
                                    if run(list.count, &k, { list[$0] }) { continue }
                                    left = .list(list, from: k)
                                case .range(let range):
                                    let upper = Swift.min(range.upperBound, rows)
                                    if run(Int(Swift.max(0, upper - range.lowerBound)), &k, { range.lowerBound + Int32(truncatingIfNeeded: $0) }) { continue }
                                    left = .range((range.lowerBound + Int32(truncatingIfNeeded: k))..<range.upperBound)
                                }
                                rest = _ScanSource(segments: [left] + source.segments[(s + 1)...])
                                break
                            }
                        }
                    }
                }
            }
        }
        return (found, rest)
    }

    /// Whether `needle` is at `place` in `bytes[lower..<upper]` (a key's
    /// folded string, or the absent byte).
    @inline(__always)
    private static func find(_ needle: [UInt8], _ place: _IndexedSearch.Place, in bytes: UnsafeBufferPointer<UInt8>, _ lower: Int, _ upper: Int) -> Bool {
        if upper - lower == 1 && bytes[lower] == absent { return false }
        let m = needle.count
        if m == 0 { return place != .whole || upper == lower }   // as the predicate: every string contains "", only "" is it
        guard upper - lower >= m else { return false }
        switch place {
        case .whole:
            guard upper - lower == m else { return false }
            fallthrough
        case .start:
            for k in 0..<m where bytes[lower + k] != needle[k] { return false }
            return true
        case .anywhere:
            let first = needle[0]
            var i = lower
            let last = upper - m
            while i <= last {
                if bytes[i] == first {
                    var k = 1
                    while k < m && bytes[i + k] == needle[k] { k += 1 }
                    if k == m { return true }
                }
                i += 1
            }
            return false
        }
    }
}

/// The rest of a search's scan, on a thread of its own: the candidates of a
/// search in what is left of its source, found from an index as it was when
/// the scan started, a step of 65,536 positions at a time until the end or
/// until it is cancelled.
package final class _BackgroundScan: Sendable {
    /// What it scans.
    package let source: _ScanSource
    private let handover: _BackgroundValue<[Int32]?>
    private let cancelled: _Lock<Bool>

    /// Scans `source` on a thread of its own; what it finds follows `first`,
    /// the positions found before `source`.
    package init(_ rows: _FoldedRows, _ search: _IndexedSearch, _ source: _ScanSource, after first: [Int32]) {
        self.source = source
        let cancelled = _Lock(false)
        self.cancelled = cancelled
        handover = _BackgroundValue(makingOnAThreadOfItsOwn: {
            var found = first
            var left: _ScanSource? = source
            let total = source.count
            var firstStep = true
            while let source = left {
                if cancelled.withLock({ $0 }) { return nil }
                let step = rows.scan(search, source, budget: Self.step)
                if firstStep && step.rest != nil {
                    // Room for what the first step's rate promises, and an
                    // eighth more: a list of a million positions that doubled
                    // would hold both copies at once.
                    let rest = step.found.count * (total - Self.step) / Self.step
                    found.reserveCapacity(Swift.min(first.count + total, found.count + step.found.count + rest + rest / 8))
                }
                firstStep = false
                found += step.found
                left = step.rest
            }
            return found
        })
    }

    /// The positions each step of the thread tests (between two looks at
    /// whether it is cancelled).
    private static let step = 1 << 16

    /// Stops the scan at its next step.
    package func cancel() { cancelled.withLock { $0 = true } }

    /// Whether the scan is over (done or cancelled).
    package var isOver: Bool { handover.valueIfMade() != nil }

    /// `first` and what it found, when it is done (nil at once while it
    /// runs); nil inside when it was cancelled.
    package func foundIfDone() -> [Int32]?? { handover.valueIfMade() }

    /// `first` and what it found, once it is done; nil when it was cancelled.
    package func waitForFound() -> [Int32]? { handover.wait() }
}

/// A controller's folded index for one set of keys: made in the background
/// after each fetch, kept current by every change (changes made while it is
/// being made wait in a log and are replayed when it is taken).
final class _SearchIndexSlot<R: Record>: @unchecked Sendable {
    enum Change {
        case remove(Int)
        case insert([RecordValue?], Int)
    }

    let keys: [String]
    let readers: [RecordReader<R>]
    /// How many searches asked for it.
    var users = 1
    /// The index, once made and taken.
    var rows: _FoldedRows?
    /// The index being made, the store's version it was made at, and whether
    /// a save came in meanwhile (then it is made again).
    var pending: _BackgroundValue<(rows: _FoldedRows, stale: Bool)>?
    /// Set to stop the thread making `pending` (at its next chunk of rows):
    /// an index nobody will take must not keep a core busy and the store's
    /// lock taken.
    private var stopMaking: _Lock<Bool>?
    /// The changes since the making started.
    var log: [Change] = []

    init(keys: [String], readers: [RecordReader<R>]) {
        self.keys = keys
        self.readers = readers
    }

    deinit { stopMaking?.withLock { $0 = true } }

    /// Stops the making of `pending`, if any (at its next chunk of rows).
    func stopMakingIndex() {
        stopMaking?.withLock { $0 = true }
        pending = nil
    }

    /// Stops the making under way, if any, and gives the flag a new making
    /// looks at (``stopMakingIndex()`` sets it).
    func flagForANewMaking() -> _Lock<Bool> {
        stopMakingIndex()
        let flag = _Lock(false)
        stopMaking = flag
        return flag
    }

    func values(of record: R) -> [RecordValue?] { readers.map { $0(record) } }

    /// Takes the index if it is made (never waits); nil while it is made, or
    /// when it had to be started again.
    func take() -> _FoldedRows? {
        if let rows { return rows }
        guard let pending, let made = pending.valueIfMade() else { return nil }
        self.pending = nil
        guard !made.stale else { return nil }
        var rows = made.rows
        for change in log {
            switch change {
            case .remove(let position): rows.remove(at: position)
            case .insert(let values, let position): rows.insert(values, at: position)
            }
        }
        log = []
        self.rows = rows
        return rows
    }

    func remove(at position: Int) {
        if rows != nil { rows!.remove(at: position) } else if pending != nil { log.append(.remove(position)) }
    }

    func insert(_ record: R, at position: Int) {
        if rows != nil { rows!.insert(values(of: record), at: position) } else if pending != nil { log.append(.insert(values(of: record), position)) }
    }
}

extension FetchedResultsController {
    /// Starts keeping the folded text of `keys` for every row (see
    /// `_FoldedRows`): made on a thread of its own now (when fetched) and
    /// after every fetch, kept current by every change. Call
    /// ``stopIndexing(_:)`` as many times to stop.
    ///
    /// - Returns: false when a key cannot be read from `R` (a search then
    ///   takes the predicate).
    @discardableResult
    package func startIndexing(_ keys: [String]) -> Bool {
        if let slot = searchIndexes.first(where: { $0.keys == keys }) {
            slot.users += 1
            return true
        }
        var readers: [RecordReader<R>] = []
        for key in keys {
            guard let reader = try? R._reader(forKeyPath: key) else { return false }
            readers.append(reader)
        }
        let slot = _SearchIndexSlot<R>(keys: keys, readers: readers)
        searchIndexes.append(slot)
        if results.compiled != nil { startBuilding(slot) }
        return true
    }

    /// Stops keeping the folded text of `keys` (when every search that asked
    /// for it stopped).
    package func stopIndexing(_ keys: [String]) {
        guard let k = searchIndexes.firstIndex(where: { $0.keys == keys }) else { return }
        searchIndexes[k].users -= 1
        if searchIndexes[k].users <= 0 { searchIndexes.remove(at: k).stopMakingIndex() }
    }

    /// The making of the folded text of `keys` under way, if any: for tests
    /// that check a making nobody will take stops.
    package func searchIndexBeingMade(_ keys: [String]) -> _BackgroundValue<(rows: _FoldedRows, stale: Bool)>? {
        searchIndexes.first(where: { $0.keys == keys })?.pending
    }

    /// The folded text of `keys` when it is made and current; nil (at once,
    /// never waiting) while it is being made — or when results this controller
    /// holds are not current (a save in the store not merged yet).
    package func searchIndex(_ keys: [String]) -> _FoldedRows? {
        guard let slot = searchIndexes.first(where: { $0.keys == keys }) else { return nil }
        if slot.rows == nil && slot.pending == nil { startBuilding(slot) }
        guard let rows = slot.take() else {
            if slot.pending == nil && slot.rows == nil && results.compiled != nil && results.ordered.count >= Self.searchIndexInBackgroundFrom {
                startBuilding(slot)   // made stale: again
            }
            return nil
        }
        return rows.count == results.ordered.count ? rows : nil
    }

    /// Waits until the folded text of `keys` is made and current, until
    /// `deadline` at most: true when it is (``searchIndex(_:)`` then gives it).
    /// False at once when nothing is making it (no search asked for it, or
    /// the results are not current: a save not merged yet).
    package func waitForSearchIndex(_ keys: [String], until deadline: Date) -> Bool {
        while true {
            if searchIndex(keys) != nil { return true }
            guard let pending = searchIndexes.first(where: { $0.keys == keys })?.pending, pending.wait(until: deadline) != nil else {
                return false
            }
        }
    }

    /// Starts making every kept index again (after a fetch).
    func startBuildingSearchIndexes() {
        for slot in searchIndexes { startBuilding(slot) }
    }

    /// Makes an index on a thread of its own from the rows as they are now.
    func startBuilding(_ slot: _SearchIndexSlot<R>) {
        slot.rows = nil
        slot.log = []
        let stop = slot.flagForANewMaking()
        guard results.compiled != nil else { return }
        let ids = results.ordered.chunks.map { $0.ids }
        let count = results.ordered.count
        let keyCount = slot.readers.count
        let read = access.sendableValueReader(slot.readers)
        let readAll = count < Self.searchIndexInBackgroundFrom ? nil : access.sendableWholeValueReader(slot.readers, rowCount: count)
        let version = context.storeVersion
        let current = context.controllersAreCurrent
        @Sendable func make() -> (rows: _FoldedRows, stale: Bool) {
            var rows = _FoldedRows(keyCount: keyCount, capacity: count)
            var stale = !current
            if let readAll {
                // Every row at once, in the order of the store's file.
                guard let (values, seen) = readAll(ids, { stop.withLock { $0 } }) else { return (rows, true) }
                if seen != version { stale = true }
                for k in 0..<count {
                    rows.append(values[k * keyCount..<(k + 1) * keyCount])
                    if rows.isFull { return (rows, true) }
                }
                return (rows, stale)
            }
            for chunk in ids {
                if stop.withLock({ $0 }) { return (rows, true) }
                let (values, seen) = read(chunk)
                if seen != version { stale = true }
                for k in 0..<chunk.count {
                    rows.append(values[k * keyCount..<(k + 1) * keyCount])
                }
                if rows.isFull { stale = true; break }
            }
            return (rows, stale)
        }
        if count < Self.searchIndexInBackgroundFrom {
            // Small results: made at once (cheaper than a thread).
            let made = make()
            slot.rows = made.stale ? nil : made.rows
        } else {
            let latch = searchIndexMakingWaitsFor
            slot.pending = _BackgroundValue {
                latch?.waitUntilOpen()
                return make()
            }
        }
    }

    /// For tests: holds every making of a search index on a thread of its
    /// own started from now on, before it reads a row, until the function
    /// returned is called — so that a search surely comes before its index,
    /// not by timing. Call it once, and always call what it returns.
    package func _holdSearchIndexMaking() -> @Sendable () -> Void {
        let latch = _Latch()
        searchIndexMakingWaitsFor = latch
        return { latch.open() }
    }

    /// Results this small have their folded text made at once, with the fetch.
    static var searchIndexInBackgroundFrom: Int { 2048 }

    // MARK: Rows by position (for a search over this controller's rows)

    /// The number of rows (every section's).
    package var numberOfRows: Int { results.compiled == nil ? 0 : results.ordered.count }

    /// Where each section starts among the rows, and (last) the number of rows.
    package var sectionStartPositions: [Int] { results.sectionStarts }

    /// The index path of the row at a position.
    package func indexPath(ofPosition position: Int) -> TablePath { path(ofPosition: position) }

    /// The position of the row at an index path; nil for a path outside the rows.
    package func position(of indexPath: TablePath) -> Int? {
        guard results.compiled != nil, indexPath.section >= 0, indexPath.section + 1 < results.sectionStarts.count, indexPath.row >= 0,
            indexPath.row < results.sectionStarts[indexPath.section + 1] - results.sectionStarts[indexPath.section]
        else { return nil }
        return results.sectionStarts[indexPath.section] + indexPath.row
    }

    /// The record of the row at a position (read a batch at a time with a batch size).
    package func object(atPosition position: Int) -> R? {
        guard position >= 0, position < results.ordered.count else { return nil }
        return record(at: position)
    }
}

extension RecordPredicate {
    /// The test, ready to run (a format predicate compiled for `R` once).
    ///
    /// - Throws: `FetchError.unknownKey(_:)` for a key `R` does not have.
    package func makeEvaluator() throws(FetchError) -> (R) throws(FetchError) -> Bool { try evaluator() }
}
