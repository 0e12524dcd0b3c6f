import Foundation
@testable import PredicateFormat
@testable import Records
import TableTestSupport
import Testing

/// The streaming reader against `JSON.parse` as the oracle: the same values
/// (kinds, key order) and the same errors (line, column, offset, reason), at
/// every chunk size.
@Suite struct JSONStreamReaderTests {
    /// What a reader makes of a whole text: a value, or an error.
    enum Outcome: Equatable, CustomStringConvertible {
        case value(String)
        case error(JSONError)

        var description: String {
            switch self {
            case .value(let text): "value \(text)"
            case .error(let error): "error \(error) at \(error.offset)"
            }
        }
    }

    /// Exact text of a value: kinds and key order show.
    static func exact(_ value: RecordValue) -> String { JSON.string(value) }

    static func oracle(_ bytes: [UInt8]) -> Outcome {
        do { return .value(exact(try JSON.parse(Data(bytes)))) } catch { return .error(error) }
    }

    /// The whole value through the streaming reader.
    static func streamed(_ bytes: [UInt8], chunkSize: Int) -> Outcome {
        let reader = JSONStreamReader(data: Data(bytes), chunkSize: chunkSize)
        do {
            let value = try reader.readValue()
            try reader.finish()
            return .value(exact(value))
        } catch {
            return .error(error)
        }
    }

    /// A top-level array element by element (other values whole), as the tool reads.
    static func streamedByElement(_ bytes: [UInt8], chunkSize: Int) -> Outcome {
        let reader = JSONStreamReader(data: Data(bytes), chunkSize: chunkSize)
        do {
            guard try reader.beginArray() else {
                let value = try reader.readValue()
                try reader.finish()
                return .value(exact(value))
            }
            var elements: [RecordValue] = []
            while try reader.nextElement() { elements.append(try reader.readValue()) }
            try reader.finish()
            return .value(exact(.array(elements)))
        } catch {
            return .error(error)
        }
    }

    // MARK: Random documents

    static let strings: [String] = [
        "", "a", "Anna", "Müller", "東京", "👍🏽", "e\u{301}", "tab\there", "quote\"back\\slash", "nl\nline", "\u{1}\u{1F}",
        "slash/", "\u{7F}", "\u{FEFF}bom", "long string of more than fifteen bytes", "\u{10FFFF}", "ǅ",
    ]
    static let numbers: [String] = [
        "0", "-0", "1", "-1", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "999999999999999999", "1000000000000000000", "123456789012345678901234567890", "0.5", "-0.0", "1e3", "1E-3", "2.5e+10",
        "1.7976931348623157e308", "5e-324", "4.9e-325", "0.1", "123.456e-7", "18446744073709551615", "18446744073709551616",
    ]

    /// Random JSON text: every kind of value, nesting, escapes, unicode,
    /// numbers at the edges, white space (with new lines) between tokens.
    static func randomText(_ g: inout SeededGenerator, depth: Int = 0) -> String {
        func space() -> String { g.chance(0.3) ? ["", " ", "\n", "\t", "\r\n", "  \n "].randomElement(using: &g)! : "" }
        func string() -> String {
            var text = ""
            JSON.writeString(strings.randomElement(using: &g)!, to: &text)
            if g.chance(0.2) { text = text.replacingOccurrences(of: "a", with: "\\u0061").replacingOccurrences(of: "/", with: "\\/") }
            if g.chance(0.1) { text = "\"\\ud83d\\ude00\\b\\f\\r\"" }
            return text
        }
        let kinds = depth > 3 ? 6 : 9
        switch g.int(0..<kinds) {
        case 0: return "null"
        case 1: return g.chance(0.5) ? "true" : "false"
        case 2, 3: return numbers.randomElement(using: &g)!
        case 4: return String(g.int(-1_000_000...1_000_000))
        case 5: return string()
        case 6: return "{\"$date\":\"2024-05-01T10:00:0\(g.int(0...9))Z\"}"
        case 7: return "[" + (0..<g.int(0...4)).map { _ in space() + Self.randomText(&g, depth: depth + 1) + space() }.joined(separator: ",") + "]"
        default:
            let keys = ["id", "name", "a", "b", "é", "$date", "k\(g.int(0...3))"]
            return "{" + (0..<g.int(0...4)).map { _ in
                space() + "\"" + keys.randomElement(using: &g)! + "\"" + space() + ":" + space() + Self.randomText(&g, depth: depth + 1) + space()
            }.joined(separator: ",") + "}"
        }
    }

