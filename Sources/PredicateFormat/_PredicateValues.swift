import Foundation
import Records

/// The meaning of the format language on values (as Predicates.md documents
/// it, with its choices where Apple's documentation is silent): comparisons, arithmetic,
/// functions, collection operators, indexes and CAST.
enum _PredicateValues {
    typealias Failure = PredicateEvaluationError

    // MARK: Numbers

    /// A number: integers stay exact; booleans are 0 and 1 (as NSNumber's are).
    enum Number {
        case int(Int)
        /// An integer above `Int.max` (``number(_:)`` makes smaller ones ``int(_:)``).
        case uint(UInt64)
        case double(Double)

        var double: Double {
            switch self {
            case .int(let i): Double(i)
            case .uint(let u): Double(u)
            case .double(let d): d
            }
        }

        var value: RecordValue {
            switch self {
            case .int(let i): .int(i)
            case .uint(let u): .uint(u)
            case .double(let d): .double(d)
            }
        }
    }

    static func number(_ v: RecordValue) -> Number? {
        switch v {
        case .int(let i): .int(i)
        case .uint(let u): Int(exactly: u).map(Number.int) ?? .uint(u)
        case .double(let d): .double(d)
        case .bool(let b): .int(b ? 1 : 0)
        default: nil
        }
    }

    /// An exact integer: an int, a bool, or a double with an integral value.
    static func integer(_ v: RecordValue) -> Int? {
        switch number(v) {
        case .int(let i): i
        case .double(let d): Int(exactly: d)
        case .uint, nil: nil
        }
    }

    /// -1, 0 or 1, exactly (an int and a double compare by value); nil when
    /// either is NaN, which is unordered (IEEE: no comparison with it holds).
    static func compare(_ a: Number, _ b: Number) -> Int? {
        if case .double(let x) = a, x.isNaN { return nil }
        if case .double(let y) = b, y.isNaN { return nil }
        switch (a, b) {
        case let (.int(x), .int(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.double(x), .double(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.double(x), .int(y)): return _compare(x, y)
        case let (.int(x), .double(y)): return -_compare(y, x)
        case let (.uint(x), .uint(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case (.int, .uint): return -1
        case (.uint, .int): return 1
        case let (.double(x), .uint(y)): return _compare(x, y)
        case let (.uint(x), .double(y)): return -_compare(y, x)
        }
    }

    // MARK: Comparisons

    /// `==`: nil equals only nil; numbers by value; strings under the options;
    /// dates as instants; arrays element by element; records by content. Values
    /// of different kinds are not equal.
    static func equals(_ a: RecordValue, _ b: RecordValue, _ o: _TextOptions) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case let (.string(x), .string(y)): return o.folds ? _Text.fold(x, o) == _Text.fold(y, o) : x == y
        case let (.date(x), .date(y)): return x == y
        // Options apply to strings only, not to the strings inside arrays.
        case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { equals($0, $1, _TextOptions([])) }
        // By content, field by field with this same equality (so a NaN in a
        // record makes it unequal even to itself, on every evaluation path).
        case let (.record(x), .record(y)):
            guard x.keys.count == y.keys.count else { return false }
            return x.keys.allSatisfy { key in
                guard let u = x[key], let v = y[key] else { return false }
                return equals(u, v, _TextOptions([]))
            }
        default:
            guard let x = number(a), let y = number(b) else { return false }
            return compare(x, y) == 0
        }
    }

    /// -1, 0 or 1; nil when one side is nil (nil and nil are 0). Numbers,
    /// dates and strings order; anything else is an error.
    static func order(_ a: RecordValue, _ b: RecordValue, _ o: _TextOptions, _ operation: String) throws(Failure) -> Int? {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _), (_, .null): return nil
        case let (.string(x), .string(y)):
            if o.folds { return _Text.compare(_Text.fold(x, o), _Text.fold(y, o)) }
            return _comparePlain(x, y)
        case let (.date(x), .date(y)): return x < y ? -1 : (x > y ? 1 : 0)
        default:
            guard let x = number(a), let y = number(b) else { throw .typeMismatch(operation: operation, kinds: [a.kindName, b.kindName]) }
            return compare(x, y)
        }
    }

