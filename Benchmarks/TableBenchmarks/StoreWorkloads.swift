import EmbedderBenchmarks
import Foundation
import HeadlessTable
#if canImport(Darwin)
import Darwin   // getrusage
#elseif canImport(Glibc)
import Glibc
#endif

/// The store's file: a one-record save into a store of 1M records against the
/// same save into 10k records and into memory, reopening 1M records
/// against parsing the same records as a plain JSON file, the launch (a
/// fresh process to the first frame) beside SQLite's, and a predicate's
/// range of an index.
enum StoreWorkloads {
    static var all: [Workload] { [save1(), reopen(), launch(1_000_000), launch(10_000_000), rangeOfAnIndex(), searchIndexOfAFile()] }

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

    // MARK: Launch

    /// `Benchmarks/launch-sqlite.py`, next to this folder.
    static var sqliteScript: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("launch-sqlite.py").path
    }

    /// The launch's inputs, made once and kept in the temporary folder (a
    /// 10M store takes minutes to make): the file store (an index on name)
    /// and the same people in SQLite (an index on name).
    static func launchFiles(_ count: Int) -> (store: URL, sqlite: String) {
        let tag = count >= 1_000_000 ? "\(count / 1_000_000)M" : "\(count)"
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("headless-table-launch-\(tag)-v3.htstore")
        let sqlite = FileManager.default.temporaryDirectory.appendingPathComponent("headless-table-launch-\(tag).sqlite").path
        if !FileManager.default.fileExists(atPath: store.path) {
            do { try Launch.makeStore(at: store, count: count) } catch { fatalError("the launch store: \(error)") }
        }
        if !FileManager.default.fileExists(atPath: sqlite) { _ = run(["python3", sqliteScript, "make", sqlite, String(count)]) }
        return (store, sqlite)
    }

    /// Runs a command to its end; returns its output.
    @discardableResult
    static func run(_ arguments: [String]) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { fatalError("cannot run \(arguments): \(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The numbers a launch printed (JSON).
    static func figures(_ output: String) -> [String: Double] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] else { return [:] }
        return object.compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }

    /// The launch: from a fresh process (this executable with
    /// `--launch`) to the first frame of a table bound to a controller
    /// sorted by name (batch size 50, a cache name), against python's
    /// `sqlite3` reading every row id in name order from an index, then the
    /// first batch. Both from spawn to exit.
    static func launch(_ count: Int) -> Workload {
        let tag = count >= 1_000_000 ? "\(count / 1_000_000)M" : "\(count)"
        return Workload(
            name: "store/launch-\(tag)",
            summary: "from a fresh process to the first frame: a file store of \(count) people (an index on name) opened, fetched by name with a batch size, bound, drawn — against SQLite's ids by name and the first batch",
            targets: count <= 1_000_000 ? [Target(against: "sqlite", atMost: 1)] : []
        ) {
            let (store, sqlite) = launchFiles(count)
            let executable = Bundle.main.executableURL?.path ?? CommandLine.arguments[0]
            // One of each first, for their figures (phases, peak memory).
            let ours = figures(run([executable, "--launch", store.path]))
            let theirs = figures(run(["python3", sqliteScript, "launch", sqlite]))
            let size = ((try? FileManager.default.attributesOfItem(atPath: store.path)[.size]) as? NSNumber)?.intValue ?? 0
            let sqliteSize = ((try? FileManager.default.attributesOfItem(atPath: sqlite)[.size]) as? NSNumber)?.intValue ?? 0
            return Prepared(
                subject: { run([executable, "--launch", store.path]) },
                baselines: [Baseline(name: "sqlite", run: { run(["python3", sqliteScript, "launch", sqlite]) }, maxSamples: 5)],
                counters: [
                    "people": count, "storeBytes": size, "sqliteBytes": sqliteSize,
                    "openMicros": Int((ours["open"] ?? -1) * 1000), "fetchMicros": Int((ours["fetch"] ?? -1) * 1000),
                    "frameMicros": Int((ours["frame"] ?? -1) * 1000), "peakKiB": Int(ours["peakKiB"] ?? -1),
                    "sqliteFetchMicros": Int((theirs["fetch"] ?? -1) * 1000), "sqlitePeakKiB": Int(theirs["peakKiB"] ?? -1),
                ],
                maxSamples: 5)
        }
    }

    /// A predicate on the indexed key of the launch's store of 1M people:
    /// the names from "Mi" up to "Mj" read as a range of the index (found
    /// by binary search; no record decoded), against the same range with a
    /// test of another key after it (each record in the range decoded and
    /// tested), and the same names picked by `BEGINSWITH`, which no range
    /// covers (every record decoded and tested). Each fetched sorted by
    /// name, batch size 50.
    static func rangeOfAnIndex() -> Workload {
        Workload(
            name: "store/range-of-an-index-1M",
            summary: "a fetch of the names from \"Mi\" to \"Mj\" of a file store of 1,000,000 people (an index on name): a range of the index, against the same names by BEGINSWITH (every record read)",
            targets: [Target(against: "everyRecord", atMost: 0.2)]
        ) {
            let store = launchStore1M()
            let range = "name >= 'Mi' AND name < 'Mj'", tested = range + " AND id >= 0", every = "name BEGINSWITH 'Mi'"
            func count(_ format: String) -> Int {
                do { return try Launch.fetchCount(store, predicate: format) } catch { fatalError("range benchmark: \(error)") }
            }
            let rows = count(range)
            let others = [count(tested), count(every)]
            guard others == [rows, rows], rows > 0 else { fatalError("range benchmark: the predicates pick different people: \(rows), \(others)") }
            return Prepared(
                subject: { blackHole(count(range)) },
                baselines: [
                    Baseline(name: "rangeTested", run: { blackHole(count(tested)) }, maxSamples: 10),
                    Baseline(name: "everyRecord", run: { blackHole(count(every)) }, maxSamples: 5),
                ],
                counters: ["people": store.count, "matches": rows],
                maxSamples: 20)
        }
    }

    /// The 1M launch store (made on first use), opened.
    static func launchStore1M() -> ObjectStore {
        do {
            return try ObjectStore(model: Launch.model, fileURL: launchFiles(1_000_000).store)
        } catch {
            fatalError("the launch store cannot be opened: \(error)")
        }
    }

    static func searchIndexOfAFile() -> Workload {
        Workload(
            name: "store/search-index-1M",
            summary: "a search by name over a file store of 1,000,000 people, sorted by name (an index on name, batch size 50): its index of folded names made, against a fetch that reads and tests every record (name BEGINSWITH 'Mi')",
            targets: [Target(against: "everyRecord", atMost: 2)]
        ) {
            let store = launchStore1M()
            return Prepared(
                subject: {
                    do {
                        guard try Launch.searchIndexMade(store) else { fatalError("search index benchmark: no index within two minutes") }
                    } catch {
                        fatalError("search index benchmark: \(error)")
                    }
                },
                baselines: [
                    Baseline(name: "everyRecord", run: { blackHole((try? Launch.fetchCount(store, predicate: "name BEGINSWITH 'Mi'")) ?? -1) }, maxSamples: 3)
                ],
                counters: ["people": store.count],
                maxSamples: 3)
        }
    }

    /// This process's peak resident memory, in KiB (-1 when it cannot be
    /// read). On Darwin from `getrusage`; elsewhere from `/proc/self/status`
    /// (`VmHWM`, this program's own: Linux's `ru_maxrss` keeps the peak of
    /// the process before `exec`, here the benchmark that spawned it with a
    /// million people in memory).
    static func peakResidentKiB() -> Int {
        #if canImport(Darwin)
        var usage = rusage()
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss) / 1024   // bytes on Darwin
        #else
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let field = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first,
            let kib = Int(field)
        else { return -1 }
        return kib
        #endif
    }

    /// The launch itself, in the child: figures as JSON, then out.
    static func launchChild(_ path: String) -> Int32 {
        let start = DispatchTime.now()
        do {
            let figures = try Launch.run(URL(fileURLWithPath: path), since: start)
            let peak = peakResidentKiB()
            let line = "{\"open\": \(figures.open), \"fetch\": \(figures.fetch), \"frame\": \(figures.frame), \"rows\": \(figures.rows), \"peakKiB\": \(peak)}\n"
            FileHandle.standardOutput.write(Data(line.utf8))
            return 0
        } catch {
            FileHandle.standardError.write(Data("launch: \(error)\n".utf8))
            return 1
        }
    }
}
