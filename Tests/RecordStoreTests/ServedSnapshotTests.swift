import FetchedResults
import Foundation
import RecordStore
import Records
import TableDiff
import TableTestSupport
import Testing

/// A persistence of your own that serves a snapshot as it is read
/// (`StoreContents.snapshot`): the store answers exactly as the database
/// holds, through saves of two stores, compactions and reopening; a fetch
/// sorted by a served index reads no record; every wrong answer of a
/// persistence is a typed error; a persistence that loads everything still
/// works.
@Suite struct ServedSnapshotTests {
    static let indexes = [["rank"], ["group", "rank"]]
    static let model = try! ObjectModel(.entity(Note.self, indexes: indexes))

    /// A store and a context, opened on `database`.
    struct Opened {
        let store: ObjectStore
        let context: ObjectContext
        init(_ database: NoteDatabase) throws(StoreError) {
            store = try ObjectStore(model: ServedSnapshotTests.model, persistence: ServedPersistence(database))
            context = ObjectContext(store: store)
        }
    }

    /// The order of an index of `keys` (`["rank"]` or `["group", "rank"]`),
    /// written out here: nil first, then by value; ties by first insertion.
    static func ordered(_ records: [StoredRecord<Note>], by keys: [String]) -> [StoredRecord<Note>] {
        func key(_ r: StoredRecord<Note>) -> (Int, String, Int, Int64) {
            let group = keys.first == "group" ? r.record.group : nil
            return (group == nil ? 0 : 1, group ?? "", r.record.rank, r.sequence)
        }
        return records.sorted { key($0) < key($1) }
    }

    /// The same notes in the same order; else where they first differ.
    static func expectSame(_ actual: [Note], _ expected: [Note], _ comment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard actual != expected else { return }
        let k = (0..<min(actual.count, expected.count)).first { actual[$0] != expected[$0] } ?? min(actual.count, expected.count)
        Issue.record("\(comment): \(actual.count) notes, expected \(expected.count); first difference at \(k): \(actual.dropFirst(k).prefix(3).map { "\($0.id)/\($0.rank)/\($0.title)" }) against \(expected.dropFirst(k).prefix(3).map { "\($0.id)/\($0.rank)/\($0.title)" })", sourceLocation: sourceLocation)
    }

    @Test func twoStoresAnswerAsTheDatabaseThroughSavesCompactionsAndReopening() throws {
        for seed in 0..<UInt64(TestScale.cases(3, full: 12)) { try twoStoresAnswerAsTheDatabase(seed: seed) }
    }

