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
    /// ``ContextError/deleteDenied(object:relationship:destinations:)``.
    case deny
    /// Nothing is done to the destinations (`noActionDeleteRule`): your code
    /// updates their inverse before the save, which refuses a reference to
    /// a deleted object (``StoreError/danglingReference(object:relationship:destination:)``).
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

    // The typed accessors, erased: they take and give the source's record
    // type; destinations are the destination's identities, as they are
    // (`AnyHashable` of its `ID`), so that they are looked up as the
    // destination's table keeps them.
    let destinationType: ObjectIdentifier
    let destinationTypeName: String
    /// The destinations' identities (nil: the record is not of the source's type).
    package let destinations: @Sendable (any Record & Codable) -> [AnyHashable]?
    /// The record without the destination (nil: not of the source's type).
    let removing: @Sendable (any Record & Codable, AnyHashable) -> (any Record & Codable)?
    /// The record with the destination added (a to-one relationship's set);
    /// nil when not of the source's type, or the identity not of the
    /// destination's.
    let adding: @Sendable (any Record & Codable, AnyHashable) -> (any Record & Codable)?
    /// The record with repeats taken out of the relationship (a to-many
    /// relationship holds each destination once, as Core Data's sets do).
    let deduplicating: @Sendable (any Record & Codable) -> (any Record & Codable)?

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
            destinations: { record in
                guard let source = record as? Source else { return nil }
                return source[keyPath: keyPath].map { [AnyHashable($0)] } ?? []
            },
            removing: { record, id in
                guard var source = record as? Source else { return nil }
                if let held = source[keyPath: keyPath], AnyHashable(held) == id { source[keyPath: keyPath] = nil }
                return source
            },
            adding: { record, id in
                guard var source = record as? Source, let id = id.base as? Destination.ID else { return nil }
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
            destinations: { record in
                guard let source = record as? Source else { return nil }
                return source[keyPath: keyPath].map { AnyHashable($0) }
            },
            removing: { record, id in
                guard var source = record as? Source else { return nil }
                source[keyPath: keyPath].removeAll { AnyHashable($0) == id }
                return source
            },
            adding: { record, id in
                guard var source = record as? Source, let typed = id.base as? Destination.ID else { return nil }
                if !source[keyPath: keyPath].contains(typed) { source[keyPath: keyPath].append(typed) }
                return source
            },
            deduplicating: { record in
                guard var source = record as? Source else { return nil }
                var seen = Set<Destination.ID>()
                source[keyPath: keyPath] = source[keyPath: keyPath].filter { seen.insert($0).inserted }
                return source
            }))
    }
}

/// An identity as messages and ``ObjectID``s show it: the value it encodes
/// to (`42`, `"7D0…"`); a string of it when it does not encode.
func _objectKey(_ id: AnyHashable) -> RecordValue {
    // The usual identities first: a cast to a type is cheaper than to a protocol.
    if let int = id.base as? Int { return .int(int) }
    if let string = id.base as? String { return .string(string) }
    if let convertible = id.base as? any RecordValueConvertible { return convertible.recordValue }
    if let encodable = id.base as? any Encodable, let value = try? RecordValueEncoder().encode(encodable) { return value }
    return .string("\(id.base)")
}

/// An entity of a model: a record type, its relationships, its parent, the
/// indexes its file keeps — Core Data's `NSEntityDescription`. Declared with
/// ``entity(_:name:parent:relationships:indexes:)``.
public struct EntityDescription: Sendable, CustomStringConvertible {
    /// The entity's name: the record type's name unless given.
    public let name: String
    /// The Swift type of its records.
    public let recordType: any (Record & Codable).Type
    /// The parent entity's name: a fetch of the parent returns this entity's
    /// objects too (those of the parent's record type), and a relationship to
    /// the parent accepts them.
    public internal(set) var parentName: String?
    /// The relationships, in the order declared.
    public internal(set) var relationships: [RelationshipDescription]
    /// The indexes the store's file keeps of the entity's objects, in the
    /// order declared: each the key paths of a compound key (`["city",
    /// "name"]`), ascending, strings compared plainly — SwiftData's `#Index`,
    /// Core Data's indexed attributes. A fetch sorted by exactly these keys
    /// reads its order from the file without decoding records (see
    /// <doc:StoreFileFormat>).
    public internal(set) var indexes: [[String]]

