import Foundation
import InternalTableUtilities
@testable import RecordStore
@testable import Records
import TableTestSupport
import Testing

/// Records held as bytes (`DynamicRecord`'s storage) give back exactly the
/// values they were made of — kind, bits, bytes of strings, order of fields —
/// and compare, hash, print and encode as the fields do; an object's identity
/// and the store's index behave as a dictionary would.
@Suite struct CompactRecordTests {
    /// The model: fields as the old representation held them (pairs, a
    /// repeated name keeping its first place and its last value).
    static func model(_ fields: [(String, RecordValue)]) -> [(key: String, value: RecordValue)] {
        var result: [(key: String, value: RecordValue)] = []
        for (key, value) in fields {
            if let k = result.firstIndex(where: { $0.key == key }) { result[k].value = value } else { result.append((key, value)) }
        }
        return result
    }

    static let strings: [String] = [
        "", "a", "Anna", "fifteen bytes!!", "sixteen bytes!!!", "Zoë", "e\u{301}", "\u{E9}", "日本語のテキスト", "🇩🇪👩‍👩‍👧",
        String(repeating: "x", count: 63), String(repeating: "y", count: 64), String(repeating: "ü", count: 100), "a\u{0}b", "\"\\\n",
    ]
    static let keys: [String] = ["id", "name", "é", "e\u{301}", "日本", "", "$date", "k1", "k2", "🙂"]

    static func value(_ g: inout SeededGenerator, depth: Int) -> RecordValue {
        switch g.int(0..<(depth > 2 ? 9 : 11)) {
        case 0: return .null
        case 1: return .bool(g.chance(0.5))
        case 2: return .int([0, 1, 127, 128, -1, -128, -129, 32767, 32768, -32769, Int(Int32.max) + 1, Int.max, Int.min].randomElement(using: &g)!)
        case 3: return .int(Int(truncatingIfNeeded: g.next()) >> g.int(0...63))
        case 4: return .uint(g.chance(0.5) ? UInt64(Int.max) + 1 + UInt64(g.int(0...1000)) : UInt64(g.int(0...5)))
        case 5: return .double([0.0, -0.0, 1.5, -1e300, .infinity, -.infinity, .nan, Double(bitPattern: 0x7FF8_0000_0000_0001), .leastNonzeroMagnitude, 3.0].randomElement(using: &g)!)
        case 6: return .date(Date(timeIntervalSinceReferenceDate: [0, -1.25, 1e9, 7.000001].randomElement(using: &g)!))
        case 7, 8: return .string(strings.randomElement(using: &g)!)
        case 9: return .array((0..<g.int(0...4)).map { _ in value(&g, depth: depth + 1) })
        default: return .record(record(&g, depth: depth + 1).record)
        }
    }

    static func fields(_ g: inout SeededGenerator, depth: Int) -> [(String, RecordValue)] {
        (0..<g.int(0...(depth == 0 ? 12 : 4))).map { _ in (keys.randomElement(using: &g)!, value(&g, depth: depth)) }
    }

    static func record(_ g: inout SeededGenerator, depth: Int) -> (record: DynamicRecord, model: [(key: String, value: RecordValue)]) {
        let given = fields(&g, depth: depth)
        return (DynamicRecord(fields: given), model(given))
    }

    /// The value with NaN and infinities replaced (they equal nothing, or
    /// have no JSON), and no "$date" keys (a lone one decodes as a date).
    static func finite(_ value: RecordValue) -> RecordValue {
        switch value {
        case .double(let d): return d.isFinite ? value : .double(2.5)
        case .array(let elements): return .array(elements.map(finite))
        case .record(let record):
            return .record(DynamicRecord(fields: record.fields.map { ($0.key == "$date" ? "date" : $0.key, finite($0.value)) }))
        default: return value
        }
    }

    /// Whether a value is or holds NaN (which equals nothing, itself included;
    /// an array compared with itself is equal without looking).
    static func holdsNaN(_ value: RecordValue) -> Bool {
        switch value {
        case .double(let d): return d.isNaN
        case .array(let elements): return elements.contains(where: holdsNaN)
        case .record(let record): return record.fields.contains { holdsNaN($0.value) }
        default: return false
        }
    }

