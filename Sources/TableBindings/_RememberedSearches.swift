import FetchedResults
import PredicateFormat
import Records

/// A search remembered: its text and scope, the rows it found (and, through
/// the index, the rows whose bytes hold its text: what a longer text scans).
struct _RememberedSearch<R: Record & Codable> {
    var text: String
    var scope: Int
    var plan: _IndexedSearch?
    var format: FormatPredicate?
    var candidates: [Int32]?
    var rows: [Int32]
    /// Its predicate (scope and text), compiled.
    var matches: (R) throws(FetchError) -> Bool
    /// The rest of its scan, while it runs on a thread of its own: the
    /// candidates and rows hold the positions before the scan's source only.
    var scan: _BackgroundScan?
    /// While the rows it tests are tested on the caller's thread a slice at
    /// a time: where the testing stopped (the rows hold those before).
    var testedUpTo: Int?
    /// What it tests: its candidates (more as the scan goes on), or a
    /// sorted list of positions (an earlier search's rows) followed by every
    /// position of a range (every row, or what an earlier search had left).
    enum Tested {
        case candidates
        case positions([Int32], then: Range<Int>)
    }
    var tested = Tested.positions([], then: 0..<0)
    /// What its index scan has left (at first, all it scans), scanned a
    /// step at a time as the tests reach the end of the candidates found so far.
    var scanLeft: _ScanSource?
    /// Whether a position is a row (its scope and text), given the index
    /// the candidates were found in (when it is still there).
    var keep: ((Int32, _FoldedRows?) throws(FetchError) -> Bool)?
    /// The first error its predicate threw on a row it left out (a changed
    /// row, or a row tested again after a change): its rows are then not
    /// the predicate's answer, and no later search takes them as its own
    /// (the same text, or a longer one, is tested again and throws).
    var leftOut: FetchError?

    init(text: String, scope: Int, plan: _IndexedSearch?, format: FormatPredicate?, candidates: [Int32]?, rows: [Int32], matches: @escaping (R) throws(FetchError) -> Bool) {
        self.text = text
        self.scope = scope
        self.plan = plan
        self.format = format
        self.candidates = candidates
        self.rows = rows
        self.matches = matches
    }

    /// Whether its rows are all found.
    var isComplete: Bool { scan == nil && testedUpTo == nil }

    /// The positions it has yet to test, while it tests a list and a range
    /// on the caller's thread (nil otherwise: complete, or finding index
    /// candidates): all after its rows, which with them hold every row of
    /// what it tests.
    var untested: (list: [Int32], then: Range<Int>)? {
        guard let k = testedUpTo, scan == nil, case .positions(let list, let then) = tested else { return nil }
        if k < list.count { return (Array(list[k...]), then) }
        return ([], Swift.min(then.lowerBound + (k - list.count), then.upperBound)..<then.upperBound)
    }

    /// The rows it holds.
    var size: Int { rows.count + (candidates?.count ?? 0) }
}

/// The searches a ``TableSearch`` remembers, the latest last, by text and
/// scope — what makes a text typed again free and a longer text cheap: each
/// one's rows are positions in one fetch of the main controller
/// (``generation``), kept current by every change to it (``follow(removing:inserting:index:)``),
/// within a number of searches and of rows held.
struct _RememberedSearches<R: Record & Codable> {
    /// The searches, the latest last.
    private(set) var entries: [_RememberedSearch<R>] = []
    /// The main controller's fetch the remembered rows are positions of.
    private(set) var generation = -1

    /// At most this many searches are remembered …
    static var limit: Int { 32 }
    /// … holding at most this many rows, with this many more for each main row.
    static var rowsBase: Int { 1 << 16 }
    static var rowsPerRow: Int { 4 }

    /// The latest search.
    var latest: _RememberedSearch<R>? { entries.last }

    var isEmpty: Bool { entries.isEmpty }

    /// Whether the rows are positions of the fetch `generation`.
    func isCurrent(generation: Int) -> Bool { self.generation == generation }

    /// Makes the rows positions of the fetch `generation`: every search is
    /// let go when they were another fetch's.
    mutating func start(generation: Int) {
        guard self.generation != generation else { return }
        forgetAll()
        self.generation = generation
    }

