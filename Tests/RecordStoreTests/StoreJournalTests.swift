import Foundation
import Testing
import RecordStore
import Records
import PredicateFormat
import TableTestSupport

/// The journal file: saves cost the change, damage is an error, a torn tail
/// is dropped and reported, the old JSON file opens.
@Suite struct StoreJournalTests {
    /// Removed with everything in it when the test ends.
    let folder = TemporaryFolder("journal-tests")

    func temporaryURL(_ name: String = "store.htstore") -> URL { folder.freshURL(name) }

    func fileSize(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? -1
    }

    @Test func aSaveAppendsOnlyItsChange() throws {
        let url = temporaryURL()
        let store = try ObjectStore(for: Note.self, fileURL: url)
        let context = ObjectContext(store: store)
        for id in 0..<10_000 { try context.insert(Note(id: id, group: "g\(id % 7)", rank: id, title: "note \(id)")) }
        try context.save()
        let before = try fileSize(url)
        try context.update(Note(id: 5_000, group: "g", rank: -1, title: "changed"))
        try context.save()
        let grown = try fileSize(url) - before
        #expect(grown > 0 && grown < 200, "a one-record save appended \(grown) bytes")
        try context.delete(Note.self, id: 3)
        try context.save()
        let reopened = try ObjectStore(for: Note.self, fileURL: url)
        expectEqual(reopened.count, 9_999)
        #expect(reopened.object(Note.self, id: 5_000)?.title == "changed" && reopened.object(Note.self, id: 3) == nil)
        #expect(reopened.version == store.version && reopened.recoveries.isEmpty)
    }

    @Test func compactionKeepsEverySave() throws {
        let url = temporaryURL()
        let persistence = JournalFilePersistence(fileURL: url, compactionRatio: 0.1, minimumJournalBytes: 0)
        let store = try ObjectStore(for: Note.self, persistence: persistence)
        let context = ObjectContext(store: store)
        var expected: [Int: Note] = [:]
        var g = SeededGenerator(seed: 15)
        for round in 0..<300 {
            let id = Int.random(in: 0..<200, using: &g)
            let note = Note(id: id, group: nil, rank: round, title: "round \(round)")
            if expected[id] == nil { try context.insert(note) } else if round % 5 == 0 { try context.delete(Note.self, id: id) } else { try context.update(note) }
            if round % 5 == 0, expected[id] != nil { expected[id] = nil } else { expected[id] = note }
            try context.save()
            store._checkInvariants()
            if round % 50 == 0 { try store.compact() }
        }
        try store.compact()
        let reopened = try ObjectStore(for: Note.self, fileURL: url)
        expectEqual(Dictionary(uniqueKeysWithValues: reopened.objects(Note.self).map { ($0.id, $0) }), expected)
        expectEqual(reopened.version, store.version)
        let files = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        expectEqual(files, ["store.htstore"])
    }

    /// Settings at their extremes are no trap: a ratio of infinity never
    /// compacts on its own, a minimum of Int.max neither, and every save is kept.
    @Test(arguments: [(Double.infinity, 0), (0.5, Int.max), (.greatestFiniteMagnitude, Int.max)])
    func extremeCompactionSettings(ratio: Double, minimum: Int) throws {
        let url = temporaryURL()
        let store = try ObjectStore(for: Note.self, persistence: JournalFilePersistence(fileURL: url, compactionRatio: ratio, minimumJournalBytes: minimum))
        let context = ObjectContext(store: store)
        for k in 0..<50 {
            try context.insert(Note(id: k, group: nil, rank: k, title: String(repeating: "n", count: 200)))
            try context.save()
        }
        try store.compact()   // asked for: it runs
        try expectEqual(ObjectStore(for: Note.self, fileURL: url).count, 50)
    }

