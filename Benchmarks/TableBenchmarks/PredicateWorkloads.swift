import Foundation
import HeadlessTable

/// The predicate language: evaluating a compiled format predicate over a
/// million records against a hand-written closure and Foundation's
/// `#Predicate`, and parsing a 1 KB format string.
enum PredicateWorkloads {
    static var all: [Workload] { [evaluate(), parse()] }

    struct Member: Record, Sendable {
        var id: Int
        var name: String
        var age: Int

        static let recordKeys: RecordKeys<Member> = ["name": RecordKey(\.name), "age": RecordKey(\.age)]
    }

    /// A million members; a fifth of the names have letters beyond ASCII.
    static func members(_ count: Int) -> [Member] {
        let first = ["Anna", "Ben", "Carla", "Dmitri", "Eva", "Farid", "Gary", "Hana", "Ivo", "José", "Zoë", "Åsa", "Émile", "Jürgen", "Iñés"]
        let last = ["García", "Garner", "Smith", "Müller", "Ødegaard", "Nakamura", "Okafor", "Rossi", "Tanaka", "Vargas", "Lee", "Brown"]
        var g = SplitMix64(seed: 7)
        return (0..<count).map { id in
            Member(id: id, name: first[Int(g.next() % UInt64(first.count))] + " " + last[Int(g.next() % UInt64(last.count))], age: Int(g.next() % 80))
        }
    }

    static let needle = "gar"

    /// The same condition by hand: Foundation's case- and diacritic-insensitive search.
    @inline(never)
    static func handWritten(_ m: Member) -> Bool {
        m.name.range(of: needle, options: [.caseInsensitive, .diacriticInsensitive]) != nil && m.age >= 20 && m.age <= 40
    }

    static func evaluate() -> Workload {
        Workload(
            name: "predicate/evaluate-1M",
            summary: "name CONTAINS[cd] %@ AND age BETWEEN {20, 40}, compiled, over 1,000,000 records",
            targets: [Target(against: "handWritten", atMost: 2)]
        ) {
            let everyone = members(1_000_000)
            let compiled = try? FormatPredicate("name CONTAINS[cd] %@ AND age BETWEEN {20, 40}", needle).compiled(for: Member.self)
            let needle = needle
            // Foundation's Predicate on Linux has no case- or diacritic-insensitive
            // search: the closest it can evaluate is a plain contains. It needs
            // macOS 14 / iOS 17: on older systems that baseline is skipped.
            var foundation: Baseline
            if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
                let predicate = #Predicate<Member> { $0.name.contains(needle) && $0.age >= 20 && $0.age <= 40 }
                foundation = Baseline(name: "foundationPredicatePlainContains", run: { blackHole(everyone.reduce(0) { $0 + ((try? predicate.evaluate($1)) == true ? 1 : 0) }) }, maxSamples: 5)
            } else {
                foundation = Baseline(name: "foundationPredicatePlainContains", run: nil, skipped: "Foundation's Predicate needs macOS 14 / iOS 17")
            }
            func count(_ test: (Member) -> Bool) -> Int { everyone.reduce(0) { $0 + (test($1) ? 1 : 0) } }
            let matches = count { (try? compiled?($0)) == true }
            return Prepared(
                subject: { blackHole(count { (try? compiled?($0)) == true }) },
                baselines: [
                    Baseline(name: "handWritten", run: { blackHole(count(handWritten)) }, maxSamples: 5),
                    foundation,
                ],
                counters: ["records": everyone.count, "matches": matches, "handWrittenMatches": count(handWritten)],
                maxSamples: 10)
        }
    }

    /// A 1 KB format string: ORs of comparisons of every kind.
    static let kilobyte: String = {
        let parts = [
            "name BEGINSWITH[cd] 'anna'", "age BETWEEN {20, 40}", "ANY tags IN {'swift', 'go', 'rust'}",
            "address.city ==[c] 'München'", "SUBQUERY(friends, $f, $f.age > 30).@count >= 2", "score * 2 + 1 > 3.5e2",
            "NOT (nickname == nil OR nickname LIKE '*x?z')", "created < CAST(700000000, 'NSDate')", "tags[FIRST] != \"ob'scure\"",
            "count(tags) <= max({1, 2, 3})",
        ]
        var text = ""
        var k = 0
        while text.utf8.count < 1_000 {
            text += (text.isEmpty ? "" : " OR ") + "(" + parts[k % parts.count] + ")"
            k += 1
        }
        return text
    }()

    static func parse() -> Workload {
        Workload(name: "predicate/parse-1KB", summary: "parsing a \(kilobyte.utf8.count)-byte format string (every kind of comparison)") {
            Prepared(
                subject: { blackHole(try? FormatPredicate(format: kilobyte)) },
                counters: ["bytes": kilobyte.utf8.count, "comparisons": kilobyte.components(separatedBy: " OR ").count])
        }
    }
}
