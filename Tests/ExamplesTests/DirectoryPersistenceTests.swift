import DirectoryStore
import FetchedResults
import Foundation
import PredicateFormat
import Records
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

    @Test func aSaveCutShortIsFinishedOnOpening() throws {
        let url = folder()
        do {
            let store = try ObjectStore(for: Note.self, persistence: DirectoryPersistence(folder: url))
            let context = ObjectContext(store: store)
            try context.insert(Note(id: 1, group: nil, rank: 1))
            try context.save()
        }
        // A writer died after writing pending.json, before the record files.
        let file = Data(#"{"sequence":2,"version":2,"record":{"id":2,"group":null,"rank":2,"title":"","version":0,"created":0,"tags":[]}}"#.utf8)
        let pending = #"{"meta":{"version":2,"nextSequence":3},"saved":[{"entity":"Note","id":"2","file":""#
            + file.base64EncodedString() + #""}],"deleted":[{"entity":"Note","id":"1"}]}"#
        try Data(pending.utf8).write(to: url.appendingPathComponent("pending.json"))
        let store = try ObjectStore(for: Note.self, persistence: DirectoryPersistence(folder: url))
        #expect(store.objects(Note.self).map(\.id) == [2] && store.version == 2)
        #expect(!FileManager.default.fileExists(atPath: url.appendingPathComponent("pending.json").path))
    }
}
