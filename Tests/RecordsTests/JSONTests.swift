import Foundation
@testable import PredicateFormat
@testable import Records
import TableTestSupport
import Testing

@Suite struct JSONTests {
    @Test func valuesKeepTheirKinds() throws {
        try expectEqual(JSON.parse("1"), .int(1))
        if case .int = try JSON.parse("1") {} else { Issue.record("1 is not an int") }
        if case .double = try JSON.parse("1.0") {} else { Issue.record("1.0 is not a double") }
        if case .double = try JSON.parse("1e3") {} else { Issue.record("1e3 is not a double") }
        if case .uint = try JSON.parse("9223372036854775808") {} else { Issue.record("Int.max + 1 is not a uint") }
        try expectEqual(JSON.parse("-0.5e-2"), .double(-0.005))
        try expectEqual(JSON.parse(" [true, false, null, \"x\"] "), .array([.bool(true), .bool(false), .null, .string("x")]))
        try expectEqual(JSON.parse("{\"$date\": \"2024-05-01T10:00:00Z\"}"), .date(Date(timeIntervalSince1970: 1_714_557_600)))
        // Not exactly one "$date" key: an ordinary object.
        try expectEqual(JSON.parse("{\"$date\": \"x\", \"y\": 1}").asRecord?["y"], .int(1))
        // Numbers compare by value.
        expectEqual(RecordValue.int(1), .double(1))
        #expect(Set<RecordValue>([.int(1), .double(1)]).count == 1)
    }

    @Test func stringsWithEscapesAndUnicode() throws {
        #expect(try JSON.parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\n\té😀"))
        try expectEqual(JSON.parse("\"Müller ß 東京 👍🏽 e\u{301}\""), .string("Müller ß 東京 👍🏽 e\u{301}"))
    }

