import Foundation
@testable import HeadlessTableTool
import TableSnapshotTesting
import TableTestSupport
import Testing
import ToolArguments

/// The conventions of command-line tools, from the declarations: help and
/// version, `--name=value`, `--`, `-`, did-you-mean, ranges, options that
/// apply only with another, unused values — each with its exit status and
/// its exact message (one, and one hint line).
@Suite struct ArgumentConventionsTests {
    static let commands = HeadlessTableCommand.tool.commands.map(\.name)
    static let people = #"[{"id":1,"name":"Anna","age":31,"city":"Berlin"},{"id":2,"name":"Bo","age":28,"city":"Århus"}]"#

    // MARK: Help and version

    @Test func theToolsHelpIsOnStandardOutputWithStatus0() {
        let help = runCLI(["--help"])
        #expect(help.status == 0 && help.err == "")
        assertTextSnapshot(of: help.out, named: "tool")
        for form in [["-h"], ["help"]] {
            expectEqual(runCLI(form), help, "\(form)")
        }
        // Without a command: the same usage, on standard error, status 2.
        let none = runCLI([])
        #expect(none.status == 2 && none.out == "" && none.err == help.out)
    }

    @Test(arguments: commands)
    func everyCommandsHelpIsOnStandardOutputWithStatus0(command: String) {
        let help = runCLI([command, "--help"])
        #expect(help.status == 0 && help.err == "", "\(help.err)")
        #expect(help.out.hasPrefix("usage: headless-table \(command)"))
        assertTextSnapshot(of: help.out, named: command)
        for form in [[command, "-h"], ["help", command], [command, "DATA", "--where", "x", "-h"], [command, "--nonsense", "--help"]] {
            expectEqual(runCLI(form), help, "\(form)")
        }
        // After --, -h is an argument, not a request for help.
        #expect(runCLI([command, "--", "-h"]).out != help.out)
    }

    @Test func versionIsOnStandardOutputWithStatus0() {
        expectEqual(runCLI(["--version"]), CLIResult(status: 0, out: "headless-table \(PackageVersion.current)\n", err: ""))
    }

