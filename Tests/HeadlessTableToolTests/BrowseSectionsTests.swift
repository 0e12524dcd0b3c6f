import Foundation
import HeadlessTable
@testable import HeadlessTableTool
import TableTestSupport
import Testing

/// browse's sections (`--section-key KEY`, `--index KEY`): its arguments
/// become the request, section key and collation of the controller its table
/// is bound to. Against a fetched results controller's `performFetch()` over
/// a store of the same objects, made by hand: the same section names, index
/// titles and objects in order — or the same error.
@Suite struct BrowseSectionsTests {
    /// Section-key values of every kind: missing (nil here), null, numbers
    /// (an Int and a Double that print as a string does), a Bool, a date, an
    /// array; strings in case variants, with accents composed and not, `ß`,
    /// Hangul, Greek, Cyrillic, empty, starting with a space or a digit.
    static let values: [RecordValue?] = [
        nil, .null, .int(1), .int(-3), .double(1), .double(2.5), .bool(true), .date(Date(timeIntervalSince1970: 86_400)),
        .array([.int(1)]), .string("1"), .string(""), .string("Oslo"), .string("oslo"), .string("OSLO"), .string("Ösel"),
        .string("ösel"), .string("O\u{308}sel"), .string("Zürich"), .string("Åbo"), .string("Ærø"), .string("ß"),
        .string("Straße"), .string("강릉"), .string("éa"), .string("e\u{301}a"), .string("Ελλάδα"), .string("Москва"),
        .string(" x"), .string("#1"), .string("ábc"), .string("Abc"),
    ]

    /// Predicates the browse may be given (nil: none); one fails on some objects.
    static let predicates: [String?] = [nil, nil, "age > 30", "name BEGINSWITH[cd] 'a'", "city != nil", "age / (age - 40) > 0"]

    static func objects(_ count: Int, seed: UInt64) -> [DynamicObject] {
        var random = SeededGenerator(seed: seed)
        // Few values in a round, so that sections hold several objects.
        let pool = (0..<(2 + random.int(0..<8))).map { _ in values[random.int(0..<values.count)] }
        return (0..<count).map { k in
            var fields: [(String, RecordValue)] = [("id", .int(k))]
            if let city = pool[random.int(0..<pool.count)] { fields.append(("city", city)) }
            if let name = values[random.int(0..<values.count)] { fields.append(("name", name)) }
            if random.chance(0.9) { fields.append(("age", .int(random.int(0..<90)))) }
            return DynamicObject(fields: DynamicRecord(fields: fields))
        }
    }

    /// What a browse shows (or the error it reports).
    struct Sections: Equatable, CustomStringConvertible {
        var names: [String]
        var titles: [String?]
        var ids: [[RecordValue]]
        var error: String?

        var description: String {
            error.map { "error \($0)" } ?? zip(zip(names, titles), ids).map { "\($0.0)|\($0.1 ?? "nil"): \($1.map { JSON.string($0) })" }.joined(separator: "; ")
        }
    }

    /// One browse: its command line, and the request a controller is given for it.
    struct Case {
        var arguments: [String]
        var request: FetchRequest<DynamicObject>
        var sectionKey: String
        var collation: TableIndexCollation?
    }

    /// The browse's sections, as its model has them.
    static func browsed(_ objects: [DynamicObject], _ arguments: [String]) -> Sections {
        do {
            let session = try BrowseSession(arguments: arguments + ["people.json"], objects: objects)
            defer {
                session.waitForStore()
                session.model.waitForSearchIndex()
            }
            // The sections of the controller the browser's table is bound to.
            let sections = session.model.controller.sections ?? []
            return Sections(names: sections.map(\.name), titles: sections.map(\.indexTitle), ids: sections.map { $0.objects.map(\.id) })
        } catch {
            return Sections(names: [], titles: [], ids: [], error: "\(error)")
        }
    }

    /// The controller's sections over a store of the same objects (inserted
    /// and saved one by one, in order).
    static func controlled(_ objects: [DynamicObject], _ c: Case) throws -> Sections {
        let context = ObjectContext(store: ObjectStore(for: DynamicObject.self))
        for object in objects { try context.insert(object) }
        _ = try context.save()
        let controller = FetchedResultsController(fetchRequest: c.request, context: context, sectionNameKeyPath: c.sectionKey, sectionCollation: c.collation)
        do {
            try controller.performFetch()
        } catch {
            return Sections(names: [], titles: [], ids: [], error: "\(error)")
        }
        let sections = controller.sections ?? []
        return Sections(names: sections.map(\.name), titles: sections.map(\.indexTitle), ids: sections.map { $0.objects.map(\.id) })
    }

