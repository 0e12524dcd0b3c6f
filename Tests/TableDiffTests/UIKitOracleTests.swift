import TableDiff
import TableTestSupport
import Testing

/// The oracle must catch broken changesets, or the property tests prove nothing.
@Suite struct UIKitOracleTests {
    /// Removes one change from a valid stage, or moves one index: the oracle must object.
    @Test func oracleRejectsCorruptedChangesets() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        var corrupted = 0, caught = 0
        for _ in 0..<3_000 {
            let (old, new) = TableGenerator.pair(.sectioned, &g)
            var changeset = TableChangeset(from: old, to: new)
            guard !changeset.stages.isEmpty else { continue }
            let k = g.int(0..<changeset.stages.count)
            var u = changeset.stages[k].update
            switch g.int(0..<6) {
            case 0 where !u.reloadedRows.isEmpty: u.reloadedRows.remove(at: g.int(0..<u.reloadedRows.count))
            case 1 where !u.deletedRows.isEmpty: u.deletedRows.remove(at: g.int(0..<u.deletedRows.count))
            case 2 where !u.insertedRows.isEmpty: u.insertedRows.remove(at: g.int(0..<u.insertedRows.count))
            case 3 where !u.movedRows.isEmpty:
                let i = g.int(0..<u.movedRows.count)
                u.movedRows[i].to.row += 1
            case 4 where !u.movedSections.isEmpty: u.movedSections.removeAll()
            case 5 where !u.movedRows.isEmpty:
                // A moved row turned into a delete and an insert.
                let m = u.movedRows.remove(at: g.int(0..<u.movedRows.count))
                u.deletedRows.append(m.from)
                u.insertedRows.append(m.to)
            default: continue
            }
            changeset.stages[k].update = u
            corrupted += 1
            if !UIKitOracle.problems(of: changeset, from: old, to: new).isEmpty { caught += 1 }
        }
        #expect(corrupted > 500)
        expectEqual(caught, corrupted, "seed \(seed): the oracle missed \(corrupted - caught) of \(corrupted) corrupted changesets")
    }

    @Test func oracleNamesAMissingReload() {
        let old = table([("A", [1, 2, 3])])
        var new = old
        new[0].rows[1].content = 1
        let stale = TableChangeset<Item>(stages: [.init(update: BatchUpdate(), sections: new)])
        let problems = UIKitOracle.problems(of: stale, from: old, to: new)
        #expect(problems.contains { $0.contains("after all stages the table shows A: 1 2 3") })
    }
}
