import DirectoryStore
import FetchedResults
import Foundation
import Records
import TableDiff
import TableTestSupport
import Testing

/// The example adapter keeps the `StorePersistence` contract: saves whole,
/// other stores' saves picked up (and conflicts found) before writing, a save
/// cut short finished on opening.
@Suite struct DirectoryPersistenceTests {
    let temporary = TemporaryFolder("directory-tests")
    func folder() -> URL { temporary.url("store-\(UUID().uuidString)") }

    @Test func randomSavesReopenExactly() throws {
        let url = folder()
        let store = try ObjectStore(for: Note.self, persistence: DirectoryPersistence(folder: url))
        let context = ObjectContext(store: store)
        var g = SeededGenerator(seed: 6)
        var expected: [Int: Note] = [:]
        for round in 0..<60 {
            for _ in 0..<Int.random(in: 1...4, using: &g) {
                let id = Int.random(in: 0..<20, using: &g)
                let note = Note(id: id, group: "g\(round % 3)", rank: round, title: "id \(id) round \(round) é")
                if try context.object(Note.self, id: id) == nil {
                    try context.insert(note)
                    expected[id] = note
                } else if Bool.random(using: &g) {
                    try context.update(note)
                    expected[id] = note
                } else {
                    try context.delete(Note.self, id: id)
                    expected[id] = nil
                }
            }
            try context.save()
            if g.chance(0.1) { try store.compact() }   // the saves so far into a snapshot served as read
        }
        let reopened = try ObjectStore(for: Note.self, persistence: DirectoryPersistence(folder: url))
        expectEqual(Dictionary(uniqueKeysWithValues: reopened.objects(Note.self).map { ($0.id, $0) }), expected)
        expectEqual(reopened.version, 60)
        expectEqual(reopened.objects(Note.self).map(\.id), store.objects(Note.self).map(\.id))   // first-insertion order kept
    }

    @Test func twoStoresOnOneFolderSeeEachOthersSavesAndConflicts() throws {
        let url = folder()
        let a = try ObjectStore(for: Note.self, persistence: DirectoryPersistence(folder: url))
        let b = try ObjectStore(for: Note.self, persistence: DirectoryPersistence(folder: url))
        let ca = ObjectContext(store: a), cb = ObjectContext(store: b)
        try ca.insert(Note(id: 1, group: nil, rank: 1))
        try ca.save()
        try cb.insert(Note(id: 2, group: nil, rank: 2))
        try cb.save()
        expectEqual(b.objects(Note.self).map(\.id), [1, 2])
        // b's context never read record 1: updating it is a conflict, as on the journal file.
        try cb.update(Note(id: 1, group: nil, rank: 5))
        expectThrows(StoreError.mergeConflicts([MergeConflict(objectID: "1", change: .update, contextVersion: nil, storeVersion: 1)])) { try cb.save() }
        cb.mergePolicy = .overwrite
        try cb.save()
        try a.mergeExternalChanges()
        #expect(a.object(Note.self, id: 1)?.rank == 5 && a.version == 3)
    }

    /// A save is one file, written whole: what a crash leaves beside it (a
    /// file not named for a version) is not read; a damaged save is an error
    /// that names it, and the folder is left as it was.
    @Test func aSaveIsOneFileAndADamagedOneIsAnError() throws {
        let url = folder()
        do {
            let store = try ObjectStore(for: Note.self, persistence: DirectoryPersistence(folder: url))
            let context = ObjectContext(store: store)
            try context.insert(Note(id: 1, group: nil, rank: 1))
            try context.save()
        }
        let saves = url.appendingPathComponent("saves")
        try Data("{\"version\": 2, \"nextSeq".utf8).write(to: saves.appendingPathComponent(".2.json-a1b2c3"))
        let store = try ObjectStore(for: Note.self, persistence: DirectoryPersistence(folder: url))
        #expect(store.objects(Note.self).map(\.id) == [1] && store.version == 1)
        try Data("{\"version\": 2, \"nextSeq".utf8).write(to: saves.appendingPathComponent("2.json"))
        do {
            _ = try ObjectStore(for: Note.self, persistence: DirectoryPersistence(folder: url))
            Issue.record("a damaged save opened")
        } catch {
            guard case .corrupt(let path, _) = error else { Issue.record("\(error)"); return }
            #expect(path.hasSuffix("saves/2.json"), "\(path)")
        }
        #expect(FileManager.default.fileExists(atPath: saves.appendingPathComponent("2.json").path))
    }