    func twoStoresAnswerAsTheDatabase(seed: UInt64) throws {
        var g = SeededGenerator(seed: seed)
        let database = NoteDatabase()
        database.servesKinds = seed % 2 == 0
        var opened = [try Opened(database), try Opened(database)]
        var nextID = 0
        var indexedFetches = 0, compactions = 0, ranges = 0
        for step in 0..<TestScale.cases(40, full: 120) {
            let s = g.int(0..<2)
            try opened[s].store.mergeExternalChanges()
            let context = opened[s].context
            let existing = opened[s].store.objects(Note.self).map(\.id)
            for _ in 0..<g.int(1...6) {
                let id = existing.isEmpty || g.chance(0.4) ? nextID : existing[g.int(0..<existing.count)]
                let note = Note(id: id, group: g.chance(0.2) ? nil : "g\(g.int(0..<3))", rank: g.int(0..<12), title: "t\(step)")
                if id == nextID {
                    nextID += 1
                    try context.insert(note)
                } else if try context.object(Note.self, id: id) == nil {
                    continue   // deleted in this round
                } else if g.chance(0.7) {
                    try context.update(note)
                } else {
                    try context.delete(Note.self, id: id)
                }
            }
            try context.save()
            if g.chance(0.15) {
                try opened[g.int(0..<2)].store.compact()
                compactions += 1
            }
            if g.chance(0.1) { opened[g.int(0..<2)] = try Opened(database) }

            // Both stores against the database.
            let truth = database.truth()
            for o in opened {
                try o.store.mergeExternalChanges()
                expectEqual(o.store.version, database.latest, "step \(step)")
                expectEqual(Set(o.store.objects(Note.self)), Set(truth.map(\.record)), "step \(step)")
                for id in (0..<6).map({ _ in g.int(0..<max(1, nextID + 1)) }) {
                    expectEqual(o.store.object(Note.self, id: id), truth.first { $0.record.id == id }?.record, "step \(step), id \(id)")
                }
            }
            // A fetch of each index's order, with and without a predicate
            // that bounds a range of it (read as a range when the snapshot
            // serves its keys' kinds).
            let o = opened[g.int(0..<2)]
            for keys in Self.indexes {
                let bounded = g.chance(0.5)
                let (format, matches): (String, (Note) -> Bool) = keys == ["rank"]
                    ? ("rank >= 6", { $0.rank >= 6 })
                    : ("group == 'g1' AND rank < 8", { $0.group == "g1" && $0.rank < 8 })
                var request = FetchRequest<Note>(sortKeys: keys.map { SortKey($0) }, fetchBatchSize: 7)
                if bounded { request.predicate = try RecordPredicate(format: format) }
                let controller = FetchedResultsController(fetchRequest: request, context: o.context)
                try controller.performFetch()
                if controller._readFromIndex {
                    indexedFetches += 1
                    if bounded && database.servesKinds { ranges += 1 }
                    expectEqual(controller._indexPositionsRead != nil, bounded && database.servesKinds, "seed \(seed), step \(step), \(keys): a range read")
                }
                let expected = Self.ordered(truth, by: keys).map(\.record).filter { !bounded || matches($0) }
                Self.expectSame(controller.fetchedObjects ?? [], expected, "seed \(seed), step \(step), \(keys), \(bounded ? format : "all")")
            }
        }
        #expect(compactions > 0 && indexedFetches > 0 && (ranges > 0) == database.servesKinds, "\(compactions) compactions, \(indexedFetches) fetches read from an index, \(ranges) ranges")
    }

    /// A controller whose order was read from a served index follows the
    /// saves of its own context and of another store.
    @Test func aControllerReadFromAServedIndexFollowsChanges() throws {
        for seed in 0..<UInt64(TestScale.cases(2, full: 12)) { try aControllerFollowsChanges(seed: seed) }
    }

