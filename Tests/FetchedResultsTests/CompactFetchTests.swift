@testable import FetchedResults
import Foundation
import InternalTableUtilities
@testable import RecordStore
import Records
import TableTestSupport
import Testing

/// The compact structures of a fetch and a controller (memory):
/// the sort columns a fetch keeps instead of an element per match, and the
/// controller's identity index of hashes and chunk numbers.
@Suite struct CompactFetchTests {
    // MARK: The identity index

    /// A record whose identities collide often: five hashes for all of them.
    struct Colliding: Record, Codable {
        struct ID: Hashable, Codable, Sendable {
            var value: Int
            func hash(into hasher: inout Hasher) { hasher.combine(value % 5) }
        }
        var id: ID
    }

    static func element(_ value: Int) -> _Element<Colliding> {
        _Element(id: Colliding.ID(value: value), sequence: Int64(value), sortValues: _SortValues(first: .null), sectionName: "")
    }

    /// Random inserts, removals, moves between chunks and forgotten chunks,
    /// against a dictionary from identity to chunk.
    @Test func theIdentityIndexFindsEveryIdentitysChunkAsADictionaryDoes() {
        let seed = SeededGenerator.runSeed()
        var random = SeededGenerator(seed: seed)
        var index = _MemberIndex<Colliding>(capacity: 0)
        var chunks = (0..<4).map { _Chunk<Colliding>([], records: [], index: $0) }
        var oracle: [Colliding.ID: _Chunk<Colliding>] = [:]
        var next = 0
        let steps = TestScale.cases(1_200, full: 3_000)
        for step in 0..<steps {
            let roll = Int.random(in: 0..<10, using: &random)
            if roll < 5 || oracle.isEmpty {
                let chunk = chunks.randomElement(using: &random)!
                chunk.ids.append(Colliding.ID(value: next))
                index.insert(Colliding.ID(value: next), in: chunk)
                oracle[Colliding.ID(value: next)] = chunk
                next += 1
            } else if roll < 8 {
                let id = oracle.keys.randomElement(using: &random)!
                let chunk = oracle[id]!
                chunk.ids.removeAll { $0 == id }
                index.remove(id, from: chunk)
                oracle[id] = nil
            } else {
                let id = oracle.keys.randomElement(using: &random)!
                let from = oracle[id]!
                var to = chunks.randomElement(using: &random)!
                if roll == 9 {
                    // A new chunk, as a split makes; an empty one is forgotten.
                    to = _Chunk([], records: [], index: chunks.count)
                    chunks.append(to)
                }
                from.ids.removeAll { $0 == id }
                to.ids.append(id)
                index.move(id, from: from, to: to)
                oracle[id] = to
                if from.ids.isEmpty {
                    index.forget(from)
                    chunks.removeAll { $0 === from }
                }
            }
            index.slots._checkInvariants()
            guard step % 97 == 0 || step == steps - 1 else { continue }
            expectEqual(index.count, oracle.count, "seed \(seed), step \(step)")
            for value in 0..<next {
                let id = Colliding.ID(value: value)
                #expect(index.chunk(for: id) === oracle[id], "seed \(seed), step \(step): \(value)")
                if let (chunk, offset) = index.locate(id) { expectEqual(chunk.ids[offset], id) }
            }
        }
    }

    // MARK: The store's versions

