import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableDiff
import TableTestSupport
import Testing

/// The keys a change reports: random edits of random keys — processed in
/// the controller's context (several before they are processed), saved in
/// another context and merged, rolled back — with and without a batch size;
/// every update and move reports exactly the keys whose values differ from
/// the record it replaced (an independent model keeps the last record each
/// object was reported with), and the delegate, the change stream and the
/// whole change agree.
@Suite struct ChangedKeysTests {
    final class Keys: FetchedResultsControllerDelegate {
        var reported: [Int: Set<String>?] = [:]
        var whole: [Int: Set<String>] = [:]
        var types: [Int: FetchedResultsChangeType] = [:]
        func controllerWillChangeContent(_ controller: FetchedResultsController<Note>) {
            reported = [:]
            types = [:]
        }
        func controller(
            _ controller: FetchedResultsController<Note>, didChange object: Note, at indexPath: TablePath?, for type: FetchedResultsChangeType,
            newIndexPath: TablePath?, changedKeys: Set<String>?
        ) {
            reported[object.id] = changedKeys
            types[object.id] = type
        }
        func controller(_ controller: FetchedResultsController<Note>, didChangeContentWith change: FetchedResultsChange<Note>) { whole = change.changedKeys }
    }

    /// The keys of `Note.recordKeys` whose values differ.
    static func differing(_ a: Note, _ b: Note) -> Set<String> {
        var keys = Set<String>()
        if a.group != b.group { keys.insert("group") }
        if a.rank != b.rank { keys.insert("rank") }
        if a.title != b.title { keys.insert("title") }
        if a.version != b.version { keys.insert("version") }
        if a.created != b.created { keys.insert("created") }
        if a.tags != b.tags { keys.insert("tags") }
        return keys
    }

    @Test(arguments: [0, 5])
    func updatesReportTheKeysThatChanged(batchSize: Int) async throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ UInt64(batchSize))
        let store = ObjectStore(for: Note.self)
        let view = ObjectContext(store: store, name: "view"), writer = ObjectContext(store: store, name: "writer")
        for id in 0..<60 { try view.insert(Note(id: id, group: ["a", "b"][id % 2], rank: id, title: "n\(id)")) }
        try view.save()
        var request = FetchRequest<Note>(sortKeys: [SortKey("group"), SortKey("rank")])
        request.fetchBatchSize = batchSize
        let controller = FetchedResultsController(fetchRequest: request, context: view, sectionNameKeyPath: "group")
        controller.deliversWholeChanges = g.chance(0.5)
        let keys = Keys()
        controller.delegate = keys
        try controller.performFetch()
        let stream = controller.changes()
        var iterator = stream.makeAsyncIterator()
        // What each object was last reported as (the view context's records).
        var shown = Dictionary(uniqueKeysWithValues: store.objects(Note.self).map { ($0.id, $0) })

        func edit(_ note: inout Note, _ g: inout SeededGenerator) {
            for _ in 0..<g.int(1...3) {
                switch g.int(0..<6) {
                case 0: note.group = ["a", "b", "c"][g.int(0..<3)]
                case 1: note.rank = g.int(0...100)
                case 2: note.title = g.chance(0.2) ? note.title : "t\(g.int(0...9))"   // sometimes the same value
                case 3: note.version += 1
                case 4: note.created = Date(timeIntervalSince1970: Double(g.int(0...9)))
                default: note.tags = g.chance(0.5) ? [] : ["x\(g.int(0...3))"]
                }
            }
        }

        for step in 0..<TestScale.cases(60, full: 300) {
            let context = "seed \(seed), batch size \(batchSize), step \(step)"
            let ids = Array(shown.keys)
            switch g.int(0..<3) {
            case 0:
                // In the view context: several edits before they are processed.
                for _ in 0..<g.int(1...4) {
                    guard let id = ids.randomElement(using: &g), var note = try view.object(Note.self, id: id) else { continue }
                    edit(&note, &g)
                    try view.update(note)
                }
                switch g.int(0..<3) {
                case 0: view.rollback()
                case 1: view.processPendingChanges()
                default: try view.save()
                }
            default:
                // Saved in another context, merged into the view's.
                for _ in 0..<g.int(1...4) {
                    guard let id = ids.randomElement(using: &g), var note = try writer.object(Note.self, id: id) else { continue }
                    edit(&note, &g)
                    try writer.update(note)
                }
                do {
                    view.mergeChanges(fromContextDidSave: try writer.save())
                } catch {
                    writer.rollback()   // (a conflict with the view's save)
                }
            }
            let reported = keys.reported
            if !reported.isEmpty, let event = await iterator.next() {
                for change in event.changes?.objects ?? [] where change.type == .update || change.type == .move {
                    #expect(change.changedKeys == reported[change.object.id] ?? nil, "\(context): the stream's keys of \(change.object.id)")
                }
            }
            // Every object: reported with exactly the keys that differ from
            // what it was last reported as, or unchanged.
            for id in ids {
                guard let old = shown[id], let now = try view.object(Note.self, id: id) else { continue }
                let changed = Self.differing(old, now)
                if let keysReported = reported[id] {
                    expectEqual(keysReported, changed, "\(context): object \(id) reported \(String(describing: keysReported)), changed \(changed.sorted())")
                    if controller.deliversWholeChanges {
                        expectEqual(keys.whole[id], changed, "\(context): the whole change's keys of \(id)")
                    }
                } else {
                    #expect(changed.isEmpty, "\(context): object \(id) changed \(changed.sorted()), not reported")
                }
                shown[id] = now
            }
            controller._checkInvariants()
        }
    }

    /// A record type without a declared key table compares its encoded
    /// fields; a dynamic object, its fields.
    @Test func undeclaredKeysAreTheEncodedFields() {
        struct Plain: Record, Codable {
            var id: Int
            var name: String
            var size: Double
        }
        expectEqual(Plain._changedKeys(from: Plain(id: 1, name: "a", size: 1), to: Plain(id: 1, name: "b", size: 1)), ["name"])
        expectEqual(Plain._changedKeys(from: Plain(id: 1, name: "a", size: 1), to: Plain(id: 1, name: "a", size: 1)), [])
        let a = DynamicObject(fields: DynamicRecord(fields: [("id", .int(1)), ("x", .int(1)), ("y", .string("é"))]))
        let b = DynamicObject(fields: DynamicRecord(fields: [("id", .int(1)), ("x", .double(1)), ("z", .null)]))
        expectEqual(DynamicObject._changedKeys(from: a, to: b), ["x", "y", "z"])
        // A declared table that does not name the property that changed: the encoded field.
        struct Partial: Record, Codable {
            var id: Int
            var shown: String
            var hidden: Int
            static let recordKeys: RecordKeys<Partial> = ["shown": RecordKey(\.shown)]
        }
        expectEqual(Partial._changedKeys(from: Partial(id: 1, shown: "a", hidden: 1), to: Partial(id: 1, shown: "a", hidden: 2)), ["hidden"])
        expectEqual(Partial._changedKeys(from: Partial(id: 1, shown: "a", hidden: 1), to: Partial(id: 1, shown: "b", hidden: 2)), ["shown"])
    }
}
