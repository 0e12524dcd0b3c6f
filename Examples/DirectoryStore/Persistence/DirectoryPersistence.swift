import FetchedResults
import Foundation
import PredicateFormat
import Records

/// An example of your own persistence behind an `ObjectStore`: a folder with
/// one JSON file per object, for a model of any entities.
///
/// ```
/// Folder/
///   store.json                    {"version": 12, "nextSequence": 40}
///   records/<entity>/<id>.json    {"sequence": 3, "version": 12, "record": {…}}
///   pending.json         a save being written (see below)
///   lock/                present while a store writes
/// ```
///
/// What it shows of the `StorePersistence` contract:
/// - **Atomic saves.** A save writes its whole change set to `pending.json`
///   first (one atomic file write), then the record files, then `store.json`,
///   then removes `pending.json`. A save cut short by a crash is finished when
///   the folder is next opened: it is all there, or — if `pending.json` was
///   never written whole — none of it.
/// - **Holding off other writers.** A writer holds the `lock` folder (creating
///   a folder is atomic on every file system) from before it looks for other
///   stores' saves until its own is written.
/// - **Other stores' saves.** `store.json`'s version tells whether another
///   store saved since this one read: then everything is read again and
///   handed to the store as a `replacement` (it works out what changed from
///   the record versions).
///
/// It is an example, kept short: every record is read again after another
/// store's save (O(n)), and a writer that dies holding the lock leaves it
/// behind (remove the `lock` folder). A real adapter would use its database's
/// own transactions and change tracking.
public final class DirectoryPersistence: StorePersistence, @unchecked Sendable {
    /// The folder.
    public let folder: URL
    /// The model of the objects (set by `load(model:)`), and the version this
    /// persistence last read or wrote — guarded by the store's lock: the
    /// store calls one method at a time.
    private var model: ObjectModel?
    private var knownVersion: Int64 = -1

    private struct Meta: Codable {
        var version: Int64
        var nextSequence: Int64
    }

    /// An object's file: its record typed by its entity.
    private struct File<R: Codable>: Codable {
        var sequence: Int64
        var version: Int64
        var record: R
    }

    /// A save being written: each saved object's file as it will be written.
    private struct Pending: Codable {
        struct Saved: Codable {
            var entity: String
            var id: String
            var file: Data
        }
        struct Deleted: Codable {
            var entity: String
            var id: String
        }
        var meta: Meta
        var saved: [Saved]
        var deleted: [Deleted]
    }

    /// A persistence over `folder` (created when missing).
    public init(folder: URL) {
        self.folder = folder
    }

    private var recordsFolder: URL { folder.appendingPathComponent("records") }
    private var metaURL: URL { folder.appendingPathComponent("store.json") }
    private var pendingURL: URL { folder.appendingPathComponent("pending.json") }
    private var lockURL: URL { folder.appendingPathComponent("lock") }

    /// The folder of an entity's objects.
    private func entityFolder(_ entity: String) -> URL { recordsFolder.appendingPathComponent(entity) }

    /// The file of an object: its identity's text, percent-encoded.
    private func fileURL(entity: String, id: String) -> URL {
        let name = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id
        return entityFolder(entity).appendingPathComponent(name + ".json")
    }

    private func failure(_ error: Error) -> StoreError {
        .unwritable(path: folder.path, reason: "\(error)")
    }

    // MARK: StorePersistence

    public func load(model: ObjectModel) throws(StoreError) -> StoreContents {
        self.model = model
        do {
            for entity in model.entities {
                try FileManager.default.createDirectory(at: entityFolder(entity.name), withIntermediateDirectories: true)
            }
            try withLock { () throws(StoreError) in try finishPendingSave() }
        } catch let error as StoreError {
            throw error
        } catch {
            throw failure(error)
        }
        return try readAll()
    }

    public func changesSinceLastRead() throws(StoreError) -> ExternalChanges {
        guard try readMeta().version != knownVersion else { return .none }
        return ExternalChanges(replacement: try readAll())
    }

