import Foundation
import InternalTableUtilities
import RecordStore
import TableTestSupport
import Testing

/// The order of the store's locks (`_LockLevel+Store.swift`): the tracker
/// that debug builds keep per thread catches a lock taken out of order — here
/// driven directly, so that the test process does not trap — and the store's
/// own saves, reads and compactions take theirs in order.
@Suite struct LockOrderTests {
    @Test func theTrackerCatchesALockTakenOutOfOrder() {
        // A save's order: the store's lock, the journal's, the file's.
        var save = _LockOrderTracker()
        #expect(save.acquire(.objectStore) == nil)
        #expect(save.acquire(.journalState) == nil)
        #expect(save.acquire(.journalFile) == nil)
        expectEqual(save.held, [.objectStore, .journalState, .journalFile])
        save.release(.journalFile)
        save.release(.journalState)
        #expect(save.acquire(.compactionQueued) == nil)   // after the file is released, still under the store's lock
        save.release(.compactionQueued)
        save.release(.objectStore)
        #expect(save.held.isEmpty)

        // The journal's lock, then the store's: the opposite of a save's order,
        // which could deadlock against a save on another thread.
        var wrong = _LockOrderTracker()
        #expect(wrong.acquire(.journalState) == nil)
        let violation = wrong.acquire(.objectStore)
        expectEqual(violation, _LockOrderViolation(acquiring: .objectStore, holding: .journalState, held: [.journalState]))
        expectEqual(violation?.description, "lock order violated: taking ObjectStore.state (level 10) while holding JournalFilePersistence.state (level 30) (held: JournalFilePersistence.state (level 30)); a thread takes a lock only above every lock it holds")
        wrong.release(.objectStore)
        wrong.release(.journalState)
        #expect(wrong.held.isEmpty)

        // One level twice (two files' flocks at once), and a lock under one
        // taken later though an earlier one was released first.
        var twice = _LockOrderTracker()
        #expect(twice.acquire(.journalFile) == nil)
        expectEqual(twice.acquire(.journalFile)?.holding, .journalFile)
        var unordered = _LockOrderTracker()
        _ = unordered.acquire(.objectStore)
        _ = unordered.acquire(.journalFile)
        unordered.release(.objectStore)   // released out of order: the file's lock is still held
        expectEqual(unordered.held, [.journalFile])
        expectEqual(unordered.acquire(.journalState)?.holding, .journalFile)
    }

    /// Saves, reads of other stores' saves and compactions of a journal file,
    /// from two stores on this thread: every lock is taken in order (a debug
    /// build traps otherwise) and released; a persistence's commit runs with
    /// the store's lock held, and nothing else of the order.
    @Test func theStoresLocksAreTakenInOrderAndReleased() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lock-order-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("store.htstore")
        let persistence = JournalFilePersistence(fileURL: url, compactionRatio: 0, minimumJournalBytes: 0)
        let (a, b) = (try ObjectStore(for: Note.self, persistence: persistence), try ObjectStore(for: Note.self, fileURL: url))
        let (x, y) = (ObjectContext(store: a), ObjectContext(store: b))
        for k in 0..<20 {
            try (k % 2 == 0 ? x : y).insert(Note(id: k, group: nil, rank: k))
            try (k % 2 == 0 ? x : y).save()
            #expect(_LockOrder.held.isEmpty)
        }
        try a.mergeExternalChanges()
        try a.compact()
        #expect(_LockOrder.held.isEmpty)
        #expect(a.count == 20 && b.count == 20)

        let probe = LevelProbePersistence()
        let store = try ObjectStore(for: Note.self, persistence: probe)
        let context = ObjectContext(store: store)
        try context.insert(Note(id: 1, group: nil, rank: 1))
        try context.save()
        #if DEBUG
        expectEqual(probe.heldInCommit.withLock { $0 }, [[.objectStore], [.objectStore]])   // around `prepare`, and in it
        #endif
        #expect(_LockOrder.held.isEmpty)
    }
}

/// A persistence in memory that notes the ranked locks its thread holds when
/// the store commits through it.
final class LevelProbePersistence: StorePersistence {
    let heldInCommit = _Lock<[[_LockLevel]]>([])

    func load(model: ObjectModel) throws(StoreError) -> StoreContents { StoreContents() }
    func changesSinceLastRead() throws(StoreError) -> ExternalChanges { .none }
    func commit(_ prepare: (ExternalChanges) throws(StoreError) -> StoreChangeSet?) throws(StoreError) {
        let before = _LockOrder.held
        _ = try prepare(.none)
        let inside = _LockOrder.held
        heldInCommit.withLock { $0 += [before, inside] }
    }
}