    func aControllerFollowsChanges(seed: UInt64) throws {
        var g = SeededGenerator(seed: seed)
        let database = NoteDatabase()
        let writer = try Opened(database)
        for id in 0..<120 { try writer.context.insert(Note(id: id, group: "g\(id % 3)", rank: g.int(0..<30))) }
        try writer.context.save()
        try writer.store.compact()
        let reader = try Opened(database)
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("rank")], fetchBatchSize: 10), context: reader.context)
        let follower = Follower()
        controller.delegate = follower   // without a delegate, a controller does not follow changes (as Core Data's)
        let before = database.recordsRead
        try controller.performFetch()
        #expect(controller._readFromIndex)
        expectEqual(database.recordsRead, before, "a fetch from a served index read records")
        _ = try controller.object(at: TablePath(row: 60, section: 0))
        #expect(database.recordsRead - before <= 20, "\(database.recordsRead - before) records read for one row")
        var nextID = 120, replacements = 0
        for step in 0..<TestScale.cases(30, full: 120) {
            let o = g.chance(0.5) ? writer : reader
            try writer.store.mergeExternalChanges()
            let ids = o.store.objects(Note.self).map(\.id)
            for _ in 0..<g.int(1...4) {
                if g.chance(0.3) || ids.isEmpty {
                    try o.context.insert(Note(id: nextID, group: "g\(nextID % 3)", rank: g.int(0..<30)))
                    nextID += 1
                } else {
                    let id = ids[g.int(0..<ids.count)]
                    guard try o.context.object(Note.self, id: id) != nil else { continue }
                    if g.chance(0.7) { try o.context.update(Note(id: id, group: "g0", rank: g.int(0..<30), title: "s\(step)")) } else { try o.context.delete(Note.self, id: id) }
                }
            }
            try o.context.save()
            // The writer folds the saves into a new snapshot: a reader behind
            // it is handed the snapshot, and the difference as one save.
            if g.chance(0.2) {
                try writer.store.compact()
                replacements += 1
            }
            // Another store's saves reach the reader's context as Core Data's do: merged.
            for save in try reader.store.mergeExternalChanges() { reader.context.mergeChanges(fromContextDidSave: save) }
            Self.expectSame(controller.fetchedObjects ?? [], Self.ordered(database.truth(), by: ["rank"]).map(\.record), "seed \(seed), step \(step)")
            controller._checkInvariants()
        }
        #expect(follower.changes > 0 && replacements > 0)
    }

    /// What a persistence answers is checked: a wrong count, too few
    /// records or entries, an identity leading to another record, an
    /// ordinal out of range — each a typed error, never shown.
    @Test func everyWrongAnswerIsATypedError() throws {
        func opened(_ fault: NoteDatabase.Fault) throws -> Opened {
            let database = NoteDatabase()
            let writer = try Opened(database)
            for id in 0..<50 { try writer.context.insert(Note(id: id, group: nil, rank: id % 7)) }
            try writer.context.save()
            try writer.store.compact()
            database.fault = fault
            return try Opened(database)
        }
        func reason(_ error: StoreError) -> String {
            guard case .corrupt(let path, let reason) = error, path == "the persistence" else { return "not a persistence's corruption: \(error)" }
            return reason
        }
        let negative = NoteDatabase()
        let writer = try Opened(negative)
        try writer.context.insert(Note(id: 1, group: nil, rank: 1))
        try writer.context.save()
        try writer.store.compact()
        for (fault, expected) in [(NoteDatabase.Fault.negativeCount, "holds -1 records"), (.kindsMiscounted, "gives the kinds of 0 keys for index [\"rank\"]")] {
            negative.fault = fault
            do {
                _ = try Opened(negative)
                Issue.record("\(fault): opened")
            } catch {
                #expect(reason(error).contains(expected), "\(error)")
            }
        }
        // Too few records: a fetch that reads every record, and a look-up.
        let short = try opened(.fewerRecords)
        do {
            _ = try short.context.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")]))
            Issue.record("a fetch read too few records")
        } catch {
            guard case .unreadable(let store) = error else { Issue.record("\(error)"); return }
            #expect(reason(store).contains("it returned"), "\(store)")
        }
        #expect(short.store.object(Note.self, id: 3) == nil && short.store.damage != nil)
        // An identity that leads to another record: not shown as it.
        let wrong = try opened(.wrongOrdinal)
        #expect(wrong.store.object(Note.self, id: 3) == nil)
        #expect(reason(try #require(wrong.store.damage)).contains("the identity 3 leads to record 4"), "\(String(describing: wrong.store.damage))")
        // An index naming a record out of range, or too few entries.
        for fault in [NoteDatabase.Fault.indexOutOfRange, .fewerEntries] {
            let o = try opened(fault)
            let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("rank")], fetchBatchSize: 5), context: o.context)
            do {
                try controller.performFetch()
                Issue.record("\(fault): the fetch succeeded")
            } catch {
                guard case .unreadable(let store) = error else { Issue.record("\(error)"); continue }
                #expect(reason(store).contains(fault == .fewerEntries ? "it returned" : "names record 50 of 50"), "\(store)")
            }
        }
        // A snapshot beside objects; an object newer than what is read.
        for (objectsBeside, version) in [(true, Int64(1)), (false, Int64(9))] {
            let database = NoteDatabase()
            let writer = try Opened(database)
            try writer.context.insert(Note(id: 1, group: nil, rank: 1))
            try writer.context.save()
            if objectsBeside { try writer.store.compact() }
            database.objectBeside = (StoredObject(entityName: "Note", record: Note(id: -1, group: nil, rank: 0), sequence: 5, version: version))
            do {
                _ = try Opened(database)
                Issue.record("contents with \(objectsBeside ? "a snapshot and objects" : "an object of version 9") opened")
            } catch {
                #expect(reason(error).contains(objectsBeside ? "objects besides" : "has version 9, after its save's version"), "\(error)")
            }
        }
    }

    /// `indexOrder` is the order written out here, for any records.
    @Test func indexOrderIsTheIndexesOrder() throws {
        for seed in 0..<UInt64(TestScale.cases(4, full: 40)) { try indexOrderIsTheIndexesOrder(seed: seed) }
    }

    func indexOrderIsTheIndexesOrder(seed: UInt64) throws {
        var g = SeededGenerator(seed: seed)
        let count = g.int(0...200)
        let sequences = (0..<Int64(count)).map { $0 * 3 + 1 }.shuffled(using: &g)
        let records = (0..<count).map { k in
            StoredRecord(record: Note(id: k, group: g.chance(0.3) ? nil : "g\(g.int(0..<4))", rank: g.int(-3..<4)), sequence: sequences[k], version: 1)
        }
        for keys in Self.indexes {
            let index = try EntityDescription.indexOrder(keys, of: records)
            expectEqual(index.positions.map { records[$0].record.id }, Self.ordered(records, by: keys).map(\.record.id), "\(keys)")
            expectEqual(index.keyKinds.count, keys.count)
        }
        expectThrows(StoreError.self) { try EntityDescription.indexOrder(["nope"], of: records) }
    }

    /// The store's own file read through the protocol — what a persistence
    /// that wraps it sees — holds every object, its snapshot's too.
    @Test func theFilesPersistenceReadThroughTheProtocolHoldsEveryObject() throws {
        let folder = TemporaryFolder()
        let url = folder.url("notes.htstore")
        let notes = (0..<300).map { Note(id: $0, group: nil, rank: $0 % 11) }
        let compacted = try Note.compactedStore(notes, model: Self.model, at: url)
        let context = ObjectContext(store: compacted)
        try context.update(Note(id: 5, group: "g", rank: 99))
        try context.save()
        let contents = try JournalFilePersistence(fileURL: url).load(model: Self.model)
        expectEqual(contents.objects.count, 300)
        expectEqual(contents.changeSets.count, 1)
        let wrapped = try ObjectStore(model: Self.model, persistence: Wrapping(base: JournalFilePersistence(fileURL: url)))
        expectEqual(wrapped.objects(Note.self).count, 300)
        expectEqual(wrapped.object(Note.self, id: 5)?.rank, 99)
    }
}

