import Foundation
import InternalTableUtilities
import Records

/// A recursive-descent parser for the format language (the grammar in Predicates.md):
/// NOT over AND over OR, arithmetic with the usual precedence, format
/// arguments substituted as they are met. Constants are folded (`-1`, `{1, 2}`,
/// `CAST(0, 'NSDate')`), so that printing a tree and parsing it again gives the
/// same tree.
///
/// Every path consumes a token or fails, and `(` is resolved once per
/// parenthesis (no backtracking), so parsing is linear. Nesting is limited to
/// ``maxDepth`` levels, and to what the thread's stack can hold: every level
/// checks the stack first, so that a thread of any stack size (64 KiB, say)
/// gets a nesting error instead of an overflow. The functions on the
/// recursive path keep their frames small (messages are built in separate
/// functions), which matters in debug builds.
///
/// Arithmetic chains (`a + b * c - d`) are parsed, compiled and evaluated by
/// loops, not by recursion, so their links do not count as nesting; each
/// link still nests the tree a level, so the links of the chains open at any
/// point are limited to ``maxChainLinks`` (and to what the stack left holds,
/// ``stackPerLink`` bytes a link: releasing the tree recurses). Key and index chains (`a.b.c`,
/// `a[0][1]`) count as nesting.
struct _PredicateParser {
    /// The deepest nesting of parentheses, braces, NOT, unary minus and calls.
    static let maxDepth = 100
    /// The most links of arithmetic chains open at once (`1 + 1 + …` with 1,002 terms is too many).
    static let maxChainLinks = 1_000

    typealias Condition = FormatPredicate.Condition
    typealias Expression = FormatPredicate.Expression

    let lexer: _PredicateLexer
    let tokens: [_Token]
    /// For each `(`, the index of its `)`.
    let closing: [Int: Int]
    var index = 0
    let arguments: [RecordValue]
    var nextArgument = 0
    var depth = 0
    /// The links of the chains being parsed (each nests the tree a level).
    var chainLinks = 0
    /// Below this stack address, nesting deeper is refused (nil: not known
    /// yet; 0: the stack cannot be measured, and only the depth limits).
    var stackFloor: UInt?
    /// The stack address where parsing started.
    var stackStart: UInt = 0

    init(format: String, arguments: [RecordValue]) throws(PredicateSyntaxError) {
        var lexer = _PredicateLexer(format)
        tokens = try lexer.tokens()
        self.lexer = lexer
        self.arguments = arguments
        var closing: [Int: Int] = [:], open: [Int] = []
        for (k, token) in tokens.enumerated() {
            if token.tag == .leftParenthesis { open.append(k) }
            if token.tag == .rightParenthesis, let o = open.popLast() { closing[o] = k }
        }
        self.closing = closing
    }

    // MARK: Tokens

    var current: _Token { tokens[index] }
    var tag: _Tag { tokens[index].tag }

    mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    /// The text of a token as written.
    func text(_ token: _Token) -> String {
        String(decoding: lexer.bytes[token.offset..<min(lexer.bytes.count, token.offset + token.length)], as: UTF8.self)
    }

    // MARK: Errors (built outside the recursive functions)

    @inline(never)
    func error(_ expected: String, at token: _Token? = nil, found: String? = nil) -> PredicateSyntaxError {
        let token = token ?? current
        let described: String
        switch token.tag {
        case .end: described = "the end of the format"
        case .string: described = "the string \(text(token))"
        default: described = "'\(text(token))'"
        }
        return lexer.error(at: token.offset, expected: expected, found: found ?? described)
    }

    @inline(never)
    func error(after token: _Token, _ what: String) -> PredicateSyntaxError {
        error("\(what) after '\(text(token))'")
    }

    @inline(never)
    func reservedWordError(_ context: String) -> PredicateSyntaxError {
        if current.tag == .unsupportedReserved { return error("\(context) (\(text(current).uppercased()) is reserved and not supported)") }
        return error("\(context) ('\(text(current))' is a reserved word: write #\(text(current)) to use it as a key)")
    }

    mutating func expect(_ tag: _Tag, _ expected: String) throws(PredicateSyntaxError) {
        guard self.tag == tag else { throw error(expected) }
        advance()
    }

    mutating func enter() throws(PredicateSyntaxError) {
        depth += 1
        if depth > Self.maxDepth { throw nestingError() }
        // Every level checks the stack (its bounds are read once, at the first).
        let floor = stackFloor ?? Self.stackFloor(start: stackStart)
        stackFloor = floor
        if _ThreadStack.currentAddress() < floor { throw nestingError() }
    }

