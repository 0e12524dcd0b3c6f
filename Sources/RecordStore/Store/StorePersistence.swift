import Foundation
import PredicateFormat
import Records

/// Where an ``ObjectStore`` keeps its objects between launches: the seam for
/// an app's own database.
///
/// A store hands durability to its persistence: it reads what is kept once,
/// when it opens, commits each save as one ``StoreChangeSet``, and asks for
/// the changes others made. What it reads comes in one of two forms
/// (``StoreContents``):
/// - **every object**, loaded into memory at once: the simplest persistence
///   to write (``MemoryPersistence``, and any database read whole);
/// - **a snapshot served as it is read** (``StoreContents/snapshot``): each
///   entity's records, at one version, handed out by position, by identity
///   and in the order of each declared index (``StoreSnapshotEntity``) — what
///   Core Data's `NSIncrementalStore` serves. A store then reads a record when
///   a context, a fetch or a batch of rows needs it, keeps the recent ones in
///   a bounded cache, and a controller sorted by an index reads identities
///   from it, records a batch at a time. Opening costs what the snapshot's
///   `count`, `indexes` and their keys' kinds cost.
///
/// The package has two: ``JournalFilePersistence`` (the store's file: a
/// checksummed snapshot, read as rows are needed, and an append-only journal,
/// shared safely between processes) and ``MemoryPersistence`` (nothing is
/// kept). An app that outgrows the embedded file implements this protocol
/// over its own database and passes it to
/// ``ObjectStore/init(model:persistence:)``; contexts, controllers and tables
/// do not change. The `directory-store` example (`Examples/DirectoryStore`)
/// keeps one file per object and serves them as they are read.
///
/// Objects cross the seam as ``StoredObject``s: an entity's name and a record
/// of its type (the model says which: ``EntityDescription/recordType``).
///
/// **Versions.** Every save has a version, one more than the save before it
/// (the first is 1); every object carries the version of the save that last
/// wrote it. The store numbers its saves from the versions the persistence
/// reports, so two stores on one file agree on them, and a context can tell
/// whether an object changed since it read it (see ``MergePolicy``).
///
/// **Contract.** A store calls its persistence with its own lock held, one
/// call at a time, ``load(model:)`` first. ``commit(_:)`` must be atomic (a
/// save is kept whole or not at all) and durable once it returns, and must
/// hold off every other writer from before it reads the changes it hands to
/// `prepare` until its write is done — otherwise saves made meanwhile by
/// others are lost. A persistence belongs to one store; several stores share
/// data by each having a persistence over the same database.
public protocol StorePersistence: AnyObject, Sendable {
    /// Reads what is kept — every object, or a snapshot to serve them from
    /// as they are read, and the saves after it — called once, when the store
    /// opens, with the model of the store's objects.
    ///
    /// - Throws: ``StoreError`` when what is kept cannot be read or is damaged.
    func load(model: ObjectModel) throws(StoreError) -> StoreContents

    /// The saves others made since this persistence last read or wrote
    /// (another store on the same file, in this process or another).
    ///
    /// - Throws: ``StoreError`` when they cannot be read.
    func changesSinceLastRead() throws(StoreError) -> ExternalChanges

    /// Commits one save: with every other writer held off, hands `prepare`
    /// the saves others made since this persistence last read or wrote, then
    /// writes the change set `prepare` returns (nothing when it returns nil or
    /// throws), durably, before returning.
    ///
    /// - Throws: what `prepare` throws, or ``StoreError/unwritable(path:reason:)``
    ///   when the change set cannot be written; then nothing of it is kept.
    func commit(_ prepare: (ExternalChanges) throws(StoreError) -> StoreChangeSet?) throws(StoreError)

    /// Rewrites what is kept in its most compact form, if the persistence has
    /// one (the journal file folds its journal into a new snapshot). Never
    /// loses a committed save. The default does nothing.
    func compact() throws(StoreError)
}

extension StorePersistence {
    public func compact() throws(StoreError) {}
}

/// A record as a typed persistence keeps it: the record, the order it was
/// first inserted in, and the version of the save that last wrote it.
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

