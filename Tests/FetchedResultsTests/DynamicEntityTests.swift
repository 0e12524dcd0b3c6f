import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableTestSupport
import Testing

/// Entities of `DynamicObject` records, declared by name, with relationships
/// held in fields: inverses, delete rules and queries as for typed entities.
/// Every entity has the one record type, so a request of a parent returns
/// its sub-entities' objects too (as Core Data's does).
@Suite struct DynamicEntityTests {
    static func object(_ fields: KeyValuePairs<String, RecordValue>) -> DynamicObject {
        DynamicObject(fields: DynamicRecord(fields: fields.map { ($0.key, $0.value) }))
    }

    static func model() throws -> ObjectModel {
        try ObjectModel(
            .entity(named: "Entry", relationships: [
                .toMany("media", to: "Medium", inverse: "entry", deleteRule: .cascade),
            ]),
            .entity(named: "Medium", relationships: [
                .toOne("entry", to: "Entry", inverse: "media"),
            ]),
            .entity(named: "Photo", parent: "Medium", relationships: [
                .toOne("entry", to: "Entry", inverse: "media"),
            ]))
    }

    func fields(_ context: ObjectContext, _ entity: String, _ id: RecordValue) throws -> DynamicRecord? {
        try context.object(DynamicObject.self, id: id, entity: entity)?.fields
    }

    /// The identities a request of the entity fetches.
    func ids(_ context: ObjectContext, _ entity: String, _ format: String? = nil, sortKeys: [SortKey] = [SortKey("id")], includesSubentities: Bool = true) throws -> [RecordValue] {
        var request = FetchRequest<DynamicObject>(entityName: entity, sortKeys: sortKeys)
        if let format { request.predicate = try RecordPredicate(format: format) }
        request.includesSubentities = includesSubentities
        return try context.fetch(request).map(\.id)
    }

    @Test func inversesFollowEitherSideAndDeletesFollowTheRules() throws {
        let context = ObjectContext(store: ObjectStore(model: try Self.model()))
        try context.insert(Self.object(["id": 1, "text": "Fog"]), entity: "Entry")
        try context.insert(Self.object(["id": 2, "text": "Rain"]), entity: "Entry")
        try context.insert(Self.object(["id": 10, "type": "image", "entry": 1]), entity: "Medium")
        try context.insert(Self.object(["id": 11, "type": "image", "width": 3]), entity: "Photo")
        try expectEqual(fields(context, "Entry", 1)?["media"], .array([10]))
        // The other side: entry 2's media take the photo (a sub-entity of Medium).
        try context.update(Self.object(["id": 2, "text": "Rain", "media": [11]]), entity: "Entry")
        try expectEqual(fields(context, "Photo", 11)?["entry"], 2)
        // Read through its parent entity too: one record type.
        try expectEqual(fields(context, "Medium", 11)?["width"], 3)
        // Moved: medium 10 goes to entry 2, entry 1 loses it.
        try context.update(Self.object(["id": 10, "type": "image", "entry": 2]), entity: "Medium")
        try expectEqual(fields(context, "Entry", 1)?["media"], .array([]))
        try expectEqual(fields(context, "Entry", 2)?["media"], .array([11, 10]))
        let rain = try #require(try context.object(DynamicObject.self, id: 2, entity: "Entry"))
        try expectEqual(context.destinations(of: rain, relationship: "media", as: DynamicObject.self, entity: "Entry").map(\.id), [11, 10])
        let saved = try context.save()
        expectEqual(Set(saved.insertedObjects.map(\.description)), ["Entry 1", "Entry 2", "Medium 10", "Photo 11"])
        try expectEqual(ids(context, "Entry", "ANY media.type == 'image' AND media.@count == 2"), [2])
        // A request of Medium returns the photo too (its records are of Medium's type).
        try expectEqual(ids(context, "Medium", "entry.text == 'Rain'", sortKeys: [SortKey("id", ascending: false)]), [11, 10])
        try expectEqual(ids(context, "Medium", "entry.text == 'Rain'", includesSubentities: false), [10])
        try expectEqual(ids(context, "Photo", "entry.text == 'Rain'"), [11])
        try expectEqual(context.store.objects(ofEntity: "Medium").map(\.entityName), ["Medium", "Photo"])
        // A reference to a missing object is refused, nothing changed.
        expectThrows(ContextError.danglingReference(
            object: ObjectID(rootEntityName: "Medium", key: 12), relationship: "entry", destination: ObjectID(rootEntityName: "Entry", key: 9))
        ) {
            try context.insert(Self.object(["id": 12, "entry": 9]), entity: "Medium")
        }
        #expect(try fields(context, "Medium", 12) == nil)
        // An entity the model does not declare.
        expectThrows(ContextError.unknownEntity("Thing")) { try context.insert(Self.object(["id": 13]), entity: "Thing") }
        // Without an entity name, the record type is every entity's: refused, naming them.
        let unnamed = try #require(throws: ContextError.self) { try context.insert(Self.object(["id": 13])) }
        guard case .unknownEntity(let reason) = unnamed else {
            Issue.record("\(unnamed)")
            return
        }
        #expect(reason.contains("Entry, Medium, Photo"), "\(reason)")
        // Cascade: entry 2 takes its media with it (the photo included).
        try context.delete(DynamicObject.self, id: 2, entity: "Entry")
        let deleted = try context.save()
        expectEqual(Set(deleted.deletedObjects.map(\.description)), ["Entry 2", "Medium 10", "Photo 11"])
        #expect(try ids(context, "Medium").isEmpty)
        try expectEqual(ids(context, "Entry"), [1])
    }

