import Foundation
import HeadlessTable
import TableTestSupport
import Testing

/// One stack for a model of several entities: random inserts, updates,
/// relinks, cascades and denied deletes, made in two contexts that merge
/// each other's saves from the did-save notification, through a bound table
/// and a search. After every step the table, the controllers (one of them
/// sorted and sectioned through a relationship, one with a predicate through
/// one), a fresh fetch and the saved records are compared with an
/// independent model of the three entities.
@Suite struct OneStackPropertyTests {
    struct Entry: Record, Codable, Equatable {
        var id: Int
        var text: String
        var group: String
        var media: [Int] = []
        var tags: [Int] = []
        static let recordKeys: RecordKeys<Entry> = ["id": RecordKey(\.id), "text": RecordKey(\.text), "group": RecordKey(\.group)]
    }

    struct Medium: Record, Codable, Equatable {
        var id: Int
        var type: String
        var entry: Int?
        static let recordKeys: RecordKeys<Medium> = ["id": RecordKey(\.id), "type": RecordKey(\.type)]
    }

    struct Tag: Record, Codable, Equatable {
        var id: Int
        var name: String
        var entries: [Int] = []
        static let recordKeys: RecordKeys<Tag> = ["id": RecordKey(\.id), "name": RecordKey(\.name)]
    }

    static func model() throws -> ObjectModel {
        try ObjectModel(
            .entity(Entry.self, relationships: [
                .toMany("media", \.media, to: Medium.self, inverse: "entry", deleteRule: .cascade),
                .toMany("tags", \.tags, to: Tag.self, inverse: "entries"),
            ]),
            .entity(Medium.self, relationships: [.toOne("entry", \.entry, to: Entry.self, inverse: "media")]),
            .entity(Tag.self, relationships: [.toMany("entries", \.entries, to: Entry.self, inverse: "tags", deleteRule: .deny)]))
    }

    /// The three entities as plain values: what every change should leave.
    struct Model {
        var entries: [Int: (text: String, group: String)] = [:]
        var media: [Int: (type: String, entry: Int?)] = [:]
        var tags: [Int: (name: String, entries: Set<Int>)] = [:]

        func media(of entry: Int) -> Set<Int> { Set(media.filter { $0.value.entry == entry }.keys) }
        func tags(of entry: Int) -> Set<Int> { Set(tags.filter { $0.value.entries.contains(entry) }.keys) }

        mutating func deleteEntry(_ id: Int) {
            entries[id] = nil
            for (medium, value) in media where value.entry == id { media[medium] = nil }   // cascade
            for tag in tags.keys { tags[tag]?.entries.remove(id) }   // nullify
        }

        /// The entries in the bound controller's order: group, text, id.
        var entriesInOrder: [Int] {
            entries.keys.sorted { a, b in
                let x = entries[a]!, y = entries[b]!
                return (x.group, x.text, a) < (y.group, y.text, b)
            }
        }

        /// The media sections by their entry's group, ordered by entry group,
        /// entry text and id; a medium without an entry first, in section "".
        var mediaSections: [(String, [Int])] {
            let ordered = media.keys.sorted { a, b in
                let x = media[a]!.entry.flatMap { entries[$0] }, y = media[b]!.entry.flatMap { entries[$0] }
                switch (x, y) {
                case (nil, nil): return a < b
                case (nil, _): return true
                case (_, nil): return false
                case let (x?, y?): return (x.group, x.text, a) < (y.group, y.text, b)
                }
            }
            var sections: [(String, [Int])] = []
            for id in ordered {
                let name = media[id]!.entry.flatMap { entries[$0]?.group } ?? ""
                if sections.last?.0 == name { sections[sections.count - 1].1.append(id) } else { sections.append((name, [id])) }
            }
            return sections
        }

        /// The entries with a recording, by id.
        var entriesWithAudio: [Int] {
            entries.keys.filter { entry in media.values.contains { $0.entry == entry && $0.type == "audio" } }.sorted()
        }
    }

