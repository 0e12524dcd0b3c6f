import Foundation
import Testing
import FetchedResults
import Records
import PredicateFormat
import TableTestSupport

// The object graph (issue 28): a model of several entities in one store,
// relationships with inverses kept by the context, delete rules, references
// checked, key paths through relationships. The random tests check the
// context after every step against an independent model (`GraphOracle`).

struct GEntry: Record, Codable, Equatable {
    var id: Int
    var text: String
    var month: Int
    var media: [GMedium.ID] = []
    var tags: [GTag.ID] = []
    var cover: GMedium.ID? = nil

    static let recordKeys: RecordKeys<GEntry> = [
        "id": RecordKey(\.id), "text": RecordKey(\.text), "month": RecordKey(\.month),
    ]
}

/// Read by encoding (no declared keys).
struct GMedium: Record, Codable, Equatable {
    var id: Int
    var type: String
    var kb: Int
    var entry: GEntry.ID? = nil
    var coverOf: GEntry.ID? = nil
}

/// A sub-entity of GMedium, of its own record type.
struct GPhoto: Record, Codable, Equatable {
    var id: Int
    var type: String
    var kb: Int
    var width: Int
    var entry: GEntry.ID? = nil
    var coverOf: GEntry.ID? = nil
}

struct GTag: Record, Codable, Equatable {
    var id: Int
    var name: String
    var entries: [GEntry.ID] = []
}

/// Entry ⇄ Medium (to-many, cascade / nullify), Entry ⇄ Tag (to-many both
/// ways, nullify / deny), Entry.cover ⇄ Medium.coverOf (one-to-one,
/// noAction / nullify); Photo a sub-entity of Medium.
let graphModel: ObjectModel = {
    do {
        return try ObjectModel(
            .entity(GEntry.self, name: "Entry", relationships: [
                .toMany("media", \.media, to: GMedium.self, inverse: "entry", deleteRule: .cascade),
                .toMany("tags", \.tags, to: GTag.self, inverse: "entries", ordered: true),
                .toOne("cover", \.cover, to: GMedium.self, inverse: "coverOf", deleteRule: .noAction),
            ]),
            .entity(GMedium.self, name: "Medium", relationships: [
                .toOne("entry", \.entry, to: GEntry.self, inverse: "media"),
                .toOne("coverOf", \.coverOf, to: GEntry.self, inverse: "cover"),
            ]),
            .entity(GPhoto.self, name: "Photo", parent: GMedium.self, relationships: [
                .toOne("entry", \.entry, to: GEntry.self, inverse: "media"),
                .toOne("coverOf", \.coverOf, to: GEntry.self, inverse: "cover"),
            ]),
            .entity(GTag.self, name: "Tag", relationships: [
                .toMany("entries", \.entries, to: GEntry.self, inverse: "tags", deleteRule: .deny),
            ]))
    } catch {
        fatalError("the test model: \(error)")
    }
}()

/// The graph as plain dictionaries, changed by rules written out here (not
/// the context's): what every step is checked against.
struct GraphOracle: Equatable {
    struct Entry: Equatable {
        var text: String
        var month: Int
        var media: Set<Int> = []
        var tags: Set<Int> = []
        var cover: Int?
    }
    struct Medium: Equatable {
        var type: String
        var kb: Int
        var width: Int?   // a Photo's
        var entry: Int?
        var coverOf: Int?
    }
    var entries: [Int: Entry] = [:]
    var media: [Int: Medium] = [:]
    var tags: [Int: (name: String, entries: Set<Int>)] = [:]

    static func == (a: GraphOracle, b: GraphOracle) -> Bool {
        a.entries == b.entries && a.media == b.media && a.tags.count == b.tags.count
            && a.tags.allSatisfy { id, tag in b.tags[id].map { $0.name == tag.name && $0.entries == tag.entries } ?? false }
    }

    /// A medium's entry set to `entry` (nil: unlinked).
    mutating func link(medium m: Int, to entry: Int?) {
        if let old = media[m]?.entry { entries[old]?.media.remove(m) }
        media[m]?.entry = entry
        if let entry { entries[entry]?.media.insert(m) }
    }

    /// An entry's cover set (one-to-one).
    mutating func cover(entry e: Int, with m: Int?) {
        if let old = entries[e]?.cover, media[old]?.coverOf == e { media[old]?.coverOf = nil }
        if let m {
            if let other = media[m]?.coverOf, other != e { entries[other]?.cover = nil }
            media[m]?.coverOf = e
        }
        entries[e]?.cover = m
    }

    /// Deletes an entry: media cascade (their coverOf nullify their entry's
    /// cover), tags nullify, cover no action (the medium keeps pointing).
    mutating func deleteEntry(_ e: Int) {
        guard let entry = entries.removeValue(forKey: e) else { return }
        for t in entry.tags { tags[t]?.entries.remove(e) }
        for m in entry.media { deleteMedium(m) }
    }

