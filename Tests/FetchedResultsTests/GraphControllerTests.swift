import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableDiff
import TableTestSupport
import Testing

// Issue 28, items 3 and 4: key paths after a SUBQUERY variable and collection
// operators in sort keys; a controller over a graph that follows the objects
// its key paths read. Models and the test model are ObjectGraphTests'.

/// Records a graph controller's callbacks as one UIKit batch per change,
/// by the rule of the table binding (`_ReportedChange`).
final class GraphRecorder: GraphFetchedResultsControllerDelegate {
    var update = BatchUpdate()
    var batches: [BatchUpdate] = []
    var events: [String] = []
    var failures: [GraphFetchError] = []
    var open = false

    func controllerWillChangeContent(_ controller: GraphFetchedResultsController) {
        #expect(!open)
        open = true
        update = BatchUpdate()
    }
    func controller(_ controller: GraphFetchedResultsController, didChange section: FetchedResultsSectionInfo<GraphObject>, atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        events.append("\(type) section \(sectionIndex) \(section.name)")
        switch type {
        case .insert: update.insertedSections.append(sectionIndex)
        case .delete: update.deletedSections.append(sectionIndex)
        default: Issue.record("section \(type)")
        }
    }
    func controller(_ controller: GraphFetchedResultsController, didChange object: GraphObject, at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?) {
        events.append("\(type) \(object.id.key) \(indexPath.map { "\($0)" } ?? "-") → \(newIndexPath.map { "\($0)" } ?? "-")")
        switch type {
        case .insert: if let newIndexPath { update.insertedRows.append(newIndexPath) }
        case .delete: if let indexPath { update.deletedRows.append(indexPath) }
        case .move:
            guard let indexPath, let newIndexPath else { return }
            // As the table binding does: out of a deleted section, or into an
            // inserted one, a move is a delete and an insert for UIKit.
            if update.deletedSections.contains(indexPath.section) || update.insertedSections.contains(newIndexPath.section) {
                update.deletedRows.append(indexPath)
                update.insertedRows.append(newIndexPath)
            } else {
                update.movedRows.append(Move(from: indexPath, to: newIndexPath))
            }
        case .update: if let indexPath { update.reloadedRows.append(indexPath) }
        }
    }
    func controllerDidChangeContent(_ controller: GraphFetchedResultsController) {
        #expect(open)
        open = false
        batches.append(update)
    }
    func controller(_ controller: GraphFetchedResultsController, didFailWith error: GraphFetchError) { failures.append(error) }
}

/// The controller's results as a table of the objects' integer keys.
func graphTable(_ controller: GraphFetchedResultsController) -> Table {
    (controller.sections ?? []).map { section in
        TableSection(name: section.name, rows: section.objects.map { object in
            if case .int(let id) = object.id.key { return Item(id: id) }
            return Item(id: -1)
        })
    }
}

@Suite struct GraphControllerTests {
    static func keys(_ objects: [GraphObject]) -> [Int] {
        objects.map { if case .int(let i) = $0.id.key { i } else { -1 } }
    }

    /// Entries 1 (month 1, "Fog") and 2 (month 2, "Rain"); media 10, 11 of
    /// entry 1, photo 12 of entry 2, medium 13 of none.
    static func diary() throws -> ObjectGraphContext {
        let context = ObjectGraphContext(store: ObjectGraphStore(model: graphModel))
        try context.insert(GEntry(id: 1, text: "Fog", month: 1))
        try context.insert(GEntry(id: 2, text: "Rain", month: 2))
        try context.insert(GMedium(id: 10, type: "image", kb: 5, entry: 1))
        try context.insert(GMedium(id: 11, type: "audio", kb: 50, entry: 1))
        try context.insert(GPhoto(id: 12, type: "image", kb: 7, width: 640, entry: 2), entity: "Photo")
        try context.insert(GMedium(id: 13, type: "video", kb: 1))
        try context.save()
        return context
    }