    /// The test of one comparison operator on two values.
    static func test(_ op: FormatPredicate.Operator, _ o: _TextOptions, _ l: RecordValue, _ r: RecordValue) throws(Failure) -> Bool {
        switch op {
        case .equal: return equals(l, r, o)
        case .notEqual: return !equals(l, r, o)
        case .less: return try order(l, r, o, "<").map { $0 < 0 } ?? false
        case .lessOrEqual: return try order(l, r, o, "<=").map { $0 <= 0 } ?? false
        case .greater: return try order(l, r, o, ">").map { $0 > 0 } ?? false
        case .greaterOrEqual: return try order(l, r, o, ">=").map { $0 >= 0 } ?? false
        case .between: return try between(l, r)
        case .contains: return try contains(l, r, o, "CONTAINS")
        case .in: return try contains(r, l, o, "IN")
        case .beginsWith, .endsWith:
            guard let (s, needle) = try strings(l, r, op.rawValue) else { return false }
            return _Text.find(_Text.fold(needle, o), in: s, o, op == .beginsWith ? .start : .end)
        case .like:
            guard let (s, pattern) = try strings(l, r, "LIKE") else { return false }
            return _LikePattern(pattern, o).matches(s)
        case .matches:
            guard let (s, pattern) = try strings(l, r, "MATCHES") else { return false }
            return try _Regex(pattern, o).matches(s)
        }
    }

    /// Two strings; nil when either is nil; an error for anything else.
    static func strings(_ l: RecordValue, _ r: RecordValue, _ operation: String) throws(Failure) -> (String, String)? {
        switch (l, r) {
        case let (.string(a), .string(b)): return (a, b)
        case (.null, _), (_, .null): return nil
        default: throw .typeMismatch(operation: operation, kinds: [l.kindName, r.kindName])
        }
    }

    /// `lhs BETWEEN {lower, upper}`, both ends included.
    static func between(_ l: RecordValue, _ bounds: RecordValue) throws(Failure) -> Bool {
        if case .null = l { return false }
        guard case .array(let pair) = bounds, pair.count == 2 else {
            throw .betweenNeedsTwoBounds(found: bounds.kindName == "array" ? "an array of \(bounds.asArray?.count ?? 0)" : PredicateEvaluationError.article(bounds.kindName))
        }
        guard let low = try order(pair[0], l, _TextOptions([]), "BETWEEN"), low <= 0 else { return false }
        guard let high = try order(l, pair[1], _TextOptions([]), "BETWEEN"), high <= 0 else { return false }
        return true
    }

    /// `container CONTAINS element`: a substring of a string (under the
    /// options), an element of an array, a value of a record.
    static func contains(_ container: RecordValue, _ element: RecordValue, _ o: _TextOptions, _ operation: String) throws(Failure) -> Bool {
        switch container {
        case .null: return false
        case .string(let s):
            switch element {
            case .null: return false
            case .string(let needle): return _Text.find(_Text.fold(needle, o), in: s, o, .anywhere)
            default: throw .typeMismatch(operation: operation, kinds: [container.kindName, element.kindName])
            }
        case .array(let elements): return elements.contains { equals($0, element, _TextOptions([])) }
        case .record(let record): return record.fields.contains { equals($0.value, element, _TextOptions([])) }
        default: throw .typeMismatch(operation: operation, kinds: [container.kindName, element.kindName])
        }
    }

    // MARK: Arithmetic

    /// `+ - * / **` on numbers. Integers stay integers (division truncates)
    /// while the result fits in 64 bits (`Int.min…UInt64.max`); beyond that it
    /// becomes a double. nil gives nil.
    static func arithmetic(_ op: FormatPredicate.ArithmeticOperator, _ a: RecordValue, _ b: RecordValue) throws(Failure) -> RecordValue {
        if a == .null || b == .null { return .null }
        guard let x = number(a), let y = number(b) else { throw .typeMismatch(operation: "'\(op.rawValue)'", kinds: [a.kindName, b.kindName]) }
        if let i = _Integer(x), let j = _Integer(y) {
            if op == .divide && j.magnitude == 0 { throw .divisionByZero }
            if let exact = i.applying(op, j)?.value { return exact }
        }
        let (p, q) = (x.double, y.double)
        switch op {
        case .add: return .double(p + q)
        case .subtract: return .double(p - q)
        case .multiply: return .double(p * q)
        case .divide: return .double(p / q)
        case .power: return .double(Foundation.pow(p, q))
        }
    }

