import Foundation
import RecordStore
import Records

/// An example of your own persistence behind an `ObjectStore`: a folder of
/// JSON files, for a model of any entities, whose records the store reads as
/// rows are shown — a snapshot served file by file — rather than all at once.
///
/// ```
/// Folder/
///   store.json                      {"snapshot": 12}: the current snapshot
///   snapshots/<version>/            written once (by compact()), never changed
///     snapshot.json                 {"version": 12, "nextSequence": 40}
///     <entity>/entity.json          {"count": 3, "indexes": [["year"]], "kinds": [[4]]}
///     <entity>/records/<n>.json     record n: {"sequence": 3, "version": 12, "record": {…}}
///     <entity>/ids/<id>.json        the n of the record with that identity
///     <entity>/index-<k>/<b>.json   block b of index k: [{"ordinal": n, "id": …}, …]
///   saves/<version>.json            each save after the snapshot, whole
///   lock/                           present while a store writes
/// ```
///
/// What it shows of the `StorePersistence` contract:
/// - **Records served as they are read.** `load(model:)` hands the store the
///   current snapshot (`StoreContents.snapshot`): each entity's count and
///   indexes are read when it opens, a record when a row or a look-up needs
///   it (``recordFilesRead`` counts them), an index's entries a block at a
///   time. A controller sorted by a declared index with a batch size reads
///   its order from the index files, and its records a batch at a time.
/// - **Snapshots that never change.** A store reads its snapshot as long as
///   it is open, so `compact()` writes a new folder beside the old ones and
///   then points `store.json` at it. (Old snapshots are left for the stores
///   still reading them: remove one when none has it open.)
/// - **Atomic saves.** A save is one file, `saves/<version>.json`, written
///   whole or not at all (written beside, then renamed; not synced to the
///   disk, which a real adapter's database does).
/// - **Holding off other writers.** A writer holds the `lock` folder
///   (creating a folder is atomic on every file system) from before it looks
///   for other stores' saves until its own is written.
/// - **Other stores' saves.** The save files after the version a store knows
///   are handed to it in order; when another store's compaction removed some
///   of them, the new snapshot is handed over as a `replacement`.
///
/// It is an example, kept short: a compaction reads every record, and a
/// writer that dies holding the lock leaves it behind (remove the `lock`
/// folder). A real adapter would use its database's own transactions,
/// indexes and read snapshots.
public final class DirectoryPersistence: StorePersistence, @unchecked Sendable {
    /// The folder.
    public let folder: URL
    /// The model of the objects (set by `load(model:)`), the version this
    /// persistence last read or wrote, and the snapshot it serves — guarded
    /// by the store's lock: the store calls one method at a time.
    private var model: ObjectModel?
    private var knownVersion: Int64 = 0
    private let reads = ReadCounter()

    /// A persistence over `folder` (created when missing).
    public init(folder: URL) {
        self.folder = folder
    }

    /// How many record files the snapshots of this persistence have read:
    /// what shows that records are read as they are needed.
    public var recordFilesRead: Int { reads.count }

    // MARK: Files

    private var currentURL: URL { folder.appendingPathComponent("store.json") }
    private var snapshotsFolder: URL { folder.appendingPathComponent("snapshots") }
    private var savesFolder: URL { folder.appendingPathComponent("saves") }
    private var lockURL: URL { folder.appendingPathComponent("lock") }
    private func snapshotFolder(_ version: Int64) -> URL { snapshotsFolder.appendingPathComponent("\(version)") }
    private func saveURL(_ version: Int64) -> URL { savesFolder.appendingPathComponent("\(version).json") }

    private struct Current: Codable {
        var snapshot: Int64
    }

    private struct SnapshotHead: Codable {
        var version: Int64
        var nextSequence: Int64
    }

    /// A save: each object's file, as a snapshot keeps it.
    private struct Save: Codable {
        struct Object: Codable {
            var entity: String
            var file: Data
        }
        var version: Int64
        var nextSequence: Int64
        var saved: [Object]
        var deleted: [Object]
    }

