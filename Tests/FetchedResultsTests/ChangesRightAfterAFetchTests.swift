import Foundation
import Testing
import FetchedResults
import TableDiff
import TableTestSupport

/// A fetch of thousands of rows makes its identity index on a thread of its
/// own; a change right after it (before the index is made) finds the rows it
/// removes by their sort values instead of waiting. Whatever the timing, the
/// controller reports what a fetch gives, in Core Data's meaning.
@Suite struct ChangesRightAfterAFetchTests {
    @Test func changesWhileTheIdentityIndexIsMadeAreExact() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ 4096)
        for round in 0..<TestScale.cases(1, full: 3) {
            let context = ObjectContext(store: ObjectStore(for: Note.self))
            let count = 4_096 + g.int(0...3_000)
            for id in 0..<count {
                try context.insert(Note(id: id, group: ["a", "b", "c"][g.int(0..<3)], rank: g.int(0...50), title: "t\(g.int(0...20))"))
            }
            try context.save()
            let sectioned = g.chance(0.5)
            var request = FetchRequest<Note>(sortKeys: sectioned ? [SortKey("group"), SortKey("rank")] : [SortKey("rank", ascending: g.chance(0.5))])
            request.fetchBatchSize = g.chance(0.5) ? 50 : 0
            let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: sectioned ? "group" : nil)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            var nextID = count
            // At once after the fetch, then a few more: deletes and edits
            // first (found by sort values while the index is made), inserts after.
            for step in 0..<8 {
                let before = controller.tableSections
                let ids = controller.fetchedObjects?.map(\.id) ?? []
                for _ in 0..<g.int(1...5) {
                    let id = ids[g.int(0..<ids.count)]
                    switch g.int(0..<(step < 2 ? 2 : 3)) {
                    case 0: try? context.delete(Note.self, id: id)
                    case 1:
                        if var note = try context.object(Note.self, id: id) {
                            note.rank = g.int(0...50)
                            if g.chance(0.3) { note.group = ["a", "b", "c"][g.int(0..<3)] }
                            try context.update(note)
                        }
                    default:
                        try context.insert(Note(id: nextID, group: ["a", "b", "c"][g.int(0..<3)], rank: g.int(0...50)))
                        nextID += 1
                    }
                }
                try context.save()
                let where_ = "seed \(seed) (TABLE_TEST_SEED=\(seed)), round \(round), step \(step)"
                let expected = try context.fetch(request)
                expectEqual(controller.fetchedObjects?.map(\.id), expected.map(\.id), "\(where_)")
                let replayed = replayCoreData(recorder.take(), on: before)
                expectEqual(replayed.flatMap(\.rows).map(\.id), expected.map(\.id), "\(where_): the reported change replayed")
                if let last = expected.last { #expect(controller.indexPath(for: last) != nil, "\(where_)") }
            }
        }
    }
}
