import TableDiff
import TableTestSupport
import Testing

/// Random batches, built by simulating UIKit forward (what leaves, what arrives
/// where), then sometimes corrupted: the library's checks, its application to a
/// value model, and its index path mapping must agree with the oracle.
@Suite struct BatchUpdatePropertyTests {
    @Test func validBatchesAgreeWithTheOracle() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        var withRowMoves = 0, withSectionMoves = 0, withReloads = 0, withSectionChanges = 0
        defer {
            #expect(withRowMoves > 800 && withSectionMoves > 500 && withReloads > 500 && withSectionChanges > 1_500,
                    "the generator covers too little: \(withRowMoves) \(withSectionMoves) \(withReloads) \(withSectionChanges)")
        }
        for _ in 0..<3_000 {
            let c = BatchGenerator.generate(&g)
            if !c.update.movedRows.isEmpty { withRowMoves += 1 }
            if !c.update.movedSections.isEmpty { withSectionMoves += 1 }
            if !c.update.reloadedRows.isEmpty { withReloads += 1 }
            if !(c.update.insertedSections + c.update.deletedSections + c.update.reloadedSections).isEmpty { withSectionChanges += 1 }
            let context = "seed \(seed): \(describe(c.displayed)) with \(c.update.logLines().joined(separator: "; "))"
            guard case .success(let oracle) = UIKitOracle.replay(c.update, displayed: c.displayed, data: c.data) else {
                Issue.record("the oracle refuses a batch built to be valid: \(context)")
                return
            }
            expectEqual(oracle, c.expected, "\(context)")
            let shown = try c.update.applying(to: c.displayed, dataSource: c.data)
            expectEqual(shown, c.expected, "\(context)")

            // The mapping sends every row where it ends up, and back.
            let mapping = try c.update.validate(rowCountsBefore: c.displayed.rowCounts(), rowCountsAfter: c.data.rowCounts())
            var whereIs: [Int: TablePath] = [:]
            for (t, section) in shown.enumerated() {
                for (r, item) in section.rows.enumerated() { whereIs[item.id] = TablePath(row: r, section: t) }
            }
            let gone = Set(c.update.deletedRows), reloaded = Set(c.update.reloadedRows)
            for (s, section) in c.displayed.enumerated() {
                for (r, item) in section.rows.enumerated() {
                    let p = TablePath(row: r, section: s)
                    let lost = gone.contains(p) || c.update.deletedSections.contains(s) || c.update.reloadedSections.contains(s)
                    let expected = lost ? nil : whereIs[item.id]
                    expectEqual(mapping.newIndexPath(forOld: p), expected, "\(context): \(p)")
                    if let expected { expectEqual(mapping.oldIndexPath(forNew: expected), p, "\(context): back from \(expected)") }
                    expectEqual(mapping.isRowReloaded(old: p), (reloaded.contains(p) || c.update.reloadedSections.contains(s)))
                }
            }
            for p in c.update.insertedRows { #expect(mapping.oldIndexPath(forNew: p) == nil, "\(context): inserted \(p)") }
        }
    }

    @Test func corruptedBatchesAreRefusedAlike() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        var refused = 0
        for _ in 0..<3_000 {
            let c = BatchGenerator.generate(&g)
            var update = c.update
            BatchGenerator.corrupt(&update, &g)
            let oracle = UIKitOracle.replay(update, displayed: c.displayed, data: c.data)
            let library = Result { () throws(BatchUpdateError) in try update.applying(to: c.displayed, dataSource: c.data) }
            let context = "seed \(seed): \(describe(c.displayed)) with \(update.logLines().joined(separator: "; "))"
            switch (oracle, library) {
            case (.success(let a), .success(let b)): expectEqual(a, b, "\(context)")
            case (.failure, .failure): refused += 1
            case (.success, .failure(let error)): Issue.record("the library refuses, the oracle accepts: \(error)\n\(context)")
            case (.failure(let refusal), .success): Issue.record("the oracle refuses (\(refusal)), the library accepts\n\(context)")
            }
        }
        #expect(refused > 1_000, "seed \(seed): too few corrupted batches were invalid (\(refused))")
    }
}
