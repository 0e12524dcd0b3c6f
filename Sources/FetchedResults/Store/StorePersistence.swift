import Foundation
import PredicateFormat
import Records
import TableDiff

/// Where an ``ObjectStore`` keeps its records between launches: the seam for
/// an app's own database.
///
/// A store keeps every record in memory and hands durability to its
/// persistence: it loads everything once, commits each save as one
/// ``StoreChangeSet``, and asks for the changes others made. The package has
/// two: ``JournalFilePersistence`` (the store's file: a checksummed snapshot
/// and an append-only journal, shared safely between processes) and
/// ``MemoryPersistence`` (nothing is kept). An app that outgrows the embedded
/// file implements this protocol over its own database and passes it to
/// ``ObjectStore/init(persistence:)``; contexts, controllers and tables do not
/// change. The `directory-store` example (`Examples/DirectoryStore`) keeps one
/// file per record.
///
/// **Versions.** Every save has a version, one more than the save before it
/// (the first is 1); every record carries the version of the save that last
/// wrote it. The store numbers its saves from the versions the persistence
/// reports, so two stores on one file agree on them, and a context can tell
/// whether a record changed since it read it (see ``MergePolicy``).
///
/// **Contract.** A store calls its persistence with its own lock held, one
/// call at a time. ``commit(_:)`` must be atomic (a save is kept whole or not
/// at all) and durable once it returns, and must hold off every other writer
/// from before it reads the changes it hands to `prepare` until its write is
/// done — otherwise saves made meanwhile by others are lost. A persistence
/// belongs to one store; several stores share data by each having a
/// persistence over the same database.
public protocol StorePersistence: AnyObject, Sendable {
    /// The records' type.
    associatedtype Object: Record & Codable

    /// Reads everything kept: called once, when the store opens.
    ///
    /// - Throws: ``StoreError`` when what is kept cannot be read or is damaged.
    func load() throws(StoreError) -> StoreContents<Object>

    /// The saves others made since this persistence last read or wrote
    /// (another store on the same file, in this process or another).
    ///
    /// - Throws: ``StoreError`` when they cannot be read.
    func changesSinceLastRead() throws(StoreError) -> ExternalChanges<Object>

    /// Commits one save: with every other writer held off, hands `prepare`
    /// the saves others made since this persistence last read or wrote, then
    /// writes the change set `prepare` returns (nothing when it returns nil or
    /// throws), durably, before returning.
    ///
    /// - Throws: what `prepare` throws, or ``StoreError/unwritable(path:reason:)``
    ///   when the change set cannot be written; then nothing of it is kept.
    func commit(_ prepare: (ExternalChanges<Object>) throws(StoreError) -> StoreChangeSet<Object>?) throws(StoreError)

    /// Rewrites what is kept in its most compact form, if the persistence has
    /// one (the journal file folds its journal into a new snapshot). Never
    /// loses a committed save. The default does nothing.
    func compact() throws(StoreError)
}

extension StorePersistence {
    public func compact() throws(StoreError) {}
}

/// A record as a persistence keeps it: the record, the order it was first
/// inserted in, and the version of the save that last wrote it.
public struct StoredRecord<R: Record>: Sendable {
    /// The record.
    public var record: R
    /// Its first-insertion order: the last tie-breaker of every sort.
    public var sequence: Int64
    /// The version of the save that last wrote it.
    public var version: Int64

    /// Creates one from its parts.
    public init(record: R, sequence: Int64, version: Int64) {
        self.record = record
        self.sequence = sequence
        self.version = version
    }
}

/// One save, as a persistence commits it: the records it inserted or updated
/// and those it deleted.
public struct StoreChangeSet<R: Record>: Sendable {
    /// The save's version: one more than the save before it.
    public var version: Int64
    /// The next first-insertion order to hand out after this save.
    public var nextSequence: Int64
    /// The records inserted or updated, as saved (each with this save's version).
    public var saved: [StoredRecord<R>]
    /// The records deleted, as they were.
    public var deleted: [R]

    /// Creates one from its parts.
    public init(version: Int64, nextSequence: Int64, saved: [StoredRecord<R>], deleted: [R]) {
        self.version = version
        self.nextSequence = nextSequence
        self.saved = saved
        self.deleted = deleted
    }
}

/// Everything a persistence keeps: records, then saves to apply to them in order.
public struct StoreContents<R: Record>: Sendable {
    /// The records, in any order.
    public var records: [StoredRecord<R>]
    /// The version of the last save the records include (0 for none).
    public var version: Int64
    /// The next first-insertion order to hand out.
    public var nextSequence: Int64
    /// Saves made after the records, to apply in order (a journal's tail).
    public var changeSets: [StoreChangeSet<R>]
    /// Damage repaired while reading (an unacknowledged save's torn tail).
    public var recoveries: [StoreRecovery]

    /// Creates one from its parts.
    public init(records: [StoredRecord<R>] = [], version: Int64 = 0, nextSequence: Int64 = 1, changeSets: [StoreChangeSet<R>] = [], recoveries: [StoreRecovery] = []) {
        self.records = records
        self.version = version
        self.nextSequence = nextSequence
        self.changeSets = changeSets
        self.recoveries = recoveries
    }
}

/// Saves others made since a persistence last read or wrote.
public struct ExternalChanges<R: Record>: Sendable {
    /// Saves to apply in order, each one version after the last.
    public var changeSets: [StoreChangeSet<R>]
    /// Everything, read again, when the saves cannot be told one by one (the
    /// file was compacted by another store since this one read it): the store
    /// works out what changed by comparing record versions.
    public var replacement: StoreContents<R>?
    /// Damage repaired while reading.
    public var recoveries: [StoreRecovery]

    /// Creates one from its parts.
    public init(changeSets: [StoreChangeSet<R>] = [], replacement: StoreContents<R>? = nil, recoveries: [StoreRecovery] = []) {
        self.changeSets = changeSets
        self.replacement = replacement
        self.recoveries = recoveries
    }

    /// No changes.
    public static var none: ExternalChanges { ExternalChanges() }

    /// Whether there is nothing to apply.
    public var isEmpty: Bool { changeSets.isEmpty && replacement == nil }
}

/// Damage a persistence repaired: a save that was being written when its
/// writer died (a torn tail of the journal), dropped. Such a save was never
/// acknowledged: its `save()` had not returned.
public struct StoreRecovery: Hashable, Sendable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// Where the dropped bytes started.
    public var offset: Int
    /// How many bytes were dropped.
    public var length: Int
    /// What was found.
    public var reason: String

    /// Creates one from its parts.
    public init(path: String, offset: Int, length: Int, reason: String) {
        self.path = path
        self.offset = offset
        self.length = length
        self.reason = reason
    }

    /// What happened, in a sentence a person can act on.
    public var description: String {
        "dropped \(length) bytes at offset \(offset) of \(path): \(reason)"
    }
}

/// A persistence that keeps nothing: the store lives in memory only.
///
/// What ``ObjectStore/init()`` uses.
public final class MemoryPersistence<Object: Record & Codable>: StorePersistence {
    /// A persistence that keeps nothing.
    public init() {}

    /// An empty store.
    public func load() throws(StoreError) -> StoreContents<Object> { StoreContents() }

    /// Nobody else writes here: no changes.
    public func changesSinceLastRead() throws(StoreError) -> ExternalChanges<Object> { .none }

    /// Asks `prepare` for the change set and keeps nothing.
    public func commit(_ prepare: (ExternalChanges<Object>) throws(StoreError) -> StoreChangeSet<Object>?) throws(StoreError) {
        _ = try prepare(.none)
    }
}