    let recordTypeID: ObjectIdentifier
    let parentType: ObjectIdentifier?
    let parentTypeName: String?
    let idType: ObjectIdentifier
    let idTypeName: String
    /// What the store, the contexts and the file do with its records, typed.
    package let kind: _EntityKind
    /// The value of one key (not a path) of a record of this type.
    package let value: @Sendable (any Record & Codable, String) -> RecordValue?
    /// The declared keys (nil: read by a lookup).
    package let declaredKeys: [String]?

    /// An entity of the record type `type`, named `name` (the type's name by
    /// default), a sub-entity of `parent`'s entity if given, with these
    /// relationships, and these indexes kept in the store's file. A
    /// sub-entity's identities are of its parent's type, and it declares
    /// again, on its own type, the relationships it inherits (a Swift struct
    /// has no superclass): the model checks that they agree.
    ///
    /// ```swift
    /// let model = try ObjectModel(.entity(Person.self, indexes: [["name"], ["city", "name"]]))
    /// ```
    ///
    /// Each index is a list of key paths of the record (its keys, not paths
    /// through relationships); the model checks that the record type reads
    /// them. A file keeps each index sorted, and every save updates it.
    public static func entity<R: Record & Codable>(
        _ type: R.Type, name: String? = nil, parent: (any (Record & Codable).Type)? = nil,
        relationships: [Relationship<R>] = [], indexes: [[String]] = []
    ) -> EntityDescription where R.ID: Codable {
        let keys = R.recordKeys
        return EntityDescription(
            name: name ?? "\(R.self)", recordType: R.self, parentName: nil, relationships: relationships.map(\.description), indexes: indexes,
            recordTypeID: ObjectIdentifier(R.self), parentType: parent.map { ObjectIdentifier($0) },
            parentTypeName: parent.map { "\($0)" },
            idType: ObjectIdentifier(R.ID.self), idTypeName: "\(R.ID.self)",
            kind: _TypedEntityKind<R>(),
            value: { record, key in
                guard let record = record as? R else { return nil }
                if let value = keys.value(of: record, forKey: key) { return value }
                return key == "id" ? _objectKey(AnyHashable(record.id)) : nil
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

    /// The order of an index of `keys` over `records`, as a persistence that
    /// serves a snapshot keeps it (``StoreSnapshotEntity``): the positions of
    /// `records`, ordered by the keys' values, each ascending and compared
    /// as a ``SortKey`` compares them by default, ties by first insertion
    /// (``StoredRecord/sequence``) — the order of a fetch sorted by those
    /// keys — and the kinds of each key's values, which a store needs to
    /// read the range of the index a predicate bounds
    /// (``StoreSnapshotEntity/keyKinds(ofIndex:)``).
    ///
    /// - Throws: ``StoreError/unencodable(_:)`` for a key the record type
    ///   does not read, or more records than an index holds (2³¹ − 1).
    /// - Complexity: O(*n* log *n*) for *n* records.
    public static func indexOrder<R: Record & Codable>(_ keys: [String], of records: [StoredRecord<R>]) throws(StoreError) -> StoreIndexOrder {
        let index = try Self.index(keys, of: records)
        return StoreIndexOrder(positions: index.order.map(Int.init), keyKinds: index.kinds.map(StoreKeyKinds.init))
    }

    /// The order of an index of `keys` over `records`, and each key's
    /// kinds, noted as the order reads each value once: what the store's
    /// file and ``indexOrder(_:of:)`` keep.
    static func index<R: Record & Codable>(_ keys: [String], of records: [StoredRecord<R>]) throws(StoreError) -> (order: [Int32], kinds: [_KeyKinds]) {
        guard records.count <= Int(Int32.max) else { throw .unencodable("an index of \(records.count) records is more than an index holds (2³¹ − 1)") }
        var readers: [RecordReader<R>] = []
        for key in keys {
            do throws(RecordKeyError) { readers.append(try R._reader(forKeyPath: key)) } catch { throw .unencodable("the index key \(key): \(error)") }
        }
        var kinds = [_KeyKinds](repeating: _KeyKinds(), count: readers.count)
        let columns = readers.enumerated().map { key, reader in
            { (k: Int) -> RecordValue in
                let value = reader(records[k].record)
                kinds[key].add(_SortValue(value, comparison: .plain))
                return value
            }
        }
        let order = _indexOrder(records.count, keys: columns, sequences: records.map(\.sequence))
        return (order, kinds)
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
    /// A model without entities.
    case noEntities
    /// An index that names no key, names a key twice, names a key the
    /// record type does not read, or repeats another index of the entity.
    case badIndex(entity: String, index: [String], reason: String)

    public var description: String {
        switch self {
        case .duplicateEntity(let name): return "the model declares two entities named \(name)"
        case let .duplicateRelationship(entity, relationship): return "\(entity) declares two relationships named \(relationship)"
        case let .unknownType(entity, type): return "\(entity) refers to \(type), which is the record type of no entity of the model, or of several"
        case let .unknownEntityName(entity, name): return "\(entity) refers to the entity \(name), which the model does not declare"
        case let .badInverse(entity, relationship, reason): return "the inverse of \(entity).\(relationship) is wrong: \(reason)"
        case .parentCycle(let name): return "\(name) is its own ancestor"
        case let .badSubentity(entity, reason): return "sub-entity \(entity): \(reason)"
        case .noEntities: return "a model needs at least one entity"
        case let .badIndex(entity, index, reason): return "the index [\(index.joined(separator: ", "))] of \(entity) is wrong: \(reason)"
        }
    }
}

/// The entities of one store, declared once — Core Data's
/// `NSManagedObjectModel`, without a model file or macros. A store of one
/// record type is a model of one entity (`ObjectModel(.entity(Item.self))`,
/// which ``ObjectStore/init(records:)`` makes for you).
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
/// their parents. See <doc:ModelsAndRelationships>.
public struct ObjectModel: Sendable, CustomStringConvertible {
    /// The entities, in the order declared.
    public let entities: [EntityDescription]
    package let byName: [String: Int]
    let byType: [ObjectIdentifier: Int]
    /// Each entity's root (the entity whose identities it shares), by index.
    package let roots: [Int]
    /// Each entity's family: itself, then its sub-entities depth first, by index.
    package let families: [[Int]]
    /// For each entity, the relationships of every entity that point to it
    /// (or to an ancestor): (source entity, relationship index).
    let incoming: [[(entity: Int, relationship: Int)]]
    /// Whether any entity has a relationship.
    package let hasRelationships: Bool

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
        guard !declared.isEmpty else { throw .noEntities }
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
            for r in entities[k].relationships.indices {
                let relationship = entities[k].relationships[r]
                guard seen.insert(relationship.name).inserted else {
                    throw .duplicateRelationship(entity: entities[k].name, relationship: relationship.name)
                }
                if relationship.destinationEntityName.isEmpty {
                    entities[k].relationships[r].destinationEntityName = try entityName(
                        of: relationship.destinationType, relationship.destinationTypeName, in: entities[k].name)
                } else if byName[relationship.destinationEntityName] == nil {
                    // A destination declared by its name (dynamic entities).
                    throw .unknownEntityName(entity: entities[k].name, name: relationship.destinationEntityName)
                }
            }
            if let parentType = entities[k].parentType {
                entities[k].parentName = try entityName(of: parentType, entities[k].parentTypeName ?? "?", in: entities[k].name)
            }
        }
        // Indexes: keys the record type reads, none twice, no index twice.
        for entity in entities {
            var seenIndexes = Set<[String]>()
            for index in entity.indexes {
                let bad = { (reason: String) in ObjectModelError.badIndex(entity: entity.name, index: index, reason: reason) }
                guard !index.isEmpty else { throw bad("it names no key") }
                guard Set(index).count == index.count else { throw bad("it names a key twice") }
                guard seenIndexes.insert(index).inserted else { throw bad("the entity declares it twice") }
                for key in index {
                    let first = key.split(separator: ".").first.map(String.init) ?? key
                    guard entity.relationship(named: first) == nil, entity.kind.readsKey(key) else { throw bad("\(entity.recordType) has no key \(key) (a key path through a relationship cannot be indexed)") }
                }
            }
        }
        // Parents: no cycles, identities of one type, inherited relationships agreed.
        var roots: [Int] = []
        for entity in entities {
            var visited: Set<String> = [entity.name]
            var current = entity
            while let parent = current.parentName {
                guard visited.insert(parent).inserted else { throw .parentCycle(entity.name) }
                guard let p = byName[parent] else { throw .unknownEntityName(entity: current.name, name: parent) }
                current = entities[p]
            }
            roots.append(byName[current.name] ?? 0)
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
        func family(_ k: Int) -> [Int] {
            [k] + entities.indices.filter { entities[$0].parentName == entities[k].name }.flatMap(family)
        }
        let families = entities.indices.map(family)
        func isA(_ name: String, _ ancestor: String) -> Bool {
            guard let a = byName[ancestor], let n = byName[name] else { return false }
            return families[a].contains(n)
        }
        // Inverses name each other, and point back at this entity (or an ancestor).
        var incoming = [[(entity: Int, relationship: Int)]](repeating: [], count: entities.count)
        for (k, entity) in entities.enumerated() {
            for (r, relationship) in entity.relationships.enumerated() {
                if let d = byName[relationship.destinationEntityName] {
                    for member in families[d] { incoming[member].append((k, r)) }
                }
                guard let inverseName = relationship.inverseName else { continue }
                let bad = { (reason: String) in ObjectModelError.badInverse(entity: entity.name, relationship: relationship.name, reason: reason) }
                guard let d = byName[relationship.destinationEntityName], let inverse = entities[d].relationship(named: inverseName) else {
                    throw bad("\(relationship.destinationEntityName) has no relationship \(inverseName)")
                }
                guard isA(entity.name, inverse.destinationEntityName) else {
                    throw bad("\(relationship.destinationEntityName).\(inverseName) points to \(inverse.destinationEntityName), not \(entity.name)")
                }
                guard inverse.inverseName == nil || inverse.inverseName == relationship.name else {
                    throw bad("\(relationship.destinationEntityName).\(inverseName)'s inverse is \(inverse.inverseName ?? "none"), not \(relationship.name)")
                }
            }
        }
        self.entities = entities
        self.byName = byName
        self.byType = typeCounts.filter { $0.value == 1 }.reduce(into: [:]) { $0[$1.key] = byType[$1.key] }
        self.roots = roots
        self.families = families
        self.incoming = incoming
        hasRelationships = entities.contains { !$0.relationships.isEmpty }
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
    public func entityNames(including name: String) -> [String] {
        byName[name].map { families[$0].map { entities[$0].name } } ?? []
    }

    /// Whether `name` is `ancestor` or one of its sub-entities.
    public func entity(_ name: String, isKindOf ancestor: String) -> Bool {
        guard let a = byName[ancestor], let n = byName[name] else { return false }
        return families[a].contains(n)
    }

    /// The index of the entity whose objects a call with records of `R`
    /// means: the one named `name`, which must have that record type, or the
    /// one entity of that record type.
    ///
    /// - Throws: ``ContextError/unknownEntity(_:)``.
    package func entityIndex<R: Record>(of type: R.Type, named name: String?) throws(ContextError) -> Int {
        if let name {
            guard let k = byName[name], entities[k].recordTypeID == ObjectIdentifier(R.self) else {
                throw .unknownEntity(byName[name] == nil ? name : "\(name) (its records are \(entities[byName[name]!].recordType), not \(R.self))")
            }
            return k
        }
        guard let k = byType[ObjectIdentifier(R.self)] else {
            let several = entities.filter { $0.recordTypeID == ObjectIdentifier(R.self) }.map(\.name)
            throw .unknownEntity(several.isEmpty ? "\(R.self)" : "\(R.self) (the record type of \(several.joined(separator: ", ")): name the entity)")
        }
        return k
    }

    /// The entities of `k`'s family whose records are of `R`: what a typed
    /// request for `k` reads (a sub-entity of another record type is read
    /// by a request for its own entity).
    package func typedFamily<R: Record>(of k: Int, _ type: R.Type) -> [Int] {
        families[k].filter { entities[$0].recordTypeID == ObjectIdentifier(R.self) }
    }

    /// The identity of an object of entity `k`, as messages show it.
    package func objectID(_ k: Int, _ id: AnyHashable) -> ObjectID {
        ObjectID(rootEntityName: entities[roots[k]].name, key: _objectKey(id))
    }

    public var description: String {
        entities.map { entity in
            ([entity.description] + entity.relationships.map { "  \($0)" }).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
