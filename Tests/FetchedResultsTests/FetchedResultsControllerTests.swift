import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableDiff
import TableTestSupport
import Testing

@Suite struct FetchedResultsControllerTests {
    /// A store with notes, and a context on it.
    func makeContext(_ notes: [Note]) throws -> ObjectContext {
        let context = ObjectContext(store: ObjectStore(for: Note.self))
        for note in notes { try context.insert(note) }
        try context.save()
        return context
    }

    static let byGroupThenRank = FetchRequest<Note>(sortKeys: [SortKey("group"), SortKey("rank")])

    @Test func aRequestNeedsSortKeys() throws {
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(), context: try makeContext([]))
        expectThrows(FetchError.noSortKeys) { try controller.performFetch() }
        expectEqual(FetchError.noSortKeys.description, "An instance of NSFetchedResultsController requires a fetch request with sort descriptors")
        #expect(controller.fetchedObjects == nil && controller.sections == nil)
    }

    @Test func theFirstSortKeyMustOrderTheSections() throws {
        let context = try makeContext([
            Note(id: 1, group: "b", rank: 1), Note(id: 2, group: "a", rank: 2), Note(id: 3, group: "b", rank: 3),
        ])
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("rank")]), context: context, sectionNameKeyPath: "group")
        do {
            try controller.performFetch()
            Issue.record("fetched sections out of order")
        } catch {
            expectEqual(error, .sectionsOutOfOrder(index: 2, sectionName: "b"))
            expectEqual(error.description, "The fetched object at index 2 has an out of order section name 'b'. Objects must be sorted by section name")
        }
    }

    @Test func sectionsFollowCoreDataRules() throws {
        // Without a section key: one section, even with no objects.
        let empty = try makeContext([])
        let one = FetchedResultsController(fetchRequest: Self.byGroupThenRank, context: empty)
        try one.performFetch()
        #expect(one.sections?.count == 1 && one.sections?.first?.name == "" && one.sections?.first?.numberOfObjects == 0)
        // With a section key and no objects: no sections.
        let none = FetchedResultsController(fetchRequest: Self.byGroupThenRank, context: empty, sectionNameKeyPath: "group")
        try none.performFetch()
        expectEqual(none.sections?.isEmpty, true)
        // A nil section value goes into the section "" (nil sorts first).
        let context = try makeContext([
            Note(id: 1, group: "b", rank: 2), Note(id: 2, group: nil, rank: 1), Note(id: 3, group: "a", rank: 3), Note(id: 4, group: "b", rank: 1),
        ])
        let controller = FetchedResultsController(fetchRequest: Self.byGroupThenRank, context: context, sectionNameKeyPath: "group")
        try controller.performFetch()
        expectEqual(controller.sections?.map(\.name), ["", "a", "b"])
        expectEqual(controller.sections?.map(\.numberOfObjects), [1, 1, 2])
        expectEqual(controller.sections?.last?.objects.map(\.id), [4, 1])
        expectEqual(controller.fetchedObjects?.map(\.id), [2, 3, 4, 1])
    }

    @Test func objectsAndIndexPaths() throws {
        let context = try makeContext([Note(id: 1, group: "a", rank: 1), Note(id: 2, group: "b", rank: 1), Note(id: 3, group: "b", rank: 2)])
        let controller = FetchedResultsController(fetchRequest: Self.byGroupThenRank, context: context, sectionNameKeyPath: "group")
        expectThrows(FetchError.notFetched) { try controller.object(at: TablePath(row: 0, section: 0)) }
        try controller.performFetch()
        try expectEqual(controller.object(at: TablePath(row: 1, section: 1)).id, 3)
        expectEqual(controller.indexPath(forObjectWithID: 2), TablePath(row: 0, section: 1))
        #expect(controller.indexPath(for: Note(id: 9, group: nil, rank: 0)) == nil)
        do {
            _ = try controller.object(at: TablePath(row: 2, section: 1))
        } catch {
            expectEqual(error.description, "no object at index path {1, 2}: section 1 has 2 objects")
        }
        do {
            _ = try controller.object(at: TablePath(row: 0, section: -1))
        } catch {
            expectEqual(error.description, "no object at index path {-1, 0}: there are 2 sections")
        }
    }

    @Test func sectionIndexTitles() throws {
        let groups = ["apple", "Avocado", "banana", "cherry", "citrus", "Über"]
        let context = try makeContext(groups.enumerated().map { Note(id: $0.offset, group: $0.element, rank: 0) })
        let request = FetchRequest<Note>(sortKeys: [SortKey("group", comparison: .localizedStandard)])
        let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: "group")
        try controller.performFetch()
        expectEqual(controller.sections?.map(\.name), ["apple", "Avocado", "banana", "cherry", "citrus", "Über"])
        expectEqual(controller.sections?.map(\.indexTitle), ["A", "A", "B", "C", "C", "Ü"])
        expectEqual(controller.sectionIndexTitles, ["A", "B", "C", "Ü"])
        expectEqual(controller.section(forSectionIndexTitle: "C", at: 2), 3)
        #expect(controller.section(forSectionIndexTitle: "Z", at: 0) == nil)
        // The delegate may supply the titles.
        let recorder = Recorder()
        recorder.titles = { $0.lowercased().hasPrefix("c") ? "C…" : nil }
        controller.delegate = recorder
        expectEqual(controller.sectionIndexTitles, ["A", "B", "C…", "Ü"])
    }

    @Test func predicatesLimitsAndOffsets() throws {
        let context = try makeContext((0..<10).map { Note(id: $0, group: nil, rank: $0) })
        let all = [8, 6, 4, 2, 0]
        var request = FetchRequest<Note>(predicate: RecordPredicate { $0.rank % 2 == 0 }, sortKeys: [SortKey("rank", ascending: false)])
        try expectEqual(context.fetch(request).map(\.id), all)
        // Every offset and limit, past the end too: fetch, count and a controller agree.
        for offset in 0...7 {
            for limit in [nil] + Array(0...7) {
                request.fetchOffset = offset
                request.fetchLimit = limit
                let expected = Array(all.dropFirst(offset).prefix(limit ?? .max))
                try expectEqual(context.fetch(request).map(\.id), expected, "offset \(offset), limit \(String(describing: limit))")
                try expectEqual(context.count(for: request), expected.count)
                let controller = FetchedResultsController(fetchRequest: request, context: context)
                try controller.performFetch()
                expectEqual(controller.fetchedObjects?.map(\.id), expected)
            }
        }
        // A negative setting is an error that names it (and fetches nothing).
        for (name, change) in [("fetchLimit", { (r: inout FetchRequest<Note>) in r.fetchLimit = -1 }),
                               ("fetchOffset", { $0.fetchOffset = -2 }), ("fetchBatchSize", { $0.fetchBatchSize = -3 })] {
            var bad = request
            change(&bad)
            expectThrows(FetchError.self) { try context.fetch(bad) }
            expectThrows(FetchError.self) { try context.count(for: bad) }
            let controller = FetchedResultsController(fetchRequest: bad, context: context)
            do {
                try controller.performFetch()
                Issue.record("a negative \(name) fetched")
            } catch {
                #expect("\(error)".hasPrefix("\(name) must not be negative (it is -"), "\(error)")
            }
            #expect(controller.fetchedObjects == nil)
        }
    }

    /// Foundation's `Predicate` (macOS 14, iOS 17): skipped on older systems.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func foundationPredicates() throws {
        let context = try makeContext((1...9).map { Note(id: $0, group: nil, rank: $0) })
        let foundation = FetchRequest<Note>(predicate: RecordPredicate(#Predicate<Note> { $0.rank > 6 }), sortKeys: [SortKey("rank")])
        try expectEqual(context.fetch(foundation).map(\.id), [7, 8, 9])
    }

    /// A change of a record the predicate cannot evaluate fails as a fetch
    /// fails, with the same typed error: nothing applied, the error in
    /// `lastError` and told to the delegate — not a row silently left out.
    /// (With an offset or a limit the controller fetches again: the same.)
    @Test(arguments: [nil, 10])
    func aPredicateThatFailsOnAChangeFailsAsTheFetchDoes(limit: Int?) throws {
        let context = try makeContext([Note(id: 1, group: nil, rank: 1), Note(id: 2, group: nil, rank: 2)])
        let request = FetchRequest<Note>(predicate: try RecordPredicate(format: "10 / rank > 1"), sortKeys: [SortKey("rank")], fetchLimit: limit)
        let controller = FetchedResultsController(fetchRequest: request, context: context)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        expectEqual(controller.fetchedObjects?.map(\.id), [1, 2])
        // Note 2 would leave (10 / 20 is not > 1); note 3 cannot be evaluated (10 / 0).
        try context.update(Note(id: 2, group: nil, rank: 20))
        try context.insert(Note(id: 3, group: nil, rank: 0))
        let failure = FetchError.predicateFailed(.divisionByZero)
        expectThrows(failure) { try context.fetch(request) }
        try context.save()
        expectEqual(recorder.take(), [.failed(failure)])
        expectEqual(controller.lastError, failure)
        expectEqual(controller.fetchedObjects?.map(\.id), [1, 2])
        controller._checkInvariants()
        expectThrows(failure) { try controller.performFetch() }
        expectEqual(controller.fetchedObjects?.map(\.id), [1, 2])
        // Once the record can be evaluated, a fetch brings the results up to date.
        try context.update(Note(id: 3, group: nil, rank: 5))
        try context.save()
        try controller.performFetch()
        #expect(controller.lastError == nil)
        expectEqual(controller.fetchedObjects?.map(\.id), [1, 3])
        controller._checkInvariants()
    }

    /// A Foundation predicate's error is kept as it was thrown, whether by a
    /// fetch or by a change.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aFoundationPredicatesErrorIsKeptTyped() throws {
        let context = try makeContext([Note(id: 1, group: "a", rank: 1)])
        let request = FetchRequest<Note>(predicate: RecordPredicate(#Predicate<Note> { $0.group! == "a" }), sortKeys: [SortKey("rank")])
        let controller = FetchedResultsController(fetchRequest: request, context: context)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        try context.insert(Note(id: 2, group: nil, rank: 2))
        try context.save()
        guard case .predicateThrew(let thrown) = controller.lastError else {
            Issue.record("not a thrown predicate error: \(String(describing: controller.lastError))")
            return
        }
        #expect(thrown.error is PredicateError)
        expectEqual(recorder.take(), [.failed(.predicateThrew(thrown))])
        expectThrows(FetchError.predicateThrew(thrown)) { try context.fetch(request) }
        expectEqual(controller.fetchedObjects?.map(\.id), [1])
    }

    @Test func changesAreTrackedOnlyWithADelegate() throws {
        let context = try makeContext([Note(id: 1, group: nil, rank: 1)])
        let controller = FetchedResultsController(fetchRequest: Self.byGroupThenRank, context: context)
        try controller.performFetch()
        try context.insert(Note(id: 2, group: nil, rank: 2))
        context.processPendingChanges()
        expectEqual(controller.fetchedObjects?.map(\.id), [1])
        let recorder = Recorder()
        controller.delegate = recorder
        try context.insert(Note(id: 3, group: nil, rank: 3))
        context.processPendingChanges()
        // Only the change made while tracking is reported.
        expectEqual(recorder.take().map(\.description), ["will", "insert #3 - → {0, 1}", "did"])
        expectEqual(controller.fetchedObjects?.map(\.id), [1, 3])
    }

    @Test func coreDataIndexPathsForEachKindOfChange() throws {
        let context = try makeContext([
            Note(id: 1, group: "a", rank: 1), Note(id: 2, group: "a", rank: 2), Note(id: 3, group: "a", rank: 3),
            Note(id: 4, group: "b", rank: 1),
        ])
        let controller = FetchedResultsController(fetchRequest: Self.byGroupThenRank, context: context, sectionNameKeyPath: "group")
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()

        // An update in place, an insert, a delete.
        try context.update(Note(id: 2, group: "a", rank: 2, version: 1))
        try context.insert(Note(id: 5, group: "b", rank: 0))
        try context.delete(Note.self, id: 3)
        try context.save()
        expectEqual(recorder.take().map(\.description), [
            "will", "delete #3 {0, 2} → -", "update #2 {0, 1} → {0, 1}", "insert #5 - → {1, 0}", "did",
        ])
        // An update whose row an insert before it shifts: still an update, at its old
        // index path (and its new one), as Core Data reports it.
        try context.insert(Note(id: 6, group: "b", rank: -1))
        try context.update(Note(id: 4, group: "b", rank: 1, version: 1))
        try context.save()
        expectEqual(recorder.take().map(\.description), ["will", "update #4 {1, 1} → {1, 2}", "insert #6 - → {1, 0}", "did"])
        // A sort key change: a move. A section key change to a new section: a
        // section insert and a move; the emptied section: a section delete.
        try context.update(Note(id: 1, group: "a", rank: 9, version: 1))
        try context.save()
        expectEqual(recorder.take().map(\.description), ["will", "move #1 {0, 0} → {0, 1}", "did"])
        try context.update(Note(id: 2, group: "c", rank: 1, version: 2))
        try context.update(Note(id: 1, group: "c", rank: 2, version: 2))
        try context.save()
        expectEqual(recorder.take().map(\.description), [
            "will", "delete section 0 \"a\"", "insert section 1 \"c\"", "move #2 {0, 0} → {1, 0}", "move #1 {0, 1} → {1, 1}", "did",
        ])
        expectEqual(controller.sections?.map(\.name), ["b", "c"])
    }

    @Test func ownChangesMergesAndRollbacks() throws {
        let store = ObjectStore(for: Note.self)
        let view = ObjectContext(store: store, name: "view"), editor = ObjectContext(store: store, name: "editor")
        try view.insert(Note(id: 1, group: nil, rank: 1))
        try view.save()
        let controller = FetchedResultsController(fetchRequest: Self.byGroupThenRank, context: view)
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()

        // Another context's save arrives when merged.
        try editor.insert(Note(id: 2, group: nil, rank: 0))
        let saved = try editor.save()
        expectEqual(controller.fetchedObjects?.map(\.id), [1])
        view.mergeChanges(fromContextDidSave: saved)
        expectEqual(controller.fetchedObjects?.map(\.id), [2, 1])
        expectEqual(recorder.take().map(\.description), ["will", "insert #2 - → {0, 0}", "did"])

        // Own unsaved changes, then a rollback.
        try view.delete(Note.self, id: 2)
        try view.insert(Note(id: 3, group: nil, rank: 5))
        view.processPendingChanges()
        expectEqual(controller.fetchedObjects?.map(\.id), [1, 3])
        _ = recorder.take()
        view.rollback()
        expectEqual(controller.fetchedObjects?.map(\.id), [2, 1])
        expectEqual(recorder.take().map(\.description), ["will", "delete #3 {0, 1} → -", "insert #2 - → {0, 0}", "did"])
    }

    @Test func batchedControllersReadRecordsOnDemand() throws {
        let context = try makeContext((0..<500).map { Note(id: $0, group: "\($0 / 100)", rank: $0) })
        var request = Self.byGroupThenRank
        request.fetchBatchSize = 20
        let batched = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: "group")
        let recorder = Recorder()
        batched.delegate = recorder
        try batched.performFetch()
        expectEqual(batched.sections?.count, 5)
        try expectEqual(batched.object(at: TablePath(row: 42, section: 3)).id, 342)
        expectEqual(batched.fetchedObjects?.map(\.id), Array(0..<500))
        // Changes still work, deleted objects included.
        try context.delete(Note.self, id: 342)
        try context.update(Note(id: 7, group: "4", rank: 1000, version: 1))
        try context.save()
        expectEqual(recorder.take().map(\.description), ["will", "delete #342 {3, 42} → -", "move #7 {0, 7} → {4, 100}", "did"])
        try expectEqual(batched.object(at: TablePath(row: 100, section: 4)).version, 1)
    }

    @Test func cachedResultsAreReusedUntilTheStoreChanges() throws {
        let context = try makeContext((0..<50).map { Note(id: $0, group: nil, rank: $0) })
        let first = FetchedResultsController(fetchRequest: Self.byGroupThenRank, context: context, cacheName: "notes")
        try first.performFetch()
        let second = FetchedResultsController(fetchRequest: Self.byGroupThenRank, context: context, cacheName: "notes")
        try second.performFetch()
        expectEqual(second.fetchedObjects?.map(\.id), first.fetchedObjects?.map(\.id))
        try context.delete(Note.self, id: 0)
        try context.save()
        let third = FetchedResultsController(fetchRequest: Self.byGroupThenRank, context: context, cacheName: "notes")
        try third.performFetch()
        expectEqual(third.fetchedObjects?.first?.id, 1)
        FetchedResultsController<Note>.deleteCache(withName: "notes", in: context.store)
        FetchedResultsController<Note>.deleteCache(withName: nil, in: context.store)
    }

    @Test func wholeChangesReplayUnderUIKitRules() throws {
        let context = try makeContext([Note(id: 1, group: "a", rank: 1), Note(id: 2, group: "a", rank: 2), Note(id: 3, group: "b", rank: 1)])
        let controller = FetchedResultsController(fetchRequest: Self.byGroupThenRank, context: context, sectionNameKeyPath: "group")
        let recorder = Recorder()
        controller.delegate = recorder
        controller.deliversWholeChanges = true
        try controller.performFetch()
        try context.update(Note(id: 1, group: "c", rank: 1, version: 1))
        try context.delete(Note.self, id: 3)
        try context.save()
        let change = try #require(recorder.wholeChanges.first)
        expectEqual(change.sectionsAfter, controller.tableSections)
        let items = { (sections: [TableSection<Note>]) in sections.map { TableSection(name: $0.name, rows: $0.rows.map(\.item)) } }
        let changeset = TableChangeset(from: items(change.sectionsBefore), to: items(change.sectionsAfter))
        #expect(UIKitOracle.problems(of: changeset, from: items(change.sectionsBefore), to: items(change.sectionsAfter)).isEmpty)
        expectEqual(change.changeset.stages.count, changeset.stages.count)
    }
}
