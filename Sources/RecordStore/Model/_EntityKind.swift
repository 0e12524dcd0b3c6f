import Foundation
import Records

/// What the store, the contexts and the file do with one entity's records:
/// made typed once, when the entity is declared (``_TypedEntityKind``), and
/// used erased by the code that serves every entity of a model.
package class _EntityKind: @unchecked Sendable {
    func makeTable(_ entity: Int) -> _AnyEntityTable { _AnyEntityTable(entity: entity) }
    func makeChangeSet(_ entity: Int) -> _AnyEntityChangeSet { _AnyEntityChangeSet(entity: entity) }
    func makePart(_ entity: Int) -> _AnyEntityPart { _AnyEntityPart(entity: entity) }
    func makePending(_ entity: Int) -> _AnyEntityPending { _AnyEntityPending(entity: entity) }
    /// The identity of a record of this entity (nil: of another type).
    package func id(of record: any Record & Codable) -> AnyHashable? { nil }
    /// A record of this type read back from the store's binary form.
    func decode(_ bytes: UnsafeRawBufferPointer) throws -> any Record & Codable { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no record type")) }
    /// The record's binary form.
    func encode(_ record: any Record & Codable, into out: inout [UInt8]) throws {}
    /// Appends a record read from bytes to a change set's saved (or deleted) records.
    func append(_ bytes: UnsafeRawBufferPointer, sequence: Int64, version: Int64, deleted: Bool, to part: _AnyEntityChangeSet) throws {}
    /// Appends a record given erased (from a persistence of your own) to a
    /// change set; false when it is not of this entity's type.
    func append(_ record: any Record & Codable, sequence: Int64, version: Int64, deleted: Bool, to part: _AnyEntityChangeSet) -> Bool { false }
    /// A store file of the earliest versions (one JSON document), read as this entity's records.
    func readLegacy(_ bytes: [UInt8], path: String) throws(StoreError) -> _Contents { _Contents() }
    /// Whether the record type reads a key path (an index's key).
    func readsKey(_ key: String) -> Bool { false }
    /// The entity's records in a snapshot a persistence serves, as the store reads them.
    func makeServed(_ source: any StoreSnapshotEntity, name: String) throws(StoreError) -> _BaseEntity {
        throw .unknownEntity(name)
    }
}

final class _TypedEntityKind<R: Record & Codable>: _EntityKind, @unchecked Sendable where R.ID: Codable {
    override func makeTable(_ entity: Int) -> _AnyEntityTable { _EntityTable<R>(entity: entity) }
    override func makeChangeSet(_ entity: Int) -> _AnyEntityChangeSet { _EntityChangeSet<R>(entity: entity) }
    override func makePart(_ entity: Int) -> _AnyEntityPart { _EntityPart<R>(entity: entity) }
    override func makePending(_ entity: Int) -> _AnyEntityPending { _EntityPending<R>(entity: entity) }

    override func id(of record: any Record & Codable) -> AnyHashable? {
        (record as? R).map { AnyHashable($0.id) }
    }

    override func decode(_ bytes: UnsafeRawBufferPointer) throws -> any Record & Codable {
        try _BinaryRecordDecoder(bytes: bytes).decode(R.self, at: 0)
    }

    override func encode(_ record: any Record & Codable, into out: inout [UInt8]) throws {
        guard let record = record as? R else { throw EncodingError.invalidValue(record, .init(codingPath: [], debugDescription: "not a \(R.self)")) }
        try _BinaryRecordEncoder.encode(record, into: &out)
    }

    override func append(_ bytes: UnsafeRawBufferPointer, sequence: Int64, version: Int64, deleted: Bool, to part: _AnyEntityChangeSet) throws {
        let record = try _BinaryRecordDecoder(bytes: bytes).decode(R.self, at: 0)
        let typed = part.typed(R.self)
        if deleted { typed.deleted.append(record) } else { typed.saved.append(StoredRecord(record: record, sequence: sequence, version: version)) }
    }

    override func makeServed(_ source: any StoreSnapshotEntity, name: String) throws(StoreError) -> _BaseEntity {
        try _ServedEntity<R>(source, name: name)
    }

    override func readsKey(_ key: String) -> Bool {
        do throws(RecordKeyError) {
            _ = try R._reader(forKeyPath: key)
            return true
        } catch {
            return false
        }
    }

    override func readLegacy(_ bytes: [UInt8], path: String) throws(StoreError) -> _Contents {
        try _LegacyStoreFile.read(bytes, path: path, as: R.self)
    }

    override func append(_ record: any Record & Codable, sequence: Int64, version: Int64, deleted: Bool, to part: _AnyEntityChangeSet) -> Bool {
        guard let record = record as? R else { return false }
        let typed = part.typed(R.self)
        if deleted { typed.deleted.append(record) } else { typed.saved.append(StoredRecord(record: record, sequence: sequence, version: version)) }
        return true
    }
}
