import Foundation
@testable import HeadlessTableTool
import TableTestSupport
import Testing
import ToolArguments

/// The parser and its edit distance against independent oracles, on seeded
/// random inputs.
@Suite struct ArgumentParserPropertyTests {
    /// Optimal string alignment distance by plain recursion with memo (the oracle).
    static func oracle(_ a: [Character], _ b: [Character]) -> Int {
        var memo: [Int: Int] = [:]
        func d(_ i: Int, _ j: Int) -> Int {
            if i == 0 { return j }
            if j == 0 { return i }
            if let known = memo[i * 1000 + j] { return known }
            var best = min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] == b[j - 1] ? 0 : 1))
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { best = min(best, d(i - 2, j - 2) + 1) }
            memo[i * 1000 + j] = best
            return best
        }
        return d(a.count, b.count)
    }

    @Test func editDistanceAgreesWithTheOracle() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let letters: [Character] = ["a", "b", "c", "-", "é"]
        for _ in 0..<2_000 {
            let a = String((0..<g.int(0...8)).map { _ in letters[g.int(0..<letters.count)] })
            let b = String((0..<g.int(0...8)).map { _ in letters[g.int(0..<letters.count)] })
            let limit = g.int(0...4)
            let expected = min(limit + 1, Self.oracle(Array(a), Array(b)))
            expectEqual(EditDistance.distance(a, b, limit: limit), expected, "seed \(seed): \(a) \(b) limit \(limit)")
        }
    }

    /// Options and positionals in any order, spelled `--name value` or
    /// `--name=value`, parse to the same values; the declared defaults fill in.
    @Test func orderAndSpellingDoNotMatter() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let command = RenderCommand.declaration
        for _ in 0..<300 {
            var words: [[String]] = [["DATA.json"]]
            var expected: [String: String] = [:]
            for option in command.options where g.chance(0.4) && option.kind != .flag && !option.valueIsOptional && !option.repeatable {
                if option.name == "offset" && expected["row"] != nil || option.name == "row" && expected["offset"] != nil { continue }
                if option.requires.map({ expected[$0] == nil }) ?? false { continue }
                let value: String
                switch option.kind {
                case .integer(_, let range): value = String(g.int(range.lowerBound...min(range.upperBound, 500)))
                case .choice(let words): value = words[g.int(0..<words.count)]
                default: value = "v\(g.int(0...9))"
                }
                expected[option.name] = value
                words.append(g.chance(0.5) ? [option.spelled, value] : ["\(option.spelled)=\(value)"])
            }
            words.shuffle(using: &g)
            let parsed = try ArgumentParser.parse(words.flatMap { $0 }, command: command)
            expectEqual(parsed.positional("DATA"), "DATA.json")
            for option in command.options where !option.repeatable && !option.valueIsOptional {
                #expect(parsed.string(option.name) == expected[option.name] ?? option.defaultValue, "seed \(seed): \(words)")
            }
        }
    }
}