    /// The negative of a number constant, folded when a predicate is read; nil
    /// for anything else (a negated boolean stays a negation, as written).
    static func negatedConstant(_ value: RecordValue) -> RecordValue? {
        switch value {
        case .int, .uint, .double: try? negate(value)
        default: nil
        }
    }

    static func negate(_ a: RecordValue) throws(Failure) -> RecordValue {
        switch number(a) {
        case .int(let i): return _Integer(negative: i >= 0, magnitude: UInt64(i.magnitude)).value ?? .double(-Double(i))
        case .uint(let u): return _Integer(negative: true, magnitude: u).value ?? .double(-Double(u))
        case .double(let d): return .double(-d)
        case nil:
            if case .null = a { return .null }
            throw .typeMismatch(operation: "'-'", kinds: [a.kindName])
        }
    }

    // MARK: Collections

    static func elements(_ value: RecordValue, _ operation: String) throws(Failure) -> [RecordValue]? {
        switch value {
        case .null: return nil
        case .array(let elements): return elements
        default: throw .notACollection(operation: operation, kind: value.kindName)
        }
    }

    /// `collection.@op.key`.
    static func collectionOperator(_ op: FormatPredicate.CollectionOperator, _ value: RecordValue, _ keys: [String]) throws(Failure) -> RecordValue {
        guard let elements = try elements(value, op.rawValue) else { return .null }
        let values = keys.isEmpty ? elements : elements.map { $0.value(atKeyPath: keys[...]) }
        switch op {
        case .count: return .int(elements.count)
        case .sum: return try sum(values.map { $0 == .null ? .int(0) : $0 }, op.rawValue)
        case .avg:
            guard !values.isEmpty else { return .null }
            return .double(try sum(values.map { $0 == .null ? .int(0) : $0 }, op.rawValue).asDouble / Double(values.count))
        case .min, .max: return try extreme(values.filter { $0 != .null }, smallest: op == .min, op.rawValue)
        case .unionOfObjects: return .array(values.filter { $0 != .null })
        case .distinctUnionOfObjects: return .array(distinct(values.filter { $0 != .null }))
        case .unionOfArrays, .distinctUnionOfArrays:
            var union: [RecordValue] = []
            for element in elements {
                guard let inner = try self.elements(element, op.rawValue) else { continue }
                union += (keys.isEmpty ? inner : inner.map { $0.value(atKeyPath: keys[...]) }).filter { $0 != .null }
            }
            return .array(op == .unionOfArrays ? union : distinct(union))
        }
    }

    static func distinct(_ values: [RecordValue]) -> [RecordValue] {
        var seen: [RecordValue] = []
        for v in values where !seen.contains(where: { equals($0, v, _TextOptions([])) }) { seen.append(v) }
        return seen
    }

    static func sum(_ values: [RecordValue], _ operation: String) throws(Failure) -> RecordValue {
        var total: RecordValue = .int(0)
        for v in values {
            guard number(v) != nil else { throw .typeMismatch(operation: operation, kinds: [v.kindName]) }
            total = try arithmetic(.add, total, v)
        }
        return total
    }

    static func extreme(_ values: [RecordValue], smallest: Bool, _ operation: String) throws(Failure) -> RecordValue {
        guard var best = values.first else { return .null }
        for v in values.dropFirst() {
            let c = try order(v, best, _TextOptions([]), operation) ?? 0
            if smallest ? c < 0 : c > 0 { best = v }
        }
        return best
    }

