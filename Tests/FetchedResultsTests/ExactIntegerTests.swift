import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableTestSupport
import Testing

/// Integers are never rounded: every value from `Int.min` to `UInt64.max`
/// round-trips through JSON, the store, sorting and the predicate language,
/// and a larger one is an error, not a nearby double.
@Suite struct ExactIntegerTests {
    /// The edges, and seeded values on both sides of `Int.max`.
    static func integers(count: Int, seed: UInt64) -> [RecordValue] {
        var g = SeededGenerator(seed: seed)
        var values: [RecordValue] = [
            .int(.min), .int(.min + 1), .int(-1), .int(0), .int(1), .int(.max - 1), .int(.max),
            .uint(UInt64(Int.max) + 1), .uint(UInt64(Int.max) + 2), .uint(.max - 1), .uint(.max),
        ]
        while values.count < count {
            let u = UInt64.random(in: 0...UInt64.max, using: &g)
            values.append(Bool.random(using: &g) ? .int(Int(truncatingIfNeeded: u)) : u.recordValue)
        }
        return values
    }

    /// An independent reading of a number: its exact decimal integer part
    /// (printf's `%.0f` prints a double's integer value exactly) and whether
    /// a fraction follows. Doubles here are integral or halves.
    static func exact(_ value: RecordValue) -> (integer: String, half: Bool) {
        switch value {
        case .int(let i): return (String(i), false)
        case .uint(let u): return (String(u), false)
        case .double(let d):
            let whole = d.rounded(.down)
            let text = whole == 0 ? "0" : String(format: "%.0f", whole)
            return (text, d != whole)
        default: preconditionFailure("not a number")
        }
    }

    /// Compares exact readings: by sign, then length, then digits.
    static func compareExact(_ a: RecordValue, _ b: RecordValue) -> Int {
        let (x, y) = (exact(a), exact(b))
        func key(_ s: String) -> (negative: Bool, digits: String) { s.hasPrefix("-") ? (true, String(s.dropFirst())) : (false, s) }
        let (p, q) = (key(x.integer), key(y.integer))
        var order: Int
        if p.negative != q.negative {
            order = p.negative ? -1 : 1
        } else {
            let magnitude = p.digits.count != q.digits.count ? (p.digits.count < q.digits.count ? -1 : 1)
                : (p.digits == q.digits ? 0 : (p.digits < q.digits ? -1 : 1))
            order = p.negative ? -magnitude : magnitude
        }
        // floor(-1.5) is -2: the half lies above its floor on either side.
        if order == 0 && x.half != y.half { order = x.half ? 1 : -1 }
        return order
    }

    @Test func jsonKeepsEverySixtyFourBitInteger() throws {
        for value in Self.integers(count: 2_000, seed: 1) {
            let text = JSON.string(value)
            expectEqual(text, Self.exact(value).integer)
            let read = try JSON.parse(text)
            #expect(read == value && "\(read)" == "\(value)", "\(text) read back as \(read)")
        }
        // Unsigned ids that one double would merge stay apart.
        let ids = try JSON.parse("[18446744073709551614, 18446744073709551615, 9223372036854775808]")
        expectEqual(ids, [.uint(18_446_744_073_709_551_614), .uint(.max), .uint(9_223_372_036_854_775_808)])
        expectEqual(Set(ids.asArray ?? []).count, 3)
    }

