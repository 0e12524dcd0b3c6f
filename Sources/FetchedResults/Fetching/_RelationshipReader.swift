import Foundation
import PredicateFormat
import RecordStore
import Records

/// Reads key paths that go through relationships, as a context sees the
/// objects: `diaryEntry.month` (to-one), `media.type` (to-many: an array),
/// `media.@count`, and on from a `SUBQUERY` variable (`$m.diaryEntry.text`).
/// A relationship at the end of a path is its destination's record (to-one,
/// nil when empty) or an array of them (to-many).
///
/// A controller keeps what each object's key paths read (``visits``) in a
/// reverse map, to follow changes of the objects read. A reference to an
/// object that does not exist (a `noAction` delete not yet repaired) is
/// reported after the fetch (``failure``).
@usableFromInline
final class _RelationshipReader: @unchecked Sendable {
    let context: ObjectContext
    var model: ObjectModel { context.model }
    /// The first reference to a missing object met.
    var failure: FetchError?
    /// When recording, every object a key path looks up (found or not).
    @usableFromInline var visits: [_Ref]?
    /// For the collection key path of a `SUBQUERY`, the key paths its
    /// variable reads below each element: the relationships on them are
    /// followed in the elements given.
    var expansions: [String: [[String]]] = [:]
    /// Counts the changes of the objects read, for the memos.
    private(set) var generation = 0

    init(context: ObjectContext) { self.context = context }

    /// Forgets every value read so far (the objects changed).
    func invalidate() { generation &+= 1 }

    /// Whether a key path from entity `k` goes through a relationship (its
    /// first key names one).
    func goesThroughRelationship(_ path: String, from k: Int) -> Bool {
        guard let first = path.split(separator: ".", omittingEmptySubsequences: false).first else { return false }
        return model.entities[k].relationship(named: String(first)) != nil
    }

    /// Checks a key path against the model from entity `k`: each key is a
    /// relationship (the path goes on from its destination) or a key of the
    /// record type (the rest of the path goes into its value).
    ///
    /// - Throws: ``FetchError/unknownKey(_:)``.
    func check(_ path: String, from k: Int) throws(FetchError) {
        var entity = k
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (n, key) in keys.enumerated() {
            if key.hasPrefix("@") || key == "SELF" { return }
            let description = model.entities[entity]
            if let r = description.relationship(named: key), let d = model.byName[r.destinationEntityName] {
                entity = d
                continue
            }
            if let declared = description.declaredKeys, !declared.contains(key), key != "id" {
                throw .unknownKey(RecordKeyError(
                    keyPath: keys[n...].joined(separator: "."), typeName: description.name, knownKeys: declared + description.relationships.map(\.name)))
            }
            return
        }
    }

    /// A reader of a key path from records of entity `k` (of type `R`). A
    /// collection operator in it (`media.@count`, `media.@max.kb`, as a sort
    /// or section key) applies to the values before it.
    func reader<R: Record & Codable>(_ path: String, from k: Int, _ type: R.Type) -> RecordReader<R> {
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if let at = keys.firstIndex(where: { $0.hasPrefix("@") }), let op = FormatPredicate.CollectionOperator(rawValue: keys[at]) {
            let base = keys[..<at], rest = Array(keys[(at + 1)...])
            return RecordReader { record in _collectionValue(op, self.value(of: k, record, base), rest) }
        }
        let expand = expansions[path] ?? []
        if keys.count > 1, expand.isEmpty, let r = model.entities[k].relationship(named: keys[0]), !r.isToMany {
            let memo = _Memo()
            return RecordReader { record in self.memoized(k, record, keys, r, memo) }
        }
        return RecordReader { record in self.value(of: k, record, keys[...], expand: expand) }
    }

    /// The values a key path read through a to-one relationship, by
    /// destination: each destination is resolved once per fetch (a million
    /// media of ten thousand entries read ten thousand entries), with the
    /// objects the read visited. Emptied when the objects change.
    final class _Memo {
        var generation = -1
        var values: [AnyHashable: (value: RecordValue, visited: [_Ref])] = [:]
    }

