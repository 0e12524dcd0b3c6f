import Foundation
import PredicateFormat
import Records
import TableDiff

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
        }
    }
}

/// A context's misuse, refused before anything changes.
public enum ContextError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Inserting an identity the context already has (in the store or pending).
    case alreadyExists(String)
    /// Updating or deleting an identity the context does not have.
    case noSuchObject(String)

    /// What happened, in a sentence a person can act on.
    public var description: String {
        switch self {
        case let .alreadyExists(id): return "an object with identity \(id) already exists; update it instead of inserting it"
        case let .noSuchObject(id): return "there is no object with identity \(id) in this context"
        }
    }
}
