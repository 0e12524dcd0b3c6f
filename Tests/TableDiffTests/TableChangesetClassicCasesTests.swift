import TableDiff
import TableSnapshotTesting
import TableTestSupport
import Testing

/// The classic cases, as text snapshots: read them like code.
@Suite struct TableChangesetClassicCasesTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var old: [(String, [Int])]
        var new: [(String, [Int])]
        /// Identities whose content changes.
        var changed: Set<Int> = []
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "no change", old: [("", [1, 2, 3])], new: [("", [1, 2, 3])]),
        Case(name: "insert at start and end", old: [("", [1, 2, 3])], new: [("", [0, 1, 2, 3, 4])]),
        Case(name: "delete", old: [("", [1, 2, 3, 4])], new: [("", [1, 3])]),
        Case(name: "move one row down", old: [("", [1, 2, 3, 4, 5])], new: [("", [2, 3, 4, 1, 5])]),
        Case(name: "swap two rows", old: [("", [1, 2, 3])], new: [("", [3, 2, 1])]),
        Case(name: "reverse", old: [("", [1, 2, 3, 4, 5])], new: [("", [5, 4, 3, 2, 1])]),
        Case(name: "update in place", old: [("", [1, 2, 3])], new: [("", [1, 2, 3])], changed: [2]),
        Case(name: "update while others shift", old: [("", [1, 2, 3, 4])], new: [("", [0, 1, 3, 4])], changed: [3]),
        Case(name: "update and move", old: [("", [1, 2, 3])], new: [("", [2, 3, 1])], changed: [1]),
        Case(name: "edited entry jumps to the top", old: [("", [1, 2, 3, 4, 5, 6])], new: [("", [5, 1, 2, 3, 4, 6])], changed: [5]),
        Case(name: "everything at once in one section", old: [("", [1, 2, 3, 4, 5, 6])], new: [("", [7, 4, 1, 3, 8, 6])], changed: [3, 6]),
        Case(name: "move across sections", old: [("A", [1, 2]), ("B", [3])], new: [("A", [2]), ("B", [1, 3])]),
        Case(name: "insert delete and move sections", old: [("A", [1]), ("B", [2]), ("C", [3])], new: [("C", [3]), ("D", [4]), ("A", [1])]),
        Case(name: "row into an inserted section", old: [("A", [1, 2])], new: [("A", [1]), ("B", [2, 9])]),
        Case(name: "row out of a deleted section", old: [("A", [1]), ("B", [2, 3])], new: [("A", [1, 3])]),
        Case(name: "section renamed with its rows", old: [("A", [1, 2]), ("B", [3])], new: [("B", [3]), ("Z", [1, 2])]),
        Case(name: "section key changed and content updated", old: [("2024", [1, 2]), ("2025", [3])], new: [("2025", [3, 1]), ("2026", [2])], changed: [1, 2]),
        Case(name: "duplicate ids", old: [("", [1, 1, 2, 3, 3])], new: [("", [3, 1, 2, 2, 1])]),
        Case(name: "duplicate section names", old: [("A", [1]), ("A", [2])], new: [("A", [2]), ("B", [1])]),
        Case(name: "from empty", old: [], new: [("A", [1, 2]), ("B", [])]),
        Case(name: "to empty", old: [("A", [1, 2]), ("B", [3])], new: []),
        Case(name: "empty sections", old: [("A", []), ("B", [])], new: [("B", []), ("C", [])]),
    ]

    @Test func classicCases() {
        var text = ""
        for c in Self.cases {
            let old = table(c.old)
            var new = table(c.new)
            for t in new.indices {
                for r in new[t].rows.indices where c.changed.contains(new[t].rows[r].id) { new[t].rows[r].content = 1 }
            }
            let changeset = TableChangeset(from: old, to: new)
            #expect(UIKitOracle.problems(of: changeset, from: old, to: new).isEmpty, "\(c.name)")
            text += "## \(c.name)\n"
            text += "old: \(describe(old))\n"
            text += "new: \(describe(new))\n"
            for line in changeset.logLines(from: old, describeRow: \.description) { text += line + "\n" }
            for (k, stage) in changeset.stages.enumerated() where changeset.stages.count > 1 {
                text += "data after stage \(k + 1): \(describe(stage.sections))\n"
            }
            text += "\n"
        }
        assertTextSnapshot(of: text)
    }
}