    /// `value[FIRST]`, `[LAST]`, `[SIZE]`, `[i]` (arrays), `['key']` (records).
    static func index(_ value: RecordValue, _ index: FormatPredicate.Index, at position: RecordValue?) throws(Failure) -> RecordValue {
        if case .null = value { return .null }
        switch index {
        case .first, .last:
            guard case .array(let elements) = value else { throw .notACollection(operation: index == .first ? "[FIRST]" : "[LAST]", kind: value.kindName) }
            return (index == .first ? elements.first : elements.last) ?? .null
        case .size:
            switch value {
            case .array(let elements): return .int(elements.count)
            case .record(let record): return .int(record.keys.count)
            default: throw .notACollection(operation: "[SIZE]", kind: value.kindName)
            }
        case .at:
            let position = position ?? .null
            switch (value, position) {
            case let (.array(elements), _):
                guard let i = integer(position) else { throw .typeMismatch(operation: "an array index", kinds: [position.kindName]) }
                guard i >= 0 && i < elements.count else { throw .indexOutOfRange(index: i, count: elements.count) }
                return elements[i]
            case let (.record(record), .string(key)):
                return record[key] ?? .null
            default:
                throw .typeMismatch(operation: "[…]", kinds: [value.kindName, position.kindName])
            }
        }
    }

    // MARK: Functions

    /// A function's result. Every function is named in one exhaustive
    /// switch, so a new function must be given a meaning here.
    static func call(_ f: FormatPredicate.Function, _ args: [RecordValue]) throws(Failure) -> RecordValue {
        let name = f.name
        if let arity = f.arity, args.count != arity {
            throw .invalidArgument(function: f.rawValue, reason: "takes \(arity) argument\(arity == 1 ? "" : "s"), not \(args.count)")
        }
        // Any function but a statistic of nil is nil.
        if !f.isStatistic && args.contains(.null) { return .null }
        switch f {
        case .sum, .count, .min, .max, .average, .median, .mode, .stddev:
            if args.isEmpty { throw .invalidArgument(function: f.rawValue, reason: "takes one array or several values, not none") }
            return try statistic(f, statisticValues(args), name)
        case .add: return try arithmetic(.add, args[0], args[1])
        case .subtract: return try arithmetic(.subtract, args[0], args[1])
        case .multiply: return try arithmetic(.multiply, args[0], args[1])
        case .divide: return try arithmetic(.divide, args[0], args[1])
        case .power: return try arithmetic(.power, args[0], args[1])
        case .modulus:
            let (x, y) = (try numberArgument(args[0], name), try numberArgument(args[1], name))
            if let i = _Integer(x), let j = _Integer(y) {
                if j.magnitude == 0 { throw .divisionByZero }
                // The remainder has the dividend's sign and is smaller than it: it fits.
                return _Integer(negative: i.negative, magnitude: i.magnitude % j.magnitude).value ?? .null
            }
            return .double(x.double.truncatingRemainder(dividingBy: y.double))
        case .sqrt: return .double(try numberArgument(args[0], name).double.squareRoot())
        case .log: return .double(Foundation.log10(try numberArgument(args[0], name).double))
        case .ln: return .double(Foundation.log(try numberArgument(args[0], name).double))
        case .exp: return .double(Foundation.exp(try numberArgument(args[0], name).double))
        case .floor: return try rounded(args[0], .down, name)
        case .ceiling: return try rounded(args[0], .up, name)
        case .trunc: return try rounded(args[0], .towardZero, name)
        case .abs:
            switch try numberArgument(args[0], name) {
            case .int(let i): return _Integer(negative: false, magnitude: UInt64(i.magnitude)).value ?? .null
            case .uint(let u): return .uint(u)
            case .double(let d): return .double(Swift.abs(d))
            }
        case .uppercase: return .string(try stringArgument(args[0], name).uppercased())
        case .lowercase: return .string(try stringArgument(args[0], name).lowercased())
        case .length: return .int(try stringArgument(args[0], name).count)
        case .random: return .double(Double.random(in: 0..<1))
        case .randomBelow, .randomn:
            guard let n = integer(args[0]), n >= 1 else { throw .invalidArgument(function: name, reason: "needs a whole number of at least 1, not \(args[0].description)") }
            return .int(Int.random(in: 0..<n))
        case .now: return .date(Date())
        case .bitwiseAnd: return .int(try integerArgument(args[0], name) & integerArgument(args[1], name))
        case .bitwiseOr: return .int(try integerArgument(args[0], name) | integerArgument(args[1], name))
        case .bitwiseXor: return .int(try integerArgument(args[0], name) ^ integerArgument(args[1], name))
        case .leftShift: return .int(try integerArgument(args[0], name) << integerArgument(args[1], name))
        case .rightShift: return .int(try integerArgument(args[0], name) >> integerArgument(args[1], name))
        case .onesComplement: return .int(~(try integerArgument(args[0], name)))
        case .noindex: return args[0]
        }
    }

