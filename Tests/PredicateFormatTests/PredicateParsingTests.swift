import Foundation
import PredicateFormat
import Records
import TableSnapshotTesting
import TableTestSupport
import Testing

/// The format language's grammar: what parses to what, the canonical text and
/// its round trip, and the error every malformed string gets.
@Suite struct PredicateParsingTests {
    typealias E = FormatPredicate.Expression
    typealias C = FormatPredicate.Condition

    func parse(_ format: String, _ arguments: RecordValue...) throws -> C {
        try FormatPredicate(format: format, arguments: arguments).condition
    }

    func comparison(_ l: E, _ op: FormatPredicate.Operator, _ r: E, _ options: FormatPredicate.Options = [], _ q: FormatPredicate.Quantifier? = nil) -> C {
        .comparison(FormatPredicate.Comparison(l, op, r, options: options, quantifier: q))
    }

    @Test func operatorsAndTheirSpellings() throws {
        let spellings: [(String, FormatPredicate.Operator)] = [
            ("=", .equal), ("==", .equal), ("!=", .notEqual), ("<>", .notEqual), ("<", .less), ("<=", .lessOrEqual),
            ("=<", .lessOrEqual), (">", .greater), (">=", .greaterOrEqual), ("=>", .greaterOrEqual),
            ("BETWEEN", .between), ("in", .in), ("Contains", .contains), ("beginswith", .beginsWith),
            ("ENDSWITH", .endsWith), ("like", .like), ("MATCHES", .matches),
        ]
        for (spelled, op) in spellings {
            try expectEqual(parse("a \(spelled) b"), comparison(.key("a"), op, .key("b")), "\(spelled)")
        }
    }

    @Test func precedenceNotOverAndOverOr() throws {
        let (a, b, c) = (comparison(.key("a"), .equal, .constant(1)), comparison(.key("b"), .equal, .constant(2)), comparison(.key("c"), .equal, .constant(3)))
        try expectEqual(parse("a == 1 AND b == 2 OR c == 3"), .or([.and([a, b]), c]))
        try expectEqual(parse("a == 1 OR b == 2 AND c == 3"), .or([a, .and([b, c])]))
        try expectEqual(parse("NOT a == 1 AND b == 2"), .and([.not(a), b]))
        try expectEqual(parse("a == 1 || b == 2 && !(c == 3)"), .or([a, .and([b, .not(c)])]))
        try expectEqual(parse("a == 1 AND b == 2 AND c == 3"), .and([a, b, c]))
        try expectEqual(parse("(a == 1 AND b == 2) AND c == 3"), .and([.and([a, b]), c]))
        try expectEqual(parse("NOT age BETWEEN {20, 40}"), .not(comparison(.key("age"), .between, .constant([20, 40]))))
        try expectEqual(parse("TRUEPREDICATE"), .constant(true))
        try expectEqual(parse("falsepredicate OR TruePredicate"), .or([.constant(false), .constant(true)]))
    }

    @Test func arithmeticPrecedenceAndTheParenthesisAmbiguity() throws {
        let age = E.key("age")
        try expectEqual(parse("(age + 5) * 2 == 70"), comparison(.arithmetic(.arithmetic(age, .add, .constant(5)), .multiply, .constant(2)), .equal, .constant(70)))
        try expectEqual(parse("age + 5 * 2 == 70"), comparison(.arithmetic(age, .add, .arithmetic(.constant(5), .multiply, .constant(2))), .equal, .constant(70)))
        try expectEqual(parse("(self) ** 2 * 2 = 72"), comparison(.arithmetic(.arithmetic(.evaluatedObject, .power, .constant(2)), .multiply, .constant(2)), .equal, .constant(72)))
        try expectEqual(parse("2 ** 3 ** 2 == 64"), comparison(.arithmetic(.arithmetic(.constant(2), .power, .constant(3)), .power, .constant(2)), .equal, .constant(64)))
        try expectEqual(parse("1 - 2 - 3 == -4"), comparison(.arithmetic(.arithmetic(.constant(1), .subtract, .constant(2)), .subtract, .constant(3)), .equal, .constant(-4)))
        try expectEqual(parse("-age < -1.5"), comparison(.negation(age), .less, .constant(-1.5)))
        try expectEqual(parse("((a == 1))"), comparison(.key("a"), .equal, .constant(1)))
        try expectEqual(parse("((age)) + 1 > 2"), comparison(.arithmetic(age, .add, .constant(1)), .greater, .constant(2)))
        try expectEqual(parse("(a).b == 1"), comparison(.member(.key("a"), "b"), .equal, .constant(1)))
        try expectEqual(parse("-9223372036854775808 == x"), comparison(.constant(.int(Int.min)), .equal, .key("x")))
    }

