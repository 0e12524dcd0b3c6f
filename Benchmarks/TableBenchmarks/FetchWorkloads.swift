import Foundation
import HeadlessTable

/// The fetched results benchmarks: fetching against a hand-written
/// filter-then-sort, saves into a controller against a refetch and a diff, and
/// memory with a batch size.
enum FetchWorkloads {
    static var all: [Workload] {
        [fetch(100_000), fetch(1_000_000), collationFetch(1_000_000), save(1), save(100), save(10_000), batchMemory(batchSize: 50), batchMemory(batchSize: 0)]
    }

    struct Person: Record, Codable, TableDiffable, Equatable {
        var id: Int
        var firstName: String
        var lastName: String
        var age: Int
        var city: String
        var created: Date
        var notes: String

        static let recordKeys: RecordKeys<Person> = [
            "firstName": RecordKey(\.firstName), "lastName": RecordKey(\.lastName), "age": RecordKey(\.age),
            "city": RecordKey(\.city), "created": RecordKey(\.created),
        ]
    }

    static let cities = (0..<100).map { String(format: "City %03d", $0) }
    static let names = ["Ahmed", "Berg", "Chen", "Dubois", "Eriksson", "Fischer", "García", "Hoang", "Ivanova", "Jones",
                        "Kowalski", "López", "Müller", "Nakamura", "Okafor", "Petrov", "Quinn", "Rossi", "Smith", "Tanaka"]

    static func people(_ count: Int, seed: UInt64 = 21) -> [Person] {
        var g = SplitMix64(seed: seed)
        return (0..<count).map { id in
            Person(
                id: id, firstName: names[Int(g.next() % 20)], lastName: names[Int(g.next() % 20)] + "\(g.next() % 1000)",
                age: Int(g.next() % 90), city: cities[Int(g.next() % 100)],
                created: Date(timeIntervalSince1970: Double(g.next() % 1_000_000_000)), notes: String(repeating: "·", count: 40))
        }
    }

    /// The request every workload uses: ages 20–60, by city then last name, sectioned by city.
    static let request = FetchRequest<Person>(
        predicate: RecordPredicate { $0.age >= 20 && $0.age <= 60 },
        sortKeys: [SortKey("city"), SortKey("lastName")])

    static func store(_ people: [Person]) -> ObjectContext {
        let context = ObjectContext(store: ObjectStore(for: Person.self))
        for person in people { try? context.insert(person) }
        _ = try? context.save()
        return context
    }

    /// The same work by hand: filter, sort by city, last name and insertion order, group by city.
    @inline(never)
    static func handWritten(_ people: [Person]) -> [(String, [Person])] {
        let matches = people.enumerated().filter { $0.element.age >= 20 && $0.element.age <= 60 }
        let sorted = matches.sorted { a, b in
            if a.element.city != b.element.city { return a.element.city < b.element.city }
            if a.element.lastName != b.element.lastName { return a.element.lastName < b.element.lastName }
            return a.offset < b.offset
        }
        var sections: [(String, [Person])] = []
        for (_, person) in sorted {
            if sections.last?.0 == person.city { sections[sections.count - 1].1.append(person) } else { sections.append((person.city, [person])) }
        }
        return sections
    }