    public func commit(_ prepare: (ExternalChanges) throws(StoreError) -> StoreChangeSet?) throws(StoreError) {
        try withLock { () throws(StoreError) in
            try finishPendingSave()
            guard let changeSet = try prepare(try changesSinceLastRead()) else { return }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            var saved: [Pending.Saved] = []
            do {
                for object in changeSet.saved {
                    let file = try Self.encode(object.record, sequence: object.sequence, version: object.version, with: encoder)
                    saved.append(Pending.Saved(entity: object.entityName, id: "\(object.record.id)", file: file))
                }
                let pending = Pending(
                    meta: Meta(version: changeSet.version, nextSequence: changeSet.nextSequence), saved: saved,
                    deleted: changeSet.deleted.map { Pending.Deleted(entity: $0.entityName, id: "\($0.record.id)") })
                try JSONEncoder().encode(pending).write(to: pendingURL, options: .atomic)
            } catch {
                throw failure(error)
            }
            try finishPendingSave()
        }
    }

    // MARK: Files

    /// An object's file, its record typed (the existential opened).
    private static func encode<R: Record & Codable>(_ record: R, sequence: Int64, version: Int64, with encoder: JSONEncoder) throws -> Data {
        try encoder.encode(File(sequence: sequence, version: version, record: record))
    }

    /// An object read back as its entity's record type.
    private static func decode<R: Record & Codable>(_ type: R.Type, _ data: Data, entity: String) throws -> StoredObject {
        let file = try JSONDecoder().decode(File<R>.self, from: data)
        return StoredObject(entityName: entity, record: file.record, sequence: file.sequence, version: file.version)
    }

    /// Applies `pending.json`, if there is one, and removes it.
    private func finishPendingSave() throws(StoreError) {
        guard FileManager.default.fileExists(atPath: pendingURL.path) else { return }
        do {
            let pending = try JSONDecoder().decode(Pending.self, from: Data(contentsOf: pendingURL))
            for object in pending.saved {
                try object.file.write(to: fileURL(entity: object.entity, id: object.id), options: .atomic)
            }
            for object in pending.deleted where FileManager.default.fileExists(atPath: fileURL(entity: object.entity, id: object.id).path) {
                try FileManager.default.removeItem(at: fileURL(entity: object.entity, id: object.id))
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            try encoder.encode(pending.meta).write(to: metaURL, options: .atomic)
            try FileManager.default.removeItem(at: pendingURL)
            knownVersion = pending.meta.version
        } catch {
            throw failure(error)
        }
    }

    private func readMeta() throws(StoreError) -> Meta {
        guard FileManager.default.fileExists(atPath: metaURL.path) else { return Meta(version: 0, nextSequence: 1) }
        do {
            return try JSONDecoder().decode(Meta.self, from: Data(contentsOf: metaURL))
        } catch {
            throw .corrupt(path: metaURL.path, reason: "\(error)")
        }
    }

    private func readAll() throws(StoreError) -> StoreContents {
        guard let model else { throw .unreadable(path: folder.path, reason: "the store was not loaded: call load(model:) first") }
        let meta = try readMeta()
        var objects: [StoredObject] = []
        for entity in model.entities {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: entityFolder(entity.name).path).filter { $0.hasSuffix(".json") }
            } catch {
                throw .unreadable(path: entityFolder(entity.name).path, reason: "\(error)")
            }
            for name in names.sorted() {
                let url = entityFolder(entity.name).appendingPathComponent(name)
                do {
                    objects.append(try Self.decode(entity.recordType, try Data(contentsOf: url), entity: entity.name))
                } catch {
                    throw .corrupt(path: url.path, reason: "\(error)")
                }
            }
        }
        knownVersion = meta.version
        return StoreContents(objects: objects, version: meta.version, nextSequence: meta.nextSequence)
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
