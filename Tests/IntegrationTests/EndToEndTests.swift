import Foundation
import TableTestSupport
import Testing

/// The built tool, run as a separate process: exit statuses and streams.
@Suite(.enabled(if: TestScale.isFull, TestScale.integrationNote))
struct EndToEndTests {
    static func run(_ arguments: [String]) throws -> CLIResult { try BuiltExecutable.run("headless-table", arguments) }

    @Test func demoRunsAndSaysTheSameAsInProcess() throws {
        let result = try Self.run(["demo"])
        #expect(result.status == 0 && result.err == "")
        expectEqual(result.out, runCLI(["demo"]).out)
    }

    @Test func diffSucceedsAndFailsLikeACommandLineTool() throws {
        let folder = TemporaryFolder()
        let old = folder.file("old.json", #"[{"id":1},{"id":2}]"#)
        let new = folder.file("new.json", #"[{"id":2},{"id":3}]"#)
        let ok = try Self.run(["diff", old, new, "--format", "json"])
        #expect(ok.status == 0 && ok.err == "")
        #expect(ok.out.hasPrefix("{\"stages\":[{\"deletedSections\":[]"))
        let bad = try Self.run(["diff", old, folder.url.appendingPathComponent("nope.json").path])
        #expect(bad.status == 1 && bad.out == "" && bad.err.hasSuffix("nope.json: no such file\n"), "\(bad.err)")
        let usage = try Self.run(["diff"])
        #expect(usage.status == 2 && usage.out == "")
    }
}
