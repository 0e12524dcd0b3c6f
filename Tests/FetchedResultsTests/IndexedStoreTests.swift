import Foundation
import Testing
import FetchedResults
import Records
import PredicateFormat
import TableDiff
import TableTestSupport

/// The store file of format 2: records read as they are needed, indexes
/// declared in the model kept in the file, fetches read from them, and the
/// lean results of a controller that follows changes.
@Suite struct IndexedStoreTests {
    static let model = try! ObjectModel(.entity(Note.self, indexes: [["rank"], ["group", "rank"], ["title"]]))

    static func notes(_ count: Int, seed: UInt64) -> [Note] {
        var g = SeededGenerator(seed: seed)
        return (0..<count).map { id in
            Note(id: id, group: g.chance(0.2) ? nil : "g\(g.int(0..<5))", rank: g.int(0..<(count / 3 + 1)), title: "t\(g.int(0..<1000))")
        }
    }

    /// A compacted file store of `notes`, reopened (so that it reads its snapshot).
    static func compactedStore(_ notes: [Note], at url: URL) throws -> ObjectStore {
        try Note.compactedStore(notes, model: model, at: url)
    }

    func request(_ keys: [String], batch: Int = 7, predicate: String? = nil) throws -> FetchRequest<Note> {
        var request = FetchRequest<Note>(sortKeys: keys.map { SortKey($0) })
        request.fetchBatchSize = batch
        if let predicate { request.predicate = try RecordPredicate(format: predicate) }
        return request
    }

    @Test func aModelDeclaresIndexesOnKeysItReads() throws {
        expectEqual(Self.model.entities[0].indexes, [["rank"], ["group", "rank"], ["title"]])
        expectThrows(ObjectModelError.self) { try ObjectModel(.entity(Note.self, indexes: [["nope"]])) }
        expectThrows(ObjectModelError.self) { try ObjectModel(.entity(Note.self, indexes: [[]])) }
        expectThrows(ObjectModelError.self) { try ObjectModel(.entity(Note.self, indexes: [["rank", "rank"]])) }
        expectThrows(ObjectModelError.self) { try ObjectModel(.entity(Note.self, indexes: [["rank"], ["rank"]])) }
    }

    /// A reopened store answers as the store that wrote it: every record,
    /// by identity and in a scan; a fetch an index covers is read from it,
    /// in the same order as a fetch that sorts.
    @Test func aReopenedStoreReadsWhatWasWritten() throws {
        let folder = TemporaryFolder()
        let notes = Self.notes(TestScale.cases(1_500, full: 12_000), seed: 3)
        let store = try Self.compactedStore(notes, at: folder.url("notes.htstore"))
        expectEqual(store.count, notes.count)
        for note in notes.prefix(200) { expectEqual(store.object(Note.self, id: note.id), note) }
        #expect(store.object(Note.self, id: -1) == nil)
        expectEqual(store.objects(Note.self), notes)
        let context = ObjectContext(store: store)
        for keys in [["rank"], ["group", "rank"], ["title"], ["title", "rank"]] {
            let controller = FetchedResultsController(fetchRequest: try request(keys), context: context)
            try controller.performFetch()
            expectEqual(controller._readFromIndex, (keys != ["title", "rank"]), "\(keys)")
            let expected = try context.fetch(FetchRequest<Note>(sortKeys: keys.map { SortKey($0) }))
            try expectEqual(controller.snapshot().itemIdentifiers, expected.map(\.id), "\(keys)")
            try expectEqual(controller.object(at: TablePath(row: 17, section: 0)), expected[17])
            expectEqual(controller.indexPath(forObjectWithID: expected[1234].id), TablePath(row: 1234, section: 0))
            controller._checkInvariants()
        }
        // A predicate, an offset, a limit, sections.
        var filtered = try request(["rank"], predicate: "group == 'g1'")
        filtered.fetchOffset = 3
        filtered.fetchLimit = 50
        let controller = FetchedResultsController(fetchRequest: filtered, context: context)
        try controller.performFetch()
        #expect(controller._readFromIndex)
        try expectEqual(controller.snapshot().itemIdentifiers, context.fetch(filtered).map(\.id))
        let sectioned = FetchedResultsController(fetchRequest: try request(["group", "rank"]), context: context, sectionNameKeyPath: "group")
        try sectioned.performFetch()
        #expect(sectioned._readFromIndex)
        expectEqual(sectioned.sections?.map(\.name), ["", "g0", "g1", "g2", "g3", "g4"])
        sectioned._checkInvariants()
    }

