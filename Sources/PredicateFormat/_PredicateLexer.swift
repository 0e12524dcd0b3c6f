import Foundation
import Records

/// A token of the format language, with where it starts (a UTF-8 offset into
/// the format) and how long it is.
struct _Token: Equatable {
    enum Kind: Equatable {
        /// A key or a function name: not a reserved word.
        case identifier(String)
        /// `#name`: a reserved word (or any name) used as a key.
        case escapedIdentifier(String)
        /// A reserved word, upper-cased: `AND`, `SELF`, `UTI-EQUALS`, …
        case keyword(String)
        /// `@name`: a collection operator.
        case at(String)
        /// `$name`.
        case variable(String)
        /// `name:` or `multiply:by:` — a function in selector style.
        case selector(String)
        case number(RecordValue)
        case string(String)
        /// `%@`, `%K`, or a printf conversion (`%d`, `%ld`, `%f`, …): its letter.
        case argument(Character)
        /// Punctuation and operators: `(`, `==`, `&&`, `**`, …
        case symbol(String)
        case end
    }

    var kind: Kind
    /// The kind as a small code, for cheap tests while parsing.
    var tag: _Tag
    var offset: Int
    var length: Int

    init(kind: Kind, offset: Int, length: Int) {
        self.kind = kind
        self.offset = offset
        self.length = length
        switch kind {
        case .identifier: tag = .identifier
        case .escapedIdentifier: tag = .escapedIdentifier
        case .keyword(let word): tag = _Tag.keywords[word] ?? .unsupportedReserved
        case .at: tag = .at
        case .variable: tag = .variable
        case .selector: tag = .selector
        case .number: tag = .number
        case .string: tag = .string
        case .argument("@"): tag = .objectArgument
        case .argument("K"): tag = .keyArgument
        case .argument: tag = .printfArgument
        case .symbol(let symbol): tag = _Tag.symbols[symbol] ?? .end
        case .end: tag = .end
        }
    }
}

/// What a token is, as one byte: its kind, and which symbol or reserved word.
enum _Tag: UInt8 {
    case end, identifier, escapedIdentifier, at, variable, selector, number, string
    case objectArgument, keyArgument, printfArgument
    case leftParenthesis, rightParenthesis, leftBrace, rightBrace, leftBracket, rightBracket, comma, dot
    case plus, minus, star, slash, power, assign, equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case andSymbol, orSymbol, bang
    case and, or, not, any, some, all, none, between, `in`, contains, beginsWith, endsWith, like, matches
    case null, `true`, `false`, `self`, first, last, size, subquery, cast, truePredicate, falsePredicate, uti, unsupportedReserved

    static let symbols: [String: _Tag] = [
        "(": .leftParenthesis, ")": .rightParenthesis, "{": .leftBrace, "}": .rightBrace, "[": .leftBracket, "]": .rightBracket,
        ",": .comma, ".": .dot, "+": .plus, "-": .minus, "*": .star, "/": .slash, "**": .power, ":=": .assign,
        "=": .equal, "==": .equal, "!=": .notEqual, "<>": .notEqual, "<": .less, "<=": .lessOrEqual, "=<": .lessOrEqual,
        ">": .greater, ">=": .greaterOrEqual, "=>": .greaterOrEqual, "&&": .andSymbol, "||": .orSymbol, "!": .bang,
    ]

    static let keywords: [String: _Tag] = [
        "AND": .and, "OR": .or, "NOT": .not, "ANY": .any, "SOME": .some, "ALL": .all, "NONE": .none, "BETWEEN": .between,
        "IN": .in, "CONTAINS": .contains, "BEGINSWITH": .beginsWith, "ENDSWITH": .endsWith, "LIKE": .like, "MATCHES": .matches,
        "NULL": .null, "NIL": .null, "TRUE": .true, "YES": .true, "FALSE": .false, "NO": .false, "SELF": .self,
        "FIRST": .first, "LAST": .last, "SIZE": .size, "SUBQUERY": .subquery, "CAST": .cast,
        "TRUEPREDICATE": .truePredicate, "FALSEPREDICATE": .falsePredicate, "UTI-CONFORMS-TO": .uti, "UTI-EQUALS": .uti,
    ]

    /// The comparison operator this token stands for.
    var comparisonOperator: FormatPredicate.Operator? {
        switch self {
        case .equal: .equal
        case .notEqual: .notEqual
        case .less: .less
        case .lessOrEqual: .lessOrEqual
        case .greater: .greater
        case .greaterOrEqual: .greaterOrEqual
        case .between: .between
        case .in: .in
        case .contains: .contains
        case .beginsWith: .beginsWith
        case .endsWith: .endsWith
        case .like: .like
        case .matches: .matches
        default: nil
        }
    }
}