    /// A statistic's values: one array's elements (nil: none), or the
    /// arguments themselves; nils left out.
    static func statisticValues(_ args: [RecordValue]) -> [RecordValue] {
        var values = args
        if args.count == 1 {
            switch args[0] {
            case .array(let elements): values = elements
            case .null: values = []
            default: break
            }
        }
        return values.filter { $0 != .null }
    }

    /// `sum count min max average median mode stddev` of values without nils.
    static func statistic(_ f: FormatPredicate.Function, _ values: [RecordValue], _ name: String) throws(Failure) -> RecordValue {
        switch f {
        case .count: return .int(values.count)
        case .sum: return try sum(values, name)
        case .min, .max: return try extreme(values, smallest: f == .min, name)
        case .average:
            guard !values.isEmpty else { return .null }
            return .double(try sum(values, name).asDouble / Double(values.count))
        case .median:
            let numbers = try numbers(values, name).sorted { (compare($0, $1) ?? 0) < 0 }
            guard !numbers.isEmpty else { return .null }
            if numbers.count % 2 == 1 { return numbers[numbers.count / 2].value }
            return .double((numbers[numbers.count / 2 - 1].double + numbers[numbers.count / 2].double) / 2)
        case .mode:
            var counts: [(value: RecordValue, count: Int)] = []
            for v in values {
                if let k = counts.firstIndex(where: { equals($0.value, v, _TextOptions([])) }) { counts[k].count += 1 } else { counts.append((v, 1)) }
            }
            let most = counts.map(\.count).max() ?? 0
            return .array(counts.filter { $0.count == most }.map(\.value))
        case .stddev:   // the population's
            let numbers = try numbers(values, name).map(\.double)
            guard !numbers.isEmpty else { return .null }
            let mean = numbers.reduce(0, +) / Double(numbers.count)
            return .double((numbers.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(numbers.count)).squareRoot())
        case .add, .subtract, .multiply, .divide, .modulus, .power, .sqrt, .log, .ln, .exp, .floor, .ceiling, .abs, .trunc,
            .uppercase, .lowercase, .length, .random, .randomBelow, .randomn, .now,
            .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift, .onesComplement, .noindex:
            throw .invalidArgument(function: f.rawValue, reason: "is not a statistic")
        }
    }

    /// `floor`, `ceiling`, `trunc`: integers stay as they are.
    static func rounded(_ value: RecordValue, _ rule: FloatingPointRoundingRule, _ name: String) throws(Failure) -> RecordValue {
        switch try numberArgument(value, name) {
        case .int(let i): return .int(i)
        case .uint(let u): return .uint(u)
        case .double(let d): return .double(d.rounded(rule))
        }
    }

    static func stringArgument(_ value: RecordValue, _ name: String) throws(Failure) -> String {
        guard case .string(let s) = value else { throw .typeMismatch(operation: name, kinds: [value.kindName]) }
        return s
    }

    static func numbers(_ values: [RecordValue], _ name: String) throws(Failure) -> [Number] {
        var result: [Number] = []
        for v in values { result.append(try numberArgument(v, name)) }
        return result
    }

    static func numberArgument(_ v: RecordValue, _ name: String) throws(Failure) -> Number {
        guard let n = number(v) else { throw .typeMismatch(operation: name, kinds: [v.kindName]) }
        return n
    }

    static func integerArgument(_ v: RecordValue, _ name: String) throws(Failure) -> Int {
        guard let i = integer(v) else { throw .invalidArgument(function: name, reason: "needs whole numbers, not \(v.description)") }
        return i
    }

    // MARK: CAST

