import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableDiff
import TableTestSupport
import Testing

/// `FetchedResultsController.changes(includingSnapshots:)`: the controller's
/// changes as an `AsyncSequence`, consumed on other threads (the main actor,
/// the global executor) while the controller changes on the test's — run
/// under the thread sanitizer in CI.
@Suite struct FetchedResultsChangeStreamTests {
    /// An event as the delegate's calls it stands for (the `Recorder`'s events).
    static func calls(_ event: FetchedResultsEvent<Note>) -> [Recorder.Event] {
        switch event {
        case .failed(let error):
            return [.failed(error)]
        case .changed(let changes):
            return [.will] + changes.sections.map { .section(name: $0.name, index: $0.sectionIndex, $0.type) }
                + changes.objects.map { .object($0.object, at: $0.indexPath, $0.type, new: $0.newIndexPath) } + [.did]
        }
    }

    /// Collects a sequence's events until it ends, on the global executor or the main actor.
    static func consume(_ stream: AsyncStream<FetchedResultsEvent<Note>>, onMainActor: Bool) -> Task<[FetchedResultsEvent<Note>], Never> {
        if onMainActor {
            return Task { @MainActor in
                var events: [FetchedResultsEvent<Note>] = []
                var iterator = stream.makeAsyncIterator()   // next(): `for await` takes next(isolation:), newer than the floors
                while let event = await iterator.next() { events.append(event) }
                return events
            }
        }
        return Task {
            var events: [FetchedResultsEvent<Note>] = []
            var iterator = stream.makeAsyncIterator()
            while let event = await iterator.next() { events.append(event) }
            return events
        }
    }

    /// The number of objects of the first event, then stops.
    static func firstObjectCount(_ stream: AsyncStream<FetchedResultsEvent<Note>>) -> Task<Int?, Never> {
        Task {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()?.changes?.objects.count
        }
    }

    struct Setup: CustomTestStringConvertible, Sendable {
        var name: String
        var sectioned: Bool
        /// A predicate that cannot evaluate rank 0: some changes fail.
        var failing: Bool
        var wholeChanges: Bool
        var testDescription: String { name }
    }

