import Foundation
import HeadlessTable
import HeadlessTableTool
import InternalTableUtilities
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The CPU time of the calling thread, in nanoseconds.
func threadCPUNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}

/// `headless-table browse` at a million rows: its model driven headless by a
/// scripted key sequence, one key (handled and drawn) per sample.
enum BrowseWorkloads {
    static var all: [Workload] { [firstScreen(), firstScreenSectioned(), keys()] }

    static let syllables = ["an", "be", "ca", "do", "el", "fi", "ga", "ha", "in", "jo", "ka", "lu", "ma",
                            "ne", "or", "pa", "qu", "ri", "sa", "to", "ul", "vi", "wa", "xe", "yo", "zu"]

    /// `count` people: an id, a name of three and three syllables
    /// (`Kalufi Orsabe`), an age; seeded, in a shuffled order.
    static func people(_ count: Int, seed: UInt64 = 16, cities: Bool = false) -> [DynamicObject] {
        var random = SplitMix64(seed: seed)
        // The cities come from a generator of their own: the names and ages
        // are those of the people without cities.
        var cityRandom = SplitMix64(seed: seed &+ 1)
        let cityNames = Self.cities
        func word() -> String {
            let text = (0..<3).map { _ in syllables[Int(random.next() % UInt64(syllables.count))] }.joined()
            return text.prefix(1).uppercased() + text.dropFirst()
        }
        var objects: [DynamicObject] = []
        objects.reserveCapacity(count)
        for k in 0..<count {
            let name: String = word() + " " + word()
            let age = Int(random.next() % 90)
            var fields: [(String, RecordValue)] = [("id", RecordValue.int(k)), ("name", RecordValue.string(name)), ("age", RecordValue.int(age))]
            if cities { fields.append(("city", RecordValue.string(cityNames[Int(cityRandom.next() % UInt64(cityNames.count))]))) }
            objects.append(DynamicObject(fields: DynamicRecord(fields: fields)))
        }
        return objects
    }

    /// 100 city names of two syllables (`Kalu`), different, in a seeded order.
    static let cities: [String] = {
        var random = SplitMix64(seed: 100)
        var names: [String] = [], seen: Set<String> = []
        while names.count < 100 {
            let text = (0..<2).map { _ in syllables[Int(random.next() % UInt64(syllables.count))] }.joined()
            let name = text.prefix(1).uppercased() + text.dropFirst()
            if seen.insert(name).inserted { names.append(name) }
        }
        return names
    }()

    /// Search words, each starting with another letter (so that a cycle's
    /// first keystroke is not the previous cycle's remembered results).
    static let words = ["anbe", "beca", "dofi", "elga", "fiha", "gain", "hajo", "inka", "joma", "kane", "luor", "mapa"]

    /// One cycle of keys: moves, pages, the ends, a search typed letter by
    /// letter, backspaces, an edit, Enter, moves in the results, a delete
    /// there, Esc, a delete in the whole table.
    static func script(cycle: Int) -> [Key] {
        let word: [Key] = words[cycle % words.count].map { Key.character($0) }
        var keys: [Key] = [.down, .down, .down, .character("j"), .character("k"), .up, .pageDown, .pageDown, .pageDown, .pageUp]
        keys += [.end, .up, .home, .character("/")]
        keys += word
        keys += [.backspace, .backspace, .character("x"), .backspace, word[2], .enter]
        keys += [.down, .down, .pageDown, .character("d"), .escape, .pageDown, .character("d"), .end, .home]
        return keys
    }

    static func display(_ value: RecordValue) -> String {
        if case .string(let text) = value { text } else { JSON.string(value) }
    }

    /// From the records in memory to the first screen drawn, as `browse
    /// people.json` does it (sorted by id, the default): the store, the
    /// controller's fetch, the bound table, the screen. Counters: three
    /// openings sorted by id, three by name.
    static func firstScreen() -> Workload {
        firstScreen(
            name: "browse/first-screen-1M",
            summary: "headless-table browse over 1,000,000 people in memory (sorted by id, the default; 80 × 24): the store, the controller's fetch, the bound table and the first screen, against copying the records (an array of 1,000,000 objects, each retained) and sorting 1,000,000 Ints; the goal is 1 s, absolute",
            cities: false, arguments: ["people.json"],
            counted: [("id", ["people.json"]), ("name", ["--sort", "name", "people.json"])])
    }