/// Splits a format string into tokens. Works on UTF-8 bytes: everything but the
/// contents of string literals is ASCII.
struct _PredicateLexer {
    let format: String
    let bytes: [UInt8]
    var position = 0

    init(_ format: String) {
        self.format = format
        bytes = Array(format.utf8)
    }

    /// The reserved words (Apple's list), upper-cased.
    static let reserved: Set<String> = [
        "AND", "OR", "IN", "NOT", "ALL", "ANY", "SOME", "NONE", "LIKE", "CASEINSENSITIVE", "CI", "MATCHES", "CONTAINS",
        "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE", "YES", "FALSE", "NO", "FIRST", "LAST", "SIZE",
        "ANYKEY", "SUBQUERY", "FETCH", "CAST", "TRUEPREDICATE", "FALSEPREDICATE", "UTI-CONFORMS-TO", "UTI-EQUALS",
    ]

    static func isReserved(_ word: String) -> Bool { reserved.contains(word.uppercased()) }

    /// Every token, the last one `.end`.
    mutating func tokens() throws(PredicateSyntaxError) -> [_Token] {
        var tokens: [_Token] = []
        while true {
            let token = try next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    // MARK: Errors

    /// The character offset of a UTF-8 offset.
    static func characterOffset(_ utf8Offset: Int, in format: String) -> Int {
        let utf8 = format.utf8
        let index = utf8.index(utf8.startIndex, offsetBy: min(utf8Offset, utf8.count))
        return format.distance(from: format.startIndex, to: index)
    }

    func error(at offset: Int, expected: String, found: String? = nil) -> PredicateSyntaxError {
        PredicateSyntaxError(
            format: format, offset: Self.characterOffset(offset, in: format),
            found: found ?? describe(at: offset), expected: expected)
    }

    /// `'x'` for the character at `offset` (`"'"` for a quote, `a space` for
    /// one), or `the end of the format`.
    func describe(at offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the format" }
        let utf8 = format.utf8
        let index = utf8.index(utf8.startIndex, offsetBy: offset)
        let character = format[index...].first.map(String.init) ?? ""
        switch character {
        case " ": return "a space"
        case "\t": return "a tab"
        case "\n", "\r", "\r\n": return "a line break"
        case "'": return "\"'\""
        default: return "'\(character)'"
        }
    }

    // MARK: Scanning

    static func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F }
    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    func peek(_ ahead: Int = 0) -> UInt8? {
        position + ahead < bytes.count ? bytes[position + ahead] : nil
    }

    mutating func word() -> String {
        let start = position
        while let b = peek(), Self.isLetter(b) || Self.isDigit(b) { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    mutating func next() throws(PredicateSyntaxError) -> _Token {
        while let b = peek(), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { position += 1 }
        let start = position
        func token(_ kind: _Token.Kind) -> _Token { _Token(kind: kind, offset: start, length: position - start) }
        guard let b = peek() else { return token(.end) }

        if Self.isLetter(b) {
            let name = word()
            let upper = name.uppercased()
            // UTI-CONFORMS-TO and UTI-EQUALS are the only words with hyphens.
            if upper == "UTI" {
                for tail in ["-CONFORMS-TO", "-EQUALS"] {
                    let end = position + tail.utf8.count
                    if end <= bytes.count, String(decoding: bytes[position..<end], as: UTF8.self).uppercased() == tail,
                        end == bytes.count || !(Self.isLetter(bytes[end]) || Self.isDigit(bytes[end]))
                    {
                        position = end
                        return token(.keyword(upper + tail))
                    }
                }
            }
            // A selector: `count:(…)`, `multiply:by:(…)`.
            if peek() == 0x3A, peek(1) != 0x3D {
                var selector = name + ":"
                position += 1
                while let c = peek(), Self.isLetter(c) {
                    let save = position
                    let part = word()
                    if peek() == 0x3A, peek(1) != 0x3D {
                        selector += part + ":"
                        position += 1
                    } else {
                        position = save
                        break
                    }
                }
                return token(.selector(selector))
            }
            if Self.reserved.contains(upper) { return token(.keyword(upper)) }
            return token(.identifier(name))
        }
        if Self.isDigit(b) { return try number(start) }

        switch b {
        case 0x27, 0x22:  // ' "
            return token(.string(try string(start)))
        case 0x23, 0x40, 0x24:  // # @ $
            position += 1
            guard let c = peek(), Self.isLetter(c) else {
                let what = b == 0x23 ? "a key after '#'" : (b == 0x40 ? "a collection operator after '@' (@count, @sum, …)" : "a variable name after '$'")
                throw error(at: position, expected: what)
            }
            let name = word()
            return token(b == 0x23 ? .escapedIdentifier(name) : (b == 0x40 ? .at(name) : .variable(name)))
        case 0x25:  // %
            return token(.argument(try formatSpecifier(start)))
        default:
            break
        }
        // Operators and punctuation, longest first.
        let pairs: [String] = ["**", "==", "=<", "=>", "!=", "<>", "<=", ">=", "&&", "||", ":="]
        if let next = peek(1) {
            let pair = String(decoding: [b, next], as: UTF8.self)
            if pairs.contains(pair) {
                position += 2
                return token(.symbol(pair))
            }
        }
        if "(){}[],.+-*/=<>!".utf8.contains(b) {
            position += 1
            return token(.symbol(String(decoding: [b], as: UTF8.self)))
        }
        if b == 0x3F {
            throw error(at: start, expected: "a token ('?' is not one; LIKE's wildcards go inside the quoted pattern)")
        }
        throw error(at: start, expected: "a token")
    }

    /// `42`, `2.5`, `9.2e-5`, `0x1F`, `0o17`, `0b101`.
    mutating func number(_ start: Int) throws(PredicateSyntaxError) -> _Token {
        func token(_ value: RecordValue) -> _Token { _Token(kind: .number(value), offset: start, length: position - start) }
        func endOfNumber(_ what: String) throws(PredicateSyntaxError) {
            if let c = peek(), Self.isLetter(c) || Self.isDigit(c) {
                throw error(at: position, expected: what)
            }
        }
        if bytes[position] == 0x30, let p = peek(1), p == 0x78 || p == 0x58 || p == 0x6F || p == 0x4F || p == 0x62 || p == 0x42 {
            let (radix, name, prefix): (Int, String, String) =
                p == 0x78 || p == 0x58 ? (16, "hexadecimal digits", "0x") : (p == 0x6F || p == 0x4F ? (8, "octal digits (0–7)", "0o") : (2, "binary digits (0 or 1)", "0b"))
            position += 2
            let digitsStart = position
            while let c = peek(), let d = Self.digitValue(c), d < radix { position += 1 }
            if position == digitsStart { throw error(at: position, expected: "\(name) after '\(prefix)'") }
            try endOfNumber("\(name) or the end of the number")
            let text = String(decoding: bytes[digitsStart..<position], as: UTF8.self)
            if let value = Int(text, radix: radix) { return token(.int(value)) }
            guard let value = UInt64(text, radix: radix) else {
                throw error(at: start, expected: "a number that fits in 64 bits", found: "'\(prefix)\(_excerpt(text))'")
            }
            return token(.uint(value))
        }
        while let c = peek(), Self.isDigit(c) { position += 1 }
        var isDouble = false
        if peek() == 0x2E, let c = peek(1), Self.isDigit(c) {
            isDouble = true
            position += 1
            while let c = peek(), Self.isDigit(c) { position += 1 }
        }
        if let e = peek(), e == 0x65 || e == 0x45 {
            var ahead = 1
            if let s = peek(1), s == 0x2B || s == 0x2D { ahead = 2 }
            guard let d = peek(ahead), Self.isDigit(d) else {
                throw error(at: position + ahead, expected: "the digits of the exponent")
            }
            isDouble = true
            position += ahead
            while let c = peek(), Self.isDigit(c) { position += 1 }
        }
        try endOfNumber("a space or an operator after the number")
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isDouble { return token(.double(Double(text) ?? .infinity)) }
        guard let value = _exactInteger(text) else {
            throw error(
                at: start, expected: "an integer that fits in 64 bits (\(Int.min)…\(UInt64.max)), or a decimal point for a double",
                found: "'\(_excerpt(text))'")
        }
        return token(value)
    }

    static func digitValue(_ b: UInt8) -> Int? {
        switch b {
        case 0x30...0x39: Int(b - 0x30)
        case 0x61...0x66: Int(b - 0x61 + 10)
        case 0x41...0x46: Int(b - 0x41 + 10)
        default: nil
        }
    }

    /// A quoted string, escapes processed.
    mutating func string(_ start: Int) throws(PredicateSyntaxError) -> String {
        let quote = bytes[position]
        position += 1
        var out: [UInt8] = []
        var pendingHighSurrogate: (value: UInt16, offset: Int)? = nil
        func appendScalar(_ value: UInt32, at offset: Int) throws(PredicateSyntaxError) {
            if let high = pendingHighSurrogate {
                pendingHighSurrogate = nil
                guard value >= 0xDC00 && value <= 0xDFFF else {
                    throw error(at: high.offset, expected: "a low surrogate (\\uDC00–\\uDFFF) after a high one", found: "a lone UTF-16 surrogate")
                }
                let combined = 0x10000 + ((UInt32(high.value) - 0xD800) << 10) + (value - 0xDC00)
                if let scalar = Unicode.Scalar(combined) { out += Array(String(scalar).utf8) }
                return
            }
            if value >= 0xD800 && value <= 0xDBFF {
                pendingHighSurrogate = (UInt16(value), offset)
                return
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw error(at: offset, expected: "a character that is not a lone UTF-16 surrogate", found: "a lone UTF-16 surrogate")
            }
            out += Array(String(scalar).utf8)
        }
        while true {
            guard let b = peek() else {
                throw error(at: start, expected: "a closing \(quote == 0x27 ? "'" : "\"") for the string that starts here", found: "the end of the format")
            }
            if pendingHighSurrogate != nil && b != 0x5C {
                try appendScalar(0, at: position)   // a high surrogate not followed by \u: an error
            }
            if b == quote {
                position += 1
                return String(decoding: out, as: UTF8.self)
            }
            guard b == 0x5C else {   // backslash
                out.append(b)
                position += 1
                continue
            }
            let escapeStart = position
            position += 1
            guard let e = peek() else {
                throw error(at: start, expected: "a closing \(quote == 0x27 ? "'" : "\"") for the string that starts here", found: "the end of the format")
            }
            if pendingHighSurrogate != nil && e != 0x75 && e != 0x55 {
                try appendScalar(0, at: escapeStart)
            }
            switch e {
            case 0x6E: out.append(0x0A); position += 1   // \n
            case 0x74: out.append(0x09); position += 1   // \t
            case 0x72: out.append(0x0D); position += 1   // \r
            case 0x61: out.append(0x07); position += 1   // \a
            case 0x62: out.append(0x08); position += 1   // \b
            case 0x66: out.append(0x0C); position += 1   // \f
            case 0x76: out.append(0x0B); position += 1   // \v
            case 0x78, 0x58, 0x75, 0x55:                 // \xhh \uhhhh
                let count = e == 0x78 || e == 0x58 ? 2 : 4
                position += 1
                var value: UInt32 = 0
                for k in 0..<count {
                    guard let c = peek(), let d = Self.digitValue(c) else {
                        throw error(at: position, expected: "\(count) hexadecimal digits after '\\\(Character(Unicode.Scalar(e)))' (\(k) found)")
                    }
                    value = value << 4 | UInt32(d)
                    position += 1
                }
                try appendScalar(value, at: escapeStart)
            case 0x30...0x37:                            // \ooo: one to three octal digits
                var value: UInt32 = 0
                var count = 0
                while count < 3, let c = peek(), c >= 0x30 && c <= 0x37 {
                    value = value << 3 | UInt32(c - 0x30)
                    position += 1
                    count += 1
                }
                try appendScalar(value, at: escapeStart)
            default:
                // Any other escaped character stands for itself (\\ \' \" included).
                position += 1
                let scalarStart = position - 1
                var end = position
                while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
                out += bytes[scalarStart..<end]
                position = end
            }
        }
    }

    /// `%@`, `%K`, `%d`, `%ld`, `%5.2f`, …: the conversion letter.
    mutating func formatSpecifier(_ start: Int) throws(PredicateSyntaxError) -> Character {
        position += 1
        guard let first = peek() else {
            throw error(at: position, expected: "a format specifier after '%' (%@, %K, %d, %f, …)")
        }
        if first == 0x40 { position += 1; return "@" }
        if first == 0x4B { position += 1; return "K" }
        if first == 0x25 {
            throw error(at: start, expected: "a format specifier (%% means nothing outside quotes)", found: "'%%'")
        }
        // Flags, width, precision: accepted, meaningless.
        while let c = peek(), c == 0x2D || c == 0x2B || c == 0x20 || c == 0x23 || c == 0x30 { position += 1 }
        while let c = peek(), Self.isDigit(c) { position += 1 }
        if peek() == 0x2E {
            position += 1
            while let c = peek(), Self.isDigit(c) { position += 1 }
        }
        // Length modifiers: hh h ll l q z j t L.
        for modifier in ["hh", "ll", "h", "l", "q", "z", "j", "t", "L"] {
            let utf8 = Array(modifier.utf8)
            if position + utf8.count <= bytes.count, Array(bytes[position..<position + utf8.count]) == utf8 {
                position += utf8.count
                break
            }
        }
        let conversions: Set<UInt8> = Set("diuxXocCeEfgGsSaAp".utf8)
        guard let c = peek(), conversions.contains(c) else {
            let found = "'\(String(decoding: bytes[start..<min(position + 1, bytes.count)], as: UTF8.self))'"
            throw error(at: start, expected: "a format specifier (%@, %K, or printf-style: %d %i %u %x %o %c %e %f %g %s …)", found: found)
        }
        position += 1
        return Character(Unicode.Scalar(c))
    }
}
