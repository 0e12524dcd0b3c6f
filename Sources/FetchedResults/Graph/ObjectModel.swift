import Foundation
import Records

/// What deleting an object does to the objects a relationship of it points
/// to — Core Data's `NSDeleteRule`.
public enum DeleteRule: String, Hashable, Sendable, Codable, CaseIterable {
    /// The destinations stay; the deleted object is taken out of their
    /// inverse relationship (Core Data's `nullifyDeleteRule`, the default).
    case nullify
    /// The destinations are deleted too, and by their own rules in turn
    /// (`cascadeDeleteRule`).
    case cascade
    /// The delete is refused while the relationship has a destination that
    /// is not being deleted with it (`denyDeleteRule`):
    /// ``ObjectGraphError/deleteDenied(object:relationship:destinations:)``.
    case deny
    /// Nothing is done to the destinations (`noActionDeleteRule`): your code
    /// updates their inverse before the save, which refuses a reference to
    /// a deleted object (``ObjectGraphError/danglingReference(object:relationship:destination:)``).
    case noAction
}

/// A relationship of an entity, as the model keeps it — Core Data's
/// `NSRelationshipDescription`. Declared with ``Relationship``.
public struct RelationshipDescription: Sendable, CustomStringConvertible {
    /// The relationship's name: the key of key paths through it (`media.type`).
    public let name: String
    /// The entity it points to (its objects, and its sub-entities').
    public internal(set) var destinationEntityName: String
    /// The relationship of the destination that points back, if any.
    public let inverseName: String?
    /// What deleting the source does to the destinations.
    public let deleteRule: DeleteRule
    /// Whether it holds many destinations (an array of identities) or at most one.
    public let isToMany: Bool
    /// Whether a to-many relationship's order is kept as set (an unordered
    /// one is an array whose order carries no meaning: the context appends).
    public let isOrdered: Bool
    /// Whether the save accepts it empty (Core Data's `isOptional`).
    public let isOptional: Bool
    /// The fewest destinations a save accepts (to-many; 0 for none).
    public let minCount: Int
    /// The most destinations a save accepts (to-many; nil for no limit).
    public let maxCount: Int?

    // The typed accessors, erased: they take and give the source's record type.
    let destinationType: ObjectIdentifier
    let destinationTypeName: String
    // Each throws ObjectGraphError.unencodableIdentity for an identity that
    // cannot be encoded as a value (it can then be compared with none).
    let keys: @Sendable (any Record & Codable) throws(ObjectGraphError) -> [RecordValue]?
    let removing: @Sendable (any Record & Codable, RecordValue) throws(ObjectGraphError) -> (any Record & Codable)?
    let adding: @Sendable (any Record & Codable, any Sendable) throws(ObjectGraphError) -> (any Record & Codable)?
    /// The record with repeats taken out of the relationship (a to-many
    /// relationship holds each destination once, as Core Data's sets do).
    let deduplicating: @Sendable (any Record & Codable) throws(ObjectGraphError) -> (any Record & Codable)?

    public var description: String {
        "\(name) → \(isToMany ? "to-many " : "")\(destinationEntityName)"
            + (inverseName.map { " (inverse \($0))" } ?? "") + ", \(deleteRule.rawValue)"
            + (isOptional ? "" : ", required")
    }

    /// Whether two declarations of one relationship agree (a sub-entity's
    /// and its parent's).
    func agrees(with other: RelationshipDescription) -> Bool {
        name == other.name && destinationEntityName == other.destinationEntityName && inverseName == other.inverseName
            && deleteRule == other.deleteRule && isToMany == other.isToMany && isOptional == other.isOptional
    }
}

/// A relationship of the record type `Source`, declared with the key path of
/// the property that holds the destinations' identities.
///
/// ```swift
/// struct DiaryEntry: Record, Codable { var id: Int; var text: String; var media: [Medium.ID] = [] }
/// struct Medium: Record, Codable { var id: Int; var type: String; var diaryEntry: DiaryEntry.ID? }
///
/// let model = try ObjectModel(
///     .entity(DiaryEntry.self, relationships: [
///         .toMany("media", \.media, to: Medium.self, inverse: "diaryEntry", deleteRule: .cascade),
///     ]),
///     .entity(Medium.self, relationships: [
///         .toOne("diaryEntry", \.diaryEntry, to: DiaryEntry.self, inverse: "media"),
///     ]))
/// ```
public struct Relationship<Source: Record & Codable>: Sendable {
    let description: RelationshipDescription