    // MARK: StorePersistence

    public func load(model: ObjectModel) throws(StoreError) -> StoreContents {
        self.model = model
        do {
            try FileManager.default.createDirectory(at: savesFolder, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: snapshotsFolder, withIntermediateDirectories: true)
        } catch {
            throw .unwritable(path: folder.path, reason: "\(error)")
        }
        return try withLock { () throws(StoreError) in
            let contents = try contents(ofSnapshot: try currentSnapshot())
            knownVersion = contents.changeSets.last?.version ?? contents.version
            return contents
        }
    }

    public func changesSinceLastRead() throws(StoreError) -> ExternalChanges {
        try withLock { () throws(StoreError) in try changes() }
    }

    public func commit(_ prepare: (ExternalChanges) throws(StoreError) -> StoreChangeSet?) throws(StoreError) {
        try withLock { () throws(StoreError) in
            guard let changeSet = try prepare(try changes()) else { return }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            do {
                func objects(_ objects: [StoredObject]) throws -> [Save.Object] {
                    try objects.map { Save.Object(entity: $0.entityName, file: try Self.encode($0.record, sequence: $0.sequence, version: $0.version, with: encoder)) }
                }
                let save = Save(version: changeSet.version, nextSequence: changeSet.nextSequence, saved: try objects(changeSet.saved), deleted: try objects(changeSet.deleted))
                try encoder.encode(save).write(to: saveURL(changeSet.version), options: .atomic)
            } catch {
                throw .unwritable(path: saveURL(changeSet.version).path, reason: "\(error)")
            }
            knownVersion = changeSet.version
        }
    }

    /// Writes a new snapshot of everything saved, and removes the saves it holds.
    public func compact() throws(StoreError) {
        guard let model else { throw notLoaded }
        try withLock { () throws(StoreError) in
            let snapshot = try currentSnapshot()
            let contents = try contents(ofSnapshot: snapshot)
            guard let last = contents.changeSets.last else { return }
            // Every object as of the last save: the snapshot's, then the saves.
            var objects: [String: [String: StoredObject]] = [:]
            for (name, entity) in contents.snapshot {
                guard let entity = entity as? DirectorySnapshotEntity, let description = model.entities.first(where: { $0.name == name }) else { continue }
                for object in try entity.all(description.recordType) { objects[name, default: [:]]["\(object.record.id)"] = object }
            }
            for changeSet in contents.changeSets {
                for object in changeSet.deleted { objects[object.entityName]?["\(object.record.id)"] = nil }
                for object in changeSet.saved { objects[object.entityName, default: [:]]["\(object.record.id)"] = object }
            }
            // Written beside, then renamed: a compaction cut short leaves a
            // folder no store reads.
            let written = snapshotsFolder.appendingPathComponent(".\(last.version)-\(UUID().uuidString)")
            do {
                try FileManager.default.createDirectory(at: written, withIntermediateDirectories: true)
                try JSONEncoder().encode(SnapshotHead(version: last.version, nextSequence: last.nextSequence))
                    .write(to: written.appendingPathComponent("snapshot.json"))
                for entity in model.entities {
                    let all = (objects[entity.name] ?? [:]).values.sorted { $0.sequence < $1.sequence }
                    try Self.writeEntity(entity.recordType, all, indexes: entity.indexes, to: written.appendingPathComponent(entity.name))
                }
                if FileManager.default.fileExists(atPath: snapshotFolder(last.version).path) {
                    try FileManager.default.removeItem(at: snapshotFolder(last.version))
                }
                try FileManager.default.moveItem(at: written, to: snapshotFolder(last.version))
                try JSONEncoder().encode(Current(snapshot: last.version)).write(to: currentURL, options: .atomic)
            } catch {
                try? FileManager.default.removeItem(at: written)
                throw .unwritable(path: written.path, reason: "\(error)")
            }
            // The saves the new snapshot holds: a store that still needs them
            // is handed the new snapshot instead. (One whose removal fails is
            // left: a store behind reads it as before, one that opens now
            // reads the saves after the snapshot only.)
            for version in snapshot + 1...last.version { try? FileManager.default.removeItem(at: saveURL(version)) }
        }
    }