    static func fetch(_ count: Int) -> Workload {
        Workload(
            name: "fetch/perform-\(count >= 1_000_000 ? "1M" : "\(count / 1000)k")",
            summary: "performFetch over \(count) records: a predicate (ages 20–60), two sort keys, a section key (100 cities)",
            targets: [Target(against: "handWritten", atMost: 1.5)]
        ) {
            let everyone = people(count)
            let context = store(everyone)
            let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: "city")
            try? controller.performFetch()
            return Prepared(
                subject: { try? controller.performFetch(); blackHole(controller.numberOfSections) },
                baselines: [Baseline(name: "handWritten", run: { blackHole(handWritten(everyone)) })],
                counters: ["records": count, "matches": controller.fetchedObjects?.count ?? 0, "sections": controller.numberOfSections],
                maxSamples: 10)
        }
    }

    struct Name: Record, Codable, Equatable {
        var id: Int
        var name: String

        static let recordKeys: RecordKeys<Name> = ["name": RecordKey(\.name)]
    }

    /// First names as a contacts list holds them: mostly plain Latin, a fifth
    /// with diacritics, some Cyrillic, Greek and CJK, a few in lowercase.
    static let firstNames = [
        "Anna", "Abel", "Adam", "Björn", "Carla", "David", "Emma", "Felix", "Greta", "Hugo", "Ida", "Jonas", "Karl", "Lena",
        "Marta", "Nils", "Olga", "Paul", "Quentin", "Rosa", "Sven", "Tom", "Ulla", "Vera", "Walter", "Xaver", "Yvonne", "Zoe",
        "Ägidius", "Änne", "Åsa", "Émile", "Élodie", "Íñigo", "Jürgen", "Łukasz", "Ömer", "Øystein", "Šárka", "Ümit", "Þóra", "Çağla",
        "Алексей", "Борис", "Ёлкин", "Юрий", "Γιώργος", "Ελένη", "王芳", "佐藤", "anna", "émile",
    ]

    static func names(_ count: Int, seed: UInt64 = 33) -> [Name] {
        var g = SplitMix64(seed: seed)
        return (0..<count).map { id in
            Name(id: id, name: firstNames[Int(g.next() % UInt64(firstNames.count))] + " " + names[Int(g.next() % 20)] + "\(g.next() % 1000)")
        }
    }

    /// A fetch sorted and sectioned by the German collation (a contacts list's
    /// index) against the same fetch sorted by `.localizedStandard` (which can
    /// not be sectioned by first letter: umlauts break the order) and by `.plain`.
    static func collationFetch(_ count: Int) -> Workload {
        Workload(
            name: "fetch/collation-1M",
            summary: "performFetch of \(count) names sorted and sectioned by the German index (TableIndexCollation), against the same names sorted by .localizedStandard and by .plain, one section",
            targets: [Target(against: "localizedStandardSort", atMost: 1.5)]
        ) {
            let context = ObjectContext(store: ObjectStore(for: Name.self))
            for name in names(count) { try? context.insert(name) }
            _ = try? context.save()
            let german = TableIndexCollation(localeIdentifier: "de")
            let collated = FetchedResultsController(
                fetchRequest: FetchRequest<Name>(sortKeys: [SortKey("name", collation: german)]), context: context,
                sectionNameKeyPath: "name", sectionCollation: german)
            let standard = FetchedResultsController(
                fetchRequest: FetchRequest<Name>(sortKeys: [SortKey("name", comparison: .localizedStandard)]), context: context)
            let plain = FetchedResultsController(fetchRequest: FetchRequest<Name>(sortKeys: [SortKey("name")]), context: context)
            try? collated.performFetch()
            return Prepared(
                subject: { try? collated.performFetch(); blackHole(collated.numberOfSections) },
                baselines: [
                    Baseline(name: "localizedStandardSort", run: { try? standard.performFetch(); blackHole(standard.numberOfSections) }, maxSamples: 5),
                    Baseline(name: "plainSort", run: { try? plain.performFetch(); blackHole(plain.numberOfSections) }, maxSamples: 5),
                ],
                counters: ["records": count, "sections": collated.numberOfSections],
                maxSamples: 5)
        }
    }

    final class Counter: FetchedResultsControllerDelegate {
        typealias Object = Person
        var changes = 0
        func controller(_ controller: FetchedResultsController<Person>, didChange object: Person, at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?) {
            changes += 1
        }
    }

    /// A save of `k` changed records merged into a controller over 1M records,
    /// against fetching again and diffing. In turn, a save edits its records in
    /// place, moves them within their sections (a new last name), or gives them
    /// a new age (taking some out of the results and bringing others in).
    static func save(_ k: Int) -> Workload {
        Workload(
            name: "fetch/save-\(k)-into-1M",
            summary: "a save of \(k) changed records merged into a controller over 1,000,000 records (~460k results)",
            targets: k == 1 ? [Target(against: "refetchAndDiff", atMost: 0.001)] : []
        ) {
            let everyone = people(1_000_000)
            let context = store(everyone)
            let writer = ObjectContext(store: context.store)
            let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: "city")
            let counter = Counter()
            controller.delegate = counter
            try? controller.performFetch()
            _ = controller.indexPath(forObjectWithID: 0)   // the identity index, built once
            var g = SplitMix64(seed: 99)
            var round = 0
            // Each run changes k records and merges the save.
            let subject = {
                round += 1
                for _ in 0..<k {
                    let id = Int(g.next() % 1_000_000)
                    guard var person = try? writer.object(Person.self, id: id) else { continue }
                    switch round % 3 {
                    case 0: person.notes = "edited \(round)"
                    case 1: person.lastName = names[Int(g.next() % 20)] + "\(g.next() % 1000)"
                    default: person.age = Int(g.next() % 90)
                    }
                    try? writer.update(person)
                }
                if let saved = try? writer.save() { context.mergeChanges(fromContextDidSave: saved) }
                // Holds the controller and its delegate (which it holds weakly).
                blackHole((controller, counter.changes))
            }
            let before = controller.tableSections
            return Prepared(
                subject: subject,
                baselines: [Baseline(name: "refetchAndDiff", run: {
                    let fresh = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: "city")
                    try? fresh.performFetch()
                    blackHole(TableChangeset(from: before, to: fresh.tableSections))
                }, maxSamples: 5)],
                counters: ["changedRecords": k, "results": controller.fetchedObjects?.count ?? 0],
                maxSamples: k >= 10_000 ? 10 : 25)
        }
    }

    /// A controller over 1M records, scrolled through: with a batch size it
    /// keeps identities and sort values, and the records of its last few
    /// batches. The counters are the heap a controller keeps (after reading
    /// every 1,000th row, and again after reading every row) — which stays the
    /// same however many rows are read; the time is a fetch and a scroll.
    static func batchMemory(batchSize: Int) -> Workload {
        Workload(
            name: "fetch/memory-batch-\(batchSize)-1M",
            summary: "a controller over 1,000,000 records with fetchBatchSize \(batchSize): performFetch, then every 1,000th row read; see the retained bytes",
            targets: []
        ) {
            let context = store(people(1_000_000))
            var batched = request
            batched.fetchBatchSize = batchSize
            func scroll(_ c: FetchedResultsController<Person>, every step: Int) -> Int {
                var total = 0
                for s in 0..<c.numberOfSections {
                    for r in stride(from: 0, to: c.numberOfObjects(inSection: s), by: step) {
                        total &+= (try? c.object(at: TablePath(row: r, section: s)).age) ?? 0
                    }
                }
                return total
            }
            // What a controller keeps, measured on one built here.
            let before = heapInUse() ?? 0
            var kept: FetchedResultsController<Person>? = FetchedResultsController(fetchRequest: batched, context: context, sectionNameKeyPath: "city")
            var counters = ["batchSize": batchSize]
            if let c = kept {
                try? c.performFetch()
                blackHole(scroll(c, every: 1_000))
                let sparse = (heapInUse() ?? 0) - before
                blackHole(scroll(c, every: 1))
                let dense = (heapInUse() ?? 0) - before
                let results = (0..<c.numberOfSections).reduce(0) { $0 + c.numberOfObjects(inSection: $1) }
                counters["results"] = results
                counters["retainedKiB-every1000thRowRead"] = sparse / 1024
                counters["retainedKiB-everyRowRead"] = dense / 1024
                counters["retainedBytesPerResult"] = dense / max(1, results)
            }
            kept = nil
            blackHole(kept)
            return Prepared(
                subject: {
                    let c = FetchedResultsController(fetchRequest: batched, context: context, sectionNameKeyPath: "city")
                    try? c.performFetch()
                    blackHole(scroll(c, every: 1_000))
                },
                counters: counters,
                maxSamples: 3)
        }
    }
}
