import Foundation
import PredicateFormat
import Records

/// The store's file of the earliest versions: one JSON document of one
/// record type's records, read and converted on opening (by a model of one
/// entity, that record type's).
enum _LegacyStoreFile {
    static var formatName: String { "HeadlessTable.ObjectStore" }

    static func isJSON(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return false }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// The document's records, as the model's one entity's.
    static func read(_ bytes: [UInt8], path: String, model: ObjectModel) throws(StoreError) -> _Contents {
        guard model.entities.count == 1 else {
            throw .corrupt(path: path, reason: "it is a store of the earlier JSON format, which holds the records of one type: open it with a model of one entity")
        }
        return try model.entities[0].kind.readLegacy(bytes, path: path)
    }

    struct Document<R: Codable>: Codable {
        var format: String
        var version: Int
        var nextSequence: Int64
        var records: [Entry<R>]
    }

    struct Entry<R: Codable>: Codable {
        var sequence: Int64
        var record: R
    }

    /// The document's records of `R`.
    static func read<R: Record & Codable>(_ bytes: [UInt8], path: String, as type: R.Type) throws(StoreError) -> _Contents {
        let document: Document<R>
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .deferredToDate
            document = try decoder.decode(Document<R>.self, from: Data(bytes))
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
        let part = _EntityChangeSet<R>(entity: 0, saved: document.records.map { StoredRecord(record: $0.record, sequence: $0.sequence, version: 0) })
        return _Contents(parts: [part], version: 0, nextSequence: max(document.nextSequence, maxSequence + 1))
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return "not valid JSON" + (context.debugDescription.isEmpty ? "" : ": \(context.debugDescription)")
        default: return _describe(error)
        }
    }
}