    /// A relationship to at most one object of `destination`'s entity, held
    /// in an optional identity. Required (`optional: false`) means the save
    /// refuses it nil.
    ///
    /// Without an `inverse`, nothing leads from a destination back to the
    /// objects holding it: a save that deletes an object of `destination`'s
    /// entity scans every object for a reference left to it, O(*n*).
    public static func toOne<Destination: Record & Codable>(
        _ name: String, _ keyPath: WritableKeyPath<Source, Destination.ID?> & Sendable,
        to destination: Destination.Type, inverse: String? = nil,
        deleteRule: DeleteRule = .nullify, optional: Bool = true
    ) -> Relationship where Destination.ID: Codable {
        Relationship(description: RelationshipDescription(
            name: name, destinationEntityName: "", inverseName: inverse, deleteRule: deleteRule,
            isToMany: false, isOrdered: false, isOptional: optional, minCount: optional ? 0 : 1, maxCount: 1,
            destinationType: ObjectIdentifier(Destination.self), destinationTypeName: "\(Destination.self)",
            keys: { record throws(ObjectGraphError) in
                guard let source = record as? Source else { return nil }
                guard let id = source[keyPath: keyPath] else { return [] }
                return [try _objectKey(id)]
            },
            removing: { record, key throws(ObjectGraphError) in
                guard var source = record as? Source else { return nil }
                if let id = source[keyPath: keyPath], try _objectKey(id) == key { source[keyPath: keyPath] = nil }
                return source
            },
            adding: { record, id in
                guard var source = record as? Source, let id = id as? Destination.ID else { return nil }
                source[keyPath: keyPath] = id
                return source
            },
            deduplicating: { $0 }))
    }

    /// A relationship to any number of objects of `destination`'s entity,
    /// held in an array of identities (without repeats). `ordered` keeps the
    /// order you set; otherwise the order carries no meaning. `minCount` and
    /// `maxCount` bound what a save accepts (`optional: false` is a
    /// `minCount` of at least 1).
    ///
    /// Without an `inverse`, a save that deletes an object of
    /// `destination`'s entity scans every object for a reference left to
    /// it, O(*n*).
    public static func toMany<Destination: Record & Codable>(
        _ name: String, _ keyPath: WritableKeyPath<Source, [Destination.ID]> & Sendable,
        to destination: Destination.Type, inverse: String? = nil,
        deleteRule: DeleteRule = .nullify, ordered: Bool = false, optional: Bool = true,
        minCount: Int = 0, maxCount: Int? = nil
    ) -> Relationship where Destination.ID: Codable {
        Relationship(description: RelationshipDescription(
            name: name, destinationEntityName: "", inverseName: inverse, deleteRule: deleteRule,
            isToMany: true, isOrdered: ordered, isOptional: optional && minCount <= 0,
            minCount: max(minCount, optional ? 0 : 1), maxCount: maxCount,
            destinationType: ObjectIdentifier(Destination.self), destinationTypeName: "\(Destination.self)",
            keys: { record throws(ObjectGraphError) in
                guard let source = record as? Source else { return nil }
                return try _objectKeys(source[keyPath: keyPath])
            },
            removing: { record, key throws(ObjectGraphError) in
                guard var source = record as? Source else { return nil }
                let keys = try _objectKeys(source[keyPath: keyPath])
                source[keyPath: keyPath] = zip(source[keyPath: keyPath], keys).filter { $0.1 != key }.map(\.0)
                return source
            },
            adding: { record, id throws(ObjectGraphError) in
                guard var source = record as? Source, let id = id as? Destination.ID else { return nil }
                let key = try _objectKey(id)
                if try !_objectKeys(source[keyPath: keyPath]).contains(key) { source[keyPath: keyPath].append(id) }
                return source
            },
            deduplicating: { record throws(ObjectGraphError) in
                guard var source = record as? Source else { return nil }
                var seen = Set<RecordValue>()
                let keys = try _objectKeys(source[keyPath: keyPath])
                source[keyPath: keyPath] = zip(source[keyPath: keyPath], keys).filter { seen.insert($0.1).inserted }.map(\.0)
                return source
            }))
    }
}

