import Foundation
import Records
import TableTestSupport
import Testing

/// The binary form of records (the store file's record encoding) byte for
/// byte, as StoreFileFormat.md documents it: every tag, with its value's
/// bytes — what files written today hold, and so what every later version
/// must read (`_BinaryValueTag`'s raw values are these bytes).
@Suite struct BinaryFormTests {
    /// A record with a value of every tag, written in this field order.
    struct EveryTag: Codable, Equatable {
        var null: Int? = nil
        var no = false
        var yes = true
        var signed = -2
        var unsigned: UInt = 300
        var double = 0.5
        var float: Float = 1.5
        var string = "é"
        var unkeyed = [1]
        var uuid = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!
        var bytes = Data([0xFF])

        init() {}

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeNil(forKey: .null)
            try container.encode(no, forKey: .no)
            try container.encode(yes, forKey: .yes)
            try container.encode(signed, forKey: .signed)
            try container.encode(unsigned, forKey: .unsigned)
            try container.encode(double, forKey: .double)
            try container.encode(float, forKey: .float)
            try container.encode(string, forKey: .string)
            try container.encode(unkeyed, forKey: .unkeyed)
            try container.encode(uuid, forKey: .uuid)
            try container.encode(bytes, forKey: .bytes)
        }
    }

    @Test func everyTagIsTheDocumentedBytes() throws {
        func field(_ key: String, _ value: [UInt8]) -> [UInt8] { [UInt8(key.utf8.count)] + Array(key.utf8) + value }
        let expected: [UInt8] = [0x09, 11]   // a keyed container of 11 fields
            + field("null", [0x00])
            + field("no", [0x01])
            + field("yes", [0x02])
            + field("signed", [0x03, 0x03])                                   // zigzag(-2) = 3
            + field("unsigned", [0x04, 0xAC, 0x02])                           // 300 as a varint
            + field("double", [0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE0, 0x3F])   // 0.5, little-endian
            + field("float", [0x06, 0x00, 0x00, 0xC0, 0x3F])                   // 1.5
            + field("string", [0x07, 0x02, 0xC3, 0xA9])                       // "é" in UTF-8
            + field("unkeyed", [0x08, 0x01, 0x03, 0x02])                      // [1]: one signed 1 (zigzag 2)
            + field("uuid", [0x0A] + [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF])
            + field("bytes", [0x0B, 0x01, 0xFF])
        let written = try _BinaryRecordEncoder.encode(EveryTag())
        expectEqual(written, expected, "\(written.map { String($0, radix: 16) })")
        // And these bytes read back as the record.
        let read = try expected.withUnsafeBytes { try _BinaryRecordDecoder(bytes: $0).decode(EveryTag.self, at: 0) }
        expectEqual(read, EveryTag())
        // A byte that is no tag is damage, not a trap.
        var damaged = expected
        damaged[2 + 5] = 0x0C   // the null's tag
        expectThrows(DecodingError.self) { try damaged.withUnsafeBytes { try _BinaryRecordDecoder(bytes: $0).decode(EveryTag.self, at: 0) } }
    }

    /// Reads a record value the general way, trying each kind in turn
    /// (`RecordValue(from:)` called directly): the oracle for the store
    /// decoder's reading of a record value from its tag.
    struct ReadTheGeneralWay: Decodable {
        let value: RecordValue
        init(from decoder: any Decoder) throws { value = try RecordValue(from: decoder) }
    }

    /// Every tag, the edges of each kind, and records written by hand (a key
    /// twice, dates), read as a record value: the store decoder's answer
    /// from the tag (or its error) is the general one; a damaged field is an
    /// error.
    @Test func aRecordValueReadFromItsTagIsWhatTryingEachKindGives() throws {
        let values: [any Encodable] = [
            Int?.none, false, true, 0, -1, 1, Int.min, Int.max, UInt64(Int.max) + 1, UInt64.max, UInt(300),
            0.0, -0.0, 0.5, Double.infinity, -Double.infinity, Double.nan, Double.leastNonzeroMagnitude, Float(1.5), Float.nan,
            "", "é", String(repeating: "x", count: 300), UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!,
            Data(), Data([0xFF, 0x00]), [Int](), [1, 2], [["a"]], ["k": 1], ["$date": 5.0], ["$date": 5.0, "x": 1.0],
            Date(timeIntervalSinceReferenceDate: 12.25), RecordValue.null,
            RecordValue.record(DynamicRecord(fields: [("a", .int(1)), ("b", .array([.null, .string("s")]))])),
        ]
        func field(_ key: String, _ value: [UInt8]) -> [UInt8] { [UInt8(key.utf8.count)] + Array(key.utf8) + value }
        let five: [UInt8] = [0x05] + withUnsafeBytes(of: (5.0).bitPattern.littleEndian, Array.init)
        let written: [(String, [UInt8])] = try [
            // A key written twice: the last value, at the first one's place (as `DynamicRecord(fields:)` keeps them).
            ("a key twice", [0x09, 3] + field("a", [0x03, 0x02]) + field("b", [0x03, 0x04]) + field("a", [0x03, 0x06])),
            // Two dates: a record.
            ("two dates", [0x09, 2] + field("$date", five) + field("$date", five)),
            ("a date that is a string", [0x09, 1] + field("$date", [0x07, 0x01, 0x61])),
        ] + values.map { ("\($0)", try _BinaryRecordEncoder.encode($0)) }
        for (what, bytes) in written {
            func read<T: Decodable>(_ type: T.Type, _ show: (T) -> RecordValue) -> (value: RecordValue?, described: String) {
                do {
                    let value = show(try bytes.withUnsafeBytes { try _BinaryRecordDecoder(bytes: $0).decode(T.self, at: 0) })
                    return (value, "\(value)")
                } catch {
                    return (nil, "error: \(error)")
                }
            }
            let fromTag = read(RecordValue.self) { $0 }, general = read(ReadTheGeneralWay.self) { $0.value }
            expectEqual(fromTag.described, general.described, "\(what): \(bytes.map { String($0, radix: 16) })")
            if case .record = general.value {
                // A record's fields, read as a dynamic record, are the record value's.
                let record = read(DynamicRecord.self) { .record($0) }
                expectEqual(record.described, general.described, "\(what)")
            }
        }
        let twice = try written[0].1.withUnsafeBytes { try _BinaryRecordDecoder(bytes: $0).decode(RecordValue.self, at: 0) }
        expectEqual(twice, .record(DynamicRecord(fields: [("a", .int(3)), ("b", .int(2))])))
        // A value that is no value inside a record (beside a date, or not):
        // the record cannot be read — not a record without fields, as the
        // general way (a keyed container's allKeys cannot throw) read it.
        for damaged in [[0x09, 2] + field("a", [0x03, 0x02]) + field("b", [0x0C]), [0x09, 2] + field("$date", five) + field("b", [0x0C])] {
            expectThrows(DecodingError.self) { try damaged.withUnsafeBytes { try _BinaryRecordDecoder(bytes: $0).decode(RecordValue.self, at: 0) } }
            expectThrows(DecodingError.self) { try damaged.withUnsafeBytes { try _BinaryRecordDecoder(bytes: $0).decode(DynamicRecord.self, at: 0) } }
        }
    }
}