/// An object as a persistence keeps it: its entity's name, its record (of
/// the entity's record type), the order it was first inserted in, and the
/// version of the save that last wrote it.
public struct StoredObject: Sendable {
    /// The entity's name.
    public var entityName: String
    /// The record.
    public var record: any Record & Codable
    /// Its first-insertion order: the last tie-breaker of every sort.
    public var sequence: Int64
    /// The version of the save that last wrote it (for a deleted object, the
    /// version of the save that deleted it).
    public var version: Int64

    /// Creates one from its parts.
    public init(entityName: String, record: any Record & Codable, sequence: Int64, version: Int64) {
        self.entityName = entityName
        self.record = record
        self.sequence = sequence
        self.version = version
    }
}

/// One save, as a persistence commits it: the objects it inserted or
/// updated and those it deleted.
public struct StoreChangeSet: Sendable {
    /// The save's version: one more than the save before it.
    public var version: Int64
    /// The next first-insertion order to hand out after this save.
    public var nextSequence: Int64
    /// The objects inserted or updated, as saved (each with this save's version).
    public var saved: [StoredObject]
    /// The objects deleted, as they were.
    public var deleted: [StoredObject]

    /// Creates one from its parts.
    public init(version: Int64, nextSequence: Int64, saved: [StoredObject], deleted: [StoredObject]) {
        self.version = version
        self.nextSequence = nextSequence
        self.saved = saved
        self.deleted = deleted
    }
}

/// Everything a persistence keeps: objects — in memory, or a snapshot that
/// serves them as they are read — then saves to apply to them in order.
public struct StoreContents: Sendable {
    /// The objects, in any order (none when a ``snapshot`` serves them).
    public var objects: [StoredObject]
    /// The objects served as they are read instead, each entity's records by
    /// the entity's name (an entity without records may be left out): a
    /// snapshot at ``version``, which must not change while the store reads
    /// it. Empty: the objects are in ``objects``.
    public var snapshot: [String: any StoreSnapshotEntity]
    /// The version of the last save the objects include (0 for none).
    public var version: Int64
    /// The next first-insertion order to hand out.
    public var nextSequence: Int64
    /// Saves made after the objects, to apply in order (a journal's tail).
    public var changeSets: [StoreChangeSet]
    /// Damage repaired while reading (an unacknowledged save's torn tail).
    public var recoveries: [StoreRecovery]

    /// Creates one from its parts.
    public init(
        objects: [StoredObject] = [], snapshot: [String: any StoreSnapshotEntity] = [:], version: Int64 = 0, nextSequence: Int64 = 1,
        changeSets: [StoreChangeSet] = [], recoveries: [StoreRecovery] = []
    ) {
        self.objects = objects
        self.snapshot = snapshot
        self.version = version
        self.nextSequence = nextSequence
        self.changeSets = changeSets
        self.recoveries = recoveries
    }
}

/// One entity's records in a snapshot a persistence serves as they are read
/// (``StoreContents/snapshot``): what a database gives by row, by key and by
/// index, as Core Data's `NSIncrementalStore` does.
///
/// A record's *ordinal* is its place among the entity's records in the
/// snapshot, `0..<count`. The snapshot is at one version and never changes
/// while a store reads it: saves after it reach the store as change sets
/// (the records they write shadow the snapshot's), and a new snapshot as a
/// ``ExternalChanges/replacement``. A database keeps one open by a read
/// transaction; files, by writing each snapshot once, beside the last.
///
/// The store calls it with its own lock held, one call at a time, always
/// with the entity's record type (`R`), and checks every answer: as many
/// records and entries as asked for, ordinals in range, a record found by
/// an identity holding it — a wrong answer is reported as
/// ``StoreError/corrupt(path:reason:)``, never shown.
///
/// **Indexes.** ``indexes`` names those kept, each by its keys — the model
/// declares them (``EntityDescription/indexes``), and a persistence keeps
/// those it can. An index's entries are every record, in the order of its
/// keys' values, each ascending, compared as a ``SortKey`` compares them by
/// default (``SortKey/StringComparison/plain``: nil first, numbers by value,
/// strings by the Unicode scalars of their NFC forms), ties by first
/// insertion (``StoredRecord/sequence``) — ``EntityDescription/indexOrder(_:of:)``
/// computes it, and the kinds of each key's values
/// (``keyKinds(ofIndex:)``), which a fetch needs to read only the range of
/// the index its predicate bounds. A controller with a batch size, sorted by
/// exactly an index's keys, reads its identities from the index and its
/// records a batch at a time; a fetch no index covers reads every record.
/// The store does not read every record to check an index's order or kinds.
public protocol StoreSnapshotEntity: AnyObject, Sendable {
    /// How many records the snapshot holds of the entity.
    var count: Int { get }

