import Foundation
import HeadlessTable
import ToolArguments

/// Where a command writes: standard output and standard error, or buffers in tests.
public struct CommandOutput: Sendable {
    public var out: @Sendable (String) -> Void
    public var err: @Sendable (String) -> Void

    public static let standard = CommandOutput(
        out: { FileHandle.standardOutput.write(Data($0.utf8)) },
        err: { FileHandle.standardError.write(Data($0.utf8)) })
}

/// An error a person can act on: printed on standard error, with a non-zero exit.
struct CommandError: Error, CustomStringConvertible {
    var description: String
    /// 2 for a misused command line, 1 for bad input.
    var status: Int32 = 1

    init(_ description: String, status: Int32 = 1) {
        self.description = description
        self.status = status
    }

    static func usage(_ description: String) -> CommandError { CommandError(description, status: 2) }
}

/// The command-line tool's entry point.
public enum HeadlessTableCommand {
    /// The tool's commands, each declared once (in its own file): parsing,
    /// usage and help are made from these.
    static let tool = ToolDeclaration(
        name: "headless-table",
        version: PackageVersion.current,
        summary: "the data side of a table view, on the command line.",
        commands: [
            DemoCommand.declaration, BrowseCommand.declaration, DiffCommand.declaration,
            QueryCommand.declaration, RenderCommand.declaration, ScrollCommand.declaration,
            ServeCommand.declaration,
        ],
        notes: InputRules.text + "\n\n" + conventions)

    /// How a command line is read, for the tool's help (the reference article
    /// says the same).
    static let conventions = """
        command lines:
          Options go anywhere after the command, as --width 40 or --width=40; -- ends
          the options. A misspelt command or option gets a "did you mean". Refused, not
          ignored: a number outside its range (it is not capped), an option given
          twice, an option that does not apply (diff --width without --render), and an
          --arg or --var the predicate does not use.
        """

    /// Runs the tool with `arguments` (without the program name) and returns the exit status.
    public static func run(arguments: [String], output: CommandOutput) -> Int32 {
        do {
            switch try ArgumentParser.parse(arguments, tool: tool) {
            case .help(let text), .version(let text):
                output.out(text)
            case .missingCommand(let usage):
                output.err(usage)
                return 2
            case .run(let parsed):
                try run(parsed, output: output)
            }
            return 0
        } catch let error as UsageError {
            return fail(CommandError.usage(error.message), command: error.command, output: output)
        } catch let error as CommandError {
            return fail(error, command: error.status == 2 ? arguments.first : nil, output: output)
        } catch {
            return fail(CommandError("\(error)"), command: nil, output: output)
        }
    }

    /// Runs the tool with `arguments` in this process and returns its exit
    /// status and what it wrote on each stream: what the tests compare.
    public static func runCapturing(_ arguments: [String]) -> (status: Int32, out: String, err: String) {
        final class Streams: @unchecked Sendable {
            let lock = NSLock()
            var out = "", err = ""
            func append(_ text: String, toOut: Bool) {
                lock.lock()
                defer { lock.unlock() }
                if toOut { out += text } else { err += text }
            }
        }
        let streams = Streams()
        let status = run(
            arguments: arguments,
            output: CommandOutput(out: { streams.append($0, toOut: true) }, err: { streams.append($0, toOut: false) }))
        streams.lock.lock()
        defer { streams.lock.unlock() }
        return (status, streams.out, streams.err)
    }

    static func run(_ parsed: ParsedArguments, output: CommandOutput) throws {
        switch parsed.command.name {
        case DemoCommand.declaration.name: try DemoCommand.run(parsed, output: output)
        case BrowseCommand.declaration.name: try BrowseCommand.run(parsed, output: output)
        case DiffCommand.declaration.name: try DiffCommand.run(parsed, output: output)
        case QueryCommand.declaration.name: try QueryCommand.run(parsed, output: output)
        case RenderCommand.declaration.name: try RenderCommand.run(parsed, output: output)
        case ScrollCommand.declaration.name: try ScrollCommand.run(parsed, output: output)
        case ServeCommand.declaration.name: try ServeCommand.run(parsed, output: output)
        default: throw CommandError("no command \(parsed.command.name)")
        }
    }

    /// One message on standard error; a misused command line adds one line
    /// pointing at the help (the command's, when there is one).
    static func fail(_ error: CommandError, command: String?, output: CommandOutput) -> Int32 {
        output.err("\(tool.name): \(error.description)\n")
        if error.status == 2 {
            let known = command.flatMap(tool.command).map { " \($0.name)" } ?? ""
            output.err("run '\(tool.name)\(known) --help' for usage\n")
        }
        return error.status
    }
}

/// The `--format` option: text for people, JSON for programs.
enum OutputFormat: String {
    case text, json

    static let option = OptionDeclaration("format", .choice(["text", "json"]), help: "text for people, json for programs", default: "text")

    init(_ parsed: ParsedArguments) { self = OutputFormat(rawValue: parsed.string("format") ?? "") ?? .text }
}

/// `--style plain|grouped|inset-grouped`: the table's style (plain, as UIKit's default).
enum TableStyleOption {
    static let option = OptionDeclaration(
        "style", .choice(["plain", "grouped", "inset-grouped"]),
        help: "the table's style: plain (headers float), grouped or inset-grouped (sections set apart)", default: "plain")

    static func style(_ parsed: ParsedArguments) -> TableView.Style {
        switch parsed.string("style") {
        case "grouped": .grouped
        case "inset-grouped": .insetGrouped
        default: .plain
        }
    }
}
