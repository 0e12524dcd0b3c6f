import Foundation
import Records

/// Variables bound while evaluating: `$NAME`s given to `evaluate`, and the
/// variable of each enclosing `SUBQUERY`.
@usableFromInline
struct _Bindings {
    @usableFromInline package var values: [String: RecordValue]

    @inlinable
    init(_ values: [String: RecordValue] = [:]) { self.values = values }
}

/// Turns a syntax tree into closures, once: keys resolved to readers, constant
/// right sides prepared (folded search strings, LIKE patterns, regular
/// expressions, BETWEEN bounds). Evaluating then does no parsing and no work
/// on the format.
struct _PredicateCompiler<Root> {
    typealias Value = (Root, borrowing _Bindings) throws(PredicateEvaluationError) -> RecordValue
    typealias Test = (Root, borrowing _Bindings) throws(PredicateEvaluationError) -> Bool
    typealias Values = _PredicateValues

    /// A compiled test or value in a box. Lists of them hold boxes: an array
    /// of typed-throws closures needs the Swift 6 runtime's function type
    /// metadata (macOS 15 / iOS 18); an array of structs holding one does not.
    struct TestBox { let run: Test }
    struct ValueBox { let run: Value }
    /// A link of an arithmetic chain, compiled: the operator and its right operand.
    struct ArithmeticStep {
        let op: FormatPredicate.ArithmeticOperator
        let operand: Value
    }
    /// The test of one left value against a prepared constant.
    struct PreparedTest { let run: (RecordValue) throws(PredicateEvaluationError) -> Bool }

    /// A reader for a key path (`name`, `author.name`) of the root.
    let reader: (String) throws(RecordKeyError) -> (Root) -> RecordValue
    /// The root as a value (`SELF`).
    let rootValue: (Root) -> RecordValue

    // MARK: Conditions

    func condition(_ c: FormatPredicate.Condition) throws(RecordKeyError) -> Test {
        switch c {
        case .constant(let value):
            return { _, _ in value }
        case .not(let inner):
            let test = try condition(inner)
            return { root, bindings throws(PredicateEvaluationError) in try !test(root, bindings) }
        case .and(let parts):
            let tests = try parts.map { part throws(RecordKeyError) in TestBox(run: try condition(part)) }
            if tests.count == 2 {
                let (a, b) = (tests[0].run, tests[1].run)
                return { root, bindings throws(PredicateEvaluationError) in
                    if try !a(root, bindings) { return false }
                    return try b(root, bindings)
                }
            }
            return { root, bindings throws(PredicateEvaluationError) in
                for test in tests where try !test.run(root, bindings) { return false }
                return true
            }
        case .or(let parts):
            let tests = try parts.map { part throws(RecordKeyError) in TestBox(run: try condition(part)) }
            if tests.count == 2 {
                let (a, b) = (tests[0].run, tests[1].run)
                return { root, bindings throws(PredicateEvaluationError) in
                    if try a(root, bindings) { return true }
                    return try b(root, bindings)
                }
            }
            return { root, bindings throws(PredicateEvaluationError) in
                for test in tests where try test.run(root, bindings) { return true }
                return false
            }
        case .comparison(let comparison):
            return try self.comparison(comparison)
        }
    }

    func comparison(_ c: FormatPredicate.Comparison) throws(RecordKeyError) -> Test {
        let left = try expression(c.left)
        let options = _TextOptions(c.options)
        let op = c.operator
        // The test of one left value: prepared against a constant right side, or general.
        // (Optional boxes, not optional closures: an optional typed-throws
        // closure needs the Swift 6 runtime's function type metadata.)
        let prepared: PreparedTest?
        let right: ValueBox
        if case .constant(let value) = c.right {
            prepared = Self.prepare(op, options, value)
            right = ValueBox(run: { _, _ in value })
        } else {
            prepared = nil
            right = ValueBox(run: try expression(c.right))
        }
        guard let quantifier = c.quantifier else {
            if let prepared {
                let test = prepared.run
                return { root, bindings throws(PredicateEvaluationError) in try test(try left(root, bindings)) }
            }
            let right = right.run
            return { root, bindings throws(PredicateEvaluationError) in
                try Values.test(op, options, try left(root, bindings), try right(root, bindings))
            }
        }
        let name = quantifier.rawValue
        return { root, bindings throws(PredicateEvaluationError) in
            // A nil collection: no element matches, and the comparison is false.
            guard let elements = try Values.elements(try left(root, bindings), name) else { return false }
            let r: RecordValue? = prepared == nil ? try right.run(root, bindings) : nil
            func test(_ e: RecordValue) throws(PredicateEvaluationError) -> Bool {
                if let prepared { return try prepared.run(e) }
                return try Values.test(op, options, e, r ?? .null)
            }
            switch quantifier {
            case .any, .some:
                for e in elements where try test(e) { return true }
                return false
            case .all:
                for e in elements where try !test(e) { return false }
                return true
            case .none:
                for e in elements where try test(e) { return false }
                return true
            }
        }
    }

