import Foundation
import Records

// The syntax tree of a format predicate, and its canonical text: printing a
// tree gives a format string that parses back to the same tree (see
// `FormatPredicate.predicateFormat` for the few values with no literal form).

extension FormatPredicate {
    /// A condition: what a predicate tests.
    public indirect enum Condition: Hashable, Sendable {
        /// `TRUEPREDICATE` or `FALSEPREDICATE`.
        case constant(Bool)
        /// `NOT c`, `!c`.
        case not(Condition)
        /// `a AND b AND …` (`&&`): true when all are; stops at the first false.
        case and([Condition])
        /// `a OR b OR …` (`||`): true when one is; stops at the first true.
        case or([Condition])
        /// `[quantifier] left operator[options] right`.
        case comparison(Comparison)
    }

    /// A comparison: `name BEGINSWITH[c] 'a'`, `ANY tags == 'swift'`.
    public struct Comparison: Hashable, Sendable {
        /// `ANY`, `SOME`, `ALL` or `NONE`: the left side is a collection and the
        /// operator applies to each of its elements.
        public var quantifier: Quantifier?
        public var left: Expression
        public var `operator`: Operator
        public var options: Options
        public var right: Expression

        public init(_ left: Expression, _ operator: Operator, _ right: Expression, options: Options = [], quantifier: Quantifier? = nil) {
            self.quantifier = quantifier
            self.left = left
            self.operator = `operator`
            self.options = options
            self.right = right
        }
    }

    public enum Quantifier: String, Hashable, Sendable, CaseIterable {
        case any = "ANY", some = "SOME", all = "ALL", none = "NONE"
    }

    /// A comparison operator, by its canonical spelling (`=` parses as `==`,
    /// `<>` as `!=`, `=<` as `<=`, `=>` as `>=`).
    public enum Operator: String, Hashable, Sendable, CaseIterable {
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case between = "BETWEEN", `in` = "IN", contains = "CONTAINS", beginsWith = "BEGINSWITH", endsWith = "ENDSWITH"
        case like = "LIKE", matches = "MATCHES"
    }

    /// String options, written after the operator: `[c]` case-insensitive,
    /// `[d]` diacritic-insensitive, `[n]` normalized (compare exactly; supersedes
    /// c and d), `[l]` locale-sensitive (accepted; no effect).
    public struct Options: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let caseInsensitive = Options(rawValue: 1)
        public static let diacriticInsensitive = Options(rawValue: 2)
        public static let normalized = Options(rawValue: 4)
        public static let localeSensitive = Options(rawValue: 8)