    @Test func literals() throws {
        func value(_ text: String) throws -> RecordValue? {
            guard case .comparison(let c) = try parse("x == \(text)"), case .constant(let v) = c.right else { return nil }
            return v
        }
        try expectEqual(value("27"), .int(27))
        try expectEqual(value("2.71828"), .double(2.71828))
        try expectEqual(value("9.2e-5"), .double(9.2e-5))
        try expectEqual(value("1E3"), .double(1000))
        try expectEqual(value("0x1F"), .int(31))
        try expectEqual(value("0o17"), .int(15))
        try expectEqual(value("0b101"), .int(5))
        try expectEqual(value("18446744073709551615"), .uint(.max))
        try expectEqual(value("99999999999999999999.0"), .double(1e20))
        try expectEqual(value("'single'"), .string("single"))
        try expectEqual(value("\"O'Brien\""), .string("O'Brien"))
        try expectEqual(value(#"'tab\there\nand \\ and \' and \"'"#), .string("tab\there\nand \\ and ' and \""))
        try expectEqual(value(#"'\101\x42\u0043'"#), .string("ABC"))
        try expectEqual(value(#"'\uD83D\uDE00'"#), .string("😀"))
        try expectEqual(value("'Björn 中文 😀'"), .string("Björn 中文 😀"))
        try expectEqual(value("'%@ and $x and %K'"), .string("%@ and $x and %K"))
        try expectEqual(value("nil"), .null)
        try expectEqual(value("NULL"), .null)
        try expectEqual(value("TRUE"), .bool(true))
        try expectEqual(value("yes"), .bool(true))
        try expectEqual(value("False"), .bool(false))
        try expectEqual(value("NO"), .bool(false))
        try expectEqual(value("{}"), .array([]))
        try expectEqual(value("{1, 'a', {2}}"), .array([1, "a", [2]]))
        try expectEqual(value("CAST(0, 'NSDate')"), .date(Date(timeIntervalSinceReferenceDate: 0)))
        try expectEqual(value("CAST(\"42\", \"NSNumber\")"), .int(42))
        try expectEqual(value("CAST(42, 'NSString')"), .string("42"))
    }

    @Test func keysKeywordsAndEscapes() throws {
        try expectEqual(parse("#like == 'tea'"), comparison(.key("like"), .equal, .constant("tea")))
        try expectEqual(parse("address.#size > 1"), comparison(.member(.key("address"), "size"), .greater, .constant(1)))
        try expectEqual(parse("SeLf.age == 1"), comparison(.member(.evaluatedObject, "age"), .equal, .constant(1)))
        try expectEqual(parse("a.b.c == NiL"), comparison(.member(.member(.key("a"), "b"), "c"), .equal, .constant(.null)))
        try expectEqual(parse("tags.@count == 3"), comparison(.collectionOperator(.key("tags"), .count, []), .equal, .constant(3)))
        try expectEqual(parse("items.@sum.price > 10"), comparison(.collectionOperator(.key("items"), .sum, ["price"]), .greater, .constant(10)))
        try expectEqual(parse("tags[first] == tags[LAST]"), comparison(.index(.key("tags"), .first), .equal, .index(.key("tags"), .last)))
        try expectEqual(parse("tags[size] == tags[1 + 1]"), comparison(.index(.key("tags"), .size), .equal, .index(.key("tags"), .at(.arithmetic(.constant(1), .add, .constant(1))))))
        try expectEqual(parse("x\t==\n1"), comparison(.key("x"), .equal, .constant(1)))
        try expectEqual(parse("name CONTAINS [cd] 'a'"), comparison(.key("name"), .contains, .constant("a"), [.caseInsensitive, .diacriticInsensitive]))
        try expectEqual(parse("name ==[dc] 'a'"), comparison(.key("name"), .equal, .constant("a"), [.caseInsensitive, .diacriticInsensitive]))
        try expectEqual(parse("name MATCHES[n] 'a' AND b LIKE[l] 'c'"), .and([
            comparison(.key("name"), .matches, .constant("a"), [.normalized]),
            comparison(.key("b"), .like, .constant("c"), [.localeSensitive]),
        ]))
        try expectEqual(parse("some tags == 'x'"), comparison(.key("tags"), .equal, .constant("x"), [], .some))
        try expectEqual(parse("NONE tags IN {'a'}"), comparison(.key("tags"), .in, .constant(["a"]), [], FormatPredicate.Quantifier.none))
    }

    @Test func argumentsAreValuesOrKeyPaths() throws {
        try expectEqual(parse("name == %@", "O'Brien*"), comparison(.key("name"), .equal, .constant("O'Brien*")))
        try expectEqual(parse("%K == %@", "address.city", "Paris"), comparison(.member(.key("address"), "city"), .equal, .constant("Paris")))
        try expectEqual(parse("%K == 1", "like"), comparison(.key("like"), .equal, .constant(1)))
        try expectEqual(parse("%K == 3", "tags.@count"), comparison(.collectionOperator(.key("tags"), .count, []), .equal, .constant(3)))
        try expectEqual(parse("a.%K == 1", "b"), comparison(.member(.key("a"), "b"), .equal, .constant(1)))
        try expectEqual(parse("age == %d AND score > %5.2f AND n < %ld AND s == %s AND h == %x", 30, 1.5, 7, "x", 30), .and([
            comparison(.key("age"), .equal, .constant(30)), comparison(.key("score"), .greater, .constant(1.5)),
            comparison(.key("n"), .less, .constant(7)), comparison(.key("s"), .equal, .constant("x")),
            comparison(.key("h"), .equal, .constant(30)),
        ]))
        // Extra arguments are ignored; quoted specifiers are text.
        try expectEqual(parse("%K LIKE '%@'", "name", "unused"), comparison(.key("name"), .like, .constant("%@")))
        try expectEqual(parse("x == %@", RecordValue.array([1, 2])), comparison(.key("x"), .equal, .constant([1, 2])))
        try expectEqual(FormatPredicate("age > %@ AND name == %@", 3, "x"), FormatPredicate(format: "age > 3 AND name == 'x'"))
    }

    @Test func functionsSubqueriesCasts() throws {
        try expectEqual(parse("count(tags) == sum:({1, 2})"), comparison(.function(.count, [.key("tags")]), .equal, .function(.sum, [.constant([1, 2])])))
        try expectEqual(parse("multiply:by:(a, 2) == add(1, b)"), comparison(.function(.multiply, [.key("a"), .constant(2)]), .equal, .function(.add, [.constant(1), .key("b")])))
        try expectEqual(parse("random() < random(5) + randomn(3)"), comparison(.function(.random, []), .less, .arithmetic(.function(.randomBelow, [.constant(5)]), .add, .function(.randomn, [.constant(3)]))))
        try expectEqual(parse("now() > CAST(created, 'NSDate')"), comparison(.function(.now, []), .greater, .cast(.key("created"), .date)))
        try expectEqual(parse("SUBQUERY(friends, $f, $f.age > 30).@count == 1"), comparison(
            .collectionOperator(.subquery(.key("friends"), variable: "f", comparison(.member(.variable("f"), "age"), .greater, .constant(30))), .count, []),
            .equal, .constant(1)))
        try expectEqual(parse("{age, 1} == {30, 1}"), comparison(.aggregate([.key("age"), .constant(1)]), .equal, .constant([30, 1])))
    }

    /// Random trees print as text that parses back to the same tree.
    @Test func printedTreesParseBackToThemselves() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<TestScale.cases(1_000, full: 3_000) {
            let condition = PredicateTreeGenerator.condition(&g, depth: 4)
            let text = condition.description
            let parsed: C
            do {
                parsed = try FormatPredicate(format: text).condition
            } catch {
                Issue.record("seed \(seed): \(text) does not parse: \(error)")
                return
            }
            expectEqual(parsed, condition, "seed \(seed): \(text)\nparsed back as \(parsed.description)")
            if parsed != condition { return }
        }
    }

    /// Every malformed string gets an error naming the offset, what was found
    /// and what was expected (a reviewed snapshot).
    @Test func malformedStringsNameWhereAndWhat() {
        var lines: [String] = []
        for (format, arguments) in Self.malformed {
            do {
                let parsed = try FormatPredicate(format: format, arguments: arguments)
                lines.append("\(format)\n  PARSED: \(parsed)")
                Issue.record("\(format) parsed as \(parsed)")
            } catch {
                lines.append("\(format)\n  \(error)")
            }
        }
        #expect(Self.malformed.count >= 55)
        assertTextSnapshot(of: lines.joined(separator: "\n") + "\n")
    }

    static let malformed: [(String, [RecordValue])] = [
        ("", []), ("   ", []), ("active", []), ("ANY friends.age", []), ("%@", ["age > 30"]), ("name ==", []),
        ("== 1", []), ("(a > 1", []), ("a > 1)", []), ("{1, 2 == x", []), ("x == {1, 2", []), ("tags[0 == 1", []),
        ("a > 1 AND", []), ("a > 1 OR OR b < 2", []), ("NOT", []), ("AND a > 1", []), ("a = = 1", []),
        ("a > > 1", []), ("a ~= 1", []), ("a === 1", []), ("a > 1 XOR b < 2", []), ("a 1 == 2", []),
        ("a == 1 2", []), ("a == b c", []), ("a LIKE 'x' ?", []), ("name == 'x", []), ("name == \"x", []),
        ("a == 1;", []), ("a ^ 2 == 4", []), ("a & b == 1", []), ("a | b == 1", []),
        ("SUBQUERY(friends, $f) == 1", []), ("SUBQUERY(friends, f, f.age > 1).@count == 1", []), ("SUBQUERY friends == 1", []),
        ("like == 'tea'", []), ("size > 1", []), ("address.size > 1", []), ("a.in == 1", []), ("a == %@", []),
        ("%K == %@", ["name"]), ("%K == 1", [5]), ("name == %% 1", []), ("name == %z", []), ("x == %", []),
        ("a == 0x", []), ("a == 0b102", []), ("a == 0o8", []), ("a == 1e", []), ("a == 12abc", []),
        ("a == 99999999999999999999999x", []), ("a ==[x] 'b'", []), ("a ==[] 'b'", []), ("a ==[C] 'b'", []),
        ("a ==[cd 'b'", []), ("tags[] == 1", []), ("a < b < c", []), ("a == b == c", []), ("foo(1) == 1", []),
        ("sqrt(1, 2) == 1", []), ("add:to:(1) == 1", []), ("sum() == 0", []), ("FUNCTION(a, 'foo') == 1", []),
        ("TERNARY(a > 1, 1, 2) == 1", []), ("$x := 1", []), ("x == $", []), ("x.@ == 1", []), ("x.@foo == 1", []),
        ("#", []), ("a UTI-CONFORMS-TO 'public.image'", []), ("ANYKEY == 1", []), ("x == 'a\\x4'", []),
        ("x == 'a\\uD800'", []), ("CAST(1) == 1", []), ("CAST(a, 'NSBlob') == 1", []), ("CAST('soon', 'NSDate') == 1", []),
        ("a == 1 // comment", []), ("a == 1 /* c */", []), ("distanceToLocation:fromLocation:(a, b) < 1", []),
        ("NOT NOT", []), ("x.", []), ("x == -", []), ("((((a > 1))))) ", []), ("a >= 1 AND (b < 2 OR)", []),
        (String(repeating: "(", count: 150) + "a > 1" + String(repeating: ")", count: 150), []),
        (String(repeating: "NOT ", count: 150) + "a > 1", []),
        ("x == " + String(repeating: "-", count: 150) + "1", []),
        ("{1} UNION {2} == x", []), ("x == " + String(repeating: "1 + ", count: 1_001) + "1", []),
    ]
}

/// Random syntax trees in the forms the parser produces (constants folded,
/// n-ary AND and OR), for round trips and fuzzing.
enum PredicateTreeGenerator {
    typealias E = FormatPredicate.Expression
    typealias C = FormatPredicate.Condition

    static let keys = ["name", "age", "tags", "friends", "address", "score", "like", "size", "First", "_x1"]
    static let strings = ["", "a", "O'Brien", "say \"hi\"", "back\\slash", "tab\tnew\nline", "Björn", "e\u{301}", "中文", "😀", "\u{0}\u{7F}", "%@ $x"]

    static func constant(_ g: inout SeededGenerator, depth: Int) -> RecordValue {
        switch g.int(0..<9) {
        case 0: return .null
        case 1: return .bool(g.chance(0.5))
        case 2: return .int([0, 1, -1, 42, Int.max, Int.min, -7][g.int(0..<7)])
        case 3: return .double([0.5, -2.25, 1e-7, 1e300, 3.0, -0.0, 123456.789][g.int(0..<7)])
        case 4, 5: return .string(strings[g.int(0..<strings.count)])
        case 6: return .date(Date(timeIntervalSinceReferenceDate: [0, -86400.5, 700_000_000.25][g.int(0..<3)]))
        default:
            guard depth > 0 else { return .int(1) }
            return .array((0..<g.int(0...3)).map { _ in constant(&g, depth: depth - 1) })
        }
    }

    static func expression(_ g: inout SeededGenerator, depth: Int) -> E {
        if depth <= 0 || g.chance(0.3) {
            switch g.int(0..<4) {
            case 0: return .constant(constant(&g, depth: 1))
            case 1: return .evaluatedObject
            case 2: return .variable(["x", "LOW", "f"][g.int(0..<3)])
            default: return .key(keys[g.int(0..<keys.count)])
            }
        }
        let inner = expression(&g, depth: depth - 1)
        switch g.int(0..<11) {
        case 0:
            if case .collectionOperator = inner { return inner }
            return .member(inner, keys[g.int(0..<keys.count)])
        case 1: return .collectionOperator(inner, FormatPredicate.CollectionOperator.allCases[g.int(0..<9)], g.chance(0.5) ? [] : ["price"])
        case 2: return .index(inner, [FormatPredicate.Index.first, .last, .size, .at(expression(&g, depth: depth - 1))][g.int(0..<4)])
        case 3: return .aggregate([.key("k"), inner])
        case 4: return .arithmetic(inner, FormatPredicate.ArithmeticOperator.allCases[g.int(0..<5)], expression(&g, depth: depth - 1))
        case 5:
            if case .constant = inner { return .negation(.key("n")) }
            return .negation(inner)
        case 6:
            let f = FormatPredicate.Function.allCases[g.int(0..<FormatPredicate.Function.allCases.count)]
            let count = f.arity ?? g.int(1...3)
            return .function(f, (0..<count).map { _ in expression(&g, depth: depth - 1) })
        case 7:
            if case .constant = inner { return .cast(.key("t"), .date) }
            return .cast(inner, FormatPredicate.CastType.allCases[g.int(0..<3)])
        case 8: return .subquery(inner, variable: "f", condition(&g, depth: depth - 1))
        default: return inner
        }
    }

    static func condition(_ g: inout SeededGenerator, depth: Int) -> C {
        if depth <= 0 || g.chance(0.4) {
            if g.chance(0.05) { return .constant(g.chance(0.5)) }
            let op = FormatPredicate.Operator.allCases[g.int(0..<FormatPredicate.Operator.allCases.count)]
            let options = FormatPredicate.Options(rawValue: g.chance(0.5) ? 0 : g.int(1...15))
            return .comparison(FormatPredicate.Comparison(
                expression(&g, depth: 2), op, expression(&g, depth: 2), options: options,
                quantifier: g.chance(0.2) ? FormatPredicate.Quantifier.allCases[g.int(0..<4)] : nil))
        }
        switch g.int(0..<3) {
        case 0: return .not(condition(&g, depth: depth - 1))
        case 1: return .and((0..<g.int(2...3)).map { _ in condition(&g, depth: depth - 1) })
        default: return .or((0..<g.int(2...3)).map { _ in condition(&g, depth: depth - 1) })
        }
    }
}
