import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableDiff
import TableTestSupport
import Testing

// Key paths after a SUBQUERY variable and collection operators in sort keys;
// a fetched results controller whose key paths go through relationships
// follows the objects they read (another entity's, a sub-entity's), and
// reports each change as one batch UIKit accepts. The model and its records
// are RelationshipTests'.

/// Records a controller's callbacks as one UIKit batch per change, by the
/// rule of the table binding (`_ReportedChange`), and as text.
final class RelatedRecorder<R: Record & Codable>: FetchedResultsControllerDelegate {
    typealias Object = R

    var update = BatchUpdate()
    var batches: [BatchUpdate] = []
    var events: [String] = []
    var failures: [FetchError] = []
    var open = false

    func controllerWillChangeContent(_ controller: FetchedResultsController<R>) {
        #expect(!open)
        open = true
        update = BatchUpdate()
    }
    func controller(_ controller: FetchedResultsController<R>, didChange section: FetchedResultsSectionInfo<R>, atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        events.append("\(type) section \(sectionIndex) \(section.name)")
        switch type {
        case .insert: update.insertedSections.append(sectionIndex)
        case .delete: update.deletedSections.append(sectionIndex)
        default: Issue.record("section \(type)")
        }
    }
    func controller(_ controller: FetchedResultsController<R>, didChange object: R, at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?) {
        events.append("\(type) \(object.id) \(indexPath.map { "\($0)" } ?? "-") → \(newIndexPath.map { "\($0)" } ?? "-")")
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
    func controllerDidChangeContent(_ controller: FetchedResultsController<R>) {
        #expect(open)
        open = false
        batches.append(update)
    }
    func controller(_ controller: FetchedResultsController<R>, didFailWith error: FetchError) { failures.append(error) }
}

/// The controller's results as a table of the objects' identities.
func relatedTable<R: Record & Codable>(_ controller: FetchedResultsController<R>) -> Table where R.ID == Int {
    (controller.sections ?? []).map { section in
        TableSection(name: section.name, rows: section.objects.map { Item(id: $0.id) })
    }
}

@Suite struct RelatedObjectsControllerTests {
    /// Entries 1 (month 1, "Fog") and 2 (month 2, "Rain"); media 10, 11 of
    /// entry 1, 12 of entry 2 (a photo, or a plain medium: a controller of
    /// Medium shows Medium's records only), medium 13 of none. Each change
    /// is processed as it is made (the graph stack's context did that
    /// always), so that the controllers report one change per call.
    static func diary(twelveIsAPhoto: Bool) throws -> ObjectContext {
        let context = ObjectContext(store: ObjectStore(model: relationshipModel))
        context.automaticallyProcessesPendingChanges = true
        try context.insert(GEntry(id: 1, text: "Fog", month: 1))
        try context.insert(GEntry(id: 2, text: "Rain", month: 2))
        try context.insert(GMedium(id: 10, type: "image", kb: 5, entry: 1))
        try context.insert(GMedium(id: 11, type: "audio", kb: 50, entry: 1))
        if twelveIsAPhoto {
            try context.insert(GPhoto(id: 12, type: "image", kb: 7, width: 640, entry: 2), entity: "Photo")
        } else {
            try context.insert(GMedium(id: 12, type: "image", kb: 7, entry: 2))
        }
        try context.insert(GMedium(id: 13, type: "video", kb: 1))
        try context.save()
        return context
    }

    @Test func keyPathsAfterASubqueryVariableGoThroughRelationships() throws {
        let context = try Self.diary(twelveIsAPhoto: true)
        func entries(_ format: String) throws -> [Int] {
            try RelationshipTests.fetchIDs(context, GEntry.self, format)
        }
        // $m.entry.text: a to-one step after the variable, back to the entry.
        try expectEqual(entries("SUBQUERY(media, $m, $m.entry.text == 'Fog').@count > 0"), [1])
        try expectEqual(entries("SUBQUERY(media, $m, $m.entry.month == 2 AND $m.type == 'image').@count == 1"), [2])
        // Two steps, through a to-many relationship: the media of the entry of each medium.
        try expectEqual(entries("SUBQUERY(media, $m, $m.entry.media.@count == 2).@count > 0"), [1])
        try expectEqual(entries("SUBQUERY(media, $m, ANY $m.entry.media.type == 'audio').@count == 2"), [1])
        // Nested: a SUBQUERY over the entry's media of each medium.
        try expectEqual(entries("SUBQUERY(media, $m, SUBQUERY($m.entry.media, $n, $n.kb > 40).@count > 0).@count > 0"), [1])
        // From a medium, a SUBQUERY over a to-many relationship of its entry:
        // the photo, fetched by a request of its entity; no plain medium.
        let fromEntry = "SUBQUERY(entry.media, $n, $n.entry.text == 'Rain').@count > 0"
        try expectEqual(RelationshipTests.fetchIDs(context, GPhoto.self, fromEntry), [12])
        try expectEqual(RelationshipTests.fetchIDs(context, GMedium.self, fromEntry), [])
        // Without a relationship after the variable, as before.
        try expectEqual(entries("SUBQUERY(media, $m, $m.kb > 40).@count > 0"), [1])
        // Changing the related object is seen.
        try context.update(GEntry(id: 1, text: "Snow", month: 1, media: [10, 11]))
        try expectEqual(entries("SUBQUERY(media, $m, $m.entry.text == 'Fog').@count > 0"), [])
    }