    static func sortKeys(_ texts: [String]) -> [SortKey] {
        texts.map { $0.hasPrefix("-") ? SortKey(String($0.dropFirst()), ascending: false) : SortKey($0) }
    }

    /// A random browse: by `--section-key` (ascending or not, more sort keys
    /// or not) or by `--index` (of the city or the name, in a locale or
    /// English), with a predicate or not.
    static func randomCase(_ random: inout SeededGenerator) throws -> Case {
        let predicate = predicates[random.int(0..<predicates.count)]
        var arguments = predicate.map { ["--where", $0] } ?? []
        let more = [[], ["id"], ["-age", "id"], ["name"]][random.int(0..<4)]
        let request: (_ keys: [SortKey]) throws -> FetchRequest<DynamicObject> = { keys in
            FetchRequest(predicate: try predicate.map { RecordPredicate(try FormatPredicate(format: $0)) }, sortKeys: keys)
        }
        if random.chance(0.6) {
            let first = random.chance(0.7) ? "city" : "-city"
            arguments += ["--section-key", "city", "--sort", ([first] + more).joined(separator: ",")]
            return Case(arguments: arguments, request: try request(sortKeys([first] + more)), sectionKey: "city")
        }
        let key = random.chance(0.5) ? "city" : "name"
        let locale = ["en", "de", "sv", "ru", "el", "ja"][random.int(0..<6)]
        let collation = TableIndexCollation(localeIdentifier: locale)
        arguments += ["--index", key, "--locale", locale] + (more.isEmpty ? [] : ["--sort", more.joined(separator: ",")])
        return Case(arguments: arguments, request: try request([SortKey(key, collation: collation)] + sortKeys(more)), sectionKey: key, collation: collation)
    }

    @Test(arguments: (1...UInt64(TestScale.cases(4, full: 8))).map { $0 })
    func randomBrowsesSectionAsTheController(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var errors = 0, sectioned = 0
        for round in 0..<60 {
            let objects = Self.objects(random.int(0..<40), seed: seed &* 1000 &+ UInt64(round))
            let c = try Self.randomCase(&random)
            let expected = try Self.controlled(objects, c)
            let got = Self.browsed(objects, c.arguments)
            expectEqual(got, expected, "seed \(seed), round \(round), \(c.arguments)\n browse:     \(got)\n controller: \(expected)")
            if expected.error != nil { errors += 1 } else if expected.names.count > 1 { sectioned += 1 }
        }
        // The rounds cover both: errors (out-of-order sections, a failing
        // predicate) and several sections.
        #expect(errors > 0 && sectioned > 0, "seed \(seed): \(errors) errors, \(sectioned) with sections")
    }

    /// Every way of giving three objects a city from a few values of each
    /// kind (missing, null, numbers and strings that print alike, case
    /// variants, an accent), by `--section-key city` up and down and by
    /// `--index city`.
    @Test func everyThreeObjectsSectionAsTheController() throws {
        let kinds: [RecordValue?] = [nil, .null, .int(1), .double(1), .string("1"), .string(""), .string("a"), .string("A"), .string("á")]
        // Under a plain `swift test`, the third of the triples whose kinds'
        // places add up to a multiple of 3: every two kinds still meet in
        // every two places. All of them in the full run.
        var compared = 0
        for i in kinds.indices { for j in kinds.indices { for k in kinds.indices where TestScale.isFull || (i + j + k) % 3 == 0 {
            let objects = [kinds[i], kinds[j], kinds[k]].enumerated().map { k, city in
                DynamicObject(fields: DynamicRecord(fields: [("id", .int(k))] + (city.map { [("city", $0)] } ?? [])))
            }
            let english = TableIndexCollation(localeIdentifier: "en")
            for c in [
                Case(arguments: ["--section-key", "city", "--sort", "city"], request: FetchRequest(sortKeys: [SortKey("city")]), sectionKey: "city"),
                Case(arguments: ["--section-key", "city", "--sort", "-city"], request: FetchRequest(sortKeys: [SortKey("city", ascending: false)]), sectionKey: "city"),
                Case(arguments: ["--index", "city"], request: FetchRequest(sortKeys: [SortKey("city", collation: english)]), sectionKey: "city", collation: english),
            ] {
                let expected = try Self.controlled(objects, c)
                let got = Self.browsed(objects, c.arguments)
                expectEqual(got, expected, "\(objects.map { $0.fields["city"].map { JSON.string($0) } ?? "missing" }) \(c.arguments)\n browse:     \(got)\n controller: \(expected)")
                compared += 1
            }
        } } }
        expectEqual(compared, (TestScale.isFull ? 9 * 9 * 9 : 9 * 9 * 3) * 3)
    }
}
