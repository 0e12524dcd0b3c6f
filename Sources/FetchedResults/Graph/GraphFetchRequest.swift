import Foundation
import PredicateFormat
import Records

/// What to fetch from an ``ObjectGraphContext``: the objects of an entity
/// (and of its sub-entities) that match a predicate, in the order of sort
/// keys — Core Data's `NSFetchRequest` over a model.
///
/// Key paths in the predicate and the sort keys go through relationships:
/// `diaryEntry.creationTime < %@` (to-one), `ANY media.type == 'image'`,
/// `ALL media.size < 100`, `NONE media.type == 'audio'`, `media.@count > 2`,
/// `SUBQUERY(media, $m, $m.type == 'audio').@count > 0` (to-many), and on
/// from a `SUBQUERY` variable (`$m.diaryEntry.text`); a sort key
/// `diaryEntry.text`, or one ending in a collection operator (`media.@count`). A relationship at the end of a path is its
/// destination's record (to-one, nil when empty) or an array of them
/// (to-many); compare identities with `diaryEntry.id == 1`.
public struct GraphFetchRequest: Sendable {
    /// The entity fetched.
    public var entityName: String
    /// Which objects; nil for all.
    public var predicate: FormatPredicate?
    /// Their order; the first insertion order breaks ties.
    public var sortKeys: [SortKey]
    /// Whether the sub-entities' objects are fetched too (true by default, as
    /// in Core Data).
    public var includesSubentities: Bool
    /// The most objects returned (nil: no limit).
    public var fetchLimit: Int?

    /// A request for the objects of `entityName`.
    public init(entityName: String, predicate: FormatPredicate? = nil, sortKeys: [SortKey] = [], includesSubentities: Bool = true, fetchLimit: Int? = nil) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortKeys = sortKeys
        self.includesSubentities = includesSubentities
        self.fetchLimit = fetchLimit
    }
}

/// Why a fetch of a graph failed.
public enum GraphFetchError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The model has no such entity.
    case unknownEntity(String)
    /// A key path names neither a key of the entity's record type nor one of
    /// its relationships.
    case unknownKey(entity: String, keyPath: String, key: String)
    /// The predicate could not be evaluated on an object.
    case evaluation(String)
    /// A ``GraphFetchedResultsController`` cannot fetch or answer: no sort
    /// keys, sections out of order, a negative limit, no object at an index
    /// path, not fetched yet — the error the plain controller reports.
    case controller(FetchError)
    /// A key path went through a reference to an object that does not
    /// exist (a `noAction` delete not yet repaired), or a record could not
    /// be read.
    case graph(ObjectGraphError)

    public var description: String {
        switch self {
        case .unknownEntity(let name): return "the model has no entity \(name)"
        case let .unknownKey(entity, keyPath, key): return "the key path \(keyPath) cannot be read from \(entity): it has no key or relationship '\(key)'"
        case .evaluation(let message): return message
        case .controller(let error): return error.description
        case .graph(let error): return error.description
        }
    }
}

extension ObjectGraphContext {
    /// The objects matching a request, in its order, as this context sees them.
    ///
    /// - Throws: ``GraphFetchError``; nothing is returned then.
    /// - Complexity: O(*n* log *n*) for *n* objects of the entities fetched;
    ///   a key path through a to-one relationship reads each distinct
    ///   destination once, one through a to-many one each destination of
    ///   each object.
    public func fetch(_ request: GraphFetchRequest) throws(GraphFetchError) -> [GraphObject] {
        guard model.entity(named: request.entityName) != nil else { throw .unknownEntity(request.entityName) }
        let names = Set(request.includesSubentities ? model.entityNames(including: request.entityName) : [request.entityName])
        var reader = _GraphKeyReader(context: self)
        reader.expansions = request.predicate?.subqueryExpansions ?? [:]
        let test = try request.predicate.map { predicate throws(GraphFetchError) in
            for path in predicate.keyPaths { try reader.check(path, from: request.entityName) }
            do throws(RecordKeyError) {
                return try predicate.compiled(
                    reader: { path throws(RecordKeyError) in reader.reader(path) },
                    rootValue: { object in _graphRecordValue(object.record) })
            } catch {
                throw GraphFetchError.evaluation(error.description)
            }
        }
        for key in request.sortKeys { try reader.check(key.keyPath, from: request.entityName) }
        let sortReaders = request.sortKeys.map { reader.reader($0.keyPath) }

        // The candidates first, under the store's lock; then each is tested,
        // outside it (reading through relationships looks objects up).
        var candidates: [(stored: _GraphObject, sequence: Int64)] = []
        do throws(FetchError) {
            try base.forEachRecord { borrowed, sequence throws(FetchError) in
                if names.contains(borrowed.entity) { candidates.append((copy borrowed, sequence)) }
            }
        } catch {
            throw .evaluation(error.description)
        }
        var matches: [(object: _Resolved, sequence: Int64, values: [_SortValue])] = []
        for (stored, sequence) in candidates {
            let object: _Resolved
            do throws(ObjectGraphError) {
                object = _Resolved(stored: stored, record: try stored.record(in: model))
            } catch {
                throw .graph(error)
            }
            if let test {
                do throws(PredicateEvaluationError) {
                    guard try test(object) else { continue }
                } catch {
                    throw .evaluation(error.description)
                }
            }
            let values = zip(sortReaders, request.sortKeys).map { read, key in _SortValue(read(object), comparison: key.comparison) }
            matches.append((object, sequence, values))
        }
        if let dangling = reader.failure.value { throw .graph(dangling) }
        let keys = request.sortKeys
        matches.sort { a, b in
            for (k, key) in keys.enumerated() {
                let order = _SortValue.compare(a.values[k], b.values[k])
                if order != 0 { return key.ascending ? order < 0 : order > 0 }
            }
            return a.sequence < b.sequence
        }
        let limited = request.fetchLimit.map { matches.prefix(max(0, $0)) } ?? matches[...]
        return limited.map { GraphObject(entityName: $0.object.stored.entity, id: $0.object.stored.id, record: $0.object.record) }
    }