/// An identity as the graph compares it: the value it encodes to.
///
/// - Throws: ``ObjectGraphError/unencodableIdentity(_:reason:)`` when it
///   cannot be encoded (its `encode(to:)` throws): it is then refused where
///   it enters the graph, rather than compared as nil with every other such
///   identity.
func _objectKey<ID: Encodable>(_ id: ID) throws(ObjectGraphError) -> RecordValue {
    // The usual identities first: a cast to a type is cheaper than to a protocol.
    if let int = id as? Int { return .int(int) }
    if let string = id as? String { return .string(string) }
    if let convertible = id as? any RecordValueConvertible { return convertible.recordValue }
    do {
        return try RecordValueEncoder().encode(id)
    } catch {
        throw .unencodableIdentity("\(id)", reason: "\(error)")
    }
}

/// The identities of a to-many relationship as the graph compares them.
func _objectKeys<ID: Encodable>(_ ids: [ID]) throws(ObjectGraphError) -> [RecordValue] {
    var keys: [RecordValue] = []
    keys.reserveCapacity(ids.count)
    for id in ids { keys.append(try _objectKey(id)) }
    return keys
}

/// An entity of a model: a record type, its relationships, its parent —
/// Core Data's `NSEntityDescription`. Declared with
/// ``entity(_:name:parent:relationships:)``.
public struct EntityDescription: Sendable, CustomStringConvertible {
    /// The entity's name: the record type's name unless given.
    public let name: String
    /// The Swift type of its records.
    public let recordType: any (Record & Codable).Type
    /// The parent entity's name: a fetch of the parent returns this entity's
    /// objects too, and a relationship to the parent accepts them.
    public internal(set) var parentName: String?
    /// The relationships, in the order declared.
    public let relationships: [RelationshipDescription]

    let recordTypeID: ObjectIdentifier
    let parentType: ObjectIdentifier?
    let parentTypeName: String?
    let idType: ObjectIdentifier
    let idTypeName: String
    /// The identity of a record of this type as the graph compares it, and
    /// the identity itself (to store in another record's relationship).
    let key: @Sendable (any Record & Codable) throws(ObjectGraphError) -> (key: RecordValue, id: any Sendable)?
    /// A record of this type read back from the store's binary form.
    let decode: @Sendable (UnsafeRawBufferPointer) throws -> any Record & Codable
    /// The value of one key (not a path) of a record of this type.
    let value: @Sendable (any Record & Codable, String) -> RecordValue?
    /// The declared keys (nil: read by a lookup).
    let declaredKeys: [String]?

    /// An entity of the record type `type`, named `name` (the type's name by
    /// default), a sub-entity of `parent`'s entity if given, with these
    /// relationships. A sub-entity's identities are of its parent's type, and
    /// it declares again, on its own type, the relationships it inherits (a
    /// Swift struct has no superclass): the model checks that they agree.
    public static func entity<R: Record & Codable>(
        _ type: R.Type, name: String? = nil, parent: (any (Record & Codable).Type)? = nil,
        relationships: [Relationship<R>] = []
    ) -> EntityDescription where R.ID: Codable {
        let keys = R.recordKeys
        return EntityDescription(
            name: name ?? "\(R.self)", recordType: R.self, parentName: nil, relationships: relationships.map(\.description),
            recordTypeID: ObjectIdentifier(R.self), parentType: parent.map { ObjectIdentifier($0) },
            parentTypeName: parent.map { "\($0)" },
            idType: ObjectIdentifier(R.ID.self), idTypeName: "\(R.ID.self)",
            key: { record throws(ObjectGraphError) in
                guard let record = record as? R else { return nil }
                return (try _objectKey(record.id), record.id)
            },
            decode: { bytes in try _BinaryRecordDecoder(bytes: bytes).decode(R.self, at: 0) },
            value: { record, key in
                guard let record = record as? R else { return nil }
                if let value = keys.value(of: record, forKey: key) { return value }
                // An identity in the graph was encoded when it entered it.
                return key == "id" ? try? _objectKey(record.id) : nil
            },
            declaredKeys: keys.declaredKeys)
    }

    public var description: String {
        "\(name) (\(recordType))" + (parentName.map { ": \($0)" } ?? "")
    }

    /// The relationship named `name`.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationships.first { $0.name == name }
    }
}

