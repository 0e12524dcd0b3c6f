import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableDiff
import TableTestSupport
import Testing

/// The controller's internals on their own, against simple oracles: the
/// batch cache, the section runs, and the controller's invariants when a
/// change makes the first sort key stop ordering the sections.
@Suite struct ControllerInternalsTests {
    // MARK: The batch cache

    @Test func theBatchCacheReadsABatchOnceAndDropsTheOldestFirst() {
        var cache = _BatchCache<String>(capacity: 2)
        var reads = 0
        func batch(_ number: Int) -> [String] {
            cache.batch(number) {
                reads += 1
                return ["\(number)a", "\(number)b"]
            }
        }
        #expect(batch(0) == ["0a", "0b"] && reads == 1)
        #expect(batch(0) == ["0a", "0b"] && reads == 1)   // held
        _ = batch(1)
        #expect(cache.count == 2 && reads == 2)
        _ = batch(2)   // drops 0, read longest ago
        #expect(cache.count == 2 && !cache.holds(0) && cache.holds(1) && cache.holds(2))
        _ = batch(1)   // held: reading it again does not make it newer
        _ = batch(3)   // drops 1
        #expect(!cache.holds(1) && cache.holds(2) && cache.holds(3) && reads == 4)
        cache.removeAll()
        #expect(cache.count == 0 && !cache.holds(2))
        #expect(_BatchCache<Int>(capacity: 0).capacity == 1)
    }

    /// Random reads and clears against a plain first-in-first-out list.
    @Test func theBatchCacheIsAFirstInFirstOutList() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for round in 0..<50 {
            let capacity = g.int(1...5)
            var cache = _BatchCache<Int>(capacity: capacity)
            var oracle: [Int] = []   // batch numbers, read longest ago first
            for step in 0..<100 {
                if g.chance(0.05) {
                    cache.removeAll()
                    oracle.removeAll()
                    continue
                }
                let number = g.int(0...8)
                var read = false
                let records = cache.batch(number) {
                    read = true
                    return [number * 10, number * 10 + 1]
                }
                let where_ = "seed \(seed) (TABLE_TEST_SEED=\(seed)), round \(round), step \(step)"
                expectEqual(records, [number * 10, number * 10 + 1], "\(where_)")
                expectEqual(read, !oracle.contains(number), "\(where_)")
                if !oracle.contains(number) {
                    oracle.append(number)
                    if oracle.count > capacity { oracle.removeFirst() }
                }
                cache._checkInvariants()
                #expect(cache.count == oracle.count && (0...8).allSatisfy { cache.holds($0) == oracle.contains($0) }, "\(where_)")
            }
        }
    }

    // MARK: Section runs

    /// Random names, in runs, against the runs and the first repeat worked
    /// out by hand from the whole list.
    @Test func sectionRunsMergeConsecutiveNamesAndFindTheFirstRepeat() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for round in 0..<200 {
            let names = (0..<g.int(0...30)).map { _ in ["a", "b", "c", "d"][g.int(0..<(g.chance(0.5) ? 2 : 4))] }
            var runs = _SectionRuns(checkingOrder: true), merged = _SectionRuns(checkingOrder: false)
            var inOrder: [Bool] = []
            for name in names {
                inOrder.append(runs.append(name))
                merged.append(name)
            }
            // The oracle.
            var expected: [_SectionRun] = []
            var firstRepeat: _SectionRuns.Repeat?
            for (k, name) in names.enumerated() {
                if k > 0 && names[k - 1] == name {
                    expected[expected.count - 1].count += 1
                } else {
                    if firstRepeat == nil && names[..<k].contains(name) { firstRepeat = _SectionRuns.Repeat(offset: k, name: name) }
                    expected.append(_SectionRun(name: name, count: 1))
                }
            }
            let where_ = "seed \(seed) (TABLE_TEST_SEED=\(seed)), round \(round): \(names)"
            #expect(runs.runs == expected && merged.runs == expected, "\(where_)")
            expectEqual(runs.count, names.count, "\(where_)")
            #expect(runs.firstRepeat == firstRepeat && merged.firstRepeat == nil, "\(where_)")
            expectEqual(inOrder.firstIndex(of: false), firstRepeat?.offset, "\(where_)")
        }
        // Runs of several objects at once, and an empty one.
        var runs = _SectionRuns(checkingOrder: true)
        runs.append("", count: 0)
        expectEqual(runs.runs, [_SectionRun(name: "", count: 0)])
        let inOrder = [runs.append("a", count: 3), runs.append("a", count: 2), runs.append("b", count: 1), runs.append("a", count: 4)]
        expectEqual(inOrder, [true, true, true, false])
        #expect(runs.runs.map(\.count) == [0, 5, 1, 4] && runs.count == 10 && runs.firstRepeat == _SectionRuns.Repeat(offset: 6, name: "a"))
    }

    // MARK: The controller's invariants

    func makeContext(_ notes: [Note]) throws -> ObjectContext {
        let context = ObjectContext(store: ObjectStore(for: Note.self))
        for note in notes { try context.insert(note) }
        try context.save()
        return context
    }

    /// A fetch replaces the controller's results whole: what the last ones
    /// left — a change's error, index titles worked out, batches read — is
    /// gone, and the new results hold together.
    @Test func aFetchReplacesWhatTheLastResultsLeft() throws {
        let context = try makeContext([Note(id: 1, group: "a", rank: 1), Note(id: 2, group: "b", rank: 2), Note(id: 3, group: "c", rank: 3)])
        var request = FetchRequest<Note>(sortKeys: [SortKey("rank")], fetchBatchSize: 1)
        let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: "group")
        let recorder = Recorder()
        controller.delegate = recorder
        try controller.performFetch()
        expectEqual(controller.sectionIndexTitles, ["A", "B", "C"])
        expectEqual(controller.fetchedObjects?.map(\.id), [1, 2, 3])   // every batch read
        try context.update(Note(id: 3, group: "a", rank: 3))   // a, b, a: "a" twice
        try context.save()
        expectEqual(controller.lastError, .sectionsOutOfOrder(index: 2, sectionName: "a"))
        controller._checkInvariants()
        request.predicate = try RecordPredicate(format: "group != 'b'")
        controller.fetchRequest = request
        try controller.performFetch()
        #expect(controller.lastError == nil)
        #expect(controller.sections?.map(\.name) == ["a"] && controller.sectionIndexTitles == ["A"])
        expectEqual(controller.fetchedObjects?.map(\.id), [1, 3])
        controller._checkInvariants()
    }

    /// Sections by group, ordered by rank: a change can make a group's
    /// objects two runs. After every random save the controller's state
    /// holds together; its objects are in the order of a controller without
    /// sections, its sections are their runs, and a name in two runs is
    /// noted in `lastError`.
    @Test func invariantsHoldWhenChangesPutASectionNameInTwoRuns() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let groups = ["a", "b", "c"]
        for round in 0..<10 {
            let context = try makeContext((0..<g.int(0...12)).map { Note(id: $0, group: groups[min(2, $0 / 5)], rank: $0) })
            let request = FetchRequest<Note>(sortKeys: [SortKey("rank")], fetchBatchSize: g.chance(0.3) ? 2 : 0)
            let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: "group")
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            controller._checkInvariants()
            var nextID = 100
            for step in 0..<20 {
                var live = context.store.objects(Note.self).map(\.id)   // in this context, as the burst goes
                for _ in 0..<g.int(1...3) {
                    if !live.isEmpty, g.chance(0.6), var note = try context.object(Note.self, id: live[g.int(0..<live.count)]) {
                        if g.chance(0.5) { note.rank = g.int(0...30) } else { note.group = groups[g.int(0..<3)] }
                        try context.update(note)
                    } else if !live.isEmpty, g.chance(0.3) {
                        try context.delete(Note.self, id: live.remove(at: g.int(0..<live.count)))
                    } else {
                        live.append(nextID)
                        try context.insert(Note(id: nextID, group: groups[g.int(0..<3)], rank: g.int(0...30)))
                        nextID += 1
                    }
                }
                try context.save()
                controller._checkInvariants()
                let where_ = "seed \(seed) (TABLE_TEST_SEED=\(seed)), round \(round), step \(step)"
                let plain = FetchedResultsController(fetchRequest: request, context: context)
                try plain.performFetch()
                let objects = plain.fetchedObjects ?? []
                expectEqual(controller.fetchedObjects?.map(\.id), objects.map(\.id), "\(where_)")
                var runs: [(String, Int)] = []
                for note in objects {
                    if let last = runs.last, last.0 == (note.group ?? "") { runs[runs.count - 1].1 += 1 } else { runs.append((note.group ?? "", 1)) }
                }
                #expect(controller.sections?.map(\.name) == runs.map(\.0) && controller.sections?.map(\.numberOfObjects) == runs.map(\.1), "\(where_)")
                if Set(runs.map(\.0)).count < runs.count {
                    #expect(controller.lastError != nil, "\(where_)")
                }
            }
        }
    }
}

