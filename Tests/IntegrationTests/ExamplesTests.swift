import Foundation
import TableSnapshotTesting
import TableTestSupport
import Testing

/// Every example, and the tool's demo, run as their own processes: they exit
/// cleanly, write nothing on standard error, and print what their reviewed
/// snapshots hold (`.ci/run` compares their release builds with the same files).
@Suite(.enabled(if: TestScale.isFull, TestScale.integrationNote))
struct ExamplesTests {
    static func run(_ name: String, _ arguments: [String] = []) throws -> BuiltExecutable.Result {
        try BuiltExecutable.run(name, arguments)
    }

    @Test(arguments: ["photo-diary", "to-do", "groceries", "names", "contacts", "diff-basics", "directory-store"])
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
        expectEqual(first.out, "HeadlessTable demo: a photo diary on the embedded store (\(file.path)).\n" + diary.out)
        #expect(FileManager.default.fileExists(atPath: file.path))
        // Again on the kept store: the story starts over and tells the same.
        let second = try Self.run("headless-table", ["demo", "--store", file.path])
        #expect(second.out.hasSuffix(diary.out))
        #expect(second.out.hasPrefix("(The store at \(file.path) held 506 entries from an earlier run: starting over.)\n"))
        let bad = try Self.run("headless-table", ["demo", "--store", "/nonexistent-folder/x.json"])
        #expect(bad.status == 1 && bad.out == "")
        #expect(bad.err.hasPrefix("headless-table: --store: "))
    }
}
