import FetchedResults
import Foundation
import InternalTableUtilities
import PredicateFormat
import Records
import TableTestSupport
import Testing

/// Conflicting saves under each of Core Data's merge policies; stores sharing
/// a file; the context's notifications.
@Suite struct MergePolicyTests {
    func temporaryURL() -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("merge-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("store.htstore")
    }

    /// A store with note 1 (group "base", rank 0, title "base"); context `a`
    /// changes the title, and saves first; `b` then saves its own change.
    func conflict(_ policy: MergePolicy, b change: (ObjectContext) throws -> Void) throws -> (ObjectStore, ObjectContext, Result<Void, StoreError>) {
        let store = ObjectStore(for: Note.self)
        let setup = ObjectContext(store: store)
        try setup.insert(Note(id: 1, group: "base", rank: 0, title: "base"))
        try setup.save()
        let a = ObjectContext(store: store, name: "a"), b = ObjectContext(store: store, name: "b")
        b.mergePolicy = policy
        try a.update(Note(id: 1, group: "base", rank: 0, title: "from a"))
        try change(b)
        try a.save()
        do { try b.save(); return (store, b, .success(())) } catch { return (store, b, .failure(error)) }
    }

    @Test func theDefaultRefusesAConflictListingEachRecord() throws {
        let (store, b, result) = try conflict(.error) { try $0.update(Note(id: 1, group: "base", rank: 5, title: "base")) }
        guard case .failure(.mergeConflicts(let conflicts)) = result else { Issue.record("\(result)"); return }
        expectEqual(conflicts, [MergeConflict(objectID: "1", change: .update, contextVersion: 1, storeVersion: 2)])
        #expect(store.object(Note.self, id: 1)?.title == "from a" && store.object(Note.self, id: 1)?.rank == 0)
        #expect(b.hasChanges)
        // Reading the record again and saving again: the context now knows
        // version 2, and its update goes through.
        b.mergePolicy = .error
        b.rollback()
        _ = try b.object(Note.self, id: 1)   // reads version 2
        try b.update(Note(id: 1, group: "base", rank: 5, title: "from a"))
        try b.save()
        expectEqual(store.object(Note.self, id: 1)?.rank, 5)
    }

    @Test func aDeleteOfAChangedRecordConflictsToo() throws {
        let (store, _, result) = try conflict(.error) { try $0.delete(Note.self, id: 1) }
        guard case .failure(.mergeConflicts(let conflicts)) = result else { Issue.record("\(result)"); return }
        expectEqual(conflicts, [MergeConflict(objectID: "1", change: .delete, contextVersion: 1, storeVersion: 2)])
        expectEqual(store.count, 1)
    }

    @Test func byPropertyStoreTrumpKeepsBothSidesAndTheStoreWinsATie() throws {
        let (store, _, result) = try conflict(.mergeByPropertyStoreTrump) {
            try $0.update(Note(id: 1, group: "base", rank: 5, title: "from b"))
        }
        try result.get()
        let saved = try #require(store.object(Note.self, id: 1))
        #expect(saved.rank == 5 && saved.title == "from a")
    }

    @Test func byPropertyObjectTrumpKeepsBothSidesAndTheContextWinsATie() throws {
        let (store, _, result) = try conflict(.mergeByPropertyObjectTrump) {
            try $0.update(Note(id: 1, group: "b", rank: 5, title: "from b"))
        }
        try result.get()
        let saved = try #require(store.object(Note.self, id: 1))
        #expect(saved.rank == 5 && saved.title == "from b" && saved.group == "b")
    }

    @Test func overwriteSavesTheContextsRecordWhole() throws {
        let (store, _, result) = try conflict(.overwrite) { try $0.update(Note(id: 1, group: "base", rank: 5, title: "base")) }
        try result.get()
        let saved = try #require(store.object(Note.self, id: 1))
        #expect(saved.rank == 5 && saved.title == "base")   // a's title is overwritten
    }

