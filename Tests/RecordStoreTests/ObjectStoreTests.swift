import Foundation
import InternalTableUtilities
import Testing
import FetchedResults
import RecordStore
import Records
import PredicateFormat
import TableTestSupport

@Suite struct ObjectStoreTests {
    /// Removed with everything in it when the test ends.
    let folder = TemporaryFolder("store-tests")

    func temporaryURL(_ name: String = "store.json") -> URL { folder.freshURL(name) }

    /// A store made from records is the store a context's inserts and one
    /// save make: the same fetches (ties in insertion order), version and
    /// sequences after; a repeated identity is an error.
    @Test func aStoreMadeFromRecordsIsTheSavedStore() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<20 {
            let notes = (0..<g.int(0...60)).map { id in Note(id: id * 7 % 61, group: ["a", "b", "c"][g.int(0..<3)], rank: g.int(0...5)) }
            let bulk = try ObjectStore(records: notes)
            let saved = ObjectStore(for: Note.self)
            let inserting = ObjectContext(store: saved)
            for note in notes { try inserting.insert(note) }
            _ = try inserting.save()
            #expect(bulk.count == saved.count && bulk.version == saved.version, "seed \(seed)")
            expectEqual(bulk.objects(Note.self), saved.objects(Note.self), "seed \(seed)")
            let request = FetchRequest<Note>(sortKeys: [SortKey("group"), SortKey("rank", ascending: false)])
            let (a, b) = (ObjectContext(store: bulk), ObjectContext(store: saved))
            try expectEqual(a.fetch(request), b.fetch(request), "seed \(seed)")
            try a.insert(Note(id: 100, group: "a", rank: 0))
            try b.insert(Note(id: 100, group: "a", rank: 0))
            _ = try a.save()
            _ = try b.save()
            try expectEqual(a.fetch(request), b.fetch(request), "seed \(seed)")
        }
        expectThrows(StoreError.duplicateIdentity("1")) {
            try ObjectStore(records: [Note(id: 1, group: "a", rank: 1), Note(id: 1, group: "b", rank: 2)])
        }
    }

    @Test func contextsInsertUpdateDeleteSaveAndRollBack() throws {
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store)
        try context.insert(Note(id: 1, group: "a", rank: 1))
        try context.insert(Note(id: 2, group: "a", rank: 2))
        #expect(context.hasChanges)
        expectEqual(store.count, 0)
        try expectEqual(context.object(Note.self, id: 1)?.rank, 1)
        try context.save()
        #expect(!context.hasChanges && store.count == 2)

        try context.update(Note(id: 1, group: "b", rank: 10))
        try context.delete(Note.self, id: 2)
        #expect(try context.object(Note.self, id: 2) == nil)
        #expect(store.object(Note.self, id: 2) != nil)
        context.rollback()
        #expect(!context.hasChanges)
        #expect(try context.object(Note.self, id: 1)?.rank == 1 && context.object(Note.self, id: 2) != nil)

        expectThrows(ContextError.alreadyExists(ObjectID(rootEntityName: "Note", key: 1))) { try context.insert(Note(id: 1, group: nil, rank: 0)) }
        expectThrows(ContextError.noSuchObject(ObjectID(rootEntityName: "Note", key: 9))) { try context.update(Note(id: 9, group: nil, rank: 0)) }
        expectThrows(ContextError.noSuchObject(ObjectID(rootEntityName: "Note", key: 9))) { try context.delete(Note.self, id: 9) }
        // Deleting a pending insert leaves nothing to save.
        try context.insert(Note(id: 3, group: nil, rank: 0))
        try context.delete(Note.self, id: 3)
        #expect(!context.hasChanges)
    }

    /// A context's pending changes are one value: after every step of a
    /// seeded run — inserts, updates, deletes (of pending inserts too),
    /// processing, saves (some refused by another context's save), rollbacks
    /// and merges — its invariants hold (`_checkInvariants()`), and what it
    /// sees is an independent model's: the store's records with its changes
    /// on top; a rollback or a save leaves nothing pending, a refused save
    /// leaves everything pending and the store as it was.
    @Test func aContextsPendingChangesMoveAsOne() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<30 {
            let store = ObjectStore(for: Note.self)
            let a = ObjectContext(store: store, name: "a"), b = ObjectContext(store: store, name: "b")
            var saved: [Int: Note] = [:]   // the store, as the model has it
            var view: [Int: Note] = [:]    // what `a` sees
            let all = FetchRequest<Note>(sortKeys: [SortKey("rank")])
            func check(_ step: String) throws {
                a._checkInvariants()
                store._checkInvariants()
                let seen = Dictionary(uniqueKeysWithValues: try a.fetch(all).map { ($0.id, $0) })
                expectEqual(seen, view, "seed \(seed), after \(step)")
                if !a.hasChanges { expectEqual(view, saved, "seed \(seed), after \(step): nothing pending, yet not the store") }
            }
            for _ in 0..<60 {
                let id = g.int(0..<12)
                switch g.int(0..<9) {
                case 0, 1:
                    let note = Note(id: id, group: nil, rank: g.int(0...9))
                    if view[id] == nil {
                        try a.insert(note)
                        view[id] = note
                    } else {
                        expectThrows(ContextError.alreadyExists(ObjectID(rootEntityName: "Note", key: .int(id)))) { try a.insert(note) }
                    }
                    try check("insert \(id)")
                case 2, 3:
                    var note = view[id] ?? Note(id: id, group: nil, rank: 0)
                    note.version += 1
                    if view[id] != nil {
                        try a.update(note)
                        view[id] = note
                    } else {
                        expectThrows(ContextError.noSuchObject(ObjectID(rootEntityName: "Note", key: .int(id)))) { try a.update(note) }
                    }
                    try check("update \(id)")
                case 4:
                    if view[id] != nil {
                        try a.delete(Note.self, id: id)
                        view[id] = nil
                    } else {
                        expectThrows(ContextError.noSuchObject(ObjectID(rootEntityName: "Note", key: .int(id)))) { try a.delete(Note.self, id: id) }
                    }
                    try check("delete \(id)")
                case 5:
                    a.processPendingChanges()
                    try check("processing")
                case 6:
                    do {
                        try a.save()
                        saved = view
                        #expect(!a.hasChanges, "seed \(seed)")
                    } catch {
                        #expect(a.hasChanges, "seed \(seed): a refused save keeps the changes")
                    }
                    expectEqual(Dictionary(uniqueKeysWithValues: store.objects(Note.self).map { ($0.id, $0) }), saved, "seed \(seed), after a save")
                    try check("save")
                case 7:
                    a.rollback()
                    view = saved
                    #expect(!a.hasChanges && a.insertedObjects.isEmpty && a.updatedObjects.isEmpty && a.deletedObjectIDs.isEmpty, "seed \(seed)")
                    try check("rollback")
                default:
                    // Another context saves (an update of a saved record, or
                    // an insert of its own identities: `a` would see its pending
                    // insert and the store's record of one identity both);
                    // `a` merges it half the time.
                    if let note = saved[id] {
                        try b.update(Note(id: id, group: "b", rank: note.rank, version: note.version + 100))
                    } else if try b.object(Note.self, id: 100 + id) == nil {
                        try b.insert(Note(id: 100 + id, group: "b", rank: 5))
                    }
                    guard let didSave = try? b.save() else {
                        b.rollback()
                        continue
                    }
                    saved = Dictionary(uniqueKeysWithValues: store.objects(Note.self).map { ($0.id, $0) })
                    if g.chance(0.5) {
                        a.mergeChanges(fromContextDidSave: didSave)
                    }
                    // The merge is tested on its own: the model takes what `a` sees.
                    view = Dictionary(uniqueKeysWithValues: try a.fetch(all).map { ($0.id, $0) })
                    try check("another context's save")
                }
            }
        }
    }

    @Test func savesCollideWithClearErrorsAndChangeNothing() throws {
        let store = ObjectStore(for: Note.self)
        let a = ObjectContext(store: store, name: "a"), b = ObjectContext(store: store, name: "b")
        try a.insert(Note(id: 1, group: nil, rank: 1))
        try b.insert(Note(id: 1, group: nil, rank: 2))
        try a.save()
        expectThrows(StoreError.duplicateIdentity("1")) { try b.save() }
        #expect(b.hasChanges && store.object(Note.self, id: 1)?.rank == 1)

        let c = ObjectContext(store: store)
        try c.update(Note(id: 1, group: nil, rank: 5))
        try a.delete(Note.self, id: 1)
        try a.save()
        do {
            try c.save()
            Issue.record("saved an update of a deleted object")
        } catch {
            expectEqual(error.description, "the save conflicts with changes in the store since this context read its records (1 conflict): identity 1 was updated from version 1, but the store deleted it")
        }
        expectEqual(store.count, 0)
    }

    @Test func savesArePostedAndStreamed() async throws {
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store, name: "writer")
        let stream = store.didSaveNotifications()
        // The identities each notification carries (`ObjectID`s): inserted, updated, deleted.
        let received = _Lock<[[[Int]]]>([])
        let observer = NotificationCenter.default.addObserver(forName: .objectContextDidSave, object: context, queue: nil) { note in
            let ids = [ObjectContext.insertedKey, ObjectContext.updatedKey, ObjectContext.deletedKey].map { key in
                (note.userInfo?[key] as? [AnyHashable])?.compactMap { id -> Int? in
                    guard let id = id as? ObjectID, id.rootEntityName == "Note", case .int(let value) = id.key else { return nil }
                    return value
                } ?? []
            }
            received.withLock { $0.append(ids) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try context.insert(Note(id: 1, group: nil, rank: 1))
        try context.insert(Note(id: 2, group: nil, rank: 1))
        try context.save()
        try context.update(Note(id: 1, group: nil, rank: 2))
        try context.delete(Note.self, id: 2)
        try context.save()

        let notes = received.withLock { $0 }
        expectEqual(notes, [[[1, 2], [], []], [[], [1], [2]]])
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next(), second = await iterator.next()
        #expect(first?.insertedObjects(Note.self).map(\.id) == [1, 2] && first?.contextName == "writer")
        #expect(second?.updatedObjects(Note.self).map(\.id) == [1] && second?.deletedObjects(Note.self).map(\.id) == [2])
        expectEqual(second.map { $0.storeVersion > first!.storeVersion }, true)
    }

    @Test func aFileRoundTripsExactly() throws {
        let url = temporaryURL()
        let strange = "Ünïcödé 東京 👍🏽 e\u{301} \"quotes\" \\ \n tab\t"
        let dates = [Date(timeIntervalSinceReferenceDate: 0.1 + 0.2), Date(timeIntervalSince1970: -1e9 + 0.000123), Date.distantFuture]
        do {
            let store = try ObjectStore(for: Note.self, fileURL: url)
            let context = ObjectContext(store: store)
            for (k, date) in dates.enumerated() {
                try context.insert(Note(id: k, group: k == 0 ? nil : strange, rank: -k, title: strange, created: date, tags: [strange, ""]))
            }
            try context.save()
            try context.delete(Note.self, id: 1)
            try context.insert(Note(id: 7, group: "later", rank: 0))
            try context.save()
        }
        let reopened = try ObjectStore(for: Note.self, fileURL: url)
        let notes = reopened.objects(Note.self)
        expectEqual(notes.map(\.id), [0, 2, 7])
        #expect(notes[0].created == dates[0] && notes[1].created == dates[2])
        #expect(notes[0].group == nil && notes[1].group == strange && notes[1].tags == [strange, ""])
        // First-insertion order survives reopening (and ties sort by it).
        let context = ObjectContext(store: reopened)
        try expectEqual(context.fetch(FetchRequest<Note>(sortKeys: [SortKey("version")])).map(\.id), [0, 2, 7])
        // No temporary files are left next to the store.
        let files = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        expectEqual(files, ["store.json"])
    }

    @Test func aDamagedFileIsAnErrorAndStaysUntouched() throws {
        let cases: [(String, String)] = [
            ("{\"format\": \"HeadlessTable.ObjectStore\", \"version\": 1, \"nextSequence\": 1, \"records\": [", "not valid JSON"),
            ("[1, 2, 3]", "array"),
            ("{\"format\": \"Something else\", \"version\": 1, \"nextSequence\": 1, \"records\": []}", "its format is \"Something else\""),
            ("{\"format\": \"HeadlessTable.ObjectStore\", \"version\": 9, \"nextSequence\": 1, \"records\": []}", "version 9 is not supported"),
            ("{\"format\": \"HeadlessTable.ObjectStore\", \"version\": 1, \"nextSequence\": 1, \"records\": [{\"sequence\": 1}]}", "missing \"record\""),
            // No sequence number left for the next save.
            ("{\"format\": \"HeadlessTable.ObjectStore\", \"version\": 1, \"nextSequence\": 1, \"records\": [{\"sequence\": \(Int64.max), "
                + "\"record\": {\"id\": 1, \"rank\": 0, \"title\": \"x\", \"version\": 0, \"created\": 0, \"tags\": []}}]}", "the largest there is"),
        ]
        for (text, reason) in cases {
            let url = temporaryURL()
            try Data(text.utf8).write(to: url)
            do {
                _ = try ObjectStore(for: Note.self, fileURL: url)
                Issue.record("opened a damaged store: \(text)")
            } catch {
                guard case .corrupt(let path, let detail) = error else { Issue.record("\(error)"); continue }
                expectEqual(path, url.path)
                #expect(detail.contains(reason), "\(detail)")
                #expect(error.description.hasSuffix("; it was left untouched"))
            }
            try expectEqual(Data(contentsOf: url), Data(text.utf8))
        }
    }

    @Test func anUnreadableOrUnwritableStoreIsAnError() throws {
        let directory = temporaryURL("folder")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        expectThrows(StoreError.unreadable(path: directory.path, reason: "it is a folder")) { try ObjectStore(for: Note.self, fileURL: directory) }
        // A store whose folder disappears cannot save; memory stays as it was.
        let url = temporaryURL()
        let store = try ObjectStore(for: Note.self, fileURL: url)
        let context = ObjectContext(store: store)
        try context.insert(Note(id: 1, group: nil, rank: 0))
        try context.save()
        try FileManager.default.removeItem(at: url.deletingLastPathComponent())
        try context.insert(Note(id: 2, group: nil, rank: 0))
        expectThrows(StoreError.self) { try context.save() }
        #expect(store.count == 1 && context.hasChanges)
    }

    /// Several contexts on several threads insert, update and save into one
    /// store at once (run with --sanitize=thread too).
    @Test func contextsOnManyThreadsShareAStore() async throws {
        let store = ObjectStore(for: Note.self)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    let context = ObjectContext(store: store, name: "worker \(worker)")
                    for round in 0..<50 {
                        let id = worker * 1_000 + round
                        try? context.insert(Note(id: id, group: "\(worker)", rank: round))
                        if round % 3 == 0, round > 0 { try? context.update(Note(id: id - 1, group: "\(worker)", rank: -round)) }
                        if round % 7 == 0, round > 0 { try? context.delete(Note.self, id: id - 2) }
                        _ = try? context.save()
                        _ = try? context.fetch(FetchRequest<Note>(sortKeys: [SortKey("rank")]))
                    }
                }
            }
        }
        // Each worker: 50 inserts, minus the deletes of rounds 7, 14, … 49.
        expectEqual(store.count, 4 * (50 - 7))
        let context = ObjectContext(store: store)
        try expectEqual(context.fetch(FetchRequest<Note>()).count, 4 * 43)
    }
}