    /// The same as `browse people.json --section-key city --sort city` does
    /// it: 100 sections of about 10,000 people each, in the data's order
    /// within a city. Counters: three openings by city, three sorted by city
    /// without sections (what the sections cost over the order), and three by
    /// `--index name` (the English index's sections of the names, sorted by
    /// its collation).
    static func firstScreenSectioned() -> Workload {
        let byCity = ["--section-key", "city", "--sort", "city", "people.json"]
        return firstScreen(
            name: "browse/first-screen-1M-sectioned",
            summary: "headless-table browse --section-key city --sort city over 1,000,000 people in memory (100 cities; 80 × 24): the order, the sections, the model and the first screen, against copying the records (an array of 1,000,000 objects, each retained) and sorting 1,000,000 Ints; counters for --sort city without sections and for --index name too",
            cities: true, arguments: byCity,
            counted: [("city", byCity), ("citySortOnly", ["--sort", "city", "people.json"]), ("index", ["--index", "name", "people.json"])])
    }

    /// A first-screen workload: `browse` with `arguments` over 1M people
    /// (with cities of their own when `cities`). Each sample's browser is
    /// released by the next sample's untimed set-up once its store and search
    /// index are made (its teardown is not the first screen's); for each of `counted`, three
    /// openings give the median's steps, sections, and time on the clock and
    /// on the thread's CPU (which a busy machine disturbs less), each waited
    /// for and released untimed.
    static func firstScreen(name: String, summary: String, cities: Bool, arguments: [String], counted: [(prefix: String, arguments: [String])]) -> Workload {
        Workload(name: name, summary: summary, targets: [Target(against: "copyRecords", atMost: 6)]) {
            let rows = 1_000_000
            let objects = people(rows, cities: cities)
            let ints = (0..<rows).map { ($0 &* 7919) % rows }
            func open(_ arguments: [String]) -> BrowseSession {
                guard let session = try? BrowseSession(arguments: arguments, objects: objects) else {
                    fatalError("the benchmark's browser could not be made")
                }
                session.model.resize(columns: 80, lines: 24)
                blackHole(session.model.screen())
                return session
            }
            // Each sample's browser is kept until the next sample's set-up,
            // which waits for the work its opening started on other threads
            // (the store, the search index) and releases it, untimed: a
            // sample competes with no earlier opening, as a user's first
            // screen does not.
            var last: BrowseSession?
            func setUp() {
                last?.waitForStore()
                last?.model.waitForSearchIndex()
                last = nil
            }
            func subject() { last = open(arguments) }
            var counters: [String: Int] = ["rows": rows]
            for (prefix, arguments) in counted {
                var runs: [(wall: UInt64, cpu: UInt64, timings: BrowseTimings, sections: Int)] = []
                for _ in 0..<3 {
                    let (wall, cpu) = (_Monotonic.nanoseconds(), threadCPUNanoseconds())
                    let session = open(arguments)
                    runs.append((_Monotonic.nanoseconds() - wall, threadCPUNanoseconds() - cpu, session.timings, session.model.sectionCounts.count))
                    session.waitForStore()
                    session.model.waitForSearchIndex()
                }
                let median = runs.sorted { $0.wall < $1.wall }[1]
                counters["\(prefix)Sections"] = median.sections
                counters["\(prefix)FirstScreenMicros"] = Int(median.wall / 1000)
                counters["\(prefix)FirstScreenThreadCPUMicros"] = Int(runs.map(\.cpu).sorted()[1] / 1000)
                counters["\(prefix)StoreMicros"] = Int(median.timings.store * 1e6)
                counters["\(prefix)FetchMicros"] = Int(median.timings.fetch * 1e6)
                counters["\(prefix)ModelMicros"] = Int(median.timings.model * 1e6)
            }
            return Prepared(
                subject: subject,
                baselines: [
                    Baseline(name: "copyRecords", run: { blackHole(objects.map { $0 }) }, maxSamples: 5),
                    Baseline(name: "sortInts", run: { blackHole(ints.sorted()) }, maxSamples: 5),
                ],
                counters: counters,
                maxSamples: 5,
                setUp: setUp)
        }
    }

