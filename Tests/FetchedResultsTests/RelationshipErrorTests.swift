import Foundation
import Testing
import FetchedResults
import Records
import PredicateFormat
import TableTestSupport

// Errors of relationships that were lost or misnamed once: each is a typed
// error naming what is wrong.

/// An identity whose encoding throws for negative values.
struct FragileID: Hashable, Codable, Sendable, CustomStringConvertible {
    var raw: Int

    init(_ raw: Int) { self.raw = raw }

    init(from decoder: any Decoder) throws {
        raw = try decoder.singleValueContainer().decode(Int.self)
    }

    func encode(to encoder: any Encoder) throws {
        guard raw >= 0 else { throw EncodingError.invalidValue(raw, .init(codingPath: encoder.codingPath, debugDescription: "negative")) }
        var container = encoder.singleValueContainer()
        try container.encode(raw)
    }

    var description: String { "#\(raw)" }
}

struct FragileRecord: Record, Codable, Equatable {
    var id: FragileID
    var name: String
    var friends: [FragileID] = []
}

/// A label of another shape, under the `Label` entity of another model.
struct RGLabelV2: Record, Codable {
    var id: Int
    var colour: Int
}

@Suite struct RelationshipErrorTests {
    /// The graph stack compared identities by their encoding, so an identity
    /// that could not be encoded was refused (`unencodableIdentity`). The
    /// one stack compares identities as values (`AnyHashable`): two such
    /// objects are two, an update of one leaves the other, a relationship
    /// holds them; messages show the identity's description. Only a file
    /// needs the encoding: a save into one is refused, naming why.
    @Test func anIdentityThatCannotBeEncodedIsComparedAsAValue() throws {
        let model = try ObjectModel(.entity(FragileRecord.self, name: "Person", relationships: [
            .toMany("friends", \.friends, to: FragileRecord.self),
        ]))
        let person = { (raw: Int) in ObjectID(rootEntityName: "Person", key: raw < 0 ? .string("#\(raw)") : .int(raw)) }
        let context = ObjectContext(store: ObjectStore(model: model))
        try context.insert(FragileRecord(id: FragileID(-1), name: "a"))
        try context.insert(FragileRecord(id: FragileID(-2), name: "b"))
        expectEqual(Set(context.insertedObjects(FragileRecord.self).map(\.name)), ["a", "b"], "two objects, not one")
        try context.update(FragileRecord(id: FragileID(-2), name: "b2"))
        try expectEqual(context.object(FragileRecord.self, id: FragileID(-1))?.name, "a", "the update of #-2 leaves #-1")
        try expectEqual(context.object(FragileRecord.self, id: FragileID(-2))?.name, "b2")
        expectThrows(ContextError.noSuchObject(person(-3))) { try context.update(FragileRecord(id: FragileID(-3), name: "c")) }
        expectThrows(ContextError.alreadyExists(person(-1))) { try context.insert(FragileRecord(id: FragileID(-1), name: "again")) }
        expectEqual(context.insertedObjects.map(\.id).sorted { "\($0)" < "\($1)" }, [person(-1), person(-2)])
        // As a destination: one that does not exist is refused, the object unchanged.
        try context.insert(FragileRecord(id: FragileID(1), name: "one"))
        try context.insert(FragileRecord(id: FragileID(2), name: "two", friends: [FragileID(1)]))
        expectThrows(ContextError.danglingReference(object: person(2), relationship: "friends", destination: person(-5))) {
            try context.update(FragileRecord(id: FragileID(2), name: "two", friends: [FragileID(1), FragileID(-5)]))
        }
        try expectEqual(context.object(FragileRecord.self, id: FragileID(2))?.friends, [FragileID(1)])
        // One that exists is held, and read back.
        try context.update(FragileRecord(id: FragileID(2), name: "two", friends: [FragileID(1), FragileID(-1)]))
        let two = try #require(try context.object(FragileRecord.self, id: FragileID(2)))
        try expectEqual(context.destinations(of: two, relationship: "friends", as: FragileRecord.self).map(\.name), ["one", "a"])
        try context.save()
        expectEqual(context.store.count, 4)
        expectEqual(context.store.object(FragileRecord.self, id: FragileID(-1))?.name, "a")
        // A delete of a destination held without an inverse: the save refuses the reference left.
        try context.delete(FragileRecord.self, id: FragileID(-1))
        expectThrows(StoreError.danglingReference(object: person(2), relationship: "friends", destination: person(-1))) { try context.save() }
        context.rollback()

        // In a file: the record cannot be written, the save is refused, nothing is written.
        let folder = TemporaryFolder("relationship-fragile")
        let url = folder.url("people.store")
        let inFile = ObjectContext(store: try ObjectStore(model: model, fileURL: url))
        try inFile.insert(FragileRecord(id: FragileID(3), name: "three"))
        try inFile.insert(FragileRecord(id: FragileID(-4), name: "minus four"))
        let error = try #require(throws: StoreError.self) { try inFile.save() }
        guard case .unencodable(let reason) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(reason.contains("negative"), "\(reason)")
        #expect(inFile.hasChanges && inFile.store.count == 0)
        try expectEqual(ObjectStore(model: model, fileURL: url).count, 0)
        try inFile.delete(FragileRecord.self, id: FragileID(-4))
        try inFile.save()
        try expectEqual(ObjectStore(model: model, fileURL: url).objects(FragileRecord.self).map(\.name), ["three"])
    }

