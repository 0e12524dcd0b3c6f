import TableDiff
import TableTestSupport
import Testing

/// Random pairs of tables: every changeset is replayed by the UIKit oracle.
@Suite struct TableChangesetPropertyTests {
    @Test(arguments: TableGenerator.Shape.allCases)
    func randomPairsReplayUnderUIKitRules(shape: TableGenerator.Shape) {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ UInt64(TableGenerator.Shape.allCases.firstIndex(of: shape)!))
        let pairs = TestScale.cases(500, full: 2_000)   // × 6 shapes: 12,000 pairs in the full run
        var failures = 0
        for _ in 0..<pairs {
            let (old, new) = TableGenerator.pair(shape, &g)
            let changeset = TableChangeset(from: old, to: new)
            let problems = UIKitOracle.problems(of: changeset, from: old, to: new)
            if !problems.isEmpty {
                failures += 1
                if failures <= 3 {
                    Issue.record("""
                        seed \(seed) (TABLE_TEST_SEED=\(seed) to replay), shape \(shape)
                        old: \(describe(old))
                        new: \(describe(new))
                        \(changeset)
                        \(problems.joined(separator: "\n"))
                        """)
                }
            }
        }
        expectEqual(failures, 0, "seed \(seed): \(failures) of \(pairs) pairs failed")
    }

    /// Thousands of tiny sections, many of them inserted, deleted, moved or renamed.
    @Test func thousandsOfTinySections() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<10 {
            var next = 0
            let old: Table = (0..<g.int(1_000...2_000)).map { s in
                TableSection(name: "S\(s)", rows: (0..<g.int(0...3)).map { _ in next += 1; return Item(id: next) })
            }
            var new = old.filter { _ in g.chance(0.97) }
            for k in 0..<g.int(0...40) { new.insert(TableSection(name: "N\(k)", rows: []), at: g.int(0...new.count)) }
            for _ in 0..<30 where new.count > 1 { new.swapAt(g.int(0..<new.count), g.int(0..<new.count)) }
            for _ in 0..<g.int(0...300) where new.count > 1 {
                let from = g.int(0..<new.count), to = g.int(0..<new.count)
                guard !new[from].rows.isEmpty else { continue }
                let item = new[from].rows.remove(at: g.int(0..<new[from].rows.count))
                new[to].rows.insert(g.chance(0.3) ? Item(id: item.id, content: 1) : item, at: g.int(0...new[to].rows.count))
            }
            let changeset = TableChangeset(from: old, to: new)
            let problems = UIKitOracle.problems(of: changeset, from: old, to: new)
            #expect(problems.isEmpty, "seed \(seed): \(problems.prefix(3).joined(separator: "\n"))")
        }
    }

    /// In one section: moves are the fewest possible, and a changed row is kept in
    /// place (one stage) unless that costs more than two extra moves (then it
    /// moves and a second stage reloads it). Checked against brute force.
    @Test func flatMovesAreFewestAndStagesFewestWithinCost() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<TestScale.cases(1_000, full: 3_000) {
            // Small tables, and larger ones with long unchanged runs.
            let large = g.chance(0.3)
            let n = large ? g.int(20...80) : g.int(0...10)
            let old = (0..<n).map { Item(id: $0) }
            var new = old.filter { _ in g.chance(large ? 0.95 : 0.85) }
            if !large && g.chance(0.3) { new.shuffle(using: &g) }
            for _ in 0..<g.int(0...3) where new.count > 1 {
                let item = new.remove(at: g.int(0..<new.count))   // a few rows move
                new.insert(item, at: g.int(0...new.count))
            }
            for k in new.indices where g.chance(large ? 0.03 : 0.25) { new[k].content = 1 }
            if g.chance(0.3) { new.insert(Item(id: 100), at: g.int(0...new.count)) }
            let changeset = TableChangeset(from: old, to: new)

            let paired = new.filter { $0.id < 100 }
            let positions = paired.map(\.id)               // old index of each paired row, in new order
            let changed = paired.map { $0.content != 0 }
            // Longest increasing run, and the longest one that keeps every changed row (O(n²)).
            var best = [Int](repeating: 1, count: positions.count)
            var bestKeeping = [Int?](repeating: nil, count: positions.count)
            for k in positions.indices {
                for l in 0..<k where positions[l] < positions[k] { best[k] = max(best[k], best[l] + 1) }
                if !changed[..<k].contains(true) { bestKeeping[k] = 1 }
                for l in 0..<k where positions[l] < positions[k] && !changed[(l + 1)..<k].contains(true) {
                    if let b = bestKeeping[l] { bestKeeping[k] = max(bestKeeping[k] ?? 0, b + 1) }
                }
            }
            let l1 = best.max() ?? 0
            let ends = positions.indices.filter { !changed[($0 + 1)...].contains(true) }
            let l2: Int? = positions.isEmpty ? 0 : ends.compactMap { bestKeeping[$0] }.max()
            let oneStage = l2.map { l1 - $0 <= 2 } ?? false
            let expectedMoves = positions.count - (oneStage ? l2! : l1)
            let expectedStages = old == new ? 0 : (oneStage ? 1 : 2)

            let moves = changeset.stages.reduce(0) { $0 + $1.update.movedRows.count }
            #expect(moves == expectedMoves && changeset.stages.count == expectedStages,
                    "seed \(seed): \(old) → \(new): \(moves) moves in \(changeset.stages.count) stages, expected \(expectedMoves) in \(expectedStages)")
            #expect(UIKitOracle.problems(of: changeset, from: [TableSection(name: "", rows: old)], to: [TableSection(name: "", rows: new)]).isEmpty)
        }
    }
}
