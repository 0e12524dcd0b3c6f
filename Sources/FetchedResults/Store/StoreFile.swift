import Foundation
#if canImport(Darwin)
import Darwin   // kill(pid, 0): is the writer of a temporary file still alive?
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("the store needs a POSIX C library: Darwin, Glibc or Musl")
#endif
import TableDiff

/// The store's file: `{"format":"HeadlessTable.ObjectStore","version":1,
/// "nextSequence":N,"records":[{"sequence":S,"record":{…}},…]}`, JSON, written
/// atomically (temporary file, flush, rename, flush of the folder).
enum _StoreFile<R: Record & Codable> {
    static var formatName: String { "HeadlessTable.ObjectStore" }

    struct Document: Codable {
        var format: String
        var version: Int
        var nextSequence: Int64
        var records: [Entry]
    }

    struct Entry: Codable {
        var sequence: Int64
        var record: R
    }

    /// Removes temporary files left next to the store by writers that died
    /// mid-save (their process is gone).
    static func removeStaleTemporaryFiles(of url: URL) {
        let folder = url.deletingLastPathComponent()
        let prefix = ".\(url.lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let parts = name.dropFirst(prefix.count).split(separator: ".")
            guard parts.count == 3, let pid = Int32(parts[0]) else { continue }
            if pid != ProcessInfo.processInfo.processIdentifier && kill(pid, 0) != 0 && errno == ESRCH {
                unlink(folder.appendingPathComponent(name).path)
            }
        }
    }

    /// The state in the file, or nil when there is no file.
    static func read(_ url: URL) throws(StoreError) -> _StoreState<R>? {
        let path = url.path
        removeStaleTemporaryFiles(of: url)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { throw .unreadable(path: path, reason: "it is a folder") }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        let document: Document
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .deferredToDate
            document = try decoder.decode(Document.self, from: data)
        } catch {
            throw .corrupt(path: path, reason: describe(error))
        }
        guard document.format == formatName else { throw .corrupt(path: path, reason: "its format is \"\(document.format)\"") }
        guard document.version == 1 else { throw .corrupt(path: path, reason: "version \(document.version) is not supported") }
        var ids = Set<R.ID>()
        for entry in document.records where !ids.insert(entry.record.id).inserted {
            throw .corrupt(path: path, reason: "the identity \(entry.record.id) occurs twice")
        }
        let maxSequence = document.records.map(\.sequence).max() ?? 0
        return _StoreState(
            records: document.records.map(\.record), sequences: document.records.map(\.sequence),
            nextSequence: max(document.nextSequence, maxSequence + 1))
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return "not valid JSON" + (context.debugDescription.isEmpty ? "" : ": \(context.debugDescription)")
        case DecodingError.keyNotFound(let key, let context): return "missing \"\(key.stringValue)\"" + at(context)
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context): return context.debugDescription + at(context)
        default: return "\(error)"
        }
    }

    static func at(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty ? "" : " at " + context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }

    /// Writes the state atomically.
    static func write(_ state: borrowing _StoreState<R>, to url: URL) throws(StoreError) {
        let path = url.path
        let entries = state.order().map { Entry(sequence: state.sequences[$0], record: state.records[$0]) }
        let data: Data
        do {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .deferredToDate   // exact: the date's Double, written to round-trip
            encoder.outputFormatting = [.sortedKeys]
            data = try encoder.encode(Document(format: formatName, version: 1, nextSequence: state.nextSequence, records: entries))
        } catch {
            throw .unencodable("\(error)")
        }
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max)).tmp")
        func fail(_ reason: String) -> StoreError {
            unlink(temporary.path)
            return .unwritable(path: path, reason: reason)
        }
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw fail(String(cString: strerror(errno))) }
        var written = 0
        let failure: String? = data.withUnsafeBytes { bytes -> String? in
            while written < bytes.count {
                let n = Foundation.write(fd, bytes.baseAddress! + written, bytes.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                written += n
            }
            return nil
        }
        if let failure {
            close(fd)
            throw fail(failure)
        }
        if _flushToDisk(fd) != 0 {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw fail(reason)
        }
        close(fd)
        if rename(temporary.path, path) != 0 { throw fail(String(cString: strerror(errno))) }
        // Make the rename itself durable.
        let folderFD = open(folder.path, O_RDONLY)
        if folderFD >= 0 {
            _ = _flushToDisk(folderFD)
            close(folderFD)
        }
    }
}

/// Results a fetched results controller computed, kept by cache name.
@usableFromInline
struct _FetchCache: @unchecked Sendable {
    @usableFromInline var fingerprint: String
    @usableFromInline var storeVersion: Int64
    @usableFromInline var payload: Any

    @inlinable
    init(fingerprint: String, storeVersion: Int64, payload: Any) {
        self.fingerprint = fingerprint
        self.storeVersion = storeVersion
        self.payload = payload
    }
}
