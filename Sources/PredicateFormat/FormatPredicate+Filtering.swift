import Foundation
import Records

extension Sequence where Element: Record {
    /// The records a format predicate matches, in order — Foundation's
    /// `filteredArrayUsingPredicate:` for any sequence of records.
    ///
    /// ```swift
    /// let found = try controller.fetchedObjects?.filter(FormatPredicate("text CONTAINS[cd] %@", "fog")) ?? []
    /// ```
    ///
    /// The predicate is compiled once for the record type.
    ///
    /// - Throws: ``PredicateEvaluationError``: ``PredicateEvaluationError/unknownKey(_:)``
    ///   for a key the record type does not declare, or what evaluating a
    ///   record ran into (an unbound `$VARIABLE`, an operator given a value it
    ///   cannot take); nothing is returned then.
    /// - Complexity: O(*n*) evaluations.
    public func filter(_ predicate: FormatPredicate, variables: [String: RecordValue] = [:]) throws(PredicateEvaluationError) -> [Element] {
        let compiled: CompiledPredicate<Element>
        do throws(RecordKeyError) { compiled = try predicate.compiled(for: Element.self) } catch { throw .unknownKey(error) }
        var matches: [Element] = []
        for record in self where try compiled.evaluate(record, variables: variables) { matches.append(record) }
        return matches
    }
}

extension Sequence where Element == RecordValue {
    /// The values a format predicate matches, in order (`SELF` is each value).
    ///
    /// - Throws: ``PredicateEvaluationError``, as evaluating one value does.
    public func filter(_ predicate: FormatPredicate, variables: [String: RecordValue] = [:]) throws(PredicateEvaluationError) -> [RecordValue] {
        let test: _PredicateCompiler<RecordValue>.Test
        do throws(RecordKeyError) { test = try _PredicateCompiler.values.condition(predicate.condition) } catch { throw .unknownKey(error) }
        let bindings = _Bindings(variables)
        var matches: [RecordValue] = []
        for value in self where try test(value, bindings) { matches.append(value) }
        return matches
    }
}

// MARK: - Narrowing

extension FormatPredicate {
    /// Whether every record of type `R` this predicate matches, `wider`
    /// matches too, by a rule simple enough to prove — what lets a search
    /// filter its previous results when the text grows (`jo` → `jos`)
    /// instead of the whole store. False means *not proven*, not *false*.
    ///
    /// The rule: the two predicates are the same tree except for string
    /// constants on the right of `CONTAINS`, `BEGINSWITH` or `ENDSWITH`
    /// comparisons (with the same options and no `ANY`/`ALL`/`NONE`) whose left
    /// side is a key `R` declares as a `String` or `String?` property (through
    /// `RecordKey`'s key path initializer: on a collection `CONTAINS` tests
    /// membership, where a longer text does not narrow). At each such place,
    /// this predicate's text, folded as the comparison folds it (`[c]`, `[d]`),
    /// must contain `wider`'s (start with it for `BEGINSWITH`, end with it for
    /// `ENDSWITH`) on character boundaries: a record's text containing
    /// `jos` contains `jo`. Under `NOT` the roles swap. `AND` and `OR`
    /// combine places of the same shape.
    ///
    /// ```swift
    /// let jos = try FormatPredicate("name CONTAINS[cd] %@", "jös")
    /// jos.provablyNarrows(try FormatPredicate("name CONTAINS[cd] %@", "jo"), for: Person.self)   // true
    /// ```
    ///
    /// - Complexity: O(size of the tree + length of the texts).
    public func provablyNarrows<R: Record>(_ wider: FormatPredicate, for type: R.Type = R.self) -> Bool {
        Self.narrows(condition, wider.condition, positive: true, keys: R.recordKeys)
    }

    static func narrows<R>(_ narrow: Condition, _ wide: Condition, positive: Bool, keys: RecordKeys<R>) -> Bool {
        if narrow == wide { return true }
        switch (narrow, wide) {
        case let (.not(a), .not(b)):
            return narrows(a, b, positive: !positive, keys: keys)
        case let (.and(a), .and(b)), let (.or(a), .or(b)):
            // Same connective: the case patterns pair `and` with `and`, `or` with `or`.
            return a.count == b.count && zip(a, b).allSatisfy { narrows($0, $1, positive: positive, keys: keys) }
        case let (.comparison(a), .comparison(b)):
            guard a.quantifier == nil, b.quantifier == nil, a.left == b.left, a.operator == b.operator, a.options == b.options,
                case .key(let key) = a.left, !key.contains("."), keys.isTextKey(key),
                case .constant(.string(let narrowText)) = a.right, case .constant(.string(let wideText)) = b.right
            else { return false }
            let place: _Text.Place
            switch a.operator {
            case .contains: place = .anywhere
            case .beginsWith: place = .start
            case .endsWith: place = .end
            default: return false
            }
            // A text matching the longer needle matches the shorter one inside it.
            let o = _TextOptions(a.options)
            let (inner, outer) = positive ? (wideText, narrowText) : (narrowText, wideText)
            return _Text.find(_Text.fold(inner, o), inFolded: _Text.fold(outer, o), o, place)
        default:
            return false
        }
    }
}