    /// The lowest stack address nesting may reach (`_ThreadStack.floor`):
    /// half of what is left below `start`, at most 128 KiB, stays for the
    /// caller and for evaluating; without the stack's bounds, 32 KiB below
    /// `start` may be used; 0 (only the depth limits nesting) when `start` is
    /// not on the thread's stack.
    static func stackFloor(start: UInt) -> UInt {
        _ThreadStack.floor(start: start, reserve: 128 * 1024, unknownBudget: 32 * 1024)
    }

    @inline(never)
    func nestingError() -> PredicateSyntaxError {
        error("at most \(Self.maxDepth) levels of nesting", found: "more")
    }

    mutating func leave() { depth -= 1 }

    /// One more link of a chain: the tree a level deeper, the parser's stack not.
    mutating func link() throws(PredicateSyntaxError) {
        chainLinks += 1
        if chainLinks > Self.maxChainLinks { throw chainError() }
        // What recurses on the tree (releasing it, comparing it) takes a few
        // frames a level: the stack left must hold them, as for nesting.
        let floor = stackFloor ?? Self.stackFloor(start: stackStart)
        stackFloor = floor
        if floor > 0, _ThreadStack.currentAddress() < floor + UInt(chainLinks) * Self.stackPerLink { throw chainError() }
    }

    /// The stack a link of a chain is given for what recurses on the tree.
    static let stackPerLink: UInt = 256

    @inline(never)
    func chainError() -> PredicateSyntaxError {
        error("at most \(Self.maxChainLinks) operators in a chain", found: "more")
    }

    // MARK: Conditions

    mutating func parse() throws(PredicateSyntaxError) -> Condition {
        stackStart = _ThreadStack.currentAddress()
        if tag == .end { throw error("a condition") }
        let condition = try parseOr()
        guard tag == .end else {
            throw error(tag == .rightParenthesis ? "the end of the format (this ')' closes nothing)" : "AND, OR or the end of the format")
        }
        return condition
    }

