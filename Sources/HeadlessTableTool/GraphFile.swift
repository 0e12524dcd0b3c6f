import Foundation
import HeadlessTable
import ToolArguments

/// A model file: a model of several entities and their objects, read whole,
/// checked, and loaded into a store of that model (`--entity NAME` chooses
/// the entity a command shows: a fetch request of it, on the store).
///
/// ```json
/// {"model": {"Entry": {"relationships": {"media": {"destination": "Medium", "toMany": true,
///                                                  "inverse": "entry", "deleteRule": "cascade"}}},
///            "Medium": {"parent": null, "relationships": {"entry": {"destination": "Entry", "inverse": "media"}}}},
///  "objects": {"Entry": [{"id": 1, "text": "Fog"}],
///              "Medium": [{"id": 10, "type": "image", "entry": 1}]}}
/// ```
///
/// A relationship's value is its destination's id (to-one; null for none)
/// or an array of ids (to-many). Either side of a pair may be given: the
/// other is derived. A side given on both objects must agree, and every id
/// must be an object of the destination entity (or one of its sub-entities).
struct GraphFile {
    /// The model the file declares.
    let model: ObjectModel
    /// A context of the store in memory holding every object, saved.
    let context: ObjectContext
    /// The entity asked for.
    let entity: String
    /// The file, for messages.
    let path: String

    /// What the tool's help says of model files.
    static let rules = """
          A model file holds several entities: query, render and browse read it with
          --entity NAME (key paths go through relationships: entry.text, ANY media.type):
          {"model": {ENTITY: {"parent": ENTITY or null, "relationships": {NAME:
            {"destination": ENTITY, "toMany": false, "inverse": NAME, "deleteRule":
            "nullify"|"cascade"|"deny"|"noAction", "ordered": false, "optional": true,
            "minCount": N, "maxCount": N}}}, …}, "objects": {ENTITY: [OBJECT, …], …}}.
          A relationship's value is its destination's id (to-one; null for none) or an
          array of ids (to-many). Give either side of a pair: the other is derived. An
          id that is no object of the destination, or two sides that disagree, is an
          error that names them. Ids are unique in an entity and its sub-entities.
        """

    /// The keys a relationship declaration may have.
    static let relationshipKeys: Set<String> = ["destination", "toMany", "inverse", "deleteRule", "ordered", "optional", "minCount", "maxCount"]

    /// Reads the model file at `path` and loads its objects.
    static func read(_ path: String, entity: String, quiet: Bool = false) throws -> GraphFile {
        let file = InputFile.name(path)
        let value = try FetchResultFile.readJSON(path, quiet: quiet)
        guard case .record(let top) = value, let modelValue = top["model"] else {
            throw CommandError("\(file): --entity reads a model file, {\"model\": {…}, \"objects\": {…}}; found \(value.isRecord ? "an object without \"model\"" : FetchResultFile.article(value))")
        }
        if let extra = top.keys.first(where: { $0 != "model" && $0 != "objects" }) {
            throw CommandError("\(file): a model file has \"model\" and \"objects\", not \"\(UsageError.excerpt(extra))\"")
        }
        let model = try Self.model(modelValue, file: file)
        guard model.entity(named: entity) != nil else {
            throw CommandError.usage("--entity \(UsageError.excerpt(entity)): \(file) has no such entity; its entities are \(model.entities.map(\.name).joined(separator: ", "))")
        }
        let objects = try Self.objects(top["objects"] ?? .record(DynamicRecord(fields: [])), model: model, file: file)
        let store = ObjectStore(model: model)
        let context = ObjectContext(store: store)
        do {
            // Every object without its relationships first, then each with
            // them: the context checks every id and keeps the inverses.
            for object in objects {
                var bare = object.object
                for name in object.relationshipNames { bare.fields[name] = nil }
                try context.insert(bare, entity: object.entity)
            }
            for object in objects where !object.relationshipNames.isEmpty {
                try context.update(object.object, entity: object.entity)
            }
            try context.save()
        } catch {
            throw CommandError("\(file): \(error)")
        }
        return GraphFile(model: model, context: context, entity: entity, path: path)
    }