    static func keys() -> Workload {
        Workload(
            name: "browse/keys-1M",
            summary: "headless-table browse's model over 1,000,000 people (sorted by name, 80 × 24): one key of a scripted sequence (moves, pages, End/Home, a search typed letter by letter, backspaces, Esc, deletes) handled and its screen drawn, against drawing a window of the same size with TextRenderer alone and against one keystroke of the old search (the predicate over every object)",
            targets: [Target(against: "drawWindow", atMost: 50)]
        ) {
            let rows = 1_000_000
            let objects = people(rows)
            // From the data read to the first screen, as `browse` does it:
            // the store, the controller's fetch (sorted by name), the bound
            // table, the screen.
            let start = Date()
            guard let session = try? BrowseSession(arguments: ["--sort", "name", "--detail", "age", "people.json"], objects: objects) else {
                fatalError("the benchmark's browser could not be made")
            }
            let model = session.model
            model.resize(columns: 80, lines: 24)
            blackHole(model.screen())
            let firstScreen = Date().timeIntervalSince(start)
            // The keys are timed once the search's index is made.
            model.waitForSearchIndex()
            session.waitForStore()
            let searchIndex = Date().timeIntervalSince(start) - firstScreen

            var cycle = 0
            var script = script(cycle: 0)
            var next = 0
            func press() {
                if next == script.count {
                    cycle += 1
                    script = Self.script(cycle: cycle)
                    next = 0
                }
                model.handle(script[next])
                next += 1
                blackHole(model.screen())
            }
            // Two cycles timed here, key by key, for the counters.
            var times: [Double] = []
            var searchTimes: [Double] = []
            for _ in 0..<(2 * script.count) {
                let typing = model.typing
                let t = Date()
                press()
                let elapsed = Date().timeIntervalSince(t) * 1e6
                times.append(elapsed)
                if typing { searchTimes.append(elapsed) }
            }
            times.sort()
            searchTimes.sort()
            func percentile(_ values: [Double], _ p: Double) -> Int {
                values.isEmpty ? 0 : Int(values[Swift.min(values.count - 1, Int(Double(values.count - 1) * p))].rounded())
            }

            // Baselines: the same window drawn by TextRenderer alone; the old
            // search's keystroke (the predicate over every object).
            let renderer = try? TextRenderer(width: 80, pointsPerLine: 1)
            let window = TableFrame(
                viewportHeight: 22, contentHeight: Double(rows),
                elements: objects.prefix(22).enumerated().map { k, object in
                    TableFrame.Element(
                        kind: .row(TablePath(row: k, section: 0)), span: .init(y: Double(k), height: 1),
                        cell: .init(text: object.fields["name"].map(display), detailText: object.fields["age"].map(display), isSelected: k == 0))
                })
            let predicate = try? FormatPredicate(format: "name CONTAINS[cd] %@", arguments: ["an"]).compiled(for: DynamicObject.self)
            return Prepared(
                subject: press,
                baselines: [
                    Baseline(name: "drawWindow", run: { blackHole(renderer?.text(for: window)) }, maxSamples: 400),
                    Baseline(name: "predicateScan", run: {
                        blackHole(objects.filter { (try? predicate?.evaluate($0, variables: [:])) == true }.count)
                    }, maxSamples: 5),
                ],
                counters: [
                    "rows": rows, "keysPerCycle": script.count,
                    "firstScreenMicros": Int(firstScreen * 1e6),
                    "firstScreenStoreMicros": Int(session.timings.store * 1e6),
                    "firstScreenFetchMicros": Int(session.timings.fetch * 1e6),
                    "firstScreenModelMicros": Int(session.timings.model * 1e6),
                    "storeAndSearchReadyAfterFirstScreenMicros": Int(searchIndex * 1e6),
                    "perKeyMedianMicros": percentile(times, 0.5), "perKeyP99Micros": percentile(times, 0.99),
                    "perKeyMaxMicros": percentile(times, 1),
                    "searchKeyMedianMicros": percentile(searchTimes, 0.5), "searchKeyMaxMicros": percentile(searchTimes, 1),
                ],
                maxSamples: 400)
        }
    }
}
