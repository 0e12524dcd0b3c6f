import Foundation
import Records

/// A predicate written in Core Data's format language — `NSPredicate(format:)`,
/// which Foundation does not offer on Linux.
///
/// ```swift
/// let search = try FormatPredicate("text CONTAINS[cd] %@ AND ANY media.type == 'image'", "fog")
/// try search.evaluate(with: entry)
/// let request = FetchRequest<Entry>(predicate: RecordPredicate(search), sortKeys: [SortKey("created")])
/// ```
///
/// The string is parsed once, when the predicate is made; a malformed one is a
/// ``PredicateSyntaxError`` naming the offset, what was found and what was
/// expected. Arguments are substituted as they are met: `%@` (and the
/// printf-style `%d`, `%f`, `%s`, …) as constants, `%K` as a key path.
/// `$NAME` variables are bound when evaluating, or with ``substituting(_:)``.
///
/// Evaluating compiles the tree into closures for the record type (once per
/// fetch request); a value an operator cannot take is a
/// ``PredicateEvaluationError``, never a trap. The language, its choices
/// where the sources disagree, and its costs: see the Predicates article.
public struct FormatPredicate: Hashable, Sendable, CustomStringConvertible {
    /// What the predicate tests.
    public var condition: Condition

    /// A predicate from its tree.
    public init(_ condition: Condition) {
        self.condition = condition
    }

    /// Parses a format string, substituting `arguments` left to right.
    ///
    /// - Throws: ``PredicateSyntaxError``; too few arguments is one (extra
    ///   arguments are ignored).
    public init(_ format: String, _ arguments: any RecordValueConvertible...) throws(PredicateSyntaxError) {
        try self.init(format: format, arguments: arguments.map(\.recordValue))
    }

    /// Parses a format string, substituting `arguments` left to right.
    public init(format: String, arguments: [RecordValue] = []) throws(PredicateSyntaxError) {
        var parser = try _PredicateParser(format: format, arguments: arguments)
        condition = try parser.parse()
    }

    /// The canonical format string: parsing it gives this predicate again
    /// (except for record constants, and keys that are not identifiers —
    /// neither has a literal form).
    public var predicateFormat: String { condition.description }

    public var description: String { predicateFormat }

    // MARK: Variables

    /// The `$NAME` variables the predicate needs (those of `SUBQUERY` excluded).
    public var variables: Set<String> {
        var names = Set<String>()
        condition.visitVariables(bound: []) { names.insert($0) }
        return names
    }

    /// The predicate with variables replaced by values
    /// (`predicateWithSubstitutionVariables:`); others stay variables. `.null`
    /// binds a variable to nil.
    public func substituting(_ values: [String: RecordValue]) -> FormatPredicate {
        FormatPredicate(condition.substituting(values, bound: []))
    }

    // MARK: Evaluating

    /// Whether `value` matches: `SELF` is the value, keys read through records.
    public func evaluate(with value: RecordValue, variables: [String: RecordValue] = [:]) throws(PredicateEvaluationError) -> Bool {
        let test: _PredicateCompiler<RecordValue>.Test
        do throws(RecordKeyError) { test = try _PredicateCompiler.values.condition(condition) } catch { throw .unknownKey(error) }
        return try test(value, _Bindings(variables))
    }

    /// Whether a record matches. To test many records, compile once with
    /// ``compiled(for:)``.
    public func evaluate<R: Record>(with record: R, variables: [String: RecordValue] = [:]) throws(PredicateEvaluationError) -> Bool {
        let compiled: CompiledPredicate<R>
        do throws(RecordKeyError) { compiled = try self.compiled(for: R.self) } catch { throw .unknownKey(error) }
        return try compiled.evaluate(record, variables: variables)
    }

    /// The predicate compiled for a record type: keys resolved, constants prepared.
    ///
    /// - Throws: `RecordKeyError` for a key the record type does not declare.
    public func compiled<R: Record>(for type: R.Type = R.self) throws(RecordKeyError) -> CompiledPredicate<R> {
        let compiler = _PredicateCompiler<R>(
            reader: { path throws(RecordKeyError) in try R._reader(forKeyPath: path).read },
            rootValue: _recordValue)
        return CompiledPredicate(test: try compiler.condition(condition))
    }

    /// The predicate compiled with the caller's own reader of key paths (the
    /// object graph's, which goes through relationships) and value of `SELF`.
    ///
    /// - Throws: what `reader` throws for a key path it cannot read.
    package func compiled<Root>(
        reader: @escaping (String) throws(RecordKeyError) -> (Root) -> RecordValue,
        rootValue: @escaping (Root) -> RecordValue
    ) throws(RecordKeyError) -> CompiledPredicate<Root> {
        let compiler = _PredicateCompiler<Root>(reader: reader, rootValue: rootValue)
        return CompiledPredicate(test: try compiler.condition(condition))
    }
}