/// A search index being made on a thread of its own stops when nobody will
/// take it: when the last search stops indexing, and when a new fetch starts
/// it again. It must not keep a core busy and the store's lock taken (a
/// delete right after the first screen waited on such threads).
@Suite struct SearchIndexMakingTests {
    static let rows = 50_000

    static func controller() throws -> FetchedResultsController<Note> {
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store)
        for id in 0..<rows { try context.insert(Note(id: id, group: nil, rank: id, title: "note \(id)")) }
        try context.save()
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("rank")]), context: context)
        try controller.performFetch()
        return controller
    }

    @Test func theLastSearchToStopStopsTheMaking() throws {
        let controller = try Self.controller()
        #expect(controller.startIndexing(["title"]))
        let making = try #require(controller.searchIndexBeingMade(["title"]))
        controller.stopIndexing(["title"])
        let made = making.wait()
        #expect(made.stale, "a stopped making is never taken")
        #expect(made.rows.count < Self.rows, "the making read every row after it was stopped")
        #expect(controller.searchIndexBeingMade(["title"]) == nil)
    }

    @Test func aNewFetchStopsTheMakingItReplaces() throws {
        let controller = try Self.controller()
        #expect(controller.startIndexing(["title"]))
        #expect(controller.startIndexing(["title"]))   // two users: one stop keeps it
        let first = try #require(controller.searchIndexBeingMade(["title"]))
        try controller.performFetch()
        let second = try #require(controller.searchIndexBeingMade(["title"]))
        #expect(first !== second)
        let made = first.wait()
        #expect(made.stale && made.rows.count < Self.rows)
        controller.stopIndexing(["title"])
        #expect(controller.searchIndexBeingMade(["title"]) === second, "one user is left")
        #expect(controller.waitForSearchIndex(["title"], until: Date() + 60))
        expectEqual(controller.searchIndex(["title"])?.count, Self.rows)
        controller.stopIndexing(["title"])
    }
}
