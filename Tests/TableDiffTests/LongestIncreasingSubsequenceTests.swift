@testable import TableDiff
import TableTestSupport
import Testing

/// Both ways of choosing the rows that stay — row by row (patience sorting) and
/// run by run (heaviest increasing runs) — against an O(n²) longest increasing
/// subsequence.
@Suite struct LongestIncreasingSubsequenceTests {
    static func bruteForceLength(_ values: [Int32]) -> Int {
        var best = [Int](repeating: 1, count: values.count)
        for k in values.indices {
            for l in 0..<k where values[l] < values[k] { best[k] = max(best[k], best[l] + 1) }
        }
        return best.max() ?? 0
    }

    /// A permutation made of runs: blocks of consecutive values, blocks shuffled.
    static func runs(_ g: inout SeededGenerator) -> [Int32] {
        let n = g.int(0...60)
        var blocks: [[Int32]] = []
        var next: Int32 = 0
        while Int(next) < n {
            let length = Int32(min(g.int(1...12), n - Int(next)))
            blocks.append(Array(next..<(next + length)))
            next += length
        }
        if g.chance(0.8) {
            for _ in 0..<g.int(0...3) where blocks.count > 1 { blocks.swapAt(g.int(0..<blocks.count), g.int(0..<blocks.count)) }
        } else {
            blocks.shuffle(using: &g)
        }
        return blocks.flatMap { $0 }
    }

    static func check(_ values: [Int32], kept: [Int], seed: UInt64) {
        let sorted = kept.sorted()
        expectEqual(Set(kept).count, kept.count, "seed \(seed): an offset kept twice")
        #expect(zip(sorted, sorted.dropFirst()).allSatisfy { values[$0] < values[$1] }, "seed \(seed): \(values) kept \(sorted) is not increasing")
        expectEqual(kept.count, bruteForceLength(values), "seed \(seed): \(values) kept \(kept.count), longest is \(bruteForceLength(values))")
    }

    @Test func rowByRow() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<3_000 {
            let values = g.chance(0.5) ? Self.runs(&g) : (0..<Int32(g.int(0...30))).shuffled(using: &g)
            var kept: [Int] = []
            values.withUnsafeBufferPointer { buffer in _longestIncreasingSubsequence(buffer) { kept.append($0) } }
            Self.check(values, kept: kept, seed: seed)
        }
    }

    @Test func runByRun() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<3_000 {
            let values = g.chance(0.7) ? Self.runs(&g) : (0..<Int32(g.int(0...30))).shuffled(using: &g)
            var runs: [_Run] = []
            for (k, v) in values.enumerated() {
                if let last = runs.last, last.first + last.length == v { runs[runs.count - 1].length += 1 } else {
                    runs.append(_Run(start: Int32(k), length: 1, first: v))
                }
            }
            var kept: [Int] = []
            var scratch = _RunScratch()
            runs.withUnsafeBufferPointer { buffer in _heaviestIncreasingRuns(buffer, scratch: &scratch) { r in kept += Int(runs[r].start)..<Int(runs[r].start + runs[r].length) } }
            Self.check(values, kept: kept, seed: seed)
        }
    }

    /// Keeping every changed value when they are in order (the one-stage choice).
    @Test func keepingChangedValues() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<TestScale.cases(1_000, full: 3_000) {
            let values: [Int32] = (0..<Int32(g.int(0...10))).shuffled(using: &g)
            let changed = values.map { _ in g.chance(0.3) }
            let kept = _longestIncreasingKeeping(values: values[...], isChanged: { changed[$0] })
            let changedValues = values.indices.filter { changed[$0] }.map { values[$0] }
            let inOrder = zip(changedValues, changedValues.dropFirst()).allSatisfy { $0 < $1 }
            guard let kept else {
                #expect(!inOrder, "seed \(seed): \(values) with changed \(changed) has the changed values in order")
                continue
            }
            let sorted = kept.sorted()
            #expect(zip(sorted, sorted.dropFirst()).allSatisfy { values[$0] < values[$1] })
            #expect(values.indices.filter { changed[$0] }.allSatisfy(kept.contains))
            // The longest such subsequence, by brute force over subsets of compatible values.
            var best = 0
            for mask in 0..<(1 << values.count) {
                let picked = values.indices.filter { mask & (1 << $0) != 0 }
                guard values.indices.filter({ changed[$0] }).allSatisfy(picked.contains) else { continue }
                if zip(picked, picked.dropFirst()).allSatisfy({ values[$0] < values[$1] }) { best = max(best, picked.count) }
            }
            expectEqual(kept.count, best, "seed \(seed): \(values) changed \(changed): kept \(kept.count), best \(best)")
        }
    }
}