/// A delegate that counts the changes it is told of.
final class Follower: FetchedResultsControllerDelegate {
    typealias Object = Note
    var changes = 0
    func controllerDidChangeContent(_ controller: FetchedResultsController<Note>) { changes += 1 }
}

/// A persistence that hands on another's answers.
final class Wrapping<Base: StorePersistence>: StorePersistence {
    let base: Base
    init(base: Base) { self.base = base }
    func load(model: ObjectModel) throws(StoreError) -> StoreContents { try base.load(model: model) }
    func changesSinceLastRead() throws(StoreError) -> ExternalChanges { try base.changesSinceLastRead() }
    func commit(_ prepare: (ExternalChanges) throws(StoreError) -> StoreChangeSet?) throws(StoreError) { try base.commit(prepare) }
}

/// A database of notes that keeps snapshots that never change — the
/// current one, and the saves after it — as a database with read
/// transactions does. Shared by the persistences of several stores.
final class NoteDatabase: @unchecked Sendable {
    enum Fault: Equatable { case none, negativeCount, kindsMiscounted, fewerRecords, wrongOrdinal, indexOutOfRange, fewerEntries }

    private let lock = NSLock()
    private(set) var snapshot: ServedNotes?
    private(set) var snapshotVersion: Int64 = 0
    private var snapshotNextSequence: Int64 = 1
    /// The saves after the snapshot, by version.
    private var saves: [Int64: StoreChangeSet] = [:]
    private(set) var latest: Int64 = 0
    let reads = ReadCount()
    var fault = Fault.none
    /// Whether its snapshots serve the kinds of their indexes' keys.
    var servesKinds = true
    var objectBeside: StoredObject?

