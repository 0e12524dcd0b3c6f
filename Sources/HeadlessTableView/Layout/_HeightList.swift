import TableDiff
import InternalTableUtilities

/// The heights of a section's rows, in chunks of at most 256 rows, with
/// Fenwick trees over the chunks' row counts and heights.
///
/// A chunk whose rows all have one height keeps just the height and the
/// count, so a million rows of a fixed height take a few thousand chunks and no
/// per-row memory; a chunk becomes a list of heights when one of its rows is
/// measured differently.
///
/// Finding the row at an offset, the offset of a row, and changing, inserting
/// or removing one row's height cost O(log *n* + 256); splitting or emptying a
/// chunk rebuilds the trees, O(*n* / 128).
struct _HeightList {
    enum Chunk {
        case uniform(count: Int, height: Double)
        case heights([Double])

        var count: Int {
            switch self {
            case .uniform(let count, _): count
            case .heights(let heights): heights.count
            }
        }

        var sum: Double {
            switch self {
            case .uniform(let count, let height): Double(count) * height
            case .heights(let heights): heights.reduce(0, +)
            }
        }

        func height(at i: Int) -> Double {
            switch self {
            case .uniform(_, let height): height
            case .heights(let heights): heights[i]
            }
        }

        /// The heights of the first `i` rows, added.
        func offset(of i: Int) -> Double {
            switch self {
            case .uniform(_, let height): Double(i) * height
            case .heights(let heights): heights[..<i].reduce(0, +)
            }
        }

        var explicit: [Double] {
            switch self {
            case .uniform(let count, let height): [Double](repeating: height, count: count)
            case .heights(let heights): heights
            }
        }
    }

    static let chunkSize = 128
    static let maxChunk = 256

    private(set) var chunks: [Chunk] = []
    var counts = _Fenwick<Int>([])
    var sums = _Fenwick<Double>([])

    /// `count` rows of one height.
    init(count: Int, height: Double) {
        var remaining = count
        while remaining > 0 {
            let n = Swift.min(Self.chunkSize, remaining)
            chunks.append(.uniform(count: n, height: height))
            remaining -= n
        }
        rebuild()
    }

    /// Rows of the given heights.
    init(heights: [Double]) {
        var start = 0
        while start < heights.count {
            let end = Swift.min(heights.count, start + Self.chunkSize)
            chunks.append(.heights(Array(heights[start..<end])))
            start = end
        }
        rebuild()
    }

    private mutating func rebuild() {
        counts = _Fenwick(chunks.map(\.count))
        sums = _Fenwick(chunks.map(\.sum))
    }

    var count: Int { counts.total }
    var total: Double { sums.total }

    /// The chunk holding row `i` (0 ≤ i < count), and the row's place in it.
    private func locate(_ i: Int) -> (chunk: Int, offset: Int) {
        let (k, remainder) = counts.find(i)
        return (k, remainder)
    }

    func height(at i: Int) -> Double {
        let (k, j) = locate(i)
        return chunks[k].height(at: j)
    }

    /// The heights of the rows before row `i`, added (`i` may be `count`).
    func offset(of i: Int) -> Double {
        if i >= count { return total }
        let (k, j) = locate(i)
        return sums.prefix(k) + chunks[k].offset(of: j)
    }

    /// The row whose span holds `y`, measured from the first row's top; nil
    /// when `y` is negative or at or past the last row's bottom.
    func index(atOffset y: Double) -> Int? {
        guard y >= 0, y < total else { return nil }
        var (k, remainder) = sums.find(y)
        // Rounding can leave `y` just past the last chunk.
        if k >= chunks.count { k = chunks.count - 1; remainder = chunks[k].sum }
        let rowsBefore = counts.prefix(k)
        switch chunks[k] {
        case .uniform(let n, let height):
            let j = height > 0 ? Int(remainder / height) : 0
            return rowsBefore + Swift.min(j, n - 1)
        case .heights(let heights):
            var top = 0.0
            for (j, h) in heights.enumerated() {
                if remainder < top + h { return rowsBefore + j }
                top += h
            }
            return rowsBefore + heights.count - 1
        }
    }

    mutating func setHeight(_ height: Double, at i: Int) {
        let (k, j) = locate(i)
        let old = chunks[k].height(at: j)
        guard old != height else { return }
        var heights = chunks[k].explicit
        heights[j] = height
        chunks[k] = .heights(heights)
        sums.add(height - old, at: k)
    }

    /// Inserts a row of `height` before row `i` (`i` may be `count`).
    mutating func insert(_ height: Double, at i: Int) {
        if chunks.isEmpty {
            chunks = [.uniform(count: 1, height: height)]
            rebuild()
            return
        }
        let (k, j) = i >= count ? (chunks.count - 1, chunks[chunks.count - 1].count) : locate(i)
        switch chunks[k] {
        case .uniform(let n, let h) where h == height:
            chunks[k] = .uniform(count: n + 1, height: h)
        default:
            var heights = chunks[k].explicit
            heights.insert(height, at: j)
            chunks[k] = .heights(heights)
        }
        if chunks[k].count > Self.maxChunk {
            let heights = chunks[k].explicit
            let half = heights.count / 2
            chunks[k] = Self.compact(Array(heights[..<half]))
            chunks.insert(Self.compact(Array(heights[half...])), at: k + 1)
            rebuild()
        } else {
            counts.add(1, at: k)
            sums.add(height, at: k)
        }
    }

    /// Removes row `i` and returns its height.
    @discardableResult
    mutating func remove(at i: Int) -> Double {
        let (k, j) = locate(i)
        let height = chunks[k].height(at: j)
        switch chunks[k] {
        case .uniform(let n, let h):
            chunks[k] = .uniform(count: n - 1, height: h)
        case .heights(var heights):
            heights.remove(at: j)
            chunks[k] = .heights(heights)
        }
        if chunks[k].count == 0 {
            chunks.remove(at: k)
            rebuild()
        } else {
            counts.add(-1, at: k)
            sums.add(-height, at: k)
        }
        return height
    }

    /// A chunk of these heights: uniform when they are all equal.
    static func compact(_ heights: [Double]) -> Chunk {
        if let first = heights.first, heights.allSatisfy({ $0 == first }) { return .uniform(count: heights.count, height: first) }
        return .heights(heights)
    }
}