    /// The value of a path whose first key is a to-one relationship, read
    /// once per destination.
    func memoized(_ k: Int, _ record: any Record & Codable, _ keys: [String], _ r: RelationshipDescription, _ memo: _Memo) -> RecordValue {
        guard let destination = r.destinations(record)?.first else { return value(of: k, record, keys[...]) }
        if memo.generation != generation {
            memo.values.removeAll(keepingCapacity: true)
            memo.generation = generation
        }
        if let hit = memo.values[destination] {
            visits?.append(contentsOf: hit.visited)
            return hit.value
        }
        let start = visits?.count ?? 0
        let value = value(of: k, record, keys[...])
        if failure == nil {
            memo.values[destination] = (value, visits.map { Array($0[start...]) } ?? [])
        }
        return value
    }

    /// The value at a path in a record of entity `k`.
    func value(of k: Int, _ record: any Record & Codable, _ path: ArraySlice<String>, expand: [[String]] = []) -> RecordValue {
        let entity = model.entities[k]
        guard let key = path.first else { return expanded(k, record, expand) }
        guard let r = entity.relationship(named: key), let d = model.byName[r.destinationEntityName] else {
            return (entity.value(record, key) ?? .null).value(atKeyPath: path.dropFirst())
        }
        let rest = path.dropFirst()
        var values: [RecordValue] = []
        for id in r.destinations(record) ?? [] {
            let ref = _Ref(family: model.roots[d], id: id)
            visits?.append(ref)
            guard let found = context.peek(ref), model.families[d].contains(found.entity) else {
                if failure == nil, let sourceID = entity.kind.id(of: record) {
                    failure = .danglingReference(object: model.objectID(k, sourceID), relationship: r.name, destination: model.objectID(d, id))
                }
                continue
            }
            let value = self.value(of: found.entity, found.record, rest, expand: expand)
            // A to-many step inside a to-many path adds its elements, as Core Data's key paths do.
            if r.isToMany, !rest.isEmpty, case .array(let elements) = value, isToMany(found.entity, rest) {
                values.append(contentsOf: elements)
            } else {
                values.append(value)
            }
        }
        if r.isToMany { return .array(values) }
        return values.first ?? .null
    }

    /// A record as a value, the relationships on `paths` followed: their
    /// fields hold the destinations' records (expanded in turn by the rest
    /// of the paths) instead of identities.
    func expanded(_ k: Int, _ record: any Record & Codable, _ paths: [[String]]) -> RecordValue {
        let value = _recordValue(of: record)
        guard !paths.isEmpty, case .record(var fields) = value else { return value }
        let entity = model.entities[k]
        var byKey: [String: [[String]]] = [:]
        var order: [String] = []
        for path in paths {
            guard let first = path.first, entity.relationship(named: first) != nil else { continue }
            if byKey[first] == nil { order.append(first) }
            byKey[first, default: []].append(Array(path.dropFirst()))
        }
        for key in order {
            let rests = (byKey[key] ?? []).filter { !$0.isEmpty }
            fields[key] = self.value(of: k, record, [key][...], expand: rests)
        }
        return .record(fields)
    }

    /// Whether a path from entity `k` goes through a to-many relationship.
    func isToMany(_ k: Int, _ path: ArraySlice<String>) -> Bool {
        var entity = k
        for key in path {
            guard let r = model.entities[entity].relationship(named: key), let d = model.byName[r.destinationEntityName] else { return false }
            if r.isToMany { return true }
            entity = d
        }
        return false
    }
}

/// How a request of `R`'s entity reads its key paths through relationships:
/// made only when the model has relationships and the request's predicate,
/// sort keys or section key go through one.
@usableFromInline
struct _PredicateReading<R: Record & Codable> {
    @usableFromInline let reader: _RelationshipReader
    let entity: Int

    /// Nil when nothing the request reads goes through a relationship.
    @usableFromInline
    init?(_ access: _EntityAccess<R>, request: FetchRequest<R>, sectionKeyPath: String?) {
        guard access.model.hasRelationships, let entity = access.entity, !access.model.entities[entity].relationships.isEmpty else { return nil }
        let reader = _RelationshipReader(context: access.context)
        let paths = request.sortKeys.map(\.keyPath) + (sectionKeyPath.map { [$0] } ?? []) + (request.predicate?.formatKeyPaths ?? [])
        guard paths.contains(where: { reader.goesThroughRelationship($0, from: entity) }) else { return nil }
        self.reader = reader
        self.entity = entity
    }