    mutating func deleteMedium(_ m: Int) {
        guard let medium = media.removeValue(forKey: m) else { return }
        if let e = medium.entry { entries[e]?.media.remove(m) }
        if let e = medium.coverOf, entries[e]?.cover == m { entries[e]?.cover = nil }
    }

    /// References to objects that do not exist (a `noAction` delete): (medium, entry).
    var dangling: [(Int, Int)] {
        media.keys.sorted().compactMap { m in media[m]?.coverOf.flatMap { entries[$0] == nil ? (m, $0) : nil } }
    }
}

@Suite struct ObjectGraphTests {
    // MARK: The model

    @Test func modelChecksTheDeclaration() throws {
        #expect(graphModel.entity(named: "Photo")?.parentName == "Medium")
        #expect(graphModel.entityNames(including: "Medium") == ["Medium", "Photo"])
        #expect(graphModel.entity(named: "Entry")?.relationship(named: "media")?.destinationEntityName == "Medium")
        // An inverse that does not point back.
        #expect(throws: ObjectModelError.badInverse(entity: "Entry", relationship: "media", reason: "Medium has no relationship nothing")) {
            _ = try ObjectModel(
                .entity(GEntry.self, name: "Entry", relationships: [.toMany("media", \.media, to: GMedium.self, inverse: "nothing")]),
                .entity(GMedium.self, name: "Medium"))
        }
        // A destination that is no entity's type.
        #expect(throws: ObjectModelError.unknownType(entity: "Entry", type: "GTag")) {
            _ = try ObjectModel(.entity(GEntry.self, name: "Entry", relationships: [.toMany("tags", \.tags, to: GTag.self)]))
        }
        // A sub-entity that does not declare what it inherits.
        #expect(throws: ObjectModelError.self) {
            _ = try ObjectModel(
                .entity(GEntry.self, name: "Entry"),
                .entity(GMedium.self, name: "Medium", relationships: [.toOne("entry", \.entry, to: GEntry.self)]),
                .entity(GPhoto.self, name: "Photo", parent: GMedium.self))
        }
        #expect(throws: ObjectModelError.duplicateEntity("Entry")) {
            _ = try ObjectModel(.entity(GEntry.self, name: "Entry"), .entity(GTag.self, name: "Entry"))
        }
    }

    // MARK: Relationships

    @Test func inversesFollowEitherSide() throws {
        let context = ObjectGraphContext(store: ObjectGraphStore(model: graphModel))
        try context.insert(GEntry(id: 1, text: "Fog", month: 1))
        try context.insert(GEntry(id: 2, text: "Rain", month: 2))
        // Set the medium's entry: the entry's media hold it.
        try context.insert(GMedium(id: 10, type: "image", kb: 5, entry: 1))
        #expect(try context.object(GEntry.self, id: 1)?.media == [10])
        // Move it: the first entry loses it.
        try context.update(GMedium(id: 10, type: "image", kb: 5, entry: 2))
        #expect(try context.object(GEntry.self, id: 1)?.media == [])
        #expect(try context.object(GEntry.self, id: 2)?.media == [10])
        // Set it from the to-many side: the medium's entry moves, entry 2 loses it.
        var fog = try #require(try context.object(GEntry.self, id: 1))
        fog.media = [10]
        try context.update(fog)
        #expect(try context.object(GMedium.self, id: 10)?.entry == 1)
        #expect(try context.object(GEntry.self, id: 2)?.media == [])
        // A sub-entity's object in a relationship to its parent.
        try context.insert(GPhoto(id: 11, type: "image", kb: 7, width: 640, entry: 1))
        #expect(try context.object(GEntry.self, id: 1)?.media == [10, 11])
        // A to-many relationship holds each destination once.
        try context.update(GEntry(id: 1, text: "Fog", month: 1, media: [10, 11, 10]))
        #expect(try context.object(GEntry.self, id: 1)?.media == [10, 11])
        #expect(try context.destinations(of: context.objectID(GEntry.self, id: 1), relationship: "media").map(\.entityName) == ["Medium", "Photo"])
        // One-to-one: a new cover takes it from the entry that had it.
        var rain = try #require(try context.object(GEntry.self, id: 2))
        rain.cover = 11
        try context.update(rain)
        fog = try #require(try context.object(GEntry.self, id: 1))
        fog.cover = 11
        try context.update(fog)
        #expect(try context.object(GEntry.self, id: 2)?.cover == nil)
        #expect(try context.object(GPhoto.self, id: 11)?.coverOf == 1)
        let saved = try context.save()
        #expect(Set(saved.insertedObjects.map(\.entityName)) == ["Entry", "Medium", "Photo"])
        #expect(saved.changedIDsByEntity["Photo"]?.inserted.map(\.key) == [.int(11)])
    }

    @Test func twoContextsMergeAndSavesNameEntities() async throws {
        let store = ObjectGraphStore(model: graphModel)
        let saves = store.didSaveNotifications()
        let a = ObjectGraphContext(store: store, name: "a"), b = ObjectGraphContext(store: store, name: "b")
        try a.insert(GEntry(id: 1, text: "Fog", month: 1))
        try a.insert(GPhoto(id: 10, type: "image", kb: 1, width: 2, entry: 1))
        let first = try a.save()
        b.mergeChanges(fromContextDidSave: first)
        #expect(try b.object(GEntry.self, id: 1)?.media == [10])
        // b deletes the entry (cascading to the photo) and saves; a merges.
        try b.delete(GEntry.self, id: 1)
        let second = try b.save()
        #expect(Set(second.deletedObjects.map(\.description)) == ["Entry 1", "Photo 10"])
        #expect(second.contextName == "b")
        a.mergeChanges(fromContextDidSave: second)
        #expect(try a.fetch(GraphFetchRequest(entityName: "Medium")).isEmpty)
        #expect(try a.object(GEntry.self, id: 1) == nil)
        // The store's notifications name each object's entity.
        var iterator = saves.makeAsyncIterator()
        let delivered = try #require(await iterator.next())
        #expect(delivered.insertedObjects.map(\.entityName).sorted() == ["Entry", "Photo"])
        #expect(delivered.changedIDsByEntity["Photo"]?.inserted == [ObjectID(rootEntityName: "Medium", key: 10)])
        let deleted = try #require(await iterator.next())
        #expect(deleted.deletedObjects.map(\.entityName).sorted() == ["Entry", "Photo"])
        // A save of an object another context changed since this one read it
        // conflicts (the store's merge policy), and changes nothing.
        let stale = ObjectGraphContext(store: store)
        try a.insert(GEntry(id: 2, text: "Rain", month: 2))
        try a.save()
        var entry = try #require(try stale.object(GEntry.self, id: 2))
        try a.update(GEntry(id: 2, text: "Hail", month: 2))
        try a.save()
        entry.text = "Snow"
        try stale.update(entry)
        let error = try #require(throws: ObjectGraphError.self) { try stale.save() }
        guard case .store(.mergeConflicts(let conflicts)) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(conflicts.count == 1)
        #expect(try store.object(withID: ObjectID(rootEntityName: "Entry", key: 2))?.as(GEntry.self)?.text == "Hail")
    }

    @Test func aReferenceToAMissingObjectIsATypedError() throws {
        let context = ObjectGraphContext(store: ObjectGraphStore(model: graphModel))
        try context.insert(GEntry(id: 1, text: "Fog", month: 1))
        let entry = try context.objectID(GEntry.self, id: 1)
        #expect(throws: ObjectGraphError.danglingReference(object: ObjectID(rootEntityName: "Medium", key: 10), relationship: "entry", destination: ObjectID(rootEntityName: "Entry", key: 99))) {
            try context.insert(GMedium(id: 10, type: "image", kb: 1, entry: 99))
        }
        #expect(try context.object(GMedium.self, id: 10) == nil)   // nothing changed
        // A tag is not a medium: an entry's media cannot hold it.
        try context.insert(GTag(id: 5, name: "sea"))
        #expect(throws: ObjectGraphError.danglingReference(object: entry, relationship: "media", destination: ObjectID(rootEntityName: "Medium", key: 5))) {
            try context.update(GEntry(id: 1, text: "Fog", month: 1, media: [5]))
        }
        #expect(throws: ObjectGraphError.noSuchObject(ObjectID(rootEntityName: "Entry", key: 7))) { try context.delete(GEntry.self, id: 7) }
        #expect(throws: ObjectGraphError.alreadyExists(entry)) { try context.insert(GEntry(id: 1, text: "again", month: 1)) }
        // A photo shares the media's identities.
        try context.insert(GMedium(id: 20, type: "audio", kb: 1))
        #expect(throws: ObjectGraphError.alreadyExists(ObjectID(rootEntityName: "Medium", key: 20))) {
            try context.insert(GPhoto(id: 20, type: "image", kb: 1, width: 1))
        }
    }

    @Test func deleteRules() throws {
        let context = ObjectGraphContext(store: ObjectGraphStore(model: graphModel))
        try context.insert(GEntry(id: 1, text: "Fog", month: 1))
        try context.insert(GEntry(id: 2, text: "Rain", month: 2))
        try context.insert(GTag(id: 5, name: "sea", entries: [1]))
        try context.insert(GMedium(id: 10, type: "image", kb: 1, entry: 1))
        try context.insert(GMedium(id: 11, type: "audio", kb: 1, entry: 1, coverOf: 2))
        try context.save()
        // Deny: the tag still has an entry.
        let tag = try context.objectID(GTag.self, id: 5)
        #expect(throws: ObjectGraphError.deleteDenied(object: tag, relationship: "entries", destinations: [try context.objectID(GEntry.self, id: 1)])) {
            try context.delete(tag)
        }
        #expect(!context.hasChanges)
        // Cascade: the entry's media go; nullify: the tag loses the entry, and
        // entry 2 loses its cover (medium 11's coverOf nullifies).
        try context.delete(GEntry.self, id: 1)
        #expect(try context.object(GMedium.self, id: 10) == nil)
        #expect(try context.object(GMedium.self, id: 11) == nil)
        #expect(try context.object(GTag.self, id: 5)?.entries == [])
        #expect(try context.object(GEntry.self, id: 2)?.cover == nil)
        let saved = try context.save()
        #expect(Set(saved.deletedObjects.map(\.description)) == ["Entry 1", "Medium 10", "Medium 11"])
        #expect(Set(saved.updatedObjects.map(\.description)) == ["Tag 5", "Entry 2"])
        // Now the tag has no entries: deleting it is allowed.
        try context.delete(tag)
        try context.save()
        // No action: the medium keeps pointing at a deleted entry; the save
        // refuses the dangling reference until it is repaired.
        try context.insert(GMedium(id: 12, type: "image", kb: 1))
        var rain = try #require(try context.object(GEntry.self, id: 2))
        rain.cover = 12
        try context.update(rain)
        try context.save()
        try context.delete(GEntry.self, id: 2)
        let medium = try context.objectID(GMedium.self, id: 12)
        let entry = try context.objectID(GEntry.self, id: 2)
        #expect(try context.object(GMedium.self, id: 12)?.coverOf == 2)
        #expect(throws: ObjectGraphError.danglingReference(object: medium, relationship: "coverOf", destination: entry)) { try context.save() }
        #expect(throws: ObjectGraphError.danglingReference(object: medium, relationship: "coverOf", destination: entry)) {
            _ = try context.destinations(of: medium, relationship: "coverOf")
        }
        try context.update(GMedium(id: 12, type: "image", kb: 1, coverOf: nil))
        try context.save()
        #expect(try context.store.object(withID: medium)?.as(GMedium.self)?.coverOf == nil)
    }

    @Test func requiredRelationshipsAreValidatedAtSave() throws {
        struct Book: Record, Codable { var id: Int; var author: Int?; var chapters: [Int] = [] }
        struct Author: Record, Codable { var id: Int; var books: [Int] = [] }
        let model = try ObjectModel(
            .entity(Book.self, relationships: [
                .toOne("author", \.author, to: Author.self, inverse: "books", optional: false),
            ]),
            .entity(Author.self, relationships: [
                .toMany("books", \.books, to: Book.self, inverse: "author", deleteRule: .cascade, minCount: 2, maxCount: 3),
            ]))
        let context = ObjectGraphContext(store: ObjectGraphStore(model: model))
        try context.insert(Author(id: 1))
        try context.insert(Book(id: 7))
        let book = try context.objectID(Book.self, id: 7), author = try context.objectID(Author.self, id: 1)
        let error = try #require(throws: ObjectGraphError.self) { try context.save() }
        #expect(error == .validation([
            ValidationFailure(code: .missingMandatoryProperty, object: author, key: "books"),
            ValidationFailure(code: .missingMandatoryProperty, object: book, key: "author"),
        ]))
        #expect(error.description.contains("author is a required value"))
        #expect(error.description.contains("NSValidationMultipleErrorsError"))
        #expect(context.store.count == 0)
        try context.update(Book(id: 7, author: 1))
        #expect(throws: ObjectGraphError.validation([ValidationFailure(code: .relationshipLacksMinimumCount, object: author, key: "books")])) {
            try context.save()
        }
        try context.insert(Book(id: 8, author: 1))
        try context.save()
        #expect(try context.object(Author.self, id: 1)?.books == [7, 8])
        try context.insert(Book(id: 9, author: 1))
        try context.insert(Book(id: 10, author: 1))
        #expect(throws: ObjectGraphError.validation([ValidationFailure(code: .relationshipExceedsMaximumCount, object: author, key: "books")])) {
            try context.save()
        }
        // Deleting the author cascades to its books.
        context.rollback()
        try context.delete(Author.self, id: 1)
        try context.save()
        #expect(context.store.count == 0)
    }

    // MARK: Files

    @Test func aFileRoundTripsAndADamagedReferenceIsAnErrorNamingIt() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("graph-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let context = ObjectGraphContext(store: try ObjectGraphStore(model: graphModel, fileURL: url))
            try context.insert(GEntry(id: 1, text: "Fog", month: 1))
            try context.insert(GPhoto(id: 10, type: "image", kb: 1, width: 3, entry: 1))
            try context.save()
        }
        let reopened = try ObjectGraphStore(model: graphModel, fileURL: url)
        #expect(try reopened.objects(ofEntity: "Medium").map(\.description) == ["Photo 10"])
        #expect(try reopened.object(withID: ObjectID(rootEntityName: "Entry", key: 1))?.as(GEntry.self)?.media == [10])
        // Written by a model without the relationships: a medium whose entry
        // does not exist, and an entry whose medium does not point back.
        let plain = try ObjectModel(.entity(GEntry.self, name: "Entry"), .entity(GMedium.self, name: "Medium"), .entity(GPhoto.self, name: "Photo", parent: GMedium.self), .entity(GTag.self, name: "Tag"))
        do {
            let context = ObjectGraphContext(store: try ObjectGraphStore(model: plain, fileURL: url))
            try context.insert(GMedium(id: 11, type: "audio", kb: 1, entry: 99))
            try context.save()
        }
        #expect(throws: ObjectGraphError.danglingReference(object: ObjectID(rootEntityName: "Medium", key: 11), relationship: "entry", destination: ObjectID(rootEntityName: "Entry", key: 99))) {
            _ = try ObjectGraphStore(model: graphModel, fileURL: url)
        }
        do {
            let context = ObjectGraphContext(store: try ObjectGraphStore(model: plain, fileURL: url))
            try context.delete(ObjectID(rootEntityName: "Medium", key: 11))
            try context.insert(GMedium(id: 12, type: "audio", kb: 1))
            try context.update(GEntry(id: 1, text: "Fog", month: 1, media: [10, 12]))
            try context.save()
        }
        #expect(throws: ObjectGraphError.inverseMismatch(object: ObjectID(rootEntityName: "Entry", key: 1), relationship: "media", destination: ObjectID(rootEntityName: "Medium", key: 12))) {
            _ = try ObjectGraphStore(model: graphModel, fileURL: url)
        }
        // A model without the entity cannot read the file.
        let noPhoto = try ObjectModel(.entity(GEntry.self, name: "Entry"), .entity(GMedium.self, name: "Medium"))
        #expect(throws: ObjectGraphError.unknownEntity("Photo")) { _ = try ObjectGraphStore(model: noPhoto, fileURL: url) }
    }

    /// An object that another model's store on the same file saved, and
    /// that this model cannot read, is reported by the save it came in —
    /// never left out silently.
    @Test func anExternalObjectThisModelCannotReadIsReported() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("graph-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let noPhoto = try ObjectModel(.entity(GEntry.self, name: "Entry"), .entity(GMedium.self, name: "Medium"))
        let full = ObjectGraphContext(store: try ObjectGraphStore(model: graphModel, fileURL: url))
        let reader = try ObjectGraphStore(model: noPhoto, fileURL: url)
        try full.insert(GEntry(id: 1, text: "Fog", month: 1))
        try full.insert(GPhoto(id: 10, type: "image", kb: 1, width: 3, entry: 1))
        let saved = try full.save()
        #expect(saved.undecodableObjects.isEmpty)
        let merged = try reader.mergeExternalChanges()
        #expect(merged.flatMap(\.insertedObjects).map(\.id) == [ObjectID(rootEntityName: "Entry", key: 1)])
        #expect(merged.flatMap(\.undecodableObjects) == [.unknownEntity("Photo")])
    }

    // MARK: Queries through relationships

    @Test func predicatesAndSortKeysThroughRelationships() throws {
        let context = ObjectGraphContext(store: ObjectGraphStore(model: graphModel))
        try context.insert(GEntry(id: 1, text: "Fog", month: 3))
        try context.insert(GEntry(id: 2, text: "Rain", month: 1))
        try context.insert(GEntry(id: 3, text: "Sun", month: 2))
        try context.insert(GMedium(id: 10, type: "image", kb: 5, entry: 1))
        try context.insert(GMedium(id: 11, type: "audio", kb: 9, entry: 1))
        try context.insert(GPhoto(id: 12, type: "image", kb: 2, width: 1, entry: 2))
        try context.insert(GMedium(id: 13, type: "audio", kb: 1))
        func entries(_ format: String, _ args: any RecordValueConvertible...) throws -> [Int] {
            try context.fetch(GEntry.self, where: FormatPredicate(format: format, arguments: args.map(\.recordValue)), sortedBy: [SortKey("id")]).map(\.id)
        }
        #expect(try entries("ANY media.type == 'image'") == [1, 2])
        #expect(try entries("ALL media.type == 'image'") == [2, 3])
        #expect(try entries("NONE media.type == 'audio'") == [2, 3])
        #expect(try entries("media.@count > 1") == [1])
        #expect(try entries("SUBQUERY(media, $m, $m.type == 'audio' AND $m.kb > 5).@count > 0") == [1])
        #expect(try entries("ANY media.kb < %d", 3) == [2])
        let media = try context.fetch(GraphFetchRequest(
            entityName: "Medium", predicate: FormatPredicate("entry.month < 3"), sortKeys: [SortKey("entry.text", ascending: false), SortKey("id")]))
        #expect(media.map(\.description) == ["Photo 12"])
        let all = try context.fetch(GraphFetchRequest(entityName: "Medium", sortKeys: [SortKey("entry.month"), SortKey("id")]))
        #expect(all.map(\.id.key) == [.int(13), .int(12), .int(10), .int(11)])   // no entry (nil) first
        #expect(try context.fetch(GraphFetchRequest(entityName: "Medium", predicate: FormatPredicate("entry == nil"))).map(\.id.key) == [.int(13)])
        #expect(try context.fetch(GraphFetchRequest(entityName: "Medium", predicate: FormatPredicate("entry.id == 2"))).map(\.id.key) == [.int(12)])
        #expect(try context.fetch(GraphFetchRequest(entityName: "Medium", includesSubentities: false)).count == 3)
        #expect(throws: GraphFetchError.unknownKey(entity: "Entry", keyPath: "media.entry.colour", key: "colour")) {
            _ = try context.fetch(GraphFetchRequest(entityName: "Entry", predicate: FormatPredicate("media.entry.colour == 1")))
        }
    }
}

