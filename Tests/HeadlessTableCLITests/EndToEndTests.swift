import Foundation
import Testing
import TableSnapshotTesting
@testable import headless_table

/// The built tool, run as a separate process: exit statuses and streams.
@Suite struct EndToEndTests {
    /// The `headless-table` executable next to the test bundle.
    static var executable: URL? {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let url = folder.appendingPathComponent("headless-table")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    static func run(_ arguments: [String]) throws -> CLIResult {
        let url: URL = try #require(executable, "headless-table is not built next to the tests")
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIResult(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self), err: String(decoding: errData, as: UTF8.self))
    }

    @Test func demoRunsAndSaysTheSameAsInProcess() throws {
        let result = try Self.run(["demo"])
        #expect(result.status == 0 && result.err == "")
        #expect(result.out == runCLI(["demo"]).out)
    }

    @Test func diffSucceedsAndFailsLikeACommandLineTool() throws {
        let folder = TemporaryFolder()
        let old = folder.file("old.json", #"[{"id":1},{"id":2}]"#)
        let new = folder.file("new.json", #"[{"id":2},{"id":3}]"#)
        let ok = try Self.run(["diff", old, new, "--format", "json"])
        #expect(ok.status == 0 && ok.err == "")
        #expect(ok.out.hasPrefix("{\"stages\":[{\"deletedSections\":[]"))
        let bad = try Self.run(["diff", old, folder.url.appendingPathComponent("nope.json").path])
        #expect(bad.status == 1 && bad.out == "" && bad.err.hasSuffix("nope.json: no such file\n"))
        let usage = try Self.run(["diff"])
        #expect(usage.status == 2 && usage.out == "")
    }
}