    @Test func rollbackDropsTheContextsConflictingChanges() throws {
        let (store, b, result) = try conflict(.rollback) {
            try $0.update(Note(id: 1, group: "base", rank: 5, title: "base"))
            try $0.insert(Note(id: 2, group: nil, rank: 0))
        }
        try result.get()
        #expect(store.object(Note.self, id: 1)?.title == "from a" && store.object(Note.self, id: 1)?.rank == 0)
        #expect(store.object(Note.self, id: 2) != nil)   // the rest of the save goes through
        #expect(try !b.hasChanges && b.object(Note.self, id: 1)?.title == "from a")
    }

    /// A merge by property whose merged properties the record refuses to
    /// decode (low above high) saves the winning side's record whole, and
    /// the save says so; a record whose merge decodes is not listed.
    @Test(arguments: [MergePolicy.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump])
    func aMergeByPropertyThatFallsBackToAWholeRecordSaysSo(policy: MergePolicy) throws {
        let store = ObjectStore(for: Bounds.self)
        let setup = ObjectContext(store: store)
        try setup.insert(Bounds(id: 1, low: 0, high: 10))
        try setup.insert(Bounds(id: 2, low: 0, high: 10))
        try setup.save()
        let a = ObjectContext(store: store, name: "a"), b = ObjectContext(store: store, name: "b")
        a.mergePolicy = policy
        try a.update(Bounds(id: 1, low: 8, high: 10))
        try a.update(Bounds(id: 2, low: 8, high: 10))
        try b.update(Bounds(id: 1, low: 0, high: 5))    // merged with a's low: 8 above 5
        try b.update(Bounds(id: 2, low: 0, high: 20))   // merged: 8...20
        try b.save()
        let saved = try a.save()
        let contextWins = policy == .mergeByPropertyObjectTrump
        let fallback = PropertyMergeFallback(objectID: "1", reason: .mergedPropertiesDoNotDecode, keptContextRecord: contextWins)
        expectEqual(saved.propertyMergeFallbacks, [fallback])
        expectEqual(store.object(Bounds.self, id: 1), (contextWins ? Bounds(id: 1, low: 8, high: 10) : Bounds(id: 1, low: 0, high: 5)))
        expectEqual(store.object(Bounds.self, id: 2), Bounds(id: 2, low: 8, high: 20))
        #expect("\(fallback)".hasPrefix("identity 1 could not be merged property by property (its merged properties do not decode as a record)"))
    }

    /// A context merging a save into a pending update it cannot merge by
    /// property keeps its update whole, and says so.
    @Test func mergingASaveThatCannotMergeByPropertySaysSo() throws {
        let store = ObjectStore(for: Bounds.self)
        let setup = ObjectContext(store: store)
        try setup.insert(Bounds(id: 1, low: 0, high: 10))
        try setup.insert(Bounds(id: 2, low: 0, high: 10))
        try setup.save()
        let a = ObjectContext(store: store), b = ObjectContext(store: store)
        try a.update(Bounds(id: 1, low: 8, high: 10))
        try a.update(Bounds(id: 2, low: 8, high: 10))
        try b.update(Bounds(id: 1, low: 0, high: 5))
        try b.update(Bounds(id: 2, low: 0, high: 20))
        let fallbacks = a.mergeChanges(fromContextDidSave: try b.save())
        expectEqual(fallbacks, [PropertyMergeFallback(objectID: "1", reason: .mergedPropertiesDoNotDecode, keptContextRecord: true)])
        #expect(try a.object(Bounds.self, id: 1) == Bounds(id: 1, low: 8, high: 10) && a.object(Bounds.self, id: 2) == Bounds(id: 2, low: 8, high: 20))
        #expect(b.mergeChanges(fromContextDidSave: try a.save()).isEmpty)
    }

