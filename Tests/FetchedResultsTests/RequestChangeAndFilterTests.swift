import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableDiff
import TableTestSupport
import Testing

/// Changing a controller's request (Core Data's cache rules), filtering
/// records with a format predicate, and the narrowing rule of searches.
@Suite struct RequestChangeAndFilterTests {
    static let words = ["jo", "jos", "José", "JOSEPH", "Müller", "mül", "Mueller", "müller", "anna", "Anne", "", "ÄBTE", "fog", "foggy", "e\u{301}"]

    func makeContext(_ notes: [Note]) throws -> ObjectContext {
        let context = ObjectContext(store: ObjectStore(for: Note.self))
        for note in notes { try context.insert(note) }
        try context.save()
        return context
    }

    func randomNotes(_ g: inout SeededGenerator, count: Int) -> [Note] {
        (0..<count).map { id in
            Note(id: id, group: g.chance(0.1) ? nil : ["a", "b", "c"][g.int(0..<3)], rank: g.int(0...20),
                 title: Self.words[g.int(0..<Self.words.count)] + (g.chance(0.5) ? " " + Self.words[g.int(0..<Self.words.count)] : ""))
        }
    }

    @Test func changingTheRequestThenFetchingShowsTheNewRequest() throws {
        let context = try makeContext((0..<10).map { Note(id: $0, group: $0 % 2 == 0 ? "even" : "odd", rank: $0) })
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("rank")]), context: context)
        try controller.performFetch()
        controller.fetchRequest.sortKeys = [SortKey("rank", ascending: false)]
        // Nothing changes until the fetch.
        expectEqual(controller.fetchedObjects?.map(\.id), Array(0..<10))
        try controller.performFetch()
        expectEqual(controller.fetchedObjects?.map(\.id), Array((0..<10).reversed()))
        controller.fetchRequest.predicate = try RecordPredicate(format: "group == 'odd'")
        controller.fetchRequest.fetchLimit = 3
        try controller.performFetch()
        expectEqual(controller.fetchedObjects?.map(\.id), [9, 7, 5])
        controller.fetchRequest.fetchLimit = -1
        expectThrows(FetchError.negativeSetting("fetchLimit", -1)) { try controller.performFetch() }
        expectEqual(controller.fetchedObjects?.map(\.id), [9, 7, 5])
    }

    @Test func aCachedControllerMustDeleteItsCacheBeforeChangingTheRequest() throws {
        let context = try makeContext((0..<6).map { Note(id: $0, group: nil, rank: $0) })
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("rank")]), context: context, cacheName: "notes")
        try controller.performFetch()
        controller.fetchRequest.sortKeys = [SortKey("rank", ascending: false)]
        expectThrows(FetchError.cacheMismatch(cacheName: "notes")) { try controller.performFetch() }
        // State unchanged: the old results, still in their order.
        expectEqual(controller.fetchedObjects?.map(\.id), Array(0..<6))
        let message = "\(FetchError.cacheMismatch(cacheName: "notes"))"
        #expect(message.contains("You have illegally mutated the NSFetchedResultsController's fetch request"))
        #expect(message.contains("deleteCache(withName: \"notes\""))
        FetchedResultsController<Note>.deleteCache(withName: "notes", in: context.store)
        try controller.performFetch()
        expectEqual(controller.fetchedObjects?.map(\.id), Array((0..<6).reversed()))
        // Setting the same request again is no change of configuration.
        let same = controller.fetchRequest
        controller.fetchRequest = same
        try controller.performFetch()
        // A closure predicate cannot be identified: it never matches a cache.
        controller.fetchRequest.predicate = RecordPredicate { $0.rank > 2 }
        expectThrows(FetchError.cacheMismatch(cacheName: "notes")) { try controller.performFetch() }
        FetchedResultsController<Note>.deleteCache(withName: nil, in: context.store)
        try controller.performFetch()
        expectEqual(controller.fetchedObjects?.map(\.id), [5, 4, 3])
    }

    @Test func filteringASequenceMatchesEvaluatingEachRecord() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for round in 0..<50 {
            let notes = randomNotes(&g, count: g.int(0...40))
            let op = ["CONTAINS", "BEGINSWITH", "ENDSWITH", "=="][g.int(0..<4)]
            let options = ["", "[c]", "[d]", "[cd]"][g.int(0..<4)]
            let predicate = try FormatPredicate("title \(op)\(options) %@ OR rank > %d", Self.words[g.int(0..<Self.words.count)], g.int(0...25))
            let expected = try notes.filter { note throws in try predicate.evaluate(with: note) }
            try expectEqual(notes.filter(predicate), expected, "seed \(seed), round \(round): \(predicate)")
            try expectEqual(notes.lazy.map { $0 }.filter(predicate).map(\.id), expected.map(\.id))
        }
        expectThrows(PredicateEvaluationError.self) { try [Note(id: 1, group: nil, rank: 1)].filter(try FormatPredicate("nothing == 1")) }
        expectThrows(PredicateEvaluationError.self) { try [Note(id: 1, group: nil, rank: 1)].filter(try FormatPredicate("rank == $R")) }
        try expectEqual([Note(id: 1, group: nil, rank: 1)].filter(try FormatPredicate("rank == $R"), variables: ["R": .int(1)]).count, 1)
        try expectEqual([RecordValue.int(1), .int(5), .double(0.5)].filter(try FormatPredicate("SELF > 2")), [.int(5)])
    }

    @Test func theNarrowingRule() throws {
        func p(_ format: String, _ text: String) throws -> FormatPredicate { try FormatPredicate(format, text) }
        #expect(try p("title CONTAINS[cd] %@", "jos").provablyNarrows(p("title CONTAINS[cd] %@", "jo"), for: Note.self))
        #expect(try p("title CONTAINS[cd] %@", "mül").provablyNarrows(p("title CONTAINS[cd] %@", "MU"), for: Note.self))
        #expect(try p("title CONTAINS[cd] %@", "xjox").provablyNarrows(p("title CONTAINS[cd] %@", "jo"), for: Note.self))
        #expect(try p("title BEGINSWITH %@", "jos").provablyNarrows(p("title BEGINSWITH %@", "jo"), for: Note.self))
        #expect(try !p("title BEGINSWITH %@", "ajo").provablyNarrows(p("title BEGINSWITH %@", "jo"), for: Note.self))
        #expect(try p("title ENDSWITH %@", "ajo").provablyNarrows(p("title ENDSWITH %@", "jo"), for: Note.self))
        // Without [c], case matters; without [d], so do diacritics.
        #expect(try !p("title CONTAINS %@", "Jos").provablyNarrows(p("title CONTAINS %@", "jo"), for: Note.self))
        #expect(try !p("title CONTAINS %@", "mül").provablyNarrows(p("title CONTAINS %@", "mu"), for: Note.self))
        // `é` (decomposed) contains the bytes of `e`, not the character.
        #expect(try !p("title CONTAINS %@", "e\u{301}").provablyNarrows(p("title CONTAINS %@", "e"), for: Note.self))
        // Not a narrowing: shorter, EQUALS, a collection, NOT.
        #expect(try !p("title CONTAINS %@", "jo").provablyNarrows(p("title CONTAINS %@", "jos"), for: Note.self))
        #expect(try !p("title == %@", "jos").provablyNarrows(p("title == %@", "jo"), for: Note.self))
        #expect(try !p("tags CONTAINS %@", "jos").provablyNarrows(p("tags CONTAINS %@", "jo"), for: Note.self))
        #expect(try !p("ANY tags CONTAINS %@", "jos").provablyNarrows(p("ANY tags CONTAINS %@", "jo"), for: Note.self))
        #expect(try !p("NOT title CONTAINS %@", "jos").provablyNarrows(p("NOT title CONTAINS %@", "jo"), for: Note.self))
        #expect(try p("NOT title CONTAINS %@", "jo").provablyNarrows(p("NOT title CONTAINS %@", "jos"), for: Note.self))
        let both = "title CONTAINS[c] %@ OR group CONTAINS[c] %@"
        #expect(try FormatPredicate(both, "jos", "jos").provablyNarrows(FormatPredicate(both, "jo", "jo"), for: Note.self))
    }

    /// Random formats and texts: whenever the rule says "narrows", filtering the
    /// wider results equals fetching the narrower ones.
    @Test func provenNarrowingsHoldOnRandomRecords() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ 7)
        let formats = ["title CONTAINS%@ %%@", "title BEGINSWITH%@ %%@", "title ENDSWITH%@ %%@", "NOT title CONTAINS%@ %%@",
                       "title CONTAINS%@ %%@ AND rank > 3", "group CONTAINS%@ %%@ OR title CONTAINS%@ %%@"]
        var proven = 0
        for round in 0..<300 {
            let notes = randomNotes(&g, count: 40)
            let options = ["", "[c]", "[d]", "[cd]"][g.int(0..<4)]
            let format = String(format: formats[g.int(0..<formats.count)], options, options)
            let old = Self.words[g.int(0..<Self.words.count)]
            let new = g.chance(0.5) ? old + Self.words[g.int(0..<Self.words.count)] : Self.words[g.int(0..<Self.words.count)]
            let args = format.components(separatedBy: "%@").count - 1
            let wide = try FormatPredicate(format: format, arguments: Array(repeating: .string(old), count: args))
            let narrow = try FormatPredicate(format: format, arguments: Array(repeating: .string(new), count: args))
            guard narrow.provablyNarrows(wide, for: Note.self) else { continue }
            proven += 1
            let filtered = try notes.filter(wide).filter(narrow)
            expectEqual(filtered, (try notes.filter(narrow)), "seed \(seed), round \(round): \(wide) -> \(narrow)")
        }
        #expect(proven > 30)
    }

    final class Tracker: FetchedResultsControllerDelegate {
        typealias Object = Note
    }

    /// A tracking controller narrowed (the text growing) under random saves,
    /// merged or not, equals a fresh controller fetching the same request — or
    /// declines to narrow.
    @Test(arguments: [0, 3])
    func narrowingEqualsAFullRefetch(batchSize: Int) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ UInt64(batchSize))
        var narrowed = 0, declined = 0
        let letters = ["j", "o", "s", "é", "M", "ü", "l", "e", "a", "n", "\u{301}"]
        for round in 0..<30 {
            let store = ObjectStore(for: Note.self)
            let view = ObjectContext(store: store), writer = ObjectContext(store: store)
            for note in randomNotes(&g, count: g.int(0...60)) { try view.insert(note) }
            try view.save()
            var nextID = 1_000
            // Sections: none, by group, or by the German collation of the title.
            let layout = g.int(0..<3)

            let german = TableIndexCollation(localeIdentifier: "de")
            let options = ["", "[c]", "[d]", "[cd]"][g.int(0..<4)]
            let format = ["title CONTAINS\(options) %@", "title BEGINSWITH\(options) %@", "title ENDSWITH\(options) %@"][g.int(0..<3)]
            var text = letters[g.int(0..<letters.count)]
            func request(_ text: String) throws -> FetchRequest<Note> {
                let keys = [[SortKey("rank"), SortKey("title")], [SortKey("group"), SortKey("title")], [SortKey("title", collation: german), SortKey("rank")]][layout]
                return FetchRequest<Note>(predicate: try RecordPredicate(format: format, text), sortKeys: keys, fetchBatchSize: batchSize)
            }
            func makeController() throws -> FetchedResultsController<Note> {
                FetchedResultsController(
                    fetchRequest: try request(text), context: view, sectionNameKeyPath: [nil, "group", "title"][layout],
                    sectionCollation: layout == 2 ? german : nil)
            }
            let controller = try makeController()
            let tracker = Tracker()
            controller.delegate = tracker
            try controller.performFetch()
            for step in 0..<10 {
                if g.chance(0.3) {
                    let context = g.chance(0.5) ? view : writer
                    try context.insert(Note(id: nextID, group: ["a", "b"][g.int(0..<2)], rank: g.int(0...20), title: Self.words[g.int(0..<Self.words.count)]))
                    nextID += 1
                    if let id = store.objects(Note.self).map(\.id).randomElement(using: &g), var note = try context.object(Note.self, id: id) {
                        note.title = Self.words[g.int(0..<Self.words.count)]
                        try context.update(note)
                    }
                    let saved = try context.save()
                    if context === writer && g.chance(0.5) { view.mergeChanges(fromContextDidSave: saved) }
                }
                let old = try FormatPredicate(format, text)
                let newText = g.chance(0.8) ? text + letters[g.int(0..<letters.count)] : String(text.dropFirst())
                let new = try FormatPredicate(format, newText)
                guard new.provablyNarrows(old, for: Note.self) else {
                    text = newText
                    controller.fetchRequest = try request(text)
                    try controller.performFetch()
                    continue
                }
                text = newText
                if try controller.performFetch(narrowingTo: try request(text)) { narrowed += 1 } else {
                    declined += 1
                    controller.fetchRequest = try request(text)
                    try controller.performFetch()
                }
                controller._checkInvariants()
                let fresh = try makeController()
                try fresh.performFetch()
                fresh._checkInvariants()
                expectEqual(controller.sectionIndexTitles, fresh.sectionIndexTitles)
                let context = "seed \(seed), round \(round), step \(step): \(format) \"\(text)\""
                expectEqual(controller.fetchedObjects?.map(\.id), fresh.fetchedObjects?.map(\.id), "\(context)")
                expectEqual(controller.sections?.map(\.name), fresh.sections?.map(\.name), "\(context)")
                expectEqual(controller.sections?.map(\.numberOfObjects), fresh.sections?.map(\.numberOfObjects), "\(context)")
                #expect(controller.fetchRequest.predicate != nil)
            }
        }
        #expect(narrowed > 30, "narrowed \(narrowed), declined \(declined)")
        #expect(declined > 0, "narrowed \(narrowed), declined \(declined)")
    }
}