    /// Two stores on one file save from two threads while both compact it in
    /// the background, again and again: every save is in the file at the end.
    @Test func savesFromTwoStoresSurviveBackgroundCompactions() async throws {
        let url = temporaryURL()
        let stores = try (0..<2).map { _ in
            try ObjectStore(for: Note.self, persistence: JournalFilePersistence(fileURL: url, compactionRatio: 0.05, minimumJournalBytes: 0))
        }
        let inode = { (try? FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber]) as? NSNumber }
        let firstFile = inode()
        // Held open so that the replaced file's inode cannot be handed to its successor.
        let firstHandle = try FileHandle(forReadingFrom: url)
        defer { try? firstHandle.close() }
        await withTaskGroup(of: Void.self) { group in
            for (worker, store) in stores.enumerated() {
                group.addTask {
                    let context = ObjectContext(store: store)
                    context.mergePolicy = .mergeByPropertyObjectTrump
                    for k in 0..<300 {
                        try? context.insert(Note(id: worker * 1_000 + k, group: nil, rank: k, title: String(repeating: "w", count: k % 50)))
                        if k % 10 == 9 { try? context.update(Note(id: worker * 1_000 + k - 5, group: "updated", rank: -k)) }
                        do { try context.save() } catch { Issue.record("worker \(worker), save \(k): \(error)") }
                    }
                }
            }
        }
        for store in stores {
            try store.mergeExternalChanges()
            store._checkInvariants()
        }
        let reopened = try ObjectStore(for: Note.self, fileURL: url)
        reopened._checkInvariants()
        expectEqual(reopened.count, 600)
        expectEqual(reopened.objects(Note.self).filter { $0.group == "updated" }.count, 60)
        #expect(stores.allSatisfy { $0.count == 600 && $0.version == reopened.version })
        #expect(firstFile != nil && inode() != firstFile, "the file was never compacted (replaced)")
    }

    /// A file of the package's earlier format (one JSON document) opens, and
    /// is converted on the first open.
    @Test func theOldJSONFileOpensAndIsConverted() throws {
        let url = temporaryURL("old.json")
        let json = """
        {"format": "HeadlessTable.ObjectStore", "version": 1, "nextSequence": 3, "records": [
          {"sequence": 2, "record": {"id": 2, "group": "b", "rank": 7, "title": "Zwei", "version": 0, "created": 0, "tags": []}},
          {"sequence": 1, "record": {"id": 1, "rank": -3, "title": "Eins", "version": 0, "created": 1.5, "tags": ["x"]}}
        ]}
        """
        try Data(json.utf8).write(to: url)
        let store = try ObjectStore(for: Note.self, fileURL: url)
        expectEqual(store.objects(Note.self).map(\.id), [1, 2])
        expectEqual(store.object(Note.self, id: 1), Note(id: 1, group: nil, rank: -3, title: "Eins", created: Date(timeIntervalSinceReferenceDate: 1.5), tags: ["x"]))
        let context = ObjectContext(store: store)
        try context.insert(Note(id: 3, group: nil, rank: 0))
        try context.save()
        let head = try Data(contentsOf: url).prefix(8)
        expectEqual(head, Data("HTSTORE\n".utf8))
        let reopened = try ObjectStore(for: Note.self, fileURL: url)
        expectEqual(reopened.objects(Note.self).map(\.id), [1, 2, 3])
    }

    /// Every single-bit flip anywhere in the file opens as a typed error
    /// naming the file, or as exactly the committed data — never altered.
    @Test func everyBitFlipIsAnErrorOrTheExactData() throws {
        let url = temporaryURL()
        do {
            let store = try ObjectStore(for: Note.self, fileURL: url)
            let context = ObjectContext(store: store)
            for id in 0..<40 { try context.insert(Note(id: id, group: "g", rank: id, title: "n\(id)")) }
            try context.save()
            for round in 0..<4 {
                try context.update(Note(id: round, group: "h", rank: 100 + round, title: "u\(round)"))
                try context.save()
            }
        }
        let committed = try ObjectStore(for: Note.self, fileURL: url).objects(Note.self)
        let original = try Data(contentsOf: url)
        var g = SeededGenerator(seed: 2)
        var errors = 0
        for trial in 0..<400 {
            var damaged = original
            let bit = trial < original.count ? trial * 8 + Int.random(in: 0..<8, using: &g) : Int.random(in: 0..<(original.count * 8), using: &g)
            damaged[bit / 8] ^= UInt8(1 << (bit % 8))
            let copy = temporaryURL()
            try damaged.write(to: copy)
            do {
                let store = try ObjectStore(for: Note.self, fileURL: copy)
                expectEqual(store.objects(Note.self), committed, "bit \(bit): opened with other data")
                #expect(store.recoveries.isEmpty, "bit \(bit): dropped a committed save as torn: \(store.recoveries)")
            } catch {
                errors += 1
                switch error {
                case .damaged(let path, let offset, _):
                    #expect(path == copy.path && offset >= 0 && offset <= bit / 8, "bit \(bit): \(error)")
                case .corrupt(let path, _):
                    expectEqual(path, copy.path)
                default:
                    Issue.record("bit \(bit): \(error)")
                }
                try expectEqual(Data(contentsOf: copy), damaged, "bit \(bit): the damaged file was changed")
            }
        }
        #expect(errors > 350)
    }

    /// Damage of other kinds: a file cut inside its snapshot, an empty or
    /// zeroed file, another file's header, garbage after the last save. Each
    /// is a typed error naming the file, and the file is left as it was.
    @Test func damageOfManyKindsIsAnErrorAndLeavesTheFile() throws {
        let url = temporaryURL()
        do {
            let context = ObjectContext(store: try ObjectStore(for: Note.self, fileURL: url))
            for id in 0..<100 { try context.insert(Note(id: id, group: nil, rank: id, title: "n\(id)")) }
            try context.save()
            try context.store.compact()
            try context.update(Note(id: 1, group: nil, rank: -1))
            try context.save()
        }
        let original = try Data(contentsOf: url)
        var g = SeededGenerator(seed: 7)
        let garbage = Data((0..<40).map { _ in UInt8.random(in: 1...255, using: &g) })
        let cases: [(String, Data)] = [
            ("cut in the header", original.prefix(20)),
            ("cut in the snapshot", original.prefix(200)),
            ("zeroed", Data(count: original.count)),
            ("not a store", Data("hello, world\n".utf8)),
            ("another header", Data("SQLite format 3\u{0}".utf8) + original.dropFirst(16)),
            ("garbage after the last save", original + garbage),
            ("its last 60 bytes repeated", original + original.suffix(60)),
        ]
        for (name, bytes) in cases {
            let copy = temporaryURL()
            try bytes.write(to: copy)
            do {
                let store = try ObjectStore(for: Note.self, fileURL: copy)
                Issue.record("\(name): opened with \(store.count) records, recoveries \(store.recoveries)")
            } catch {
                switch error {
                case .damaged(let path, _, _), .corrupt(let path, _): expectEqual(path, copy.path, "\(name)")
                default: Issue.record("\(name): \(error)")
                }
                try expectEqual(Data(contentsOf: copy), bytes, "\(name): the file was changed")
            }
        }
        // An empty file is not a store either (the store creates its file
        // whole, never empty).
        let empty = temporaryURL()
        try Data().write(to: empty)
        expectThrows(StoreError.corrupt(path: empty.path, reason: "the file is empty")) { try ObjectStore(for: Note.self, fileURL: empty) }
    }

    /// A save cut short (its frame only partly written) is dropped on opening
    /// and reported; the saves before it are all there.
    @Test func aTornLastSaveIsDroppedAndReported() throws {
        let url = temporaryURL()
        let sizes: (Int, Int)
        do {
            let store = try ObjectStore(for: Note.self, fileURL: url)
            let context = ObjectContext(store: store)
            try context.insert(Note(id: 1, group: nil, rank: 1))
            try context.save()
            let first = try fileSize(url)
            try context.insert(Note(id: 2, group: nil, rank: 2, title: String(repeating: "x", count: 100)))
            try context.save()
            sizes = (first, try fileSize(url))
        }
        let whole = try Data(contentsOf: url)
        for cut in sizes.0 + 1 ..< sizes.1 {
            let copy = temporaryURL()
            try whole.prefix(cut).write(to: copy)
            let store = try ObjectStore(for: Note.self, fileURL: copy)
            expectEqual(store.objects(Note.self).map(\.id), [1], "cut at \(cut)")
            #expect(store.recoveries.count == 1 && store.recoveries.first?.offset == sizes.0 && store.recoveries.first?.path == copy.path, "cut at \(cut): \(store.recoveries)")
            // The next save goes where the torn one was.
            let context = ObjectContext(store: store)
            try context.insert(Note(id: 3, group: nil, rank: 3))
            try context.save()
            try expectEqual(ObjectStore(for: Note.self, fileURL: copy).objects(Note.self).map(\.id), [1, 3])
        }
    }

    struct Wide: Record, Codable, Hashable {
        var id: UInt64
        var small: Int64
        var values: [Int8]
        var maybe: Double?
        var nested: [String: [UInt32]]
    }

    /// Integers over the whole Int64 and UInt64 ranges, and doubles, come back
    /// exactly (no detour through Double).
    @Test func numbersRoundTripExactly() throws {
        let url = temporaryURL()
        let records = [
            Wide(id: .max, small: .min, values: [.min, .max, 0], maybe: nil, nested: ["a": [.max]]),
            Wide(id: .max - 1, small: .max, values: [], maybe: 0.1 + 0.2, nested: [:]),
            Wide(id: 0, small: -1, values: [-1], maybe: -.greatestFiniteMagnitude, nested: ["": []]),
        ]
        do {
            let context = ObjectContext(store: try ObjectStore(for: Wide.self, fileURL: url))
            for record in records { try context.insert(record) }
            try context.save()
        }
        try expectEqual(ObjectStore(for: Wide.self, fileURL: url).objects(Wide.self), records)
    }

    /// A file of other records (the app changed its record type) is a typed
    /// error naming the file, not a crash and not made-up records.
    @Test func recordsOfAnotherShapeAreAnError() throws {
        let url = temporaryURL()
        do {
            let context = ObjectContext(store: try ObjectStore(for: VersionedRow.self, fileURL: url))
            try context.insert(VersionedRow(id: 1, version: 1, text: "one"))
            try context.save()
        }
        do {
            let store = try ObjectStore(for: Note.self, fileURL: url)
            Issue.record("opened VersionedRows as Notes: \(store.objects(Note.self))")
        } catch {
            #expect(error.description.contains(url.path), "\(error)")
        }
    }

    @Test func aDanglingSymbolicLinkIsAnError() throws {
        let url = temporaryURL()
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: url.path + ".missing")
        expectThrows(StoreError.self) { try ObjectStore(for: Note.self, fileURL: url) }
    }
}