    @Test func objectsKeepTheirKeyOrderButCompareWithoutIt() throws {
        let value = try JSON.parse(#"{"b":1,"a":2}"#)
        expectEqual(value.asRecord?.keys, ["b", "a"])
        expectEqual(value, (try JSON.parse(#"{"a":2,"b":1}"#)))
        expectEqual(JSON.string(value), #"{"b":1,"a":2}"#)
        expectEqual(JSON.string(value, sortedKeys: true), #"{"a":2,"b":1}"#)
    }

    /// Write, then read: the same value, for random values.
    @Test func roundTrips() throws {
        var g = SystemRandomNumberGenerator()
        func random(_ depth: Int) -> RecordValue {
            switch Int.random(in: 0..<(depth > 2 ? 6 : 8), using: &g) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &g))
            case 2: return .int(Int.random(in: Int.min...Int.max, using: &g))
            case 3: return .double(Double.random(in: -1e12...1e12, using: &g))
            case 4: return .string(String((0..<Int.random(in: 0...6, using: &g)).map { _ in "aé\"\\\n😀\u{1}z".randomElement(using: &g)! }))
            case 5: return .date(Date(timeIntervalSince1970: Double(Int.random(in: -3_000_000_000...3_000_000_000, using: &g)) / 1000))
            case 6: return .array((0..<Int.random(in: 0...4, using: &g)).map { _ in random(depth + 1) })
            default: return .record(DynamicRecord(fields: (0..<Int.random(in: 0...4, using: &g)).map { ("k\($0)", random(depth + 1)) }))
            }
        }
        for _ in 0..<2_000 {
            let value = random(0)
            try expectEqual(JSON.parse(JSON.string(value)), value, "\(JSON.string(value))")
        }
    }

    struct Malformed: CustomTestStringConvertible, Sendable {
        var text: String
        var error: String
        var testDescription: String { text }
    }

    static let malformed: [Malformed] = [
        Malformed(text: "", error: "line 1, column 1: expected a JSON value, found an empty text"),
        Malformed(text: "[1,]", error: "line 1, column 4: expected a value (object, array, string, number, true, false or null), found ']'"),
        Malformed(text: "[1 2]", error: "line 1, column 4: expected ',' or ']' after an array element, found '2'"),
        Malformed(text: "{\"a\" 1}", error: "line 1, column 6: expected ':' after the key \"a\", found '1'"),
        Malformed(text: "{\"a\":1,}", error: "line 1, column 8: expected a string key in an object, found '}'"),
        Malformed(text: "{a:1}", error: "line 1, column 2: expected a string key in an object, found 'a'"),
        Malformed(text: "[\"abc", error: "line 1, column 2: a string is not closed: expected '\"', found the end of the text"),
        Malformed(text: "\"a\tb\"", error: "line 1, column 3: a control character must be escaped in a string (\\n, \\t, \\u00XX)"),
        Malformed(text: "\"\\x\"", error: "line 1, column 3: unknown escape \\x (use \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX)"),
        Malformed(text: "\"\\u12\"", error: "line 1, column 6: expected 4 hexadecimal digits after \\u, found '\"'"),
        Malformed(text: "\"\\ud83d\"", error: "line 1, column 8: expected a low surrogate \\uDC00…\\uDFFF after a high surrogate"),
        Malformed(text: "07", error: "line 1, column 1: a number may not start with 0 (write 7, not 07)"),
        Malformed(text: "1.", error: "line 1, column 3: expected a digit after the decimal point, found the end of the text"),
        Malformed(text: "-", error: "line 1, column 2: expected a digit in a number, found the end of the text"),
        Malformed(text: "1e", error: "line 1, column 3: expected a digit in the exponent, found the end of the text"),
        Malformed(text: "tru", error: "line 1, column 1: expected 'true', found 't'"),
        Malformed(text: "nul", error: "line 1, column 1: expected 'null', found 'n'"),
        Malformed(text: "[1]\n]", error: "line 2, column 1: expected the end of the text after the value, found ']'"),
        Malformed(text: "[\n  1,\n  ü]", error: "line 3, column 3: expected a value (object, array, string, number, true, false or null), found 'ü'"),
        Malformed(text: "{\"$date\": \"yesterday\"}", error: "line 1, column 1: 'yesterday' is not an ISO 8601 date (e.g. 2024-05-01 or 2024-05-01T10:00:00Z)"),
        Malformed(text: "1e999", error: "line 1, column 1: the number 1e999 is out of range"),
    ]

    @Test(arguments: malformed)
    func malformedTextNamesWhereAndWhat(_ m: Malformed) {
        do {
            _ = try JSON.parse(m.text)
            Issue.record("accepted \(m.text)")
        } catch {
            expectEqual(error.description, m.error)
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        expectThrows(JSONError.self) { try JSON.parse(String(repeating: "[", count: 100_000)) }
        #expect(throws: Never.self) { try JSON.parse(String(repeating: "[", count: 500) + String(repeating: "]", count: 500)) }
    }

    @Test func invalidUTF8IsAnError() {
        expectThrows(JSONError.self) { try JSON.parse(Data([0x22, 0xC3, 0x28, 0x22])) }
        expectThrows(JSONError.self) { try JSON.parse(Data([0x22, 0xFF, 0x22])) }
    }

    @Test func randomBytesGiveAValueOrAnError() {
        var g = SystemRandomNumberGenerator()
        let alphabet = Array("{}[]\":,0123456789-+.eE tfrulnas\\u\n\u{1}é".utf8)
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...24, using: &g)).map { _ in alphabet.randomElement(using: &g)! }
            _ = try? JSON.parse(Data(bytes))   // must not trap
        }
    }

    @Test func iso8601() {
        expectEqual(ISO8601.date(from: "2024-02-29"), Date(timeIntervalSince1970: 1_709_164_800))
        #expect(ISO8601.date(from: "2023-02-29") == nil)
        expectEqual(ISO8601.date(from: "2024-05-01T12:00:00+02:00"), Date(timeIntervalSince1970: 1_714_557_600))
        expectEqual(ISO8601.date(from: "2024-05-01T10:00:00.250Z"), Date(timeIntervalSince1970: 1_714_557_600.25))
        expectEqual(ISO8601.date(from: "2024-05-01T10:00"), Date(timeIntervalSince1970: 1_714_557_600))
        #expect(ISO8601.date(from: "2024-13-01") == nil)
        #expect(ISO8601.date(from: "2024-05-01T25:00:00Z") == nil)
        expectEqual(ISO8601.string(from: Date(timeIntervalSince1970: 1_714_557_600.25)), "2024-05-01T10:00:00.250Z")
        expectEqual(ISO8601.string(from: Date(timeIntervalSince1970: -1)), "1969-12-31T23:59:59Z")
        for seconds in stride(from: -5_000_000_000, to: 5_000_000_000, by: 86_399_999) {
            let date = Date(timeIntervalSince1970: Double(seconds))
            expectEqual(ISO8601.date(from: ISO8601.string(from: date)), date)
        }
    }
}