    var recordsRead: Int { reads.value }

    func locked<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The current snapshot and the saves after it.
    func contents() -> StoreContents {
        var contents = StoreContents(version: snapshotVersion, nextSequence: snapshotNextSequence)
        if let snapshot { contents.snapshot["Note"] = fault == .none ? snapshot : FaultyNotes(snapshot, fault: fault) }
        if let objectBeside { contents.objects = [objectBeside] }
        contents.changeSets = (snapshotVersion + 1...max(snapshotVersion + 1, latest)).compactMap { saves[$0] }
        return contents
    }

    /// The saves after `known`, or (when a compaction folded some of them)
    /// the current snapshot.
    func changes(after known: Int64) -> ExternalChanges {
        guard known >= snapshotVersion else { return ExternalChanges(replacement: contents()) }
        return ExternalChanges(changeSets: (known + 1...max(known + 1, latest)).compactMap { saves[$0] })
    }

    func append(_ changeSet: StoreChangeSet) {
        saves[changeSet.version] = changeSet
        latest = changeSet.version
    }

    /// Every note as of the last save, in first-insertion order.
    func truth() -> [StoredRecord<Note>] {
        lock.lock()
        defer { lock.unlock() }
        return current()
    }

    private func current() -> [StoredRecord<Note>] {
        var byID: [Int: StoredRecord<Note>] = [:]
        for r in snapshot?.stored ?? [] { byID[r.record.id] = r }
        for version in (snapshotVersion + 1...max(snapshotVersion + 1, latest)) {
            guard let save = saves[version] else { continue }
            for object in save.deleted { if let note = object.record as? Note { byID[note.id] = nil } }
            for object in save.saved {
                if let note = object.record as? Note { byID[note.id] = StoredRecord(record: note, sequence: object.sequence, version: object.version) }
            }
        }
        return byID.values.sorted { $0.sequence < $1.sequence }
    }

    /// Folds the saves into a new snapshot.
    func compact() {
        lock.lock()
        defer { lock.unlock() }
        guard latest > snapshotVersion, let last = saves[latest] else { return }
        snapshot = ServedNotes(current(), indexes: ServedSnapshotTests.indexes, servesKinds: servesKinds, reads: reads)
        snapshotNextSequence = last.nextSequence
        snapshotVersion = latest
        saves = [:]
    }
}

/// A count of records read.
final class ReadCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
    func add(_ n: Int) {
        lock.lock()
        count += n
        lock.unlock()
    }
}

/// The persistence of one store over the database.
final class ServedPersistence: StorePersistence, @unchecked Sendable {
    let database: NoteDatabase
    private var known: Int64 = 0
    init(_ database: NoteDatabase) { self.database = database }

    func load(model: ObjectModel) throws(StoreError) -> StoreContents {
        try database.locked { () throws(StoreError) in
            known = database.latest
            return database.contents()
        }
    }

    func changesSinceLastRead() throws(StoreError) -> ExternalChanges {
        try database.locked { () throws(StoreError) in
            defer { known = database.latest }
            return database.changes(after: known)
        }
    }

    func commit(_ prepare: (ExternalChanges) throws(StoreError) -> StoreChangeSet?) throws(StoreError) {
        try database.locked { () throws(StoreError) in
            let changes = database.changes(after: known)
            known = database.latest
            guard let changeSet = try prepare(changes) else { return }
            database.append(changeSet)
            known = changeSet.version
        }
    }

