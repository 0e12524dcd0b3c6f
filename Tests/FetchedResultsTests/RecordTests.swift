import Foundation
import Testing
import FetchedResults
import TableTestSupport

struct Author: Record, Codable {
    var id: Int
    var name: String
    var address: Address
    var books: [Book]

    struct Address: Codable { var city: String; var zip: String? }
    struct Book: Codable { var title: String; var year: Int }
}

@Suite struct RecordTests {
    static let author = Author(
        id: 1, name: "Anna", address: .init(city: "Köln", zip: nil),
        books: [.init(title: "A", year: 1990), .init(title: "B", year: 2001)])

    @Test func declaredKeysAreTheFastPath() throws {
        let note = Note(id: 3, group: nil, rank: 7, title: "Fog", tags: ["x", "y"])
        #expect(try Note.recordKeys.reader(forKeyPath: "rank")(note) == .int(7))
        #expect(try Note.recordKeys.reader(forKeyPath: "group")(note) == .null)
        #expect(try Note.recordKeys.reader(forKeyPath: "tags")(note) == .array(["x", "y"]))
        #expect(Note.recordKeys.declaredKeys == ["created", "group", "rank", "tags", "title", "version"])
        #expect(throws: RecordKeyError.self) { try Note.recordKeys.reader(forKeyPath: "colour") }
        do {
            _ = try Note.recordKeys.reader(forKeyPath: "colour.name")
        } catch {
            #expect(error.description == "Note has no key 'colour' (its keys: created, group, rank, tags, title, version)")
        }
    }

    @Test func codableRecordsReadTheirValuesByEncoding() throws {
        let keys = Author.recordKeys
        #expect(try keys.reader(forKeyPath: "name")(Self.author) == .string("Anna"))
        #expect(try keys.reader(forKeyPath: "address.city")(Self.author) == .string("Köln"))
        #expect(try keys.reader(forKeyPath: "address.zip")(Self.author) == .null)
        // A path through an array maps over it (a to-many key path).
        #expect(try keys.reader(forKeyPath: "books.year")(Self.author) == .array([.int(1990), .int(2001)]))
        #expect(try keys.reader(forKeyPath: "nothing.here")(Self.author) == .null)
    }

    @Test func encodedValues() throws {
        struct Sample: Encodable {
            var date = Date(timeIntervalSince1970: 12.5)
            var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
            var url = URL(string: "https://example.com/a")!
            var optional: Int? = nil
            var nested = ["b": 2, "a": 1]
            var flags = [true, false]
        }
        let value = try RecordValueEncoder().encode(Sample())
        #expect(value.asRecord?["date"] == .date(Date(timeIntervalSince1970: 12.5)))
        #expect(value.asRecord?["uuid"] == .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(value.asRecord?["url"] == .string("https://example.com/a"))
        #expect(value.asRecord?["optional"] == nil || value.asRecord?["optional"] == .null)
        #expect(value.asRecord?["nested"] == ["a": 1, "b": 2])
        #expect(value.asRecord?["flags"] == [true, false])
    }

    @Test func recordValuesCodeThroughJSONEncoderExactly() throws {
        let value: RecordValue = ["when": .date(Date(timeIntervalSinceReferenceDate: 0.1 + 0.2)), "list": [1, 2.5, "x", nil], "deep": ["a": ["b": true]]]
        let encoder = JSONEncoder()
        let decoded = try JSONDecoder().decode(RecordValue.self, from: encoder.encode(value))
        #expect(decoded == value)
    }

    @Test func dynamicObjectsAreIdentifiedByAKey() throws {
        let object = DynamicObject(fields: DynamicRecord(fields: [("key", "a"), ("n", 1)]), idKey: "key")
        #expect(object.id == "a")
        #expect(try DynamicObject.recordKeys.reader(forKeyPath: "n")(object) == .int(1))
        #expect(DynamicObject(fields: DynamicRecord(fields: [("n", 1)])).id == .null)
    }
}

@Suite struct SortKeyTests {
    /// Orders values with a sort key, through a context fetch.
    func sorted(_ titles: [String], _ comparison: SortKey.StringComparison, ascending: Bool = true) throws -> [String] {
        let store = ObjectStore<Note>()
        let context = ObjectContext(store: store)
        for (k, title) in titles.enumerated() { try context.insert(Note(id: k, group: nil, rank: 0, title: title)) }
        return try context.fetch(FetchRequest(sortKeys: [SortKey("title", ascending: ascending, comparison: comparison)])).map(\.title)
    }

    @Test func plainStringsCompareLikeCompare() throws {
        #expect(try sorted(["b", "B", "a", "A", "file10", "file2"], .plain) == ["A", "B", "a", "b", "file10", "file2"])
    }

    @Test func localizedStandardIsHowPeopleSortLists() throws {
        // Case and diacritics are ignored first ("apfel" < "apple"), then break ties plainly.
        let result = try sorted(["file10", "file2", "File1", "zebra", "apple", "Apple", "Äpfel", "élan", "elan"], .localizedStandard)
        #expect(result == ["Äpfel", "Apple", "apple", "elan", "élan", "File1", "file2", "file10", "zebra"])
        #expect(try sorted(["a 100", "a 20", "a 3", "a 003"], .localizedStandard) == ["a 003", "a 3", "a 20", "a 100"])
        #expect(try sorted(["b", "a", "c"], .localizedStandard, ascending: false) == ["c", "b", "a"])
    }

    @Test func nilSortsFirstAndNumbersByValue() throws {
        let store = ObjectStore<DynamicObject>()
        let context = ObjectContext(store: store)
        let values: [RecordValue] = [3, nil, 1.5, -2, 2, "x", .date(Date(timeIntervalSince1970: 0)), true]
        for (k, v) in values.enumerated() {
            try context.insert(DynamicObject(fields: DynamicRecord(fields: [("id", .int(k)), ("v", v)])))
        }
        let ordered = try context.fetch(FetchRequest(sortKeys: [SortKey("v")])).map { $0.fields["v"] ?? .null }
        #expect(ordered == [nil, true, -2, 1.5, 2, 3, .date(Date(timeIntervalSince1970: 0)), "x"])
        let descending = try context.fetch(FetchRequest(sortKeys: [SortKey("v", ascending: false)])).map { $0.fields["v"] ?? .null }
        #expect(descending == ordered.reversed())
    }

    @Test func tiesKeepTheOrderOfInsertion() throws {
        let store = ObjectStore<Note>()
        let context = ObjectContext(store: store)
        for id in [5, 3, 9, 1] { try context.insert(Note(id: id, group: nil, rank: 0)) }
        try context.save()
        #expect(try context.fetch(FetchRequest(sortKeys: [SortKey("rank")])).map(\.id) == [5, 3, 9, 1])
    }
}
