import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableDiff
import TableTestSupport
import Testing

/// Random inserts, updates (sort and section keys included) and deletes, saved
/// from several contexts, merged into a view context with a controller. After
/// every change: the controller's invariants hold; the delegate's callbacks replayed on the previous results give
/// the new ones; the new ones are what a fresh fetch gives; and the whole
/// change, as a staged changeset, replays under UIKit's rules.
@Suite struct FetchedResultsPropertyTests {
    struct Setup: CustomTestStringConvertible, Sendable {
        var name: String
        var sectioned: Bool
        var filtered: Bool
        var batchSize: Int
        var limited: Bool = false
        /// The predicate as a format string rather than a closure.
        var format: Bool = false
        var testDescription: String { name }
    }

    static let setups = [
        Setup(name: "sections", sectioned: true, filtered: false, batchSize: 0),
        Setup(name: "sections, predicate, batches", sectioned: true, filtered: true, batchSize: 3),
        Setup(name: "one section, format predicate", sectioned: false, filtered: true, batchSize: 0, format: true),
        Setup(name: "offset and limit", sectioned: false, filtered: false, batchSize: 0, limited: true),
    ]

    @Test(arguments: setups)
    func randomSavesFromSeveralContexts(_ setup: Setup) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ UInt64(setup.name.count))
        let groups = ["a", "b", "c", "d", "e"]
        let burst = NoteChangeBurst(groups: groups, changes: 1...4, noGroupOnInsert: 0)
        var nextID = 0
        var checks = 0
        let rounds = TestScale.cases(6, full: 12)
        for _ in 0..<rounds {
            let store = ObjectStore(for: Note.self)
            let view = ObjectContext(store: store, name: "view")
            let writers = [ObjectContext(store: store, name: "w1"), ObjectContext(store: store, name: "w2")]
            for _ in 0..<g.int(0...15) {
                try view.insert(Note(id: nextID, group: groups[g.int(0..<3)], rank: g.int(0...20)))
                nextID += 1
            }
            try view.save()
            var request = FetchRequest<Note>(sortKeys: setup.sectioned ? [SortKey("group"), SortKey("rank")] : [SortKey("rank", ascending: false)])
            if setup.filtered {
                request.predicate = setup.format ? try RecordPredicate(format: "modulus:by:(rank, %d) != 0", 5) : RecordPredicate { $0.rank % 5 != 0 }
            }
            request.fetchBatchSize = setup.batchSize
            if setup.limited { request.fetchOffset = 2; request.fetchLimit = 6 }
            let sectionKey = setup.sectioned ? "group" : nil
            let controller = FetchedResultsController(fetchRequest: request, context: view, sectionNameKeyPath: sectionKey)
            let recorder = Recorder()
            controller.delegate = recorder
            controller.deliversWholeChanges = true
            try controller.performFetch()
            controller._checkInvariants()

            for _ in 0..<25 {
                let before = controller.tableSections
                // A burst of changes in one context.
                let context = g.chance(0.3) ? view : writers[g.int(0..<2)]
                try burst.make(in: context, existing: store.objects(Note.self).map(\.id), nextID: &nextID, &g)
                // A save can collide with another context's (an update of a record
                // deleted elsewhere): the documented error, then a rollback.
                if context === view {
                    if g.chance(0.2) {
                        view.rollback()
                    } else if g.chance(0.5) {
                        view.processPendingChanges()
                    } else {
                        do { try view.save() } catch { view.rollback() }
                    }
                } else {
                    do {
                        view.mergeChanges(fromContextDidSave: try context.save())
                    } catch {
                        guard case .mergeConflicts = error else { throw error }
                        context.rollback()
                    }
                }
                // 0. The controller's state agrees with itself (debug builds).
                controller._checkInvariants()
                let events = recorder.take()
                let after = controller.tableSections
                let message = "seed \(seed) (TABLE_TEST_SEED=\(seed)), \(setup.name)\nbefore: \(describe(before))\nafter:  \(describe(after))\n\(events.map(\.description).joined(separator: "\n"))"

                // 1. The callbacks replayed on the results before give the results after.
                expectEqual(describe(replayCoreData(events, on: before)), describe(after), "\(message)")
                // 2. The results after are a fresh fetch's.
                let fresh = FetchedResultsController(fetchRequest: request, context: view, sectionNameKeyPath: sectionKey)
                try fresh.performFetch()
                fresh._checkInvariants()
                expectEqual(describe(fresh.tableSections), describe(after), "\(message)")
                // 3. The whole change replays under UIKit's rules.
                if !events.isEmpty {
                    let whole = try #require(recorder.wholeChanges.last)
                    let items = { (sections: [TableSection<Note>]) in sections.map { TableSection(name: $0.name, rows: $0.rows.map(\.item)) } }
                    #expect(describe(whole.sectionsBefore) == describe(before) && describe(whole.sectionsAfter) == describe(after))
                    let from = items(whole.sectionsBefore), to = items(whole.sectionsAfter)
                    let problems = UIKitOracle.problems(of: TableChangeset(from: from, to: to), from: from, to: to)
                    #expect(problems.isEmpty, "\(message)\n\(problems.joined(separator: "\n"))")
                    // Events come in Core Data's order: will, sections, objects, did.
                    #expect(events.first == .will && events.last == .did)
                }
                #expect(controller.lastError == nil)
                checks += 1
            }
        }
        expectEqual(checks, rounds * 25)
    }

    /// Sections that the first sort key stops ordering (sorted by rank,
    /// sectioned by group): after every save the sections the controller
    /// follows object by object — runs split and merged — are the runs of
    /// one name over the order (its invariants compare them), and the
    /// repeated names are noted.
    @Test func sectionsOutOfOrderAreFollowedRunByRun() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ 7)
        let groups = ["a", "b", "c", "d"]
        let burst = NoteChangeBurst(groups: groups, changes: 1...4, noGroupOnInsert: 0, noGroupOnEdit: 0)
        var nextID = 0, outOfOrder = 0
        for _ in 0..<8 {
            let store = ObjectStore(for: Note.self)
            let view = ObjectContext(store: store, name: "view")
            let writer = ObjectContext(store: store, name: "writer")
            // In order at first: the group follows the rank.
            for _ in 0..<g.int(5...30) {
                let rank = g.int(0...20)
                try view.insert(Note(id: nextID, group: groups[rank * groups.count / 21], rank: rank))
                nextID += 1
            }
            try view.save()
            let request = FetchRequest<Note>(sortKeys: [SortKey("rank")])
            let controller = FetchedResultsController(fetchRequest: request, context: view, sectionNameKeyPath: "group")
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            controller._checkInvariants()
            for _ in 0..<40 {
                try burst.make(in: writer, existing: store.objects(Note.self).map(\.id), nextID: &nextID, &g)
                do {
                    view.mergeChanges(fromContextDidSave: try writer.save())
                } catch {
                    writer.rollback()
                }
                controller._checkInvariants()
                _ = recorder.take()
                expectEqual(controller.numberOfObjectsInSections, (0..<controller.numberOfSections).map(controller.numberOfObjects(inSection:)), "seed \(seed)")
            }
            if controller.lastError != nil { outOfOrder += 1 }
        }
        #expect(outOfOrder > 0, "seed \(seed): the sections never went out of order")
    }
}
