import Foundation
import Records

/// The identity of an object of a model — Core Data's `NSManagedObjectID`:
/// the root entity of its hierarchy and the value its identity encodes to.
/// Identities are unique within a hierarchy (a `Photo` sub-entity of `Medium`
/// shares `Medium`'s), so a relationship to `Medium` holds `Photo`s too.
///
/// Errors and saves name objects by it; records keep their own typed
/// identities.
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

/// An object of any entity, as a save reports it: its entity, its identity
/// and its record.
public struct ManagedObject: Sendable, Identifiable, CustomStringConvertible {
    /// The object's entity (a sub-entity's name for its objects).
    public var entityName: String
    /// The object's identity.
    public var id: ObjectID
    /// The record, of its entity's record type.
    public var record: any Record & Codable

    /// An object from its parts.
    public init(entityName: String, id: ObjectID, record: any Record & Codable) {
        self.entityName = entityName
        self.id = id
        self.record = record
    }

    /// The record as `type`, or nil when it is of another type.
    public func `as`<R: Record>(_ type: R.Type) -> R? { record as? R }

    public var description: String { "\(entityName) \(id.key)" }
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
