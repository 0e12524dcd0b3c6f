import Foundation
import Records
import TableDiff

/// The identity of an object of a graph — Core Data's `NSManagedObjectID`:
/// the root entity of its hierarchy and the value its identity encodes to.
/// Identities are unique within a hierarchy (a `Photo` sub-entity of `Medium`
/// shares `Medium`'s), so a relationship to `Medium` holds `Photo`s too.
public struct ObjectID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The root entity of the object's hierarchy.
    public var rootEntityName: String
    /// The object's identity, as a value (`42`, `"7D0…"`).
    public var key: RecordValue

    /// An identity from its parts.
    public init(rootEntityName: String, key: RecordValue) {
        self.rootEntityName = rootEntityName
        self.key = key
    }

    public var description: String { "\(rootEntityName) \(key)" }
}

/// An object of a graph, as a context or store gives it: its entity, its
/// identity and its record.
public struct GraphObject: Sendable, Identifiable, CustomStringConvertible {
    /// The object's entity (a sub-entity's name for its objects).
    public var entityName: String
    /// The object's identity.
    public var id: ObjectID
    /// The record, of its entity's record type.
    public var record: any Record & Codable

    /// The record as `type`, or nil when it is of another type.
    public func `as`<R: Record>(_ type: R.Type) -> R? { record as? R }

    public var description: String { "\(entityName) \(id.key)" }
}

/// Why a graph operation was refused: nothing changed, in the context or the store.
public enum ObjectGraphError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The model has no entity of this name, or none (or several) of this
    /// record type: pass the entity's name.
    case unknownEntity(String)
    /// Inserting an identity the context already has in the entity's hierarchy.
    case alreadyExists(ObjectID)
    /// No object has this identity in the context.
    case noSuchObject(ObjectID)
    /// A relationship names an object that does not exist, or is not of
    /// its destination entity: setting it is refused, a save holding it is
    /// refused, and a store file holding it does not open.
    case danglingReference(object: ObjectID, relationship: String, destination: ObjectID)
    /// The two sides of a relationship pair disagree (read from a file, or
    /// another persistence): `object`'s `relationship` holds `destination`,
    /// whose inverse does not hold `object`.
    case inverseMismatch(object: ObjectID, relationship: String, destination: ObjectID)
    /// A delete refused by a `deny` rule (Core Data's
    /// `NSValidationRelationshipDeniedDeleteError`, 1600): `object`'s
    /// `relationship` still has these destinations.
    case deleteDenied(object: ObjectID, relationship: String, destinations: [ObjectID])
    /// The save was refused: each failure names the object, the relationship
    /// and Core Data's validation error (Core Data reports several as
    /// `NSValidationMultipleErrorsError`, 1560).
    case validation([ValidationFailure])
    /// A record that cannot be read back as its entity's record type (a
    /// store file written with another model).
    case undecodable(object: ObjectID, entity: String, reason: String)
    /// The store refused (its file, a merge conflict, …).
    case store(StoreError)
    /// An identity that cannot be encoded as a value (its `encode(to:)`
    /// threw): the graph could compare it with no other, so it is refused
    /// as an object's identity and as a relationship's destination.
    case unencodableIdentity(String, reason: String)

    public var description: String {
        switch self {
        case .unknownEntity(let name): return "the model has no entity \(name) (or several of that record type: name the entity)"
        case .alreadyExists(let id): return "an object with identity \(id) already exists; update it instead of inserting it"
        case .noSuchObject(let id): return "there is no object \(id) in this context"
        case let .danglingReference(object, relationship, destination):
            return "\(object)'s relationship \(relationship) refers to \(destination), which does not exist or is not of its destination entity"
        case let .inverseMismatch(object, relationship, destination):
            return "\(object)'s relationship \(relationship) holds \(destination), but \(destination)'s inverse does not hold \(object)"
        case let .deleteDenied(object, relationship, destinations):
            return "Delete was denied for \(object): its relationship \(relationship) has \(destinations.map(\.description).joined(separator: ", ")) (NSValidationRelationshipDeniedDeleteError, 1600)"
        case .validation(let failures):
            return failures.map(\.description).joined(separator: "; ")
                + (failures.count > 1 ? " (NSValidationMultipleErrorsError, 1560)" : "")
        case let .undecodable(object, entity, reason): return "\(object) cannot be read as \(entity): \(reason)"
        case .store(let error): return error.description
        case let .unencodableIdentity(identity, reason): return "the identity \(identity) cannot be encoded as a value: \(reason)"
        }
    }
}

