import Foundation
import PredicateFormat
import Records
import TableTestSupport
import Testing

/// Random and mutated format strings: each parses or gets a syntax error,
/// and each predicate evaluates or gets an evaluation error — never a crash,
/// never a hang, and the same outcome on every evaluation path (interpreted,
/// compiled for a DynamicObject, compiled for a typed record). A predicate's
/// text parses back to the same text.
@Suite struct PredicateFuzzTests {
    static let vocabulary = [
        "name", "age", "tags", "friends", "address", "nickname", "x", "#like", "SELF", "self", "$X", "$f", "@count", "@sum", "@avg",
        "ANY", "ALL", "NONE", "SOME", "NOT", "AND", "OR", "&&", "||", "!", "TRUEPREDICATE", "FALSEPREDICATE", "nil", "YES", "NO",
        "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "BETWEEN", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE",
        "MATCHES", "[c]", "[cd]", "[n]", "[x]", "(", ")", "{", "}", "[", "]", ",", ".", "+", "-", "*", "/", "**", ":=",
        "0", "1", "-1", "2.5", "1e3", "0x1F", "0b2", "9223372036854775807", "1e999", "'a'", "'Björn'", "\"O'Brien\"", "'*'", "'?'",
        "'\\\\d+'", "'('", "'[a-z]+'", "'unterminated", "%@", "%K", "%d", "%f", "%%", "%", "FIRST", "LAST", "SIZE",
        "SUBQUERY(", "CAST(", "'NSDate'", "'NSNumber'", "count(", "sum:(", "multiply:by:(", "random(", "now()", "sqrt(",
        "leftshift:by:(", "uppercase(", "?", ";", "~", "é", "😀", "\u{301}", "\\", "\"", "'",
    ]

    static let corpus = [
        "name CONTAINS[cd] 'muller' AND age BETWEEN {20, 40}", "ANY friends.age > 40", "ALL tags MATCHES '[a-z]+'",
        "SUBQUERY(friends, $f, $f.age > 30).@count == 1", "(age + 5) * 2 == 70", "tags[SIZE] == 2 AND tags[FIRST] == 'swift'",
        "name LIKE[c] 'björn*'", "friends.@avg.age == 31.5", "NOT (age < 18 OR age > 65)", "%K == %@",
        "CAST(age, 'NSString') == '30'", "leftshift:by:(1, age) > 0", "count(tags) == sum({1, 2})", "x IN {1, 2, $X}",
        "address['city'] ==[cd] 'MUNCHEN'", "nickname == nil OR nickname.@count > 0", "2 ** 3 ** 2 == 64",
    ]

    static let objects: [RecordValue] = [
        ["name": "Björn Müller", "age": 30, "nickname": nil, "tags": ["swift", "go"], "x": 1.5,
         "friends": [["name": "Anna", "age": 22], ["name": "Émile", "age": nil]], "address": ["city": "München"], "like": "tea"],
        ["name": 5, "age": "thirty", "tags": "none", "friends": nil, "x": [1, [2]], "address": 7],
        [],
        "just a string",
    ]