    /// Lets every search go (their scans stopped).
    mutating func forgetAll() {
        for entry in entries { entry.scan?.cancel() }
        entries = []
    }

    /// Takes out the search of `text` and `scope`, if it is remembered and
    /// its rows are the predicate's answer.
    mutating func take(text: String, scope: Int) -> _RememberedSearch<R>? {
        guard let known = entries.lastIndex(where: { $0.text == text && $0.scope == scope && $0.leftOut == nil }) else { return nil }
        return entries.remove(at: known)
    }

    /// The search whose index candidates `plan` scans: the longest earlier
    /// text inside the new one.
    func indexSource(for plan: _IndexedSearch) -> _RememberedSearch<R>? {
        var from: _RememberedSearch<R>?
        for earlier in entries where earlier.candidates != nil {
            guard let earlierPlan = earlier.plan, plan.narrows(earlierPlan) else { continue }
            if from == nil || earlierPlan.length > from?.plan?.length ?? 0 { from = earlier }
        }
        return from
    }

    /// What a new predicate tests, narrowing from an earlier search: of
    /// those in `scope`, exact, complete or testing on the caller's thread,
    /// that `narrows` says hold every row of the new one, the one with the
    /// fewest positions to test (the latest of those) — its rows, then what
    /// it had yet to test.
    func predicateSource(scope: Int, narrows: (_RememberedSearch<R>) -> Bool) -> (text: String, tested: _RememberedSearch<R>.Tested)? {
        var from: (text: String, tested: _RememberedSearch<R>.Tested, count: Int)?
        for earlier in entries.reversed() where earlier.scope == scope && earlier.leftOut == nil {
            let untested = earlier.isComplete ? ([], 0..<0) : earlier.untested
            guard let untested else { continue }
            let count = earlier.rows.count + untested.list.count + untested.then.count
            guard from == nil || count < from?.count ?? 0, narrows(earlier) else { continue }
            from = (earlier.text, .positions(earlier.rows + untested.list, then: untested.then), count)
        }
        return from.map { ($0.text, $0.tested) }
    }

    /// Keeps a search as the latest, within the limits for a main table of
    /// `mainRows` rows (the oldest go first). A new scan in the background
    /// stops the others (their searches, half found, are let go).
    mutating func remember(_ entry: _RememberedSearch<R>, mainRows: Int) {
        if entry.scan != nil {
            for earlier in entries { earlier.scan?.cancel() }
            entries.removeAll { $0.scan != nil }
        }
        entries.append(entry)
        let limit = Self.rowsBase + Self.rowsPerRow * mainRows
        var held = entries.reduce(0) { $0 + $1.size }
        while entries.count > 1 && (entries.count > Self.limit || held > limit) {
            let dropped = entries.removeFirst()
            dropped.scan?.cancel()
            held -= dropped.size
        }
    }

    /// Adds what the finished scans found to their searches (all positions
    /// as they were when the scans started: every change waits for them).
    mutating func takeFinishedScans(waiting: Bool) {
        for k in entries.indices.reversed() {
            guard let scan = entries[k].scan else { continue }
            guard let done = waiting ? .some(scan.waitForFound()) : scan.foundIfDone() else { continue }
            guard let found = done else {
                entries.remove(at: k)   // stopped: the search is let go
                continue
            }
            // A scan runs only for a search whose rows are its candidates,
            // and returns them whole (the first ones, then the rest).
            entries[k].candidates = found
            entries[k].rows = found
            entries[k].scan = nil
        }
    }

    /// Tests a slice more of the latest search's rows (see
    /// `_RememberedSearch.test(_:rowLimit:index:leavingOutFailures:)`).
    ///
    /// - Throws: what its predicate throws on a row; the search is then let
    ///   go (the same text searches again).
    mutating func testLatest(_ slice: _TestSlice?, index: @autoclosure () -> _FoldedRows?) throws(FetchError) {
        guard let k = entries.indices.last, entries[k].testedUpTo != nil else { return }
        do {
            try entries[k].test(slice, index: index())
        } catch {
            entries.removeLast()
            throw error
        }
    }