    /// Random saves from two contexts: every consumer — on the main actor, on
    /// the global executor, with snapshots or without, and one that starts
    /// half way — gets exactly the delegate's reports from its start, in
    /// order, each snapshot the results right after its change; when the
    /// controller is released, every sequence ends.
    @Test(arguments: [
        Setup(name: "sections", sectioned: true, failing: false, wholeChanges: false),
        Setup(name: "one section, failures, whole changes", sectioned: false, failing: true, wholeChanges: true),
    ])
    func theSequencesYieldExactlyTheDelegatesReportsInOrder(_ setup: Setup) async throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ UInt64(setup.name.count))
        let groups = ["a", "b", "c", "d"]
        let burst = NoteChangeBurst(groups: groups, changes: 1...4, noGroupOnInsert: 0)
        var nextID = 0
        var failures = 0
        for round in 0..<4 {
            let store = ObjectStore(for: Note.self)
            let view = ObjectContext(store: store, name: "view")
            let writer = ObjectContext(store: store, name: "writer")
            for _ in 0..<g.int(0...12) {
                try view.insert(Note(id: nextID, group: groups[g.int(0..<3)], rank: g.int(1...20)))
                nextID += 1
            }
            try view.save()
            var request = FetchRequest<Note>(sortKeys: setup.sectioned ? [SortKey("group"), SortKey("rank")] : [SortKey("rank", ascending: false)])
            if setup.failing { request.predicate = try RecordPredicate(format: "10 / rank >= 0") }
            var controller: FetchedResultsController<Note>? = FetchedResultsController(
                fetchRequest: request, context: view, sectionNameKeyPath: setup.sectioned ? "group" : nil)
            let recorder = Recorder()
            controller!.delegate = recorder
            controller!.deliversWholeChanges = setup.wholeChanges
            try controller!.performFetch()
            let early = [
                Self.consume(controller!.changes(), onMainActor: round % 2 == 0),
                Self.consume(controller!.changes(includingSnapshots: true), onMainActor: round % 2 == 1),
            ]
            var late: Task<[FetchedResultsEvent<Note>], Never>?
            var lateFrom = 0
            var snapshots: [TableSnapshot<String, Int>?] = []   // after each report, when it changed something
            var wholes: [[TableSection<Note>]] = []
            for step in 0...30 {
                if step == 15 {
                    late = Self.consume(controller!.changes(includingSnapshots: true), onMainActor: false)
                    lateFrom = recorder.events.count
                }
                // Where predicates fail, the last step surely makes a failure (not left
                // to the seed's ranks): a note of rank 0 (10 / rank throws), alone in a save of the view.
                if step == 30 && !setup.failing { break }
                let context = step == 30 ? view : g.chance(0.4) ? view : writer
                if step == 30 {
                    try view.insert(Note(id: nextID, group: groups[0], rank: 0))
                    nextID += 1
                } else {
                    try burst.make(in: context, existing: store.objects(Note.self).map(\.id), nextID: &nextID, &g)
                }
                let before = recorder.events.count
                context.saveOrRollBack(mergingInto: view)
                // A save is reported once, or not at all: what the results are then.
                guard recorder.events.count > before else { continue }
                if case .failed = recorder.events.last! {
                    failures += 1
                    snapshots.append(nil)
                    wholes.append([])
                } else {
                    snapshots.append(try? controller!.snapshot())
                    wholes.append(controller!.tableSections)
                }
            }
            let told = recorder.events
            controller = nil   // the sequences end
            let plain = await early[0].value
            let withSnapshots = await early[1].value
            let fromHalfWay = await late!.value
            expectEqual(plain.flatMap(Self.calls), told, "seed \(seed)")
            expectEqual(withSnapshots.flatMap(Self.calls), told, "seed \(seed)")
            expectEqual(fromHalfWay.flatMap(Self.calls), Array(told[lateFrom...]), "seed \(seed)")
            #expect(plain.count == snapshots.count && !plain.isEmpty, "seed \(seed): one event per report")
            for (k, event) in withSnapshots.enumerated() where k < snapshots.count {
                #expect(plain[k].changes?.snapshot == nil)
                guard case .changed(let changes) = event else { continue }
                expectEqual(changes.snapshot?.sectionIdentifiers, snapshots[k]?.sectionIdentifiers, "seed \(seed)")
                expectEqual(changes.snapshot?.itemIdentifiers, snapshots[k]?.itemIdentifiers, "seed \(seed)")
                // Updated and moved objects are marked as the controller marks them (reconfigured).
                let changed = Set(changes.objects.filter { $0.type == .update || $0.type == .move }.map(\.object.id))
                expectEqual(Set(changes.snapshot?.reconfiguredItemIdentifiers ?? []), changed, "seed \(seed)")
                expectEqual((changes.wholeChange?.sectionsAfter.map(\.rows)), (setup.wholeChanges ? wholes[k].map(\.rows) : nil), "seed \(seed)")
            }
        }
        // Failures were among the reports (rank 0: the last step's, at least), or none could be.
        #expect(setup.failing ? failures > 0 : failures == 0, "seed \(seed)")
    }

    /// A consumer that stops — leaving its loop, or cancelled — is let go at
    /// once; the others go on; a controller followed by a sequence alone
    /// follows its context.
    @Test func aConsumerThatStopsIsReleased() async throws {
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store)
        var controller: FetchedResultsController<Note>! = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("rank")]), context: context)
        try controller.performFetch()
        var first: Task<Int?, Never>? = Self.firstObjectCount(controller.changes())
        let waiting = Self.consume(controller.changes(), onMainActor: true)
        let stays = Self.consume(controller.changes(), onMainActor: false)
        expectEqual(controller._changeConsumerCount, 3)
        try context.insert(Note(id: 1, group: nil, rank: 1))
        try context.save()                                 // no delegate: the sequences alone are told
        await expectEqual(first?.value, 1)
        first = nil                                        // the loop left: the sequence is released with its task
        waiting.cancel()
        #expect(await waiting.value.count <= 1)
        // The stopped consumers' sequences are gone (their ends run as their tasks finish).
        var polls = 0
        while controller._changeConsumerCount > 1 && polls < 200 {
            try await Task.sleep(nanoseconds: 5_000_000)
            polls += 1
        }
        expectEqual(controller._changeConsumerCount, 1)
        try context.insert(Note(id: 2, group: nil, rank: 2))
        try context.save()
        expectEqual(controller.fetchedObjects?.map(\.id), [1, 2])
        controller = nil
        let events = await stays.value
        expectEqual(events.map { $0.changes?.objects.map(\.newIndexPath) }, [[TablePath(row: 0, section: 0)], [TablePath(row: 1, section: 0)]])
    }

    /// Values cross threads: a record change made on the controller's thread
    /// arrives on the main actor as a `Sendable` value, the index paths as
    /// they were when the change was reported (not as the controller is now).
    @Test func eventsKeepThePathsOfTheirChange() async throws {
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store)
        var controller: FetchedResultsController<Note>? = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("rank")]), context: context)
        try controller!.performFetch()
        let task = Self.consume(controller!.changes(), onMainActor: true)
        for rank in [5, 3, 4, 1] {
            try context.insert(Note(id: rank, group: nil, rank: rank))
            try context.save()
        }
        controller = nil
        let events = await task.value
        expectEqual(events.map { $0.changes?.objects.first?.newIndexPath?.row }, [0, 0, 1, 0])
        expectEqual(events.map { $0.changes?.objects.first?.object.id }, [5, 3, 4, 1])
    }
}
