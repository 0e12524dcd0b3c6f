import Foundation
import Testing
import FetchedResults
import Records
import PredicateFormat
import TableTestSupport

// Relationships on the one stack: a model of several entities in one store,
// inverses kept by the context, delete rules, references checked, required
// relationships validated at the save, files that round-trip and files that
// do not open, key paths through relationships. `RelationshipPropertyTests`
// checks the same against independent models under random changes.

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

/// A sub-entity of GMedium, of its own record type: it shares the media's
/// identities and is held by relationships to Medium, and a typed request
/// reads it as a `Photo` (a `FetchRequest<GMedium>` does not return it).
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
let relationshipModel: ObjectModel = {
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

extension ObjectID {
    /// The identities of `relationshipModel`'s objects (a photo's root is Medium).
    static func entry(_ id: Int) -> ObjectID { ObjectID(rootEntityName: "Entry", key: .int(id)) }
    static func medium(_ id: Int) -> ObjectID { ObjectID(rootEntityName: "Medium", key: .int(id)) }
    static func tag(_ id: Int) -> ObjectID { ObjectID(rootEntityName: "Tag", key: .int(id)) }
}

/// The identities of typed records, in order.
func integerIDs<R: Record>(_ records: [R]) -> [Int] where R.ID == Int { records.map(\.id) }

@Suite struct RelationshipTests {
    /// The identities a typed request of `R`'s entity (or of `entity`) fetches.
    static func fetchIDs<R: Record & Codable>(
        _ context: ObjectContext, _ type: R.Type, entity: String? = nil, _ format: String? = nil,
        sortKeys: [SortKey] = [SortKey("id")], includesSubentities: Bool = true
    ) throws -> [Int] where R.ID == Int {
        var request = FetchRequest<R>(entityName: entity, sortKeys: sortKeys)
        if let format { request.predicate = try RecordPredicate(format: format) }
        request.includesSubentities = includesSubentities
        return integerIDs(try context.fetch(request))
    }

    // MARK: The model

    @Test func modelChecksTheDeclaration() throws {
        expectEqual(relationshipModel.entity(named: "Photo")?.parentName, "Medium")
        expectEqual(relationshipModel.entityNames(including: "Medium"), ["Medium", "Photo"])
        expectEqual(relationshipModel.entity(named: "Entry")?.relationship(named: "media")?.destinationEntityName, "Medium")
        expectEqual(relationshipModel.entity(for: GPhoto.self)?.name, "Photo")
        // An inverse that does not point back.
        expectThrows(ObjectModelError.badInverse(entity: "Entry", relationship: "media", reason: "Medium has no relationship nothing")) {
            _ = try ObjectModel(
                .entity(GEntry.self, name: "Entry", relationships: [.toMany("media", \.media, to: GMedium.self, inverse: "nothing")]),
                .entity(GMedium.self, name: "Medium"))
        }
        // A destination that is no entity's type.
        expectThrows(ObjectModelError.unknownType(entity: "Entry", type: "GTag")) {
            _ = try ObjectModel(.entity(GEntry.self, name: "Entry", relationships: [.toMany("tags", \.tags, to: GTag.self)]))
        }
        // A sub-entity that does not declare what it inherits.
        expectThrows(ObjectModelError.self) {
            _ = try ObjectModel(
                .entity(GEntry.self, name: "Entry"),
                .entity(GMedium.self, name: "Medium", relationships: [.toOne("entry", \.entry, to: GEntry.self)]),
                .entity(GPhoto.self, name: "Photo", parent: GMedium.self))
        }
        expectThrows(ObjectModelError.duplicateEntity("Entry")) {
            _ = try ObjectModel(.entity(GEntry.self, name: "Entry"), .entity(GTag.self, name: "Entry"))
        }
    }

    // MARK: Relationships

    @Test func inversesFollowEitherSide() throws {
        let context = ObjectContext(store: ObjectStore(model: relationshipModel))
        try context.insert(GEntry(id: 1, text: "Fog", month: 1))
        try context.insert(GEntry(id: 2, text: "Rain", month: 2))
        // Set the medium's entry: the entry's media hold it.
        try context.insert(GMedium(id: 10, type: "image", kb: 5, entry: 1))
        try expectEqual(context.object(GEntry.self, id: 1)?.media, [10])
        // Move it: the first entry loses it.
        try context.update(GMedium(id: 10, type: "image", kb: 5, entry: 2))
        try expectEqual(context.object(GEntry.self, id: 1)?.media, [])
        try expectEqual(context.object(GEntry.self, id: 2)?.media, [10])
        let rainBefore = try #require(try context.object(GEntry.self, id: 2))
        try expectEqual(context.destinations(of: rainBefore, relationship: "media", as: GMedium.self), [GMedium(id: 10, type: "image", kb: 5, entry: 2)])
        // Set it from the to-many side: the medium's entry moves, entry 2 loses it.
        var fog = try #require(try context.object(GEntry.self, id: 1))
        fog.media = [10]
        try context.update(fog)
        try expectEqual(context.object(GMedium.self, id: 10)?.entry, 1)
        try expectEqual(context.object(GEntry.self, id: 2)?.media, [])
        // A sub-entity's object in a relationship to its parent.
        try context.insert(GPhoto(id: 11, type: "image", kb: 7, width: 640, entry: 1))
        try expectEqual(context.object(GEntry.self, id: 1)?.media, [10, 11])
        // A to-many relationship holds each destination once.
        try context.update(GEntry(id: 1, text: "Fog", month: 1, media: [10, 11, 10]))
        try expectEqual(context.object(GEntry.self, id: 1)?.media, [10, 11])
        // Read typed, a relationship to Medium holding a Photo names the
        // photo's entity (its record is no GMedium); from the photo, its entry.
        fog = try #require(try context.object(GEntry.self, id: 1))
        expectThrows(ContextError.unknownEntity("Photo (its records are GPhoto, not GMedium)")) {
            _ = try context.destinations(of: fog, relationship: "media", as: GMedium.self)
        }
        let photo = try #require(try context.object(GPhoto.self, id: 11))
        try expectEqual(context.destinations(of: photo, relationship: "entry", as: GEntry.self).map(\.id), [1])
        #expect(try context.object(GMedium.self, id: 11) == nil, "a photo is not read as a GMedium")
        // One-to-one: a new cover takes it from the entry that had it.
        var rain = try #require(try context.object(GEntry.self, id: 2))
        rain.cover = 11
        try context.update(rain)
        fog = try #require(try context.object(GEntry.self, id: 1))
        fog.cover = 11
        try context.update(fog)
        #expect(try context.object(GEntry.self, id: 2)?.cover == nil)
        try expectEqual(context.object(GPhoto.self, id: 11)?.coverOf, 1)
        let saved = try context.save()
        expectEqual(Set(saved.insertedObjects.map(\.entityName)), ["Entry", "Medium", "Photo"])
        expectEqual(saved.insertedObjects.filter { $0.entityName == "Photo" }.map(\.id.key), [.int(11)])
        expectEqual(saved.insertedObjects(GPhoto.self).map(\.id), [11])
        // The erased objects of Medium's hierarchy name each one's entity.
        try expectEqual(context.store.objects(ofEntity: "Medium").map(\.description), ["Medium 10", "Photo 11"])
    }

    @Test func twoContextsMergeAndSavesNameEntities() async throws {
        let store = ObjectStore(model: relationshipModel)
        let saves = store.didSaveNotifications()
        let a = ObjectContext(store: store, name: "a"), b = ObjectContext(store: store, name: "b")
        try a.insert(GEntry(id: 1, text: "Fog", month: 1))
        try a.insert(GPhoto(id: 10, type: "image", kb: 1, width: 2, entry: 1))
        let first = try a.save()
        b.mergeChanges(fromContextDidSave: first)
        try expectEqual(b.object(GEntry.self, id: 1)?.media, [10])
        // b deletes the entry (cascading to the photo) and saves; a merges.
        try b.delete(GEntry.self, id: 1)
        let second = try b.save()
        expectEqual(Set(second.deletedObjects.map(\.description)), ["Entry 1", "Photo 10"])
        expectEqual(second.contextName, "b")
        a.mergeChanges(fromContextDidSave: second)
        #expect(try a.fetch(FetchRequest<GMedium>()).isEmpty)
        #expect(try a.fetch(FetchRequest<GPhoto>()).isEmpty)
        #expect(try a.object(GEntry.self, id: 1) == nil)
        // The store's notifications name each object's entity.
        var iterator = saves.makeAsyncIterator()
        let delivered = try #require(await iterator.next())
        expectEqual(delivered.insertedObjects.map(\.entityName).sorted(), ["Entry", "Photo"])
        expectEqual(delivered.insertedObjects.filter { $0.entityName == "Photo" }.map(\.id), [.medium(10)])
        expectEqual(Set(delivered.insertedIDs), [.entry(1), .medium(10)])
        let deleted = try #require(await iterator.next())
        expectEqual(deleted.deletedObjects.map(\.entityName).sorted(), ["Entry", "Photo"])
        // A save of an object another context changed since this one read it
        // conflicts (the store's merge policy), and changes nothing.
        let stale = ObjectContext(store: store)
        try a.insert(GEntry(id: 2, text: "Rain", month: 2))
        try a.save()
        var entry = try #require(try stale.object(GEntry.self, id: 2))
        try a.update(GEntry(id: 2, text: "Hail", month: 2))
        try a.save()
        entry.text = "Snow"
        try stale.update(entry)
        let error = try #require(throws: StoreError.self) { try stale.save() }
        guard case .mergeConflicts(let conflicts) = error else {
            Issue.record("\(error)")
            return
        }
        expectEqual(conflicts.count, 1)
        expectEqual(store.object(GEntry.self, id: 2)?.text, "Hail")
    }

    @Test func aReferenceToAMissingObjectIsATypedError() throws {
        let context = ObjectContext(store: ObjectStore(model: relationshipModel))
        try context.insert(GEntry(id: 1, text: "Fog", month: 1))
        expectThrows(ContextError.danglingReference(object: .medium(10), relationship: "entry", destination: .entry(99))) {
            try context.insert(GMedium(id: 10, type: "image", kb: 1, entry: 99))
        }
        #expect(try context.object(GMedium.self, id: 10) == nil)   // nothing changed
        expectEqual(context.insertedObjects.map(\.description), ["Entry 1"])
        // A tag is not a medium: an entry's media cannot hold it.
        try context.insert(GTag(id: 5, name: "sea"))
        expectThrows(ContextError.danglingReference(object: .entry(1), relationship: "media", destination: .medium(5))) {
            try context.update(GEntry(id: 1, text: "Fog", month: 1, media: [5]))
        }
        try expectEqual(context.object(GEntry.self, id: 1)?.media, [])
        expectThrows(ContextError.noSuchObject(.entry(7))) { try context.delete(GEntry.self, id: 7) }
        expectThrows(ContextError.alreadyExists(.entry(1))) { try context.insert(GEntry(id: 1, text: "again", month: 1)) }
        // A photo shares the media's identities.
        try context.insert(GMedium(id: 20, type: "audio", kb: 1))
        expectThrows(ContextError.alreadyExists(.medium(20))) {
            try context.insert(GPhoto(id: 20, type: "image", kb: 1, width: 1))
        }
        // An entity the model does not have, or a record type of none.
        expectThrows(ContextError.unknownEntity("Nope")) { try context.insert(GTag(id: 6, name: "x"), entity: "Nope") }
        expectThrows(ContextError.unknownEntity("Entry (its records are GEntry, not GTag)")) { try context.insert(GTag(id: 6, name: "x"), entity: "Entry") }
        #expect(try context.object(GTag.self, id: 6) == nil)
    }

    @Test func deleteRules() throws {
        let context = ObjectContext(store: ObjectStore(model: relationshipModel))
        try context.insert(GEntry(id: 1, text: "Fog", month: 1))
        try context.insert(GEntry(id: 2, text: "Rain", month: 2))
        try context.insert(GTag(id: 5, name: "sea", entries: [1]))
        try context.insert(GMedium(id: 10, type: "image", kb: 1, entry: 1))
        try context.insert(GMedium(id: 11, type: "audio", kb: 1, entry: 1, coverOf: 2))
        try context.save()
        // Deny: the tag still has an entry.
        expectThrows(ContextError.deleteDenied(object: .tag(5), relationship: "entries", destinations: [.entry(1)])) {
            try context.delete(GTag.self, id: 5)
        }
        #expect(!context.hasChanges)
        // Cascade: the entry's media go; nullify: the tag loses the entry, and
        // entry 2 loses its cover (medium 11's coverOf nullifies).
        try context.delete(GEntry.self, id: 1)
        #expect(try context.object(GMedium.self, id: 10) == nil)
        #expect(try context.object(GMedium.self, id: 11) == nil)
        try expectEqual(context.object(GTag.self, id: 5)?.entries, [])
        #expect(try context.object(GEntry.self, id: 2)?.cover == nil)
        let saved = try context.save()
        expectEqual(Set(saved.deletedObjects.map(\.description)), ["Entry 1", "Medium 10", "Medium 11"])
        expectEqual(Set(saved.updatedObjects.map(\.description)), ["Tag 5", "Entry 2"])
        // Now the tag has no entries: deleting it is allowed.
        try context.delete(GTag.self, id: 5)
        try context.save()
        // No action: the medium keeps pointing at a deleted entry; the save
        // refuses the dangling reference until it is repaired.
        try context.insert(GMedium(id: 12, type: "image", kb: 1))
        var rain = try #require(try context.object(GEntry.self, id: 2))
        rain.cover = 12
        try context.update(rain)
        try context.save()
        try context.delete(GEntry.self, id: 2)
        let medium = try #require(try context.object(GMedium.self, id: 12))
        expectEqual(medium.coverOf, 2)
        expectThrows(StoreError.danglingReference(object: .medium(12), relationship: "coverOf", destination: .entry(2))) { try context.save() }
        expectThrows(ContextError.danglingReference(object: .medium(12), relationship: "coverOf", destination: .entry(2))) {
            _ = try context.destinations(of: medium, relationship: "coverOf", as: GEntry.self)
        }
        try context.update(GMedium(id: 12, type: "image", kb: 1, coverOf: nil))
        try context.save()
        #expect(context.store.object(GMedium.self, id: 12)?.coverOf == nil)
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
        let context = ObjectContext(store: ObjectStore(model: model))
        try context.insert(Author(id: 1))
        try context.insert(Book(id: 7))
        let book = ObjectID(rootEntityName: "Book", key: 7), author = ObjectID(rootEntityName: "Author", key: 1)
        let error = try #require(throws: StoreError.self) { try context.save() }
        // Both failures, in the model's order of entities (the graph stack
        // listed the author's first).
        expectEqual(error, .validation([
            ValidationFailure(code: .missingMandatoryProperty, object: book, key: "author"),
            ValidationFailure(code: .missingMandatoryProperty, object: author, key: "books"),
        ]))
        #expect(error.description.contains("author is a required value"))
        #expect(error.description.contains("NSValidationMultipleErrorsError"))
        expectEqual(context.store.count, 0)
        try context.update(Book(id: 7, author: 1))
        expectThrows(StoreError.validation([ValidationFailure(code: .relationshipLacksMinimumCount, object: author, key: "books")])) {
            try context.save()
        }
        try context.insert(Book(id: 8, author: 1))
        try context.save()
        try expectEqual(context.object(Author.self, id: 1)?.books, [7, 8])
        try context.insert(Book(id: 9, author: 1))
        try context.insert(Book(id: 10, author: 1))
        expectThrows(StoreError.validation([ValidationFailure(code: .relationshipExceedsMaximumCount, object: author, key: "books")])) {
            try context.save()
        }
        // Deleting the author cascades to its books.
        context.rollback()
        try context.delete(Author.self, id: 1)
        try context.save()
        expectEqual(context.store.count, 0)
    }

    // MARK: Files

    @Test func aFileRoundTripsAndADamagedReferenceIsAnErrorNamingIt() throws {
        let folder = TemporaryFolder("relationship-file")
        let url = folder.url("graph.store")
        do {
            let context = ObjectContext(store: try ObjectStore(model: relationshipModel, fileURL: url))
            try context.insert(GEntry(id: 1, text: "Fog", month: 1))
            try context.insert(GPhoto(id: 10, type: "image", kb: 1, width: 3, entry: 1))
            try context.save()
        }
        let reopened = try ObjectStore(model: relationshipModel, fileURL: url)
        try expectEqual(reopened.objects(ofEntity: "Medium").map(\.description), ["Photo 10"])
        expectEqual(reopened.object(GEntry.self, id: 1)?.media, [10])
        expectEqual(reopened.object(GPhoto.self, id: 10)?.width, 3)
        // Written by a model without the relationships: a medium whose entry
        // does not exist, and an entry whose medium does not point back.
        let plain = try ObjectModel(
            .entity(GEntry.self, name: "Entry"), .entity(GMedium.self, name: "Medium"),
            .entity(GPhoto.self, name: "Photo", parent: GMedium.self), .entity(GTag.self, name: "Tag"))
        do {
            let context = ObjectContext(store: try ObjectStore(model: plain, fileURL: url))
            try context.insert(GMedium(id: 11, type: "audio", kb: 1, entry: 99))
            try context.save()
        }
        expectThrows(StoreError.danglingReference(object: .medium(11), relationship: "entry", destination: .entry(99))) {
            _ = try ObjectStore(model: relationshipModel, fileURL: url)
        }
        do {
            let context = ObjectContext(store: try ObjectStore(model: plain, fileURL: url))
            try context.delete(GMedium.self, id: 11)
            try context.insert(GMedium(id: 12, type: "audio", kb: 1))
            try context.update(GEntry(id: 1, text: "Fog", month: 1, media: [10, 12]))
            try context.save()
        }
        expectThrows(StoreError.inverseMismatch(object: .entry(1), relationship: "media", destination: .medium(12))) {
            _ = try ObjectStore(model: relationshipModel, fileURL: url)
        }
        // A model without the entity cannot read the file.
        let noPhoto = try ObjectModel(.entity(GEntry.self, name: "Entry"), .entity(GMedium.self, name: "Medium"))
        expectThrows(StoreError.unknownEntity("Photo")) { _ = try ObjectStore(model: noPhoto, fileURL: url) }
    }

    /// An object that another model's store on the same file saved, and
    /// that this model cannot read, is reported — never left out silently.
    /// (The graph stack delivered the rest of the save with the object
    /// listed as undecodable; the one stack refuses the whole pick-up with
    /// a typed error, and the store stays as it was.)
    @Test func anExternalObjectThisModelCannotReadIsReported() throws {
        let folder = TemporaryFolder("relationship-external")
        let url = folder.url("graph.store")
        let noPhoto = try ObjectModel(.entity(GEntry.self, name: "Entry"), .entity(GMedium.self, name: "Medium"))
        let full = ObjectContext(store: try ObjectStore(model: relationshipModel, fileURL: url))
        let reader = try ObjectStore(model: noPhoto, fileURL: url)
        try full.insert(GEntry(id: 1, text: "Fog", month: 1))
        try full.insert(GPhoto(id: 10, type: "image", kb: 1, width: 3, entry: 1))
        try full.save()
        expectThrows(StoreError.unknownEntity("Photo")) { try reader.mergeExternalChanges() }
        #expect(reader.count == 0 && reader.version == 0)
        // A save of that store picks up the same first: refused, nothing written.
        let context = ObjectContext(store: reader)
        try context.insert(GEntry(id: 2, text: "Rain", month: 2))
        expectThrows(StoreError.unknownEntity("Photo")) { try context.save() }
        #expect(context.hasChanges)
        #expect(try ObjectStore(model: relationshipModel, fileURL: url).object(GEntry.self, id: 2) == nil)
    }

    // MARK: Queries through relationships

    @Test func predicatesAndSortKeysThroughRelationships() throws {
        let context = ObjectContext(store: ObjectStore(model: relationshipModel))
        try context.insert(GEntry(id: 1, text: "Fog", month: 3))
        try context.insert(GEntry(id: 2, text: "Rain", month: 1))
        try context.insert(GEntry(id: 3, text: "Sun", month: 2))
        try context.insert(GMedium(id: 10, type: "image", kb: 5, entry: 1))
        try context.insert(GMedium(id: 11, type: "audio", kb: 9, entry: 1))
        try context.insert(GPhoto(id: 12, type: "image", kb: 2, width: 1, entry: 2))
        try context.insert(GMedium(id: 13, type: "audio", kb: 1))
        func entries(_ format: String, _ args: any RecordValueConvertible...) throws -> [Int] {
            let predicate = RecordPredicate<GEntry>(try FormatPredicate(format: format, arguments: args.map(\.recordValue)))
            return integerIDs(try context.fetch(FetchRequest<GEntry>(predicate: predicate, sortKeys: [SortKey("id")])))
        }
        // The relationship to Medium holds the photo: its values are read too.
        try expectEqual(entries("ANY media.type == 'image'"), [1, 2])
        try expectEqual(entries("ALL media.type == 'image'"), [2, 3])
        try expectEqual(entries("NONE media.type == 'audio'"), [2, 3])
        try expectEqual(entries("media.@count > 1"), [1])
        try expectEqual(entries("SUBQUERY(media, $m, $m.type == 'audio' AND $m.kb > 5).@count > 0"), [1])
        try expectEqual(entries("ANY media.kb < %d", 3), [2])
        // Media through their entry: a request per record type (the graph
        // stack's one request of Medium returned the photo among the media).
        let sortedByText = [SortKey("entry.text", ascending: false), SortKey("id")]
        try expectEqual(Self.fetchIDs(context, GMedium.self, "entry.month < 3", sortKeys: sortedByText), [])
        try expectEqual(Self.fetchIDs(context, GPhoto.self, "entry.month < 3", sortKeys: sortedByText), [12])
        // No entry (nil) first.
        try expectEqual(Self.fetchIDs(context, GMedium.self, sortKeys: [SortKey("entry.month"), SortKey("id")]), [13, 10, 11])
        try expectEqual(Self.fetchIDs(context, GPhoto.self, sortKeys: [SortKey("entry.month"), SortKey("id")]), [12])
        try expectEqual(Self.fetchIDs(context, GMedium.self, "entry == nil"), [13])
        try expectEqual(Self.fetchIDs(context, GPhoto.self, "entry == nil"), [])
        try expectEqual(Self.fetchIDs(context, GMedium.self, "entry.id == 2"), [])
        try expectEqual(Self.fetchIDs(context, GPhoto.self, "entry.id == 2"), [12])
        try expectEqual(Self.fetchIDs(context, GMedium.self, entity: "Medium", includesSubentities: false), [10, 11, 13])
        try expectEqual(Self.fetchIDs(context, GMedium.self, entity: "Medium", includesSubentities: true), [10, 11, 13])
        try expectEqual(context.count(for: FetchRequest<GMedium>(predicate: try RecordPredicate(format: "entry != nil"))), 2)
        // A key the path's entity does not have names the entity and the key.
        let error = try #require(throws: FetchError.self) {
            _ = try context.fetch(FetchRequest<GEntry>(predicate: try RecordPredicate(format: "media.entry.colour == 1")))
        }
        guard case .unknownKey(let key) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(key.typeName == "Entry" && key.keyPath == "colour", "\(key)")
        expectThrows(FetchError.unknownEntity("Nope")) { _ = try context.fetch(FetchRequest<GEntry>(entityName: "Nope")) }
    }
}