/// A ``FormatPredicate`` compiled for a record type: call it with a record,
/// from any thread.
public struct CompiledPredicate<R>: @unchecked Sendable {
    // The closures capture only what compiling made and never changes: key
    // readers, prepared constants, regular expressions (immutable); the
    // folding cache they share is behind a lock.
    let test: (R, borrowing _Bindings) throws(PredicateEvaluationError) -> Bool

    /// Whether `record` matches.
    @inlinable
    public func callAsFunction(_ record: R) throws(PredicateEvaluationError) -> Bool {
        try evaluate(record, variables: [:])
    }

    /// Whether `record` matches, with `$NAME` variables bound.
    public func evaluate(_ record: R, variables: [String: RecordValue]) throws(PredicateEvaluationError) -> Bool {
        try test(record, _Bindings(variables))
    }
}

// MARK: - Walking the tree

extension FormatPredicate.Condition {
    func visitVariables(bound: Set<String>, _ visit: (String) -> Void) {
        switch self {
        case .constant: break
        case .not(let c): c.visitVariables(bound: bound, visit)
        case .and(let cs), .or(let cs): for c in cs { c.visitVariables(bound: bound, visit) }
        case .comparison(let c):
            c.left.visitVariables(bound: bound, visit)
            c.right.visitVariables(bound: bound, visit)
        }
    }

    func substituting(_ values: [String: RecordValue], bound: Set<String>) -> Self {
        switch self {
        case .constant: return self
        case .not(let c): return .not(c.substituting(values, bound: bound))
        case .and(let cs): return .and(cs.map { $0.substituting(values, bound: bound) })
        case .or(let cs): return .or(cs.map { $0.substituting(values, bound: bound) })
        case .comparison(var c):
            c.left = c.left.substituting(values, bound: bound)
            c.right = c.right.substituting(values, bound: bound)
            return .comparison(c)
        }
    }
}

extension FormatPredicate.Expression {
    func visitVariables(bound: Set<String>, _ visit: (String) -> Void) {
        switch self {
        case .constant, .evaluatedObject, .key: break
        case .variable(let name): if !bound.contains(name) { visit(name) }
        case .member(let e, _), .collectionOperator(let e, _, _), .negation(let e), .cast(let e, _):
            e.visitVariables(bound: bound, visit)
        case .index(let e, let index):
            e.visitVariables(bound: bound, visit)
            if case .at(let i) = index { i.visitVariables(bound: bound, visit) }
        case .aggregate(let es), .function(_, let es): for e in es { e.visitVariables(bound: bound, visit) }
        case .arithmetic(let a, _, let b):
            a.visitVariables(bound: bound, visit)
            b.visitVariables(bound: bound, visit)
        case .subquery(let collection, let variable, let condition):
            collection.visitVariables(bound: bound, visit)
            condition.visitVariables(bound: bound.union([variable]), visit)
        }
    }

    /// Variables replaced by values; constants folded again where that made
    /// them constant (`{$LOW, $HIGH}`, `-$X`, `CAST($T, 'NSDate')`).
    func substituting(_ values: [String: RecordValue], bound: Set<String>) -> Self {
        switch self {
        case .constant, .evaluatedObject, .key: return self
        case .variable(let name):
            guard !bound.contains(name), let value = values[name] else { return self }
            return .constant(value)
        case .member(let e, let key): return .member(e.substituting(values, bound: bound), key)
        case .collectionOperator(let e, let op, let keys): return .collectionOperator(e.substituting(values, bound: bound), op, keys)
        case .negation(let e):
            return _PredicateParser.negated(e.substituting(values, bound: bound))
        case .cast(let e, let type):
            let inner = e.substituting(values, bound: bound)
            if case .constant(let value) = inner, let cast = try? _PredicateValues.cast(value, to: type) { return .constant(cast) }
            return .cast(inner, type)
        case .index(let e, let index):
            if case .at(let i) = index { return .index(e.substituting(values, bound: bound), .at(i.substituting(values, bound: bound))) }
            return .index(e.substituting(values, bound: bound), index)
        case .aggregate(let es):
            let elements = es.map { $0.substituting(values, bound: bound) }
            var constants: [RecordValue] = []
            for e in elements {
                guard case .constant(let v) = e else { return .aggregate(elements) }
                constants.append(v)
            }
            return .constant(.array(constants))
        case .function(let f, let es): return .function(f, es.map { $0.substituting(values, bound: bound) })
        case .arithmetic(let a, let op, let b): return .arithmetic(a.substituting(values, bound: bound), op, b.substituting(values, bound: bound))
        case .subquery(let collection, let variable, let condition):
            return .subquery(collection.substituting(values, bound: bound), variable: variable, condition.substituting(values, bound: bound.union([variable])))
        }
    }
}