    @Test func randomAndMutatedStringsNeverCrash() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        var (parsed, failedToParse, evaluated, failedToEvaluate, comparedPaths) = (0, 0, 0, 0, 0)
        let alphabet = Array("abz_AZ09 .,()[]{}'\"\\$%@#!=<>+-*/?:;&|~^éß😀\u{301}\t\n")
        for k in 0..<TestScale.cases(8_000, full: 40_000) {
            let format: String
            switch k % 3 {
            case 0:
                format = (0..<g.int(1...12)).map { _ in Self.vocabulary[g.int(0..<Self.vocabulary.count)] }
                    .joined(separator: g.chance(0.8) ? " " : "")
            case 1:
                var text = Array(g.chance(0.5) ? Self.corpus[g.int(0..<Self.corpus.count)] : PredicateTreeGenerator.condition(&g, depth: 3).description)
                for _ in 0..<g.int(1...3) where !text.isEmpty {
                    let at = g.int(0..<text.count)
                    switch g.int(0..<5) {
                    case 0: text.remove(at: at)
                    case 1: text.insert(alphabet[g.int(0..<alphabet.count)], at: at)
                    case 2: text[at] = alphabet[g.int(0..<alphabet.count)]
                    case 3: text.insert(contentsOf: text[at..<min(text.count, at + g.int(1...6))], at: at)
                    default: text.removeSubrange(at...)
                    }
                }
                format = String(text)
            default:
                format = String((0..<g.int(0...30)).map { _ in alphabet[g.int(0..<alphabet.count)] })
            }
            let predicate: FormatPredicate
            do {
                predicate = try FormatPredicate(format: format, arguments: ["name", 3, "x"])
                parsed += 1
            } catch {
                failedToParse += 1
                #expect(error.offset >= 0 && error.offset <= format.count, "seed \(seed): \(format)")
                continue
            }
            // The canonical text parses back to itself.
            let text = predicate.predicateFormat
            expectEqual((try? FormatPredicate(format: text).predicateFormat), text, "seed \(seed): \(format) printed as \(text)")
            let deterministic = !format.contains("random") && !format.contains("now")
            for object in Self.objects {
                let interpreted = Result { try predicate.evaluate(with: object, variables: ["X": 2]) }
                if case .success = interpreted { evaluated += 1 } else { failedToEvaluate += 1 }
                // Every evaluation path gives the same answer (or the same error).
                guard deterministic, case .record(let fields) = object else { continue }
                let expected = PredicateEvaluationTests.describe(interpreted)
                let dynamic = Result { try predicate.evaluate(with: DynamicObject(fields: fields), variables: ["X": 2]) }
                let typed = Result { try predicate.evaluate(with: PredicateEvaluationTests.TypedRecord(fields: fields), variables: ["X": 2]) }
                expectEqual(PredicateEvaluationTests.describe(dynamic), expected, "seed \(seed): \(format) on a DynamicObject")
                expectEqual(PredicateEvaluationTests.describe(typed), expected, "seed \(seed): \(format) on a typed record")
                comparedPaths += 1
            }
        }
        // The mix reaches every outcome.
        #expect(comparedPaths > TestScale.cases(300, full: 2_000), "\(comparedPaths) evaluations compared across paths")
        let enough = TestScale.cases(150, full: 1_000)
        #expect(parsed > enough && failedToParse > enough && evaluated > enough && failedToEvaluate > enough,
                "\(parsed) parsed, \(failedToParse) refused, \(evaluated) evaluated, \(failedToEvaluate) failed to evaluate")
    }

    /// Deep nesting is refused, not a stack overflow — on a thread with a small stack too.
    @Test func deepNestingIsAnErrorOnAnyThread() async throws {
        let formats = [
            String(repeating: "(", count: 5_000) + "a > 1" + String(repeating: ")", count: 5_000),
            String(repeating: "NOT ", count: 5_000) + "a > 1",
            "x == " + String(repeating: "{", count: 5_000) + String(repeating: "}", count: 5_000),
            "x == " + String(repeating: "-", count: 5_000) + "1",
            "x == " + String(repeating: "sqrt(", count: 5_000) + "1" + String(repeating: ")", count: 5_000),
            // Chains longer than 1,000 links (the tree as deep).
            "x == " + String(repeating: "1 + ", count: 5_000) + "1",
            "x == " + String(repeating: "2 ** ", count: 5_000) + "1",
            "a" + String(repeating: ".b", count: 5_000) + " == 1",
            "a" + String(repeating: "[0]", count: 5_000) + " == 1",
        ]
        // The deepest nesting the parser accepts (or refuses, when a debug
        // build's frames do not fit its stack budget), evaluated on a 512 KiB thread.
        let deepest = String(repeating: "(", count: 99) + "a > 1" + String(repeating: ")", count: 99)
        let chain = "x == " + String(repeating: "sqrt(", count: 98) + "16" + String(repeating: ")", count: 98)
        let ok = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let thread = Thread {
                var fine = true
                for format in formats { fine = fine && (try? FormatPredicate(format: format)) == nil }
                if let predicate = try? FormatPredicate(format: deepest) { fine = fine && (try? predicate.evaluate(with: ["a": 2])) == true }
                if let predicate = try? FormatPredicate(format: chain) { fine = fine && (try? predicate.evaluate(with: ["x": 2])) == false }
                // Twenty levels always fit, and so do chains of 150 (not with the
                // address sanitizer's much larger frames: there, only no crash).
                if !isRunningUnderAddressSanitizer {
                    let modest = "x == " + String(repeating: "sqrt(", count: 20) + "16" + String(repeating: ")", count: 20)
                    fine = fine && (try? FormatPredicate(format: modest).evaluate(with: ["x": 1])) == false
                    let sum = "x == " + String(repeating: "1 + ", count: 149) + "1"
                    fine = fine && (try? FormatPredicate(format: sum).evaluate(with: ["x": 150])) == true
                }
                continuation.resume(returning: fine)
            }
            thread.stackSize = 512 * 1024
            thread.start()
        }
        #expect(ok)
    }

    /// Chains are long, not deep: `age > 1 + 1 + …` with 150 flat terms
    /// parses and evaluates (the nesting limit counts nesting); chains are
    /// limited by their own count of links.
    @Test func flatChainsCountLinksNotNesting() async throws {
        let sum = "age > " + Array(repeating: "1", count: 150).joined(separator: " + ")
        #expect(try FormatPredicate(format: sum).evaluate(with: ["age": 151]))
        #expect(try !FormatPredicate(format: sum).evaluate(with: ["age": 150]))
        let longest = "x == " + Array(repeating: "1", count: 1_001).joined(separator: " + ")
        let tooLong = "x == " + Array(repeating: "1", count: 1_002).joined(separator: " + ")
        #expect((try? FormatPredicate(format: longest)) != nil)
        expectThrows(PredicateSyntaxError.self) { try FormatPredicate(format: tooLong) }
        do {
            _ = try FormatPredicate(format: tooLong)
        } catch {
            expectEqual(error.expected, "at most 1000 operators in a chain")
        }
        // Nesting inside a chain still counts as nesting, and chains inside nesting as links.
        let nested = "x == " + String(repeating: "(1 + ", count: 101) + "1" + String(repeating: ")", count: 101)
        expectThrows(PredicateSyntaxError.self) { try FormatPredicate(format: nested) }
        // The longest chains parse, evaluate, print and are dropped on a 512 KiB
        // thread, and parse (or are refused) and are dropped on a 64 KiB one.
        let outcomes = await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
            let thread = Thread {
                var outcomes: [String] = []
                let predicate = try? FormatPredicate(format: longest)
                outcomes.append((try? predicate?.evaluate(with: ["x": 1_001])).map { "\($0)" } ?? "failed")
                outcomes.append(predicate.map { "\($0.predicateFormat.count)" } ?? "failed")
                continuation.resume(returning: outcomes)
            }
            thread.stackSize = 512 * 1024
            thread.start()
        }
        expectEqual(outcomes, ["true", "\(longest.count)"])
        let small = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let thread = Thread {
                let parsed = (try? FormatPredicate(format: longest)) != nil
                continuation.resume(returning: parsed ? "parsed" : "refused")
            }
            thread.stackSize = 64 * 1024
            thread.start()
        }
        #expect(["parsed", "refused"].contains(small))
    }

    /// On a thread of 64 KiB of stack, deep nesting of every kind is a nesting
    /// error (or parses), never an overflow: the stack is checked from the
    /// first level.
    @Test func deepNestingOnASmallStack() async {
        let formats = [
            "x == " + String(repeating: "sqrt(", count: 12) + "16" + String(repeating: ")", count: 12),
            String(repeating: "(", count: 10_000) + "a > 1" + String(repeating: ")", count: 10_000),
            String(repeating: "NOT ", count: 10_000) + "a > 1",
            "x == " + String(repeating: "-", count: 10_000) + "1",
            "x IN " + String(repeating: "{", count: 10_000) + "1" + String(repeating: "}", count: 10_000),
        ]
        // Swift Testing records a backtrace at every `throw` (its willThrow
        // hook); the first one in a process instantiates metadata, which takes
        // more stack than a 64 KiB thread keeps below the parser's limit. A
        // throw here first, on the test's own thread, leaves only the parser's
        // stack to measure (the order of the suite's tests otherwise decides).
        expectThrows(PredicateSyntaxError.self) { try FormatPredicate(format: "(") }
        let outcomes = await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
            let thread = Thread {
                continuation.resume(returning: formats.map { format in
                    do {
                        _ = try FormatPredicate(format: format)
                        return "parsed"
                    } catch {
                        return "\(error)".contains("levels of nesting") ? "too deep" : "\(error)"
                    }
                })
            }
            thread.stackSize = 64 * 1024
            thread.start()
        }
        // The 12-level chain may fit (release) or not (debug); the others are too deep.
        #expect(["parsed", "too deep"].contains(outcomes[0]), "\(outcomes[0])")
        expectEqual(Array(outcomes.dropFirst()), ["too deep", "too deep", "too deep", "too deep"])
    }
}
