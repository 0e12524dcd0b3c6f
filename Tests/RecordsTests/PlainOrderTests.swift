import Foundation
@testable import PredicateFormat
@testable import Records
import TableTestSupport
import Testing

/// The plain string order against an oracle that normalizes whole strings
/// (the standard library's NFC) and compares their bytes: every pair of
/// strings of up to two pieces, chosen where normalization bites — marks that
/// compose, marks that reorder, Hangul jamo, Tibetan vowels that decompose,
/// strings that are prefixes of one another.
@Suite struct PlainOrderTests {
    static let pieces = ["a", "e", "Z", "\u{0}", "é", "\u{301}", "\u{323}", "\u{302}", "ộ", "Ω", "Ώ", "\u{0F73}", "\u{0F71}",
                         "\u{0F72}", "\u{1100}", "\u{1161}", "가", "\u{11A8}", "中", "🇫🇷"]

    static func oracle(_ a: String, _ b: String) -> Int {
        let (x, y) = (a._nfcCodeUnits, b._nfcCodeUnits)
        return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
    }

    @Test func everyPairOfShortStringsOrdersAsTheirNFCForms() {
        var strings = [""] + Self.pieces
        for p in Self.pieces { for q in Self.pieces { strings.append(p + q) } }
        var wrong: [String] = []
        for a in strings {
            for b in strings where _comparePlain(a, b) != Self.oracle(a, b) {
                wrong.append("\(a.unicodeScalars.map { String($0.value, radix: 16) }) vs \(b.unicodeScalars.map { String($0.value, radix: 16) })")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
    }

    /// Longer random strings with a shared stem, so that differences fall
    /// late and after long equal runs; the order is also the `==` of the
    /// standard library where it says equal.
    @Test func randomStringsOrderAsTheirNFCForms() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        func random() -> String {
            (g.chance(0.5) ? "Eriksson " : "") + (0..<g.int(0...6)).map { _ in Self.pieces[g.int(0..<Self.pieces.count)] }.joined()
        }
        for _ in 0..<20_000 {
            let (a, b) = (random(), random())
            let order = _comparePlain(a, b)
            expectEqual(order, Self.oracle(a, b), "seed \(seed): \(Array(a.unicodeScalars)) vs \(Array(b.unicodeScalars))")
            expectEqual(order, -_comparePlain(b, a))
            expectEqual((order == 0), (a == b), "seed \(seed)")
        }
    }

    /// Predicates compare strings in the same order as sorting does.
    @Test func predicatesCompareStringsPlainlyToo() throws {
        for (a, b) in [("Ω", "Ω\u{301}"), ("Ώ", "Ω"), ("u\u{308}", "üa"), ("가\u{11A8}", "각"), ("a\u{323}\u{302}", "ậ")] {
            let object: RecordValue = ["a": .string(a)]
            let oracle = Self.oracle(a, b)
            try expectEqual(FormatPredicate(format: "a < %@", arguments: [.string(b)]).evaluate(with: object), (oracle < 0), "\(a) < \(b)")
            try expectEqual(FormatPredicate(format: "a > %@", arguments: [.string(b)]).evaluate(with: object), (oracle > 0), "\(a) > \(b)")
            try expectEqual(FormatPredicate(format: "a == %@", arguments: [.string(b)]).evaluate(with: object), (oracle == 0), "\(a) == \(b)")
        }
    }
}