/// One reason a save was refused by the model's rules — one of Core Data's
/// validation errors.
public struct ValidationFailure: Hashable, Sendable, CustomStringConvertible {
    /// Core Data's validation error.
    public enum Code: Int, Hashable, Sendable {
        /// A required relationship is empty (`NSValidationMissingMandatoryPropertyError`).
        case missingMandatoryProperty = 1570
        /// Fewer destinations than the relationship's `minCount`
        /// (`NSValidationRelationshipLacksMinimumCountError`).
        case relationshipLacksMinimumCount = 1580
        /// More destinations than its `maxCount`
        /// (`NSValidationRelationshipExceedsMaximumCountError`).
        case relationshipExceedsMaximumCount = 1590

        /// Core Data's name of the code.
        public var name: String {
            switch self {
            case .missingMandatoryProperty: "NSValidationMissingMandatoryPropertyError"
            case .relationshipLacksMinimumCount: "NSValidationRelationshipLacksMinimumCountError"
            case .relationshipExceedsMaximumCount: "NSValidationRelationshipExceedsMaximumCountError"
            }
        }
    }

    /// Which rule.
    public var code: Code
    /// The object refused (Core Data's `NSValidationObjectErrorKey`).
    public var object: ObjectID
    /// Its relationship (`NSValidationKeyErrorKey`).
    public var key: String

    /// A failure from its parts.
    public init(code: Code, object: ObjectID, key: String) {
        self.code = code
        self.object = object
        self.key = key
    }

    public var description: String {
        switch code {
        case .missingMandatoryProperty: return "\(key) is a required value (\(object); \(code.name), \(code.rawValue))"
        case .relationshipLacksMinimumCount: return "Too few items in \(key) (\(object); \(code.name), \(code.rawValue))"
        case .relationshipExceedsMaximumCount: return "Too many items in \(key) (\(object); \(code.name), \(code.rawValue))"
        }
    }
}

/// An object as the store keeps it: its entity, identity, and record — typed
/// once made or read through the model, its bytes when just read from a file.
package struct _GraphObject: Record, Codable, Sendable {
    package var id: ObjectID
    var entity: String
    var payload: Payload

    enum Payload: Sendable {
        case typed(any Record & Codable)
        case bytes([UInt8])
    }

    init(id: ObjectID, entity: String, record: any Record & Codable) {
        self.id = id
        self.entity = entity
        payload = .typed(record)
    }

    // Keys are read through the model (the graph's fetch compiles with its
    // own reader); a store of graph objects reads none by itself.
    package static let recordKeys = RecordKeys<_GraphObject>.lookup { _, _ in nil }

    private enum CodingKeys: String, CodingKey { case entity, id, record }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entity, forKey: .entity)
        try container.encode(id, forKey: .id)
        switch payload {
        case .typed(let record): try container.encode(Data(_BinaryRecordEncoder.encode(record)), forKey: .record)
        case .bytes(let bytes): try container.encode(Data(bytes), forKey: .record)
        }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entity = try container.decode(String.self, forKey: .entity)
        id = try container.decode(ObjectID.self, forKey: .id)
        payload = .bytes(Array(try container.decode(Data.self, forKey: .record)))
    }

    /// The record, read through the model if it is still bytes.
    func record(in model: ObjectModel) throws(ObjectGraphError) -> any Record & Codable {
        switch payload {
        case .typed(let record): return record
        case .bytes(let bytes):
            guard let entity = model.entity(named: entity) else { throw .unknownEntity(self.entity) }
            do {
                return try bytes.withUnsafeBytes { buffer in try entity.decode(buffer) }
            } catch {
                throw .undecodable(object: id, entity: entity.name, reason: "\(error)")
            }
        }
    }
}