    /// Tracks a controller's changes (a controller follows its context while
    /// it has a receiver).
    final class Follow<R: Record & Codable>: FetchedResultsControllerDelegate {
        var failures: [FetchError] = []
        func controller(_ controller: FetchedResultsController<R>, didFailWith error: FetchError) { failures.append(error) }
    }

    static func sections<R: Record & Codable>(_ controller: FetchedResultsController<R>) -> [(String, [Int])] where R.ID == Int {
        (controller.sections ?? []).map { ($0.name, $0.objects.map(\.id)) }
    }

    static func same(_ a: [(String, [Int])], _ b: [(String, [Int])]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    @Test(arguments: [1 as UInt64, 2, 3])
    func randomChangesInTwoContextsAgreeWithTheModel(seed run: UInt64) throws {
        let seed = SeededGenerator.runSeed() &+ run
        var g = SeededGenerator(seed: seed)
        let store = ObjectStore(model: try Self.model())
        let view = ObjectContext(store: store, name: "view"), editor = ObjectContext(store: store, name: "editor")
        // Each context merges the other's saves from the notification, as the book's listing does.
        nonisolated(unsafe) let (v, e) = (view, editor)
        let observer = NotificationCenter.default.addObserver(forName: .objectContextDidSave, object: nil, queue: nil) { note in
            if (note.object as AnyObject?) === e { v.mergeChanges(fromContextDidSave: note) }
            if (note.object as AnyObject?) === v { e.mergeChanges(fromContextDidSave: note) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let byGroup = FetchRequest<Entry>(sortKeys: [SortKey("group"), SortKey("text"), SortKey("id")])
        let entries = FetchedResultsController(fetchRequest: byGroup, context: view, sectionNameKeyPath: "group")
        let table = TableView(viewportHeight: 10 * 44)
        try table.register(TableViewCell.self, forCellReuseIdentifier: "entry")
        let binding = try table.bind(to: entries) { table, path, entry in
            let cell = try table.dequeueReusableCell(withIdentifier: "entry", for: path)
            cell.text = "\(entry.id) \(entry.text)"
            return cell
        }
        var bindingFailures: [String] = []
        binding.onError = { bindingFailures.append("\($0)") }
        let search = try TableSearch(binding, format: "text CONTAINS[cd] %@", results: .flat)
        let byEntry = FetchRequest<Medium>(sortKeys: [SortKey("entry.group"), SortKey("entry.text"), SortKey("id")])
        let media = FetchedResultsController(fetchRequest: byEntry, context: view, sectionNameKeyPath: "entry.group")
        try media.performFetch()
        let withAudio = FetchRequest<Entry>(predicate: try RecordPredicate(format: "ANY media.type == %@", "audio"), sortKeys: [SortKey("id")])
        let audio = FetchedResultsController(fetchRequest: withAudio, context: view)
        try audio.performFetch()
        let followMedia = Follow<Medium>(), followAudio = Follow<Entry>()
        media.delegate = followMedia
        audio.delegate = followAudio

        var model = Model()
        var nextEntry = 0, nextMedium = 1_000, nextTag = 5_000
        var denied = 0, cascades = 0, relinks = 0
        let words = ["fog", "snow", "rain", "sun", "wind"], groups = ["a", "b", "c"]
        func text() -> String { "\(words[g.int(0..<words.count)]) \(words[g.int(0..<words.count)])" }

        for step in 0..<TestScale.cases(60, full: 250) {
            let where_ = "seed \(seed) (TABLE_TEST_SEED=\(seed &- run)), step \(step)"
            let context = g.chance(0.5) ? view : editor
            // Every kind of step happens in every run: one the dice have not
            // chosen yet is chosen here (a relink, a cascade, a denied delete).
            var forced: [Int] = []
            if step == 20 && relinks == 0 { forced = [2, 4] }
            if step == 30 && cascades == 0 { forced = [0, 2, 6] }
            if step == 40 && denied == 0 { forced = [0, 8, 8, 9] }
            for n in 0..<max(forced.count, g.int(1...3)) {
                let entryIDs = model.entries.keys.sorted(), mediumIDs = model.media.keys.sorted(), tagIDs = model.tags.keys.sorted()
                let kind = n < forced.count ? forced[n] : g.int(0..<10)
                switch kind {
                case 0, 1:
                    let entry = Entry(id: nextEntry, text: text(), group: groups[g.int(0..<groups.count)])
                    try context.insert(entry)
                    model.entries[entry.id] = (entry.text, entry.group)
                    nextEntry += 1
                case 2, 3:
                    // A medium, linked to an entry or not; the entry's media gain it.
                    let owner = entryIDs.isEmpty || (n >= forced.count && g.chance(0.2)) ? nil : entryIDs[g.int(0..<entryIDs.count)]
                    let medium = Medium(id: nextMedium, type: g.chance(0.5) ? "audio" : "image", entry: owner)
                    try context.insert(medium)
                    model.media[medium.id] = (medium.type, owner)
                    nextMedium += 1
                case 4 where !mediumIDs.isEmpty:
                    // A relink: the medium moves to another entry (or none).
                    let id = mediumIDs[g.int(0..<mediumIDs.count)]
                    guard var medium = try context.object(Medium.self, id: id) else { Issue.record("\(where_): medium \(id) missing"); continue }
                    medium.entry = entryIDs.isEmpty || g.chance(0.2) ? nil : entryIDs[g.int(0..<entryIDs.count)]
                    try context.update(medium)
                    model.media[id]?.entry = medium.entry
                    relinks += 1
                case 5 where !entryIDs.isEmpty:
                    let id = entryIDs[g.int(0..<entryIDs.count)]
                    guard var entry = try context.object(Entry.self, id: id) else { Issue.record("\(where_): entry \(id) missing"); continue }
                    if g.chance(0.5) { entry.text = text() } else { entry.group = groups[g.int(0..<groups.count)] }
                    try context.update(entry)
                    model.entries[id] = (entry.text, entry.group)
                case 6 where !entryIDs.isEmpty:
                    // A delete cascading to the entry's media, nullifying its tags.
                    let withMedia = entryIDs.filter { !model.media(of: $0).isEmpty }
                    let id = n < forced.count && !withMedia.isEmpty ? withMedia[0] : entryIDs[g.int(0..<entryIDs.count)]
                    if !model.media(of: id).isEmpty { cascades += 1 }
                    try context.delete(Entry.self, id: id)
                    model.deleteEntry(id)
                case 7 where !mediumIDs.isEmpty:
                    let id = mediumIDs[g.int(0..<mediumIDs.count)]
                    try context.delete(Medium.self, id: id)
                    model.media[id] = nil
                case 8:
                    // A tag, then an entry tagged (the entry's tags gain it).
                    if tagIDs.isEmpty || (n >= forced.count && g.chance(0.3)) {
                        try context.insert(Tag(id: nextTag, name: "t\(nextTag)"))
                        model.tags[nextTag] = ("t\(nextTag)", [])
                        nextTag += 1
                    } else if !entryIDs.isEmpty {
                        let id = tagIDs[g.int(0..<tagIDs.count)], entry = entryIDs[g.int(0..<entryIDs.count)]
                        guard var tag = try context.object(Tag.self, id: id) else { Issue.record("\(where_): tag \(id) missing"); continue }
                        if !tag.entries.contains(entry) { tag.entries.append(entry) }
                        try context.update(tag)
                        model.tags[id]?.entries.insert(entry)
                    }
                case 9 where !tagIDs.isEmpty:
                    // A tag's delete: denied while it has entries; nothing changes then.
                    let tagged = tagIDs.filter { !(model.tags[$0]?.entries.isEmpty ?? true) }
                    let id = n < forced.count && !tagged.isEmpty ? tagged[0] : tagIDs[g.int(0..<tagIDs.count)]
                    if let holding = model.tags[id], !holding.entries.isEmpty {
                        let before = context.hasChanges
                        do {
                            try context.delete(Tag.self, id: id)
                            Issue.record("\(where_): deleting tag \(id) of \(holding.entries.sorted()) was not denied")
                        } catch {
                            guard case .deleteDenied = error else { Issue.record("\(where_): \(error)"); continue }
                            #expect(try context.object(Tag.self, id: id) != nil && context.hasChanges == before, "\(where_): a denied delete changed the context")
                            denied += 1
                        }
                    } else {
                        try context.delete(Tag.self, id: id)
                        model.tags[id] = nil
                    }
                default:
                    // A reference to nothing is refused, and changes nothing.
                    let before = context.hasChanges
                    expectThrows(ContextError.self, "\(where_)") { try context.insert(Medium(id: nextMedium, type: "image", entry: 999_999)) }
                    #expect(context.hasChanges == before && (try? context.object(Medium.self, id: nextMedium)) == nil, "\(where_)")
                }
            }
            try context.save()

            // The saved records, every relationship from both sides.
            let savedEntries = store.objects(Entry.self), savedMedia = store.objects(Medium.self), savedTags = store.objects(Tag.self)
            #expect(Set(savedEntries.map(\.id)) == Set(model.entries.keys) && Set(savedMedia.map(\.id)) == Set(model.media.keys)
                && Set(savedTags.map(\.id)) == Set(model.tags.keys), "\(where_): the saved objects")
            for entry in savedEntries {
                #expect(Set(entry.media) == model.media(of: entry.id) && Set(entry.tags) == model.tags(of: entry.id), "\(where_): entry \(entry.id)'s relationships")
                #expect(entry.text == model.entries[entry.id]?.text && entry.group == model.entries[entry.id]?.group, "\(where_): entry \(entry.id)")
            }
            for medium in savedMedia { expectEqual(medium.entry, model.media[medium.id]?.entry, "\(where_): medium \(medium.id)'s entry") }
            for tag in savedTags { expectEqual(Set(tag.entries), model.tags[tag.id]?.entries, "\(where_): tag \(tag.id)'s entries") }

            // The controllers followed every change, and agree with a fresh fetch.
            let expectedEntries = model.entriesInOrder
            expectEqual(entries.fetchedObjects?.map(\.id), expectedEntries, "\(where_): the bound controller")
            #expect(Self.same(Self.sections(media), model.mediaSections), "\(where_): media by entry: \(Self.sections(media)) ≠ \(model.mediaSections)")
            expectEqual(audio.fetchedObjects?.map(\.id), model.entriesWithAudio, "\(where_): entries with audio")
            let fresh = FetchedResultsController(fetchRequest: byEntry, context: ObjectContext(store: store), sectionNameKeyPath: "entry.group")
            try fresh.performFetch()
            #expect(Self.same(Self.sections(fresh), model.mediaSections), "\(where_): a fresh fetch of the media")
            try expectEqual(ObjectContext(store: store).fetch(withAudio).map(\.id), model.entriesWithAudio, "\(where_): a fresh fetch through ANY")

            // The table shows the controller: counts, and every visible cell its entry.
            expectEqual((0..<table.numberOfSections).map { table.numberOfRows(inSection: $0) }, entries.numberOfObjectsInSections, "\(where_): the table's counts")
            for path in table.indexPathsForVisibleRows {
                let entry = try entries.object(at: path)
                expectEqual(table.cellForRow(at: path)?.text, "\(entry.id) \(entry.text)", "\(where_): row \(path)")
            }

            // A search: the entries whose text holds the word, in the table's order.
            let word = words[g.int(0..<words.count)]
            try search.update(text: word.uppercased())
            _ = try search.showFoundResults(waiting: true)
            expectEqual(search.fetchedObjects?.map(\.id), expectedEntries.filter { model.entries[$0]!.text.contains(word) }, "\(where_): searching \(word)")
            search.cancel()
        }
        #expect(bindingFailures.isEmpty && followMedia.failures.isEmpty && followAudio.failures.isEmpty,
                "seed \(seed): \(bindingFailures) \(followMedia.failures) \(followAudio.failures)")
        // The steps did what they are for.
        #expect(relinks > 0 && cascades > 0 && denied > 0, "seed \(seed): \(relinks) relinks, \(cascades) cascades, \(denied) denied deletes")
    }
}
