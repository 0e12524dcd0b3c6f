import Foundation
import Testing
import FetchedResults
import Records
import PredicateFormat

// Errors of the object graph that were lost or misnamed: each is a typed
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

@Suite struct ObjectGraphErrorTests {
    /// An identity that cannot be encoded was compared as nil: two such
    /// objects were one, and an update of the second silently replaced the
    /// first. Now it is refused where it enters the graph.
    @Test func anIdentityThatCannotBeEncodedIsRefused() throws {
        let model = try ObjectModel(.entity(FragileRecord.self, name: "Person", relationships: [
            .toMany("friends", \.friends, to: FragileRecord.self),
        ]))
        let context = ObjectGraphContext(store: ObjectGraphStore(model: model))
        func isUnencodable(_ error: ObjectGraphError, _ identity: String) -> Bool {
            if case .unencodableIdentity(identity, let reason) = error { return reason.contains("negative") }
            return false
        }
        var error = try #require(throws: ObjectGraphError.self) { try context.insert(FragileRecord(id: FragileID(-1), name: "a")) }
        #expect(isUnencodable(error, "#-1"), "\(error)")
        #expect(error.description.contains("#-1 cannot be encoded"))
        error = try #require(throws: ObjectGraphError.self) { try context.update(FragileRecord(id: FragileID(-2), name: "b")) }
        #expect(isUnencodable(error, "#-2"), "\(error)")
        error = try #require(throws: ObjectGraphError.self) { _ = try context.objectID(FragileRecord.self, id: FragileID(-3)) }
        #expect(isUnencodable(error, "#-3"), "\(error)")
        #expect(context.insertedObjects.isEmpty)
        // As a destination: refused, the object unchanged.
        try context.insert(FragileRecord(id: FragileID(1), name: "one"))
        try context.insert(FragileRecord(id: FragileID(2), name: "two", friends: [FragileID(1)]))
        error = try #require(throws: ObjectGraphError.self) {
            try context.update(FragileRecord(id: FragileID(2), name: "two", friends: [FragileID(1), FragileID(-5)]))
        }
        #expect(isUnencodable(error, "#-5"), "\(error)")
        #expect(try context.object(FragileRecord.self, id: FragileID(2))?.friends == [FragileID(1)])
        try context.save()
        #expect(context.store.count == 2)
    }

    /// A destination that exists but cannot be read as its entity's type
    /// (saved by a store of the same file with another model) was reported
    /// by a fetch through it as a reference to a missing object; it is the
    /// decoding error, naming the object and its entity.
    @Test func aDestinationThatCannotBeReadIsNotCalledMissing() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("graph-undecodable-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try ObjectGraphStore(model: randomGraphModel, fileURL: url)
        let other = try ObjectModel(.entity(RGNote.self, name: "Note"), .entity(RGLabelV2.self, name: "Label"))
        do {
            let writer = ObjectGraphContext(store: try ObjectGraphStore(model: other, fileURL: url))
            try writer.insert(RGLabelV2(id: 50, colour: 3))
            try writer.insert(RGNote(id: 51, title: "x", kb: 1, label: 50))
            try writer.save()
        }
        let merged = try store.mergeExternalChanges()
        let undecodable = merged.flatMap(\.undecodableObjects)
        #expect(undecodable.count == 1)
        guard case .undecodable(let object, "Label", _) = undecodable.first else {
            Issue.record("\(undecodable)")
            return
        }
        #expect(object == ObjectID(rootEntityName: "Label", key: 50))
        let context = ObjectGraphContext(store: store)
        let error = try #require(throws: GraphFetchError.self) {
            _ = try context.fetch(GraphFetchRequest(entityName: "Note", predicate: FormatPredicate("label.name == 'x'")))
        }
        guard case .graph(.undecodable(let named, "Label", _)) = error else {
            Issue.record("expected the label's decoding error, got \(error)")
            return
        }
        #expect(named == ObjectID(rootEntityName: "Label", key: 50))
        // Reading the relationship says the same.
        let read = try #require(throws: ObjectGraphError.self) { _ = try context.destinations(of: RGGraph.noteID(51), relationship: "label") }
        guard case .undecodable(RGGraph.labelID(50), "Label", _) = read else {
            Issue.record("\(read)")
            return
        }
    }

    /// A relationship without an inverse held by an object another store on
    /// the same file saved (merged, not yet read through the model): a save
    /// deleting its destination was not refused — the scan skipped it — and
    /// wrote a file that no longer opened.
    @Test func aOneWayReferenceFromAMergedObjectStillRefusesTheDelete() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("graph-oneway-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try ObjectGraphStore(model: randomGraphModel, fileURL: url)
        do {
            let other = ObjectGraphContext(store: try ObjectGraphStore(model: randomGraphModel, fileURL: url))
            try other.insert(RGFolder(id: 1, name: "a", rank: 0))
            try other.insert(RGFolder(id: 2, name: "b", rank: 0))
            try other.insert(RGNote(id: 10, title: "n", kb: 0, folder: 2))
            var pinning = try #require(try other.object(RGFolder.self, id: 1))
            pinning.pinned = 10
            try other.update(pinning)
            try other.save()
        }
        try store.mergeExternalChanges()
        let context = ObjectGraphContext(store: store)
        try context.delete(RGGraph.noteID(10))   // folder 2 loses it; folder 1 still pins it
        #expect(throws: ObjectGraphError.danglingReference(object: RGGraph.folderID(1), relationship: "pinned", destination: RGGraph.noteID(10))) {
            try context.save()
        }
        #expect(try store.object(withID: RGGraph.noteID(10)) != nil)
        #expect(throws: Never.self) { _ = try ObjectGraphStore(model: randomGraphModel, fileURL: url) }
    }
}