// MARK: - Random graphs

@Suite struct ObjectGraphPropertyTests {
    /// The graph a context shows, read back through fetches into the
    /// oracle's form, with each inverse checked on the way.
    static func observed(_ fetch: (String) throws -> [GraphObject]) throws -> GraphOracle {
        var graph = GraphOracle()
        for object in try fetch("Entry") {
            let e = try #require(object.as(GEntry.self))
            #expect(Set(e.media).count == e.media.count && Set(e.tags).count == e.tags.count, "no repeats in \(e)")
            graph.entries[e.id] = .init(text: e.text, month: e.month, media: Set(e.media), tags: Set(e.tags), cover: e.cover)
        }
        for object in try fetch("Medium") {
            if let m = object.as(GMedium.self) {
                graph.media[m.id] = .init(type: m.type, kb: m.kb, width: nil, entry: m.entry, coverOf: m.coverOf)
            } else {
                let p = try #require(object.as(GPhoto.self))
                #expect(object.entityName == "Photo")
                graph.media[p.id] = .init(type: p.type, kb: p.kb, width: p.width, entry: p.entry, coverOf: p.coverOf)
            }
        }
        for object in try fetch("Tag") {
            let t = try #require(object.as(GTag.self))
            graph.tags[t.id] = (t.name, Set(t.entries))
        }
        // Inverses agree, and no reference dangles but a `noAction` cover's.
        for (id, entry) in graph.entries {
            for m in entry.media { #expect(graph.media[m]?.entry == id, "Entry \(id).media holds \(m), whose entry is \(String(describing: graph.media[m]?.entry))") }
            for t in entry.tags { #expect(graph.tags[t]?.entries.contains(id) == true, "Entry \(id).tags holds \(t)") }
            if let c = entry.cover { #expect(graph.media[c]?.coverOf == id, "Entry \(id).cover is \(c)") }
        }
        for (id, medium) in graph.media {
            if let e = medium.entry { #expect(graph.entries[e]?.media.contains(id) == true, "Medium \(id).entry is \(e)") }
            if let e = medium.coverOf, let entry = graph.entries[e] { #expect(entry.cover == id, "Medium \(id).coverOf is \(e)") }
        }
        for (id, tag) in graph.tags {
            for e in tag.entries { #expect(graph.entries[e]?.tags.contains(id) == true, "Tag \(id).entries holds \(e)") }
        }
        return graph
    }

    @Test(arguments: 0..<3)
    func randomGraphsFollowTheModel(run: Int) throws {
        let seed = SeededGenerator.runSeed() &+ UInt64(run)
        var g = SeededGenerator(seed: seed)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("graph-random-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try ObjectGraphStore(model: graphModel, fileURL: url)
        let context = ObjectGraphContext(store: store, name: "writer")
        let reader = ObjectGraphContext(store: store, name: "reader")
        var model = GraphOracle(), saved = GraphOracle()
        var nextID = 1
        let types = ["image", "audio", "video"]
        func pick(_ ids: [Int]) -> Int? { ids.isEmpty ? nil : ids[g.int(0..<ids.count)] }
        func entry(_ id: Int) throws -> GEntry { try #require(try context.object(GEntry.self, id: id)) }
        func medium(_ id: Int) throws -> GraphObject { try #require(try context.object(withID: ObjectID(rootEntityName: "Medium", key: .int(id)))) }
        func updateMedium(_ id: Int, entry: Int??, coverOf: Int?? = .none) throws {
            let object = try medium(id)
            if var m = object.as(GMedium.self) {
                if let entry { m.entry = entry }
                if let coverOf { m.coverOf = coverOf }
                try context.update(m)
            } else {
                var p = try #require(object.as(GPhoto.self))
                if let entry { p.entry = entry }
                if let coverOf { p.coverOf = coverOf }
                try context.update(p)
            }
        }

        var counts: [String: Int] = [:]
        for step in 0..<250 {
            let action = g.int(0..<15)
            counts["action \(action)", default: 0] += 1
            let note = "seed \(seed) step \(step) action \(action)"
            switch action {
            case 0, 1:   // insert an entry, maybe tagged
                let id = nextID
                nextID += 1
                let tags = model.tags.keys.sorted().filter { _ in g.chance(0.3) }
                try context.insert(GEntry(id: id, text: "e\(g.int(0..<5))", month: g.int(1...12), tags: tags))
                model.entries[id] = .init(text: "", month: 0, tags: Set(tags))
                let e = try entry(id)
                model.entries[id]?.text = e.text
                model.entries[id]?.month = e.month
                for t in tags { model.tags[t]?.entries.insert(id) }
            case 2, 3:   // insert a medium or a photo, linked or not
                let id = nextID
                nextID += 1
                let e = g.chance(0.7) ? pick(model.entries.keys.sorted()) : nil
                let c = g.chance(0.3) ? pick(model.entries.keys.sorted()) : nil
                let type = types[g.int(0..<3)], kb = g.int(0..<10)
                let width = g.chance(0.3) ? g.int(1...9) : nil
                if let width {
                    try context.insert(GPhoto(id: id, type: type, kb: kb, width: width, entry: e, coverOf: c))
                } else {
                    try context.insert(GMedium(id: id, type: type, kb: kb, entry: e, coverOf: c))
                }
                model.media[id] = .init(type: type, kb: kb, width: width)
                model.link(medium: id, to: e)
                if let c { model.cover(entry: c, with: id) }
            case 4:   // insert a tag
                let id = nextID
                nextID += 1
                try context.insert(GTag(id: id, name: "t\(g.int(0..<3))"))
                model.tags[id] = ("", [])
                model.tags[id]?.name = try #require(try context.object(GTag.self, id: id)).name
            case 5:   // relink or unlink a medium from its side
                guard let m = pick(model.media.keys.sorted()) else { continue }
                let e = g.chance(0.8) ? pick(model.entries.keys.sorted()) : nil
                try updateMedium(m, entry: .some(e))
                model.link(medium: m, to: e)
            case 6:   // link or unlink from the entry's side
                guard let e = pick(model.entries.keys.sorted()), let m = pick(model.media.keys.sorted()) else { continue }
                var record = try entry(e)
                if record.media.contains(m) {
                    record.media.removeAll { $0 == m }
                    try context.update(record)
                    model.link(medium: m, to: nil)
                } else {
                    record.media.insert(m, at: g.int(0...record.media.count))
                    try context.update(record)
                    model.link(medium: m, to: e)
                }
            case 7:   // set or clear a cover
                guard let e = pick(model.entries.keys.sorted()) else { continue }
                let m = g.chance(0.8) ? pick(model.media.keys.sorted()) : nil
                var record = try entry(e)
                record.cover = m
                try context.update(record)
                model.cover(entry: e, with: m)
            case 8:   // tag or untag, from either side
                guard let e = pick(model.entries.keys.sorted()), let t = pick(model.tags.keys.sorted()) else { continue }
                let tagged = model.tags[t]?.entries.contains(e) == true
                if g.chance(0.5) {
                    var record = try entry(e)
                    if tagged { record.tags.removeAll { $0 == t } } else { record.tags.append(t) }
                    try context.update(record)
                } else {
                    var record = try #require(try context.object(GTag.self, id: t))
                    if tagged { record.entries.removeAll { $0 == e } } else { record.entries.append(e) }
                    try context.update(record)
                }
                if tagged {
                    model.tags[t]?.entries.remove(e)
                    model.entries[e]?.tags.remove(t)
                } else {
                    model.tags[t]?.entries.insert(e)
                    model.entries[e]?.tags.insert(t)
                }
            case 9:   // delete an entry: cascade, nullify, no action
                guard let e = pick(model.entries.keys.sorted()) else { continue }
                try context.delete(GEntry.self, id: e)
                model.deleteEntry(e)
            case 10:   // delete a medium
                guard let m = pick(model.media.keys.sorted()) else { continue }
                try context.delete(ObjectID(rootEntityName: "Medium", key: .int(m)))
                model.deleteMedium(m)
            case 11:   // delete a tag: denied while it has entries
                guard let t = pick(model.tags.keys.sorted()) else { continue }
                let id = ObjectID(rootEntityName: "Tag", key: .int(t))
                if let entries = model.tags[t]?.entries, !entries.isEmpty {
                    let error = try #require(throws: ObjectGraphError.self, "\(note)") { try context.delete(id) }
                    guard case .deleteDenied(id, "entries", let destinations) = error else {
                        Issue.record("\(note): \(error)")
                        continue
                    }
                    #expect(Set(destinations.map(\.key)) == Set(entries.map { RecordValue.int($0) }), "\(note)")
                    counts["denied", default: 0] += 1
                } else {
                    try context.delete(id)
                    model.tags[t] = nil
                }
            case 12:   // repair a dangling cover
                guard let m = model.dangling.first?.0 else { continue }
                try updateMedium(m, entry: nil, coverOf: .some(nil))
                model.media[m]?.coverOf = nil
            case 13:   // save (refused while a reference dangles), merge, reopen the file
                if let first = model.dangling.first {
                    let (m, e) = first
                    let error = try #require(throws: ObjectGraphError.self, "\(note)") { try context.save() }
                    guard case .danglingReference(let object, "coverOf", let destination) = error,
                        model.dangling.contains(where: { ObjectID(rootEntityName: "Medium", key: .int($0.0)) == object && ObjectID(rootEntityName: "Entry", key: .int($0.1)) == destination })
                    else {
                        Issue.record("\(note): \(error), expected one like Medium \(m) → Entry \(e)")
                        continue
                    }
                    counts["refused dangling", default: 0] += 1
                } else {
                    let didSave = try context.save()
                    saved = model
                    counts["saved", default: 0] += 1
                    reader.mergeChanges(fromContextDidSave: didSave)
                    let readerView = try Self.observed { try reader.fetch(GraphFetchRequest(entityName: $0)) }
                    #expect(readerView == saved, "\(note): the merging context")
                    let reopened = try ObjectGraphStore(model: graphModel, fileURL: url)
                    #expect(try Self.observed { try reopened.objects(ofEntity: $0) } == saved, "\(note): the file")
                }
            default:   // roll back, now and then
                if g.chance(0.3) {
                    context.rollback()
                    model = saved
                }
            }
            let view = try Self.observed { try context.fetch(GraphFetchRequest(entityName: $0)) }
            #expect(view == model, "\(note)")
            if view != model { return }
            try Self.checkQueries(context, model, &g, note)
        }
        // The run went through what it is meant to test.
        #expect(counts["saved", default: 0] >= 3 && counts["action 9", default: 0] >= 3 && counts["action 6", default: 0] >= 3, "seed \(seed): \(counts)")
    }

    /// A random predicate through a relationship, against a reference evaluator on the model.
    static func checkQueries(_ context: ObjectGraphContext, _ model: GraphOracle, _ g: inout SeededGenerator, _ note: String) throws {
        let type = ["image", "audio", "video"][g.int(0..<3)]
        let n = g.int(0..<10)
        let entryChecks: [(String, [RecordValue], (GraphOracle.Entry) -> Bool)] = [
            ("ANY media.type == %@", [.string(type)], { e in e.media.contains { model.media[$0]?.type == type } }),
            ("ALL media.kb < %@", [.int(n)], { e in e.media.allSatisfy { (model.media[$0]?.kb ?? 0) < n } }),
            ("NONE media.type == %@", [.string(type)], { e in !e.media.contains { model.media[$0]?.type == type } }),
            ("media.@count >= %@", [.int(n % 4)], { e in e.media.count >= n % 4 }),
            ("SUBQUERY(media, $m, $m.kb > %@).@count > 0", [.int(n)], { e in e.media.contains { (model.media[$0]?.kb ?? 0) > n } }),
            ("ANY tags.name == %@", [.string("t\(n % 3)")], { e in e.tags.contains { model.tags[$0]?.name == "t\(n % 3)" } }),
            ("cover.kb > %@", [.int(n)], { e in e.cover.flatMap { model.media[$0]?.kb }.map { $0 > n } ?? false }),
        ]
        let (format, arguments, expected) = entryChecks[g.int(0..<entryChecks.count)]
        let found = try context.fetch(GraphFetchRequest(entityName: "Entry", predicate: FormatPredicate(format: format, arguments: arguments)))
        #expect(Set(found.map(\.id.key)) == Set(model.entries.filter { expected($0.value) }.keys.map { RecordValue.int($0) }), "\(note): \(format) \(arguments)")

        // Media by their entry's month (nil first), then identity.
        let month = g.int(1...12)
        let media = try context.fetch(GraphFetchRequest(
            entityName: "Medium", predicate: FormatPredicate(format: "entry.month <= %@ OR entry == nil", arguments: [.int(month)]),
            sortKeys: [SortKey("entry.month"), SortKey("id")]))
        let reference = model.media
            .filter { $0.value.entry.flatMap { model.entries[$0]?.month }.map { $0 <= month } ?? true }
            .map { (month: $0.value.entry.flatMap { model.entries[$0]?.month } ?? Int.min, id: $0.key) }
            .sorted { ($0.month, $0.id) < ($1.month, $1.id) }
            .map { RecordValue.int($0.id) }
        #expect(media.map(\.id.key) == reference, "\(note): media by entry.month")
    }
}