    /// After a compaction, a reopened store reads the snapshot folder as rows
    /// are shown: a controller sorted by a declared index reads its order
    /// from the index's files and no record; the rows shown read their
    /// batch; every answer is the one a store that loads everything gives.
    @Test func aCompactedFolderIsReadAsRowsAreShown() throws {
        let url = folder()
        let model = try ObjectModel(.entity(Note.self, indexes: [["rank"], ["group", "rank"]]))
        var g = SeededGenerator(seed: 11)
        let notes = (0..<300).map { Note(id: $0, group: g.chance(0.2) ? nil : "g\(g.int(0..<4))", rank: g.int(0..<50), title: "t\($0)") }
        do {
            let store = try ObjectStore(model: model, persistence: DirectoryPersistence(folder: url))
            let context = ObjectContext(store: store)
            for note in notes { try context.insert(note) }
            try context.save()
            try context.update(Note(id: 7, group: "g9", rank: 3, title: "updated"))
            try context.delete(Note.self, id: 8)
            try context.save()
            try store.compact()
        }
        let persistence = DirectoryPersistence(folder: url)
        let store = try ObjectStore(model: model, persistence: persistence)
        var expected = notes
        expected[7] = Note(id: 7, group: "g9", rank: 3, title: "updated")
        expected.remove(at: 8)
        expectEqual(persistence.recordFilesRead, 0)
        let context = ObjectContext(store: store)
        for keys in [["rank"], ["group", "rank"]] {
            let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: keys.map { SortKey($0) }, fetchBatchSize: 20), context: context)
            let before = persistence.recordFilesRead
            try controller.performFetch()
            #expect(controller._readFromIndex, "\(keys)")
            expectEqual(persistence.recordFilesRead, before, "\(keys): the fetch read no record")
            // nil first, then the groups; ties by first insertion.
            func key(_ k: Int) -> (Int, String, Int, Int) {
                let note = expected[k], group = keys.count == 2 ? note.group : nil
                return (group == nil ? 0 : 1, group ?? "", note.rank, k)
            }
            let order = expected.indices.sorted { key($0) < key($1) }.map { expected[$0] }
            let shown = try (0..<20).map { try controller.object(at: TablePath(row: $0, section: 0)) }
            expectEqual(shown, Array(order.prefix(20)), "\(keys)")
            #expect(persistence.recordFilesRead - before <= 40, "\(keys): \(persistence.recordFilesRead - before) record files read for 20 rows")
            try expectEqual(controller.snapshot().itemIdentifiers, order.map(\.id), "\(keys)")
        }
        // A predicate on the index's key: the range it bounds, found by
        // binary search (a record read a step), then no other record.
        var ranged = FetchRequest<Note>(sortKeys: [SortKey("rank")], fetchBatchSize: 20)
        ranged.predicate = try RecordPredicate(format: "rank >= 45")
        let controller = FetchedResultsController(fetchRequest: ranged, context: context)
        let before = persistence.recordFilesRead
        try controller.performFetch()
        #expect(controller._indexPositionsRead != nil)
        #expect(persistence.recordFilesRead - before <= 24, "\(persistence.recordFilesRead - before) record files read for a range")
        let matching = expected.indices.filter { expected[$0].rank >= 45 }.sorted { (expected[$0].rank, $0) < (expected[$1].rank, $1) }
        try expectEqual(controller.snapshot().itemIdentifiers, matching.map { expected[$0].id })
        expectEqual(store.object(Note.self, id: 7), expected[7])
        #expect(store.object(Note.self, id: 8) == nil)
        expectEqual(Set(store.objects(Note.self)), Set(expected))
    }

    /// A store whose save files another store's compaction removed is handed
    /// the new snapshot, and answers as that store.
    @Test func aStoreBehindAnotherStoresCompactionIsHandedTheNewSnapshot() throws {
        let url = folder()
        let model = try ObjectModel(.entity(Note.self, indexes: [["rank"]]))
        let a = try ObjectStore(model: model, persistence: DirectoryPersistence(folder: url))
        let b = try ObjectStore(model: model, persistence: DirectoryPersistence(folder: url))
        let ca = ObjectContext(store: a), cb = ObjectContext(store: b)
        for id in 0..<30 { try ca.insert(Note(id: id, group: nil, rank: id % 7)) }
        try ca.save()
        try a.compact()
        try b.mergeExternalChanges()
        expectEqual(Set(b.objects(Note.self)), Set(a.objects(Note.self)))
        #expect(try cb.object(Note.self, id: 3) != nil && cb.object(Note.self, id: 4) != nil)   // read: not a conflict
        try cb.delete(Note.self, id: 3)
        try cb.update(Note(id: 4, group: "x", rank: 100))
        try cb.save()
        try b.compact()   // removes save 2, which a has not read
        try a.mergeExternalChanges()
        expectEqual(Set(a.objects(Note.self)), Set(b.objects(Note.self)))
        expectEqual(a.version, b.version)
        #expect(a.object(Note.self, id: 3) == nil && a.object(Note.self, id: 4)?.rank == 100)
    }
}