    /// The records of `R`'s entity (and of its sub-entities of the same
    /// record type) matching a predicate, in the order of sort keys.
    ///
    /// - Throws: ``GraphFetchError``.
    public func fetch<R: Record & Codable>(_ type: R.Type, where predicate: FormatPredicate? = nil, sortedBy sortKeys: [SortKey] = []) throws(GraphFetchError) -> [R] where R.ID: Codable {
        guard let entity = model.entity(for: R.self) else { throw .unknownEntity("\(R.self)") }
        return try fetch(GraphFetchRequest(entityName: entity.name, predicate: predicate, sortKeys: sortKeys)).compactMap { $0.as(R.self) }
    }
}

/// An object being fetched, its record read once.
struct _Resolved {
    let stored: _GraphObject
    let record: any Record & Codable
}

/// A record as a value (`SELF`, a relationship at the end of a path): every
/// field it encodes.
func _graphRecordValue(_ record: any Record & Codable) -> RecordValue {
    // A dynamic object is its fields (its Codable form wraps them with the id).
    if let object = record as? DynamicObject { return .record(object.fields) }
    return (try? RecordValueEncoder().encode(record)) ?? .null
}

/// Reads key paths through relationships, as the context sees the objects.
struct _GraphKeyReader {
    let context: ObjectGraphContext
    /// The first reference to a missing object met, reported after the fetch.
    let failure = _FailureBox()
    var model: ObjectModel { context.model }

    /// When set, every identity a key path looks up (found or not): what a
    /// controller's reverse map keeps.
    var visits: _VisitBox?
    /// For the collection key path of a `SUBQUERY`, the key paths its
    /// variable reads below each element (`$m.diaryEntry.text`: `diaryEntry`,
    /// `text`): the relationships on them are followed in the elements given.
    var expansions: [String: [[String]]] = [:]

    final class _FailureBox: @unchecked Sendable {
        var value: ObjectGraphError?
    }

    final class _VisitBox: @unchecked Sendable {
        var ids: [ObjectID] = []
    }

    /// The values a key path read through a to-one relationship, by
    /// destination: each destination is resolved once per fetch (a million
    /// media of ten thousand entries read ten thousand entries), with the
    /// identities the read visited. Emptied by ``invalidate()``.
    final class _Memo: @unchecked Sendable {
        var generation = 0
        var values: [RecordValue: (value: RecordValue, visited: [ObjectID])] = [:]
        /// The first key's relationship for the last entity met (objects of
        /// one entity follow one another): nil when it is not a to-one one.
        /// (Not an optional closure: an optional of a typed-throws function
        /// type needs the newer runtime's metadata.)
        var entity: String?
        var keys: @Sendable (any Record & Codable) throws(ObjectGraphError) -> [RecordValue]? = { _ in nil }
    }

    /// Counts the changes of the objects read, for the memos.
    final class _Generation: @unchecked Sendable {
        var value = 0
    }
    let generation = _Generation()

    /// Forgets every value read so far (the objects changed).
    func invalidate() { generation.value &+= 1 }