    /// `CAST(value, 'NSDate')`: seconds since 2001-01-01 to a date (or an ISO
    /// 8601 string); `'NSNumber'`: a number from a string, a date's seconds
    /// since 2001; `'NSString'`: a value's text. nil stays nil.
    static func cast(_ value: RecordValue, to type: FormatPredicate.CastType) throws(Failure) -> RecordValue {
        if case .null = value { return .null }
        let name = "CAST to \(type.rawValue)"
        switch type {
        case .date:
            switch value {
            case .date: return value
            case .string(let s):
                guard let date = ISO8601.date(from: s) else { throw .invalidArgument(function: name, reason: "\(s.debugDescription) is not an ISO 8601 date") }
                return .date(date)
            default:
                guard let n = number(value) else { throw .typeMismatch(operation: name, kinds: [value.kindName]) }
                return .date(Date(timeIntervalSinceReferenceDate: n.double))
            }
        case .number:
            switch value {
            case .date(let d): return .double(d.timeIntervalSinceReferenceDate)
            case .string(let s):
                let text = s.trimmingCharacters(in: .whitespaces)
                if let exact = _exactInteger(text) { return exact }
                if let d = Double(text) { return .double(d) }
                throw .invalidArgument(function: name, reason: "\(s.debugDescription) is not a number")
            default:
                guard let n = number(value) else { throw .typeMismatch(operation: name, kinds: [value.kindName]) }
                return n.value
            }
        case .string:
            switch value {
            case .string: return value
            case .int(let i): return .string(String(i))
            case .uint(let u): return .string(String(u))
            case .double(let d): return .string("\(d)")
            case .bool(let b): return .string(b ? "1" : "0")
            case .date(let d): return .string(ISO8601.string(from: d))
            default: throw .typeMismatch(operation: name, kinds: [value.kindName])
            }
        }
    }
}

/// An integer of the format language as a sign and a 64-bit magnitude: every
/// int and uint, and exact arithmetic on them while the result fits in 64 bits.
struct _Integer: Equatable {
    var negative: Bool
    var magnitude: UInt64

    init(negative: Bool, magnitude: UInt64) {
        self.negative = negative && magnitude != 0
        self.magnitude = magnitude
    }

    init?(_ number: _PredicateValues.Number) {
        switch number {
        case .int(let i): self.init(negative: i < 0, magnitude: UInt64(i.magnitude))
        case .uint(let u): self.init(negative: false, magnitude: u)
        case .double: return nil
        }
    }

    /// The value as an int, or a uint above `Int.max`; nil below `Int.min`.
    var value: RecordValue? {
        if !negative { return Int(exactly: magnitude).map(RecordValue.int) ?? .uint(magnitude) }
        if magnitude == Int.min.magnitude { return .int(.min) }
        return Int(exactly: magnitude).map { .int(-$0) }
    }

    /// `self op other`, exactly; nil when the result needs more than a sign
    /// and 64 bits (or, for `**`, a negative exponent). `other` is not zero
    /// for `/`.
    func applying(_ op: FormatPredicate.ArithmeticOperator, _ other: _Integer) -> _Integer? {
        switch op {
        case .add: return adding(other)
        case .subtract: return adding(_Integer(negative: !other.negative, magnitude: other.magnitude))
        case .multiply:
            let (product, overflow) = magnitude.multipliedReportingOverflow(by: other.magnitude)
            return overflow ? nil : _Integer(negative: negative != other.negative, magnitude: product)
        case .divide: return _Integer(negative: negative != other.negative, magnitude: magnitude / other.magnitude)
        case .power:
            guard !other.negative else { return nil }
            var (result, base, exponent) = (UInt64(1), magnitude, other.magnitude)
            while exponent > 0 {
                if exponent & 1 == 1 {
                    let (r, overflow) = result.multipliedReportingOverflow(by: base)
                    if overflow { return nil }
                    result = r
                }
                exponent >>= 1
                if exponent > 0 {
                    let (square, overflow) = base.multipliedReportingOverflow(by: base)
                    if overflow { return nil }
                    base = square
                }
            }
            return _Integer(negative: negative && other.magnitude & 1 == 1, magnitude: result)
        }
    }

    private func adding(_ other: _Integer) -> _Integer? {
        if negative == other.negative {
            let (sum, overflow) = magnitude.addingReportingOverflow(other.magnitude)
            return overflow ? nil : _Integer(negative: negative, magnitude: sum)
        }
        return magnitude >= other.magnitude
            ? _Integer(negative: negative, magnitude: magnitude - other.magnitude)
            : _Integer(negative: other.negative, magnitude: other.magnitude - magnitude)
    }
}