    // MARK: The model

    static func model(_ value: RecordValue, file: String) throws -> ObjectModel {
        guard case .record(let entities) = value else {
            throw CommandError("\(file): \"model\" is \(FetchResultFile.article(value)), not an object of entities by name")
        }
        var declared: [EntityDescription] = []
        for (name, declaration) in entities.fields {
            let place = "model.\(name)"
            guard case .record(let fields) = declaration else {
                throw CommandError("\(file): \(place) is \(FetchResultFile.article(declaration)), not an object")
            }
            if let extra = fields.keys.first(where: { $0 != "parent" && $0 != "relationships" }) {
                throw CommandError("\(file): \(place) has \"\(UsageError.excerpt(extra))\"; an entity has \"parent\" and \"relationships\"")
            }
            let parent: String?
            switch fields["parent"] {
            case nil, .null?: parent = nil
            case .string(let text)?: parent = text
            case let other?: throw CommandError("\(file): \(place).parent is \(FetchResultFile.article(other)), not an entity's name or null")
            }
            var relationships: [Relationship<DynamicObject>] = []
            switch fields["relationships"] {
            case nil, .null?: break
            case .record(let declarations)?:
                for (relationship, description) in declarations.fields {
                    relationships.append(try Self.relationship(relationship, description, place: "\(place).relationships.\(relationship)", file: file))
                }
            case let other?: throw CommandError("\(file): \(place).relationships is \(FetchResultFile.article(other)), not an object of relationships by name")
            }
            declared.append(.entity(named: name, parent: parent, relationships: relationships))
        }
        do throws(ObjectModelError) {
            return try ObjectModel(entities: declared)
        } catch {
            throw CommandError("\(file): the model is wrong: \(error)")
        }
    }