    /// A reader of a key path that goes through a relationship; nil for
    /// another (the record type's own keys read it).
    @usableFromInline
    func reader(_ path: String) throws(FetchError) -> RecordReader<R>? {
        guard reader.goesThroughRelationship(path, from: entity) else { return nil }
        try reader.check(path, from: entity)
        return reader.reader(path, from: entity, R.self)
    }

    /// How the request's format predicates are compiled: through the reader.
    @usableFromInline
    var formats: _FormatCompiler<R> { _FormatCompiler(reads: reads, compile: compile) }

    /// Whether a format predicate reads a key path through a relationship.
    func reads(_ predicate: FormatPredicate) -> Bool {
        predicate.keyPaths.contains { reader.goesThroughRelationship($0, from: entity) }
    }

    /// A format predicate compiled for `R`, its key paths through
    /// relationships read by the reader.
    ///
    /// - Throws: ``FetchError/unknownKey(_:)``.
    func compile(_ predicate: FormatPredicate) throws(FetchError) -> CompiledPredicate<R> {
        for path in predicate.keyPaths { try reader.check(path, from: entity) }
        reader.expansions.merge(predicate.subqueryExpansions) { $0 + $1 }
        let reader = reader, entity = entity
        do throws(RecordKeyError) {
            return try predicate.compiled(
                reader: { path throws(RecordKeyError) in
                    if reader.goesThroughRelationship(path, from: entity) { return reader.reader(path, from: entity, R.self).read }
                    return try R._reader(forKeyPath: path).read
                },
                rootValue: { _recordValue(of: $0) })
        } catch {
            throw .unknownKey(error)
        }
    }
}

/// How a request's format predicates are compiled when some read through
/// relationships (what `RecordPredicate.evaluator(relationships:)` takes).
@usableFromInline
struct _FormatCompiler<R: Record> {
    @usableFromInline let reads: (FormatPredicate) -> Bool
    @usableFromInline let compile: (FormatPredicate) throws(FetchError) -> CompiledPredicate<R>
}

extension RecordPredicate {
    /// The key paths of the format predicates in it (none for a closure).
    var formatKeyPaths: [String] {
        switch kind {
        case .format(let predicate): return predicate.keyPaths
        case .all(let predicates): return predicates.flatMap(\.formatKeyPaths)
        case .closure, .throwing: return []
        }
    }
}

/// A record as a value (`SELF`, a relationship at the end of a path): every
/// field it encodes.
func _recordValue(of record: any Record & Codable) -> RecordValue {
    // A dynamic object is its fields (its Codable form wraps them with the id).
    if let object = record as? DynamicObject { return .record(object.fields) }
    return (try? RecordValueEncoder().encode(record)) ?? .null
}

/// A collection operator applied to a key path's value (a sort or section
/// key such as `media.@count`): `@count` of an array (0 for nil, 1 for one
/// value); `@sum`, `@avg`, `@min`, `@max` of the values at `keys` of each
/// element; the unions of their values.
func _collectionValue(_ op: FormatPredicate.CollectionOperator, _ value: RecordValue, _ keys: [String]) -> RecordValue {
    let elements: [RecordValue]
    switch value {
    case .array(let array): elements = array
    case .null: elements = []
    default: elements = [value]
    }
    let values = (keys.isEmpty ? elements : elements.map { $0.value(atKeyPath: keys[...]) }).filter { $0 != .null }
    switch op {
    case .count: return .int(elements.count)
    case .sum, .avg:
        var ints = 0, doubles = 0.0, allInts = true, overflow = false
        for v in values {
            switch v {
            case .int(let i):
                let (sum, o) = ints.addingReportingOverflow(i)
                ints = sum
                overflow = overflow || o
                doubles += Double(i)
            case .double(let d):
                allInts = false
                doubles += d
            default: continue
            }
        }
        if op == .avg { return values.isEmpty ? .null : .double(doubles / Double(values.count)) }
        return allInts && !overflow ? .int(ints) : .double(doubles)
    case .min, .max:
        let order = values.map { _SortValue($0, comparison: .plain) }
        guard var best = order.indices.first else { return .null }
        for k in order.indices.dropFirst() {
            let c = _SortValue.compare(order[k], order[best])
            if op == .min ? c < 0 : c > 0 { best = k }
        }
        return values[best]
    case .unionOfObjects, .unionOfArrays:
        return .array(op == .unionOfObjects ? values : values.flatMap { if case .array(let a) = $0 { a } else { [$0] } })
    case .distinctUnionOfObjects, .distinctUnionOfArrays:
        var seen = Set<RecordValue>(), result: [RecordValue] = []
        for v in op == .distinctUnionOfObjects ? values : values.flatMap({ if case .array(let a) = $0 { a } else { [$0] } }) where seen.insert(v).inserted {
            result.append(v)
        }
        return .array(result)
    }
}

