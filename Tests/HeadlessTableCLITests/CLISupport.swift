import Foundation
import HeadlessTable
@testable import HeadlessTableTool
import InternalTableUtilities
import TableTestSupport

/// What a run of the command printed, and its exit status.
typealias CLIResult = BuiltExecutable.Result

/// Runs the command in this process, capturing its output.
func runCLI(_ arguments: [String]) -> CLIResult {
    let out = _Lock(""), err = _Lock("")
    let status = HeadlessTableCommand.run(
        arguments: arguments,
        output: CommandOutput(out: { text in out.withLock { $0 += text } }, err: { text in err.withLock { $0 += text } }))
    return CLIResult(status: status, out: out.withLock { $0 }, err: err.withLock { $0 })
}

/// A temporary folder for input files, removed when dropped.
final class TemporaryFolder {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("headless-table-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes `text` to a file and returns its path.
    func file(_ name: String, _ text: String) -> String {
        let path = url.appendingPathComponent(name).path
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }
}

/// A test table as a fetch result in JSON: `{"sections":[{"name":…,"objects":[{"id":…,"v":…}]}]}`.
func fetchResultJSON(_ table: Table) -> String {
    let sections = table.map { section in
        let objects = section.rows.map { "{\"id\":\($0.id),\"v\":\($0.content)}" }.joined(separator: ",")
        return "{\"name\":\(JSON.string(.string(section.name))),\"objects\":[\(objects)]}"
    }
    return "{\"sections\":[\(sections.joined(separator: ","))]}"
}
