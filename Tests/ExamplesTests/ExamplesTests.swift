import Foundation
import Testing
import TableSnapshotTesting

/// Every example, and the tool's demo, run as their own processes: they exit
/// cleanly, write nothing on standard error, and print what their reviewed
/// snapshots hold (`.ci/run` compares their release builds with the same files).
@Suite struct ExamplesTests {
    /// Runs an executable built next to the tests.
    static func run(_ name: String, _ arguments: [String] = []) throws -> (status: Int32, out: String, err: String) {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let url = folder.appendingPathComponent(name)
        try #require(FileManager.default.isExecutableFile(atPath: url.path), "\(name) is not built next to the tests")
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
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    @Test(arguments: ["photo-diary", "to-do", "names", "contacts", "diff-basics"])
    func output(of name: String) throws {
        let result = try Self.run(name)
        #expect(result.status == 0 && result.err == "", "\(result.err)")
        assertTextSnapshot(of: result.out, named: name)
    }

    /// The demo plays the photo diary's story; with --store the store stays.
    @Test func demoOnAKeptStore() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let diary = try Self.run("photo-diary")
        let first = try Self.run("headless-table", ["demo", "--store", file.path])
        #expect(first.status == 0 && first.err == "")
        #expect(first.out == "HeadlessTable demo: a photo diary on the embedded store (\(file.path)).\n" + diary.out)
        #expect(FileManager.default.fileExists(atPath: file.path))
        // Again on the kept store: the story starts over and tells the same.
        let second = try Self.run("headless-table", ["demo", "--store", file.path])
        #expect(second.out.hasSuffix(diary.out))
        #expect(second.out.hasPrefix("(The store at \(file.path) held 505 entries from an earlier run: starting over.)\n"))
        let bad = try Self.run("headless-table", ["demo", "--store", "/nonexistent-folder/x.json"])
        #expect(bad.status == 1 && bad.out == "")
        #expect(bad.err.hasPrefix("headless-table: --store: "))
    }
}
