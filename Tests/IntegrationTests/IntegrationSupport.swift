import HeadlessTableTool
import TableTestSupport

/// What a run of the command printed, and its exit status.
typealias CLIResult = BuiltExecutable.Result

/// Runs the command in this process, capturing its output.
func runCLI(_ arguments: [String]) -> CLIResult {
    let run = HeadlessTableCommand.runCapturing(arguments)
    return CLIResult(status: run.status, out: run.out, err: run.err)
}