    /// The test of a left value against a constant right side, with what can be
    /// worked out once done once; nil when there is nothing to prepare.
    static func prepare(_ op: FormatPredicate.Operator, _ o: _TextOptions, _ constant: RecordValue) -> PreparedTest? {
        switch (op, constant) {
        case (.equal, .string(let s)) where o.folds:
            let folded = _Text.fold(s, o)
            return PreparedTest { l in
                guard case .string(let text) = l else { return Values.equals(l, constant, o) }
                return _Text.find(folded, in: text, o, .whole)
            }
        case (.notEqual, .string(let s)) where o.folds:
            let folded = _Text.fold(s, o)
            return PreparedTest { l in
                guard case .string(let text) = l else { return !Values.equals(l, constant, o) }
                return !_Text.find(folded, in: text, o, .whole)
            }
        case (.between, .array(let bounds)) where bounds.count == 2:
            if case .int(let low) = bounds[0], case .int(let high) = bounds[1] {
                return PreparedTest { l throws(PredicateEvaluationError) in
                    if case .int(let i) = l { return low <= i && i <= high }
                    return try Values.between(l, constant)
                }
            }
            return nil
        case (.contains, .string(let s)):
            let needle = _Text.fold(s, o)
            return PreparedTest { l throws(PredicateEvaluationError) in
                guard case .string(let text) = l else { return try Values.contains(l, constant, o, "CONTAINS") }
                return _Text.find(needle, in: text, o, .anywhere)
            }
        case (.beginsWith, .string(let s)), (.endsWith, .string(let s)):
            let needle = _Text.fold(s, o)
            let place: _Text.Place = op == .beginsWith ? .start : .end
            return PreparedTest { l throws(PredicateEvaluationError) in
                guard case .string(let text) = l else { return try Values.test(op, o, l, constant) }
                return _Text.find(needle, in: text, o, place)
            }
        case (.in, .string(let s)):
            let haystack = _Text.fold(s, o)
            return PreparedTest { l throws(PredicateEvaluationError) in
                guard case .string(let needle) = l else { return try Values.contains(constant, l, o, "IN") }
                return _Text.find(_Text.fold(needle, o), inFolded: haystack, o, .anywhere)
            }
        case (.in, .array(let elements)) where elements.allSatisfy({ if case .string = $0 { true } else { false } }):
            let strings = Set(elements.compactMap(\.asString))
            return PreparedTest { l throws(PredicateEvaluationError) in
                if case .string(let s) = l { return strings.contains(s) }
                return try Values.contains(constant, l, o, "IN")
            }
        case (.like, .string(let pattern)):
            let like = _LikePattern(pattern, o)
            return PreparedTest { l throws(PredicateEvaluationError) in
                guard case .string(let text) = l else { return try Values.test(.like, o, l, constant) }
                return like.matches(text)
            }
        case (.matches, .string(let pattern)):
            let regex: Result<_Regex, PredicateEvaluationError>
            do throws(PredicateEvaluationError) { regex = .success(try _Regex(pattern, o)) } catch { regex = .failure(error) }
            return PreparedTest { l throws(PredicateEvaluationError) in
                guard case .string(let text) = l else { return try Values.test(.matches, o, l, constant) }
                return try regex.get().matches(text)
            }
        default:
            return nil
        }
    }

    // MARK: Expressions

    /// The keys of a plain key path from the root (`a.b.c`, `SELF.a`), or nil.
    static func plainPath(_ e: FormatPredicate.Expression) -> [String]? {
        switch e {
        case .key(let key): return [key]
        case .member(.evaluatedObject, let key): return [key]
        case .member(let base, let key): return plainPath(base).map { $0 + [key] }
        default: return nil
        }
    }