    // MARK: Reading

    private var notLoaded: StoreError {
        .unreadable(path: folder.path, reason: "the store was not loaded: call load(model:) first")
    }

    /// The version of the current snapshot (0: none yet).
    private func currentSnapshot() throws(StoreError) -> Int64 {
        guard FileManager.default.fileExists(atPath: currentURL.path) else { return 0 }
        do {
            return try JSONDecoder().decode(Current.self, from: Data(contentsOf: currentURL)).snapshot
        } catch {
            throw .corrupt(path: currentURL.path, reason: "\(error)")
        }
    }

    /// The saves others made since this persistence last read or wrote: the
    /// save files after it, or — when a compaction removed them — the
    /// current snapshot and the saves after it.
    private func changes() throws(StoreError) -> ExternalChanges {
        let snapshot = try currentSnapshot()
        let changes: ExternalChanges
        if snapshot > knownVersion && !FileManager.default.fileExists(atPath: saveURL(knownVersion + 1).path) {
            changes = ExternalChanges(replacement: try contents(ofSnapshot: snapshot))
            knownVersion = changes.replacement?.changeSets.last?.version ?? snapshot
        } else {
            changes = ExternalChanges(changeSets: try saves(after: knownVersion))
            knownVersion = changes.changeSets.last?.version ?? knownVersion
        }
        return changes
    }

    /// A snapshot, served, and the saves after it.
    private func contents(ofSnapshot version: Int64) throws(StoreError) -> StoreContents {
        guard let model else { throw notLoaded }
        var contents = StoreContents()
        if version > 0 {
            let folder = snapshotFolder(version)
            let head: SnapshotHead = try Self.read(folder.appendingPathComponent("snapshot.json"))
            contents.version = head.version
            contents.nextSequence = head.nextSequence
            for entity in model.entities {
                let served = try DirectorySnapshotEntity(folder: folder.appendingPathComponent(entity.name), reads: reads)
                if served.count > 0 { contents.snapshot[entity.name] = served }
            }
        }
        contents.changeSets = try saves(after: version)
        return contents
    }

    /// The save files after `version`, in order, read.
    private func saves(after version: Int64) throws(StoreError) -> [StoreChangeSet] {
        guard let model else { throw notLoaded }
        var changeSets: [StoreChangeSet] = []
        var next = version + 1
        while FileManager.default.fileExists(atPath: saveURL(next).path) {
            let save: Save = try Self.read(saveURL(next))
            func objects(_ objects: [Save.Object]) throws(StoreError) -> [StoredObject] {
                var read: [StoredObject] = []
                for object in objects {
                    guard let entity = model.entities.first(where: { $0.name == object.entity }) else { throw .unknownEntity(object.entity) }
                    do {
                        read.append(try Self.decode(entity.recordType, object.file, entity: entity.name))
                    } catch {
                        throw .corrupt(path: saveURL(next).path, reason: "\(error)")
                    }
                }
                return read
            }
            changeSets.append(StoreChangeSet(version: save.version, nextSequence: save.nextSequence, saved: try objects(save.saved), deleted: try objects(save.deleted)))
            next += 1
        }
        return changeSets
    }