    /// Two contexts on two threads update the same records over and over;
    /// under `.error` every refused save lists real conflicts and changes
    /// nothing, under `.mergeByPropertyObjectTrump` every save goes through.
    /// A context reads a record at a version it saved itself, another saves
    /// the record before the first one's update: the update is based on what
    /// was read, so each side's property survives (and the default policy
    /// refuses it as a conflict with the version read). Every interleaving
    /// of one read, one foreign save and one update, under each policy.
    @Test(arguments: [MergePolicy.error, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback])
    func anUpdateIsBasedOnTheVersionReadEvenWhenAnotherSaveCameBetween(policy: MergePolicy) throws {
        for foreignSaves in 0...3 {
            let store = ObjectStore(for: Note.self)
            let a = ObjectContext(store: store, name: "a"), b = ObjectContext(store: store, name: "b")
            a.mergePolicy = policy
            try a.insert(Note(id: 1, group: nil, rank: 0, title: "t"))
            try a.save()
            var read = try #require(try a.object(Note.self, id: 1))
            for save in 0..<foreignSaves {
                // `b` reads the store as it is now (it saw nothing of `a`'s saves).
                var theirs = try #require(try b.object(Note.self, id: 1))
                theirs.title = "b\(save)"
                try b.update(theirs)
                try b.save()
            }
            read.rank += 1
            try a.update(read)
            let result = Result { () throws(StoreError) in try a.save() }
            let stored = try #require(store.object(Note.self, id: 1))
            switch (policy, foreignSaves) {
            case (_, 0):
                #expect(stored.rank == 1 && stored.title == "t")
            case (.error, _):
                guard case .failure(.mergeConflicts(let conflicts)) = result else { Issue.record("\(result)"); continue }
                expectEqual(conflicts.map(\.contextVersion), [1])
                #expect(stored.rank == 0 && stored.title == "b\(foreignSaves - 1)")
            case (.mergeByPropertyObjectTrump, _), (.mergeByPropertyStoreTrump, _):
                let saved = try result.get()
                #expect(saved.propertyMergeFallbacks.isEmpty)
                #expect(stored.rank == 1 && stored.title == "b\(foreignSaves - 1)", "\(foreignSaves) saves between")
            case (.overwrite, _):
                #expect(stored.rank == 1 && stored.title == "t")
            case (.rollback, _):
                #expect(stored.rank == 0 && stored.title == "b\(foreignSaves - 1)")
            }
        }
    }

    /// A change made on a version older than the store remembers (more than
    /// its capacity of replaced versions since) is still merged, and the save
    /// says the merge could not tell which side changed what.
    @Test func aChangeOnAVersionTheStoreForgotIsMergedAndSaysSo() throws {
        let store = ObjectStore(for: Note.self)
        let a = ObjectContext(store: store, name: "a"), b = ObjectContext(store: store, name: "b")
        a.mergePolicy = .mergeByPropertyObjectTrump
        b.mergePolicy = .overwrite  // `b` saw none of `a`'s saves
        for id in 0...4_096 { try a.insert(Note(id: id, group: nil, rank: 0, title: "t")) }
        try a.save()
        var read = try #require(try a.object(Note.self, id: 0))
        // One replaced version of record 0, then 4,096 of other records.
        try b.update(Note(id: 0, group: nil, rank: 0, title: "b"))
        try b.save()
        for id in 1...4_096 { try b.update(Note(id: id, group: nil, rank: 0, title: "b")) }
        try b.save()
        read.rank = 7
        try a.update(read)
        let saved = try a.save()
        expectEqual(saved.propertyMergeFallbacks, [PropertyMergeFallback(objectID: "0", reason: .readVersionUnknown, keptContextRecord: true)])
        expectEqual(saved.propertyMergeFallbacks.first?.description.contains("read the record again"), true)
        #expect(store.object(Note.self, id: 0)?.rank == 7 && store.object(Note.self, id: 0)?.title == "t")
    }