    func expression(_ e: FormatPredicate.Expression) throws(RecordKeyError) -> Value {
        if let path = Self.plainPath(e) {
            let read = try reader(path.joined(separator: "."))
            return { root, _ in read(root) }
        }
        switch e {
        case .constant(let value):
            return { _, _ in value }
        case .evaluatedObject:
            let rootValue = rootValue
            return { root, _ in rootValue(root) }
        case .key, .member(.evaluatedObject, _):
            return { _, _ in .null }   // handled by plainPath
        case .variable(let name):
            return { _, bindings throws(PredicateEvaluationError) in
                guard let value = bindings.values[name] else { throw .unboundVariable(name) }
                return value
            }
        case .member(let base, let key):
            let value = try expression(base)
            return { root, bindings throws(PredicateEvaluationError) in try value(root, bindings).value(atKeyPath: [key][...]) }
        case .collectionOperator(let base, let op, let keys):
            let value = try expression(base)
            return { root, bindings throws(PredicateEvaluationError) in try Values.collectionOperator(op, try value(root, bindings), keys) }
        case .index(let base, let index):
            let value = try expression(base)
            if case .at(let position) = index {
                let at = try expression(position)
                return { root, bindings throws(PredicateEvaluationError) in
                    try Values.index(try value(root, bindings), index, at: try at(root, bindings))
                }
            }
            return { root, bindings throws(PredicateEvaluationError) in try Values.index(try value(root, bindings), index, at: nil) }
        case .aggregate(let elements):
            let values = try elements.map { element throws(RecordKeyError) in ValueBox(run: try expression(element)) }
            return { root, bindings throws(PredicateEvaluationError) in
                var result: [RecordValue] = []
                for value in values { result.append(try value.run(root, bindings)) }
                return .array(result)
            }
        case .arithmetic:
            // A chain `a + b - c …` nests the tree to the left as deep as it is
            // long: compiled and evaluated by a loop over its links, not by
            // recursion, so that a long chain needs no more stack than a short one.
            var links: [(FormatPredicate.ArithmeticOperator, FormatPredicate.Expression)] = []
            var spine = e
            while case .arithmetic(let a, let op, let b) = spine {
                links.append((op, b))
                spine = a
            }
            let first = try expression(spine)
            var steps: [ArithmeticStep] = []
            steps.reserveCapacity(links.count)
            for (op, b) in links.reversed() { steps.append(ArithmeticStep(op: op, operand: try expression(b))) }
            if steps.count == 1, let step = steps.first {
                let (op, y) = (step.op, step.operand)
                return { root, bindings throws(PredicateEvaluationError) in try Values.arithmetic(op, try first(root, bindings), try y(root, bindings)) }
            }
            return { root, bindings throws(PredicateEvaluationError) in
                var x = try first(root, bindings)
                for step in steps { x = try Values.arithmetic(step.op, x, try step.operand(root, bindings)) }
                return x
            }
        case .negation(let a):
            let x = try expression(a)
            return { root, bindings throws(PredicateEvaluationError) in try Values.negate(try x(root, bindings)) }
        case .function(let f, let arguments):
            let values = try arguments.map { argument throws(RecordKeyError) in ValueBox(run: try expression(argument)) }
            return { root, bindings throws(PredicateEvaluationError) in
                var args: [RecordValue] = []
                for value in values { args.append(try value.run(root, bindings)) }
                return try Values.call(f, args)
            }
        case .cast(let a, let type):
            let x = try expression(a)
            return { root, bindings throws(PredicateEvaluationError) in try Values.cast(try x(root, bindings), to: type) }
        case .subquery(let collection, let variable, let inner):
            let elements = try expression(collection)
            let test = try condition(inner)
            return { root, bindings throws(PredicateEvaluationError) in
                guard let list = try Values.elements(try elements(root, bindings), "SUBQUERY") else { return .array([]) }
                var scope = copy bindings
                var chosen: [RecordValue] = []
                for element in list {
                    scope.values[variable] = element
                    if try test(root, scope) { chosen.append(element) }
                }
                return .array(chosen)
            }
        }
    }
}

extension _PredicateCompiler where Root == RecordValue {
    /// Compiles for plain values: keys read through records, over arrays.
    static var values: _PredicateCompiler<RecordValue> {
        _PredicateCompiler(
            reader: { path in
                let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                return { $0.value(atKeyPath: keys[...]) }
            },
            rootValue: { $0 })
    }
}

/// A record as a value, for `SELF`: a dynamic object's fields, a value
/// convertible record's value, its declared keys, or what it encodes to.
func _recordValue<R: Record>(_ record: R) -> RecordValue {
    if let object = record as? DynamicObject { return .record(object.fields) }
    if let convertible = record as? any RecordValueConvertible { return convertible.recordValue }
    let keys = R.recordKeys
    if let declared = keys.declaredKeys {
        return .record(DynamicRecord(fields: declared.map { ($0, keys.value(of: record, forKey: $0) ?? .null) }))
    }
    if let encodable = record as? any Encodable { return (try? RecordValueEncoder().encode(encodable)) ?? .null }
    return .null
}