    @Test func keyPathsAfterASubqueryVariableGoThroughRelationships() throws {
        let context = try Self.diary()
        func media(_ format: String) throws -> [Int] {
            Self.keys(try context.fetch(GraphFetchRequest(entityName: "Medium", predicate: try FormatPredicate(format: format), sortKeys: [SortKey("id")])))
        }
        func entries(_ format: String) throws -> [Int] {
            Self.keys(try context.fetch(GraphFetchRequest(entityName: "Entry", predicate: try FormatPredicate(format: format), sortKeys: [SortKey("id")])))
        }
        // $m.entry.text: a to-one step after the variable, back to the entry.
        #expect(try entries("SUBQUERY(media, $m, $m.entry.text == 'Fog').@count > 0") == [1])
        #expect(try entries("SUBQUERY(media, $m, $m.entry.month == 2 AND $m.type == 'image').@count == 1") == [2])
        // Two steps, through a to-many relationship: the media of the entry of each medium.
        #expect(try entries("SUBQUERY(media, $m, $m.entry.media.@count == 2).@count > 0") == [1])
        #expect(try entries("SUBQUERY(media, $m, ANY $m.entry.media.type == 'audio').@count == 2") == [1])
        // Nested: a SUBQUERY over the entry's media of each medium.
        #expect(try entries("SUBQUERY(media, $m, SUBQUERY($m.entry.media, $n, $n.kb > 40).@count > 0).@count > 0") == [1])
        // From a medium, a SUBQUERY over a to-many relationship of its entry.
        #expect(try media("SUBQUERY(entry.media, $n, $n.entry.text == 'Rain').@count > 0") == [12])
        // Without a relationship after the variable, as before.
        #expect(try entries("SUBQUERY(media, $m, $m.kb > 40).@count > 0") == [1])
        // Deleting the related object is seen.
        try context.update(GEntry(id: 1, text: "Snow", month: 1, media: [10, 11]))
        #expect(try entries("SUBQUERY(media, $m, $m.entry.text == 'Fog').@count > 0") == [])
    }

    @Test func collectionOperatorsAsSortKeys() throws {
        let context = try Self.diary()
        try context.insert(GEntry(id: 3, text: "Sun", month: 3))
        func entries(_ keys: [SortKey]) throws -> [Int] {
            Self.keys(try context.fetch(GraphFetchRequest(entityName: "Entry", sortKeys: keys)))
        }
        #expect(try entries([SortKey("media.@count", ascending: false), SortKey("id")]) == [1, 2, 3])
        #expect(try entries([SortKey("media.@count"), SortKey("id", ascending: false)]) == [3, 2, 1])
        #expect(try entries([SortKey("media.@sum.kb", ascending: false)]) == [1, 2, 3])
        #expect(try entries([SortKey("media.@max.kb")]) == [3, 2, 1])   // nil first, then 7, then 50
        #expect(try entries([SortKey("media.@min.kb", ascending: false)]) == [2, 1, 3])
        let controller = GraphFetchedResultsController(
            fetchRequest: GraphFetchRequest(entityName: "Entry", sortKeys: [SortKey("media.@count", ascending: false), SortKey("id")]), context: context)
        let recorder = GraphRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(Self.keys(controller.fetchedObjects ?? []) == [1, 2, 3])
        // Relinking a medium changes two entries' counts: 2 has two media now, 1 one.
        try context.update(GMedium(id: 11, type: "audio", kb: 50, entry: 2))
        #expect(Self.keys(controller.fetchedObjects ?? []) == [2, 1, 3])
        try context.insert(GMedium(id: 14, type: "image", kb: 1, entry: 3))
        try context.insert(GMedium(id: 15, type: "image", kb: 1, entry: 3))
        try context.insert(GMedium(id: 16, type: "image", kb: 1, entry: 3))
        #expect(Self.keys(controller.fetchedObjects ?? []) == [3, 2, 1])
        #expect(recorder.batches.count == 4)
    }

