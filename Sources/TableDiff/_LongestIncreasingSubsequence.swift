import InternalTableUtilities

/// Marks one longest strictly increasing subsequence of `values`.
///
/// Used to choose which rows (and sections) stay where they are: the rows of a
/// longest increasing subsequence of new positions keep their relative order, and
/// every other row is moved — so a changeset has as few moves as possible.
///
/// Patience sorting: each value is placed on the leftmost pile whose top is not
/// smaller, found by binary search over the pile tops; a value larger than every
/// top (as in a run of unchanged rows) costs O(1). Ties are impossible: values
/// are distinct.
///
/// - Parameters:
///   - count: the number of offsets; offsets for which `value` returns nil are
///     not part of the sequence.
///   - value: the value at an offset, or nil to skip it.
///   - keep: called with every offset of the subsequence, last first.
/// - Complexity: O(*m* log *L*), where *m* is the number of values and *L* the
///   length of the longest increasing subsequence; O(*m*) when the values are
///   already increasing.
@inline(__always)
func _longestIncreasingSubsequence(
    count: Int, previous: UnsafeMutablePointer<Int32>, tails: inout [Int32],
    value: (Int) -> Int32?, keep: (Int) -> Void
) {
    tails.removeAll(keepingCapacity: true)
    var lastValue = Int32.min
    for k in 0..<count {
        guard let v = value(k) else { continue }
        if tails.isEmpty || lastValue < v {
            previous[k] = tails.last ?? -1
            tails.append(Int32(k))
            lastValue = v
        } else {
            // The leftmost pile whose top is not smaller than v.
            var low = 0, high = tails.count - 1
            while low < high {
                let mid = (low + high) >> 1
                if value(Int(tails[mid]))! < v { low = mid + 1 } else { high = mid }
            }
            previous[k] = low > 0 ? tails[low - 1] : -1
            tails[low] = Int32(k)
            if low == tails.count - 1 { lastValue = v }
        }
    }
    var k = Int(tails.last ?? -1)
    while k >= 0 {
        keep(k)
        k = Int(previous[k])
    }
}

/// Marks one longest strictly increasing subsequence of `values` (see above).
func _longestIncreasingSubsequence(_ values: UnsafeBufferPointer<Int32>, keep: (Int) -> Void) {
    let previous = UnsafeMutablePointer<Int32>.allocate(capacity: max(values.count, 1))
    defer { previous.deallocate() }
    var tails: [Int32] = []
    _longestIncreasingSubsequence(count: values.count, previous: previous, tails: &tails, value: { values[$0] }, keep: keep)
}

/// The offsets of a longest strictly increasing subsequence of `values` that
/// contains every value for which `isChanged` is true, or nil when those values
/// are not themselves increasing.
///
/// A value can join the changed ones only if it lies, by offset and by value,
/// between the changed values around it; any increasing run of such values,
/// plus all the changed ones, is increasing. So this is the longest increasing
/// subsequence of the compatible unchanged values, plus the changed values.
///
/// - Complexity: O(*m* log *m*), where *m* is the number of values.
func _longestIncreasingKeeping(values: ArraySlice<Int32>, isChanged: (Int) -> Bool) -> [Int]? {
    let m = values.count
    let base = values.startIndex
    var changed: [Int] = []
    for k in 0..<m where isChanged(k) {
        if let last = changed.last, values[base + last] >= values[base + k] { return nil }
        changed.append(k)
    }
    // Bounds from the changed values around each offset.
    var compatible: [Int32] = [], compatibleOffsets: [Int] = []
    var next = 0   // index in `changed` of the first changed offset after k
    for k in 0..<m {
        if next < changed.count && changed[next] == k { next += 1; continue }
        let low = next > 0 ? values[base + changed[next - 1]] : Int32.min
        let high = next < changed.count ? values[base + changed[next]] : Int32.max
        let v = values[base + k]
        if low < v && v < high {
            compatible.append(v)
            compatibleOffsets.append(k)
        }
    }
    var result = changed
    compatible.withUnsafeBufferPointer { buffer in
        _longestIncreasingSubsequence(buffer) { result.append(compatibleOffsets[$0]) }
    }
    return result
}

/// A run of paired rows: consecutive A rows whose B positions are consecutive too.
struct _Run {
    /// The first A row (flat index).
    var start: Int32
    var length: Int32
    /// The B position of the first row.
    var first: Int32
}

/// The runs of a longest increasing subsequence of runs, weighted by length.
///
/// Any increasing subsequence that takes one row of a run can take the whole run
/// (the run's positions are consecutive, so nothing else lies between them), so
/// a longest increasing subsequence of rows is made of whole runs: the heaviest
/// increasing sequence of runs. Runs have disjoint position ranges, so ordering
/// them by first position orders them entirely; a Fenwick tree over that order
/// gives the heaviest sequence ending before each run.
///
/// - Parameter keep: called with the index (in `runs`) of every run kept.
/// - Complexity: O(*r* log *r*), where *r* is the number of runs.
func _heaviestIncreasingRuns(_ runs: UnsafeBufferPointer<_Run>, scratch: inout _RunScratch, keep: (Int) -> Void) {
    let r = runs.count
    if r == 0 { return }
    // Rank of every run by first position.
    scratch.order.removeAll(keepingCapacity: true)
    scratch.order.append(contentsOf: 0..<Int32(r))
    scratch.order.sort { runs[Int($0)].first < runs[Int($1)].first }
    scratch.rank.removeAll(keepingCapacity: true)
    scratch.rank.append(contentsOf: repeatElement(0, count: r))
    for (position, k) in scratch.order.enumerated() { scratch.rank[Int(k)] = Int32(position + 1) }
    // A Fenwick tree over ranks: the heaviest sequence (weight, last run) in a prefix.
    scratch.heaviest.reset(count: r)
    scratch.parent.removeAll(keepingCapacity: true)
    scratch.parent.append(contentsOf: repeatElement(-1, count: r))
    let rank = scratch.rank
    var best = (weight: 0, run: -1)
    for k in 0..<r {
        let position = Int(rank[k]) - 1
        let (weight, run) = scratch.heaviest.maximum(before: position)
        scratch.parent[k] = run
        let total = weight + Int(runs[k].length)
        if total > best.weight { best = (total, k) }
        scratch.heaviest.increase(position, to: total, payload: Int32(k))
    }
    var k = best.run
    while k >= 0 {
        keep(k)
        k = Int(scratch.parent[k])
    }
}

/// Buffers for `_heaviestIncreasingRuns`, reused from one section to the next.
struct _RunScratch {
    var order: [Int32] = [], rank: [Int32] = [], parent: [Int32] = []
    var heaviest = _FenwickMaximum()
}