    @Test func randomDocumentsReadAsTheOldReaderReadsThem() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<1_500 {
            let text = (g.chance(0.1) ? "\u{FEFF}" : "") + " " + Self.randomText(&g) + (g.chance(0.5) ? "\n" : "")
            let bytes = Array(text.utf8)
            let expected = Self.oracle(bytes)
            for chunkSize in [1, 2, 3, 7, 64, 1 << 20] {
                expectEqual(Self.streamed(bytes, chunkSize: chunkSize), expected, "seed \(seed), chunk \(chunkSize): \(text)")
            }
            expectEqual(Self.streamedByElement(bytes, chunkSize: 5), expected, "seed \(seed): \(text)")
        }
    }

    @Test func arraysOfObjectsElementByElement() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<300 {
            let text = "[" + (0..<g.int(0...12)).map { _ in Self.randomText(&g, depth: 2) }.joined(separator: ",\n") + "]"
            let bytes = Array(text.utf8)
            let expected = Self.oracle(bytes)
            for chunkSize in [1, 4, 13, 1 << 20] {
                expectEqual(Self.streamedByElement(bytes, chunkSize: chunkSize), expected, "seed \(seed), chunk \(chunkSize): \(text)")
            }
        }
    }

    // MARK: Errors

    @Test(arguments: JSONTests.malformed)
    func malformedTextGivesTheOldReadersError(_ m: JSONTests.Malformed) {
        let bytes = Array(m.text.utf8)
        let expected = Self.oracle(bytes)
        guard case .error(let error) = expected else {
            Issue.record("the old reader accepted \(m.text)")
            return
        }
        expectEqual(error.description, m.error)
        for chunkSize in [1, 2, 3, 1 << 20] {
            expectEqual(Self.streamed(bytes, chunkSize: chunkSize), expected, "chunk \(chunkSize)")
            expectEqual(Self.streamedByElement(bytes, chunkSize: chunkSize), expected, "chunk \(chunkSize)")
        }
    }

    /// Broken documents: cut short, a byte changed or inserted. Both readers
    /// accept the same texts and give the same error for the others.
    @Test func damagedDocumentsGiveTheSameErrors() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let troublemakers = Array("{}[]\":,0-.eE tfn\\u\n\u{1}é👍".utf8) + [0xFF, 0xC3, 0x80, 0xED, 0xA0]
        for _ in 0..<2_000 {
            var bytes = Array(("[" + Self.randomText(&g) + ",\n" + Self.randomText(&g) + "]").utf8)
            switch g.int(0..<3) {
            case 0: bytes.removeLast(g.int(0...bytes.count))
            case 1: bytes[g.int(0..<bytes.count)] = troublemakers.randomElement(using: &g)!
            default: bytes.insert(troublemakers.randomElement(using: &g)!, at: g.int(0...bytes.count))
            }
            let expected = Self.oracle(bytes)
            for chunkSize in [1, 3, 1 << 20] {
                expectEqual(Self.streamed(bytes, chunkSize: chunkSize), expected, "seed \(seed), chunk \(chunkSize): \(bytes)")
                expectEqual(Self.streamedByElement(bytes, chunkSize: chunkSize), expected, "seed \(seed), chunk \(chunkSize): \(bytes)")
            }
        }
    }

    /// Every chunk size, so that a chunk ends at every byte of the text.
    @Test func everyChunkBoundary() {
        let texts = [
            "\u{FEFF}[{\"id\":1,\"name\":\"Müller\",\"score\":-12.5e-3},\n {\"id\":2,\"name\":\"e\u{301}\\u00e9\\ud83d\\ude00\",\"x\":null}]",
            "[true,false,null,1234567890123456789012,\"\\\"\\\\\\/\\b\\f\\n\\r\\t\",{\"$date\":\"2024-05-01\"},[[]],{}]",
            "[\n1,\n2,\n 東京👍🏽 ]",
            "{\"a\":[1,2,{\"b\":\"c\"}],\"d\":{\"$date\":\"no\"}}",
            "[\"unterminated",
            "[1.5e",
        ]
        for text in texts {
            let bytes = Array(text.utf8)
            let expected = Self.oracle(bytes)
            for chunkSize in 1...(bytes.count + 1) {
                expectEqual(Self.streamed(bytes, chunkSize: chunkSize), expected, "chunk \(chunkSize): \(text)")
                expectEqual(Self.streamedByElement(bytes, chunkSize: chunkSize), expected, "chunk \(chunkSize): \(text)")
            }
        }
    }

    /// Errors far into a long text (past discarded chunks) are placed as the
    /// old reader places them: on one long line, and after many lines.
    @Test func errorsAfterManyChunks() {
        for separator in [",", ",\n", ", "] {
            let element = "{\"id\":1,\"name\":\"Zoë e\u{301}\"}"
            for damage in ["]x", ",]", "{\"id\":1,}", "[1,2", "\"\u{1}\""] {
                let text = "[" + Array(repeating: element, count: 400).joined(separator: separator) + separator + damage
                let bytes = Array(text.utf8)
                let expected = Self.oracle(bytes)
                guard case .error = expected else {
                    Issue.record("accepted")
                    continue
                }
                for chunkSize in [1, 7, 64, 1000] {
                    expectEqual(Self.streamedByElement(bytes, chunkSize: chunkSize), expected, "chunk \(chunkSize), \(separator.debugDescription), \(damage)")
                }
            }
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = Array(String(repeating: "[", count: 100_000).utf8)
        expectEqual(Self.streamed(deep, chunkSize: 1000), Self.oracle(deep))
        let fine = Array((String(repeating: "[", count: 512) + String(repeating: "]", count: 512)).utf8)
        expectEqual(Self.streamed(fine, chunkSize: 100), Self.oracle(fine))
    }

    // MARK: Records

    @Test func objectsOfOneShapeShareTheirKeys() throws {
        let reader = JSONStreamReader(data: Data(#"[{"id":1,"name":"a"},{"id":2,"name":"b"},{"name":"c","id":3},{"id":4,"name":"d"}]"#.utf8))
        var records: [DynamicRecord] = []
        #expect(try reader.beginArray())
        while try reader.nextElement() { records.append(try #require(try reader.readValue().asRecord)) }
        try reader.finish()
        #expect(records[0].shape === records[1].shape)
        #expect(records[0].shape !== records[2].shape)
        #expect(records[0].shape === records[3].shape)
        expectEqual(records[2].keys, ["name", "id"])
        // Changing one record does not change the others of its shape.
        var changed = records[1]
        changed["extra"] = 1
        changed["id"] = nil
        expectEqual(changed.keys, ["name", "extra"])
        expectEqual(records[1].keys, ["id", "name"])
        expectEqual(records[0].keys, ["id", "name"])
        expectEqual(records[0]["name"], "a")
    }

    /// Records read by the streaming reader equal the tree's, field for field,
    /// and compare and hash as records built field by field do.
    @Test func compactRecordsEqualTheTreeForm() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<300 {
            let text = "[" + (0..<g.int(1...8)).map { _ in Self.randomText(&g, depth: 3) }.joined(separator: ",") + "]"
            guard let tree = try? JSON.parse(text) else { continue }   // e.g. {"$date":"Anna"}
            let reader = JSONStreamReader(data: Data(text.utf8), chunkSize: 8)
            var streamed: [RecordValue] = []
            #expect(try reader.beginArray())
            while try reader.nextElement() { streamed.append(try reader.readValue()) }
            try reader.finish()
            expectEqual(RecordValue.array(streamed), tree, "seed \(seed): \(text)")
            for (value, old) in zip(streamed, tree.asArray ?? []) {
                guard let record = value.asRecord, let oldRecord = old.asRecord else { continue }
                let rebuilt = DynamicRecord(fields: oldRecord.fields.reversed())
                expectEqual(record, rebuilt)
                expectEqual(record.hashValue, rebuilt.hashValue)
                expectEqual(record.fields.map(\.key), oldRecord.fields.map(\.key))
                for (key, field) in oldRecord.fields { expectEqual(record[key].map(Self.exact), Self.exact(field)) }
            }
        }
    }

    /// A record is one reference (its storage holds the shape and the
    /// values); an object is its record and an identity kept only when it
    /// is not the id field.
    @Test func recordsAreSmall() {
        #expect(MemoryLayout<DynamicRecord>.size == MemoryLayout<Int>.size)
        #expect(MemoryLayout<DynamicObject>.size == 2 * MemoryLayout<Int>.size)
        #expect(MemoryLayout<DynamicObject?>.size == 2 * MemoryLayout<Int>.size)
    }

    // MARK: Files

    @Test func readsAFileInChunksAndReportsProgress() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        let text = "[" + (0..<1000).map { "{\"id\":\($0),\"name\":\"n\($0)\"}" }.joined(separator: ",\n") + "]"
        try Data(text.utf8).write(to: url)
        let reader = try JSONStreamReader(contentsOfFile: url.path, chunkSize: 512)
        expectEqual(reader.expectedByteCount, text.utf8.count)
        var reads: [Int] = []
        var ended = 0
        reader.onRead = { bytes, atEnd in
            reads.append(bytes)
            if atEnd { ended += 1 }
        }
        var ids: [RecordValue] = []
        #expect(try reader.beginArray())
        while try reader.nextElement() { ids.append(try reader.readValue().asRecord?["id"] ?? .null) }
        try reader.finish()
        expectEqual(ids, (0..<1000).map { .int($0) })
        #expect(reads.count > 10 && reads.last == text.utf8.count && reads == reads.sorted())
        expectEqual(ended, 1)
    }

    @Test func missingFilesAndDirectoriesAreErrors() {
        #expect {
            _ = try JSONStreamReader(contentsOfFile: "/nonexistent/\(UUID().uuidString).json")
        } throws: { ($0 as? JSONFileError)?.isMissing == true }
        #expect {
            _ = try JSONStreamReader(contentsOfFile: FileManager.default.temporaryDirectory.path)
        } throws: { ($0 as? JSONFileError)?.isDirectory == true }
    }

    @Test func misuseOfTheCursorIsAnErrorNotATrap() throws {
        let reader = JSONStreamReader(data: Data("[1]".utf8))
        expectThrows(JSONError.self) { try reader.nextElement() }
        expectThrows(JSONError.self) { try reader.nextKey() }
        try expectEqual(reader.beginObject(), false)
        #expect(try reader.beginArray())
        expectThrows(JSONError.self) { try reader.nextKey() }
        #expect(try reader.nextElement())
        try expectEqual(reader.readValue(), 1)
        try expectEqual(reader.nextElement(), false)
        try reader.finish()
        try reader.finish()
    }
}
