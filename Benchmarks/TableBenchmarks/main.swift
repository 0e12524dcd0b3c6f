import Foundation
import InternalTableUtilities

// table-benchmarks: `swift run -c release table-benchmarks [--filter REGEX] [--format text|json]
// [--compare SAVED.json] [--list]`. Save a run with `--format json > saved.json`; a later
// run with `--compare saved.json` prints each benchmark's median then and now.
//
// Every workload runs in a child process (this executable with `--child NAME`),
// and prints its result as JSON for the parent to collect.

#if DEBUG
FileHandle.standardError.write(Data("table-benchmarks measures optimized code only: run `swift run -c release table-benchmarks`.\n".utf8))
exit(2)
#else
var command = BenchmarkCommand(arguments: Array(CommandLine.arguments.dropFirst()))
exit(command.run())
#endif

struct BenchmarkCommand {
    var arguments: [String]
    let workloads: [Workload] = DiffWorkloads.all + FetchWorkloads.all + SearchWorkloads.all + StoreWorkloads.all + PredicateWorkloads.all + TableWorkloads.all + RenderWorkloads.all + SnapshotWorkloads.all + BindingWorkloads.all + BrowseWorkloads.all

    mutating func option(_ name: String) -> String? {
        guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
        defer { arguments.removeSubrange(i...(i + 1)) }
        return arguments[i + 1]
    }

    func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("table-benchmarks: \(message)\nusage: table-benchmarks [--filter REGEX] [--format text|json] [--compare SAVED.json] [--list] | --profile NAME\n".utf8))
        return 2
    }

    mutating func run() -> Int32 {
        if let child = option("--child") {
            guard let workload = workloads.first(where: { $0.name == child }) else { return fail("no workload named \(child)") }
            guard let data = try? JSONEncoder().encode(runWorkload(workload)) else { return 1 }
            FileHandle.standardOutput.write(data)
            return 0
        }
        if let name = option("--profile") {
            // For perf and valgrind: only the subject, repeatedly, for about five seconds.
            guard let workload = workloads.first(where: { $0.name == name }) else { return fail("no workload named \(name)") }
            keepHeapWarm()
            let prepared = workload.prepare()
            let start = _Monotonic.nanoseconds()
            var runs = 0
            repeat { prepared.subject(); runs += 1 } while _Monotonic.nanoseconds() - start < 5_000_000_000 && runs < 10_000
            print("\(runs) runs")
            return 0
        }
        let format = option("--format") ?? "text"
        guard format == "text" || format == "json" else { return fail("--format takes text or json") }
        let filter = option("--filter")
        let comparePath = option("--compare")
        let list = arguments.contains("--list")
        arguments.removeAll { $0 == "--list" }
        if !arguments.isEmpty { return fail("unexpected \(arguments.joined(separator: " "))") }

        var selected = workloads
        if let filter {
            guard let regex = try? NSRegularExpression(pattern: filter) else { return fail("--filter is not a regular expression: \(filter)") }
            selected = workloads.filter { regex.firstMatch(in: $0.name, range: NSRange($0.name.startIndex..., in: $0.name)) != nil }
        }
        if list {
            for w in selected { print("\(w.name)  —  \(w.summary)") }
            return 0
        }

        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        var results: [Result] = []
        for workload in selected {
            if format == "text" { FileHandle.standardError.write(Data("running \(workload.name)…\n".utf8)) }
            let process = Process()
            process.executableURL = executable
            process.arguments = ["--child", workload.name]
            let pipe = Pipe()
            process.standardOutput = pipe
            do { try process.run() } catch { return fail("cannot run \(executable.path): \(error)") }
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0, let result = try? JSONDecoder().decode(Result.self, from: data) else {
                FileHandle.standardError.write(Data("\(workload.name) failed (status \(process.terminationStatus))\n".utf8))
                return 1
            }
            results.append(result)
        }
        print(format == "json" ? Report.json(results) : Report.text(results))
        if let comparePath {
            guard let data = FileManager.default.contents(atPath: comparePath),
                let saved = try? JSONDecoder().decode(Report.Document.self, from: data)
            else { return fail("--compare: \(comparePath) is not a saved `--format json` report") }
            print(Report.comparison(results, with: saved.benchmarks))
        }
        return 0
    }
}
