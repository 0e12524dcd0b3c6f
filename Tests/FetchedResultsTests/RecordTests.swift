import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableTestSupport
import Testing

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
        try expectEqual(Note.recordKeys.reader(forKeyPath: "rank")(note), .int(7))
        try expectEqual(Note.recordKeys.reader(forKeyPath: "group")(note), .null)
        try expectEqual(Note.recordKeys.reader(forKeyPath: "tags")(note), .array(["x", "y"]))
        expectEqual(Note.recordKeys.declaredKeys, ["created", "group", "rank", "tags", "title", "version"])
        expectThrows(RecordKeyError.self) { try Note.recordKeys.reader(forKeyPath: "colour") }
        do {
            _ = try Note.recordKeys.reader(forKeyPath: "colour.name")
        } catch {
            expectEqual(error.description, "Note has no key 'colour' (its keys: created, group, rank, tags, title, version)")
        }
    }

    @Test func codableRecordsReadTheirValuesByEncoding() throws {
        let keys = Author.recordKeys
        try expectEqual(keys.reader(forKeyPath: "name")(Self.author), .string("Anna"))
        try expectEqual(keys.reader(forKeyPath: "address.city")(Self.author), .string("Köln"))
        try expectEqual(keys.reader(forKeyPath: "address.zip")(Self.author), .null)
        // A path through an array maps over it (a to-many key path).
        try expectEqual(keys.reader(forKeyPath: "books.year")(Self.author), .array([.int(1990), .int(2001)]))
        try expectEqual(keys.reader(forKeyPath: "nothing.here")(Self.author), .null)
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
        expectEqual(value.asRecord?["date"], .date(Date(timeIntervalSince1970: 12.5)))
        expectEqual(value.asRecord?["uuid"], .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        expectEqual(value.asRecord?["url"], .string("https://example.com/a"))
        #expect(value.asRecord?["optional"] == nil || value.asRecord?["optional"] == .null)
        expectEqual(value.asRecord?["nested"], ["a": 1, "b": 2])
        expectEqual(value.asRecord?["flags"], [true, false])
    }

    @Test func recordValuesCodeThroughJSONEncoderExactly() throws {
        let value: RecordValue = ["when": .date(Date(timeIntervalSinceReferenceDate: 0.1 + 0.2)), "list": [1, 2.5, "x", nil], "deep": ["a": ["b": true]]]
        let encoder = JSONEncoder()
        let decoded = try JSONDecoder().decode(RecordValue.self, from: encoder.encode(value))
        expectEqual(decoded, value)
    }

    @Test func dynamicObjectsAreIdentifiedByAKey() throws {
        let object = DynamicObject(fields: DynamicRecord(fields: [("key", "a"), ("n", 1)]), idKey: "key")
        expectEqual(object.id, "a")
        try expectEqual(DynamicObject.recordKeys.reader(forKeyPath: "n")(object), .int(1))
        expectEqual(DynamicObject(fields: DynamicRecord(fields: [("n", 1)])).id, .null)
    }
}

