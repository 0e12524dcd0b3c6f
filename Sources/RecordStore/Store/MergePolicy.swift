import Foundation
import PredicateFormat
import Records

/// What a save does with records that changed in the store since its context
/// read them: Core Data's merge policies (`NSMergePolicy`).
///
/// A conflict is a pending update or delete of a record whose version in the
/// store is no longer the one the context read — another context, or another
/// store on the same file, saved it meanwhile (or deleted it) — and a pending
/// insert of an identity the store already has. Set the policy on the context
/// (``ObjectContext/mergePolicy``); it applies to each conflicting record, and
/// the rest of the save goes through unchanged.
///
/// What a context has read: the version a record had when the context was
/// created, read it with ``ObjectContext/object(_:id:entity:)``, saved it, or merged
/// a save that included it (``ObjectContext``'s `mergeChanges(fromContextDidSave:)`).
/// Merging the other contexts' saves, as Core Data apps do, keeps conflicts
/// to real ones.
///
/// | policy | pending update of a changed record | …of a deleted record | pending delete of a changed record | insert of an existing identity |
/// |---|---|---|---|---|
/// | ``error`` | the save fails | fails | fails | fails (``StoreError/duplicateIdentity(_:)``) |
/// | ``mergeByPropertyStoreTrump`` | merged property by property, the store's changes win | dropped | dropped | dropped |
/// | ``mergeByPropertyObjectTrump`` | merged property by property, the context's changes win | saved again | deleted | replaces the store's |
/// | ``overwrite`` | the context's record replaces the store's | saved again | deleted | replaces the store's |
/// | ``rollback`` | dropped: the store's record stays | dropped | dropped | dropped |
///
/// Properties are the record's top-level `Codable` keys; a property changed
/// on one side only keeps that side's value under both by-property policies.
/// A record that does not encode as keyed values merges as one property, and
/// so does one whose merged properties it refuses to decode (its
/// `init(from:)` checks that two of them agree, say): the winning side's
/// record is saved whole, and the save says so
/// (``ContextDidSave/propertyMergeFallbacks``).
/// Which side changed a property is judged against the version the context
/// read — also when other saves replaced that version before the context's
/// change: the store remembers the last 4,096 versions its saves replaced.
/// A change made on a version older than that is merged with every property
/// that differs taken from the winning side, and the save says so
/// (``PropertyMergeFallback/Reason/readVersionUnknown``).
/// After such a save the context shows the records as saved (its controllers
/// are told about every record the policy changed).
public enum MergePolicy: Hashable, Sendable, CustomStringConvertible {
    /// Refuses a save with conflicts: ``StoreError/mergeConflicts(_:)`` lists
    /// them, and nothing changes. Core Data's default, and this package's.
    case error
    /// Merges each conflicting record by property; where both changed a
    /// property, the store's value wins.
    case mergeByPropertyStoreTrump
    /// Merges each conflicting record by property; where both changed a
    /// property, the context's value wins.
    case mergeByPropertyObjectTrump
    /// Saves the context's records whole over the store's.
    case overwrite
    /// Drops the context's changes to conflicting records; the store's stay.
    case rollback

    /// What happened, in a sentence a person can act on.
    public var description: String {
        switch self {
        case .error: return "error"
        case .mergeByPropertyStoreTrump: return "mergeByPropertyStoreTrump"
        case .mergeByPropertyObjectTrump: return "mergeByPropertyObjectTrump"
        case .overwrite: return "overwrite"
        case .rollback: return "rollback"
        }
    }
}

/// A record a save could not write as is: it changed in the store since the
/// context read it (Core Data's `NSMergeConflict`).
public struct MergeConflict: Hashable, Sendable, CustomStringConvertible {
    /// The context's pending change of the record.
    public enum Change: Hashable, Sendable {
        /// The context updated the record.
        case update
        /// The context deleted the record.
        case delete
    }

    /// The record's identity, as text.
    public var objectID: String
    /// What the context was saving.
    public var change: Change
    /// The version the context read; nil when the record changed in a save
    /// this context has neither merged nor read since (its version is older
    /// than the store's, but which one it was is not known).
    public var contextVersion: Int64?
    /// The record's version in the store; nil when the store deleted it.
    public var storeVersion: Int64?

    /// Creates one from its parts.
    public init(objectID: String, change: Change, contextVersion: Int64?, storeVersion: Int64?) {
        self.objectID = objectID
        self.change = change
        self.contextVersion = contextVersion
        self.storeVersion = storeVersion
    }

    /// What happened, in a sentence a person can act on.
    public var description: String {
        let read = contextVersion.map { "version \($0)" } ?? "an older version"
        let verb = change == .update ? "updated" : "deleted"
        guard let storeVersion else { return "identity \(objectID) was \(verb) from \(read), but the store deleted it" }
        return "identity \(objectID) was \(verb) from \(read), but the store has version \(storeVersion)"
    }
}