    /// The records at `ordinals` (a range within `0..<count`), in order.
    func records<R: Record & Codable>(_ ordinals: Range<Int>, as type: R.Type) throws(StoreError) -> [StoredRecord<R>] where R.ID: Codable

    /// The ordinal of the record with an identity; nil when the snapshot has none.
    func ordinal<R: Record & Codable>(of id: R.ID, as type: R.Type) throws(StoreError) -> Int? where R.ID: Codable

    /// The keys of each index kept, in the order ``indexEntries(ofIndex:_:as:)``
    /// numbers them. The default: none.
    var indexes: [[String]] { get }

    /// Entries `positions` (a range within `0..<count`) of index `k`, in the
    /// index's order: each the ordinal and the identity of a record.
    func indexEntries<R: Record & Codable>(ofIndex k: Int, _ positions: Range<Int>, as type: R.Type) throws(StoreError) -> [StoreIndexEntry<R.ID>]
    where R.ID: Codable

    /// The kinds of values each key of index `k` holds among the snapshot's
    /// records (``StoreIndexOrder/keyKinds``, one per key); nil when not
    /// known — the default. With them, a fetch whose predicate begins by
    /// comparing the index's first key with constants reads only the
    /// index's entries in that range, found by binary search (O(log *n*)
    /// records read); without, it reads every entry and tests each record.
    func keyKinds(ofIndex k: Int) -> [StoreKeyKinds]?
}

extension StoreSnapshotEntity {
    public var indexes: [[String]] { [] }

    public func indexEntries<R: Record & Codable>(ofIndex k: Int, _ positions: Range<Int>, as type: R.Type) throws(StoreError) -> [StoreIndexEntry<R.ID>]
    where R.ID: Codable {
        throw .corrupt(path: "the persistence", reason: "its snapshot keeps no index \(k)")
    }

    public func keyKinds(ofIndex k: Int) -> [StoreKeyKinds]? { nil }
}

/// The order of an index a persistence keeps
/// (``EntityDescription/indexOrder(_:of:)``): the records' positions in the
/// index's order, and the kinds of each key's values.
public struct StoreIndexOrder: Sendable {
    /// The positions of the records given, in the index's order.
    public var positions: [Int]
    /// The kinds of each key's values, key by key: keep them with the index
    /// (``StoreSnapshotEntity/keyKinds(ofIndex:)``).
    public var keyKinds: [StoreKeyKinds]

    /// Creates one from its parts.
    public init(positions: [Int], keyKinds: [StoreKeyKinds]) {
        self.positions = positions
        self.keyKinds = keyKinds
    }
}

/// The kinds of values one key of an index holds among a snapshot's records
/// — numbers, strings, dates, …, and whether a NaN is among them — which a
/// store needs to read the range of the index a predicate bounds. Computed
/// with the index's order (``EntityDescription/indexOrder(_:of:)``); it
/// encodes as one integer, to keep beside the index.
public struct StoreKeyKinds: Hashable, Sendable, Codable {
    private let rawValue: UInt64

    init(_ kinds: _KeyKinds) { rawValue = kinds.rawValue }