    /// Checks a key path against the model from an entity: each key is a
    /// relationship (the path goes on from its destination) or a key of the
    /// record type (the rest of the path goes into its value).
    func check(_ path: String, from entityName: String) throws(GraphFetchError) {
        var entity = entityName
        for key in path.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
            if key.hasPrefix("@") || key == "SELF" { return }
            guard let description = model.entity(named: entity) else { return }
            if let r = description.relationship(named: key) {
                entity = r.destinationEntityName
                continue
            }
            if let declared = description.declaredKeys, !declared.contains(key), key != "id" {
                throw .unknownKey(entity: entity, keyPath: path, key: key)
            }
            return
        }
    }

    /// A reader of a key path. A collection operator in it (`media.@count`,
    /// `media.@max.kb`, as a sort or section key) applies to the values
    /// before it.
    func reader(_ path: String) -> (_Resolved) -> RecordValue {
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if let at = keys.firstIndex(where: { $0.hasPrefix("@") }), let op = FormatPredicate.CollectionOperator(rawValue: keys[at]) {
            let base = keys[..<at], rest = Array(keys[(at + 1)...])
            return { object in _graphCollectionValue(op, self.value(of: object.stored, object.record, base), rest) }
        }
        let expand = expansions[path] ?? []
        guard keys.count > 1, expand.isEmpty else {
            return { object in self.value(of: object.stored, object.record, keys[...], expand: expand) }
        }
        let memo = _Memo()
        return { object in self.memoized(object, keys, memo) }
    }

    /// The value of a path whose first key may be a to-one relationship,
    /// read once per destination.
    func memoized(_ object: _Resolved, _ keys: [String], _ memo: _Memo) -> RecordValue {
        if memo.entity != object.stored.entity {
            memo.entity = object.stored.entity
            let r = model.entity(named: object.stored.entity)?.relationship(named: keys[0])
            if let r, !r.isToMany { memo.keys = r.keys } else { memo.keys = { _ in nil } }
        }
        // Not a to-one relationship, empty, or an identity that cannot be
        // encoded: read without the memo (which reports the error).
        guard let destination = (try? memo.keys(object.record))?.first else { return value(of: object.stored, object.record, keys[...]) }
        if memo.generation != generation.value {
            memo.values.removeAll(keepingCapacity: true)
            memo.generation = generation.value
        }
        if let hit = memo.values[destination] {
            visits?.ids.append(contentsOf: hit.visited)
            return hit.value
        }
        let start = visits?.ids.count ?? 0
        let value = value(of: object.stored, object.record, keys[...])
        if failure.value == nil {
            memo.values[destination] = (value, visits.map { Array($0.ids[start...]) } ?? [])
        }
        return value
    }

    func value(of object: _GraphObject, _ record: any Record & Codable, _ path: ArraySlice<String>, expand: [[String]] = []) -> RecordValue {
        guard let key = path.first, let entity = model.entity(named: object.entity) else { return expanded(object, record, expand) }
        guard let r = entity.relationship(named: key) else {
            return (entity.value(record, key) ?? .null).value(atKeyPath: path.dropFirst())
        }
        let rest = path.dropFirst()
        var values: [RecordValue] = []
        let keys: [RecordValue]
        do throws(ObjectGraphError) { keys = try r.keys(record) ?? [] } catch {
            if failure.value == nil { failure.value = error }
            return .null
        }
        for destinationKey in keys {
            let id = ObjectID(rootEntityName: model.root(of: r.destinationEntityName), key: destinationKey)
            visits?.ids.append(id)
            guard let destination = context.base.peek(id) else {
                if failure.value == nil { failure.value = .danglingReference(object: object.id, relationship: r.name, destination: id) }
                continue
            }
            // A destination that cannot be read is its own error, not a missing one.
            let destinationRecord: any Record & Codable
            do throws(ObjectGraphError) { destinationRecord = try destination.record(in: model) } catch {
                if failure.value == nil { failure.value = error }
                continue
            }
            let value = self.value(of: destination, destinationRecord, rest, expand: expand)
            // A to-many step inside a to-many path adds its elements, as Core Data's key paths do.
            if r.isToMany, !rest.isEmpty, case .array(let elements) = value, self.isToMany(destination.entity, rest) {
                values.append(contentsOf: elements)
            } else {
                values.append(value)
            }
        }
        if r.isToMany { return .array(values) }
        return values.first ?? .null
    }

    /// An object's record as a value, the relationships on `paths` followed:
    /// their fields hold the destinations' records (expanded in turn by the
    /// rest of the paths) instead of identities.
    func expanded(_ object: _GraphObject, _ record: any Record & Codable, _ paths: [[String]]) -> RecordValue {
        let value = _graphRecordValue(record)
        guard !paths.isEmpty, case .record(var fields) = value, let entity = model.entity(named: object.entity) else { return value }
        var byKey: [String: [[String]]] = [:]
        var order: [String] = []
        for path in paths {
            guard let first = path.first, entity.relationship(named: first) != nil else { continue }
            if byKey[first] == nil { order.append(first) }
            byKey[first, default: []].append(Array(path.dropFirst()))
        }
        for key in order {
            let rests = (byKey[key] ?? []).filter { !$0.isEmpty }
            fields[key] = self.value(of: object, record, [key][...], expand: rests)
        }
        return .record(fields)
    }

    /// Whether a path from an entity goes through a to-many relationship.
    func isToMany(_ entityName: String, _ path: ArraySlice<String>) -> Bool {
        var entity = entityName
        for key in path {
            guard let r = model.entity(named: entity)?.relationship(named: key) else { return false }
            if r.isToMany { return true }
            entity = r.destinationEntityName
        }
        return false
    }
}

/// A collection operator applied to a key path's value (a sort or section
/// key such as `media.@count`): `@count` of an array (0 for nil, 1 for one
/// value); `@sum`, `@avg`, `@min`, `@max` of the values at `keys` of each
/// element; the unions of their values.
func _graphCollectionValue(_ op: FormatPredicate.CollectionOperator, _ value: RecordValue, _ keys: [String]) -> RecordValue {
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
