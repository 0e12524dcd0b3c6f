import Foundation

/// A recursive-descent parser for the format language (PREDICATES.md §3):
/// NOT over AND over OR, arithmetic with the usual precedence, format
/// arguments substituted as they are met. Constants are folded (`-1`, `{1, 2}`,
/// `CAST(0, 'NSDate')`), so that printing a tree and parsing it again gives the
/// same tree.
///
/// Nesting is limited (``maxDepth``); every path consumes a token or fails, and
/// `(` is resolved once per parenthesis (no backtracking), so parsing is linear.
struct _PredicateParser {
    /// The deepest nesting of parentheses, braces, NOT, unary minus and calls.
    static let maxDepth = 100

    let lexer: _PredicateLexer
    let tokens: [_Token]
    /// For each `(`, the index of its `)`.
    let closing: [Int: Int]
    var index = 0
    let arguments: [RecordValue]
    var nextArgument = 0
    var depth = 0

    init(format: String, arguments: [RecordValue]) throws(PredicateSyntaxError) {
        var lexer = _PredicateLexer(format)
        tokens = try lexer.tokens()
        self.lexer = lexer
        self.arguments = arguments
        var closing: [Int: Int] = [:], open: [Int] = []
        for (k, token) in tokens.enumerated() {
            if token.kind == .symbol("(") { open.append(k) }
            if token.kind == .symbol(")"), let o = open.popLast() { closing[o] = k }
        }
        self.closing = closing
    }

    typealias Condition = FormatPredicate.Condition
    typealias Expression = FormatPredicate.Expression

    // MARK: Tokens

    var current: _Token { tokens[index] }

    mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    func isSymbol(_ s: String) -> Bool { current.kind == .symbol(s) }
    func isKeyword(_ k: String) -> Bool { current.kind == .keyword(k) }

    /// The text of a token as written.
    func text(_ token: _Token) -> String {
        String(decoding: lexer.bytes[token.offset..<min(lexer.bytes.count, token.offset + token.length)], as: UTF8.self)
    }

    func describe(_ token: _Token) -> String {
        switch token.kind {
        case .end: return "the end of the format"
        case .string: return "the string \(text(token))"
        default: return "'\(text(token))'"
        }
    }

    func error(_ expected: String, at token: _Token? = nil, found: String? = nil) -> PredicateSyntaxError {
        let token = token ?? current
        return lexer.error(at: token.offset, expected: expected, found: found ?? describe(token))
    }

    mutating func expect(_ symbol: String, _ expected: String) throws(PredicateSyntaxError) {
        guard isSymbol(symbol) else { throw error(expected) }
        advance()
    }

    mutating func enter() throws(PredicateSyntaxError) {
        depth += 1
        if depth > Self.maxDepth {
            throw error("at most \(Self.maxDepth) levels of nesting", found: "more")
        }
    }

    mutating func leave() { depth -= 1 }

    // MARK: Conditions

    mutating func parse() throws(PredicateSyntaxError) -> Condition {
        if current.kind == .end { throw error("a condition") }
        let condition = try parseOr()
        guard current.kind == .end else {
            if isSymbol(")") { throw error("the end of the format (this ')' closes nothing)") }
            throw error("AND, OR or the end of the format")
        }
        return condition
    }