    @Test func collectionOperatorsAsSortKeys() throws {
        let context = try Self.diary(twelveIsAPhoto: true)
        try context.insert(GEntry(id: 3, text: "Sun", month: 3))
        func entries(_ keys: [SortKey]) throws -> [Int] {
            integerIDs(try context.fetch(FetchRequest<GEntry>(sortKeys: keys)))
        }
        try expectEqual(entries([SortKey("media.@count", ascending: false), SortKey("id")]), [1, 2, 3])
        try expectEqual(entries([SortKey("media.@count"), SortKey("id", ascending: false)]), [3, 2, 1])
        try expectEqual(entries([SortKey("media.@sum.kb", ascending: false)]), [1, 2, 3])
        try expectEqual(entries([SortKey("media.@max.kb")]), [3, 2, 1])   // nil first, then 7 (the photo's), then 50
        try expectEqual(entries([SortKey("media.@min.kb", ascending: false)]), [2, 1, 3])
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<GEntry>(sortKeys: [SortKey("media.@count", ascending: false), SortKey("id")]), context: context)
        let recorder = RelatedRecorder<GEntry>()
        controller.delegate = recorder
        try controller.performFetch()
        expectEqual(integerIDs(controller.fetchedObjects ?? []), [1, 2, 3])
        // Relinking a medium changes two entries' counts: 2 has two media now, 1 one.
        try context.update(GMedium(id: 11, type: "audio", kb: 50, entry: 2))
        expectEqual(integerIDs(controller.fetchedObjects ?? []), [2, 1, 3])
        try context.insert(GMedium(id: 14, type: "image", kb: 1, entry: 3))
        try context.insert(GMedium(id: 15, type: "image", kb: 1, entry: 3))
        try context.insert(GMedium(id: 16, type: "image", kb: 1, entry: 3))
        expectEqual(integerIDs(controller.fetchedObjects ?? []), [3, 2, 1])
        expectEqual(recorder.batches.count, 4)
    }

    @Test func anEntrysMonthEditedMovesItsMediaToAnotherSection() throws {
        let context = try Self.diary(twelveIsAPhoto: false)
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<GMedium>(predicate: try RecordPredicate(format: "entry != nil"), sortKeys: [SortKey("entry.month"), SortKey("kb")]),
            context: context, sectionNameKeyPath: "entry.month")
        let recorder = RelatedRecorder<GMedium>()
        controller.delegate = recorder
        try controller.performFetch()
        expectEqual(describe(relatedTable(controller)), "1: 10 11 | 2: 12")
        expectEqual(controller.sections?.map(\.indexTitle), ["1", "2"])

