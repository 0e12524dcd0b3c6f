import Foundation
import HeadlessTable

/// The launch of an app over its own database (public API only): a
/// persistence that serves a snapshot as rows are shown
/// (`StoreContents.snapshot`), against one that loads every object when the
/// store opens — the same million people, held in memory by the benchmark,
/// so that what is measured is the store's work, not a database's.
enum ServedLaunch {
    /// The people as a database would keep them: in first-insertion order,
    /// and the order of the index on name.
    final class Kept: @unchecked Sendable {
        let records: [StoredRecord<Person>]
        let byName: [StoreIndexEntry<Int>]
        let nameKinds: [StoreKeyKinds]

        init(_ count: Int) {
            let records = People.make(count).enumerated().map { StoredRecord(record: $1, sequence: Int64($0 + 1), version: 1) }
            self.records = records
            do {
                let index = try EntityDescription.indexOrder(["name"], of: records)
                byName = index.positions.map { StoreIndexEntry(ordinal: $0, id: records[$0].record.id) }
                nameKinds = index.keyKinds
            } catch {
                fatalError("the index on name: \(error)")
            }
        }
    }

    /// The people's snapshot, served: records by ordinal, an ordinal by
    /// identity (identities are 0..<count, at their ordinals), the index.
    final class Served: StoreSnapshotEntity, @unchecked Sendable {
        let people: Kept
        let servesKinds: Bool
        init(_ people: Kept, servesKinds: Bool) {
            self.people = people
            self.servesKinds = servesKinds
        }

        var count: Int { people.records.count }
        var indexes: [[String]] { [["name"]] }

        func records<R: Record & Codable>(_ ordinals: Range<Int>, as type: R.Type) throws(StoreError) -> [StoredRecord<R>] where R.ID: Codable {
            guard let records = Array(people.records[ordinals]) as? [StoredRecord<R>] else { throw .corrupt(path: "the benchmark", reason: "not people") }
            return records
        }

        func ordinal<R: Record & Codable>(of id: R.ID, as type: R.Type) throws(StoreError) -> Int? where R.ID: Codable {
            guard let id = id as? Int, people.records.indices.contains(id) else { return nil }
            return id
        }

        func indexEntries<R: Record & Codable>(ofIndex k: Int, _ positions: Range<Int>, as type: R.Type) throws(StoreError) -> [StoreIndexEntry<R.ID>]
        where R.ID: Codable {
            guard let entries = Array(people.byName[positions]) as? [StoreIndexEntry<R.ID>] else { throw .corrupt(path: "the benchmark", reason: "not people") }
            return entries
        }

        func keyKinds(ofIndex k: Int) -> [StoreKeyKinds]? { servesKinds ? people.nameKinds : nil }
    }

    /// A persistence of the people that nobody else writes: serving them, or
    /// loading them all.
    final class Persistence: StorePersistence, @unchecked Sendable {
        let people: Kept
        let serves: Bool
        let servesKinds: Bool
        init(_ people: Kept, serves: Bool, servesKinds: Bool = true) {
            self.people = people
            self.serves = serves
            self.servesKinds = servesKinds
        }

        func load(model: ObjectModel) throws(StoreError) -> StoreContents {
            guard serves else {
                let objects = people.records.map { StoredObject(entityName: "Person", record: $0.record, sequence: $0.sequence, version: $0.version) }
                return StoreContents(objects: objects, version: 1, nextSequence: Int64(people.records.count + 1))
            }
            return StoreContents(snapshot: ["Person": Served(people, servesKinds: servesKinds)], version: 1, nextSequence: Int64(people.records.count + 1))
        }

        func changesSinceLastRead() throws(StoreError) -> ExternalChanges { .none }
        func commit(_ prepare: (ExternalChanges) throws(StoreError) -> StoreChangeSet?) throws(StoreError) { _ = try prepare(.none) }
    }

    /// Opens a store over the people, fetches sorted by name (batch size
    /// 50), binds a table of 24 lines and draws the first frame; returns it.
    static func firstScreen(_ people: Kept, serves: Bool) throws -> String {
        let store = try ObjectStore(model: Launch.model, persistence: Persistence(people, serves: serves))
        let controller = FetchedResultsController(fetchRequest: Launch.byName(), context: ObjectContext(store: store))
        try controller.performFetch()
        let (table, binding) = try Launch.screen(of: controller)
        let screen = try TextRenderer(width: 80, pointsPerLine: 1).text(for: table.currentFrame)
        withExtendedLifetime(binding) {}
        return screen
    }

    /// Two workloads at a million people: one, and the baseline it must stay
    /// within `atMost` of (`first` says which a sample prepares).
    static func pair(
        _ names: (String, baseline: String), _ summaries: (String, baseline: String), atMost: Double, _ samples: @escaping (_ first: Bool) -> EmbedderSamples
    ) -> [EmbedderWorkload] {
        [true, false].map { first in
            var workload = EmbedderWorkload(
                name: first ? names.0 : names.baseline, summary: (first ? summaries.0 : summaries.baseline) + " — 1000000 people, public API only",
                smallerCounterpart: nil, maxSamples: 5
            ) { samples(first) }
            if first { workload.targets = [(names.baseline, atMost)] }
            return workload
        }
    }

    /// The launch served against loading everything (at most a quarter), and
    /// a predicate's range of the served index against every record (at most
    /// a fifth).
    static var workloads: [EmbedderWorkload] {
        let count = 1_000_000
        let launches = pair(
            ("embed/served-launch-1M", "embed/loaded-launch-1M"),
            ("your own persistence serving a snapshot as rows are shown: the store opened, performFetch sorted by the served index on name (batch size 50), a 24-line table bound, the first frame drawn",
             "the same, the persistence loading every object when the store opens (the baseline)"),
            atMost: 0.25
        ) { serves in
            let people = Kept(count)
            var screens: [String] = []
            return EmbedderSamples(
                setUp: { screens.removeAll() },
                action: {
                    do { screens.append(try firstScreen(people, serves: serves)) } catch { fatalError("a launch over the benchmark's persistence: \(error)") }
                },
                counters: ["people": count])
        }
        let ranges = pair(
            ("embed/served-range-1M", "embed/served-range-unbounded-1M"),
            ("a fetch sorted by name (batch size 50) with the predicate name >= 'Mi' AND name < 'Mj', over a served snapshot with its keys' kinds: the range of the index, found by binary search",
             "the same without the kinds (the baseline): every entry of the index read and its record tested"),
            atMost: 0.2
        ) { kinds in
            let store: ObjectStore
            do { store = try ObjectStore(model: Launch.model, persistence: Persistence(Kept(count), serves: true, servesKinds: kinds)) } catch { fatalError("a store over the benchmark's persistence: \(error)") }
            var matches = 0
            return EmbedderSamples(
                setUp: nil,
                action: {
                    do { matches = try Launch.fetchCount(store, predicate: "name >= 'Mi' AND name < 'Mj'") } catch { fatalError("the range's fetch: \(error)") }
                    withExtendedLifetime(matches) {}
                },
                counters: ["people": count])
        }
        return launches + ranges
    }
}