        /// The letters, in the order c, d, n, l.
        var letters: String {
            [(Options.caseInsensitive, "c"), (.diacriticInsensitive, "d"), (.normalized, "n"), (.localeSensitive, "l")]
                .filter { contains($0.0) }.map(\.1).joined()
        }
    }

    /// An expression: a value computed from the evaluated object.
    public indirect enum Expression: Hashable, Sendable {
        /// A literal or a substituted argument: `'text'`, `42`, `NIL`, `{1, 2}`, `%@`.
        case constant(RecordValue)
        /// `SELF`: the evaluated object.
        case evaluatedObject
        /// A key of the evaluated object: `name` (`#name` escapes a reserved word).
        case key(String)
        /// `$NAME`: bound when evaluating, or by `SUBQUERY`.
        case variable(String)
        /// `base.key`: through a record; over an array, element by element.
        case member(Expression, String)
        /// `base.@sum.key`: a collection operator over `base`, reading `key` of each element.
        case collectionOperator(Expression, CollectionOperator, [String])
        /// `base[FIRST]`, `base[LAST]`, `base[SIZE]`, `base[2]`, `base['key']`.
        case index(Expression, Index)
        /// `{a, b, c}` with at least one element that is not constant.
        case aggregate([Expression])
        /// `a + b`, `a - b`, `a * b`, `a / b`, `a ** b`.
        case arithmetic(Expression, ArithmeticOperator, Expression)
        /// `-a`.
        case negation(Expression)
        /// `sum(a, b)`, `uppercase:(name)`, `multiply:by:(a, b)`.
        case function(Function, [Expression])
        /// `CAST(value, 'NSDate')` of a value that is not constant.
        case cast(Expression, CastType)
        /// `SUBQUERY(collection, $x, condition)`: the elements for which the
        /// condition holds, with `$x` bound to each.
        case subquery(Expression, variable: String, Condition)
    }

    public enum Index: Hashable, Sendable {
        case first, last, size
        case at(Expression)
    }

    /// The key-value coding collection operators.
    public enum CollectionOperator: String, Hashable, Sendable, CaseIterable {
        case count = "@count", sum = "@sum", avg = "@avg", min = "@min", max = "@max"
        case unionOfObjects = "@unionOfObjects", distinctUnionOfObjects = "@distinctUnionOfObjects"
        case unionOfArrays = "@unionOfArrays", distinctUnionOfArrays = "@distinctUnionOfArrays"
    }

    public enum ArithmeticOperator: String, Hashable, Sendable, CaseIterable {
        case add = "+", subtract = "-", multiply = "*", divide = "/", power = "**"

        /// Binding strength: `**` over `*` `/` over `+` `-`.
        var precedence: Int {
            switch self {
            case .add, .subtract: 1
            case .multiply, .divide: 2
            case .power: 3
            }
        }
    }

    /// The target type of `CAST`.
    public enum CastType: String, Hashable, Sendable, CaseIterable {
        case date = "NSDate", number = "NSNumber", string = "NSString"
    }

    /// The built-in functions, by selector. Call them `name(args)`,
    /// `name:(args)` or, for the two-argument ones, with the whole selector
    /// (`multiply:by:(a, b)`).
    public enum Function: String, Hashable, Sendable, CaseIterable {
        case sum = "sum:", count = "count:", min = "min:", max = "max:", average = "average:"
        case median = "median:", mode = "mode:", stddev = "stddev:"
        case add = "add:to:", subtract = "from:subtract:", multiply = "multiply:by:", divide = "divide:by:"
        case modulus = "modulus:by:", power = "raise:toPower:"
        case sqrt = "sqrt:", log = "log:", ln = "ln:", exp = "exp:", floor = "floor:", ceiling = "ceiling:"
        case abs = "abs:", trunc = "trunc:"
        case uppercase = "uppercase:", lowercase = "lowercase:", length = "length:"
        case random = "random", randomBelow = "random:", randomn = "randomn:", now = "now"
        case bitwiseAnd = "bitwiseAnd:with:", bitwiseOr = "bitwiseOr:with:", bitwiseXor = "bitwiseXor:with:"
        case leftShift = "leftshift:by:", rightShift = "rightshift:by:", onesComplement = "onesComplement:"
        case noindex = "noindex:"

        /// The statistics: one array argument, or any number of values.
        var isStatistic: Bool {
            switch self {
            case .sum, .count, .min, .max, .average, .median, .mode, .stddev: true
            case .add, .subtract, .multiply, .divide, .modulus, .power, .sqrt, .log, .ln, .exp, .floor, .ceiling, .abs, .trunc,
                .uppercase, .lowercase, .length, .random, .randomBelow, .randomn, .now,
                .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift, .onesComplement, .noindex: false
            }
        }

        /// How many arguments it takes; nil for the statistics (one array, or
        /// any number of values).
        public var arity: Int? {
            if isStatistic { return nil }
            if self == .random || self == .now { return 0 }
            return rawValue.filter { $0 == ":" }.count
        }

        /// The first word of the selector: `multiply` for `multiply:by:`.
        var name: String { String(rawValue.prefix { $0 != ":" }) }
    }
}

// MARK: - Printing

extension FormatPredicate.Condition: CustomStringConvertible {
    /// The canonical format text of the condition.
    public var description: String {
        var out = ""
        print(into: &out)
        return out
    }

    func print(into out: inout String) {
        switch self {
        case .constant(let value):
            out += value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let inner):
            out += "NOT "
            inner.printOperand(into: &out, parenthesize: { if case .comparison = $0 { false } else if case .constant = $0 { false } else if case .not = $0 { false } else { true } })
        case .and(let parts), .or(let parts):
            let joiner = if case .and = self { " AND " } else { " OR " }
            for (k, part) in parts.enumerated() {
                if k > 0 { out += joiner }
                // A nested AND or OR is always in parentheses.
                part.printOperand(into: &out, parenthesize: { if case .and = $0 { true } else if case .or = $0 { true } else { false } })
            }
        case .comparison(let comparison):
            comparison.print(into: &out)
        }
    }

    private func printOperand(into out: inout String, parenthesize: (Self) -> Bool) {
        if parenthesize(self) {
            out += "("
            print(into: &out)
            out += ")"
        } else {
            print(into: &out)
        }
    }
}

extension FormatPredicate.Comparison: CustomStringConvertible {
    public var description: String {
        var out = ""
        print(into: &out)
        return out
    }

    func print(into out: inout String) {
        if let quantifier { out += quantifier.rawValue + " " }
        left.print(into: &out)
        out += " " + `operator`.rawValue
        if !options.isEmpty { out += "[" + options.letters + "]" }
        out += " "
        right.print(into: &out)
    }
}

extension FormatPredicate.Expression: CustomStringConvertible {
    public var description: String {
        var out = ""
        print(into: &out)
        return out
    }

