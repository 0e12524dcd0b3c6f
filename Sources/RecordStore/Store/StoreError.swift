import Foundation
import PredicateFormat
import Records

/// Why a store could not open, save, or accept a change. The store and the
/// context are left as they were.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file exists but cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is not a store, or is damaged. It is left untouched.
    case corrupt(path: String, reason: String)
    /// A part of the store's file fails its checksum or cannot be read back:
    /// the byte offset where the damaged part starts. Nothing of the file is
    /// changed, and no record is altered: the store does not open.
    case damaged(path: String, offset: Int, reason: String)
    /// The store could not be written; the previous file is intact.
    case unwritable(path: String, reason: String)
    /// An inserted object's identity is already in the store.
    case duplicateIdentity(String)
    /// The save's records changed in the store since the context read them
    /// (Core Data's optimistic locking failure): each conflict names the record,
    /// the version the context read and the store's version. The store and the
    /// context are unchanged; merge the other saves (or choose another
    /// ``MergePolicy``) and save again.
    case mergeConflicts([MergeConflict])
    /// A record could not be encoded for the file.
    case unencodable(String)
    /// The save was refused by the model's rules: each failure names the
    /// object, the relationship and Core Data's validation error (Core Data
    /// reports several as `NSValidationMultipleErrorsError`, 1560). Nothing
    /// is saved; the context keeps its changes.
    case validation([ValidationFailure])
    /// A relationship holds an object that does not exist, or is not of its
    /// destination entity: a save that holds it is refused (a `noAction`
    /// delete not repaired), and a store file that holds it does not open.
    case danglingReference(object: ObjectID, relationship: String, destination: ObjectID)
    /// The two sides of a relationship pair disagree in a store file (or
    /// another persistence): `object`'s `relationship` holds `destination`,
    /// whose inverse does not hold `object`. The store does not open; a save
    /// that would write such a pair is refused.
    case inverseMismatch(object: ObjectID, relationship: String, destination: ObjectID)
    /// The store holds objects of an entity the model does not declare
    /// (written with another model).
    case unknownEntity(String)

    /// What happened, in a sentence a person can act on.
    public var description: String {
        switch self {
        case let .unreadable(path, reason): return "cannot read the store at \(path): \(reason)"
        case let .corrupt(path, reason): return "the store at \(path) is damaged or not a store (\(reason)); it was left untouched"
        case let .unwritable(path, reason): return "cannot write the store at \(path): \(reason); the previous file is intact"
        case let .duplicateIdentity(id): return "cannot insert an object with identity \(id): the store already has one"
        case let .damaged(path, offset, reason): return "the store at \(path) is damaged at byte offset \(offset) (\(reason)); it was left untouched"
        case let .mergeConflicts(conflicts):
            return "the save conflicts with changes in the store since this context read its records (\(conflicts.count) conflict\(conflicts.count == 1 ? "" : "s")): "
                + conflicts.map(\.description).joined(separator: "; ")
        case let .unencodable(reason): return "cannot encode a record for the store: \(reason)"
        case .validation(let failures):
            return failures.map(\.description).joined(separator: "; ")
                + (failures.count > 1 ? " (NSValidationMultipleErrorsError, 1560)" : "")
        case let .danglingReference(object, relationship, destination):
            return "\(object)'s relationship \(relationship) refers to \(destination), which does not exist or is not of its destination entity"
        case let .inverseMismatch(object, relationship, destination):
            return "\(object)'s relationship \(relationship) holds \(destination), but \(destination)'s inverse does not hold \(object)"
        case .unknownEntity(let name):
            return "the store holds objects of the entity \(name), which the model does not declare (it was written with another model)"
        }
    }
}

/// A context's misuse, refused before anything changes: the context is as
/// it was.
public enum ContextError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Inserting an identity the context already has (in the store or
    /// pending), in the entity's hierarchy.
    case alreadyExists(ObjectID)
    /// Updating or deleting an identity the context does not have.
    case noSuchObject(ObjectID)
    /// The model has no entity of this name, or none (or several) of this
    /// record type: pass the entity's name.
    case unknownEntity(String)
    /// A relationship names an object that does not exist, or is not of
    /// its destination entity.
    case danglingReference(object: ObjectID, relationship: String, destination: ObjectID)
    /// A delete refused by a `deny` rule (Core Data's
    /// `NSValidationRelationshipDeniedDeleteError`, 1600): `object`'s
    /// `relationship` still has these destinations.
    case deleteDenied(object: ObjectID, relationship: String, destinations: [ObjectID])
    /// An object could not be read from the store's file: the file is
    /// damaged where it is (``StoreError/damaged(path:offset:reason:)``).
    /// Records are read from the file as they are needed, so damage shows
    /// when the damaged part is first read, not when the store opens.
    case unreadable(StoreError)

    /// What happened, in a sentence a person can act on.
    public var description: String {
        switch self {
        case .unreadable(let error): return "an object could not be read: \(error)"
        case let .alreadyExists(id): return "an object with identity \(id) already exists; update it instead of inserting it"
        case let .noSuchObject(id): return "there is no object \(id) in this context"
        case .unknownEntity(let name): return "the model has no entity \(name) (or several of that record type: name the entity)"
        case let .danglingReference(object, relationship, destination):
            return "\(object)'s relationship \(relationship) refers to \(destination), which does not exist or is not of its destination entity"
        case let .deleteDenied(object, relationship, destinations):
            return "Delete was denied for \(object): its relationship \(relationship) has \(destinations.map(\.description).joined(separator: ", ")) (NSValidationRelationshipDeniedDeleteError, 1600)"
        }
    }
}