    /// Generated usage cannot drift: every declared option of every command
    /// is in the tool's usage, the command's usage line and its help, and
    /// every option the parser takes is declared (a property over all of them).
    @Test func generatedUsageListsEveryDeclaredOption() {
        let tool = runCLI(["--help"]).out
        for command in HeadlessTableCommand.tool.commands {
            let synopsis = HelpText.synopsis(command, tool: "headless-table")
            let help = runCLI([command.name, "--help"]).out
            #expect(tool.contains(command.name) && tool.contains(command.summary.prefix(20)))
            for option in command.options {
                #expect(synopsis.contains(option.synopsis), "\(command.name): \(option.spelled) is not in \(synopsis)")
                #expect(help.contains("  " + option.synopsis), "\(command.name) --help does not describe \(option.spelled)")
                #expect(tool.replacingOccurrences(of: "\n    ", with: " ").contains(option.synopsis),
                        "the tool's usage lacks \(command.name)'s \(option.spelled)")
                // Declared means taken: it is never an unknown option.
                let given = runCLI([command.name, option.spelled])
                #expect(!given.err.contains("unknown option"), "\(command.name) \(option.spelled): \(given.err)")
            }
            for positional in command.positionals {
                #expect(synopsis.contains(positional.synopsis) && help.contains("  " + positional.name))
            }
        }
    }

    // MARK: Malformed command lines: status 2, one message, one hint

    @Test(arguments: [
        (["difff"], "unknown command 'difff' (did you mean 'diff'?)", nil),
        (["rnder", "x.json"], "unknown command 'rnder' (did you mean 'render'?)", nil),
        (["--versoin"], "unknown option --versoin (did you mean --version?); options go after a COMMAND", nil),
        (["--verbose"], "unknown option --verbose; options go after a COMMAND", nil),
        (["help", "qury"], "unknown command 'qury' (did you mean 'query'?)", nil),
        (["diff", "a.json", "b.json", "--widht", "3"], "unknown option --widht for diff (did you mean --width?)", "diff"),
        (["render", "p.json", "-w", "3"], "unknown option -w (did you mean --where?)", "render"),
        (["diff", "a.json", "b.json", "--width", "30"], "--width applies only with --render", "diff"),
        (["diff", "a.json", "b.json", "--ascii"], "--ascii applies only with --render", "diff"),
        (["diff", "a.json", "b.json", "--render", "--format", "json"], "--render draws text: it does not go with --format json", "diff"),
        (["diff", "a.json"], "missing NEW: the fetch result after, as JSON (- for standard input)", "diff"),
        (["diff", "a.json", "b.json", "c.json"], "unexpected argument 'c.json': diff takes OLD NEW", "diff"),
        (["diff", "-", "-"], "only one argument can be - (standard input is read once)", "diff"),
        (["render", "p.json", "--width=0"], "--width takes a whole number from 1 to 10000, not '0'", "render"),
        (["render", "p.json", "--height", "1000000"], "--height takes a whole number from 1 to 100000, not '1000000'", "render"),
        (["render", "p.json", "--ascii=yes"], "--ascii takes no value, not 'yes'", "render"),
        (["render", "p.json", "--width", "40", "--width", "50"], "--width is given twice: give it once", "render"),
        (["query", "p.json", "--format", "jsno"], "--format takes text or json, not 'jsno' (did you mean 'json'?)", "query"),
        (["query", "p.json", "--where"], "--where needs a value: --where FORMAT", "query"),
        (["query", "p.json", "--arg", "1"], "--arg applies only with --where", "query"),
        (["scroll", "--rows", "1e9"], "--rows takes a whole number from 0 to 10000000, not '1e9'", "scroll"),
        (["scroll", "--rows", "1000", "--step", "1e-9"], "--step takes a number from 0.01 to 1000000000, not '1e-9'", "scroll"),
        (["demo", "extra"], "unexpected argument 'extra': demo takes no arguments", "demo"),
        (["browse", "-"], "browse reads its keys from standard input: give DATA as a file", "browse"),
    ] as [([String], String, String?)])
    func misuseIsOneMessageAndOneHint(arguments: [String], message: String, command: String?) {
        let result = runCLI(arguments)
        expectEqual(result.status, 2)
        expectEqual(result.out, "")
        expectEqual(result.err, "headless-table: \(message)\nrun 'headless-table\(command.map { " " + $0 } ?? "") --help' for usage\n")
    }

    // MARK: Values, -- and -

    @Test func optionsTakeTheirValueAfterAnEqualsSign() {
        let folder = TemporaryFolder()
        let path = folder.file("people.json", Self.people)
        let spaced = runCLI(["render", path, "--width", "24", "--height", "3", "--text", "city"])
        #expect(spaced.status == 0 && spaced.out.contains("Berlin"))
        expectEqual(runCLI(["render", path, "--width=24", "--height=3", "--text=city"]), spaced)
        // A value may start with - or contain =.
        let query = runCLI(["query", path, "--where=age > %@ OR name == %@", "--arg=-1", "--arg", "\"a=b\"", "--format=json"])
        expectEqual(query, CLIResult(status: 0, out: #"{"sections":[{"name":"","indexTitle":null,"ids":[1,2]}]}"# + "\n", err: ""))
    }

    @Test func doubleDashEndsTheOptions() {
        let folder = TemporaryFolder()
        _ = folder.file("--odd.json", Self.people)
        let result = runCLI(["query", "--format", "json", "--", folder.url.appendingPathComponent("--odd.json").path])
        #expect(result.status == 0 && result.out.contains("\"ids\":[1,2]"), "\(result.err)")
        let dashed = runCLI(["query", "--", "--format"])
        #expect(dashed.status == 1 && dashed.err == "headless-table: --format: no such file\n")
    }

    /// `-` and pipes, through the built tool as a shell would run it.
    @Test func standardInputAndPipesAreRead() throws {
        let folder = TemporaryFolder()
        let path = folder.file("people.json", Self.people)
        let expected = runCLI(["query", path, "--sort", "name", "--format", "json"])
        expectEqual(expected.status, 0)
        let dash = try Self.runTool(["query", "-", "--sort", "name", "--format", "json"], input: Data(Self.people.utf8))
        expectEqual(dash, expected)
        let devStdin = try Self.runTool(["query", "/dev/stdin", "--sort", "name", "--format", "json"], input: Data(Self.people.utf8))
        expectEqual(devStdin, expected)
        // diff reads one side from standard input.
        let old = folder.file("old.json", #"[{"id":1},{"id":2}]"#)
        let diff = try Self.runTool(["diff", old, "-", "--format", "json"], input: Data(#"[{"id":2},{"id":3}]"#.utf8))
        #expect(diff.status == 0 && diff.out.contains(#""deletedRows":[[0,0]],"insertedRows":[[0,1]]"#), "\(diff.err)")
        // Process substitution: a /dev/fd pipe.
        let tool = try BuiltExecutable.url("headless-table").path
        let substituted = try Self.run("/bin/bash", ["-c", "'\(tool)' query <(cat '\(path)') --sort name --format json"], input: nil)
        expectEqual(substituted, expected)
        // Malformed standard input is named as such.
        let bad = try Self.runTool(["query", "-"], input: Data("[1,".utf8))
        #expect(bad.status == 1 && bad.out == "" && bad.err.hasPrefix("headless-table: standard input: malformed JSON at "))
    }

    /// A FIFO is read to its end, in process.
    @Test func aFIFOIsRead() throws {
        let folder = TemporaryFolder()
        let fifo = folder.url.appendingPathComponent("people.fifo").path
        let made = try Self.run("/usr/bin/env", ["mkfifo", fifo], input: nil)
        try #require(made.status == 0)
        let writer = Thread {
            if let handle = FileHandle(forWritingAtPath: fifo) {
                handle.write(Data(Self.people.utf8))
                try? handle.close()
            }
        }
        writer.start()
        let result = runCLI(["query", fifo, "--format", "json"])
        expectEqual(result, CLIResult(status: 0, out: #"{"sections":[{"name":"","indexTitle":null,"ids":[1,2]}]}"# + "\n", err: ""))
    }

    // MARK: Input rules, the same in every command

    @Test(arguments: ["query", "render", "scroll", "diff"])
    func nullIdsAndDuplicatesAreErrorsInEveryCommand(command: String) {
        let folder = TemporaryFolder()
        let other = folder.file("other.json", "[]")
        for (data, message) in [
            (#"[{"id":1},{"id":null}]"#, "object 1 has no \"id\" to identify it (an id is any JSON value but null"),
            (#"[{"id":1},{"name":"x"}]"#, "object 1 has no \"id\" to identify it (an id is any JSON value but null"),
            (#"[{"id":"a"},{"id":2},{"id":"a"}]"#, "duplicate id \"a\" (object 0 and object 2); ids must be unique"),
        ] {
            let path = folder.file("data.json", data)
            let result = runCLI([command, path] + (command == "diff" ? [other] : []))
            #expect(result.status == 1 && result.out == "", "\(command): \(result)")
            #expect(result.err.hasPrefix("headless-table: \(path): \(message)"), "\(command): \(result.err)")
            expectEqual(result.err.components(separatedBy: "\n").count, 2, "one line: \(result.err)")
        }
    }

    @Test func browseLoadsByTheSameRules() throws {
        let folder = TemporaryFolder()
        for (data, message) in [(#"[{"id":null}]"#, "object 0 has no \"id\""), (#"[{"id":1},{"id":1}]"#, "duplicate id 1 (object 0 and object 1)")] {
            let parsed = try ArgumentParser.parse([folder.file("data.json", data)], command: BrowseCommand.declaration)
            #expect {
                _ = try BrowseSession(try BrowseCommand.Options.parse(parsed))
            } throws: { error in
                "\(error)".contains(message)
            }
        }
    }

    @Test func everyArgumentOfThePredicateMustBeUsed() {
        let folder = TemporaryFolder()
        let path = folder.file("people.json", Self.people)
        let hint = "run 'headless-table query --help' for usage\n"
        expectEqual(runCLI(["query", path, "--where", "age > %@", "--arg", "30", "--arg", "40"]), CLIResult(status: 2, out: "", err: "headless-table: --arg 2 (40) is not used: the predicate takes 1 argument\n" + hint))
        expectEqual(runCLI(["query", path, "--where", "age > 1", "--arg", "30", "--arg", "\"x\""]), CLIResult(status: 2, out: "", err: "headless-table: --arg 1…2 (30) are not used: the predicate takes 0 arguments\n" + hint))
        expectEqual(runCLI(["query", path, "--where", "age > $MIN", "--var", "MIN=1", "--var", "MAX=2"]), CLIResult(status: 2, out: "", err: "headless-table: --var MAX is not used: the predicate has no $MAX\n" + hint))
        expectEqual(runCLI(["query", path, "--where", "age > %@ AND name != %@", "--arg", "30", "--arg", "\"x\"", "--format", "json"]).status, 0)
    }

    @Test func flatChainsParseAndDeepInputIsEchoedShort() {
        let folder = TemporaryFolder()
        let path = folder.file("people.json", Self.people)
        let flat = runCLI(["query", path, "--where", "age > " + Array(repeating: "1", count: 150).joined(separator: "+"), "--format", "json"])
        expectEqual(flat, CLIResult(status: 0, out: #"{"sections":[{"name":"","indexTitle":null,"ids":[]}]}"# + "\n", err: ""))
        let deep = String(repeating: "(", count: 60_000) + "age > 1" + String(repeating: ")", count: 60_000)
        let result = runCLI(["query", path, "--where", deep])
        #expect(result.status == 1 && result.out == "")
        #expect(result.err.utf8.count < 400, "\(result.err.utf8.count) bytes")
        expectEqual(result.err, """
            headless-table: --where: at offset 101 of the format (120007 characters): expected at most 100 levels of nesting, found more
            …((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((…
                                           ^

            """)
    }

    /// The largest values in the ranges do not trap.
    @Test func theLargestValuesAreFine() {
        let folder = TemporaryFolder()
        let path = folder.file("people.json", Self.people)
        let max = String(Int.max)
        for sort in [[], ["--sort", "name"], ["--sort", "city", "--section-key", "city"]] {
            expectEqual(runCLI(["query", path, "--limit", max, "--offset", max, "--format", "json"] + sort).status, 0, "\(sort)")
            let some = runCLI(["query", path, "--limit", max, "--offset", "1", "--format", "json"] + sort)
            #expect(some.status == 0 && some.out.contains(#""ids":[2]}]}"#), "\(sort): \(some)")
        }
        // The largest height and the largest width, each with a small other
        // side (both at once print a gigabyte of spaces).
        expectEqual(runCLI(["render", path, "--offset", max, "--height", "100000", "--width", "8"]).status, 0)
        expectEqual(runCLI(["render", path, "--offset", max, "--height", "8", "--width", "10000"]).status, 0)
    }

    @Test func sectionKeysAndTextKeysAreCheckedInTheCommandLinesWords() {
        let folder = TemporaryFolder()
        let path = folder.file("people.json", Self.people)
        #expect(runCLI(["query", path, "--section-key", "city"]).err.hasPrefix(
            "headless-table: --section-key city needs --sort city,…: the first sort key orders the sections\n"))
        expectEqual(runCLI(["render", path, "--text", "nosuch"]), CLIResult(status: 1, out: "", err: "headless-table: --text nosuch: no object has the key \"nosuch\"\n"))
        let old = folder.file("old.json", Self.people)
        expectEqual(runCLI(["diff", old, old, "--render", "--detail", "cty"]), CLIResult(status: 1, out: "", err: "headless-table: --detail cty: no object has the key \"cty\" (did you mean city?)\n"))
    }

    // MARK: Helpers

    /// Runs the built tool with `input` on its standard input.
    static func runTool(_ arguments: [String], input: Data?) throws -> CLIResult {
        try run(BuiltExecutable.url("headless-table").path, arguments, input: input)
    }

    static func run(_ executable: String, _ arguments: [String], input: Data?) throws -> CLIResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let inPipe = Pipe(), out = Pipe(), err = Pipe()
        process.standardInput = inPipe
        process.standardOutput = out
        process.standardError = err
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(input) }
        try inPipe.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIResult(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self), err: String(decoding: errData, as: UTF8.self))
    }
}

extension BuiltExecutable.Result: Equatable {
    public static func == (a: Self, b: Self) -> Bool { a.status == b.status && a.out == b.out && a.err == b.err }
}
