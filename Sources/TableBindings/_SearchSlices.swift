import FetchedResults
import HeadlessTableView
import InternalTableUtilities
import Records

/// How much of a search's testing one call does: at most so many rows, and
/// (when `nanoseconds` is not nil) about so long.
struct _TestSlice {
    var rows: Int
    var nanoseconds: UInt64?
    /// The positions of the index one step of a scan goes through.
    var scanPositions = 1 << 16
}

/// When a search of a big table finds its first rows now and the rest
/// later, and how much it does at a time: what keeps a keystroke at the cost
/// of the window rather than of the table. (Internal settings: tests lower
/// them to reach the later slices with small tables.)
struct _SearchSlices {
    /// The number of main rows from which a search through the index finds
    /// all but the first rows later.
    var scanInBackgroundFrom = 1 << 15

    /// The number of main rows from which the rows a search tests (by a
    /// scope or the predicate) are tested in slices (``scanInBackgroundFrom``
    /// lowers it too).
    var testInPartsFrom = 1 << 12

    /// A slice of tests by a scope or the predicate — the first one in
    /// `TableSearch.update(text:)`, each next one in
    /// `TableSearch.showFoundResults(waiting:)`: at most so many rows and so long.
    var slice = _TestSlice(rows: 1 << 16, nanoseconds: 4_000_000)

    /// Whether a search through the index of `mainRows` rows finds the first
    /// rows now and the rest on a thread of its own.
    func scansInBackground(mainRows: Int) -> Bool { mainRows >= scanInBackgroundFrom }

    /// Whether the rows a search of `mainRows` rows tests are tested a slice at a time.
    func testsInSlices(mainRows: Int) -> Bool { mainRows >= Swift.min(scanInBackgroundFrom, testInPartsFrom) }

    /// Rows of `table` two screens hold: what a search in a big table finds
    /// before the rest goes to a thread of its own or to later slices.
    static func firstRows(shownBy table: TableView) -> Int {
        let row = table.rowHeight > 0 ? table.rowHeight : table.estimatedRowHeight > 0 ? table.estimatedRowHeight : 44
        let rows = (2 * table.viewportHeight / row).rounded(.up)
        return rows.isFinite ? Int(Swift.min(4096, Swift.max(64, rows))) : 4096
    }
}

extension _RememberedSearch {
    /// Starts testing with `keep`.
    mutating func startTesting(_ tested: Tested, keep: @escaping (Int32, _FoldedRows?) throws(FetchError) -> Bool) {
        self.tested = tested
        self.keep = keep
        testedUpTo = 0
    }

    /// The number of positions to test (so far).
    var testCount: Int {
        switch tested {
        case .candidates: candidates?.count ?? 0
        case .positions(let list, let then): list.count + then.count
        }
    }

    /// Tests the positions left — within `slice` (every one when nil),
    /// fewer once `rowLimit` rows are found — and appends those that are rows.
    ///
    /// - Throws: what the predicate throws on a position (unless
    ///   `leavingOutFailures`: then it is left out, and the first such
    ///   error kept in ``leftOut``); the rows hold those before it, and the
    ///   testing stops at it.
    mutating func test(_ slice: _TestSlice?, rowLimit: Int = .max, index: _FoldedRows?, leavingOutFailures: Bool = false) throws(FetchError) {
        guard let from = testedUpTo, let keep else { return }
        var k = from, tests = 0
        defer {
            testedUpTo = k < testCount || scanLeft != nil ? k : nil
            if testedUpTo == nil { (self.keep, tested) = (nil, .positions([], then: 0..<0)) }
        }
        let budget = slice?.rows ?? .max
        let deadline = slice?.nanoseconds.map { _Monotonic.nanoseconds() &+ $0 }
        func late() -> Bool { deadline.map { _Monotonic.nanoseconds() > $0 } ?? false }
        var count = testCount
        while tests < budget && rows.count < rowLimit {
            if k == count {
                // The candidates found so far are tested: the scan goes on.
                guard let left = scanLeft else { break }
                if let index, let plan {
                    let more = index.scan(plan, left, budget: slice?.scanPositions ?? .max)
                    candidates?.append(contentsOf: more.found)
                    scanLeft = more.rest
                } else {
                    // The index gone: every position left is a candidate (the predicate decides).
                    candidates?.append(contentsOf: left.positions)
                    scanLeft = nil
                }
                count = testCount
                if late() { break }
                continue
            }
            // The clock every 64 tests.
            if tests & 63 == 63 && late() { break }
            let position: Int32
            switch tested {
            case .candidates: position = candidates?[k] ?? 0
            case .positions(let list, let then):
                position = k < list.count ? list[k] : Int32(truncatingIfNeeded: then.lowerBound + (k - list.count))
            }
            do throws(FetchError) {
                if try keep(position, index) { rows.append(position) }
            } catch {
                guard leavingOutFailures else { throw error }
                if leftOut == nil { leftOut = error }
            }
            k += 1
            tests += 1
        }
    }
}
