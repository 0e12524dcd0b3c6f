import Foundation
import HeadlessTable

/// Relationships: a predicate through a to-one relationship over a million
/// objects, against the same predicate on a copy of the objects with the
/// related value inlined.
enum GraphWorkloads {
    static var all: [Workload] { [toOnePredicate()] }

    struct Entry: Record, Codable {
        var id: Int
        var month: Int
        static let recordKeys: RecordKeys<Entry> = ["id": RecordKey(\.id), "month": RecordKey(\.month)]
    }

    struct Medium: Record, Codable {
        var id: Int
        var kb: Int
        var entry: Entry.ID?
        static let recordKeys: RecordKeys<Medium> = ["id": RecordKey(\.id), "kb": RecordKey(\.kb)]
    }

    /// A medium with its entry's month copied in.
    struct InlinedMedium: Record, Codable {
        var id: Int
        var kb: Int
        var month: Int
        static let recordKeys: RecordKeys<InlinedMedium> = ["id": RecordKey(\.id), "kb": RecordKey(\.kb), "month": RecordKey(\.month)]
    }

    static let media = 1_000_000
    static let entries = 10_000

    static func toOnePredicate() -> Workload {
        Workload(
            name: "graph/to-one-predicate-1M",
            summary: "entry.month == 3 AND kb > 10 over 1,000,000 media of 10,000 entries, against month == 3 AND kb > 10 on a copy with the month inlined",
            targets: [Target(against: "inlined", atMost: 2)]
        ) {
            var g = SplitMix64(seed: 28)
            let months = (0..<entries).map { _ in Int(g.next() % 12) + 1 }
            let linked, inlined: ObjectContext
            do {
                let model = try ObjectModel(
                    .entity(Entry.self),
                    .entity(Medium.self, relationships: [.toOne("entry", \.entry, to: Entry.self)]))
                linked = ObjectContext(store: ObjectStore(model: model))
                inlined = ObjectContext(store: ObjectStore(for: InlinedMedium.self))
                for (id, month) in months.enumerated() { try linked.insert(Entry(id: id, month: month)) }
                for id in 0..<media {
                    let entry = Int(g.next() % UInt64(entries)), kb = Int(g.next() % 100)
                    try linked.insert(Medium(id: id, kb: kb, entry: entry))
                    try inlined.insert(InlinedMedium(id: id, kb: kb, month: months[entry]))
                }
                try linked.save()
                try inlined.save()
            } catch {
                fatalError("graph/to-one-predicate-1M: \(error)")
            }
            let through = FetchRequest<Medium>(predicate: try? RecordPredicate(format: "entry.month == 3 AND kb > 10"))
            let copied = FetchRequest<InlinedMedium>(predicate: try? RecordPredicate(format: "month == 3 AND kb > 10"))
            func count<R: Record & Codable>(_ context: ObjectContext, _ request: FetchRequest<R>) -> Int { (try? context.fetch(request).count) ?? -1 }
            return Prepared(
                subject: { blackHole(count(linked, through)) },
                baselines: [Baseline(name: "inlined", run: { blackHole(count(inlined, copied)) }, maxSamples: 5)],
                counters: ["media": media, "entries": entries, "matches": count(linked, through), "inlinedMatches": count(inlined, copied)],
                maxSamples: 5)
        }
    }
}