@Suite struct SortKeyTests {
    /// Orders values with a sort key, through a context fetch.
    func sorted(_ titles: [String], _ comparison: SortKey.StringComparison, ascending: Bool = true) throws -> [String] {
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store)
        for (k, title) in titles.enumerated() { try context.insert(Note(id: k, group: nil, rank: 0, title: title)) }
        return try context.fetch(FetchRequest<Note>(sortKeys: [SortKey("title", ascending: ascending, comparison: comparison)])).map(\.title)
    }

    @Test func plainStringsCompareLikeCompare() throws {
        try expectEqual(sorted(["b", "B", "a", "A", "file10", "file2"], .plain), ["A", "B", "a", "b", "file10", "file2"])
    }

    @Test func localizedStandardIsHowPeopleSortLists() throws {
        // Case and diacritics are ignored first ("apfel" < "apple"), then break ties plainly.
        let result = try sorted(["file10", "file2", "File1", "zebra", "apple", "Apple", "Äpfel", "élan", "elan"], .localizedStandard)
        expectEqual(result, ["Äpfel", "Apple", "apple", "elan", "élan", "File1", "file2", "file10", "zebra"])
        try expectEqual(sorted(["a 100", "a 20", "a 3", "a 003"], .localizedStandard), ["a 003", "a 3", "a 20", "a 100"])
        try expectEqual(sorted(["b", "a", "c"], .localizedStandard, ascending: false), ["c", "b", "a"])
    }

    @Test func nilSortsFirstAndNumbersByValue() throws {
        let store = ObjectStore(for: DynamicObject.self)
        let context = ObjectContext(store: store)
        let values: [RecordValue] = [3, nil, 1.5, -2, 2, "x", .date(Date(timeIntervalSince1970: 0)), true]
        for (k, v) in values.enumerated() {
            try context.insert(DynamicObject(fields: DynamicRecord(fields: [("id", .int(k)), ("v", v)])))
        }
        let ordered = try context.fetch(FetchRequest<DynamicObject>(sortKeys: [SortKey("v")])).map { $0.fields["v"] ?? .null }
        expectEqual(ordered, [nil, true, -2, 1.5, 2, 3, .date(Date(timeIntervalSince1970: 0)), "x"])
        let descending = try context.fetch(FetchRequest<DynamicObject>(sortKeys: [SortKey("v", ascending: false)])).map { $0.fields["v"] ?? .null }
        expectEqual(descending, ordered.reversed())
    }

    /// Plain sorting decides most comparisons by a key of each string's first
    /// bytes, and the rest by the bytes up to the first difference; whatever
    /// the strings (shared prefixes around eight bytes, NUL, precomposed and
    /// decomposed accents, marks at the boundary, marks that reorder, Hangul
    /// jamo that compose, Tibetan vowels that decompose, other scripts), the
    /// order is that of the NFC forms' scalars — an oracle that normalizes
    /// whole strings — ties in insertion order. (Not `String`'s `<`: on Swift
    /// 6.3 it has `"Ω" < "Ω\u{301}"`, though the latter is `"Ώ"`, below `"Ω"`.)
    /// Integers at the extremes order by value.
    @Test func plainOrderIsTheOrderOfNFCScalars() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let pieces = ["a", "b", "z", "A", "0", " ", "\u{0}", "é", "e\u{301}", "\u{301}", "ü", "u\u{308}", "ß", "ʼ", "\u{2FF}",
                      "\u{300}", "\u{327}", "\u{316}", "o\u{302}\u{323}", "ộ", "Ω", "Ώ", "\u{0F73}", "\u{0F71}\u{0F72}",
                      "中", "😀", "🇫🇷", "\r\n", "\u{1100}\u{1161}", "가", "\u{11A8}", "각"]
        let stems = ["Eriksson", "Eriksso", "City 04", "abcdefg", ""]
        func nfcPrecedes(_ a: String, _ b: String) -> Bool { a._nfcCodeUnits.lexicographicallyPrecedes(b._nfcCodeUnits) }
        for _ in 0..<60 {
            let titles = (0..<g.int(0...60)).map { _ in
                (g.chance(0.7) ? stems[g.int(0..<stems.count)] : "") + (0..<g.int(0...4)).map { _ in pieces[g.int(0..<pieces.count)] }.joined()
            }
            let ascending = titles.enumerated().sorted { a, b in
                nfcPrecedes(a.element, b.element) || (!nfcPrecedes(b.element, a.element) && a.offset < b.offset)
            }
            let descending = titles.enumerated().sorted { a, b in
                nfcPrecedes(b.element, a.element) || (!nfcPrecedes(a.element, b.element) && a.offset < b.offset)
            }
            try expectEqual(sorted(titles, .plain).map(\._nfcCodeUnits), ascending.map(\.element._nfcCodeUnits), "seed \(seed)")
            try expectEqual(sorted(titles, .plain), ascending.map(\.element), "seed \(seed)")
            try expectEqual(sorted(titles, .plain, ascending: false), descending.map(\.element), "seed \(seed)")
        }
        try expectEqual(sorted(["Ω", "Ω\u{301}", "Ώ", "Ω"], .plain), ["Ω\u{301}", "Ώ", "Ω", "Ω"])
        let ranks = [Int.max, 0, Int.min, -1, 1, Int.max - 1, Int.min + 1]
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store)
        for (k, rank) in ranks.enumerated() { try context.insert(Note(id: k, group: nil, rank: rank)) }
        try expectEqual(context.fetch(FetchRequest<Note>(sortKeys: [SortKey("rank")])).map(\.rank), ranks.sorted())
    }

    /// Random records sorted by one to three random keys (strings short and
    /// long, optional strings, integers with ties and extremes, dates), each
    /// ascending or descending: the fetch order is the order an independent
    /// comparison of the same values gives, ties in insertion order.
    @Test func severalSortKeysOrderLikeTheirValues() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let groups: [String?] = [nil, "a", "a\u{0}", "b", "Beta", "é", "Zürich", "abcdefgh", "abcdefghi", "a long group name", "a long group name too"]
        let titleParts = ["x", "City 04", "City 042", "Eriksson", "García", "e\u{301}", "中", "\u{0}", "1", "longer than eight"]
        let ranks = [Int.min, -1, 0, 1, 2, 3, Int.max]
        func compare<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a == b ? 0 : 1) }
        // Titles of at most nine bytes, around the eight a key holds; titles
        // that differ by a NUL (the key's padding).
        let shortTitlePools = [["", "a", "b", "ab", "abcdefgh", "abcdefghi", "abcdefgi", "é"], ["a", "a\u{0}", "ab", "ab\u{0}", "b"]]
        for _ in 0..<100 {
            let short = g.chance(0.5)
            let shortTitles = shortTitlePools[g.int(0..<2)]
            let notes = (0..<g.int(0...300)).map { id in
                Note(id: id, group: groups[g.int(0..<groups.count)], rank: ranks[g.int(0..<ranks.count)],
                     title: short ? shortTitles[g.int(0..<shortTitles.count)] : (0..<g.int(0...2)).map { _ in titleParts[g.int(0..<titleParts.count)] }.joined(),
                     created: Date(timeIntervalSince1970: Double(g.int(-2...2)) * 0.5))
            }
            let keys = (0..<g.int(1...3)).map { _ in SortKey(["group", "rank", "title", "created"][g.int(0..<4)], ascending: g.chance(0.5)) }
            func order(_ a: Note, _ b: Note) -> Int {
                for key in keys {
                    var c: Int
                    switch key.keyPath {
                    case "group": c = a.group == b.group ? 0 : (a.group == nil ? -1 : (b.group == nil ? 1 : compare(a.group ?? "", b.group ?? "")))
                    case "rank": c = compare(a.rank, b.rank)
                    case "title": c = compare(a.title, b.title)
                    default: c = compare(a.created, b.created)
                    }
                    if c != 0 { return key.ascending ? c : -c }
                }
                return compare(a.id, b.id)
            }
            let context = ObjectContext(store: ObjectStore(for: Note.self))
            for note in notes { try context.insert(note) }
            try context.save()
            let expected = notes.sorted { order($0, $1) < 0 }.map(\.id)
            try expectEqual(context.fetch(FetchRequest<Note>(sortKeys: keys)).map(\.id), expected, "seed \(seed), keys \(keys)")
        }
    }

    @Test func tiesKeepTheOrderOfInsertion() throws {
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store)
        for id in [5, 3, 9, 1] { try context.insert(Note(id: id, group: nil, rank: 0)) }
        try context.save()
        try expectEqual(context.fetch(FetchRequest<Note>(sortKeys: [SortKey("rank")])).map(\.id), [5, 3, 9, 1])
    }
}