/// A conflicting record that a merge by property could not merge property
/// by property, and saved whole instead: the winning side's record — the
/// context's under ``MergePolicy/mergeByPropertyObjectTrump`` and when a
/// context merges a save into its pending changes, the store's under
/// ``MergePolicy/mergeByPropertyStoreTrump`` — so the other side's changes
/// to its other properties are not in it. Or, with
/// ``Reason/readVersionUnknown``, merged without knowing what the context
/// read: every property the two sides hold differently is the winning
/// side's.
public struct PropertyMergeFallback: Hashable, Sendable, CustomStringConvertible {
    /// Why the record could not be merged property by property.
    public enum Reason: Hashable, Sendable {
        /// The record does not encode as keyed values (its `Codable`
        /// conformance writes one value or an array): it has no properties.
        case notKeyed
        /// The merged properties do not decode as a record: its
        /// `init(from:)` refused the combination of the two sides' values.
        case mergedPropertiesDoNotDecode
        /// The version the context's change was made on is no longer known
        /// (more saves replaced records since than the store remembers), so
        /// which side changed a property that differs cannot be told: each
        /// such property was taken from the winning side.
        case readVersionUnknown
        /// The object's relationships could not be merged with the save's
        /// (a destination added here that the save deleted, say): why. The
        /// object keeps this context's relationships.
        case relationshipsNotMerged(String)
    }

    /// The record's identity, as text.
    public var objectID: String
    /// Why it was not merged by property.
    public var reason: Reason
    /// Whether the context's record was kept (else the store's).
    public var keptContextRecord: Bool

    /// Creates one from its parts.
    public init(objectID: String, reason: Reason, keptContextRecord: Bool) {
        self.objectID = objectID
        self.reason = reason
        self.keptContextRecord = keptContextRecord
    }

    /// What happened, in a sentence a person can act on.
    public var description: String {
        let side = keptContextRecord ? "context's" : "store's"
        switch reason {
        case .notKeyed:
            return "identity \(objectID) could not be merged property by property (it does not encode as keyed values): the \(side) whole record was kept"
        case .mergedPropertiesDoNotDecode:
            return "identity \(objectID) could not be merged property by property (its merged properties do not decode as a record): the \(side) whole record was kept"
        case .readVersionUnknown:
            return "identity \(objectID) was changed from a version the store no longer remembers: every property that differs was taken from the \(side) record; read the record again and repeat the change to merge it property by property"
        case .relationshipsNotMerged(let why):
            return "\(objectID)'s relationships could not be merged with the save's (\(why)): it keeps this context's"
        }
    }
}

/// Merging records property by property: their top-level keyed values, in the
/// store's encoding, compared byte for byte.
enum _PropertyMerge {
    /// The merged record, and why it is one side's whole record when it could
    /// not be merged by property (nil when it was).
    ///
    /// `base` is what the context read (nil when unknown: then every property
    /// that differs counts as changed on both sides, and the merge says so
    /// with `.readVersionUnknown`).
    static func merge<R: Codable>(base: R?, context: R, store: R, contextWins: Bool) -> (record: R, fallback: PropertyMergeFallback.Reason?) {
        let winner = contextWins ? context : store
        guard let mine = try? _binaryEncoded(of: context, codingPath: []), let theirs = try? _binaryEncoded(of: store, codingPath: []),
            case .keyed(let mineFields) = mine, case .keyed(let theirFields) = theirs
        else { return (winner, .notKeyed) }
        var baseValues: [String: [UInt8]]?
        if let base, let encoded = try? _binaryEncoded(of: base, codingPath: []), case .keyed(let baseFields) = encoded {
            baseValues = bytesByKey(baseFields)
        }
        let mineValues = bytesByKey(mineFields), theirValues = bytesByKey(theirFields)
        let merged = _BinaryKeyedStorage()
        var keys = theirFields.keys
        for key in mineFields.keys where theirValues[key] == nil { keys.append(key) }
        var unknownBaseDecided = false
        for key in keys {
            let m = mineValues[key], t = theirValues[key]
            let chosen: [UInt8]?
            if m == t {
                chosen = t
            } else if let baseValues {
                let b = baseValues[key]
                let mineChanged = m != b, theirsChanged = t != b
                if mineChanged && theirsChanged { chosen = contextWins ? m : t } else { chosen = mineChanged ? m : t }
            } else {
                chosen = contextWins ? m : t
                unknownBaseDecided = true
            }
            guard let chosen else { continue }   // absent on the winning side
            merged.keys.append(key)
            merged.values.append(.raw(chosen))
        }
        var bytes: [UInt8] = []
        _BinaryEncoded.keyed(merged).write(to: &bytes)
        let decoded = bytes.withUnsafeBytes { raw in try? _BinaryRecordDecoder(bytes: raw).decode(R.self, at: 0) }
        guard let decoded else { return (winner, .mergedPropertiesDoNotDecode) }
        return (decoded, unknownBaseDecided ? .readVersionUnknown : nil)
    }

    static func bytesByKey(_ storage: _BinaryKeyedStorage) -> [String: [UInt8]] {
        var values: [String: [UInt8]] = [:]
        for (key, value) in zip(storage.keys, storage.values) where values[key] == nil {
            var bytes: [UInt8] = []
            value.write(to: &bytes)
            values[key] = bytes
        }
        return values
    }
}