    /// A fetch read from an index reads no record, even in a debug build:
    /// it checks the controller as a whole (which reads every row) after a
    /// fetch of up to 10,000 rows only — an app's debug build over a million
    /// rows waited minutes for its first frame.
    @Test func aFetchOfManyRowsFromAnIndexReadsNoRecord() throws {
        let folder = TemporaryFolder()
        let url = folder.url("notes.htstore")
        _ = try Self.compactedStore(Self.notes(10_001, seed: 7), at: url)
        let store = try ObjectStore(model: Self.model, fileURL: url)
        let controller = FetchedResultsController(fetchRequest: try request(["rank"], batch: 20), context: ObjectContext(store: store))
        try controller.performFetch()
        #expect(controller._readFromIndex)
        expectEqual(store._cachedRecordCount(entity: "Note"), 0, "records read by the fetch")
        expectEqual(controller.numberOfObjects(inSection: 0), 10_001)
        // The count counts: a row shown reads its record (and its batch's).
        _ = try controller.object(at: TablePath(row: 5_000, section: 0))
        #expect(store._cachedRecordCount(entity: "Note") > 0)
    }

    /// Random saves from two contexts into a file store with indexes,
    /// compactions and reopenings: after every change, a controller read from
    /// an index shows what a fresh sorting fetch shows, its delegate's calls
    /// replay the change, and a reopened store holds every save.
    @Test func controllersReadFromAnIndexFollowEveryChange() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let folder = TemporaryFolder()
        let url = folder.url("notes.htstore")
        var store = try Self.compactedStore(Self.notes(300, seed: seed), at: url)
        var nextID = 300
        for round in 0..<TestScale.cases(3, full: 20) {
            let view = ObjectContext(store: store), editor = ObjectContext(store: store)
            let keys = [["rank"], ["group", "rank"], ["title"]][g.int(0..<3)]
            let sectioned = keys.first == "group"
            let controller = FetchedResultsController(
                fetchRequest: try request(keys, batch: g.int(1...20), predicate: g.chance(0.3) ? "rank >= 20" : nil),
                context: view, sectionNameKeyPath: sectioned ? "group" : nil)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller._readFromIndex, "seed \(seed), round \(round)")
            for step in 0..<TestScale.cases(12, full: 50) {
                let before = controller.tableSections
                let useView = g.chance(0.4)
                let context = useView ? view : editor
                for _ in 0..<g.int(1...4) {
                    let existing = try context.fetch(FetchRequest<Note>(sortKeys: [SortKey("rank")]))
                    switch g.int(0..<3) {
                    case 0:
                        try context.insert(Note(id: nextID, group: g.chance(0.2) ? nil : "g\(g.int(0..<5))", rank: g.int(0..<120), title: "t\(g.int(0..<1000))"))
                        nextID += 1
                    case 1 where !existing.isEmpty:
                        var note = existing[g.int(0..<existing.count)]
                        note.rank = g.int(0..<120)
                        if g.chance(0.3) { note.title = "t\(g.int(0..<1000))" }
                        if g.chance(0.2) { note.group = "g\(g.int(0..<5))" }
                        try context.update(note)
                    case 2 where !existing.isEmpty:
                        try context.delete(Note.self, id: existing[g.int(0..<existing.count)].id)
                    default: break
                    }
                }
                if useView && g.chance(0.5) {
                    view.processPendingChanges()
                } else {
                    // A save can collide with the other context's (a change of a
                    // record changed or deleted there): the documented error, then a rollback.
                    do {
                        let saved = try context.save()
                        if !useView { view.mergeChanges(fromContextDidSave: saved) }
                    } catch {
                        guard case .mergeConflicts = error else { throw error }
                        context.rollback()
                    }
                }
                let events = recorder.take()
                let expected = try view.fetch(controller.fetchRequest)
                try expectEqual(controller.snapshot().itemIdentifiers, expected.map(\.id), "seed \(seed), round \(round), step \(step)")
                if !events.isEmpty {
                    expectEqual(replayCoreData(events, on: before), controller.tableSections, "seed \(seed), round \(round), step \(step)")
                }
                controller._checkInvariants()
            }
            if view.hasChanges {
                do { try view.save() } catch {
                    guard case .mergeConflicts = error else { throw error }
                    view.rollback()
                }
            }
            if g.chance(0.5) { try store.compact() }
            let written = store.objects(Note.self)
            store = try ObjectStore(model: Self.model, fileURL: url)
            expectEqual(store.objects(Note.self), written, "seed \(seed), round \(round): reopened")
            store._checkInvariants()
        }
    }

    /// A controller read from an index follows another store's saves on the
    /// same file — and its compactions, which hand this store a new
    /// snapshot and forget the versions its results were placed by: then it
    /// fetches again, and reports what changed.
    @Test func aControllerReadFromAnIndexFollowsAnotherStoresCompactions() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let folder = TemporaryFolder()
        let url = folder.url("notes.htstore")
        _ = try Self.compactedStore(Self.notes(300, seed: seed), at: url)
        let writer = try ObjectStore(model: Self.model, fileURL: url), reader = try ObjectStore(model: Self.model, fileURL: url)
        let editor = ObjectContext(store: writer), view = ObjectContext(store: reader)
        let controller = FetchedResultsController(fetchRequest: try request(["rank"], batch: g.int(1...20)), context: view)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(controller._readFromIndex)
        var nextID = 300, compactions = 0
        for step in 0..<TestScale.cases(15, full: 60) {
            let before = controller.tableSections
            try writer.mergeExternalChanges()
            let existing = writer.objects(Note.self).map(\.id)
            for _ in 0..<g.int(1...5) {
                let id = existing[g.int(0..<existing.count)]
                guard try editor.object(Note.self, id: id) != nil else { continue }
                switch g.int(0..<3) {
                case 0:
                    try editor.insert(Note(id: nextID, group: "g\(g.int(0..<5))", rank: g.int(0..<120)))
                    nextID += 1
                case 1: try editor.update(Note(id: id, group: "g1", rank: g.int(0..<120), title: "s\(step)"))
                default: try editor.delete(Note.self, id: id)
                }
            }
            try editor.save()
            if g.chance(0.4) {
                try writer.compact()
                compactions += 1
            }
            for save in try reader.mergeExternalChanges() { view.mergeChanges(fromContextDidSave: save) }
            let events = recorder.take()
            try expectEqual(controller.snapshot().itemIdentifiers, try view.fetch(controller.fetchRequest).map(\.id), "seed \(seed), step \(step)")
            if !events.isEmpty { expectEqual(replayCoreData(events, on: before), controller.tableSections, "seed \(seed), step \(step)") }
            controller._checkInvariants()
        }
        #expect(compactions > 0, "seed \(seed)")
    }

    /// A predicate that begins by comparing an index's first key with
    /// constants reads only the index's entries in that range (found by
    /// binary search; each tested only when the comparisons are not the
    /// whole predicate): against a fetch that tests every record, for random
    /// comparisons of numbers, strings and nil (either side, `BETWEEN`, two
    /// of one key, the second key of an index within one value of the
    /// first, options, `!=`, other keys first), with records saved since the
    /// snapshot and unsaved ones among them.
    @Test func aPredicateOnAnIndexedKeyReadsItsRange() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let folder = TemporaryFolder()
        let notes = Self.notes(TestScale.cases(300, full: 1_000), seed: seed)
        let store = try Self.compactedStore(notes, at: folder.url("notes.htstore"))
        let context = ObjectContext(store: store)
        var withNil = false, last = ""
        func constant(_ key: String) -> String {
            last = constantOf(key)
            return last
        }
        func constantOf(_ key: String) -> String {
            switch key {
            case "rank": return g.chance(0.2) ? "\(g.int(-5...(notes.count / 3 + 5))).5" : "\(g.int(-5...(notes.count / 3 + 5)))"
            case "group":
                if g.chance(0.1) {
                    withNil = true
                    return "nil"
                }
                return "'g\(g.int(0...5))'"
            default: return g.chance(0.1) ? "''" : "'t\(g.int(0...1000))'"
            }
        }
        var ranged = 0, narrow = 0
        for round in 0..<TestScale.cases(60, full: 200) {
            if round % 25 == 24 {
                // Saves since the snapshot, and unsaved changes, now and then.
                for _ in 0..<g.int(1...6) {
                    let id = g.int(0..<(notes.count + 50))
                    if g.chance(0.3) {
                        if try context.object(Note.self, id: id) != nil { try context.delete(Note.self, id: id) }
                    } else {
                        let note = Note(id: id, group: g.chance(0.2) ? nil : "g\(g.int(0..<5))", rank: g.int(0...(notes.count / 3)), title: "t\(g.int(0..<1000))")
                        if try context.object(Note.self, id: id) != nil { try context.update(note) } else { try context.insert(note) }
                    }
                }
                if g.chance(0.5) { try context.save() }
            }
            let keys = [["rank"], ["group", "rank"], ["title"]][g.int(0..<3)]
            let key = keys[0]
            let op = ["==", "<", "<=", ">", ">=", "!=", "BETWEEN", "==[c]"][g.int(0..<8)]
            withNil = false
            var format: String
            if op == "BETWEEN" {
                format = "\(key) BETWEEN {\(constant(key)), \(constant(key))}"
            } else if g.chance(0.2) && op != "==[c]" {
                format = "\(constant(key)) \(op) \(key)"
            } else {
                format = "\(key) \(op) \(constant(key))"
            }
            // Whether the predicate begins with a comparison a range can take.
            var rangeable = !["!=", "==[c]"].contains(op) && !withNil
            switch keys.count == 2 && g.chance(0.3) ? 3 : g.int(0..<6) {
            case 0: format += " AND title BEGINSWITH 't1'"
            case 1:
                // A range of rank alone, or (sorted by group, rank) of both keys.
                format = "rank > 10 AND " + format
                rangeable = key == "rank" || (keys == ["group", "rank"] && rangeable)
            case 2:   // one range of both (often of one constant: `rank <= 5 AND rank < 5`)
                format += " AND \(key) \(["<", "<=", ">", ">=", "=="][g.int(0..<5)]) \(g.chance(0.5) ? last : constant(key))"
            case 3 where keys.count == 2:   // the second key's range within one value of the first
                let second = ["<", "<=", ">", ">=", "=="][g.int(0..<5)]
                format = "group == 'g\(g.int(0..<5))' AND rank \(second) \(constant("rank"))" + (g.chance(0.3) ? " AND rank != 7" : "")
                rangeable = true
            default: break
            }
            let request = try request(keys, batch: g.int(1...30), predicate: format)
            let controller = FetchedResultsController(fetchRequest: request, context: context)
            let note = "seed \(seed), round \(round): \(format) sorted by \(keys)"
            do {
                try controller.performFetch()
            } catch {
                // A fetch that tests every record fails alike.
                expectThrows(FetchError.self, "\(note): \(error)") { try context.fetch(request) }
                continue
            }
            #expect(controller._readFromIndex, "\(note)")
            let expected = try context.fetch(request).map(\.id)
            try expectEqual(controller.snapshot().itemIdentifiers, expected, "\(note)")
            expectEqual((controller._indexPositionsRead != nil), rangeable, "\(note): \(String(describing: controller._indexPositionsRead))")
            if let positions = controller._indexPositionsRead {
                ranged += 1
                if positions.count < notes.count / 2 { narrow += 1 }
            }
        }
        #expect(ranged > 10 && narrow > 5, "seed \(seed): ranges read \(ranged), narrow ones \(narrow)")
    }

    /// An index whose first key holds values of another kind than the
    /// constant, or a NaN, is read whole, each record tested: a range would
    /// skip records a test of each finds (or fails on).
    @Test func anIndexOfMixedKindsOrNaNIsReadWhole() throws {
        struct Reading: Record, Codable, Hashable {
            var id: Int
            var value: RecordValue
        }
        let model = try ObjectModel(.entity(Reading.self, indexes: [["value"]]))
        let folder = TemporaryFolder()
        let cases: [(String, [RecordValue], String, Bool)] = [
            ("numbers", [.int(1), .double(2.5), .int(3), .null, .int(7)], "value >= 2", true),
            ("a NaN", [.int(1), .double(.nan), .int(3), .int(7)], "value < 5", false),
            ("a string among numbers", [.int(1), .string("x"), .int(3)], "value >= 2", false),
            ("a bool among numbers", [.int(1), .bool(true), .int(3)], "value >= 1", false),
            ("strings", [.string("b"), .string("a"), .null, .string("c")], "value < 'c'", true),
            ("a date against a number", [.date(Date(timeIntervalSince1970: 5)), .date(Date(timeIntervalSince1970: 9))], "value > 3", false),
        ]
        for (name, values, format, ranged) in cases {
            let url = folder.url("\(name).htstore")
            do {
                let writing = try ObjectStore(model: model, fileURL: url)
                let context = ObjectContext(store: writing)
                for (id, value) in values.enumerated() { try context.insert(Reading(id: id, value: value)) }
                try context.save()
                try writing.compact()
            }
            let context = ObjectContext(store: try ObjectStore(model: model, fileURL: url))
            var request = FetchRequest<Reading>(sortKeys: [SortKey("value")])
            request.fetchBatchSize = 2
            request.predicate = try RecordPredicate(format: format)
            let controller = FetchedResultsController(fetchRequest: request, context: context)
            let fetched = Result { () throws(FetchError) in try context.fetch(request).map(\.id) }
            do {
                try controller.performFetch()
                try expectEqual(controller.snapshot().itemIdentifiers, fetched.get(), "\(name)")
            } catch {
                // The same error as a fetch that tests every record.
                guard case .failure(let expected) = fetched else {
                    Issue.record("\(name): the controller failed (\(error)) where a fetch did not")
                    continue
                }
                expectEqual("\(error)", "\(expected)", "\(name)")
            }
            expectEqual((controller._indexPositionsRead != nil), ranged, "\(name)")
        }
    }

    /// A file of format 1 (written before indexes) opens as it did, every
    /// record read at once; its next compaction writes format 2.
    @Test func aFileOfFormat1OpensAndIsMigratedOnCompaction() throws {
        let folder = TemporaryFolder()
        let url = folder.url("old.htstore")
        let notes = Self.notes(500, seed: 9)
        try ObjectStore._writeFormat1(Self.model, notes, to: url)
        try expectEqual(JournalFilePersistence._formatVersion(of: url), 1)
        let store = try ObjectStore(model: Self.model, fileURL: url)
        expectEqual(store.objects(Note.self), notes)
        try expectEqual(JournalFilePersistence._formatVersion(of: url), 1, "opening rewrote the file")
        let context = ObjectContext(store: store)
        try context.update(Note(id: 3, group: nil, rank: -5, title: "x"))
        try context.save()
        try store.compact()
        try expectEqual(JournalFilePersistence._formatVersion(of: url), 2)
        let reopened = try ObjectStore(model: Self.model, fileURL: url)
        expectEqual(reopened.objects(Note.self), store.objects(Note.self))
        let controller = FetchedResultsController(fetchRequest: try request(["rank"]), context: ObjectContext(store: reopened))
        try controller.performFetch()
        #expect(controller._readFromIndex)
        let first = try controller.object(at: TablePath(row: 0, section: 0))
        expectEqual(first.id, 3)
    }

    /// A bit flipped in a record or an index of the snapshot: the store
    /// opens (records are read as they are needed), and reading the damaged
    /// part is an error naming an offset at or before the flip — never other
    /// data.
    @Test func damageInTheSnapshotIsAnErrorWhenRead() throws {
        let folder = TemporaryFolder()
        let url = folder.url("notes.htstore")
        let notes = Self.notes(2_000, seed: 4)
        _ = try Self.compactedStore(notes, at: url)
        let original = try Data(contentsOf: url)
        var g = SeededGenerator(seed: 5)
        var found = 0
        for trial in 0..<TestScale.cases(10, full: 200) {
            var damaged = original
            let bit = g.int(0..<(original.count * 8))
            damaged[bit / 8] ^= UInt8(1 << (bit % 8))
            let copy = folder.url("copy\(trial).htstore")
            try damaged.write(to: copy)
            do {
                let store = try ObjectStore(model: Self.model, fileURL: copy)
                let context = ObjectContext(store: store)
                let controller = FetchedResultsController(fetchRequest: try request(["title"]), context: context)
                do {
                    try controller.performFetch()
                    let read = try (0..<controller.numberOfObjects(inSection: 0)).map { try controller.object(at: TablePath(row: $0, section: 0)) }
                    expectEqual(read.sorted { $0.id < $1.id }, notes, "bit \(bit): read other data")
                    #expect(store.objects(Note.self) == notes || store.damage != nil, "bit \(bit)")
                } catch let error as FetchError {
                    found += 1
                    guard case .unreadable(.damaged(let path, let offset, _)) = error else {
                        Issue.record("bit \(bit): \(error)")
                        continue
                    }
                    #expect(path == copy.path && offset <= bit / 8, "bit \(bit): \(error)")
                }
            } catch let error as StoreError {
                found += 1
                switch error {
                case .damaged(let path, let offset, _): #expect(path == copy.path && offset <= bit / 8, "bit \(bit): \(error)")
                case .corrupt(let path, _): expectEqual(path, copy.path)
                default: Issue.record("bit \(bit): \(error)")
                }
            }
            try expectEqual(Data(contentsOf: copy), damaged, "bit \(bit): the damaged file was changed")
        }
        #expect(found > 0)
    }
}
