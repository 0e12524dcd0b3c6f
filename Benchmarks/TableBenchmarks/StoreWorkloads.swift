import Foundation
import HeadlessTable

/// The store's file: a one-record save into a store of 1M records against the
/// same save into 10k records and into memory, and reopening 1M records
/// against parsing the same records as a plain JSON file.
enum StoreWorkloads {
    static var all: [Workload] { [save1(), reopen()] }

    typealias Person = FetchWorkloads.Person

    static func folder() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("store-benchmark-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A file store of `people`, saved once and compacted (a snapshot, an empty journal).
    static func fileStore(_ people: [Person], at url: URL) -> ObjectStore {
        do {
            let store = try ObjectStore(for: Person.self, fileURL: url)
            let context = ObjectContext(store: store)
            for person in people { try context.insert(person) }
            try context.save()
            try store.compact()
            return store
        } catch {
            fatalError("store benchmark: \(error)")
        }
    }

    /// Saves one changed record each time it runs.
    static func saver(_ store: ObjectStore, count: Int, seed: UInt64) -> () -> Void {
        let context = ObjectContext(store: store)
        var g = SplitMix64(seed: seed)
        var round = 0
        return {
            round += 1
            guard var person = try? context.object(Person.self, id: Int(g.next() % UInt64(count))) else { return }
            person.notes = "edited \(round)"
            try? context.update(person)
            do { try context.save() } catch { fatalError("store benchmark: \(error)") }
        }
    }

    static func save1() -> Workload {
        Workload(
            name: "store/save-1-into-1M-file",
            summary: "a save of 1 changed record into a file store of 1,000,000 records (appended to the journal, flushed to the disk)",
            targets: [Target(against: "into10kFile", atMost: 2), Target(against: "intoMemory", atMost: 10)]
        ) {
            let root = folder()
            let big = fileStore(FetchWorkloads.people(1_000_000), at: root.appendingPathComponent("1M.htstore"))
            let small = fileStore(FetchWorkloads.people(10_000), at: root.appendingPathComponent("10k.htstore"))
            let memory = ObjectStore(for: Person.self)
            let memoryContext = ObjectContext(store: memory)
            for person in FetchWorkloads.people(1_000_000) { try? memoryContext.insert(person) }
            _ = try? memoryContext.save()
            return Prepared(
                subject: saver(big, count: 1_000_000, seed: 1),
                baselines: [
                    Baseline(name: "into10kFile", run: saver(small, count: 10_000, seed: 2), maxSamples: 50),
                    Baseline(name: "intoMemory", run: saver(memory, count: 1_000_000, seed: 3), maxSamples: 50),
                ],
                counters: ["records": big.count],
                maxSamples: 50)
        }
    }

    static func reopen() -> Workload {
        Workload(
            name: "store/reopen-1M",
            summary: "opening a file store of 1,000,000 records (checksums checked, records decoded)",
            targets: [Target(against: "parsePlainJSON", atMost: 1.5)]
        ) {
            let root = folder()
            let people = FetchWorkloads.people(1_000_000)
            let url = root.appendingPathComponent("1M.htstore")
            _ = fileStore(people, at: url)
            let jsonURL = root.appendingPathComponent("1M.json")
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .secondsSince1970
            try? encoder.encode(people).write(to: jsonURL)
            let size = { (url: URL) in ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.intValue ?? 0 }
            return Prepared(
                subject: { blackHole((try? ObjectStore(for: Person.self, fileURL: url))?.count) },
                baselines: [
                    Baseline(name: "parsePlainJSON", run: { blackHole(try? JSON.parse(Data(contentsOf: jsonURL))) }, maxSamples: 5)
                ],
                counters: ["records": people.count, "storeBytes": size(url), "jsonBytes": size(jsonURL)],
                maxSamples: 5)
        }
    }
}