    /// Before a change: lets go of the searches testing their rows a slice
    /// at a time (they found positions as they were before it), and says
    /// whether the latest was one (its text, to search again after the change).
    mutating func letGoOfSearchesBeingTested() -> String? {
        let latest = entries.last.flatMap { $0.testedUpTo != nil ? $0.text : nil }
        entries.removeAll { $0.testedUpTo != nil }
        return latest
    }

    /// What a change did to the latest search's rows, and the first error a
    /// changed row's predicate threw in any search (that row left out).
    struct Followed {
        var deleted: [Int] = []
        var inserted: [Int] = []
        var failure: FetchError?
    }

    /// Follows a change of the main controller: in every search, `removed`
    /// (positions before it, sorted) are taken out, the rest shifted, and of
    /// `inserted` (positions after it, sorted) those the search's predicate
    /// (and, for its index candidates, `index`) keeps, put in. A row whose
    /// predicate throws is left out, and the search no longer counts as the
    /// predicate's answer (``_RememberedSearch/leftOut``).
    ///
    /// - Complexity: O(*k* + the rows remembered) for *k* changed rows.
    mutating func follow(removing removed: [Int32], inserting inserted: [(position: Int32, record: R)], index: _FoldedRows?) -> Followed {
        var followed = Followed()
        let positions = inserted.map(\.position)
        let records = Dictionary(inserted.map { ($0.position, $0.record) }, uniquingKeysWith: { a, _ in a })
        for k in entries.indices {
            let matches = entries[k].matches
            var leftOut: FetchError?
            let rows = Self.follow(entries[k].rows, removing: removed, inserting: positions) { position in
                guard let record = records[position] else { return false }
                do throws(FetchError) {
                    return try matches(record)
                } catch {
                    if leftOut == nil { leftOut = error }
                    return false
                }
            }
            entries[k].rows = rows.list
            if let leftOut {
                if entries[k].leftOut == nil { entries[k].leftOut = leftOut }
                if followed.failure == nil { followed.failure = leftOut }
            }
            if k == entries.count - 1 { (followed.deleted, followed.inserted) = (rows.deleted, rows.inserted) }
            if let candidates = entries[k].candidates, let plan = entries[k].plan {
                if let index {
                    entries[k].candidates = Self.follow(candidates, removing: removed, inserting: positions) { position in
                        !index.candidates(plan, among: [position]).isEmpty
                    }.list
                } else {
                    entries[k].candidates = nil
                }
            }
        }
        return followed
    }

    /// A sorted list of positions after a change: `removed` (old positions)
    /// out, the rest shifted, and of `inserted` (new positions) those `keep`
    /// says, in. Also the old indexes of the rows out and the new indexes of
    /// the rows in.
    ///
    /// - Complexity: O(*m* + *k*).
    static func follow(
        _ list: [Int32], removing removed: [Int32], inserting inserted: [Int32], keep: (Int32) -> Bool
    ) -> (list: [Int32], deleted: [Int], inserted: [Int]) {
        var deleted: [Int] = []
        var middle: [Int32] = []
        middle.reserveCapacity(list.count)
        if removed.isEmpty {
            middle = list
        } else {
            var j = 0
            for (i, p) in list.enumerated() {
                while j < removed.count && removed[j] < p { j += 1 }
                if j < removed.count && removed[j] == p {
                    deleted.append(i)
                    continue
                }
                middle.append(p - Int32(truncatingIfNeeded: j))
            }
        }
        guard !inserted.isEmpty else { return (middle, deleted, []) }
        var result: [Int32] = []
        result.reserveCapacity(middle.count + inserted.count)
        var added: [Int] = []
        var k = 0
        for q in middle {
            while k < inserted.count && inserted[k] <= q + Int32(truncatingIfNeeded: k) {
                if keep(inserted[k]) {
                    added.append(result.count)
                    result.append(inserted[k])
                }
                k += 1
            }
            result.append(q + Int32(truncatingIfNeeded: k))
        }
        while k < inserted.count {
            if keep(inserted[k]) {
                added.append(result.count)
                result.append(inserted[k])
            }
            k += 1
        }
        return (result, deleted, added)
    }
}