    @Test func anEntrysMonthEditedMovesItsMediaToAnotherSection() throws {
        let context = try Self.diary()
        let controller = GraphFetchedResultsController(
            fetchRequest: GraphFetchRequest(entityName: "Medium", predicate: try FormatPredicate(format: "entry != nil"), sortKeys: [SortKey("entry.month"), SortKey("kb")]),
            context: context, sectionNameKeyPath: "entry.month")
        let recorder = GraphRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(describe(graphTable(controller)) == "1: 10 11 | 2: 12")
        #expect(controller.sections?.map(\.indexTitle) == ["1", "2"])

        var old = graphTable(controller)
        func check(_ expected: String, batches: Int = 1, _ location: SourceLocation = #_sourceLocation) throws {
            let new = graphTable(controller)
            #expect(describe(new) == expected, sourceLocation: location)
            #expect(recorder.batches.count == batches, sourceLocation: location)
            for update in recorder.batches {
                switch UIKitOracle.replay(update, displayed: old, data: new) {
                case .failure(let refusal): Issue.record("UIKit refuses \(update): \(refusal)", sourceLocation: location)
                case .success(let result): #expect(result == new, sourceLocation: location)
                }
            }
            recorder.batches.removeAll()
            old = new
        }
        // The entry's month: its two media leave section 1 (deleted) for a new section 3.
        try context.update(GEntry(id: 1, text: "Fog", month: 3, media: [10, 11]))
        try check("2: 12 | 3: 10 11")
        #expect(recorder.events == ["delete section 0 1", "insert section 1 3", "move 10 {0, 0} → {1, 0}", "move 11 {0, 1} → {1, 1}"])
        // A medium relinked to the other entry moves.
        try context.update(GMedium(id: 11, type: "audio", kb: 50, entry: 2))
        try check("2: 12 11 | 3: 10")
        // Unlinked: it leaves (the predicate); linked again: it comes back.
        try context.update(GMedium(id: 10, type: "image", kb: 5, entry: nil))
        try check("2: 12 11")
        try context.update(GMedium(id: 13, type: "video", kb: 1, entry: 2))
        try check("2: 13 12 11")
        // An entry's text is read by no key path: nothing is reported.
        try context.update(GEntry(id: 2, text: "Drizzle", month: 2, media: [12, 11, 13]))
        try check("2: 13 12 11", batches: 0)
        // Deleting the entry cascades to its media.
        try context.delete(GEntry.self, id: 2)
        try check("(no sections)")
        try context.save()
        #expect(controller.lastError == nil && recorder.failures.isEmpty)
        #expect(try controller.snapshot().numberOfItems == 0)
    }

