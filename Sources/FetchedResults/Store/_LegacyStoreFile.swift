import Foundation
import PredicateFormat
import Records
import TableDiff

/// The store's file before the journal: one JSON document,
/// `{"format":"HeadlessTable.ObjectStore","version":1,"nextSequence":N,
/// "records":[{"sequence":S,"record":{…}},…]}`, rewritten whole by every save.
/// Still read, then converted to the journal format.
enum _LegacyStoreFile<R: Record & Codable> {
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

    /// Whether the bytes look like JSON (and not a journal file).
    static func isJSON(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return false }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// The records of an old store file (each at version 0).
    static func read(_ bytes: [UInt8], path: String) throws(StoreError) -> StoreContents<R> {
        let document: Document
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .deferredToDate
            document = try decoder.decode(Document.self, from: Data(bytes))
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
        guard maxSequence < .max else { throw .corrupt(path: path, reason: "a record's sequence number is \(maxSequence), the largest there is") }
        return StoreContents(
            records: document.records.map { StoredRecord(record: $0.record, sequence: $0.sequence, version: 0) },
            version: 0, nextSequence: max(document.nextSequence, maxSequence + 1))
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return "not valid JSON" + (context.debugDescription.isEmpty ? "" : ": \(context.debugDescription)")
        default: return _describe(error)
        }
    }
}