    /// Random sets, appends and removals of the last, from a shared version
    /// and from none, against an array.
    @Test func theStoresVersionsReadAsAnArrayDoes() {
        let seed = SeededGenerator.runSeed()
        var random = SeededGenerator(seed: seed)
        for round in 0..<20 {
            let start = Int.random(in: 0...2000, using: &random)
            var versions = round % 4 == 0 ? _Versions() : _Versions(repeating: 1, count: start)
            var oracle: [Int64] = round % 4 == 0 ? [] : Array(repeating: 1, count: start)
            for _ in 0..<1500 {
                let version = Int64.random(in: 1...3, using: &random)
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<5 where !oracle.isEmpty:
                    let k = Int.random(in: oracle.indices, using: &random)
                    versions[k] = version
                    oracle[k] = version
                case 5..<8:
                    versions.append(version)
                    oracle.append(version)
                default:
                    guard !oracle.isEmpty else { continue }
                    versions.removeLast()
                    oracle.removeLast()
                }
            }
            expectEqual(versions.count, oracle.count, "seed \(seed), round \(round)")
            #expect(oracle.indices.allSatisfy { versions[$0] == oracle[$0] }, "seed \(seed), round \(round)")
        }
    }

    // MARK: The sort columns

    /// A value of the kinds a column may hold, with its order: null, then
    /// booleans, numbers, dates, strings (plain: by their UTF-8 bytes here,
    /// ASCII only).
    enum Value: Comparable {
        case null
        case bool(Bool)
        case number(Double)
        case date(Double)
        case string(String)

        var rank: Int {
            switch self {
            case .null: 0
            case .bool: 1
            case .number: 2
            case .date: 3
            case .string: 4
            }
        }

        static func < (a: Value, b: Value) -> Bool {
            switch (a, b) {
            case let (.bool(x), .bool(y)): return !x && y
            case let (.number(x), .number(y)), let (.date(x), .date(y)): return x < y
            case let (.string(x), .string(y)): return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
            default: return a.rank < b.rank
            }
        }
    }

    /// How a column's values are drawn: one kind throughout (the typed
    /// columns), or one kind then others (a column made general midway).
    enum Draw: CaseIterable { case ints, doubles, dates, strings, longStrings, mixedAfterStrings, mixedAfterInts, mixed }

    static func draw(_ draw: Draw, _ k: Int, count: Int, using random: inout SeededGenerator) -> (RecordValue, Value) {
        func int() -> (RecordValue, Value) {
            let i = Int.random(in: -5...5, using: &random)
            return (.int(i), .number(Double(i)))
        }
        func double() -> (RecordValue, Value) {
            let d = Double(Int.random(in: -10...10, using: &random)) / 4
            return (.double(d), .number(d))
        }
        func date() -> (RecordValue, Value) {
            let d = Double(Int.random(in: 0...6, using: &random)) * 3600
            return (.date(Date(timeIntervalSinceReferenceDate: d)), .date(d))
        }
        func string(long: Bool) -> (RecordValue, Value) {
            let letters = "ab c"
            let length = Int.random(in: 0...(long ? 20 : 3), using: &random)
            let s = String((0..<length).map { _ in letters.randomElement(using: &random)! })
            let padded = long && Bool.random(using: &random) ? "same prefix of many " + s : s
            return (.string(padded), .string(padded))
        }
        func any() -> (RecordValue, Value) {
            switch Int.random(in: 0..<6, using: &random) {
            case 0: return (.null, .null)
            case 1:
                let b = Bool.random(using: &random)
                return (.bool(b), .bool(b))
            case 2: return int()
            case 3: return double()
            case 4: return date()
            default: return string(long: false)
            }
        }
        switch draw {
        case .ints: return int()
        case .doubles: return double()
        case .dates: return date()
        case .strings: return string(long: false)
        case .longStrings: return string(long: true)
        case .mixedAfterStrings: return k < count / 2 ? string(long: false) : any()
        case .mixedAfterInts: return k < count / 3 ? int() : any()
        case .mixed: return any()
        }
    }

    /// A column made from fewer rooms than values (a store that grew
    /// between counting and reading), of every draw and comparison: each
    /// value read back as it was appended.
    @Test func aColumnGrowsAndGivesBackEveryValue() {
        let seed = SeededGenerator.runSeed()
        var random = SeededGenerator(seed: seed)
        let comparisons: [SortKey.StringComparison] = [.plain, .localizedStandard, .collation(TableIndexCollation(localeIdentifier: "de"))]
        for draw in Draw.allCases {
            for comparison in comparisons {
                let count = Int.random(in: 0...200, using: &random)
                let builder = _ColumnBuilder(capacity: Int.random(in: 0...3, using: &random))
                var expected: [_SortValue] = []
                for k in 0..<count {
                    let (value, _) = Self.draw(draw, k, count: count, using: &random)
                    builder.append(value, comparison: comparison)
                    expected.append(_SortValue(value, comparison: comparison))
                }
                let columns = _SortColumns([builder.column()])
                for k in 0..<count {
                    let value = columns.sortValues(at: k).first
                    #expect(_SortValue.compare(value, expected[k]) == 0 && value.rank == expected[k].rank, "seed \(seed), \(draw), \(comparison), value \(k)")
                }
            }
        }
    }

    /// Builders let go before their column is made (a fetch whose predicate
    /// throws half-way) free their buffers and values; a builder whose column
    /// was made frees none of the column's (the column does): every draw and
    /// comparison, grown or not. (A leak or a double free shows under the
    /// address sanitizer: `swift test --sanitize=address --filter CompactFetchTests`.)
    @Test func aBuilderOwnsItsBuffersUntilItsColumnIsMade() {
        let seed = SeededGenerator.runSeed()
        var random = SeededGenerator(seed: seed)
        let comparisons: [SortKey.StringComparison] = [.plain, .localizedStandard, .collation(TableIndexCollation(localeIdentifier: "de"))]
        for draw in Draw.allCases {
            for comparison in comparisons {
                let count = Int.random(in: 0...40, using: &random)
                var values: [_SortValue] = []
                do {
                    let dropped = _ColumnBuilder(capacity: Int.random(in: 0...60, using: &random))
                    let made = _ColumnBuilder(capacity: Int.random(in: 0...60, using: &random))
                    for k in 0..<count {
                        let (value, _) = Self.draw(draw, k, count: count, using: &random)
                        dropped.append(value, comparison: comparison)
                        made.append(value, comparison: comparison)
                        values.append(_SortValue(value, comparison: comparison))
                    }
                    let columns = _SortColumns([made.column()])
                    expectEqual(made.count, 0, "the column owns the values now")
                    for k in 0..<count {
                        expectEqual(_SortValue.compare(columns.sortValues(at: k).first, values[k]), 0, "seed \(seed), \(draw), \(comparison), value \(k)")
                    }
                }
            }
        }
    }

    /// A fetch whose predicate throws after some matches (sorted by a string,
    /// a number and a collated string) throws, lets go of what it found and
    /// changes nothing: the next fetch, without the failing record, is whole.
    @Test func aFetchWhosePredicateThrowsHalfWayLetsGoOfItsMatches() throws {
        let context = ObjectContext(store: ObjectStore(for: DynamicObject.self))
        for k in 0..<500 {
            let age: RecordValue = k == 300 ? .string("old") : .int(k % 90)
            try context.insert(DynamicObject(fields: DynamicRecord(fields: [("id", .int(k)), ("name", .string("name \(k % 37)")), ("age", age)])))
        }
        try context.save()
        let sortKeys = [SortKey("name"), SortKey("age"), SortKey("name", comparison: .collation(TableIndexCollation(localeIdentifier: "de")))]
        let failing = FetchRequest<DynamicObject>(predicate: try RecordPredicate(format: "age >= 0"), sortKeys: sortKeys)
        expectThrows(FetchError.self) { try context.fetch(failing) }
        try context.delete(try #require(context.fetch(FetchRequest<DynamicObject>(predicate: try RecordPredicate(format: "id == 300"), sortKeys: [SortKey("id")])).first))
        try context.save()
        try expectEqual(context.fetch(failing).count, 499)
    }

    /// Fetches of one to three sort keys over columns of every draw, with a
    /// predicate, an offset and a limit, by a context and by a controller
    /// sectioned by the first key: the order against sorting by hand (ties
    /// in insertion order), and the sections against the runs of the first
    /// key's values.
    @Test func aFetchOrdersItsColumnsAsSortingByHandDoes() throws {
        let seed = SeededGenerator.runSeed()
        var random = SeededGenerator(seed: seed)
        for round in 0..<40 {
            let count = Int.random(in: 0...300, using: &random)
            let keys = Int.random(in: 1...3, using: &random)
            let draws = (0..<keys).map { _ in Draw.allCases.randomElement(using: &random)! }
            let ascending = (0..<keys).map { _ in Bool.random(using: &random) }
            var objects: [DynamicObject] = [], values: [[Value]] = []
            for k in 0..<count {
                var fields: [(String, RecordValue)] = [("id", .int(k)), ("even", .bool(k % 2 == 0))]
                var row: [Value] = []
                for key in 0..<keys {
                    let (value, expected) = Self.draw(draws[key], k, count: count, using: &random)
                    if value != .null || Bool.random(using: &random) { fields.append(("k\(key)", value)) }
                    row.append(value == .null ? .null : expected)
                }
                objects.append(DynamicObject(fields: DynamicRecord(fields: fields)))
                values.append(row)
            }
            let filtered = Bool.random(using: &random)
            let offset = Int.random(in: 0...3, using: &random), limit = Bool.random(using: &random) ? Int.random(in: 0...count + 1, using: &random) : nil
            let expected = (0..<count).filter { !filtered || $0 % 2 == 0 }.sorted { a, b in
                for key in 0..<keys where values[a][key] != values[b][key] {
                    return (values[a][key] < values[b][key]) == ascending[key]
                }
                return a < b
            }
            let narrowed = Array(expected.dropFirst(offset).prefix(limit ?? .max))
            let request = FetchRequest<DynamicObject>(
                predicate: filtered ? try RecordPredicate(format: "even == true") : nil,
                sortKeys: (0..<keys).map { SortKey("k\($0)", ascending: ascending[$0]) }, fetchLimit: limit, fetchOffset: offset)
            let context = ObjectContext(store: try ObjectStore(records: objects))
            let fetched = try context.fetch(request).map(\.id)
            let context2 = "seed \(seed), round \(round): \(draws), ascending \(ascending)"
            expectEqual(fetched, narrowed.map { RecordValue.int($0) }, "\(context2)")
            // A controller sectioned by the first key: the same order, and a
            // section per run of the first key's values (as names).
            let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: "k0")
            let names = narrowed.map { k in _sectionName(objects[k].fields["k0"] ?? .null) }
            var runs: [String] = []
            for name in names where runs.last != name { runs.append(name) }
            guard Set(runs).count == runs.count else {
                // Two values with one name (1 and 1.0, a missing key and ""),
                // apart: the sections are out of order.
                expectThrows(FetchError.self, "\(context2)") { try controller.performFetch() }
                continue
            }
            try controller.performFetch()
            expectEqual(controller.fetchedObjects?.map(\.id), narrowed.map { RecordValue.int($0) }, "\(context2)")
            expectEqual(controller.sections?.map(\.name), runs, "\(context2)")
            expectEqual(controller.sections?.map(\.numberOfObjects).reduce(0, +), narrowed.count)
        }
    }
}
