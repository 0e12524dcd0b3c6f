/// Usage and help, made from the declarations alone, so that they cannot
/// drift from what the parser takes.
public enum HelpText {
    /// The width help is wrapped to.
    static let width = 80

    /// The tool's help: usage, the commands, the notes.
    public static func tool(_ tool: ToolDeclaration) -> String {
        var lines = [
            "usage: \(tool.name) COMMAND [ARGUMENTS] [OPTIONS]",
            "       \(tool.name) COMMAND --help      a command's arguments and options",
            "       \(tool.name) help [COMMAND]",
            "       \(tool.name) --version",
            "",
            "\(tool.name) \(tool.version): \(tool.summary)",
            "",
            "commands:",
        ]
        let column = (tool.commands.map(\.name.count).max() ?? 0) + 4
        for command in tool.commands {
            lines += table(command.name, command.summary, column: column)
        }
        lines += table("help", "this text, or a command's (as COMMAND --help)", column: column)
        lines.append("")
        for command in tool.commands {
            lines += wrap(items: synopsisItems(command, tool: tool.name), indent: 4)
        }
        if !tool.notes.isEmpty { lines += ["", tool.notes.trimmingTrailingNewlines] }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `headless-table diff OLD NEW [--id KEY] [--format text|json] [--render] …`:
    /// every positional and every option that is not hidden, groups that go
    /// one at a time as `[--offset Y | --row S,R]`.
    public static func synopsis(_ command: CommandDeclaration, tool: String) -> String {
        synopsisItems(command, tool: tool).joined(separator: " ")
    }

    /// The synopsis's items, each kept on one line when wrapped.
    static func synopsisItems(_ command: CommandDeclaration, tool: String) -> [String] {
        var words = [tool] + (command.name.isEmpty ? [] : [command.name]) + command.positionals.map(\.synopsis)
        var done = Set<String>()
        for option in command.options where !option.isHidden && !done.contains(option.name) {
            if let group = command.exclusive.first(where: { $0.contains(option.name) }) {
                let members = group.compactMap(command.option).filter { !$0.isHidden && !done.contains($0.name) }
                done.formUnion(members.map(\.name))
                words.append("[" + members.map(\.synopsis).joined(separator: " | ") + "]")
            } else {
                done.insert(option.name)
                words.append("[\(option.synopsis)]")
            }
        }
        return words
    }

    /// A command's help: usage, what it does, its arguments and options
    /// (with defaults, ranges and the options they apply with), the discussion.
    public static func command(_ command: CommandDeclaration, tool: String, version: Bool = false) -> String {
        let items = synopsisItems(command, tool: tool)
        var lines = wrap(items: ["usage:"] + items, indent: 7 + items.prefix(command.name.isEmpty ? 1 : 2).joined(separator: " ").count + 1)
        lines += [""] + wrap(command.summary, indent: 0, first: 0)
        let options = command.options.filter { !$0.isHidden }
        let column = min(26, max(
            (command.positionals.map(\.name.count).max() ?? 0) + 4,
            (options.map(\.synopsis.count).max() ?? 0) + 4,
            "-h, --help".count + 4))
        if !command.positionals.isEmpty {
            lines += ["", "arguments:"]
            for positional in command.positionals {
                lines += table(positional.name, positional.help + (positional.isOptional ? " (optional)" : ""), column: column)
            }
        }
        lines += ["", "options:"]
        for option in options {
            lines += table(option.synopsis, describe(option, in: command), column: column)
        }
        lines += table("-h, --help", "this help", column: column)
        if version { lines += table("--version", "the version", column: column) }
        if !command.discussion.isEmpty { lines += [""] + wrap(command.discussion.trimmingTrailingNewlines, indent: 0, first: 0) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// An option's help with what the declaration adds: range, default,
    /// repetition, the option it applies with, the ones it excludes.
    static func describe(_ option: OptionDeclaration, in command: CommandDeclaration) -> String {
        var notes: [String] = []
        if let range = option.kind.rangeText { notes.append(range) }
        if let value = option.defaultValue ?? option.defaultNote { notes.append("default \(value)") }
        if option.repeatable { notes.append("repeatable") }
        if let required = option.requires { notes.append("only with --\(required)") }
        var excluded: [String] = []
        for group in command.exclusive where group.contains(option.name) {
            for name in group where name != option.name && !excluded.contains(name) && command.option(name)?.isHidden == false {
                excluded.append(name)
            }
        }
        if !excluded.isEmpty { notes.append("not with " + excluded.map { "--" + $0 }.joined(separator: ", ")) }
        return option.help + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))")
    }

    /// `  name    text…`, the text wrapped at ``width`` in its column; on the
    /// next line when the name does not fit.
    static func table(_ name: String, _ text: String, column: Int) -> [String] {
        let head = "  " + name
        let body = wrap(text, indent: column + 2, first: column + 2)
        guard head.count + 2 <= column + 2, let first = body.first else {
            return [head] + body
        }
        return [head + String(repeating: " ", count: column + 2 - head.count) + first.drop { $0 == " " }] + body.dropFirst()
    }

    /// Items joined by spaces and wrapped at ``width``, none broken; lines
    /// after the first indented by `indent`.
    static func wrap(items: [String], indent: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for item in items {
            if !line.isEmpty && line.count + 1 + item.count > width && line.count > indent {
                lines.append(line)
                line = String(repeating: " ", count: indent) + item
            } else {
                line += (line.isEmpty ? "" : " ") + item
            }
        }
        return lines + [line]
    }

    /// Words wrapped at ``width``: the first line indented by `first`, the
    /// others by `indent` (a word longer than a line stays whole).
    static func wrap(_ text: String, indent: Int, first: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(repeating: " ", count: lines.isEmpty ? first : indent)
            var empty = true
            for word in paragraph.split(separator: " ") {
                if !empty && line.count + 1 + word.count > width {
                    lines.append(line)
                    line = String(repeating: " ", count: indent)
                    empty = true
                }
                line += (empty ? "" : " ") + word
                empty = false
            }
            lines.append(empty ? "" : line)
        }
        return lines
    }
}

extension String {
    var trimmingTrailingNewlines: String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