    /// A JSON file, decoded.
    static func read<T: Decodable>(_ url: URL) throws(StoreError) -> T {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .unreadable(path: url.path, reason: "\(error)") }
        do { return try JSONDecoder().decode(T.self, from: data) } catch { throw .corrupt(path: url.path, reason: "\(error)") }
    }

    /// An object's file, its record typed (the existential opened).
    static func encode<R: Record & Codable>(_ record: R, sequence: Int64, version: Int64, with encoder: JSONEncoder) throws -> Data {
        try encoder.encode(RecordFile(sequence: sequence, version: version, record: record))
    }

    /// An object read back as its entity's record type.
    static func decode<R: Record & Codable>(_ type: R.Type, _ data: Data, entity: String) throws -> StoredObject {
        let file = try JSONDecoder().decode(RecordFile<R>.self, from: data)
        return StoredObject(entityName: entity, record: file.record, sequence: file.sequence, version: file.version)
    }

    /// Writes one entity's part of a snapshot: its records in first-insertion
    /// order (their ordinals), a file per identity, and each index in blocks.
    private static func writeEntity<R: Record & Codable>(_ type: R.Type, _ objects: [StoredObject], indexes: [[String]], to folder: URL) throws {
        let records = try objects.map { object -> StoredRecord<R> in
            guard let record = object.record as? R else { throw StoreError.corrupt(path: folder.path, reason: "a \(Swift.type(of: object.record)) is not a \(R.self)") }
            return StoredRecord(record: record, sequence: object.sequence, version: object.version)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for name in ["records", "ids"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        for (ordinal, stored) in records.enumerated() {
            try encoder.encode(RecordFile(sequence: stored.sequence, version: stored.version, record: stored.record))
                .write(to: DirectorySnapshotEntity.recordURL(folder, ordinal))
            try encoder.encode(ordinal).write(to: DirectorySnapshotEntity.identityURL(folder, stored.record.id))
        }
        var kinds: [[StoreKeyKinds]] = []
        for (k, keys) in indexes.enumerated() {
            let index = try EntityDescription.indexOrder(keys, of: records)
            let order = index.positions
            kinds.append(index.keyKinds)
            let blocks = folder.appendingPathComponent("index-\(k)")
            try FileManager.default.createDirectory(at: blocks, withIntermediateDirectories: true)
            for (b, start) in stride(from: 0, to: order.count, by: DirectorySnapshotEntity.blockSize).enumerated() {
                let entries = try order[start..<min(order.count, start + DirectorySnapshotEntity.blockSize)].map { ordinal in
                    // (A model's identities are Codable; the record type here is opened from the model's.)
                    guard let id = records[ordinal].record.id as? any Encodable else { throw StoreError.unencodable("the identity \(records[ordinal].record.id) is not Encodable") }
                    return IndexEntryOut(ordinal: ordinal, id: id)
                }
                try encoder.encode(entries).write(to: blocks.appendingPathComponent("\(b).json"))
            }
        }
        try encoder.encode(EntityHead(count: records.count, indexes: indexes, kinds: kinds)).write(to: folder.appendingPathComponent("entity.json"))
    }

    /// Runs `body` holding the `lock` folder.
    private func withLock<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        var attempts = 0
        while true {
            do {
                try FileManager.default.createDirectory(at: lockURL, withIntermediateDirectories: false)
                break
            } catch {
                attempts += 1
                if attempts > 10_000 { throw .unwritable(path: folder.path, reason: "the folder stays locked by another store (\(lockURL.path))") }
                Thread.sleep(forTimeInterval: 0.001)
            }
        }
        defer { try? FileManager.default.removeItem(at: lockURL) }
        return try body()
    }
}

/// A record's file: the record typed by its entity, its first-insertion
/// order and the version of the save that last wrote it.
struct RecordFile<R: Codable>: Codable {
    var sequence: Int64
    var version: Int64
    var record: R
}

/// An entity's part of a snapshot: its count, its indexes and the kinds of
/// their keys' values.
struct EntityHead: Codable {
    var count: Int
    var indexes: [[String]]
    var kinds: [[StoreKeyKinds]]
}

/// An entry of an index block, read.
struct IndexEntryFile<ID: Decodable>: Decodable {
    var ordinal: Int
    var id: ID
}

/// An entry of an index block, written.
struct IndexEntryOut: Encodable {
    var ordinal: Int
    var id: any Encodable

    private enum CodingKeys: String, CodingKey { case ordinal, id }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ordinal, forKey: .ordinal)
        try container.encode(id, forKey: .id)
    }
}