extension RecordValue {
    /// A number as a double (0 for anything else).
    var asDouble: Double { _PredicateValues.number(self)?.double ?? 0 }
}

/// A MATCHES pattern: an ICU regular expression that must match the whole
/// string; `[c]` matches case-insensitively, `[d]` strips diacritics from
/// both the pattern and the string.
final class _Regex: @unchecked Sendable {
    // NSRegularExpression is immutable after creation.
    let expression: NSRegularExpression
    let options: _TextOptions
    /// The pattern as written, for errors.
    let pattern: String
    /// Whether the pattern is wrapped as `(?:pattern)\z`, which makes ICU find
    /// a match of the whole string among all alternatives. A pattern whose end
    /// a wrapper could change (a `\Q` quote, a `(?x)` comment) is matched as
    /// written instead, and its match must then cover the string.
    let wrapped: Bool

    init(_ pattern: String, _ o: _TextOptions) throws(PredicateEvaluationError) {
        options = _TextOptions(o.diacriticInsensitive ? [.diacriticInsensitive] : [])
        self.pattern = pattern
        let source = options.folds ? _Text.foldedString(pattern, options) : pattern
        wrapped = !Self.endIsFragile(source)
        do {
            // Checked alone first (ICU refuses an empty pattern alone; wrapped, it matches "").
            if !source.isEmpty || !wrapped { _ = try NSRegularExpression(pattern: source) }
            expression = try NSRegularExpression(pattern: wrapped ? "(?:" + source + ")\\z" : source, options: o.caseInsensitive ? [.caseInsensitive] : [])
        } catch {
            throw .invalidRegularExpression(
                pattern: pattern, reason: "ICU's syntax; a backslash in the pattern is written \\\\ inside the format's quotes")
        }
    }

    /// A `\Q` (quoting runs to the end without `\E`) or a flag group turning
    /// on comments (`(?x)`, `(?ix:`): text appended after it changes meaning.
    static func endIsFragile(_ pattern: String) -> Bool {
        if pattern.contains("\\Q") { return true }
        var rest = pattern[...]
        while let open = rest.range(of: "(?") {
            let flags = rest[open.upperBound...].prefix { $0.isLetter || $0 == "-" }
            if flags.prefix(while: { $0 != "-" }).contains("x") { return true }
            rest = rest[open.upperBound...]
        }
        return false
    }

    /// How many of ICU's progress reports one match may take before it is an
    /// error: ICU reports progress every 10,000 steps of its matcher, so this
    /// is 10 million steps (a few tenths of a second). A pattern that needs
    /// more backtracks catastrophically; left alone, ICU either runs for
    /// ever or gives up and reports "no match" (its own limit, ~42 million
    /// steps in swift-corelibs-foundation's ICU), which would be a wrong answer.
    static let progressReportLimit = 1_000

    /// Whether the pattern matches the whole of `subject`.
    ///
    /// - Throws: ``PredicateEvaluationError/regularExpressionLimit(pattern:)``
    ///   when the match takes more than ``progressReportLimit`` of ICU's
    ///   progress reports (10 million steps), or ICU gives up on its own (its
    ///   backtracking memory, 8 MB by default, runs out): a catastrophically
    ///   backtracking pattern (`(a+)+b` on a long run of `a`s) is an error,
    ///   never a silent "no match".
    func matches(_ subject: String) throws(PredicateEvaluationError) -> Bool {
        let s = options.folds ? _Text.foldedString(subject, options) : subject
        let length = s.utf16.count
        var found: NSRange?
        var gaveUp = false
        var reports = 0
        let limit = Self.progressReportLimit
        expression.enumerateMatches(
            in: s, options: [.anchored, .reportProgress, .reportCompletion], range: NSRange(location: 0, length: length)
        ) { result, flags, stop in
            if let result {
                found = result.range
                stop.pointee = true
            } else if flags.contains(.internalError) {
                gaveUp = true
            } else if flags.contains(.progress) {
                reports += 1
                if reports >= limit {
                    gaveUp = true
                    stop.pointee = true
                }
            }
        }
        guard let match = found else {
            if gaveUp { throw .regularExpressionLimit(pattern: pattern) }
            return false
        }
        return wrapped || match.length == length
    }
}