    var kinds: _KeyKinds { _KeyKinds(rawValue: rawValue) }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(UInt64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// An entry of an index a persistence serves: a record's ordinal in the
/// snapshot, and its identity.
public struct StoreIndexEntry<ID: Hashable & Sendable>: Hashable, Sendable {
    /// The record's place among the entity's records in the snapshot.
    public var ordinal: Int
    /// The record's identity.
    public var id: ID

    /// Creates one from its parts.
    public init(ordinal: Int, id: ID) {
        self.ordinal = ordinal
        self.id = id
    }
}

/// Saves others made since a persistence last read or wrote.
public struct ExternalChanges: Sendable {
    /// Saves to apply in order, each one version after the last.
    public var changeSets: [StoreChangeSet]
    /// Everything, read again, when the saves cannot be told one by one (the
    /// file was compacted by another store since this one read it): the store
    /// works out what changed by comparing versions.
    public var replacement: StoreContents?
    /// Damage repaired while reading.
    public var recoveries: [StoreRecovery]

    /// Creates one from its parts.
    public init(changeSets: [StoreChangeSet] = [], replacement: StoreContents? = nil, recoveries: [StoreRecovery] = []) {
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
/// What ``ObjectStore/init(model:)`` uses.
public final class MemoryPersistence: StorePersistence {
    /// A persistence that keeps nothing.
    public init() {}

    /// An empty store.
    public func load(model: ObjectModel) throws(StoreError) -> StoreContents { StoreContents() }

    /// Nobody else writes here: no changes.
    public func changesSinceLastRead() throws(StoreError) -> ExternalChanges { .none }

    /// Asks `prepare` for the change set and keeps nothing.
    public func commit(_ prepare: (ExternalChanges) throws(StoreError) -> StoreChangeSet?) throws(StoreError) {
        _ = try prepare(.none)
    }
}

// MARK: - Between the seam and the store

/// The persistence behind a store, whatever its type, in the store's typed
/// form (`_ChangeSet`: one typed part per entity).
class _PersistenceBase: @unchecked Sendable {
    /// The identifier of what is kept (a store file's, kept by its
    /// compactions); nil when it has none.
    var storeIdentifier: UInt64? { nil }
    func load() throws(StoreError) -> _Contents { _Contents() }
    func changesSinceLastRead() throws(StoreError) -> _External { .none }
    func commit(_ prepare: (_External) throws(StoreError) -> _ChangeSet?) throws(StoreError) { _ = try prepare(.none) }
    func compact() throws(StoreError) {}
}

/// A persistence of your own: objects converted at the seam.
final class _PersistenceBox<P: StorePersistence>: _PersistenceBase, @unchecked Sendable {
    let base: P
    let model: ObjectModel

    init(_ base: P, model: ObjectModel) {
        self.base = base
        self.model = model
    }

    override func load() throws(StoreError) -> _Contents { try _Contents(try base.load(model: model), model: model) }
    override func changesSinceLastRead() throws(StoreError) -> _External { try _External(try base.changesSinceLastRead(), model: model) }
    override func commit(_ prepare: (_External) throws(StoreError) -> _ChangeSet?) throws(StoreError) {
        let model = model
        try base.commit { external throws(StoreError) in
            try prepare(try _External(external, model: model)).map { StoreChangeSet($0, model: model) }
        }
    }
    override func compact() throws(StoreError) { try base.compact() }
}

extension _ChangeSet {
    /// A change set of objects given erased, each in its entity's part.
    ///
    /// - Throws: ``StoreError/unknownEntity(_:)`` for an entity the model does
    ///   not declare, ``StoreError/corrupt(path:reason:)`` for a record not of
    ///   its entity's type or of a version after the change set's.
    init(_ changeSet: StoreChangeSet, model: ObjectModel) throws(StoreError) {
        version = changeSet.version
        nextSequence = changeSet.nextSequence
        var parts: [Int: _AnyEntityChangeSet] = [:]
        for (objects, deleted) in [(changeSet.saved, false), (changeSet.deleted, true)] {
            for object in objects {
                guard let k = model.byName[object.entityName] else { throw .unknownEntity(object.entityName) }
                guard object.version <= changeSet.version else {
                    throw .corrupt(path: "the persistence", reason: "an object of \(object.entityName) has version \(object.version), after its save's version \(changeSet.version)")
                }
                let part = parts[k] ?? model.entities[k].kind.makeChangeSet(k)
                parts[k] = part
                guard model.entities[k].kind.append(object.record, sequence: object.sequence, version: object.version, deleted: deleted, to: part) else {
                    throw .corrupt(path: "the persistence", reason: "an object of \(object.entityName) holds a \(type(of: object.record)), not a \(model.entities[k].recordType)")
                }
            }
        }
        self.parts = parts.keys.sorted().compactMap { parts[$0] }
    }
}

extension StoreChangeSet {
    /// The change set's objects, erased.
    init(_ changeSet: _ChangeSet, model: ObjectModel) {
        version = changeSet.version
        nextSequence = changeSet.nextSequence
        saved = changeSet.parts.flatMap { part in
            part.savedErased().map { StoredObject(entityName: model.entities[part.entity].name, record: $0.record, sequence: $0.sequence, version: $0.version) }
        }
        deleted = changeSet.parts.flatMap { part in
            part.deletedErased().map { StoredObject(entityName: model.entities[part.entity].name, record: $0, sequence: 0, version: changeSet.version) }
        }
    }
}

extension _Contents {
    /// What a persistence of your own read, typed.
    ///
    /// - Throws: ``StoreError/unknownEntity(_:)``, or
    ///   ``StoreError/corrupt(path:reason:)`` for contents with both a
    ///   snapshot and objects, or for a snapshot's count out of range.
    init(_ contents: StoreContents, model: ObjectModel) throws(StoreError) {
        if !contents.snapshot.isEmpty {
            guard contents.objects.isEmpty else {
                throw .corrupt(path: "the persistence", reason: "its contents hold a snapshot and \(contents.objects.count) objects besides; a snapshot serves every object")
            }
            var entities: [String: _BaseEntity] = [:]
            for (name, source) in contents.snapshot {
                guard let k = model.byName[name] else { throw .unknownEntity(name) }
                entities[name] = try model.entities[k].kind.makeServed(source, name: name)
            }
            snapshot = entities
        }
        parts = try _ChangeSet(StoreChangeSet(version: contents.version, nextSequence: contents.nextSequence, saved: contents.objects, deleted: []), model: model).parts
        version = contents.version
        nextSequence = contents.nextSequence
        changeSets = []
        for changeSet in contents.changeSets { changeSets.append(try _ChangeSet(changeSet, model: model)) }
        recoveries = contents.recoveries
    }
}

extension StoreContents {
    /// What a persistence loaded, erased: a file's snapshot decoded into
    /// objects (this form is for code that reads a ``JournalFilePersistence``
    /// through the protocol; a store reads the file's snapshot as rows are
    /// needed).
    ///
    /// - Throws: ``StoreError/damaged(path:offset:reason:)`` when a record of
    ///   the snapshot cannot be read.
    init(_ contents: _Contents, model: ObjectModel) throws(StoreError) {
        var parts = contents.parts
        for (name, entity) in contents.snapshot ?? [:] {
            guard let k = model.byName[name] else { throw .unknownEntity(name) }
            let kind = model.entities[k].kind
            let part: _AnyEntityChangeSet
            if let existing = parts.first(where: { $0.entity == k }) {
                part = existing
            } else {
                part = kind.makeChangeSet(k)
                parts.append(part)
            }
            for c in 0..<entity.chunkCount {
                try entity.forEachRecord(inChunk: c, from: 0) { ordinal, sequence, version, bytes throws(StoreError) in
                    do {
                        try kind.append(bytes, sequence: sequence, version: version, deleted: false, to: part)
                    } catch {
                        throw entity.damaged(ordinal, "record \(ordinal) cannot be decoded as \(model.entities[k].recordType): \(error)")
                    }
                    return true
                }
            }
        }
        parts.sort { $0.entity < $1.entity }
        let snapshot = StoreChangeSet(_ChangeSet(version: contents.version, nextSequence: contents.nextSequence, parts: parts), model: model)
        self.init(
            objects: snapshot.saved, version: contents.version, nextSequence: contents.nextSequence,
            changeSets: contents.changeSets.map { StoreChangeSet($0, model: model) }, recoveries: contents.recoveries)
    }
}

extension ExternalChanges {
    /// Others' saves, erased.
    init(_ changes: _External, model: ObjectModel) throws(StoreError) {
        self.init(
            changeSets: changes.changeSets.map { StoreChangeSet($0, model: model) },
            replacement: try changes.replacement.map { contents throws(StoreError) in try StoreContents(contents, model: model) }, recoveries: changes.recoveries)
    }
}

extension _External {
    init(_ changes: ExternalChanges, model: ObjectModel) throws(StoreError) {
        changeSets = []
        for changeSet in changes.changeSets { changeSets.append(try _ChangeSet(changeSet, model: model)) }
        replacement = try changes.replacement.map { contents throws(StoreError) in try _Contents(contents, model: model) }
        recoveries = changes.recoveries
    }
}
