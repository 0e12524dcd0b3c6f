import FetchedResults
import Foundation
import PredicateFormat
import Records

/// An example of your own persistence behind an `ObjectStore`: a folder with
/// one JSON file per record.
///
/// ```
/// Folder/
///   store.json           {"version": 12, "nextSequence": 40}
///   records/<id>.json    {"sequence": 3, "version": 12, "record": {…}}
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
public final class DirectoryPersistence<Object: Record & Codable>: StorePersistence, @unchecked Sendable {
    /// The folder.
    public let folder: URL
    /// The version this persistence last read or wrote (guarded by the
    /// store's lock: the store calls one method at a time).
    private var knownVersion: Int64 = -1

    private struct Meta: Codable {
        var version: Int64
        var nextSequence: Int64
    }

    private struct File: Codable {
        var sequence: Int64
        var version: Int64
        var record: Object
    }

    private struct Pending: Codable {
        var meta: Meta
        var saved: [File]
        var deleted: [String]
    }

    /// A persistence over `folder` (created when missing).
    public init(folder: URL) {
        self.folder = folder
    }

    private var recordsFolder: URL { folder.appendingPathComponent("records") }
    private var metaURL: URL { folder.appendingPathComponent("store.json") }
    private var pendingURL: URL { folder.appendingPathComponent("pending.json") }
    private var lockURL: URL { folder.appendingPathComponent("lock") }

    /// The file name of an identity: its text, percent-encoded.
    private func fileURL(forID id: String) -> URL {
        let name = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id
        return recordsFolder.appendingPathComponent(name + ".json")
    }

    private func failure(_ error: Error) -> StoreError {
        .unwritable(path: folder.path, reason: "\(error)")
    }

    // MARK: StorePersistence

    public func load() throws(StoreError) -> StoreContents<Object> {
        do {
            try FileManager.default.createDirectory(at: recordsFolder, withIntermediateDirectories: true)
            try withLock { () throws(StoreError) in try finishPendingSave() }
        } catch let error as StoreError {
            throw error
        } catch {
            throw failure(error)
        }
        return try readAll()
    }

    public func changesSinceLastRead() throws(StoreError) -> ExternalChanges<Object> {
        guard try readMeta().version != knownVersion else { return .none }
        return ExternalChanges(replacement: try readAll())
    }

    public func commit(_ prepare: (ExternalChanges<Object>) throws(StoreError) -> StoreChangeSet<Object>?) throws(StoreError) {
        try withLock { () throws(StoreError) in
            try finishPendingSave()
            guard let changeSet = try prepare(try changesSinceLastRead()) else { return }
            let pending = Pending(
                meta: Meta(version: changeSet.version, nextSequence: changeSet.nextSequence),
                saved: changeSet.saved.map { File(sequence: $0.sequence, version: $0.version, record: $0.record) },
                deleted: changeSet.deleted.map { "\($0.id)" })
            do {
                try JSONEncoder().encode(pending).write(to: pendingURL, options: .atomic)
            } catch {
                throw failure(error)
            }
            try finishPendingSave()
        }
    }

    // MARK: Files

    /// Applies `pending.json`, if there is one, and removes it.
    private func finishPendingSave() throws(StoreError) {
        guard FileManager.default.fileExists(atPath: pendingURL.path) else { return }
        do {
            let pending = try JSONDecoder().decode(Pending.self, from: Data(contentsOf: pendingURL))
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            for file in pending.saved {
                try encoder.encode(file).write(to: fileURL(forID: "\(file.record.id)"), options: .atomic)
            }
            for id in pending.deleted where FileManager.default.fileExists(atPath: fileURL(forID: id).path) {
                try FileManager.default.removeItem(at: fileURL(forID: id))
            }
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

    private func readAll() throws(StoreError) -> StoreContents<Object> {
        let meta = try readMeta()
        var records: [StoredRecord<Object>] = []
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: recordsFolder.path).filter { $0.hasSuffix(".json") }
        } catch {
            throw .unreadable(path: recordsFolder.path, reason: "\(error)")
        }
        let decoder = JSONDecoder()
        for name in names.sorted() {
            let url = recordsFolder.appendingPathComponent(name)
            do {
                let file = try decoder.decode(File.self, from: Data(contentsOf: url))
                records.append(StoredRecord(record: file.record, sequence: file.sequence, version: file.version))
            } catch {
                throw .corrupt(path: url.path, reason: "\(error)")
            }
        }
        knownVersion = meta.version
        return StoreContents(records: records, version: meta.version, nextSequence: meta.nextSequence)
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