/// Why a model cannot be made: the declaration names what is wrong.
public enum ObjectModelError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Two entities have one name.
    case duplicateEntity(String)
    /// Two relationships of an entity have one name.
    case duplicateRelationship(entity: String, relationship: String)
    /// A relationship's destination, or an entity's parent, is a record type
    /// no entity has (or that several have).
    case unknownType(entity: String, type: String)
    /// A relationship's destination, or an entity's parent, declared by its
    /// name (a dynamic entity's), is no entity of the model.
    case unknownEntityName(entity: String, name: String)
    /// A relationship's inverse is not a relationship of its destination
    /// pointing back, or the two do not name each other.
    case badInverse(entity: String, relationship: String, reason: String)
    /// An entity is its own ancestor.
    case parentCycle(String)
    /// A sub-entity's identities are not of its parent's type, or it does not
    /// declare an inherited relationship as its parent does.
    case badSubentity(entity: String, reason: String)

    public var description: String {
        switch self {
        case .duplicateEntity(let name): return "the model declares two entities named \(name)"
        case let .duplicateRelationship(entity, relationship): return "\(entity) declares two relationships named \(relationship)"
        case let .unknownType(entity, type): return "\(entity) refers to \(type), which is the record type of no entity of the model, or of several"
        case let .unknownEntityName(entity, name): return "\(entity) refers to the entity \(name), which the model does not declare"
        case let .badInverse(entity, relationship, reason): return "the inverse of \(entity).\(relationship) is wrong: \(reason)"
        case .parentCycle(let name): return "\(name) is its own ancestor"
        case let .badSubentity(entity, reason): return "sub-entity \(entity): \(reason)"
        }
    }
}

/// The entities of one store, declared once — Core Data's
/// `NSManagedObjectModel`, without a model file or macros.
///
/// ```swift
/// let model = try ObjectModel(
///     .entity(DiaryEntry.self, relationships: [
///         .toMany("media", \.media, to: Medium.self, inverse: "diaryEntry", deleteRule: .cascade),
///     ]),
///     .entity(Medium.self, relationships: [
///         .toOne("diaryEntry", \.diaryEntry, to: DiaryEntry.self, inverse: "media"),
///     ]),
///     .entity(Photo.self, parent: Medium.self, relationships: [
///         .toOne("diaryEntry", \.diaryEntry, to: DiaryEntry.self, inverse: "media"),
///     ]))
/// ```
///
/// The model checks the declaration whole: every destination and parent is
/// an entity's record type, inverses name each other, sub-entities agree with
/// their parents. See <doc:ObjectGraph>.
public struct ObjectModel: Sendable, CustomStringConvertible {
    /// The entities, in the order declared.
    public let entities: [EntityDescription]
    let byName: [String: Int]
    let byType: [ObjectIdentifier: Int]
    /// Each entity's root (the entity whose identities it shares).
    let roots: [String: String]
    /// Each entity's sub-entities, itself first, then depth first.
    let families: [String: [String]]

    /// A model of these entities.
    ///
    /// - Throws: ``ObjectModelError`` naming the first problem found.
    public init(_ entities: EntityDescription...) throws(ObjectModelError) {
        try self.init(entities: entities)
    }