    func compact() throws(StoreError) { database.compact() }
}

/// The notes of a snapshot, served; every record read is counted.
final class ServedNotes: StoreSnapshotEntity, @unchecked Sendable {
    let stored: [StoredRecord<Note>]
    let ordinals: [Int: Int]
    let indexes: [[String]]
    let orders: [[Int]]
    let kinds: [[StoreKeyKinds]]?
    let reads: ReadCount

    init(_ stored: [StoredRecord<Note>], indexes: [[String]], servesKinds: Bool, reads: ReadCount) {
        self.stored = stored
        self.indexes = indexes
        self.reads = reads
        kinds = servesKinds ? indexes.compactMap { try? EntityDescription.indexOrder($0, of: stored).keyKinds } : nil
        ordinals = Dictionary(uniqueKeysWithValues: stored.enumerated().map { ($1.record.id, $0) })
        let sequenceOrdinal = Dictionary(uniqueKeysWithValues: stored.enumerated().map { ($1.sequence, $0) })
        orders = indexes.map { keys in ServedSnapshotTests.ordered(stored, by: keys).compactMap { sequenceOrdinal[$0.sequence] } }
    }

    var count: Int { stored.count }

    func records<R: Record & Codable>(_ ordinals: Range<Int>, as type: R.Type) throws(StoreError) -> [StoredRecord<R>] where R.ID: Codable {
        reads.add(ordinals.count)
        guard let typed = Array(stored[ordinals]) as? [StoredRecord<R>] else { throw .corrupt(path: "test", reason: "not notes") }
        return typed
    }

    func ordinal<R: Record & Codable>(of id: R.ID, as type: R.Type) throws(StoreError) -> Int? where R.ID: Codable {
        (id as? Int).flatMap { ordinals[$0] }
    }

    func indexEntries<R: Record & Codable>(ofIndex k: Int, _ positions: Range<Int>, as type: R.Type) throws(StoreError) -> [StoreIndexEntry<R.ID>]
    where R.ID: Codable {
        orders[k][positions].compactMap { ordinal in (stored[ordinal].record.id as? R.ID).map { StoreIndexEntry(ordinal: ordinal, id: $0) } }
    }

    func keyKinds(ofIndex k: Int) -> [StoreKeyKinds]? { kinds?[k] }
}

/// A snapshot that answers wrongly, one way.
final class FaultyNotes: StoreSnapshotEntity, @unchecked Sendable {
    let base: ServedNotes
    let fault: NoteDatabase.Fault
    init(_ base: ServedNotes, fault: NoteDatabase.Fault) {
        self.base = base
        self.fault = fault
    }

    var count: Int { fault == .negativeCount ? -1 : base.count }
    var indexes: [[String]] { base.indexes }
    func keyKinds(ofIndex k: Int) -> [StoreKeyKinds]? { fault == .kindsMiscounted ? [] : base.keyKinds(ofIndex: k) }

    func records<R: Record & Codable>(_ ordinals: Range<Int>, as type: R.Type) throws(StoreError) -> [StoredRecord<R>] where R.ID: Codable {
        let records = try base.records(ordinals, as: type)
        return fault == .fewerRecords ? Array(records.dropLast()) : records
    }

    func ordinal<R: Record & Codable>(of id: R.ID, as type: R.Type) throws(StoreError) -> Int? where R.ID: Codable {
        try base.ordinal(of: id, as: type).map { fault == .wrongOrdinal ? $0 + 1 : $0 }
    }

    func indexEntries<R: Record & Codable>(ofIndex k: Int, _ positions: Range<Int>, as type: R.Type) throws(StoreError) -> [StoreIndexEntry<R.ID>]
    where R.ID: Codable {
        var entries = try base.indexEntries(ofIndex: k, positions, as: type)
        if fault == .fewerEntries { entries.removeLast() }
        if fault == .indexOutOfRange, !entries.isEmpty { entries[0].ordinal = base.count }
        return entries
    }
}