    mutating func parseOr() throws(PredicateSyntaxError) -> Condition {
        var parts = [try parseAnd()]
        while isKeyword("OR") || isSymbol("||") {
            let connective = text(current)
            advance()
            parts.append(try parseAnd(after: connective))
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    mutating func parseAnd(after connective: String? = nil) throws(PredicateSyntaxError) -> Condition {
        var parts = [try parseNot(after: connective)]
        while isKeyword("AND") || isSymbol("&&") {
            let connective = text(current)
            advance()
            parts.append(try parseNot(after: connective))
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    mutating func parseNot(after connective: String? = nil) throws(PredicateSyntaxError) -> Condition {
        if current.kind == .end || isKeyword("AND") || isKeyword("OR") || isSymbol("&&") || isSymbol("||") || isSymbol(")") {
            throw error(connective.map { "a condition after '\($0)'" } ?? "a condition")
        }
        if isKeyword("NOT") || isSymbol("!") {
            let not = text(current)
            advance()
            try enter()
            defer { leave() }
            return .not(try parseNot(after: not))
        }
        if isKeyword("TRUEPREDICATE") || isKeyword("FALSEPREDICATE") {
            let value = isKeyword("TRUEPREDICATE")
            advance()
            return .constant(value)
        }
        // `(` opens a condition, unless what follows its `)` goes on with an
        // expression: `(age + 5) * 2 == 70` (PREDICATES.md §3.1).
        if isSymbol("("), closing[index].map({ !Self.continuesExpression(tokens[$0 + 1].kind) }) ?? true {
            let open = current
            advance()
            try enter()
            defer { leave() }
            let inner = try parseOr()
            try expect(")", "AND, OR or ')' to close the '(' at offset \(_PredicateLexer.characterOffset(open.offset, in: lexer.format))")
            return inner
        }
        return .comparison(try parseComparison())
    }

    static func continuesExpression(_ kind: _Token.Kind) -> Bool {
        switch kind {
        case .symbol(let s): return ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "+", "-", "*", "/", "**", ".", "["].contains(s)
        case .keyword(let k): return ["BETWEEN", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "UTI-CONFORMS-TO", "UTI-EQUALS"].contains(k)
        default: return false
        }
    }

    mutating func parseComparison() throws(PredicateSyntaxError) -> FormatPredicate.Comparison {
        let start = current
        var quantifier: FormatPredicate.Quantifier?
        if case .keyword(let k) = current.kind, let q = FormatPredicate.Quantifier(rawValue: k) {
            quantifier = q
            advance()
        }
        let left = try parseExpression(quantifier.map { "a collection after '\($0.rawValue)'" } ?? "a condition")
        let written = String(decoding: lexer.bytes[start.offset..<current.offset], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        let operatorToken = current
        guard let op = try parseOperator() else {
            let hint = start.kind == .argument("@") && index == tokens.firstIndex(of: start).map({ $0 + 1 }) ? " (%@ stands for a value, never a whole predicate)" : ""
            throw error("a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES) after '\(written)'\(hint)")
        }
        let options = try parseOptions()
        let right = try parseExpression("an expression after '\(text(operatorToken))'")
        if (try? peekOperator()) != nil {
            throw error("AND, OR or the end of the condition (comparisons do not chain: write a < b AND b < c)")
        }
        return FormatPredicate.Comparison(left, op, right, options: options, quantifier: quantifier)
    }

    /// The operator at the current token, without consuming it.
    func peekOperator() throws(PredicateSyntaxError) -> FormatPredicate.Operator? {
        switch current.kind {
        case .symbol(let s):
            switch s {
            case "=", "==": return .equal
            case "!=", "<>": return .notEqual
            case "<": return .less
            case "<=", "=<": return .lessOrEqual
            case ">": return .greater
            case ">=", "=>": return .greaterOrEqual
            default: return nil
            }
        case .keyword(let k):
            if k == "UTI-CONFORMS-TO" || k == "UTI-EQUALS" {
                throw error("a comparison operator available here (\(k) needs Apple's uniform type identifiers)")
            }
            return FormatPredicate.Operator(rawValue: k)
        default:
            return nil
        }
    }

    mutating func parseOperator() throws(PredicateSyntaxError) -> FormatPredicate.Operator? {
        guard let op = try peekOperator() else { return nil }
        advance()
        return op
    }

    /// `[c]`, `[d]`, `[cd]`, `[n]`, `[l]`, in any order.
    mutating func parseOptions() throws(PredicateSyntaxError) -> FormatPredicate.Options {
        guard isSymbol("[") else { return [] }
        advance()
        var options: FormatPredicate.Options = []
        let letters: String
        switch current.kind {
        case .identifier(let word): letters = word
        case .keyword: letters = text(current)
        default: throw error("option letters: c, d, n or l (as in [cd])")
        }
        for letter in letters {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            case "l": options.insert(.localeSensitive)
            default: throw error("option letters: c, d, n or l, lower-case (as in [cd])")
            }
        }
        advance()
        try expect("]", "']' to close the options")
        return options
    }

    // MARK: Expressions

    mutating func parseExpression(_ context: String) throws(PredicateSyntaxError) -> Expression {
        var e = try parseMultiplicative(context)
        while isSymbol("+") || isSymbol("-") {
            let op: FormatPredicate.ArithmeticOperator = isSymbol("+") ? .add : .subtract
            advance()
            e = .arithmetic(e, op, try parseMultiplicative("an expression after '\(op.rawValue)'"))
        }
        return e
    }

    mutating func parseMultiplicative(_ context: String) throws(PredicateSyntaxError) -> Expression {
        var e = try parsePower(context)
        while isSymbol("*") || isSymbol("/") {
            let op: FormatPredicate.ArithmeticOperator = isSymbol("*") ? .multiply : .divide
            advance()
            if op == .divide && (isSymbol("/") || isSymbol("*")) {
                throw error("an expression after '/' (the format language has no comments)")
            }
            e = .arithmetic(e, op, try parsePower("an expression after '\(op.rawValue)'"))
        }
        return e
    }

    mutating func parsePower(_ context: String) throws(PredicateSyntaxError) -> Expression {
        var e = try parseUnary(context)
        while isSymbol("**") {
            advance()
            e = .arithmetic(e, .power, try parseUnary("an expression after '**'"))
        }
        return e
    }

    mutating func parseUnary(_ context: String) throws(PredicateSyntaxError) -> Expression {
        guard isSymbol("-") else { return try parsePostfix(context) }
        advance()
        // -9223372036854775808 is Int.min, though 9223372036854775808 is not an Int.
        if case .number = current.kind, text(current) == "9223372036854775808" {
            advance()
            return .constant(.int(Int.min))
        }
        try enter()
        defer { leave() }
        let operand = try parseUnary("an expression after '-'")
        switch operand {
        case .constant(.int(let i)) where i != Int.min: return .constant(.int(-i))
        case .constant(.double(let d)): return .constant(.double(-d))
        default: return .negation(operand)
        }
    }

    mutating func parsePostfix(_ context: String) throws(PredicateSyntaxError) -> Expression {
        var e = try parsePrimary(context)
        while true {
            if isSymbol(".") {
                advance()
                e = try parseMember(of: e)
            } else if isSymbol("[") {
                advance()
                e = .index(e, try parseIndex())
                try expect("]", "']' to close the index")
            } else {
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
            let path = try keyPathArgument()
            return Self.keyPath(path, on: base)
        case .keyword:
            throw error("a key after '.' ('\(text(current))' is a reserved word: write #\(text(current)) to use it as a key)")
        default:
            throw error("a key after '.'")
        }
    }

    mutating func parseCollectionOperator(on base: Expression) throws(PredicateSyntaxError) -> Expression {
        guard case .at(let name) = current.kind else { throw error("a collection operator") }
        guard let op = FormatPredicate.CollectionOperator(rawValue: "@" + name) else {
            throw error("a collection operator: \(FormatPredicate.CollectionOperator.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        advance()
        var keys: [String] = []
        while isSymbol("."), index + 1 < tokens.count {
            switch tokens[index + 1].kind {
            case .identifier(let key), .escapedIdentifier(let key):
                keys.append(key)
                advance()
                advance()
            default:
                return .collectionOperator(base, op, keys)
            }
        }
        return .collectionOperator(base, op, keys)
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
        guard case .string(let path) = value, !path.isEmpty else {
            throw error("a key path string for %K, not \(PredicateEvaluationError.article(value.kindName))", at: token)
        }
        return path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    mutating func takeArgument() throws(PredicateSyntaxError) -> RecordValue {
        guard nextArgument < arguments.count else {
            let count = arguments.count
            throw error("argument \(nextArgument + 1) for \(text(current)) (\(count == 0 ? "no arguments were" : count == 1 ? "1 argument was" : "\(count) arguments were") given)")
        }
        defer { nextArgument += 1; advance() }
        return arguments[nextArgument]
    }

    mutating func parseIndex() throws(PredicateSyntaxError) -> FormatPredicate.Index {
        switch current.kind {
        case .keyword("FIRST"): advance(); return .first
        case .keyword("LAST"): advance(); return .last
        case .keyword("SIZE"): advance(); return .size
        case .symbol("]"): throw error("an index: FIRST, LAST, SIZE, a number or a key")
        default:
            try enter()
            defer { leave() }
            return .at(try parseExpression("an index: FIRST, LAST, SIZE, a number or a key"))
        }
    }

    mutating func parsePrimary(_ context: String) throws(PredicateSyntaxError) -> Expression {
        let token = current
        switch token.kind {
        case .number(let value):
            advance()
            return .constant(value)
        case .string(let s):
            advance()
            return .constant(.string(s))
        case .argument("K"):
            return Self.keyPath(try keyPathArgument(), on: nil)
        case .argument:
            return .constant(try takeArgument())
        case .variable(let name):
            advance()
            if isSymbol(":=") { throw error("a comparison operator (assignments, $x := …, are not supported)") }
            return .variable(name)
        case .identifier(let name):
            advance()
            if name == "FUNCTION" || name == "TERNARY" {
                throw error(name == "FUNCTION" ? "a supported expression (FUNCTION(…) calls Objective-C methods and is not supported)" : "a supported expression (TERNARY(…) is not supported)", at: token)
            }
            if isSymbol("(") { return try parseCall(name, at: token) }
            return .key(name)
        case .selector(let selector):
            advance()
            guard isSymbol("(") else { throw error("'(' after the function name '\(selector)'") }
            return try parseCall(selector, at: token)
        case .escapedIdentifier(let name):
            advance()
            return .key(name)
        case .at:
            return try parseCollectionOperator(on: .evaluatedObject)
        case .keyword(let word):
            switch word {
            case "NULL", "NIL": advance(); return .constant(.null)
            case "TRUE", "YES": advance(); return .constant(.bool(true))
            case "FALSE", "NO": advance(); return .constant(.bool(false))
            case "SELF": advance(); return .evaluatedObject
            case "SUBQUERY": return try parseSubquery()
            case "CAST": return try parseCast()
            case "ANYKEY", "FETCH", "CASEINSENSITIVE", "CI":
                throw error("\(context) (\(word) is reserved and not supported)")
            default:
                throw error("\(context) ('\(text(token))' is a reserved word: write #\(text(token)) to use it as a key)")
            }
        case .symbol("{"):
            advance()
            try enter()
            defer { leave() }
            var elements: [Expression] = []
            if !isSymbol("}") {
                elements.append(try parseExpression("an element or '}'"))
                while isSymbol(",") {
                    advance()
                    elements.append(try parseExpression("an element after ','"))
                }
            }
            try expect("}", "',' or '}' to close the '{'")
            var constants: [RecordValue] = []
            for e in elements {
                guard case .constant(let v) = e else { return .aggregate(elements) }
                constants.append(v)
            }
            return .constant(.array(constants))
        case .symbol("("):
            advance()
            try enter()
            defer { leave() }
            let inner = try parseExpression("an expression after '('")
            try expect(")", "')' to close the '('")
            return inner
        default:
            throw error(context)
        }
    }

    /// `name(args)` or `selector:(args)`.
    mutating func parseCall(_ spelled: String, at token: _Token) throws(PredicateSyntaxError) -> Expression {
        advance()   // (
        try enter()
        defer { leave() }
        var args: [Expression] = []
        if !isSymbol(")") {
            args.append(try parseExpression("an argument of \(spelled)"))
            while isSymbol(",") {
                advance()
                args.append(try parseExpression("an argument after ','"))
            }
        }
        try expect(")", "',' or ')' to close the arguments of \(spelled)")
        return .function(try Self.function(spelled, arguments: args.count, parser: self, at: token), args)
    }

    /// The function called `spelled` with `count` arguments.
    static func function(_ spelled: String, arguments count: Int, parser: _PredicateParser, at token: _Token) throws(PredicateSyntaxError) -> FormatPredicate.Function {
        if spelled == "distanceToLocation:fromLocation:" {
            throw parser.error("a supported function (distanceToLocation:fromLocation: needs Core Location)", at: token, found: "'\(spelled)'")
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
            throw parser.error("a known function (\(known.joined(separator: ", ")))", at: token, found: "'\(spelled)'")
        }
        if let match = candidates.first(where: { $0.arity.map { $0 == count } ?? (count >= 1) }) { return match }
        let takes = candidates.map { f -> String in
            guard let arity = f.arity else { return "one array or several values" }
            return arity == 1 ? "1 argument" : "\(arity) arguments"
        }
        throw parser.error("\(name) with \(takes.joined(separator: " or "))", at: token, found: "\(count) argument\(count == 1 ? "" : "s")")
    }

    mutating func parseSubquery() throws(PredicateSyntaxError) -> Expression {
        let usage = "SUBQUERY(collection, $variable, condition)"
        advance()
        try expect("(", "'(' after SUBQUERY, as in \(usage)")
        try enter()
        defer { leave() }
        let collection = try parseExpression("the collection of \(usage)")
        try expect(",", "',' and a $variable after the collection, as in \(usage)")
        guard case .variable(let name) = current.kind else { throw error("a $variable, as in \(usage)") }
        advance()
        try expect(",", "',' and a condition after the variable, as in \(usage)")
        let condition = try parseOr()
        try expect(")", "')' to close \(usage)")
        return .subquery(collection, variable: name, condition)
    }

    mutating func parseCast() throws(PredicateSyntaxError) -> Expression {
        let castToken = current
        advance()
        try expect("(", "'(' after CAST, as in CAST(value, 'NSDate')")
        try enter()
        defer { leave() }
        let value = try parseExpression("the value to CAST")
        try expect(",", "',' and a type name after the value, as in CAST(value, 'NSDate')")
        let typeToken = current
        let typeExpression = try parseExpression("a type name: 'NSDate', 'NSNumber' or 'NSString'")
        guard case .constant(.string(let name)) = typeExpression, let type = FormatPredicate.CastType(rawValue: name) else {
            throw error("a type name: 'NSDate', 'NSNumber' or 'NSString'", at: typeToken)
        }
        try expect(")", "')' to close CAST")
        guard case .constant(let constant) = value else { return .cast(value, type) }
        do {
            return .constant(try _PredicateValues.cast(constant, to: type))
        } catch {
            throw self.error("a value CAST can convert (\(error))", at: castToken)
        }
    }
}
