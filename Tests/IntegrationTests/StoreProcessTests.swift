import FetchedResults
import Foundation
#if canImport(Darwin)
import Darwin   // kill: the tests stop and kill their writer
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("the store's process tests need a POSIX C library: Darwin, Glibc or Musl")
#endif
import TableTestSupport
import Testing

/// The store across processes: writers killed mid-save (`store-crash-writer`,
/// stopped and killed at random moments) and two processes saving into one
/// file. Process-level: run by `.ci/run`, skipped by a plain `swift test`.
@Suite(.enabled(if: TestScale.isFull, TestScale.integrationNote))
struct StoreProcessTests {
    let folder = TemporaryFolder("store-process-tests")
    func temporaryURL(_ name: String = "store.json") -> URL { folder.url.appendingPathComponent(name) }

    /// A writer killed at random moments mid-save never leaves a damaged store:
    /// reopening gives one whole version of every row.
    @Test func aWriterKilledMidSaveLeavesAWholeStore() throws {
        let writer = try BuiltExecutable.url("store-crash-writer")
        let url = temporaryURL()
        let rows = 5_000
        var versionsSeen = Set<Int>()
        var killedMidWrite = 0
        let temporaryFile = { (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path))?.contains { $0.hasSuffix(".tmp") } ?? false }
        // Odd rounds kill at a random moment; even rounds freeze the writer at
        // random moments until it is caught writing the file, and kill it there.
        for rounds in 1...8 {
            let process = Process()
            process.executableURL = writer
            process.arguments = [url.path, "\(rows)"]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            // Wait until it has saved once in this run.
            var output = Data()
            let deadline = Date().addingTimeInterval(60)
            while !output.contains(UInt8(ascii: "\n")) && Date() < deadline && process.isRunning {
                output.append(pipe.fileHandleForReading.availableData)
            }
            if rounds % 2 == 1 {
                usleep(UInt32.random(in: 0...600_000))
            } else {
                // (Up to a minute: under the thread sanitizer, on a loaded
                // machine, 20 s once went by without catching it.)
                let giveUp = Date().addingTimeInterval(60)
                while Date() < giveUp {
                    usleep(UInt32.random(in: 0...5_000))
                    kill(process.processIdentifier, SIGSTOP)
                    if temporaryFile() { break }
                    kill(process.processIdentifier, SIGCONT)
                }
            }
            if temporaryFile() { killedMidWrite += 1 }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            expectEqual(process.terminationReason, .uncaughtSignal, "round \(rounds): the writer exited by itself")

            let store = try ObjectStore(for: VersionedRow.self, fileURL: url)
            let all = store.objects(VersionedRow.self)
            expectEqual(all.count, rows, "round \(rounds)")
            let versions = Set(all.map(\.version))
            expectEqual(versions.count, 1, "round \(rounds): rows of several versions \(versions.sorted())")
            #expect(all.allSatisfy { $0.text == "row \($0.id) — version \($0.version) ✓" })
            versionsSeen.formUnion(versions)
            // Opening removed the dead writer's temporary file.
            try expectEqual(FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path), ["store.json"])
        }
        #expect(killedMidWrite >= 4, "only \(killedMidWrite) kills landed while a file was being written")
        #expect(versionsSeen.count > 1, "the writer never got past its first save")
    }

    /// A writer killed at random moments while it saves pairs of rows: every
    /// pair it acknowledged is in the store, and no pair is there by half.
    @Test func killedWritersLoseNoAcknowledgedSaveAndApplyNoPartialOne() throws {
        let writer = try BuiltExecutable.url("store-crash-writer")
        let url = temporaryURL()
        var g = SeededGenerator(seed: 200)
        var torn = 0
        for trial in 0..<200 {
            let process = Process()
            process.executableURL = writer
            process.arguments = [url.path, "--pairs"]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            usleep(UInt32.random(in: 2_000...40_000, using: &g))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let acks = printed.split(separator: "\n").compactMap { Int($0) }
            let store = try ObjectStore(for: VersionedRow.self, fileURL: url)
            torn += store.recoveries.count
            let ids = Set(store.objects(VersionedRow.self).map(\.id))
            for n in acks { #expect(ids.contains(2 * n) && ids.contains(2 * n + 1), "trial \(trial): acknowledged pair \(n) is missing") }
            for id in ids { #expect(ids.contains(id ^ 1), "trial \(trial): half of pair \(id / 2)") }
        }
        print("200 kills, \(torn) torn saves dropped")
    }

    /// Two processes save 1,000 times each into one file at the same time:
    /// every save is there at the end.
    @Test func twoProcessesSavingIntoOneFileLoseNothing() throws {
        let writer = try BuiltExecutable.url("store-crash-writer")
        let url = temporaryURL()
        let processes = try (1...2).map { tag in
            let process = Process()
            process.executableURL = writer
            process.arguments = [url.path, "--share", "\(tag)", "1000"]
            process.standardOutput = Pipe()
            try process.run()
            return process
        }
        for process in processes {
            process.waitUntilExit()
            expectEqual(process.terminationStatus, 0)
        }
        let store = try ObjectStore(for: VersionedRow.self, fileURL: url)
        let ids = Set(store.objects(VersionedRow.self).map(\.id))
        expectEqual(ids, Set((0..<1000).map { 1_000_000 + $0 } + (0..<1000).map { 2_000_000 + $0 }))
        expectEqual(store.version, 2_000)
    }
}