    /// A controller of the parent entity follows the sub-entity's objects
    /// and what their key paths read.
    @Test func aControllerOfTheParentFollowsTheSubEntity() throws {
        let context = ObjectContext(store: ObjectStore(model: try Self.model()))
        try context.insert(Self.object(["id": 1, "text": "Fog"]), entity: "Entry")
        try context.insert(Self.object(["id": 10, "type": "image", "entry": 1]), entity: "Medium")
        try context.save()
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<DynamicObject>(entityName: "Medium", sortKeys: [SortKey("entry.text"), SortKey("id")]),
            context: context, sectionNameKeyPath: "entry.text")
        let recorder = RelatedRecorder<DynamicObject>()
        controller.delegate = recorder
        try controller.performFetch()
        func shown() -> String {
            (controller.sections ?? []).map { "\($0.name): " + $0.objects.map { "\($0.id)" }.joined(separator: " ") }.joined(separator: " | ")
        }
        expectEqual(shown(), "Fog: 10")
        try context.insert(Self.object(["id": 11, "type": "image", "width": 3, "entry": 1]), entity: "Photo")
        context.processPendingChanges()
        expectEqual(shown(), "Fog: 10 11")
        expectEqual(recorder.events, ["insert 11 - → {0, 1}"])
        // The entry's text is the section key of both: a new section, both move.
        try context.update(Self.object(["id": 1, "text": "Mist", "media": [10, 11]]), entity: "Entry")
        context.processPendingChanges()
        expectEqual(shown(), "Mist: 10 11")
        expectEqual(recorder.events.dropFirst(), ["delete section 0 Fog", "insert section 0 Mist", "move 10 {0, 0} → {0, 0}", "move 11 {0, 1} → {0, 1}"])
        #expect(controller.lastError == nil && recorder.failures.isEmpty)
    }

    @Test func namesThatAreNoEntityAreErrors() {
        expectThrows(ObjectModelError.unknownEntityName(entity: "Entry", name: "Medum")) {
            try ObjectModel(.entity(named: "Entry", relationships: [.toMany("media", to: "Medum")]))
        }
        expectThrows(ObjectModelError.unknownEntityName(entity: "Photo", name: "Thing")) {
            try ObjectModel(.entity(named: "Photo", parent: "Thing"))
        }
        expectThrows(ObjectModelError.badInverse(entity: "Entry", relationship: "media", reason: "Medium has no relationship entry")) {
            try ObjectModel(.entity(named: "Entry", relationships: [.toMany("media", to: "Medium", inverse: "entry")]), .entity(named: "Medium"))
        }
    }

    /// A model of dynamic entities in a file: the entities' objects come back
    /// as they were saved, each under its entity.
    @Test func aFileOfDynamicEntitiesRoundTrips() throws {
        let folder = TemporaryFolder("dynamic-entities")
        let url = folder.url("dynamic.store")
        do {
            let context = ObjectContext(store: try ObjectStore(model: try Self.model(), fileURL: url))
            try context.insert(Self.object(["id": 1, "text": "Fog"]), entity: "Entry")
            try context.insert(Self.object(["id": 10, "type": "image", "entry": 1]), entity: "Medium")
            try context.insert(Self.object(["id": 11, "type": "image", "width": 3, "entry": 1]), entity: "Photo")
            try context.save()
        }
        let reopened = try ObjectStore(model: try Self.model(), fileURL: url)
        try expectEqual(reopened.objects(ofEntity: "Medium").map(\.description), ["Medium 10", "Photo 11"])
        expectEqual(reopened.object(DynamicObject.self, id: 1, entity: "Entry")?.fields["media"], .array([10, 11]))
        expectEqual(reopened.objects(DynamicObject.self, entity: "Photo").map(\.id), [11])
    }
}
