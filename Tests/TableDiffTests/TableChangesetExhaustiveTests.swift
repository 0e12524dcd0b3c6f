import TableDiff
import TableTestSupport
import Testing

/// Every small case: every permutation of up to 5 rows, with every split of the
/// old and the new rows into up to 3 sections; every arrangement of a subset of
/// rows plus new ones; every naming of the new sections. Each changeset is
/// replayed by the UIKit oracle.
@Suite struct TableChangesetExhaustiveTests {
    /// Every way to cut `count` rows into exactly `parts` sections (empty ones too).
    static func splits(_ count: Int, into parts: Int) -> [[Int]] {
        if parts == 1 { return [[count]] }
        return (0...count).flatMap { first in splits(count - first, into: parts - 1).map { [first] + $0 } }
    }

    /// Every split into 1, 2 or 3 sections.
    static func splits(_ count: Int) -> [[Int]] { (1...3).flatMap { splits(count, into: $0) } }

    static func permutations(_ items: [Int]) -> [[Int]] {
        if items.count <= 1 { return [items] }
        return items.indices.flatMap { k in
            var rest = items
            let first = rest.remove(at: k)
            return permutations(rest).map { [first] + $0 }
        }
    }

    static func sections(_ rows: [Item], _ sizes: [Int], names: [String]) -> Table {
        var start = 0
        return zip(sizes, names).map { size, name in
            defer { start += size }
            return TableSection(name: name, rows: Array(rows[start..<(start + size)]))
        }
    }

    static func check(_ old: Table, _ new: Table) -> [String] {
        let problems = UIKitOracle.problems(of: TableChangeset(from: old, to: new), from: old, to: new)
        return problems.isEmpty ? [] : ["\(describe(old)) → \(describe(new)): \(problems.joined(separator: "; "))"]
    }

    /// Permutations of n ≤ 5 rows; old and new split every way into ≤ 3
    /// sections named A, B, C; optionally the first row's content changed.
    @Test(arguments: 0...TestScale.cases(3, full: 5))
    func everyPermutationAndSplit(rows n: Int) {
        let names = ["A", "B", "C"]
        let old = (0..<n).map { Item(id: $0) }
        var failures: [String] = []
        var cases = 0
        for permutation in Self.permutations(Array(0..<n)) {
            for changed in n == 0 ? [false] : [false, true] {
                let new = permutation.map { Item(id: $0, content: changed && $0 == 0 ? 1 : 0) }
                for oldSplit in Self.splits(n) {
                    for newSplit in Self.splits(n) {
                        cases += 1
                        failures += Self.check(Self.sections(old, oldSplit, names: names), Self.sections(new, newSplit, names: names))
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of \(cases) cases: \(failures.prefix(5).joined(separator: "\n"))")
    }

    /// Permutations of n ≤ 3 rows split every way, with every naming of the new
    /// sections from A–D (sections inserted, deleted, moved, renamed).
    @Test(arguments: 0...TestScale.cases(2, full: 3))
    func everyNamingOfSections(rows n: Int) {
        let old = (0..<n).map { Item(id: $0) }
        var failures: [String] = []
        var cases = 0
        for permutation in Self.permutations(Array(0..<n)) {
            let new = permutation.map { Item(id: $0) }
            for oldSplit in Self.splits(n) {
                for newSplit in Self.splits(n) {
                    for names in Self.permutations(Array(0..<4)).map({ $0.prefix(newSplit.count).map { ["A", "B", "C", "D"][$0] } }) {
                        cases += 1
                        failures += Self.check(
                            Self.sections(old, oldSplit, names: ["A", "B", "C"]), Self.sections(new, newSplit, names: names))
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of \(cases) cases: \(failures.prefix(5).joined(separator: "\n"))")
    }

    /// One section: old rows 0..<n (n ≤ 5), new rows every arrangement of any
    /// subset of them plus up to two new rows (deletes, inserts, moves at once).
    @Test(arguments: 0...5)
    func everyArrangementWithInsertsAndDeletes(rows n: Int) {
        let pool = Array(0..<n) + [100, 101]
        var failures: [String] = []
        var cases = 0
        func arrangements(_ prefix: [Int], _ remaining: [Int]) {
            cases += 1
            let old = [TableSection(name: "", rows: (0..<n).map { Item(id: $0) })]
            let new = [TableSection(name: "", rows: prefix.map { Item(id: $0) })]
            failures += Self.check(old, new)
            guard prefix.count < 5 else { return }
            for (k, next) in remaining.enumerated() {
                var rest = remaining
                rest.remove(at: k)
                arrangements(prefix + [next], rest)
            }
        }
        arrangements([], pool)
        #expect(failures.isEmpty, "\(failures.count) of \(cases) cases: \(failures.prefix(5).joined(separator: "\n"))")
    }
}