extension FormatPredicate {
    /// For each `SUBQUERY` whose collection is a plain key path, the key
    /// paths its variable reads below an element (`SUBQUERY(media, $m,
    /// $m.diaryEntry.text == 'Fog')`: `media` → `[diaryEntry, text]`).
    var subqueryExpansions: [String: [[String]]] {
        var result: [String: [[String]]] = [:]
        func plainPath(_ e: Expression) -> [String]? {
            switch e {
            case .key(let key): return [key]
            case .member(.evaluatedObject, let key): return [key]
            case .member(let base, let key): return plainPath(base).map { $0 + [key] }
            default: return nil
            }
        }
        // The chain of keys below `$variable` an expression reads, if it is one.
        func chain(_ e: Expression, _ variable: String) -> [String]? {
            switch e {
            case .variable(let name): return name == variable ? [] : nil
            case .member(let base, let key): return chain(base, variable).map { $0 + [key] }
            case .collectionOperator(let base, _, let keys): return chain(base, variable).map { $0 + keys }
            case .index(let base, _): return chain(base, variable)
            default: return nil
            }
        }
        func children(_ e: Expression) -> [Expression] {
            switch e {
            case .member(let base, _), .collectionOperator(let base, _, _), .negation(let base), .cast(let base, _): return [base]
            case .index(let base, let index):
                if case .at(let position) = index { return [base, position] }
                return [base]
            case .aggregate(let es), .function(_, let es): return es
            case .arithmetic(let a, _, let b): return [a, b]
            case .subquery(let collection, _, _): return [collection]
            case .constant, .evaluatedObject, .variable, .key: return []
            }
        }
        func expressions(_ c: Condition) -> [Expression] {
            switch c {
            case .constant: return []
            case .not(let inner): return expressions(inner)
            case .and(let cs), .or(let cs): return cs.flatMap(expressions)
            case .comparison(let comparison): return [comparison.left, comparison.right]
            }
        }
        func visit(_ e: Expression, _ variables: [(variable: String, collection: String)]) {
            for (variable, collection) in variables {
                if let keys = chain(e, variable), !keys.isEmpty { result[collection, default: []].append(keys) }
            }
            if case .subquery(let collection, let variable, let condition) = e {
                visit(collection, variables)
                let inner = plainPath(collection).map { variables + [(variable, $0.joined(separator: "."))] } ?? variables
                for child in expressions(condition) { visit(child, inner) }
                return
            }
            for child in children(e) { visit(child, variables) }
        }
        for e in expressions(condition) { visit(e, []) }
        return result
    }

    /// The plain key paths the predicate reads (not those under a `SUBQUERY`
    /// variable).
    var keyPaths: [String] {
        var paths: [String] = []
        func visit(_ e: Expression) {
            switch e {
            case .key(let key): paths.append(key)
            case .member(.evaluatedObject, let key): paths.append(key)
            case .member(let base, let key):
                if let path = plainPath(base) { paths.append((path + [key]).joined(separator: ".")) } else { visit(base) }
            case .collectionOperator(let base, _, _), .negation(let base), .cast(let base, _): visit(base)
            case .index(let base, _): visit(base)
            case .aggregate(let es), .function(_, let es): es.forEach(visit)
            case .arithmetic(let a, _, let b):
                visit(a)
                visit(b)
            case .subquery(let collection, _, _): visit(collection)
            case .constant, .evaluatedObject, .variable: break
            }
        }
        func plainPath(_ e: Expression) -> [String]? {
            switch e {
            case .key(let key): return [key]
            case .member(.evaluatedObject, let key): return [key]
            case .member(let base, let key): return plainPath(base).map { $0 + [key] }
            default: return nil
            }
        }
        func visit(_ c: Condition) {
            switch c {
            case .constant: break
            case .not(let inner): visit(inner)
            case .and(let cs), .or(let cs): cs.forEach(visit)
            case .comparison(let comparison):
                visit(comparison.left)
                visit(comparison.right)
            }
        }
        visit(condition)
        return paths
    }
}
