import Foundation
import Records

/// Why a format string is not a predicate: where (a character offset into the
/// format), what was found there, and what was expected.
///
/// ```text
/// at offset 8 of "name == ": expected an expression after '==', found the end of the format
/// ```
public struct PredicateSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The format string.
    public var format: String
    /// The offset, in characters, of what is wrong.
    public var offset: Int
    /// What was there: `'AND'`, `the end of the format`, …
    public var found: String
    /// What the parser needed there: `an expression after '=='`, …
    public var expected: String

    public init(format: String, offset: Int, found: String, expected: String) {
        self.format = format
        self.offset = offset
        self.found = found
        self.expected = expected
    }

    public var description: String {
        "at offset \(offset) of \(Self.quoted(format)): expected \(expected), found \(found)"
    }

    /// `"text"`, with `"`, `\` and line breaks escaped.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for c in text {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out.append(c)
            }
        }
        return out + "\""
    }

    /// The format and a caret under the offset, for a terminal.
    public var excerpt: String {
        let line = format.map { $0 == "\n" || $0 == "\t" || $0 == "\r" ? " " : String($0) }.joined()
        return line + "\n" + String(repeating: " ", count: offset) + "^"
    }
}

/// Why evaluating a predicate failed: values of kinds an operator cannot take,
/// a quantifier over something that is not a collection, an index out of
/// range, an unbound variable, an invalid regular expression, …
public enum PredicateEvaluationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An operator or function given values it cannot work on.
    case typeMismatch(operation: String, kinds: [String])
    /// `ANY`, `ALL`, … or a collection operator over something else than a collection.
    case notACollection(operation: String, kind: String)
    /// `BETWEEN` with a right side that is not a two-element array.
    case betweenNeedsTwoBounds(found: String)
    /// `x[i]` outside the collection.
    case indexOutOfRange(index: Int, count: Int)
    /// `$NAME` with no value.
    case unboundVariable(String)
    /// `MATCHES` with a pattern that is not a regular expression.
    case invalidRegularExpression(pattern: String, reason: String)
    /// A `MATCHES` pattern the regular expression engine could not decide
    /// within its limit: more than 10 million steps of ICU's matcher on one
    /// string, or more backtracking memory than ICU allows (8 MB by default),
    /// as nested repetitions such as `(a+)+b` take on a long subject. Rewrite
    /// the pattern without nested repetition.
    case regularExpressionLimit(pattern: String)
    /// An integer divided by zero (or its remainder).
    case divisionByZero
    /// A function given an argument outside its domain.
    case invalidArgument(function: String, reason: String)
    /// A key the record type does not have.
    case unknownKey(RecordKeyError)

    public var description: String {
        switch self {
        case let .typeMismatch(operation, kinds):
            return "\(operation) cannot take \(kinds.map(Self.article).joined(separator: " and "))"
        case let .notACollection(operation, kind):
            return "\(operation) needs a collection, not \(Self.article(kind))"
        case .betweenNeedsTwoBounds(let found):
            return "BETWEEN needs an array of two bounds, {lower, upper}, not \(found)"
        case let .indexOutOfRange(index, count):
            return "index \(index) is out of range for a collection of \(count)"
        case .unboundVariable(let name):
            return "$\(name) has no value: bind it when evaluating, or with substituting(_:)"
        case let .invalidRegularExpression(pattern, reason):
            return "MATCHES: \(pattern.debugDescription) is not a regular expression (\(reason))"
        case .regularExpressionLimit(let pattern):
            return "MATCHES: \(pattern.debugDescription) backtracked past the regular expression engine's limit before deciding; rewrite it without nested repetition such as (a+)+"
        case .divisionByZero:
            return "an integer division by zero"
        case let .invalidArgument(function, reason):
            return "\(function): \(reason)"
        case .unknownKey(let error):
            return error.description
        }
    }

    /// `a string`, `an int`, `nil`.
    static func article(_ kind: String) -> String {
        switch kind {
        case "null": "nil"
        case "int", "array": "an \(kind)"
        default: "a \(kind)"
        }
    }
}