/// One entity's records in a snapshot folder, served file by file.
final class DirectorySnapshotEntity: StoreSnapshotEntity {
    /// Entries of an index a block file holds.
    static let blockSize = 256

    let folder: URL
    let count: Int
    let indexes: [[String]]
    let kinds: [[StoreKeyKinds]]
    private let reads: ReadCounter

    /// The entity's part of a snapshot (an entity without one has no records).
    init(folder: URL, reads: ReadCounter) throws(StoreError) {
        self.folder = folder
        self.reads = reads
        let headURL = folder.appendingPathComponent("entity.json")
        let head: EntityHead = FileManager.default.fileExists(atPath: headURL.path) ? try DirectoryPersistence.read(headURL) : EntityHead(count: 0, indexes: [], kinds: [])
        count = head.count
        indexes = head.indexes
        kinds = head.kinds
    }

    static func recordURL(_ folder: URL, _ ordinal: Int) -> URL {
        folder.appendingPathComponent("records").appendingPathComponent("\(ordinal).json")
    }

    /// The file of an identity: its text, percent-encoded.
    static func identityURL(_ folder: URL, _ id: some Hashable) -> URL {
        let text = "\(id)"
        return folder.appendingPathComponent("ids").appendingPathComponent((text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text) + ".json")
    }

    func records<R: Record & Codable>(_ ordinals: Range<Int>, as type: R.Type) throws(StoreError) -> [StoredRecord<R>] where R.ID: Codable {
        var records: [StoredRecord<R>] = []
        for ordinal in ordinals {
            let file: RecordFile<R> = try DirectoryPersistence.read(Self.recordURL(folder, ordinal))
            records.append(StoredRecord(record: file.record, sequence: file.sequence, version: file.version))
        }
        reads.add(ordinals.count)
        return records
    }

    func ordinal<R: Record & Codable>(of id: R.ID, as type: R.Type) throws(StoreError) -> Int? where R.ID: Codable {
        let url = Self.identityURL(folder, id)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try DirectoryPersistence.read(url) as Int
    }

    func indexEntries<R: Record & Codable>(ofIndex k: Int, _ positions: Range<Int>, as type: R.Type) throws(StoreError) -> [StoreIndexEntry<R.ID>]
    where R.ID: Codable {
        var entries: [StoreIndexEntry<R.ID>] = []
        var position = positions.lowerBound
        while position < positions.upperBound {
            let b = position / Self.blockSize
            let block: [IndexEntryFile<R.ID>] = try DirectoryPersistence.read(folder.appendingPathComponent("index-\(k)").appendingPathComponent("\(b).json"))
            let end = min(positions.upperBound, (b + 1) * Self.blockSize)
            guard end - b * Self.blockSize <= block.count else { throw .corrupt(path: folder.path, reason: "block \(b) of index \(k) holds \(block.count) entries") }
            for entry in block[(position - b * Self.blockSize)..<(end - b * Self.blockSize)] { entries.append(StoreIndexEntry(ordinal: entry.ordinal, id: entry.id)) }
            position = end
        }
        return entries
    }

    func keyKinds(ofIndex k: Int) -> [StoreKeyKinds]? { kinds.indices.contains(k) ? kinds[k] : nil }

    /// Every record, read (for a compaction: not counted).
    func all(_ type: any (Record & Codable).Type) throws(StoreError) -> [StoredObject] {
        func read<R: Record & Codable>(_ type: R.Type) throws(StoreError) -> [StoredObject] {
            var objects: [StoredObject] = []
            for ordinal in 0..<count {
                let file: RecordFile<R> = try DirectoryPersistence.read(Self.recordURL(folder, ordinal))
                objects.append(StoredObject(entityName: folder.lastPathComponent, record: file.record, sequence: file.sequence, version: file.version))
            }
            return objects
        }
        return try read(type)
    }
}

/// A count shared by a persistence and the snapshots it serves.
final class ReadCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func add(_ n: Int) {
        lock.lock()
        value += n
        lock.unlock()
    }
}
