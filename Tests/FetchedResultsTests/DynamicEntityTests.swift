import FetchedResults
import Foundation
import PredicateFormat
import Records
import Testing

/// Entities of `DynamicObject` records, declared by name, with relationships
/// held in fields: inverses, delete rules and queries as for typed entities.
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

    func fields(_ context: ObjectGraphContext, _ entity: String, _ id: RecordValue) throws -> DynamicRecord? {
        let objectID = try context.objectID(DynamicObject.self, id: id, entity: entity)
        return (try context.object(withID: objectID)?.as(DynamicObject.self))?.fields
    }

    @Test func inversesFollowEitherSideAndDeletesFollowTheRules() throws {
        let context = ObjectGraphContext(store: ObjectGraphStore(model: try Self.model()))
        try context.insert(Self.object(["id": 1, "text": "Fog"]), entity: "Entry")
        try context.insert(Self.object(["id": 2, "text": "Rain"]), entity: "Entry")
        try context.insert(Self.object(["id": 10, "type": "image", "entry": 1]), entity: "Medium")
        try context.insert(Self.object(["id": 11, "type": "image", "width": 3]), entity: "Photo")
        #expect(try fields(context, "Entry", 1)?["media"] == .array([10]))
        // The other side: entry 2's media take the photo (a sub-entity of Medium).
        try context.update(Self.object(["id": 2, "text": "Rain", "media": [11]]), entity: "Entry")
        #expect(try fields(context, "Photo", 11)?["entry"] == 2)
        // Moved: medium 10 goes to entry 2, entry 1 loses it.
        try context.update(Self.object(["id": 10, "type": "image", "entry": 2]), entity: "Medium")
        #expect(try fields(context, "Entry", 1)?["media"] == .array([]))
        #expect(try fields(context, "Entry", 2)?["media"] == .array([11, 10]))
        try context.save()
        let images = try context.fetch(GraphFetchRequest(entityName: "Entry", predicate: FormatPredicate("ANY media.type == 'image' AND media.@count == 2")))
        #expect(images.map(\.id.key) == [2])
        let fromMedia = try context.fetch(GraphFetchRequest(
            entityName: "Medium", predicate: FormatPredicate("entry.text == 'Rain'"), sortKeys: [SortKey("id", ascending: false)]))
        #expect(fromMedia.map(\.id.key) == [11, 10] && fromMedia.map(\.entityName) == ["Photo", "Medium"])
        // A reference to a missing object is refused, nothing changed.
        #expect(throws: ObjectGraphError.self) {
            try context.insert(Self.object(["id": 12, "entry": 9]), entity: "Medium")
        }
        #expect(try fields(context, "Medium", 12) == nil)
        // Cascade: entry 2 takes its media with it.
        try context.delete(try context.objectID(DynamicObject.self, id: 2, entity: "Entry"))
        try context.save()
        #expect(try context.fetch(GraphFetchRequest(entityName: "Medium")).isEmpty)
        #expect(try context.fetch(GraphFetchRequest(entityName: "Entry")).map(\.id.key) == [1])
    }

    @Test func namesThatAreNoEntityAreErrors() {
        #expect(throws: ObjectModelError.unknownEntityName(entity: "Entry", name: "Medum")) {
            try ObjectModel(.entity(named: "Entry", relationships: [.toMany("media", to: "Medum")]))
        }
        #expect(throws: ObjectModelError.unknownEntityName(entity: "Photo", name: "Thing")) {
            try ObjectModel(.entity(named: "Photo", parent: "Thing"))
        }
        #expect(throws: ObjectModelError.badInverse(entity: "Entry", relationship: "media", reason: "Medium has no relationship entry")) {
            try ObjectModel(.entity(named: "Entry", relationships: [.toMany("media", to: "Medium", inverse: "entry")]), .entity(named: "Medium"))
        }
    }
}