    static func relationship(_ name: String, _ value: RecordValue, place: String, file: String) throws -> Relationship<DynamicObject> {
        guard case .record(let fields) = value else {
            throw CommandError("\(file): \(place) is \(FetchResultFile.article(value)), not an object")
        }
        if let extra = fields.keys.first(where: { !relationshipKeys.contains($0) }) {
            throw CommandError("\(file): \(place) has \"\(UsageError.excerpt(extra))\"; a relationship has \(relationshipKeys.sorted().map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        func flag(_ key: String, _ otherwise: Bool) throws -> Bool {
            switch fields[key] {
            case nil, .null?: return otherwise
            case .bool(let value)?: return value
            case let other?: throw CommandError("\(file): \(place).\(key) is \(FetchResultFile.article(other)), not true or false")
            }
        }
        func count(_ key: String) throws -> Int? {
            switch fields[key] {
            case nil, .null?: return nil
            case let value?:
                let n: Int?
                switch value {
                case .int(let v): n = v
                case .uint(let v): n = Int(exactly: v)
                case .double(let v): n = Int(exactly: v)
                default: n = nil
                }
                guard let n, n >= 0 else {
                    throw CommandError("\(file): \(place).\(key) is \(UsageError.excerpt(JSON.string(value))), not a count (0, 1, 2, …)")
                }
                return n
            }
        }
        guard case .string(let destination)? = fields["destination"] else {
            throw CommandError("\(file): \(place) needs \"destination\", the name of the entity it points to")
        }
        let inverse: String?
        switch fields["inverse"] {
        case nil, .null?: inverse = nil
        case .string(let text)?: inverse = text
        case let other?: throw CommandError("\(file): \(place).inverse is \(FetchResultFile.article(other)), not a relationship's name or null")
        }
        var rule = DeleteRule.nullify
        switch fields["deleteRule"] {
        case nil, .null?: break
        case .string(let text)? where DeleteRule(rawValue: text) != nil: rule = DeleteRule(rawValue: text) ?? .nullify
        case let other?:
            throw CommandError("\(file): \(place).deleteRule is \(UsageError.excerpt(JSON.string(other))), not one of \(DeleteRule.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
        }
        let toMany = try flag("toMany", false), optional = try flag("optional", true), ordered = try flag("ordered", false)
        let minCount = try count("minCount"), maxCount = try count("maxCount")
        if !toMany && (ordered || minCount != nil || maxCount != nil) {
            throw CommandError("\(file): \(place) is to-one: \"ordered\", \"minCount\" and \"maxCount\" go with \"toMany\": true")
        }
        return toMany
            ? .toMany(name, to: destination, inverse: inverse, deleteRule: rule, ordered: ordered, optional: optional, minCount: minCount ?? 0, maxCount: maxCount)
            : .toOne(name, to: destination, inverse: inverse, deleteRule: rule, optional: optional)
    }

    // MARK: The objects

    /// An object read from the file: its entity, its record with every
    /// relationship's final value (given or derived), and where it is.
    struct Object {
        var entity: String
        var object: DynamicObject
        var place: String
        /// Its entity's relationships.
        var relationshipNames: [String]
    }

    /// An object's relationship as the file gives it: nil when the object
    /// does not have the key (the side is then derived from the other).
    private struct Side {
        var given: [RecordValue]?
        var final: [RecordValue]
    }

    static func objects(_ value: RecordValue, model: ObjectModel, file: String) throws -> [Object] {
        guard case .record(let byEntity) = value else {
            throw CommandError("\(file): \"objects\" is \(FetchResultFile.article(value)), not an object of arrays by entity")
        }
        func root(_ name: String) -> String {
            var current = name
            while let parent = model.entity(named: current)?.parentName { current = parent }
            return current
        }
        var objects: [Object] = []
        /// Each object's position by its identity in its hierarchy.
        var positions: [String: [RecordValue: Int]] = [:]
        for (entityName, list) in byEntity.fields {
            guard let entity = model.entity(named: entityName) else {
                throw CommandError("\(file): objects.\(entityName): the model has no entity \(entityName) (it has \(model.entities.map(\.name).joined(separator: ", ")))")
            }
            guard case .array(let elements) = list else {
                throw CommandError("\(file): objects.\(entityName) is \(FetchResultFile.article(list)), not an array of objects")
            }
            for (k, element) in elements.enumerated() {
                let place = "objects.\(entityName)[\(k)]"
                guard case .record(let fields) = element else {
                    throw CommandError("\(file): \(place) is \(FetchResultFile.article(element)), not an object")
                }
                let id = canonical(try InputRules.id(of: fields, idKey: "id", file: file, place: place))
                if let earlier = positions[root(entityName), default: [:]].updateValue(objects.count, forKey: id) {
                    throw CommandError("\(file): duplicate id \(UsageError.excerpt(JSON.string(id), length: 40)) (\(objects[earlier].place) and \(place)); ids must be unique in an entity and its sub-entities")
                }
                objects.append(Object(entity: entityName, object: DynamicObject(fields: fields), place: place, relationshipNames: entity.relationships.map(\.name)))
            }
        }
        func name(_ k: Int) -> String { "\(objects[k].entity) \(UsageError.excerpt(JSON.string(objects[k].object.id), length: 40))" }

        // Each side as given, every id checked.
        var sides: [[String: Side]] = Array(repeating: [:], count: objects.count)
        for k in objects.indices {
            guard let entity = model.entity(named: objects[k].entity) else { continue }
            for r in entity.relationships {
                let ids: [RecordValue]?
                switch objects[k].object.fields[r.name] {
                case nil: ids = nil
                case .null?: ids = []
                case .array(let elements)?:
                    guard r.isToMany else {
                        throw CommandError("\(file): \(name(k))'s \(r.name) is an array, but \(r.name) is to-one: give one id of \(r.destinationEntityName), or null")
                    }
                    ids = elements.map(canonical)
                case let value?:
                    guard !r.isToMany else {
                        throw CommandError("\(file): \(name(k))'s \(r.name) is \(UsageError.excerpt(JSON.string(value), length: 40)), but \(r.name) is to-many: give an array of ids of \(r.destinationEntityName)")
                    }
                    ids = [canonical(value)]
                }
                for id in ids ?? [] {
                    guard let d = positions[root(r.destinationEntityName)]?[id], model.entity(objects[d].entity, isKindOf: r.destinationEntityName) else {
                        let other = positions[root(r.destinationEntityName)]?[id].map { " (\(name($0)) is not a kind of \(r.destinationEntityName))" } ?? ""
                        throw CommandError("\(file): \(name(k))'s \(r.name) refers to \(r.destinationEntityName) \(UsageError.excerpt(JSON.string(id), length: 40)), which is not in the file\(other)")
                    }
                }
                if let ids, Set(ids).count != ids.count {
                    throw CommandError("\(file): \(name(k))'s \(r.name) holds an id more than once")
                }
                sides[k][r.name] = Side(given: ids, final: ids ?? [])
            }
        }
        // The inverse of each relationship, also when only the other side names it.
        var inverses: [String: [String: String]] = [:]
        for entity in model.entities {
            for r in entity.relationships {
                guard let inverse = r.inverseName else { continue }
                inverses[entity.name, default: [:]][r.name] = inverse
                for name in model.entityNames(including: r.destinationEntityName) where inverses[name]?[inverse] == nil {
                    inverses[name, default: [:]][inverse] = r.name
                }
            }
        }
        // Each side given agrees with the other side, or sets it.
        for k in objects.indices {
            guard let entity = model.entity(named: objects[k].entity) else { continue }
            for r in entity.relationships {
                guard let inverse = inverses[entity.name]?[r.name], let ids = sides[k][r.name]?.given else { continue }
                for id in ids {
                    guard let d = positions[root(r.destinationEntityName)]?[id], let back = sides[d][inverse] else { continue }
                    let selfID = objects[k].object.id
                    if let given = back.given {
                        if !given.contains(selfID) {
                            let holds = given.isEmpty ? "is empty" : "holds \(given.map { UsageError.excerpt(JSON.string($0), length: 40) }.joined(separator: ", "))"
                            throw CommandError("\(file): \(name(k))'s \(r.name) holds \(name(d)), but \(name(d))'s \(inverse) (its inverse) \(holds), not \(UsageError.excerpt(JSON.string(selfID), length: 40)): the two sides disagree; give one side (the other is derived) or make them agree")
                        }
                        continue
                    }
                    if back.final.contains(selfID) { continue }
                    let toMany = model.entity(named: objects[d].entity)?.relationship(named: inverse)?.isToMany ?? true
                    if !toMany, let other = back.final.first {
                        let otherName = positions[root(entity.name)]?[other].map(name) ?? UsageError.excerpt(JSON.string(other), length: 40)
                        throw CommandError("\(file): \(otherName) and \(name(k)) both hold \(name(d)), whose \(inverse) is to-one: the two sides disagree; give \(name(d))'s \(inverse), or only one of them")
                    }
                    sides[d][inverse]?.final.append(selfID)
                }
            }
        }
        // The records with every side's final value.
        for k in objects.indices {
            guard let entity = model.entity(named: objects[k].entity) else { continue }
            for r in entity.relationships {
                guard let side = sides[k][r.name], side.given == nil, !side.final.isEmpty else { continue }
                objects[k].object.fields[r.name] = r.isToMany ? .array(side.final) : side.final[0]
            }
        }
        return objects
    }

    /// An id as the graph compares it: a whole number as an integer (`1.0` is `1`).
    static func canonical(_ id: RecordValue) -> RecordValue {
        if case .double(let value) = id, let exact = Int(exactly: value) { return .int(exact) }
        return id
    }

    // MARK: Reading

    /// A request of the entity's objects: its predicate, sort keys, limit
    /// and offset read through relationships by the store's context.
    func request(_ predicate: FormatPredicate?, sortKeys: [SortKey], limit: Int? = nil, offset: Int = 0) -> FetchRequest<DynamicObject> {
        FetchRequest(entityName: entity, predicate: predicate.map(RecordPredicate.init), sortKeys: sortKeys, fetchLimit: limit, fetchOffset: offset)
    }
}

extension RecordValue {
    fileprivate var isRecord: Bool {
        if case .record = self { return true }
        return false
    }
}
