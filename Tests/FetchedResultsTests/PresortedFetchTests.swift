import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableTestSupport
import Testing

/// A fetch whose records are already in order skips its sort (exact first
/// keys rising strictly); the order must be the sort's all the same — ties,
/// directions, mixed numbers and long strings included.
@Suite struct PresortedFetchTests {
    func fetch(_ values: [RecordValue], second: [RecordValue]? = nil, sortKeys: [SortKey]) throws -> [Int] {
        let objects = values.enumerated().map { k, value in
            var fields: [(String, RecordValue)] = [("id", .int(k)), ("v", value)]
            if let second { fields.append(("w", second[k])) }
            return DynamicObject(fields: DynamicRecord(fields: fields))
        }
        let context = ObjectContext(store: try ObjectStore(records: objects))
        return try context.fetch(FetchRequest<DynamicObject>(sortKeys: sortKeys)).map { object in
            guard case .int(let id) = object.id else { return -1 }
            return id
        }
    }

    @Test func recordsInOrderStayInOrderAndTiesAreBrokenByTheNextKey() throws {
        let rising: [RecordValue] = (0..<50).map { .int($0 * 3 - 40) }
        try expectEqual(fetch(rising, sortKeys: [SortKey("v")]), Array(0..<50))
        try expectEqual(fetch(rising, sortKeys: [SortKey("v", ascending: false)]), Array((0..<50).reversed()))
        let falling = Array(rising.reversed())
        try expectEqual(fetch(falling, sortKeys: [SortKey("v", ascending: false)]), Array(0..<50))
        // A tie: not strictly rising, so the second key orders it.
        let tied: [RecordValue] = [1, 2, 2, 3]
        try expectEqual(fetch(tied, second: [0, 1, 2, 3], sortKeys: [SortKey("v"), SortKey("w", ascending: false)]), [0, 2, 1, 3])
        try expectEqual(fetch(tied, sortKeys: [SortKey("v")]), [0, 1, 2, 3], "ties in insertion order")
        // Short strings are exact keys; long ones with a shared prefix are not.
        try expectEqual(fetch(["a", "b", "c", "d"], sortKeys: [SortKey("v")]), [0, 1, 2, 3])
        let long: [RecordValue] = ["prefix-long-b", "prefix-long-a", "prefix-long-c"]
        try expectEqual(fetch(long, sortKeys: [SortKey("v")]), [1, 0, 2])
        // Mixed numbers compare by value.
        let mixed: [RecordValue] = [.int(1), .double(1.5), .uint(UInt64.max), .int(-3), .double(-0.0), .int(0)]
        try expectEqual(fetch(mixed, sortKeys: [SortKey("v")]), [3, 4, 5, 0, 1, 2])
        let risingMixed: [RecordValue] = [.int(-3), .double(-0.5), .int(0), .double(0.5), .uint(UInt64.max)]
        try expectEqual(fetch(risingMixed, sortKeys: [SortKey("v")]), [0, 1, 2, 3, 4])
        let doubles: [RecordValue] = [.double(-1), .double(-0.0), .double(0), .double(2)]
        try expectEqual(fetch(doubles, sortKeys: [SortKey("v")]), [0, 1, 2, 3], "-0 and 0 are equal: insertion order")
    }

    /// Random columns, sorted (or nearly) about half the time, against a
    /// stable sort by value then insertion.
    @Test func randomColumnsSortedOrNotAgainstAStableSort() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for round in 0..<60 {
            var ints = (0..<g.int(0...300)).map { _ in g.int(-1000...1000) }
            if g.chance(0.5) { ints.sort() }
            if g.chance(0.3) { ints = Array(Set(ints)).sorted() }
            if g.chance(0.2), ints.count > 2 { ints.swapAt(0, ints.count - 1) }
            let ascending = g.chance(0.5)
            if !ascending && g.chance(0.5) { ints.reverse() }
            let asStrings = g.chance(0.3)
            let values: [RecordValue] = ints.map { asStrings ? .string(String(format: "%05d", $0 + 1000)) : .int($0) }
            let expected = ints.indices.sorted { a, b in
                ints[a] != ints[b] ? (ascending ? ints[a] < ints[b] : ints[a] > ints[b]) : a < b
            }
            try expectEqual(fetch(values, sortKeys: [SortKey("v", ascending: ascending)]), expected,
                    "seed \(seed) (TABLE_TEST_SEED=\(seed)), round \(round)")
        }
    }

    /// Strings that share long prefixes (names: a first name, the start of a
    /// last name), of every length around the sixteen bytes the radix passes
    /// read, with NUL, two-byte letters and, in some rounds, scalars the keys
    /// cannot hold (combining marks, CJK): ordered by their NFC scalars, then
    /// by a second key or insertion, in both directions — as a stable sort does.
    @Test func stringsSharingLongPrefixesAgainstAStableSort() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let plain = ["Anna ", "Anna Mü", "Müller ", "ß", "a", "b", "1", "12", " ", "\u{0}", "é", "Ünal"]
        let keyless = ["e\u{301}", "中", "\u{1F600}"]
        func scalars(_ s: String) -> [UInt32] { s.precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value) }
        for round in 0..<80 {
            let pieces = g.chance(0.25) ? plain + keyless : plain
            // Half the rounds start most strings with one of a few prefixes of
            // 16 bytes and more (a first and a last name): runs the radix keys
            // leave tied, ordered by their next bytes, eight at a time.
            let prefixes = g.chance(0.5) ? ["Carla Kalinowski", "Alexander Schmidt ", "Anna Müller Anna Müller ", "Anna Müller Anna Müllerß"] : [""]
            let strings = (0..<g.int(0...200)).map { _ in
                prefixes[g.int(0...(prefixes.count - 1))] + (0..<g.int(0...6)).map { _ in pieces[g.int(0...(pieces.count - 1))] }.joined()
            }
            let second = strings.map { _ in g.int(0...3) }
            let ascending = g.chance(0.5), secondAscending = g.chance(0.5), withSecond = g.chance(0.5)
            let expected = strings.indices.sorted { a, b in
                let (x, y) = (scalars(strings[a]), scalars(strings[b]))
                if x != y { return ascending ? x.lexicographicallyPrecedes(y) : y.lexicographicallyPrecedes(x) }
                if withSecond && second[a] != second[b] { return secondAscending ? second[a] < second[b] : second[a] > second[b] }
                return a < b
            }
            let sortKeys = [SortKey("v", ascending: ascending)] + (withSecond ? [SortKey("w", ascending: secondAscending)] : [])
            try expectEqual(fetch(strings.map { .string($0) }, second: second.map { .int($0) }, sortKeys: sortKeys), expected,
                    "seed \(seed) (TABLE_TEST_SEED=\(seed)), round \(round)")
        }
    }
}