    /// A model of these entities.
    ///
    /// - Throws: ``ObjectModelError`` naming the first problem found.
    public init(entities declared: [EntityDescription]) throws(ObjectModelError) {
        var byName: [String: Int] = [:]
        var typeCounts: [ObjectIdentifier: Int] = [:]
        var byType: [ObjectIdentifier: Int] = [:]
        for (k, entity) in declared.enumerated() {
            guard byName.updateValue(k, forKey: entity.name) == nil else { throw .duplicateEntity(entity.name) }
            typeCounts[entity.recordTypeID, default: 0] += 1
            byType[entity.recordTypeID] = k
        }
        func entityName(of type: ObjectIdentifier, _ typeName: String, in entity: String) throws(ObjectModelError) -> String {
            guard typeCounts[type] == 1, let k = byType[type] else { throw .unknownType(entity: entity, type: typeName) }
            return declared[k].name
        }
        var entities = declared
        for k in entities.indices {
            var seen = Set<String>()
            var relationships = entities[k].relationships
            for r in relationships.indices {
                guard seen.insert(relationships[r].name).inserted else {
                    throw .duplicateRelationship(entity: entities[k].name, relationship: relationships[r].name)
                }
                if relationships[r].destinationEntityName.isEmpty {
                    relationships[r].destinationEntityName = try entityName(
                        of: relationships[r].destinationType, relationships[r].destinationTypeName, in: entities[k].name)
                } else if byName[relationships[r].destinationEntityName] == nil {
                    // A destination declared by its name (dynamic entities).
                    throw .unknownEntityName(entity: entities[k].name, name: relationships[r].destinationEntityName)
                }
            }
            entities[k] = EntityDescription(
                name: entities[k].name, recordType: entities[k].recordType,
                parentName: try entities[k].parentType.map { t throws(ObjectModelError) in
                    try entityName(of: t, entities[k].parentTypeName ?? "?", in: entities[k].name)
                } ?? entities[k].parentName,   // or declared by its name (dynamic entities)
                relationships: relationships, recordTypeID: entities[k].recordTypeID, parentType: entities[k].parentType,
                parentTypeName: entities[k].parentTypeName, idType: entities[k].idType, idTypeName: entities[k].idTypeName,
                key: entities[k].key, decode: entities[k].decode, value: entities[k].value, declaredKeys: entities[k].declaredKeys)
        }
        // Parents: no cycles, identities of one type, inherited relationships agreed.
        var roots: [String: String] = [:]
        for entity in entities {
            var visited: Set<String> = [entity.name]
            var current = entity
            while let parent = current.parentName {
                guard visited.insert(parent).inserted else { throw .parentCycle(entity.name) }
                guard let p = byName[parent] else { throw .unknownEntityName(entity: current.name, name: parent) }
                current = entities[p]
            }
            roots[entity.name] = current.name
            if let parentName = entity.parentName, let p = byName[parentName] {
                let parent = entities[p]
                guard parent.idType == entity.idType else {
                    throw .badSubentity(entity: entity.name, reason: "its identities are \(entity.idTypeName), its parent \(parent.name)'s are \(parent.idTypeName)")
                }
                for inherited in parent.relationships {
                    guard let own = entity.relationship(named: inherited.name), own.agrees(with: inherited) else {
                        throw .badSubentity(entity: entity.name, reason: "it must declare \(parent.name)'s relationship \(inherited) as its parent does")
                    }
                }
            }
        }
        var families: [String: [String]] = [:]
        func family(_ name: String) -> [String] {
            [name] + entities.filter { $0.parentName == name }.flatMap { family($0.name) }
        }
        for entity in entities { families[entity.name] = family(entity.name) }
        func isA(_ name: String, _ ancestor: String) -> Bool { families[ancestor]?.contains(name) ?? false }
        // Inverses name each other, and point back at this entity (or an ancestor).
        for entity in entities {
            for r in entity.relationships {
                guard let inverseName = r.inverseName else { continue }
                let bad = { (reason: String) in ObjectModelError.badInverse(entity: entity.name, relationship: r.name, reason: reason) }
                guard let d = byName[r.destinationEntityName], let inverse = entities[d].relationship(named: inverseName) else {
                    throw bad("\(r.destinationEntityName) has no relationship \(inverseName)")
                }
                guard isA(entity.name, inverse.destinationEntityName) else {
                    throw bad("\(r.destinationEntityName).\(inverseName) points to \(inverse.destinationEntityName), not \(entity.name)")
                }
                guard inverse.inverseName == nil || inverse.inverseName == r.name else {
                    throw bad("\(r.destinationEntityName).\(inverseName)'s inverse is \(inverse.inverseName ?? "none"), not \(r.name)")
                }
            }
        }
        self.entities = entities
        self.byName = byName
        self.byType = typeCounts.filter { $0.value == 1 }.reduce(into: [:]) { $0[$1.key] = byType[$1.key] }
        self.roots = roots
        self.families = families
    }

    /// The entity named `name`.
    public func entity(named name: String) -> EntityDescription? {
        byName[name].map { entities[$0] }
    }

    /// The entity whose record type is `type` (nil when none or several are).
    public func entity<R: Record & Codable>(for type: R.Type) -> EntityDescription? {
        byType[ObjectIdentifier(type)].map { entities[$0] }
    }

    /// The names of an entity and its sub-entities, at every depth, itself first.
    public func entityNames(including name: String) -> [String] { families[name] ?? [] }

    /// Whether `name` is `ancestor` or one of its sub-entities.
    public func entity(_ name: String, isKindOf ancestor: String) -> Bool {
        families[ancestor]?.contains(name) ?? false
    }

    /// The root of an entity's hierarchy: identities are unique within it.
    func root(of name: String) -> String { roots[name] ?? name }

    public var description: String {
        entities.map { entity in
            ([entity.description] + entity.relationships.map { "  \($0)" }).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
