import Foundation
import HeadlessTable

/// Where a command writes: standard output and standard error, or buffers in tests.
package struct CommandOutput: Sendable {
    package var out: @Sendable (String) -> Void
    package var err: @Sendable (String) -> Void

    package static let standard = CommandOutput(
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
package enum HeadlessTableCommand {
    static let usage = """
        usage: headless-table <command> [options]

        commands:
          demo [--store PATH]               the photo diary's story on the embedded store (a temporary file, or PATH)
          browse DATA [--where FORMAT] [--arg JSON]… [--sort KEY[,-KEY]…] [--section-key KEY | --index KEY [--locale L]]
                [--text KEY] [--detail KEY]
                                            DATA's objects as an interactive table in the terminal: ↑↓ PgUp PgDn
                                            Home End move, / searches, Esc cancels, d deletes, q quits
          diff OLD NEW [--id KEY] [--format text|json] [--render [--width W] [--height H] [--ascii]]
                                            the batch updates from one fetch result (JSON file) to another;
                                            --render draws each stage: the table before, the batch, after
          query DATA [--where FORMAT] [--arg JSON]… [--var NAME=JSON]… [--sort KEY[,-KEY]…]
                [--section-key KEY | --index KEY [--locale L]] [--limit N] [--offset N] [--format text|json]
                                            the objects of DATA (a JSON array) that a predicate matches,
                                            sorted and sectioned as a fetched results controller would
          render DATA [--where FORMAT] [--arg JSON]… [--sort KEY[,-KEY]…] [--section-key KEY | --index KEY [--locale L]]
                [--text KEY] [--detail KEY] [--width W] [--height H] [--offset Y | --row S,R]
                [--ascii] [--index] [--search TEXT]
                                            DATA's objects drawn as a table's window shows them (a line per
                                            row and header; text from --text, else title, name or text)
          scroll [DATA] [--rows N] [--height H] [--row-height h|--random-heights] [--step S|--jump] [--format text|json]
                                            scrolls a table (DATA's objects, or N rows) top to bottom and prints what
                                            reuse did: frames, cells created and reused, most cells alive, time per frame
          help                              this text

        --index KEY [--locale L] sections by the locale's index of KEY, as a contacts list: A…Z and #
        (German files Ä Ö Ü under A O U, Swedish ends with Å Ä Ö, Russian and Greek have their
        alphabets; en without --locale), empty sections left out, rows sorted by it within each.

        Big files are read a piece at a time; while one is read, standard error (when it is a terminal)
        shows how far: --quiet turns that off (query, render, browse, diff, scroll).

        A fetch result is a JSON file: {"sections":[{"name":"A","objects":[{"id":1,…},…]},…]},
        or a plain array of objects (one section named ""). Rows are identified by "id"
        (--id names another key); their content is the whole object.

        """

    /// Runs the tool with `arguments` (without the program name) and returns the exit status.
    package static func run(arguments: [String], output: CommandOutput) -> Int32 {
        var arguments = ArgumentList(arguments)
        do {
            guard let command = arguments.next() else {
                output.err(usage)
                return 2
            }
            switch command {
            case "demo":
                try DemoCommand.run(&arguments, output: output)
            case "browse":
                try BrowseCommand.run(&arguments, output: output)
            case "diff":
                try DiffCommand.run(&arguments, output: output)
            case "query":
                try QueryCommand.run(&arguments, output: output)
            case "render":
                try RenderCommand.run(&arguments, output: output)
            case "scroll":
                try ScrollCommand.run(&arguments, output: output)
            case "help", "--help", "-h":
                output.out(usage)
            default:
                throw CommandError.usage("unknown command '\(command)'; try 'headless-table help'")
            }
            return 0
        } catch let error as CommandError {
            output.err("headless-table: \(error.description)\n")
            if error.status == 2 { output.err("try 'headless-table help'\n") }
            return error.status
        } catch {
            output.err("headless-table: \(error)\n")
            return 1
        }
    }
}

/// Command-line arguments, taken one by one.
struct ArgumentList {
    private var remaining: [String]

    init(_ arguments: [String]) { remaining = arguments }

    /// The next positional argument, if any.
    mutating func next() -> String? {
        guard let index = remaining.firstIndex(where: { !$0.hasPrefix("--") || $0 == "--" }) else { return nil }
        return remaining.remove(at: index)
    }

    /// The positional argument `name`, which must be there.
    mutating func positional(_ name: String) throws -> String {
        guard let value = next() else { throw CommandError.usage("missing \(name)") }
        return value
    }

    /// The value of `--name VALUE`, if given (the last one wins).
    mutating func option(_ name: String) throws -> String? {
        var value: String?
        while let index = remaining.firstIndex(of: name) {
            guard index + 1 < remaining.count else { throw CommandError.usage("\(name) needs a value") }
            value = remaining[index + 1]
            remaining.removeSubrange(index...(index + 1))
        }
        return value
    }

    /// The value of `--name VALUE` where a value follows (one not starting
    /// with `--`; the last one wins); a bare `--name` stays.
    mutating func optionWithValue(_ name: String) throws -> String? {
        var value: String?
        var from = 0
        while let index = remaining[from...].firstIndex(of: name) {
            guard index + 1 < remaining.count, !remaining[index + 1].hasPrefix("--") else {
                from = index + 1
                continue
            }
            value = remaining[index + 1]
            remaining.removeSubrange(index...(index + 1))
            from = index
        }
        return value
    }

    /// Every value of a repeatable `--name VALUE`, in order.
    mutating func options(_ name: String) throws -> [String] {
        var values: [String] = []
        while let index = remaining.firstIndex(of: name) {
            guard index + 1 < remaining.count else { throw CommandError.usage("\(name) needs a value") }
            values.append(remaining[index + 1])
            remaining.removeSubrange(index...(index + 1))
        }
        return values
    }

    /// Whether `--name` is given.
    mutating func flag(_ name: String) -> Bool {
        let found = remaining.contains(name)
        remaining.removeAll { $0 == name }
        return found
    }

    /// An option's value as a whole number of at least `minimum`; nil when not given.
    static func wholeNumber(_ text: String?, _ option: String, minimum: Int) throws -> Int? {
        guard let text else { return nil }
        guard let n = Int(text), n >= minimum else {
            throw CommandError.usage("\(option) takes a whole number of at least \(minimum), not '\(text)'")
        }
        return n
    }

    /// Fails on anything not taken.
    func finish() throws {
        if let extra = remaining.first {
            throw CommandError.usage(extra.hasPrefix("--") ? "unknown option \(extra)" : "unexpected argument '\(extra)'")
        }
    }
}

/// The `--format` option: text for people, JSON for programs.
enum OutputFormat: String {
    case text, json

    static func parse(_ value: String?) throws -> OutputFormat {
        guard let value else { return .text }
        guard let format = OutputFormat(rawValue: value) else {
            throw CommandError.usage("--format takes text or json, not '\(value)'")
        }
        return format
    }
}
