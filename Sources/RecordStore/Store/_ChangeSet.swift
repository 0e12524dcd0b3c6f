import Foundation
import Records

// A save as the store and its file keep it: one part per entity, each typed,
// so that no record is boxed on its way between the file, the store and the
// contexts (a million records are decoded into their entity's array).

/// One entity's part of a save (or of what a persistence loaded), erased.
class _AnyEntityChangeSet: @unchecked Sendable {
    /// The entity's index in the model.
    let entity: Int

    init(entity: Int) { self.entity = entity }

    var savedCount: Int { 0 }
    var deletedCount: Int { 0 }
    var isEmpty: Bool { savedCount == 0 && deletedCount == 0 }

    /// The part typed: `R` is the entity's record type.
    func typed<R: Record & Codable>(_ type: R.Type) -> _EntityChangeSet<R> {
        assert(self is _EntityChangeSet<R>, "a change set of entity \(entity) read as \(R.self)'s")
        return unsafeDowncast(self, to: _EntityChangeSet<R>.self)
    }

    /// The saved records, erased, with their sequences and versions.
    func savedErased() -> [(record: any Record & Codable, sequence: Int64, version: Int64)] { [] }
    /// The deleted records, erased.
    func deletedErased() -> [any Record & Codable] { [] }
    /// The identities of the saved and deleted records.
    func savedIDs() -> [AnyHashable] { [] }
    func deletedIDs() -> [AnyHashable] { [] }

    func reserveCapacity(_ n: Int) {}

    /// Writes saved records from `start` as a snapshot chunk holds them
    /// (sequence, version, record) until the output reaches `limit` bytes;
    /// returns the index it stopped at.
    func writeSnapshotRecords(from start: Int, into out: inout [UInt8], upTo limit: Int, codec: _JournalCodec) throws(StoreError) -> Int { start }
    /// Writes the saved records as a save frame holds them (sequence, record).
    func writeSavedRecords(into out: inout [UInt8], codec: _JournalCodec) throws(StoreError) {}
    /// Writes the deleted records as a save frame holds them.
    func writeDeletedRecords(into out: inout [UInt8], codec: _JournalCodec) throws(StoreError) {}
}

/// One entity's part of a save: the records inserted or updated, as saved,
/// and those deleted, as they were.
final class _EntityChangeSet<R: Record & Codable>: _AnyEntityChangeSet, @unchecked Sendable {
    var saved: [StoredRecord<R>]
    var deleted: [R]

    init(entity: Int, saved: [StoredRecord<R>] = [], deleted: [R] = []) {
        self.saved = saved
        self.deleted = deleted
        super.init(entity: entity)
    }

    override var savedCount: Int { saved.count }
    override var deletedCount: Int { deleted.count }

    override func savedErased() -> [(record: any Record & Codable, sequence: Int64, version: Int64)] {
        saved.map { ($0.record, $0.sequence, $0.version) }
    }
    override func deletedErased() -> [any Record & Codable] { deleted }
    override func savedIDs() -> [AnyHashable] { saved.map { AnyHashable($0.record.id) } }
    override func deletedIDs() -> [AnyHashable] { deleted.map { AnyHashable($0.id) } }

    override func reserveCapacity(_ n: Int) { saved.reserveCapacity(n) }

    override func writeSnapshotRecords(from start: Int, into out: inout [UInt8], upTo limit: Int, codec: _JournalCodec) throws(StoreError) -> Int {
        var k = start
        while k < saved.count && out.count < limit {
            _Varint.writeSigned(saved[k].sequence, to: &out)
            _Varint.write(UInt64(bitPattern: saved[k].version), to: &out)
            try codec.encode(entity, saved[k].record, into: &out)
            k += 1
        }
        return k
    }

    override func writeSavedRecords(into out: inout [UInt8], codec: _JournalCodec) throws(StoreError) {
        for stored in saved {
            _Varint.writeSigned(stored.sequence, to: &out)
            try codec.encode(entity, stored.record, into: &out)
        }
    }

    override func writeDeletedRecords(into out: inout [UInt8], codec: _JournalCodec) throws(StoreError) {
        for record in deleted { try codec.encode(entity, record, into: &out) }
    }
}

/// A save: its version, the next first-insertion order, and each entity's part.
struct _ChangeSet: Sendable {
    var version: Int64
    var nextSequence: Int64
    /// One part per entity that changed, in the model's order.
    var parts: [_AnyEntityChangeSet]
}

/// Everything a persistence keeps: each entity's records, then saves to
/// apply to them in order.
struct _Contents: Sendable {
    /// A snapshot whose records are read as they are needed, each entity's
    /// by name: of the store's file (format 2), or served by a persistence.
    var snapshot: [String: _BaseEntity]?
    var parts: [_AnyEntityChangeSet] = []
    var version: Int64 = 0
    var nextSequence: Int64 = 1
    var changeSets: [_ChangeSet] = []
    var recoveries: [StoreRecovery] = []
}

/// Saves others made since a persistence last read or wrote.
struct _External: Sendable {
    var changeSets: [_ChangeSet] = []
    /// Everything, read again (the file was compacted by another store).
    var replacement: _Contents?
    var recoveries: [StoreRecovery] = []

    static var none: _External { _External() }
}

/// One entity's part of what a save (or a context's change) did: the records
/// inserted, updated and deleted, typed; erased here.
class _AnyEntityPart: @unchecked Sendable {
    let entity: Int

    init(entity: Int) { self.entity = entity }

    var isEmpty: Bool { true }
    func typed<R: Record & Codable>(_ type: R.Type) -> _EntityPart<R>? { self as? _EntityPart<R> }
    func insertedErased() -> [any Record & Codable] { [] }
    func updatedErased() -> [any Record & Codable] { [] }
    func deletedErased() -> [any Record & Codable] { [] }
    func insertedIDs() -> [AnyHashable] { [] }
    func updatedIDs() -> [AnyHashable] { [] }
    func deletedIDs() -> [AnyHashable] { [] }
}

/// One entity's part of what a save (or a context's change) did, typed.
final class _EntityPart<R: Record & Codable>: _AnyEntityPart, @unchecked Sendable {
    var inserted: [R] = []
    var updated: [R] = []
    var deleted: [R] = []

    init(entity: Int, inserted: [R] = [], updated: [R] = [], deleted: [R] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        super.init(entity: entity)
    }

    override var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
    override func insertedErased() -> [any Record & Codable] { inserted }
    override func updatedErased() -> [any Record & Codable] { updated }
    override func deletedErased() -> [any Record & Codable] { deleted }
    override func insertedIDs() -> [AnyHashable] { inserted.map { AnyHashable($0.id) } }
    override func updatedIDs() -> [AnyHashable] { updated.map { AnyHashable($0.id) } }
    override func deletedIDs() -> [AnyHashable] { deleted.map { AnyHashable($0.id) } }
}