    @Test func errorsAreTyped() throws {
        let context = try Self.diary()
        let unfetched = GraphFetchedResultsController(fetchRequest: GraphFetchRequest(entityName: "Medium", sortKeys: [SortKey("id")]), context: context)
        #expect(throws: GraphFetchError.controller(.notFetched)) { _ = try unfetched.object(at: TablePath(row: 0, section: 0)) }
        #expect(unfetched.fetchedObjects == nil && unfetched.numberOfSections == 0)
        #expect(throws: GraphFetchError.controller(.noSortKeys)) {
            try GraphFetchedResultsController(fetchRequest: GraphFetchRequest(entityName: "Medium"), context: context).performFetch()
        }
        #expect(throws: GraphFetchError.unknownEntity("Nope")) {
            try GraphFetchedResultsController(fetchRequest: GraphFetchRequest(entityName: "Nope", sortKeys: [SortKey("id")]), context: context).performFetch()
        }
        #expect(throws: GraphFetchError.unknownKey(entity: "Entry", keyPath: "entry.nope", key: "nope")) {
            try GraphFetchedResultsController(fetchRequest: GraphFetchRequest(entityName: "Medium", sortKeys: [SortKey("entry.nope")]), context: context).performFetch()
        }
        #expect(throws: GraphFetchError.controller(.negativeSetting("fetchLimit", -1))) {
            try GraphFetchedResultsController(fetchRequest: GraphFetchRequest(entityName: "Medium", sortKeys: [SortKey("id")], fetchLimit: -1), context: context).performFetch()
        }
        // Sections not ordered by the first sort key: Core Data's error.
        #expect(throws: GraphFetchError.controller(.sectionsOutOfOrder(index: 2, sectionName: "1"))) {
            try GraphFetchedResultsController(
                fetchRequest: GraphFetchRequest(entityName: "Medium", predicate: try FormatPredicate(format: "entry != nil"), sortKeys: [SortKey("kb")]),
                context: context, sectionNameKeyPath: "entry.month").performFetch()
        }
        let controller = GraphFetchedResultsController(fetchRequest: GraphFetchRequest(entityName: "Medium", sortKeys: [SortKey("id")]), context: context)
        try controller.performFetch()
        #expect(throws: GraphFetchError.controller(.noObject(at: TablePath(row: 9, section: 0), sectionCount: 1, rowCount: 4))) {
            _ = try controller.object(at: TablePath(row: 9, section: 0))
        }
        #expect(controller.objectID(at: TablePath(row: 9, section: 0)) == nil)
        let twelve = try context.objectID(GMedium.self, id: 12)
        #expect(controller.indexPath(forObjectWithID: twelve) == TablePath(row: 2, section: 0))
        #expect(try controller.object(at: TablePath(row: 2, section: 0)).entityName == "Photo")
    }

    @Test func aLimitedRequestFollowsItsWindowAsAFetchDoes() throws {
        let context = try Self.diary()
        let request = GraphFetchRequest(entityName: "Medium", sortKeys: [SortKey("entry.month", ascending: false), SortKey("kb")], fetchLimit: 2)
        let controller = GraphFetchedResultsController(fetchRequest: request, context: context)
        let recorder = GraphRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(Self.keys(controller.fetchedObjects ?? []) == Self.keys(try context.fetch(request)))
        #expect(Self.keys(controller.fetchedObjects ?? []) == [12, 10])
        try context.update(GEntry(id: 1, text: "Fog", month: 5, media: [10, 11]))
        #expect(Self.keys(controller.fetchedObjects ?? []) == [10, 11])
        #expect(Self.keys(controller.fetchedObjects ?? []) == Self.keys(try context.fetch(request)))
        #expect(recorder.batches.count == 1)
    }

    @Test func aReferenceToADeletedObjectIsReportedAsAFailure() throws {
        let context = try Self.diary()
        // Entry 1's cover is medium 11 (noAction): deleting the entry leaves 11.coverOf dangling.
        try context.update(GEntry(id: 1, text: "Fog", month: 1, media: [10, 11], cover: 11))
        let controller = GraphFetchedResultsController(
            fetchRequest: GraphFetchRequest(entityName: "Medium", sortKeys: [SortKey("coverOf.month"), SortKey("id")]), context: context)
        let recorder = GraphRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        let before = Self.keys(controller.fetchedObjects ?? [])
        try context.update(GMedium(id: 11, type: "audio", kb: 50, entry: nil, coverOf: 1))   // the medium leaves the entry, stays its cover
        recorder.batches.removeAll()
        try context.delete(GEntry.self, id: 1)   // cascades to 10; 11 still says it is entry 1's cover
        let dangling = ObjectGraphError.danglingReference(
            object: try context.objectID(GMedium.self, id: 11), relationship: "coverOf", destination: try context.objectID(GEntry.self, id: 1))
        #expect(recorder.failures == [.graph(dangling)])
        #expect(controller.lastError == .graph(dangling))
        #expect(recorder.batches.isEmpty && Self.keys(controller.fetchedObjects ?? []) == before)
        // Repaired, and fetched again: up to date.
        try context.update(GMedium(id: 11, type: "audio", kb: 50, entry: nil, coverOf: nil))
        try controller.performFetch()
        #expect(controller.lastError == nil)
        #expect(Self.keys(controller.fetchedObjects ?? []) == Self.keys(try context.fetch(controller.fetchRequest)))
    }

    // MARK: Seeded random edits

    /// The three controllers of the random test, and how each is worked out by hand.
    enum Query: CaseIterable {
        /// Media by their entry's month (sections), then kb.
        case mediaByMonth
        /// Entries with an image, by their count of media (descending), then text.
        case entriesByMediaCount
        /// Entries by month (sections) with a big medium whose entry's month is past 1.
        case entriesWithBigMedia

        var request: GraphFetchRequest {
            switch self {
            case .mediaByMonth:
                return GraphFetchRequest(entityName: "Medium", sortKeys: [SortKey("entry.month"), SortKey("kb")])
            case .entriesByMediaCount:
                return GraphFetchRequest(
                    entityName: "Entry", predicate: try? FormatPredicate(format: "ANY media.type == 'image'"),
                    sortKeys: [SortKey("media.@count", ascending: false), SortKey("text")])
            case .entriesWithBigMedia:
                return GraphFetchRequest(
                    entityName: "Entry", predicate: try? FormatPredicate(format: "SUBQUERY(media, $m, $m.kb > 50 AND $m.entry.month > 1).@count > 0"),
                    sortKeys: [SortKey("month"), SortKey("id", ascending: false)])
            }
        }

        var sectionNameKeyPath: String? {
            switch self {
            case .mediaByMonth: "entry.month"
            case .entriesByMediaCount: nil
            case .entriesWithBigMedia: "month"
            }
        }

        /// Filter, sort (stable, in the order of insertion) and group by hand.
        func expected(_ g: Graph) -> Table {
            struct Row {
                var id: Int
                var section: String
                var keys: [Int]
                var text: String
            }
            var rows: [Row] = []
            switch self {
            case .mediaByMonth:
                for id in g.mediumOrder {
                    guard let m = g.media[id] else { continue }
                    let month = m.entry.flatMap { g.entries[$0]?.month }
                    // nil sorts first: Int.min stands for it.
                    rows.append(Row(id: id, section: month.map(String.init) ?? "", keys: [month ?? Int.min, m.kb], text: ""))
                }
            case .entriesByMediaCount:
                for id in g.entryOrder {
                    guard let e = g.entries[id], e.media.contains(where: { g.media[$0]?.type == "image" }) else { continue }
                    rows.append(Row(id: id, section: "", keys: [-e.media.count], text: e.text))
                }
            case .entriesWithBigMedia:
                for id in g.entryOrder {
                    guard let e = g.entries[id], e.month > 1, e.media.contains(where: { (g.media[$0]?.kb ?? 0) > 50 }) else { continue }
                    rows.append(Row(id: id, section: "\(e.month)", keys: [e.month, -id], text: ""))
                }
            }
            let sorted = rows.enumerated().sorted { a, b in
                if a.element.keys != b.element.keys { return a.element.keys.lexicographicallyPrecedes(b.element.keys) }
                if a.element.text != b.element.text { return a.element.text < b.element.text }
                return a.offset < b.offset
            }.map(\.element)
            if sectionNameKeyPath == nil { return [TableSection(name: "", rows: sorted.map { Item(id: $0.id) })] }
            var table: Table = []
            for row in sorted {
                if table.last?.name != row.section { table.append(TableSection(name: row.section, rows: [])) }
                table[table.count - 1].rows.append(Item(id: row.id))
            }
            return table
        }
    }

    /// The entries and media as plain values, read back from the context
    /// after each step (the relationships' rules are ObjectGraphTests'
    /// business); the order of insertion kept here.
    struct Graph {
        var entries: [Int: (month: Int, text: String, media: [Int])] = [:]
        var media: [Int: (type: String, kb: Int, entry: Int?)] = [:]
        var entryOrder: [Int] = []
        var mediumOrder: [Int] = []
    }

    static func read(_ context: ObjectGraphContext, into g: inout Graph) throws {
        g.entries = [:]
        g.media = [:]
        for object in try context.fetch(GraphFetchRequest(entityName: "Entry")) {
            guard let e = object.as(GEntry.self) else { continue }
            g.entries[e.id] = (e.month, e.text, e.media)
        }
        for object in try context.fetch(GraphFetchRequest(entityName: "Medium")) {
            if let m = object.as(GMedium.self) { g.media[m.id] = (m.type, m.kb, m.entry) }
            if let p = object.as(GPhoto.self) { g.media[p.id] = (p.type, p.kb, p.entry) }
        }
        g.entryOrder.removeAll { g.entries[$0] == nil }
        g.mediumOrder.removeAll { g.media[$0] == nil }
    }

    @Test(arguments: 0..<3)
    func randomEditsAreFollowedAndEachReportIsOneBatchUIKitAccepts(round: Int) throws {
        let seed = SeededGenerator.runSeed() &+ UInt64(round)
        var g = SeededGenerator(seed: seed)
        let store = ObjectGraphStore(model: graphModel)
        let main = ObjectGraphContext(store: store, name: "main")
        let other = ObjectGraphContext(store: store, name: "other")
        var graph = Graph()
        var nextID = 1
        let texts = ["Fog", "Rain", "Sun", "Snow"], types = ["image", "audio", "video"]
        // A few objects first.
        for _ in 0..<6 {
            try main.insert(GEntry(id: nextID, text: texts[g.int(0..<texts.count)], month: g.int(1...4)))
            graph.entryOrder.append(nextID)
            nextID += 1
        }
        for _ in 0..<12 {
            let entry = g.chance(0.8) ? graph.entryOrder[g.int(0..<graph.entryOrder.count)] : nil
            try main.insert(GMedium(id: nextID, type: types[g.int(0..<types.count)], kb: g.int(0...100), entry: entry))
            graph.mediumOrder.append(nextID)
            nextID += 1
        }
        other.mergeChanges(fromContextDidSave: try main.save())

        var controllers: [(Query, GraphFetchedResultsController, GraphRecorder, Table)] = []
        for query in Query.allCases {
            let controller = GraphFetchedResultsController(fetchRequest: query.request, context: main, sectionNameKeyPath: query.sectionNameKeyPath)
            let recorder = GraphRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            try Self.read(main, into: &graph)
            #expect(graphTable(controller) == query.expected(graph), "seed \(seed): \(query) fetched")
            controllers.append((query, controller, recorder, graphTable(controller)))
        }
        var reported = 0
        for step in 0..<80 {
            // Most steps in the main context; some in the other, saved and merged.
            let inOther = g.chance(0.25)
            let context = inOther ? other : main
            let entries = graph.entryOrder, media = graph.mediumOrder
            let what: String
            switch g.int(0..<9) {
            case 0:
                try context.insert(GEntry(id: nextID, text: texts[g.int(0..<texts.count)], month: g.int(1...4)))
                graph.entryOrder.append(nextID)
                what = "insert entry \(nextID)"
                nextID += 1
            case 1, 2:
                let entry = entries.isEmpty || g.chance(0.15) ? nil : entries[g.int(0..<entries.count)]
                if g.chance(0.3) {
                    try context.insert(GPhoto(id: nextID, type: "image", kb: g.int(0...100), width: 10, entry: entry), entity: "Photo")
                } else {
                    try context.insert(GMedium(id: nextID, type: types[g.int(0..<types.count)], kb: g.int(0...100), entry: entry))
                }
                graph.mediumOrder.append(nextID)
                what = "insert medium \(nextID) of \(entry.map(String.init) ?? "none")"
                nextID += 1
            case 3, 4:
                // Relink a medium (or unlink it).
                guard let id = media.randomElement(using: &g), let object = try context.object(withID: try context.objectID(GMedium.self, id: id)) else { continue }
                let entry = entries.isEmpty || g.chance(0.15) ? nil : entries[g.int(0..<entries.count)]
                if var m = object.as(GMedium.self) {
                    m.entry = entry
                    try context.update(m)
                } else if var p = object.as(GPhoto.self) {
                    p.entry = entry
                    try context.update(p, entity: "Photo")
                }
                what = "relink \(id) to \(entry.map(String.init) ?? "none")"
            case 5, 6:
                // Edit a related object's keys: an entry's month or text, a medium's kb or type.
                if g.chance(0.5), let id = entries.randomElement(using: &g), var e = try context.object(GEntry.self, id: id) {
                    if g.chance(0.7) { e.month = g.int(1...4) } else { e.text = texts[g.int(0..<texts.count)] }
                    try context.update(e)
                    what = "edit entry \(id)"
                } else if let id = media.randomElement(using: &g), let object = try context.object(withID: try context.objectID(GMedium.self, id: id)) {
                    if var m = object.as(GMedium.self) {
                        if g.chance(0.5) { m.kb = g.int(0...100) } else { m.type = types[g.int(0..<types.count)] }
                        try context.update(m)
                    } else if var p = object.as(GPhoto.self) {
                        p.kb = g.int(0...100)
                        try context.update(p, entity: "Photo")
                    }
                    what = "edit medium \(id)"
                } else {
                    continue
                }
            case 7:
                // Delete an entry: its media cascade.
                guard let id = entries.randomElement(using: &g) else { continue }
                try context.delete(GEntry.self, id: id)
                what = "delete entry \(id)"
            default:
                // Delete a medium: nullified in its entry.
                guard let id = media.randomElement(using: &g) else { continue }
                try context.delete(try context.objectID(GMedium.self, id: id))
                what = "delete medium \(id)"
            }
            let saved = try context.save()
            if inOther { main.mergeChanges(fromContextDidSave: saved) } else { other.mergeChanges(fromContextDidSave: saved) }
            try Self.read(main, into: &graph)
            for k in controllers.indices {
                let (query, controller, recorder, old) = controllers[k]
                let where_ = "seed \(seed), step \(step) (\(what)), \(query)"
                let new = graphTable(controller)
                #expect(new == query.expected(graph), "\(where_): \(describe(new)) ≠ \(describe(query.expected(graph)))")
                // Each report replayed by UIKit's rules, from the table before it to the one after the last.
                var shown = old
                for (b, update) in recorder.batches.enumerated() {
                    // Only the last batch ends at the controller's current table; a change in
                    // the other context arrives as one merge, a change here as one report.
                    guard b == recorder.batches.count - 1 else {
                        Issue.record("\(where_): \(recorder.batches.count) reports for one step")
                        break
                    }
                    switch UIKitOracle.replay(update, displayed: shown, data: new) {
                    case .failure(let refusal): Issue.record("\(where_): UIKit refuses \(update): \(refusal)")
                    case .success(let result):
                        #expect(result == new, "\(where_)")
                        shown = result
                    }
                    reported += 1
                }
                if recorder.batches.isEmpty { #expect(old == new, "\(where_): changed without a report") }
                #expect(recorder.failures.isEmpty && controller.lastError == nil, "\(where_)")
                recorder.batches.removeAll()
                controllers[k].3 = new
            }
        }
        #expect(reported > 40, "seed \(seed): most steps change some controller")
    }
}