    mutating func parseOr() throws(PredicateSyntaxError) -> Condition {
        var parts = [try parseAnd(after: nil)]
        while tag == .or || tag == .orSymbol {
            let connective = current
            advance()
            parts.append(try parseAnd(after: connective))
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    mutating func parseAnd(after connective: _Token?) throws(PredicateSyntaxError) -> Condition {
        var parts = [try parseNot(after: connective)]
        while tag == .and || tag == .andSymbol {
            let connective = current
            advance()
            parts.append(try parseNot(after: connective))
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    mutating func parseNot(after connective: _Token?) throws(PredicateSyntaxError) -> Condition {
        switch tag {
        case .end, .and, .or, .andSymbol, .orSymbol, .rightParenthesis:
            throw connective.map { error(after: $0, "a condition") } ?? error("a condition")
        case .not, .bang:
            let not = current
            advance()
            try enter()
            defer { leave() }
            return .not(try parseNot(after: not))
        case .truePredicate, .falsePredicate:
            let value = tag == .truePredicate
            advance()
            return .constant(value)
        case .leftParenthesis where parenthesizesCondition():
            // `(` opens a condition, unless what follows its `)` goes on with an
            // expression: `(age + 5) * 2 == 70`.
            let open = current
            advance()
            try enter()
            defer { leave() }
            let inner = try parseOr()
            guard tag == .rightParenthesis else { throw unclosedError(open) }
            advance()
            return inner
        default:
            return .comparison(try parseComparison())
        }
    }

    func parenthesizesCondition() -> Bool {
        guard let close = closing[index] else { return true }
        switch tokens[close + 1].tag {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .plus, .minus, .star, .slash, .power, .dot,
             .leftBracket, .between, .in, .contains, .beginsWith, .endsWith, .like, .matches, .uti:
            return false
        default:
            return true
        }
    }

    @inline(never)
    func unclosedError(_ open: _Token) -> PredicateSyntaxError {
        error("AND, OR or ')' to close the '(' at offset \(_PredicateLexer.characterOffset(open.offset, in: lexer.format))")
    }

    mutating func parseComparison() throws(PredicateSyntaxError) -> FormatPredicate.Comparison {
        let start = index
        var quantifier: FormatPredicate.Quantifier?
        switch tag {
        case .any: quantifier = .any
        case .some: quantifier = .some
        case .all: quantifier = .all
        case .none: quantifier = FormatPredicate.Quantifier.none
        default: break
        }
        if quantifier != nil { advance() }
        let left = try parseExpression(quantifier == nil ? .condition : .collection)
        guard let op = tag.comparisonOperator else { throw missingOperatorError(from: start) }
        let operatorToken = current
        advance()
        let options = tag == .leftBracket ? try parseOptions() : []
        let right = try parseExpression(.after(operatorToken))
        if tag.comparisonOperator != nil { throw error("AND, OR or the end of the condition (comparisons do not chain: write a < b AND b < c)") }
        return FormatPredicate.Comparison(left, op, right, options: options, quantifier: quantifier)
    }

    @inline(never)
    func missingOperatorError(from start: Int) -> PredicateSyntaxError {
        if tag == .uti { return error("a comparison operator available here (\(text(current).uppercased()) needs Apple's uniform type identifiers)") }
        if tag == .assign { return error("a comparison operator (assignments, $x := …, are not supported)") }
        if tag == .identifier, ["UNION", "INTERSECT", "MINUS"].contains(text(current).uppercased()) {
            return error("a comparison operator (\(text(current).uppercased()), a set expression, is not supported)")
        }
        let written = String(decoding: lexer.bytes[tokens[start].offset..<current.offset], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        let hint = tokens[start].tag == .objectArgument && index == start + 1 ? " (%@ stands for a value, never a whole predicate)" : ""
        return error("a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES) after '\(written)'\(hint)")
    }

    /// `[c]`, `[d]`, `[cd]`, `[n]`, `[l]`, in any order.
    mutating func parseOptions() throws(PredicateSyntaxError) -> FormatPredicate.Options {
        advance()   // [
        var options: FormatPredicate.Options = []
        guard tag == .identifier || (tag != .end && tag.rawValue >= _Tag.and.rawValue) else {
            throw error("option letters: c, d, n or l (as in [cd])")
        }
        for letter in text(current) {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            case "l": options.insert(.localeSensitive)
            default: throw error("option letters: c, d, n or l, lower-case (as in [cd])")
            }
        }
        advance()
        try expect(.rightBracket, "']' to close the options")
        return options
    }

    // MARK: Expressions

    /// What an expression is for, for the message when it is missing.
    enum Context {
        case condition, collection, index, element, argument
        case after(_Token)
    }

    @inline(never)
    func missingExpressionError(_ context: Context) -> PredicateSyntaxError {
        let expected: String
        switch context {
        case .condition: expected = "a condition"
        case .collection: expected = "a collection after '\(text(tokens[index - 1]))'"
        case .index: expected = "an index: FIRST, LAST, SIZE, a number or a key"
        case .element: expected = "an element or '}'"
        case .argument: expected = "an argument or ')'"
        case .after(let token): expected = "an expression after '\(text(token))'"
        }
        switch tag {
        case .and, .or, .not, .any, .some, .all, .none, .between, .in, .contains, .beginsWith, .endsWith, .like, .matches,
             .first, .last, .size, .truePredicate, .falsePredicate, .uti, .unsupportedReserved:
            return reservedWordError(expected)
        default:
            return error(expected)
        }
    }

    // Each link of an arithmetic chain (`a + b + c`) nests the tree one level
    // deeper, and counts toward the chain limit (not toward nesting: the loops
    // below parse it, and the compiler's compiles it, without recursing). A
    // key or index (`a.b`, `a[0]`) counts as nesting.

    mutating func parseExpression(_ context: Context) throws(PredicateSyntaxError) -> Expression {
        var e = try parseMultiplicative(context)
        var links = 0
        defer { chainLinks -= links }
        while tag == .plus || tag == .minus {
            try link()
            links += 1
            let token = current
            advance()
            e = .arithmetic(e, token.tag == .plus ? .add : .subtract, try parseMultiplicative(.after(token)))
        }
        return e
    }

    mutating func parseMultiplicative(_ context: Context) throws(PredicateSyntaxError) -> Expression {
        var e = try parsePower(context)
        var links = 0
        defer { chainLinks -= links }
        while tag == .star || tag == .slash {
            try link()
            links += 1
            let token = current
            advance()
            if token.tag == .slash && (tag == .slash || tag == .star) {
                throw error("an expression after '/' (the format language has no comments)")
            }
            e = .arithmetic(e, token.tag == .star ? .multiply : .divide, try parsePower(.after(token)))
        }
        return e
    }

    mutating func parsePower(_ context: Context) throws(PredicateSyntaxError) -> Expression {
        var e = try parseUnary(context)
        var links = 0
        defer { chainLinks -= links }
        while tag == .power {
            try link()
            links += 1
            let token = current
            advance()
            e = .arithmetic(e, .power, try parseUnary(.after(token)))
        }
        return e
    }

    mutating func parseUnary(_ context: Context) throws(PredicateSyntaxError) -> Expression {
        guard tag == .minus else { return try parsePostfix(context) }
        let minus = current
        advance()
        // -9223372036854775808 is Int64.min (Int.min where Int has 64 bits),
        // though 9223372036854775808 is not an Int.
        if tag == .number, current.length == 19, text(current) == "9223372036854775808",
            tokens[index + 1].tag != .dot, tokens[index + 1].tag != .leftBracket
        {
            advance()
            return .constant(Int64.min.recordValue)
        }
        try enter()
        defer { leave() }
        let literal = tag == .number
        let operand = try parseUnary(.after(minus))
        // A written integer below Int.min is refused, as one above UInt64.max is.
        if literal, case .constant(.uint(let u)) = operand, u > Int.min.magnitude {
            throw error("an integer that fits in 64 bits (\(Int.min)…\(UInt64.max)), or a decimal point for a double", at: minus, found: "'-\(u)'")
        }
        return Self.negated(operand)
    }

    static func negated(_ operand: Expression) -> Expression {
        if case .constant(let value) = operand, let negative = _PredicateValues.negatedConstant(value) { return .constant(negative) }
        return .negation(operand)
    }

    mutating func parsePostfix(_ context: Context) throws(PredicateSyntaxError) -> Expression {
        var e = try parsePrimary(context)
        var links = 0
        defer { depth -= links }
        while true {
            if tag == .dot || tag == .leftBracket {
                // Keys and indexes are compiled by recursion: they count as nesting.
                try enter()
                links += 1
            }
            switch tag {
            case .dot:
                advance()
                e = try parseMember(of: e)
            case .leftBracket:
                advance()
                e = .index(e, try parseIndex())
                try expect(.rightBracket, "']' to close the index")
            default:
                return e
            }
        }
    }

    /// After a `.`: a key, `@operator` (with the keys that follow it), or `%K`.
    mutating func parseMember(of base: Expression) throws(PredicateSyntaxError) -> Expression {
        switch current.kind {
        case .identifier(let name), .escapedIdentifier(let name):
            advance()
            return .member(base, name)
        case .at:
            return try parseCollectionOperator(on: base)
        case .argument("K"):
            return Self.keyPath(try keyPathArgument(), on: base)
        case .keyword:
            throw reservedWordError("a key after '.'")
        default:
            throw error("a key after '.'")
        }
    }

    mutating func parseCollectionOperator(on base: Expression) throws(PredicateSyntaxError) -> Expression {
        guard case .at(let name) = current.kind, let op = FormatPredicate.CollectionOperator(rawValue: "@" + name) else {
            throw unknownCollectionOperatorError()
        }
        advance()
        var keys: [String] = []
        while tag == .dot, index + 1 < tokens.count {
            switch tokens[index + 1].kind {
            case .identifier(let key), .escapedIdentifier(let key):
                keys.append(key)
                advance()
                advance()
            case .argument("K"):
                // `.@sum.%K`: the key path's plain keys are the operator's; an
                // operator in it applies to the result.
                advance()
                let path = try keyPathArgument()
                let plain = path.prefix { FormatPredicate.CollectionOperator(rawValue: $0) == nil }
                keys += plain
                if plain.count < path.count { return Self.keyPath(Array(path[plain.count...]), on: .collectionOperator(base, op, keys)) }
            default:
                return .collectionOperator(base, op, keys)
            }
        }
        return .collectionOperator(base, op, keys)
    }

    @inline(never)
    func unknownCollectionOperatorError() -> PredicateSyntaxError {
        error("a collection operator: \(FormatPredicate.CollectionOperator.allCases.map(\.rawValue).joined(separator: ", "))")
    }

    /// A key path given as `%K`: keys split on `.`, not checked against the
    /// reserved words; `@count` and the other operators are operators.
    static func keyPath(_ path: [String], on base: Expression?) -> Expression {
        var e = base
        var k = 0
        while k < path.count {
            let key = path[k]
            if let op = FormatPredicate.CollectionOperator(rawValue: key) {
                let rest = Array(path[(k + 1)...].prefix { FormatPredicate.CollectionOperator(rawValue: $0) == nil })
                e = .collectionOperator(e ?? .evaluatedObject, op, rest)
                k += 1 + rest.count
            } else {
                e = e.map { .member($0, key) } ?? .key(key)
                k += 1
            }
        }
        return e ?? .evaluatedObject
    }

    mutating func keyPathArgument() throws(PredicateSyntaxError) -> [String] {
        let token = current
        let value = try takeArgument()
        guard case .string(let path) = value, !path.isEmpty else { throw keyPathArgumentError(value, at: token) }
        return path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    @inline(never)
    func keyPathArgumentError(_ value: RecordValue, at token: _Token) -> PredicateSyntaxError {
        error("a key path string for %K, not \(PredicateEvaluationError.article(value.kindName))", at: token)
    }

    mutating func takeArgument() throws(PredicateSyntaxError) -> RecordValue {
        guard nextArgument < arguments.count else { throw missingArgumentError() }
        defer { nextArgument += 1; advance() }
        return arguments[nextArgument]
    }

    @inline(never)
    func missingArgumentError() -> PredicateSyntaxError {
        let count = arguments.count
        let given = count == 0 ? "no arguments were" : count == 1 ? "1 argument was" : "\(count) arguments were"
        return error("argument \(nextArgument + 1) for \(text(current)) (\(given) given)")
    }

    mutating func parseIndex() throws(PredicateSyntaxError) -> FormatPredicate.Index {
        switch tag {
        case .first: advance(); return .first
        case .last: advance(); return .last
        case .size: advance(); return .size
        case .rightBracket: throw error("an index: FIRST, LAST, SIZE, a number or a key")
        default:
            try enter()
            defer { leave() }
            return .at(try parseExpression(.index))
        }
    }

    mutating func parsePrimary(_ context: Context) throws(PredicateSyntaxError) -> Expression {
        switch tag {
        case .number, .string, .null, .true, .false, .self:
            return constantPrimary()
        case .keyArgument:
            return Self.keyPath(try keyPathArgument(), on: nil)
        case .objectArgument, .printfArgument:
            return .constant(try takeArgument())
        case .identifier, .escapedIdentifier, .variable, .selector, .at:
            return try namedPrimary()
        case .subquery:
            return try parseSubquery()
        case .cast:
            return try parseCast()
        case .leftBrace:
            return try parseAggregate()
        case .leftParenthesis:
            advance()
            try enter()
            defer { leave() }
            let inner = try parseExpression(.after(tokens[index - 1]))
            try expect(.rightParenthesis, "')' to close the '('")
            return inner
        default:
            throw missingExpressionError(context)
        }
    }

    mutating func constantPrimary() -> Expression {
        let token = current
        advance()
        switch token.kind {
        case .number(let value): return .constant(value)
        case .string(let s): return .constant(.string(s))
        default:
            switch token.tag {
            case .true: return .constant(.bool(true))
            case .false: return .constant(.bool(false))
            case .self: return .evaluatedObject
            default: return .constant(.null)
            }
        }
    }

    /// A key, a variable, a function call, or a collection operator on SELF.
    mutating func namedPrimary() throws(PredicateSyntaxError) -> Expression {
        let token = current
        switch token.kind {
        case .identifier(let name):
            advance()
            guard tag == .leftParenthesis else { return .key(name) }
            if name == "FUNCTION" || name == "TERNARY" { throw unsupportedError(name, at: token) }
            return try parseCall(name, at: token)
        case .selector(let selector):
            advance()
            guard tag == .leftParenthesis else { throw error("'(' after the function name '\(selector)'") }
            return try parseCall(selector, at: token)
        case .escapedIdentifier(let name):
            advance()
            return .key(name)
        case .variable(let name):
            advance()
            return .variable(name)
        default:
            return try parseCollectionOperator(on: .evaluatedObject)
        }
    }

    @inline(never)
    func unsupportedError(_ name: String, at token: _Token) -> PredicateSyntaxError {
        error(name == "FUNCTION" ? "a supported expression (FUNCTION(…) calls Objective-C methods and is not supported)" : "a supported expression (TERNARY(…) is not supported)", at: token)
    }

    mutating func parseAggregate() throws(PredicateSyntaxError) -> Expression {
        advance()   // {
        try enter()
        defer { leave() }
        var elements: [Expression] = []
        if tag != .rightBrace {
            elements.append(try parseExpression(.element))
            while tag == .comma {
                let comma = current
                advance()
                elements.append(try parseExpression(.after(comma)))
            }
        }
        try expect(.rightBrace, "',' or '}' to close the '{'")
        var constants: [RecordValue] = []
        for e in elements {
            guard case .constant(let v) = e else { return .aggregate(elements) }
            constants.append(v)
        }
        return .constant(.array(constants))
    }

    /// `name(args)` or `selector:(args)`.
    mutating func parseCall(_ spelled: String, at token: _Token) throws(PredicateSyntaxError) -> Expression {
        advance()   // (
        try enter()
        defer { leave() }
        var args: [Expression] = []
        if tag != .rightParenthesis {
            args.append(try parseExpression(.argument))
            while tag == .comma {
                let comma = current
                advance()
                args.append(try parseExpression(.after(comma)))
            }
        }
        try expect(.rightParenthesis, "',' or ')' to close the arguments")
        return .function(try function(spelled, arguments: args.count, at: token), args)
    }

    /// The function called `spelled` with `count` arguments.
    @inline(never)
    func function(_ spelled: String, arguments count: Int, at token: _Token) throws(PredicateSyntaxError) -> FormatPredicate.Function {
        if spelled == "distanceToLocation:fromLocation:" {
            throw error("a supported function (distanceToLocation:fromLocation: needs Core Location)", at: token, found: "'\(spelled)'")
        }
        let parts = spelled.split(separator: ":").map(String.init)
        let name = parts.first ?? spelled
        let candidates = FormatPredicate.Function.allCases.filter { parts.count > 1 ? $0.rawValue == spelled : $0.name == name }
        guard !candidates.isEmpty else {
            var known: [String] = []
            for f in FormatPredicate.Function.allCases {
                let spelled = f.arity == 2 ? f.rawValue : f.name
                if !known.contains(spelled) { known.append(spelled) }
            }
            throw error("a known function (\(known.joined(separator: ", ")))", at: token, found: "'\(spelled)'")
        }
        if let match = candidates.first(where: { $0.arity.map { $0 == count } ?? (count >= 1) }) { return match }
        let takes = candidates.map { f -> String in
            guard let arity = f.arity else { return "one array or several values" }
            return arity == 1 ? "1 argument" : "\(arity) arguments"
        }
        throw error("\(name) with \(takes.joined(separator: " or "))", at: token, found: "\(count) argument\(count == 1 ? "" : "s")")
    }

    mutating func parseSubquery() throws(PredicateSyntaxError) -> Expression {
        advance()
        try expect(.leftParenthesis, "'(' after SUBQUERY, as in SUBQUERY(collection, $variable, condition)")
        try enter()
        defer { leave() }
        let collection = try parseExpression(.argument)
        try expect(.comma, "',' and a $variable after the collection, as in SUBQUERY(collection, $variable, condition)")
        guard case .variable(let name) = current.kind else { throw error("a $variable, as in SUBQUERY(collection, $variable, condition)") }
        advance()
        try expect(.comma, "',' and a condition after the variable, as in SUBQUERY(collection, $variable, condition)")
        let condition = try parseOr()
        try expect(.rightParenthesis, "')' to close SUBQUERY(collection, $variable, condition)")
        return .subquery(collection, variable: name, condition)
    }

    mutating func parseCast() throws(PredicateSyntaxError) -> Expression {
        let castToken = current
        advance()
        try expect(.leftParenthesis, "'(' after CAST, as in CAST(value, 'NSDate')")
        try enter()
        defer { leave() }
        let value = try parseExpression(.argument)
        try expect(.comma, "',' and a type name after the value, as in CAST(value, 'NSDate')")
        let typeToken = current
        let typeExpression = try parseExpression(.argument)
        guard case .constant(.string(let name)) = typeExpression, let type = FormatPredicate.CastType(rawValue: name) else {
            throw error("a type name: 'NSDate', 'NSNumber' or 'NSString'", at: typeToken)
        }
        try expect(.rightParenthesis, "')' to close CAST")
        guard case .constant(let constant) = value else { return .cast(value, type) }
        do throws(PredicateEvaluationError) {
            return .constant(try _PredicateValues.cast(constant, to: type))
        } catch {
            throw self.error("a value CAST can convert (\(error))", at: castToken)
        }
    }
}
