import Foundation
import InternalTableUtilities
import ToolArguments

// table-benchmarks: `swift run -c release table-benchmarks [--filter REGEX] [--format text|json]
// [--compare SAVED.json] [--list]` (`--help` says it all, from the declaration below). Save a
// run with `--format json > saved.json`; a later run with `--compare saved.json` prints each
// benchmark's median then and now.
//
// Every workload runs in a child process (this executable with `--child NAME`),
// and prints its result as JSON for the parent to collect.

#if DEBUG
exit(BenchmarkCommand.run(arguments: Array(CommandLine.arguments.dropFirst()), optimized: false))
#else
exit(BenchmarkCommand.run(arguments: Array(CommandLine.arguments.dropFirst()), optimized: true))
#endif

/// The benchmarks' command line, declared once (help and usage come from it).
enum BenchmarkCommand {
    static let declaration = CommandDeclaration(
        "",
        summary: "runs HeadlessTable's benchmarks, each workload in a child process, and prints their medians",
        options: [
            OptionDeclaration("filter", .text("REGEX"), help: "only the workloads whose name the regular expression matches"),
            OptionDeclaration("format", .choice(["text", "json"]), help: "text for people, json to save and compare", default: "text"),
            OptionDeclaration("compare", .text("SAVED.json"), help: "also prints each median beside a saved --format json run's"),
            .flag("list", help: "lists the workloads instead of running them"),
            OptionDeclaration("profile", .text("NAME"), help: "runs only workload NAME's subject, repeatedly, for about five seconds (for perf and valgrind)"),
            OptionDeclaration("child", .text("NAME"), help: "runs workload NAME and prints its result as JSON", isHidden: true),
            OptionDeclaration("launch", .text("STORE"), help: "opens STORE as the launch benchmark does and prints its figures as JSON", isHidden: true),
        ],
        exclusive: [["profile", "list", "compare", "child", "launch"], ["profile", "filter"], ["child", "filter"], ["launch", "filter"]],
        discussion: "Build optimized: swift run -c release table-benchmarks. Save a run with --format json > saved.json; a later run with --compare saved.json prints each benchmark's median then and now.")

    static var workloads: [Workload] { DiffWorkloads.all + FetchWorkloads.all + SearchWorkloads.all + StoreWorkloads.all + PredicateWorkloads.all + TableWorkloads.all + RenderWorkloads.all + SnapshotWorkloads.all + BindingWorkloads.all + BrowseWorkloads.all + EmbedWorkloads.all + OutlineWorkloads.all + GraphWorkloads.all }

    static func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("table-benchmarks: \(message)\nrun 'table-benchmarks --help' for usage\n".utf8))
        return 2
    }

    /// Help, version and usage errors in any build; the benchmarks only optimized.
    static func run(arguments: [String], optimized: Bool) -> Int32 {
        let parsed: ParsedArguments
        do {
            switch try ArgumentParser.parse(arguments, single: declaration, tool: "table-benchmarks", version: PackageVersion.current) {
            case .help(let text), .version(let text), .missingCommand(let text):
                FileHandle.standardOutput.write(Data(text.utf8))
                return 0
            case .run(let arguments):
                parsed = arguments
            }
        } catch {
            return fail(error.message)
        }
        guard optimized else {
            FileHandle.standardError.write(Data("table-benchmarks measures optimized code only: run `swift run -c release table-benchmarks`.\n".utf8))
            return 2
        }
        return run(parsed)
    }

    /// `no workload named X (did you mean Y?)`.
    static func unknown(_ name: String) -> String {
        "no workload named \(UsageError.excerpt(name))"
            + (EditDistance.closest(to: name, among: workloads.map(\.name)).map { " (did you mean \($0)?)" } ?? "")
            + "; --list lists them"
    }

    static func run(_ parsed: ParsedArguments) -> Int32 {
        if let store = parsed.string("launch") {
            // A fresh process, as an app's launch: the figures, then out at once.
            return StoreWorkloads.launchChild(store)
        }
        if let child = parsed.string("child") {
            guard let workload = workloads.first(where: { $0.name == child }) else { return fail(unknown(child)) }
            guard let data = try? JSONEncoder().encode(runWorkload(workload)) else { return 1 }
            FileHandle.standardOutput.write(data)
            return 0
        }
        if let name = parsed.string("profile") {
            // For perf and valgrind: only the subject, repeatedly, for about five seconds.
            guard let workload = workloads.first(where: { $0.name == name }) else { return fail(unknown(name)) }
            keepHeapWarm()
            let prepared = workload.prepare()
            let start = _Monotonic.nanoseconds()
            var runs = 0
            repeat { prepared.setUp?(); prepared.subject(); runs += 1 } while _Monotonic.nanoseconds() - start < 5_000_000_000 && runs < 10_000
            print("\(runs) runs")
            return 0
        }
        let format = parsed.string("format") ?? "text"
        let filter = parsed.string("filter")
        let comparePath = parsed.string("compare")
        let list = parsed.flag("list")

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
