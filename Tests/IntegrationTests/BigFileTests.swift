import Foundation
import HeadlessTable
@testable import HeadlessTableTool
import TableTestSupport
import Testing
import ToolArguments

/// python3 on the PATH, if there is one.
let pythonForTheGenerator: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    .split(separator: ":").map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }

/// The big-file benchmark's generator (`Benchmarks/big-file.py`) at a CI size:
/// the tool reads what it writes with the results of the old path — the
/// whole file read by `JSON.parse`, objects inserted through a context and
/// saved, rows keeping their whole objects.
@Suite(.enabled(if: TestScale.isFull, TestScale.integrationNote), .enabled(if: pythonForTheGenerator != nil, "needs python3 for the benchmark's generator"))
struct BigFileTests {
    static let python = pythonForTheGenerator

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Benchmarks/big-file.py").path

    /// Generates a file of `objects` objects (NEW's changes with `changed`).
    static func generate(_ path: String, objects: Int, changed: Bool = false) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(python))
        process.arguments = [script, "generate", "--objects", "\(objects)", "--seed", "7"] + (changed ? ["--changed"] : []) + [path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        expectEqual(process.terminationStatus, 0)
    }

    /// The objects of the file, read whole by the old reader.
    static func tree(_ path: String) throws -> [RecordValue] {
        try #require(try JSON.parse(Data(contentsOf: URL(fileURLWithPath: path))).asArray)
    }

    /// What `query` printed before: the store filled through a context, the
    /// fetch or the controller, the output written line by line.
    static func oldQuery(_ objects: [RecordValue], _ query: Query) throws -> String {
        let context = ObjectContext(store: ObjectStore(for: DynamicObject.self))
        for object in objects { try context.insert(DynamicObject(fields: try #require(object.asRecord))) }
        _ = try context.save()
        let request = FetchRequest<DynamicObject>(
            predicate: query.predicate.map(RecordPredicate.init), sortKeys: query.sortKeys, fetchLimit: query.limit, fetchOffset: query.offset)
        let sections: [(String, [DynamicObject])]
        if query.sortKeys.isEmpty && query.sectionKey == nil {
            sections = [("", try context.fetch(request))]
        } else {
            let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: query.sectionKey)
            try controller.performFetch()
            sections = (controller.sections ?? []).map { ($0.name, $0.objects) }
        }
        let total = sections.reduce(0) { $0 + $1.1.count }
        var lines = ["\(total) object\(total == 1 ? "" : "s")\(query.predicate.map { " where \($0)" } ?? "")"
            + (query.sectionKey.map { ", \(sections.count) section\(sections.count == 1 ? "" : "s") by \($0)" } ?? "")]
        for (name, objects) in sections {
            if let key = query.sectionKey { lines.append("\(name.isEmpty ? "(no \(key))" : name) (\(objects.count))") }
            lines += objects.map { "  " + JSON.string(.record($0.fields)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func theToolReadsTheGeneratedFileAsTheOldPathDid() throws {
        let folder = TemporaryFolder()
        let old = folder.url.appendingPathComponent("old.json").path
        let new = folder.url.appendingPathComponent("new.json").path
        try Self.generate(old, objects: 16_000)
        try Self.generate(new, objects: 16_000, changed: true)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: old)[.size] as? Int)
        #expect(size > 1 << 20)   // more than one of the reader's chunks
        let objects = try Self.tree(old)
        expectEqual(objects.count, 16_000)

        for options in [[], ["--where", "age >= 40 AND active == true", "--limit", "500", "--offset", "20"],
                        ["--where", "age >= 40", "--sort", "city,-score"], ["--section-key", "city", "--sort", "city,name"]] {
            var query = try Query.parse(try ArgumentParser.parse(options + [old], command: QueryCommand.declaration))
            try query.compile()
            let result = runCLI(["query", old] + options)
            expectEqual(result.status, 0, "\(options): \(result.err)")
            expectEqual(result.out, (try Self.oldQuery(objects, query)), "\(options)")
        }

        // diff: rows as identities and digests give the changes whole rows give.
        func rows(_ path: String) throws -> [TableSection<JSONRow>] {
            [TableSection(name: "", rows: try Self.tree(path).map { JSONRow(id: try #require($0.asRecord?["id"]), object: $0) })]
        }
        let changeset = TableChangeset(from: try rows(old), to: try rows(new))
        #expect(!changeset.stages.isEmpty)
        let diff = runCLI(["diff", old, new, "--format", "json"])
        expectEqual(diff.status, 0, "\(diff.err)")
        expectEqual(diff.out, DiffCommand.json(changeset) + "\n")
        let text = runCLI(["diff", old, new])
        expectEqual(text.out, DiffCommand.text(changeset, from: try rows(old)))
        expectEqual(runCLI(["diff", old, old]).out, DiffCommand.text(TableChangeset(from: try rows(old), to: try rows(old)), from: try rows(old)))
    }

    /// A malformed file far into a big one: the old reader's error, and it
    /// comes before an object's own problem earlier in the file.
    @Test func errorsInABigFileAreTheOldReadersErrors() throws {
        let folder = TemporaryFolder()
        let path = folder.url.appendingPathComponent("people.json").path
        try Self.generate(path, objects: 16_000)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // An object without an id early on, and a stray comma near the end.
        let early = try #require(bytes.range(of: Data("{\"id\":5,".utf8)))
        bytes.replaceSubrange(early, with: Data("{\"di\":5,".utf8))
        bytes.insert(UInt8(ascii: ","), at: bytes.count - 3)
        try bytes.write(to: URL(fileURLWithPath: path))
        let expected: String
        do {
            _ = try JSON.parse(bytes)
            Issue.record("the damaged file parses")
            return
        } catch {
            expected = "\(path): malformed JSON at \(error)\n"
        }
        for command in [["query", path], ["query", path, "--sort", "name"], ["diff", path, path], ["render", path], ["scroll", path]] {
            let result = runCLI(command + ["--quiet"])
            expectEqual(result.status, 1, "\(command)")
            #expect(result.err.hasSuffix(expected), "\(command): \(result.err)")
        }
        // Repaired, the object without an id is the error.
        bytes.remove(at: bytes.count - 4)
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(runCLI(["query", path]).err.contains("object 4 has no \"id\""))
    }

    @Test func theProgressLine() {
        expectEqual(ReadProgress.line(name: "people.json", bytes: 84_000_000, total: 200_000_000, seconds: 1), "reading people.json: 42% (84 MB/s)")
        expectEqual(ReadProgress.line(name: "-", bytes: 5_000_000, total: nil, seconds: 2), "reading -: 5 MB (3 MB/s)")
        expectEqual(ReadProgress.line(name: "x", bytes: 0, total: 0, seconds: 0), "reading x: 0 MB (0 MB/s)")
    }
}