    func print(into out: inout String) {
        switch self {
        case .constant(let value):
            Self.printConstant(value, into: &out)
        case .evaluatedObject:
            out += "SELF"
        case .key(let key):
            out += Self.keyText(key)
        case .variable(let name):
            out += "$" + name
        case .member(let base, let key):
            base.printPostfixBase(into: &out)
            out += "." + Self.keyText(key)
        case .collectionOperator(let base, let op, let keys):
            if base != .evaluatedObject {
                base.printPostfixBase(into: &out)
                out += "."
            }
            out += op.rawValue
            for key in keys { out += "." + Self.keyText(key) }
        case .index(let base, let index):
            base.printPostfixBase(into: &out)
            switch index {
            case .first: out += "[FIRST]"
            case .last: out += "[LAST]"
            case .size: out += "[SIZE]"
            case .at(let e):
                out += "["
                e.print(into: &out)
                out += "]"
            }
        case .aggregate(let elements):
            out += "{"
            for (k, e) in elements.enumerated() {
                if k > 0 { out += ", " }
                e.print(into: &out)
            }
            out += "}"
        case .arithmetic:
            // Right operands that are themselves arithmetic are parenthesized, and
            // left ones that bind less tightly; a left operand that binds as
            // tightly or more does not need it (the parser reads chains left to
            // right): `1 + 2 + 3`, `a * b + c`, `(a + b) * c`, `a - (b - c)`.
            // The left spine is printed by a loop, so a long chain needs no deep
            // recursion (and prints without a parenthesis per link).
            var links: [(FormatPredicate.ArithmeticOperator, FormatPredicate.Expression)] = []
            var spine = self
            while case .arithmetic(let a, let op, let b) = spine, links.last.map({ op.precedence >= $0.0.precedence }) ?? true {
                links.append((op, b))
                spine = a
            }
            spine.printArithmeticOperand(into: &out)
            for (op, b) in links.reversed() {
                out += " " + op.rawValue + " "
                b.printArithmeticOperand(into: &out)
            }
        case .negation(let e):
            out += "-"
            e.printArithmeticOperand(into: &out)
        case .function(let f, let args):
            // Two-argument functions by their whole selector; the others by name.
            out += f.arity == 2 ? f.rawValue : f.name
            out += "("
            for (k, e) in args.enumerated() {
                if k > 0 { out += ", " }
                e.print(into: &out)
            }
            out += ")"
        case .cast(let e, let type):
            out += "CAST("
            e.print(into: &out)
            out += ", \"" + type.rawValue + "\")"
        case .subquery(let collection, let variable, let condition):
            out += "SUBQUERY("
            collection.print(into: &out)
            out += ", $" + variable + ", "
            condition.print(into: &out)
            out += ")"
        }
    }

    private func printArithmeticOperand(into out: inout String) {
        switch self {
        case .arithmetic, .negation:
            out += "("
            print(into: &out)
            out += ")"
        case .constant(let value):
            // A negative number prints as `-1`, which parses back to the constant.
            if case .int(let i) = value, i < 0 {
                out += "(" + String(i) + ")"
            } else if case .double(let d) = value, d < 0 || (d == 0 && d.sign == .minus) {
                out += "("
                Self.printConstant(value, into: &out)
                out += ")"
            } else {
                print(into: &out)
            }
        default:
            print(into: &out)
        }
    }

    private func printPostfixBase(into out: inout String) {
        switch self {
        case .arithmetic, .negation:
            out += "("
            print(into: &out)
            out += ")"
        case .constant(let value):
            switch value {
            case .int(let i) where i < 0:
                out += "(" + String(i) + ")"
            case .double:
                out += "("
                Self.printConstant(value, into: &out)
                out += ")"
            default:
                Self.printConstant(value, into: &out)
            }
        default:
            print(into: &out)
        }
    }

    /// A key as it is written: `#` before a reserved word.
    static func keyText(_ key: String) -> String {
        _PredicateLexer.isReserved(key) ? "#" + key : key
    }

    static func printConstant(_ value: RecordValue, into out: inout String) {
        switch value {
        case .null: out += "NIL"
        case .bool(let b): out += b ? "TRUE" : "FALSE"
        case .int(let i): out += String(i)
        case .uint(let u): out += String(u)
        case .double(let d):
            if d.isNaN {
                out += "CAST(\"nan\", \"NSNumber\")"
            } else if d.isInfinite {
                out += d < 0 ? "-1e999" : "1e999"
            } else {
                out += "\(d)"
            }
        case .string(let s): out += quoted(s)
        case .date(let date):
            out += "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .array(let elements):
            out += "{"
            for (k, e) in elements.enumerated() {
                if k > 0 { out += ", " }
                printConstant(e, into: &out)
            }
            out += "}"
        case .record(let record):
            // No literal form: a record (a %@ dictionary) prints as its JSON.
            out += JSON.string(.record(record))
        }
    }

    /// A string literal in double quotes: `"` and `\` escaped, control
    /// characters as `\n`, `\t`, `\r` or `\u00XX`.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
