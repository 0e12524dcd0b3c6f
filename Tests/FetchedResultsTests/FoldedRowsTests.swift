import Foundation
@testable import FetchedResults
import PredicateFormat
import Records
import TableTestSupport
import Testing

/// The folded index on its own: built past the rows it sizes its bytes from,
/// then changed row by row — the first change writes the slots, enough
/// removals compact it (back to no slots) — and after every few changes each
/// search's candidates are the positions whose names contain the text, found
/// by hand.
@Suite struct FoldedRowsTests {
    /// ASCII names (folding is lowercasing) of a few letters and spaces,
    /// some missing.
    static func name(_ g: inout SeededGenerator) -> String? {
        if g.chance(0.05) { return nil }
        let letters = Array("abcAB kz")
        return String((0..<g.int(0...12)).map { _ in letters[g.int(0..<letters.count)] })
    }

    static let texts = ["a", "b", "ab", "ba", "k", "z", " ", "aab", "kz", "bb a"]

    static func searches() throws -> [(text: String, search: _IndexedSearch)] {
        try texts.map { text in
            let predicate = try FormatPredicate(format: "name CONTAINS[cd] %@", arguments: [.string(text)])
            return (text, try #require(_IndexedSearch(predicate)))
        }
    }

    @Test(arguments: 1...TestScale.cases(1, full: 3))
    func everyChangeKeepsTheCandidatesThoseByHand(round: Int) throws {
        let seed = SeededGenerator.runSeed() &+ UInt64(round)
        var g = SeededGenerator(seed: seed)
        let searches = try Self.searches()
        // Past the 4,096 rows the bytes' room is sized from.
        var names = (0..<(4_096 + g.int(0...2_000))).map { _ in Self.name(&g) }
        var rows = _FoldedRows(keyCount: 1, capacity: names.count)
        for name in names { rows.append([name.map(RecordValue.string)]) }

        func check(_ step: Int) {
            expectEqual(rows.count, names.count, "seed \(seed), step \(step)")
            for (text, search) in searches {
                let byHand = names.indices.filter { names[$0]?.lowercased().contains(text) == true }.map { Int32($0) }
                let found = rows.candidates(search, among: nil)
                let same = found == byHand   // (not in the expectation: a failure would print every position)
                #expect(same, "seed \(seed), step \(step), \(text.debugDescription): \(found.count) found, \(byHand.count) by hand, the first difference at \(found.indices.first { $0 >= byHand.count || found[$0] != byHand[$0] } ?? found.count)")
            }
            #expect((0..<names.count).allSatisfy { rows.kind(at: $0) == _FoldedRows.exact }, "seed \(seed), step \(step)")
        }
        check(0)
        var entriesMade = names.count
        // Mostly removals, so that the unused entries pass half of all and
        // the rows are compacted (once or more): about 3,600 removed of at
        // most 6,096 + 400 entries, hundreds of removals to spare whatever the
        // seed (at 85 %, a seed with 6,000 rows could miss it); then as many
        // insertions.
        for step in 1...6_000 {
            if !names.isEmpty && (step <= 4_000 ? g.chance(0.9) : g.chance(0.3)) {
                let position = g.int(0..<names.count)
                names.remove(at: position)
                rows.remove(at: position)
            } else {
                let position = g.int(0...names.count)
                let name = Self.name(&g)
                names.insert(name, at: position)
                rows.insert([name.map(RecordValue.string)], at: position)
                entriesMade += 1
            }
            if step % 500 == 0 { check(step) }
        }
        // Out of range: nothing changes.
        rows.remove(at: names.count)
        rows.remove(at: -1)
        check(6_001)
        #expect(rows.entryCount < entriesMade, "seed \(seed): the removals compacted the rows")
    }
}