    /// Whether two lists of fields are the same in every respect.
    static func identical(_ a: [(key: String, value: RecordValue)], _ b: [(key: String, value: RecordValue)]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.key.utf8.elementsEqual($1.key.utf8) && _identical($0.value, $1.value) }
    }

    @Test func recordsGiveBackExactlyTheirFields() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            let (record, model) = Self.record(&g, depth: 0)
            #expect(Self.identical(record.fields, model), "seed \(seed)")
            expectEqual(record.keys, model.map(\.key))
            expectEqual(record.count, model.count)
            for (key, value) in model { expectEqual(record[key].map { _identical($0, value) }, true, "seed \(seed): \(key)") }
            #expect(record["absent key"] == nil)
            // Equality and hashing as the fields' (in any order). With NaN
            // inside, equality depends on whether the two share what holds
            // it (as it did when values were arrays): not asked.
            let rebuilt = DynamicRecord(fields: model.reversed())
            if !model.contains(where: { Self.holdsNaN($0.value) }) {
                expectEqual(record, rebuilt, "seed \(seed)")
                expectEqual(record.hashValue, rebuilt.hashValue)
            }
            // JSON round trip, key order kept (NaN and infinities are written as null).
            let text = JSON.string(.record(record))
            expectEqual(text, JSON.string(.record(DynamicRecord(fields: model))))
            if let back = try? JSON.parse(text) { expectEqual(JSON.string(back), text) }
            // Codable round trip (JSONEncoder refuses NaN and infinities; a
            // lone "$date" key reads as a date, as ever).
            if !text.contains("$date"), let encoded = try? JSONEncoder().encode(RecordValue.record(record)) {
                try expectEqual(JSONDecoder().decode(RecordValue.self, from: encoded), .record(record), "seed \(seed)")
            }
        }
    }

    @Test func changingAFieldChangesThatFieldAlone() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<300 {
            var (record, model) = Self.record(&g, depth: 0)
            let original = record
            let originalModel = model
            for _ in 0..<g.int(1...5) {
                let key = Self.keys.randomElement(using: &g)!
                if g.chance(0.3) {
                    record[key] = nil
                    model.removeAll { $0.key == key }
                } else {
                    let value = Self.value(&g, depth: 1)
                    record[key] = value
                    if let k = model.firstIndex(where: { $0.key == key }) { model[k].value = value } else { model.append((key, value)) }
                }
                #expect(Self.identical(record.fields, model), "seed \(seed)")
            }
            #expect(Self.identical(original.fields, originalModel), "seed \(seed): a copy is not changed")
        }
    }

    /// What the streaming reader makes of random JSON, repeated keys
    /// included, is what a record made of the same fields holds, and equals
    /// and hashes as a record made of its own fields.
    @Test func readerRecordsEqualRecordsMadeOfTheirFields() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<500 {
            let given = (0..<g.int(1...6)).map { _ in Self.fields(&g, depth: 0) }
            let text = "[" + given.map { fields in
                "{" + fields.map { JSON.string(.string($0.0)) + ":" + JSON.string($0.1) }.joined(separator: ",") + "}"
            }.joined(separator: ",") + "]"
            let reader = JSONStreamReader(data: Data(text.utf8), chunkSize: 16)
            var read: [RecordValue] = []
            do {
                guard try reader.beginArray() else { continue }
                while try reader.nextElement() { read.append(try reader.readValue()) }
                try reader.finish()
            } catch {
                continue   // {"$date":"Anna"} is not a date
            }
            expectEqual(read.count, given.count)
            for (value, fields) in zip(read, given) {
                expectEqual(JSON.string(value), JSON.string(.record(DynamicRecord(fields: fields))), "seed \(seed)")
                guard let record = value.asRecord else {
                    Issue.record("seed \(seed): not a record")
                    continue
                }
                let rebuilt = DynamicRecord(fields: record.fields)
                #expect(Self.identical(record.fields, rebuilt.fields))
                if !record.fields.contains(where: { Self.holdsNaN($0.value) }) {   // NaN equals nothing
                    expectEqual(record, rebuilt)
                    expectEqual(record.hashValue, rebuilt.hashValue)
                }
            }
        }
    }

    @Test func anObjectKeepsTheIdentityItWasMadeWith() throws {
        let record = DynamicRecord(fields: [("id", 7), ("name", "Anna")])
        var object = DynamicObject(fields: record)
        expectEqual(object.id, 7)
        #expect(object._identity == nil)   // the id field: nothing kept beside it
        object.fields["id"] = 8
        expectEqual(object.id, 7)
        object.fields["id"] = nil
        expectEqual(object.id, 7)
        expectEqual(object.fields.keys, ["name"])
        object.id = "x"
        expectEqual(object.id, "x")
        var keyed = DynamicObject(fields: DynamicRecord(fields: [("key", "a"), ("id", 1)]), idKey: "key")
        expectEqual(keyed.id, "a")
        keyed.fields["key"] = "b"
        expectEqual(keyed.id, "a")
        expectEqual(DynamicObject(fields: DynamicRecord(fields: [("n", 1)])).id, .null)
        // An id field of another kind or other bytes than the identity is not taken for it.
        let decomposed = DynamicObject(fields: DynamicRecord(fields: [("key", "e\u{301}"), ("id", "\u{E9}")]), idKey: "key")
        expectEqual(decomposed.id.asString.map { Array($0.utf8) }, Array("e\u{301}".utf8))
        let double = DynamicObject(fields: DynamicRecord(fields: [("key", 1.0), ("id", 1)]), idKey: "key")
        #expect(_identical(double.id, .double(1)))
        // Codable as before: {"id": …, "fields": {…}} (JSON writes 1.0 as 1).
        for original in [object, keyed, decomposed, double, DynamicObject(fields: record)] {
            let data = try JSONEncoder().encode(original)
            let decoded = try JSONDecoder().decode(DynamicObject.self, from: data)
            if original.id.kindName != "double" { #expect(_identical(decoded.id, original.id)) }
            expectEqual(decoded, original)
            let plain = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            expectEqual(plain.map { Set($0.keys) }, ["id", "fields"])
        }
    }

    /// The store's index against a dictionary: inserts, lookups, removals
    /// that move the last record into the hole, with identities whose
    /// hashes collide often (long probe runs, wrapping around the table).
    @Test func theStoreIndexAgreesWithADictionary() {
        typealias Key = CollidingKey
        typealias Item = CollidingItem
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<50 {
            var index = _RecordIndex()
            var records: [Item] = []
            var model: [Int: Int] = [:]
            for _ in 0..<g.int(1...600) {
                let key = g.int(0..<200)
                switch g.int(0..<3) {
                case 0:
                    let existing = index.insert(Key(value: key), at: records.count, in: records)
                    expectEqual(existing, model[key], "seed \(seed)")
                    if existing == nil {
                        model[key] = records.count
                        records.append(Item(id: Key(value: key)))
                    }
                case 1:
                    guard let k = index.remove(Key(value: key), in: records) else {
                        #expect(model[key] == nil, "seed \(seed)")
                        continue
                    }
                    expectEqual(model.removeValue(forKey: key), k, "seed \(seed)")
                    let last = records.count - 1
                    if k != last {
                        index.move(records[last].id, from: last, to: k, in: records)
                        records[k] = records[last]
                        model[records[k].id.value] = k
                    }
                    records.removeLast()
                default:
                    expectEqual(index.position(of: Key(value: key), in: records), model[key], "seed \(seed)")
                }
                expectEqual(index.count, model.count)
                index.slots._checkInvariants()
            }
            for (key, k) in model { expectEqual(index.position(of: Key(value: key), in: records), k, "seed \(seed)") }
        }
    }

    /// A store of objects written to its file and opened again holds the
    /// same objects (the file's form is the objects' `Codable` form, as before).
    @Test func objectsRoundTripThroughTheStoreFile() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("compact-\(UUID().uuidString).htstore")
        defer { try? FileManager.default.removeItem(at: url) }
        var objects: [DynamicObject] = []
        for k in 0..<300 {
            var fields = Self.model(Self.fields(&g, depth: 0)).filter { $0.key != "id" && $0.key != "$date" }.map { ($0.key, Self.finite($0.value)) }
            fields.insert(("id", .int(k)), at: g.int(0...fields.count))
            objects.append(DynamicObject(fields: DynamicRecord(fields: fields)))
        }
        do {
            let store = try ObjectStore(for: DynamicObject.self, fileURL: url)
            let context = ObjectContext(store: store)
            for object in objects { try context.insert(object) }
            try context.save()
            try context.delete(DynamicObject.self, id: objects[5].id)
            try context.save()
        }
        let reopened = try ObjectStore(for: DynamicObject.self, fileURL: url)
        expectEqual(reopened.count, objects.count - 1)
        for object in objects where object.id != objects[5].id {
            let read = try #require(reopened.object(DynamicObject.self, id: object.id))
            expectEqual(read, object, "seed \(seed)")
            expectEqual(JSON.string(.record(read.fields)), JSON.string(.record(object.fields)))
        }
        #expect(reopened.object(DynamicObject.self, id: objects[5].id) == nil)
    }
}

/// An identity whose hashes collide often.
struct CollidingKey: Hashable, Sendable {
    var value: Int
    func hash(into hasher: inout Hasher) { hasher.combine(value % 7) }
}

struct CollidingItem: Record {
    var id: CollidingKey
    static var recordKeys: RecordKeys<CollidingItem> { RecordKeys([:]) }
}