        var old = relatedTable(controller)
        func check(_ expected: String, batches: Int = 1, _ location: SourceLocation = #_sourceLocation) throws {
            let new = relatedTable(controller)
            expectEqual(describe(new), expected, sourceLocation: location)
            expectEqual(recorder.batches.count, batches, sourceLocation: location)
            for update in recorder.batches {
                switch UIKitOracle.replay(update, displayed: old, data: new) {
                case .failure(let refusal): Issue.record("UIKit refuses \(update): \(refusal)", sourceLocation: location)
                case .success(let result): expectEqual(result, new, sourceLocation: location)
                }
            }
            recorder.batches.removeAll()
            old = new
        }
        // The entry's month: its two media leave section 1 (deleted) for a new section 3.
        try context.update(GEntry(id: 1, text: "Fog", month: 3, media: [10, 11]))
        try check("2: 12 | 3: 10 11")
        expectEqual(recorder.events, ["delete section 0 1", "insert section 1 3", "move 10 {0, 0} → {1, 0}", "move 11 {0, 1} → {1, 1}"])
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
        try expectEqual(controller.snapshot().numberOfItems, 0)
    }

    /// A sub-entity of another record type is followed by a controller of
    /// its own entity: the photo's section follows its entry's month, its
    /// entry (another entity) is read through the relationship to Medium's
    /// inverse, and a plain medium's controller beside it reports only its
    /// own objects. (The graph stack showed both in one controller of Medium.)
    @Test func aSubEntityOfAnotherRecordTypeIsFollowedByItsOwnController() throws {
        let context = try Self.diary(twelveIsAPhoto: true)
        let photos = FetchedResultsController(
            fetchRequest: FetchRequest<GPhoto>(predicate: try RecordPredicate(format: "entry != nil"), sortKeys: [SortKey("entry.month"), SortKey("kb")]),
            context: context, sectionNameKeyPath: "entry.month")
        let media = FetchedResultsController(
            fetchRequest: FetchRequest<GMedium>(predicate: try RecordPredicate(format: "entry != nil"), sortKeys: [SortKey("entry.month"), SortKey("kb")]),
            context: context, sectionNameKeyPath: "entry.month")
        let photoRecorder = RelatedRecorder<GPhoto>(), mediumRecorder = RelatedRecorder<GMedium>()
        photos.delegate = photoRecorder
        media.delegate = mediumRecorder
        try photos.performFetch()
        try media.performFetch()
        expectEqual(describe(relatedTable(photos)), "2: 12")
        expectEqual(describe(relatedTable(media)), "1: 10 11")
        let photo = try photos.object(at: TablePath(row: 0, section: 0))
        expectEqual(photo.width, 640)
        expectEqual(photos.indexPath(forObjectWithID: 12), TablePath(row: 0, section: 0))
        #expect(media.indexPath(forObjectWithID: 12) == nil)

        // The photo's entry changes month: the photo moves to a new section; the media do not change.
        try context.update(GEntry(id: 2, text: "Rain", month: 4, media: [12]))
        expectEqual(describe(relatedTable(photos)), "4: 12")
        expectEqual(photoRecorder.events, ["delete section 0 2", "insert section 0 4", "move 12 {0, 0} → {0, 0}"])
        #expect(mediumRecorder.events.isEmpty)
        photoRecorder.events.removeAll()
        // A plain medium joins entry 2 (the photo's section), from the entry's side.
        try context.update(GEntry(id: 2, text: "Rain", month: 4, media: [12, 13]))
        expectEqual(describe(relatedTable(media)), "1: 10 11 | 4: 13")
        expectEqual(mediumRecorder.events, ["insert section 1 4", "insert 13 - → {1, 0}"])
        #expect(photoRecorder.events.isEmpty, "the photo's entry changed, not what the photo's key paths read")
        mediumRecorder.events.removeAll()
        // The photo moves to entry 1: its section follows; entry 1's media count is no key path of these.
        try context.update(GPhoto(id: 12, type: "image", kb: 7, width: 640, entry: 1))
        expectEqual(describe(relatedTable(photos)), "1: 12")
        expectEqual(photoRecorder.events, ["delete section 0 4", "insert section 0 1", "move 12 {0, 0} → {0, 0}"])
        #expect(mediumRecorder.events.isEmpty)
        photoRecorder.events.removeAll()
        // Deleting entry 1 cascades to the photo and the media 10 and 11.
        try context.delete(GEntry.self, id: 1)
        expectEqual(describe(relatedTable(photos)), "(no sections)")
        expectEqual(describe(relatedTable(media)), "4: 13")
        expectEqual(photoRecorder.events, ["delete section 0 1", "delete 12 {0, 0} → -"])
        expectEqual(mediumRecorder.events, ["delete section 0 1", "delete 10 {0, 0} → -", "delete 11 {0, 1} → -"])
        try context.save()
        #expect(photos.lastError == nil && media.lastError == nil && photoRecorder.failures.isEmpty && mediumRecorder.failures.isEmpty)
    }

    @Test func errorsAreTyped() throws {
        let context = try Self.diary(twelveIsAPhoto: false)
        let unfetched = FetchedResultsController(fetchRequest: FetchRequest<GMedium>(sortKeys: [SortKey("id")]), context: context)
        expectThrows(FetchError.notFetched) { _ = try unfetched.object(at: TablePath(row: 0, section: 0)) }
        #expect(unfetched.fetchedObjects == nil && unfetched.numberOfSections == 0)
        expectThrows(FetchError.noSortKeys) {
            try FetchedResultsController(fetchRequest: FetchRequest<GMedium>(), context: context).performFetch()
        }
        expectThrows(FetchError.unknownEntity("Nope")) {
            try FetchedResultsController(fetchRequest: FetchRequest<GMedium>(entityName: "Nope", sortKeys: [SortKey("id")]), context: context).performFetch()
        }
        // A request of a record type no entity has.
        expectThrows(FetchError.unknownEntity("Note")) {
            try FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("id")]), context: context).performFetch()
        }
        let unknownKey = try #require(throws: FetchError.self) {
            try FetchedResultsController(fetchRequest: FetchRequest<GMedium>(sortKeys: [SortKey("entry.nope")]), context: context).performFetch()
        }
        guard case .unknownKey(let key) = unknownKey else {
            Issue.record("\(unknownKey)")
            return
        }
        #expect(key.typeName == "Entry" && key.keyPath == "nope", "\(key)")
        expectThrows(FetchError.negativeSetting("fetchLimit", -1)) {
            try FetchedResultsController(fetchRequest: FetchRequest<GMedium>(sortKeys: [SortKey("id")], fetchLimit: -1), context: context).performFetch()
        }
        // Sections not ordered by the first sort key: Core Data's error.
        expectThrows(FetchError.sectionsOutOfOrder(index: 2, sectionName: "1")) {
            try FetchedResultsController(
                fetchRequest: FetchRequest<GMedium>(predicate: try RecordPredicate(format: "entry != nil"), sortKeys: [SortKey("kb")]),
                context: context, sectionNameKeyPath: "entry.month").performFetch()
        }
        let controller = FetchedResultsController(fetchRequest: FetchRequest<GMedium>(sortKeys: [SortKey("id")]), context: context)
        try controller.performFetch()
        expectThrows(FetchError.noObject(at: TablePath(row: 9, section: 0), sectionCount: 1, rowCount: 4)) {
            _ = try controller.object(at: TablePath(row: 9, section: 0))
        }
        #expect(controller.objectID(at: TablePath(row: 9, section: 0)) == nil)
        expectEqual(controller.indexPath(forObjectWithID: 12), TablePath(row: 2, section: 0))
        try expectEqual(controller.object(at: TablePath(row: 2, section: 0)).id, 12)
    }

    @Test func aLimitedRequestFollowsItsWindowAsAFetchDoes() throws {
        let context = try Self.diary(twelveIsAPhoto: false)
        let request = FetchRequest<GMedium>(sortKeys: [SortKey("entry.month", ascending: false), SortKey("kb")], fetchLimit: 2)
        let controller = FetchedResultsController(fetchRequest: request, context: context)
        let recorder = RelatedRecorder<GMedium>()
        controller.delegate = recorder
        try controller.performFetch()
        expectEqual(integerIDs(controller.fetchedObjects ?? []), integerIDs(try context.fetch(request)))
        expectEqual(integerIDs(controller.fetchedObjects ?? []), [12, 10])
        try context.update(GEntry(id: 1, text: "Fog", month: 5, media: [10, 11]))
        expectEqual(integerIDs(controller.fetchedObjects ?? []), [10, 11])
        expectEqual(integerIDs(controller.fetchedObjects ?? []), integerIDs(try context.fetch(request)))
        expectEqual(recorder.batches.count, 1)
    }

    @Test func aReferenceToADeletedObjectIsReportedAsAFailure() throws {
        let context = try Self.diary(twelveIsAPhoto: true)
        // Entry 1's cover is medium 11 (noAction): deleting the entry leaves 11.coverOf dangling.
        try context.update(GEntry(id: 1, text: "Fog", month: 1, media: [10, 11], cover: 11))
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<GMedium>(sortKeys: [SortKey("coverOf.month"), SortKey("id")]), context: context)
        let recorder = RelatedRecorder<GMedium>()
        controller.delegate = recorder
        try controller.performFetch()
        let before = integerIDs(controller.fetchedObjects ?? [])
        try context.update(GMedium(id: 11, type: "audio", kb: 50, entry: nil, coverOf: 1))   // the medium leaves the entry, stays its cover
        recorder.batches.removeAll()
        try context.delete(GEntry.self, id: 1)   // cascades to 10; 11 still says it is entry 1's cover
        let dangling = FetchError.danglingReference(object: .medium(11), relationship: "coverOf", destination: .entry(1))
        expectEqual(recorder.failures, [dangling])
        expectEqual(controller.lastError, dangling)
        #expect(recorder.batches.isEmpty && integerIDs(controller.fetchedObjects ?? []) == before)
        // A fetch says the same.
        expectThrows(dangling) { _ = try context.fetch(controller.fetchRequest) }
        // Repaired, and fetched again: up to date.
        try context.update(GMedium(id: 11, type: "audio", kb: 50, entry: nil, coverOf: nil))
        try controller.performFetch()
        #expect(controller.lastError == nil)
        expectEqual(integerIDs(controller.fetchedObjects ?? []), integerIDs(try context.fetch(controller.fetchRequest)))
    }

    // MARK: Seeded random edits

    /// The controllers of the random test, and how each is worked out by hand.
    enum Query: CaseIterable {
        /// Media (not photos) by their entry's month (sections), then kb.
        case mediaByMonth
        /// Photos by their entry's month (sections), then kb: the sub-entity's own controller.
        case photosByMonth
        /// Entries with an image (a photo's included), by their count of media (descending), then text.
        case entriesByMediaCount
        /// Entries by month (sections) with a big medium whose entry's month is past 1.
        case entriesWithBigMedia

        var sectionNameKeyPath: String? {
            switch self {
            case .mediaByMonth, .photosByMonth: "entry.month"
            case .entriesByMediaCount: nil
            case .entriesWithBigMedia: "month"
            }
        }

        /// A controller of this query on `context`, fetched, with its recorder.
        func follower(on context: ObjectContext) throws -> any RelatedFollower {
            let byMonth = [SortKey("entry.month"), SortKey("kb")]
            switch self {
            case .mediaByMonth:
                return try Follower(FetchRequest<GMedium>(sortKeys: byMonth), context, sectionNameKeyPath)
            case .photosByMonth:
                return try Follower(FetchRequest<GPhoto>(sortKeys: byMonth), context, sectionNameKeyPath)
            case .entriesByMediaCount:
                return try Follower(
                    FetchRequest<GEntry>(
                        predicate: try RecordPredicate(format: "ANY media.type == 'image'"),
                        sortKeys: [SortKey("media.@count", ascending: false), SortKey("text")]),
                    context, sectionNameKeyPath)
            case .entriesWithBigMedia:
                return try Follower(
                    FetchRequest<GEntry>(
                        predicate: try RecordPredicate(format: "SUBQUERY(media, $m, $m.kb > 50 AND $m.entry.month > 1).@count > 0"),
                        sortKeys: [SortKey("month"), SortKey("id", ascending: false)]),
                    context, sectionNameKeyPath)
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
            case .mediaByMonth, .photosByMonth:
                for id in g.mediumOrder {
                    guard let m = g.media[id], m.isPhoto == (self == .photosByMonth) else { continue }
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
    /// after each step (the relationships' rules are RelationshipTests'
    /// business); the order of insertion kept here.
    struct Graph {
        var entries: [Int: (month: Int, text: String, media: [Int])] = [:]
        var media: [Int: (type: String, kb: Int, entry: Int?, isPhoto: Bool)] = [:]
        var entryOrder: [Int] = []
        var mediumOrder: [Int] = []
    }

    static func read(_ context: ObjectContext, into g: inout Graph) throws {
        g.entries = [:]
        g.media = [:]
        for e in try context.fetch(FetchRequest<GEntry>()) { g.entries[e.id] = (e.month, e.text, e.media) }
        for m in try context.fetch(FetchRequest<GMedium>()) { g.media[m.id] = (m.type, m.kb, m.entry, false) }
        for p in try context.fetch(FetchRequest<GPhoto>()) { g.media[p.id] = (p.type, p.kb, p.entry, true) }
        g.entryOrder.removeAll { g.entries[$0] == nil }
        g.mediumOrder.removeAll { g.media[$0] == nil }
    }

    @Test(arguments: 0..<TestScale.cases(2, full: 3))
    func randomEditsAreFollowedAndEachReportIsOneBatchUIKitAccepts(round: Int) throws {
        let seed = SeededGenerator.runSeed() &+ UInt64(round)
        var g = SeededGenerator(seed: seed)
        let store = ObjectStore(model: relationshipModel)
        let main = ObjectContext(store: store, name: "main")
        let other = ObjectContext(store: store, name: "other")
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

        var followers: [(Query, any RelatedFollower, Table)] = []
        for query in Query.allCases {
            let follower = try query.follower(on: main)
            try Self.read(main, into: &graph)
            expectEqual(follower.table, query.expected(graph), "seed \(seed): \(query) fetched")
            followers.append((query, follower, follower.table))
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
                guard let id = media.randomElement(using: &g) else { continue }
                let entry = entries.isEmpty || g.chance(0.15) ? nil : entries[g.int(0..<entries.count)]
                if var m = try context.object(GMedium.self, id: id) {
                    m.entry = entry
                    try context.update(m)
                } else if var p = try context.object(GPhoto.self, id: id) {
                    p.entry = entry
                    try context.update(p, entity: "Photo")
                } else {
                    continue
                }
                what = "relink \(id) to \(entry.map(String.init) ?? "none")"
            case 5, 6:
                // Edit a related object's keys: an entry's month or text, a medium's kb or type.
                if g.chance(0.5), let id = entries.randomElement(using: &g), var e = try context.object(GEntry.self, id: id) {
                    if g.chance(0.7) { e.month = g.int(1...4) } else { e.text = texts[g.int(0..<texts.count)] }
                    try context.update(e)
                    what = "edit entry \(id)"
                } else if let id = media.randomElement(using: &g) {
                    if var m = try context.object(GMedium.self, id: id) {
                        if g.chance(0.5) { m.kb = g.int(0...100) } else { m.type = types[g.int(0..<types.count)] }
                        try context.update(m)
                    } else if var p = try context.object(GPhoto.self, id: id) {
                        p.kb = g.int(0...100)
                        try context.update(p, entity: "Photo")
                    } else {
                        continue
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
                // Delete a medium (or a photo): nullified in its entry.
                guard let id = media.randomElement(using: &g) else { continue }
                if graph.media[id]?.isPhoto == true {
                    try context.delete(GPhoto.self, id: id)
                } else {
                    try context.delete(GMedium.self, id: id)
                }
                what = "delete medium \(id)"
            }
            let saved = try context.save()
            if inOther { main.mergeChanges(fromContextDidSave: saved) } else { other.mergeChanges(fromContextDidSave: saved) }
            try Self.read(main, into: &graph)
            for k in followers.indices {
                let (query, follower, old) = followers[k]
                let where_ = "seed \(seed), step \(step) (\(what)), \(query)"
                let new = follower.table
                expectEqual(new, query.expected(graph), "\(where_): \(describe(new)) ≠ \(describe(query.expected(graph)))")
                // Each report replayed by UIKit's rules, from the table before it to the one after the last.
                var shown = old
                let batches = follower.batches
                for (b, update) in batches.enumerated() {
                    // Only the last batch ends at the controller's current table; a change in
                    // the other context arrives as one merge, a change here as one report.
                    guard b == batches.count - 1 else {
                        Issue.record("\(where_): \(batches.count) reports for one step")
                        break
                    }
                    switch UIKitOracle.replay(update, displayed: shown, data: new) {
                    case .failure(let refusal): Issue.record("\(where_): UIKit refuses \(update): \(refusal)")
                    case .success(let result):
                        expectEqual(result, new, "\(where_)")
                        shown = result
                    }
                    reported += 1
                }
                if batches.isEmpty { expectEqual(old, new, "\(where_): changed without a report") }
                #expect(follower.failures.isEmpty, "\(where_): \(follower.failures)")
                follower.clearBatches()
                followers[k].2 = new
            }
        }
        #expect(reported > 40, "seed \(seed): most steps change some controller")
    }
}

/// A fetched controller of any record type and its recorder, seen as tables.
protocol RelatedFollower: AnyObject {
    /// The controller's results.
    var table: Table { get }
    /// The batches reported since the last `clearBatches()`.
    var batches: [BatchUpdate] { get }
    /// The failures reported, and the controller's last error.
    var failures: [FetchError] { get }
    func clearBatches()
}

final class Follower<R: Record & Codable>: RelatedFollower where R.ID == Int {
    let controller: FetchedResultsController<R>
    let recorder = RelatedRecorder<R>()

    init(_ request: FetchRequest<R>, _ context: ObjectContext, _ sectionNameKeyPath: String?) throws {
        controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: sectionNameKeyPath)
        controller.delegate = recorder
        try controller.performFetch()
    }

    var table: Table { relatedTable(controller) }
    var batches: [BatchUpdate] { recorder.batches }
    var failures: [FetchError] { recorder.failures + (controller.lastError.map { [$0] } ?? []) }
    func clearBatches() { recorder.batches.removeAll() }
}