    @Test func integersBeyondSixtyFourBitsAreErrors() throws {
        let cases = [
            ("18446744073709551616", "18446744073709551616"),
            ("-9223372036854775809", "-9223372036854775809"),
            ("[1, 123456789012345678901234567890]", "123456789012345678901234567890"),
            (String(repeating: "9", count: 5_000), "99999999999999999999…9999999999 (5000 characters)"),
        ]
        for (text, echoed) in cases {
            #expect {
                _ = try JSON.parse(text)
            } throws: { error in
                "\(error)".contains("the integer \(echoed) does not fit in 64 bits") && "\(error)".contains("write it as a string")
            }
        }
        // Written as doubles, they are doubles.
        try expectEqual(JSON.parse("1.2345678901234567e29"), .double(1.2345678901234567e29))
        try expectEqual(JSON.parse("18446744073709551616.0"), .double(18_446_744_073_709_551_616))
    }

    /// `==` and hashing agree with the exact reading, across int, uint and double.
    @Test func equalityAndHashingAreExact() {
        var values = Self.integers(count: 300, seed: 2)
        for value in values.prefix(150) { values.append(.double(Double(Self.exact(value).integer) ?? 0)) }
        values += [.double(9_223_372_036_854_775_808), .double(18_446_744_073_709_551_616), .double(-0.0), .double(0.5), .double(-1.5)]
        for a in values {
            for b in values {
                let same = Self.compareExact(a, b) == 0
                expectEqual((a == b), same, "\(a) == \(b)")
                if same { expectEqual(a.hashValue, b.hashValue, "\(a) and \(b) hash apart") }
            }
        }
        #expect(RecordValue.uint(5) == .int(5) && RecordValue.uint(5).hashValue == RecordValue.int(5).hashValue)
        #expect(UInt64.max.recordValue == .uint(.max) && UInt64(7).recordValue == .int(7) && (Decimal(string: "18446744073709551615")!).recordValue == .uint(.max))
    }

    /// A fetch sorted by mixed ints, uints and doubles orders them exactly.
    @Test func sortingIsExact() throws {
        var g = SeededGenerator(seed: 3)
        var values = Self.integers(count: 400, seed: 4)
        for value in values.prefix(100) {
            let d = Double(Self.exact(value).integer) ?? 0
            values.append(.double(Bool.random(using: &g) ? d : d + 0.5))
        }
        values.shuffle(using: &g)
        let store = ObjectStore(for: DynamicObject.self)
        let context = ObjectContext(store: store)
        for (k, value) in values.enumerated() { try context.insert(DynamicObject(fields: DynamicRecord(fields: [("id", .int(k)), ("n", value)]))) }
        try context.save()
        for ascending in [true, false] {
            let request = FetchRequest<DynamicObject>(sortKeys: [SortKey("n", ascending: ascending), SortKey("id")])
            let fetched = try context.fetch(request).map { $0.fields["n"] ?? .null }
            for (a, b) in zip(fetched, fetched.dropFirst()) {
                let order = Self.compareExact(a, b)
                #expect(ascending ? order <= 0 : order >= 0, "\(a) before \(b)")
            }
            expectEqual(fetched.count, values.count)
        }
    }

    /// Through the journal file and back, as dynamic objects and as a
    /// Codable record with UInt64 and Int64 properties.
    @Test func theStoreKeepsThemExactly() throws {
        struct Account: Record, Codable, Hashable {
            var id: UInt64
            var balance: Int64
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("exact-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let values = Self.integers(count: 200, seed: 5)
        do {
            let url = folder.appendingPathComponent("objects.htstore")
            let context = ObjectContext(store: try ObjectStore(for: DynamicObject.self, fileURL: url))
            for (k, value) in values.enumerated() { try context.insert(DynamicObject(fields: DynamicRecord(fields: [("id", value), ("k", .int(k)), ("list", RecordValue.array([value]))]))) }
            try context.save()
            let reopened = try ObjectStore(for: DynamicObject.self, fileURL: url)
            for (k, value) in values.enumerated() {
                let object = reopened.object(DynamicObject.self, id: value)
                #expect(object?.fields["k"] == .int(k) && object?.fields["list"] == .array([value]))
                expectEqual(object.map { "\($0.id)" }, "\(value)", "the id \(value) came back as another kind")
            }
        }
        do {
            let url = folder.appendingPathComponent("accounts.htstore")
            let context = ObjectContext(store: try ObjectStore(for: Account.self, fileURL: url))
            let accounts = [Account(id: .max, balance: .min), Account(id: .max - 1, balance: .max), Account(id: 1 << 63, balance: -1)]
            for account in accounts { try context.insert(account) }
            try context.save()
            let reopened = try ObjectStore(for: Account.self, fileURL: url)
            expectEqual(Set(reopened.objects(Account.self)), Set(accounts))
            // A predicate over the typed record sees the exact values.
            let request = FetchRequest<Account>(predicate: try RecordPredicate(format: "id > 9223372036854775808 AND balance < 0"))
            try expectEqual(ObjectContext(store: reopened).fetch(request).map(\.id), [.max])
        }
    }
}