    @Test(arguments: [MergePolicy.error, .mergeByPropertyObjectTrump])
    func twoContextsOnTwoThreads(policy: MergePolicy) async throws {
        let store = ObjectStore(for: Note.self)
        let setup = ObjectContext(store: store)
        for id in 0..<10 { try setup.insert(Note(id: id, group: nil, rank: 0)) }
        try setup.save()
        let collected = _Lock<[Outcome]>([])
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<2 {
                group.addTask {
                    let context = ObjectContext(store: store, name: "worker \(worker)")
                    context.mergePolicy = policy
                    var saved = 0, refused = 0
                    for round in 0..<200 {
                        let id = round % 10
                        let current = (try? context.object(Note.self, id: id)) ?? Note(id: id, group: nil, rank: 0)
                        var next = current
                        if worker == 0 { next.rank += 1 } else { next.title = "w\(round)" }
                        try? context.update(next)
                        do {
                            try context.save()
                            saved += 1
                        } catch {
                            guard let error = error as? StoreError, case .mergeConflicts(let conflicts) = error, conflicts.allSatisfy({ $0.objectID == "\(id)" }) else {
                                Issue.record("\(error)")
                                continue
                            }
                            refused += 1
                            context.rollback()
                        }
                    }
                    collected.withLock { $0.append(Outcome(saved: saved, refused: refused)) }
                }
            }
        }
        let outcomes = collected.withLock { $0 }
        let saved = outcomes.map { $0.saved }.reduce(0, +)
        if policy == .error {
            expectEqual(saved + outcomes.map { $0.refused }.reduce(0, +), 400)
        } else {
            expectEqual(saved, 400)
            // By property: worker 0's ranks and worker 1's titles both survive
            // (each update is based on the version its worker read, also when
            // the other worker saved between the read and the update).
            expectEqual(store.objects(Note.self).map(\.rank).reduce(0, +), 200)
        }
        expectEqual(store.version, 1 + Int64(saved))
    }

    /// Two stores on one file (two apps, an app and its extension): neither
    /// loses the other's saves, and each store's contexts hear of the other's.
    @Test func twoStoresOnOneFileKeepEachOthersSaves() async throws {
        let url = temporaryURL()
        let a = try ObjectStore(for: Note.self, fileURL: url), b = try ObjectStore(for: Note.self, fileURL: url)
        let heard = b.didSaveNotifications()
        let ca = ObjectContext(store: a), cb = ObjectContext(store: b)
        try ca.insert(Note(id: 1, group: nil, rank: 0, title: "from A"))
        try ca.save()
        try cb.insert(Note(id: 2, group: nil, rank: 0, title: "from B"))
        try cb.save()
        expectEqual(b.objects(Note.self).map(\.title), ["from A", "from B"])
        var iterator = heard.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.insertedObjects(Note.self).map(\.id) == [1] && first?.isExternal == true)
        try expectEqual(ObjectStore(for: Note.self, fileURL: url).objects(Note.self).map(\.title), ["from A", "from B"])
        // An update in A of a record B changed meanwhile is a conflict, as in one store.
        let stale = ObjectContext(store: a)
        try stale.update(Note(id: 1, group: nil, rank: 1, title: "A again"))
        _ = try cb.object(Note.self, id: 1)   // cb reads the version A saved
        try cb.update(Note(id: 1, group: nil, rank: 9, title: "from A"))
        try cb.save()
        expectThrows(StoreError.mergeConflicts([MergeConflict(objectID: "1", change: .update, contextVersion: 1, storeVersion: 3)])) {
            try stale.save()
        }
        expectEqual(a.object(Note.self, id: 1)?.rank, 9)   // picked up before the refused save
        stale.mergePolicy = .overwrite
        try stale.save()
        try expectEqual(ObjectStore(for: Note.self, fileURL: url).object(Note.self, id: 1)?.title, "A again")
    }

    @Test func contextsPostObjectsDidChangeAndWillSave() async throws {
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store, name: "main")
        let changes = context.objectsDidChangeNotifications()
        let willSave = context.willSaveNotifications()
        let posted = Posted()
        let contextID = ObjectIdentifier(context), storeID = ObjectIdentifier(store)
        let observers = [Notification.Name.objectContextObjectsDidChange, .objectContextWillSave, .objectContextDidSave].map { name in
            NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                guard let object = note.object as AnyObject?, [contextID, storeID].contains(ObjectIdentifier(object)) else { return }
                let inserted = (note.userInfo?[ObjectContext.insertedKey] as? [AnyHashable])?.count ?? -1
                posted.items.append("\(note.name.rawValue.split(separator: ".").last!) \(inserted)")
            }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        try context.insert(Note(id: 1, group: nil, rank: 0))
        try context.insert(Note(id: 2, group: nil, rank: 0))
        #expect(posted.items.isEmpty)
        context.processPendingChanges()
        try context.update(Note(id: 1, group: nil, rank: 3))
        try context.save()
        // Will-save comes first (its observers may still change things: Core
        // Data posts it without user info), then the pending changes are
        // processed, then the save.
        expectEqual(posted.items, ["ObjectContextObjectsDidChange 2", "ObjectContextWillSave -1", "ObjectContextObjectsDidChange 1", "ObjectContextDidSave 2"])
        var changesIterator = changes.makeAsyncIterator()
        await expectEqual(changesIterator.next()?.insertedObjects(Note.self).map(\.id), [1, 2])
        let second = await changesIterator.next()
        expectEqual(second?.insertedObjects(Note.self).map(\.id), [1])   // still a pending insert
        var willSaveIterator = willSave.makeAsyncIterator()
        let will = await willSaveIterator.next()
        #expect(will?.insertedObjects(Note.self).map(\.id) == [1, 2] && will?.contextName == "main")
    }

    /// With `automaticallyProcessesPendingChanges`, a controller on the context
    /// sees each insert when the call returns; inside `performChanges`, once.
    @Test func aControllerSeesItsOwnContextsInsertsAtOnce() throws {
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store)
        context.automaticallyProcessesPendingChanges = true
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("rank")]), context: context)
        let recorder = Recorder()
        controller.delegate = recorder   // a delegate starts change tracking
        try controller.performFetch()
        try context.insert(Note(id: 1, group: nil, rank: 2))
        expectEqual(controller.fetchedObjects?.map(\.id), [1])
        let reports = Posted()
        let observer = NotificationCenter.default.addObserver(forName: .objectContextObjectsDidChange, object: context, queue: nil) { _ in reports.items.append("") }
        defer { NotificationCenter.default.removeObserver(observer) }
        try context.performChanges {
            try context.insert(Note(id: 2, group: nil, rank: 1))
            try context.insert(Note(id: 3, group: nil, rank: 3))
            expectEqual(controller.fetchedObjects?.map(\.id), [1])
        }
        expectEqual(controller.fetchedObjects?.map(\.id), [2, 1, 3])
        expectEqual(reports.items.count, 1)
    }
}

/// What observers saw (notifications are posted on the saving thread: here,
/// the test's own).
struct Outcome: Sendable {
    var saved: Int
    var refused: Int
}

final class Posted: @unchecked Sendable {
    var items: [String] = []
}

/// A record whose decoding refuses a low bound above its high bound: two
/// contexts' changes to either bound may not merge property by property.
struct Bounds: Record, Codable, Hashable {
    var id: Int
    var low: Int
    var high: Int

    init(id: Int, low: Int, high: Int) {
        self.id = id
        self.low = low
        self.high = high
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        low = try container.decode(Int.self, forKey: .low)
        high = try container.decode(Int.self, forKey: .high)
        guard low <= high else { throw DecodingError.dataCorruptedError(forKey: .high, in: container, debugDescription: "\(low) is above \(high)") }
    }
}