    /// An object that exists but cannot be read as its entity's type (saved
    /// by a store of the same file with another model) was reported by a
    /// fetch through it as a reference to a missing object, once. It is a
    /// typed error that says the record cannot be decoded, before any of it
    /// reaches the store (the graph stack delivered the rest of the save and
    /// listed the object as undecodable; the one stack refuses the pick-up).
    @Test func anObjectThatCannotBeDecodedIsNotCalledMissing() throws {
        let folder = TemporaryFolder("relationship-undecodable")
        let url = folder.url("graph.store")
        let store = try ObjectStore(model: randomGraphModel, fileURL: url)
        let other = try ObjectModel(.entity(RGNote.self, name: "Note"), .entity(RGLabelV2.self, name: "Label"))
        do {
            let writer = ObjectContext(store: try ObjectStore(model: other, fileURL: url))
            try writer.insert(RGLabelV2(id: 50, colour: 3))
            try writer.insert(RGNote(id: 51, title: "x", kb: 1, label: 50))
            try writer.save()
        }
        let error = try #require(throws: StoreError.self) { try store.mergeExternalChanges() }
        guard case .damaged(let path, _, let reason) = error else {
            Issue.record("expected the label's decoding error, got \(error)")
            return
        }
        expectEqual(path, url.path)
        #expect(reason.contains("cannot be decoded"), "\(reason)")
        // Nothing of the save reached the store: no note without its label.
        #expect(store.count == 0 && store.object(RGNote.self, id: 51) == nil)
        let context = ObjectContext(store: store)
        #expect(try context.fetch(FetchRequest<RGNote>(predicate: try RecordPredicate(format: "label.name == 'x'"))).isEmpty)
        // The file does not open with this model either, and is left as it is.
        let bytes = try Data(contentsOf: url)
        expectThrows(StoreError.self) { _ = try ObjectStore(model: randomGraphModel, fileURL: url) }
        try expectEqual(Data(contentsOf: url), bytes)
        // The message names the entity whose record cannot be decoded.
        #expect(reason.contains("Label"), "\(reason)")
    }

    /// A relationship without an inverse held by an object another store on
    /// the same file saved (merged, not yet read through the model): a save
    /// deleting its destination was not refused — the scan skipped it — and
    /// wrote a file that no longer opened.
    @Test func aOneWayReferenceFromAMergedObjectStillRefusesTheDelete() throws {
        let folder = TemporaryFolder("relationship-oneway")
        let url = folder.url("graph.store")
        let store = try ObjectStore(model: randomGraphModel, fileURL: url)
        do {
            let other = ObjectContext(store: try ObjectStore(model: randomGraphModel, fileURL: url))
            try other.insert(RGFolder(id: 1, name: "a", rank: 0))
            try other.insert(RGFolder(id: 2, name: "b", rank: 0))
            try other.insert(RGNote(id: 10, title: "n", kb: 0, folder: 2))
            var pinning = try #require(try other.object(RGFolder.self, id: 1))
            pinning.pinned = 10
            try other.update(pinning)
            try other.save()
        }
        try store.mergeExternalChanges()
        let context = ObjectContext(store: store)
        try context.delete(RGNote.self, id: 10)   // folder 2 loses it; folder 1 still pins it
        expectThrows(StoreError.danglingReference(object: RGGraph.folderID(1), relationship: "pinned", destination: RGGraph.noteID(10))) {
            try context.save()
        }
        #expect(store.object(RGNote.self, id: 10) != nil)
        #expect(throws: Never.self) { _ = try ObjectStore(model: randomGraphModel, fileURL: url) }
        // The same for a pinned task (a sub-entity of another record type).
        context.rollback()
        let tasks = ObjectContext(store: store)
        try tasks.insert(RGTask(id: 11, title: "t", kb: 0, done: false, folder: 2))
        var pinned = try #require(try tasks.object(RGFolder.self, id: 2))
        pinned.pinned = 11
        try tasks.update(pinned)
        try tasks.save()
        let deleting = ObjectContext(store: store)
        try deleting.delete(RGTask.self, id: 11)
        expectThrows(StoreError.danglingReference(object: RGGraph.folderID(2), relationship: "pinned", destination: RGGraph.noteID(11))) {
            try deleting.save()
        }
    }
}
