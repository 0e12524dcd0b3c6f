import Foundation
import HeadlessTable
@testable import HeadlessTableTool
import TableTestSupport

/// What a run of the command printed, and its exit status.
typealias CLIResult = BuiltExecutable.Result

/// Runs the command in this process, capturing its output.
func runCLI(_ arguments: [String]) -> CLIResult {
    let run = HeadlessTableCommand.runCapturing(arguments)
    return CLIResult(status: run.status, out: run.out, err: run.err)
}

/// A test table as a fetch result in JSON: `{"sections":[{"name":…,"objects":[{"id":…,"v":…}]}]}`.
func fetchResultJSON(_ table: Table) -> String {
    let sections = table.map { section in
        let objects = section.rows.map { "{\"id\":\($0.id),\"v\":\($0.content)}" }.joined(separator: ",")
        return "{\"name\":\(JSON.string(.string(section.name))),\"objects\":[\(objects)]}"
    }
    return "{\"sections\":[\(sections.joined(separator: ","))]}"
}
