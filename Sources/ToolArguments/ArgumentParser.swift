/// Parses command lines by their declarations (``ToolDeclaration``,
/// ``CommandDeclaration``), by the conventions of command-line tools:
///
/// - options anywhere among the positionals, as `--name VALUE` or `--name=VALUE`;
/// - `--` ends the options: every argument after it is a positional;
/// - `-` is a positional (a file argument's standard input);
/// - `-h` or `--help` (before `--`) asks for the command's help, `help
///   [COMMAND]` and `--version` the tool's;
/// - unknown commands and options are refused with the closest declared one
///   ("did you mean"); values are checked against their kind and range;
///   an option given twice, an option without the one it applies with, two of
///   a group that goes one at a time, and a missing or extra positional are
///   refused. Every refusal is one ``UsageError``.
public enum ArgumentParser {
    /// The words that ask for help.
    static let helpWords: Set<String> = ["-h", "--help"]

    /// A tool's command line (without the program's name).
    public static func parse(_ arguments: [String], tool: ToolDeclaration) throws(UsageError) -> Invocation {
        guard let first = arguments.first else { return .missingCommand(HelpText.tool(tool)) }
        let rest = Array(arguments.dropFirst())
        if helpWords.contains(first) { return .help(HelpText.tool(tool)) }
        if first == "--version" { return .version("\(tool.name) \(tool.version)\n") }
        if first == "help" {
            guard let name = rest.first else { return .help(HelpText.tool(tool)) }
            guard rest.count == 1 else { throw UsageError("help takes one COMMAND, not \(rest.count) arguments") }
            return .help(HelpText.command(try command(name, of: tool), tool: tool.name))
        }
        if first.hasPrefix("-") && first != "-" {
            let known = ["--help", "--version"]
            throw UsageError("unknown option \(UsageError.excerpt(first))" + suggestion(first, among: known)
                + "; options go after a COMMAND")
        }
        let command = try command(first, of: tool)
        if helpRequested(rest) { return .help(HelpText.command(command, tool: tool.name)) }
        return .run(try parse(rest, command: command))
    }

    /// The command called `name`, or the refusal naming the closest.
    static func command(_ name: String, of tool: ToolDeclaration) throws(UsageError) -> CommandDeclaration {
        guard let command = tool.command(name) else {
            let names = tool.commands.map(\.name) + ["help"]
            throw UsageError("unknown command '\(UsageError.excerpt(name))'" + suggestion(name, among: names, quoted: true))
        }
        return command
    }

    /// A tool without commands (`table-benchmarks`): help, version, or its arguments.
    public static func parse(_ arguments: [String], single command: CommandDeclaration, tool: String, version: String) throws(UsageError) -> Invocation {
        if helpRequested(arguments) { return .help(HelpText.command(command, tool: tool, version: true)) }
        let end = arguments.firstIndex(of: "--") ?? arguments.count
        if arguments[..<end].contains("--version") { return .version("\(tool) \(version)\n") }
        return .run(try parse(arguments, command: command))
    }

    /// Whether `-h` or `--help` comes before any `--`.
    static func helpRequested(_ arguments: [String]) -> Bool {
        for argument in arguments {
            if argument == "--" { return false }
            if helpWords.contains(argument) { return true }
        }
        return false
    }

    /// A command's arguments (after its name).
    public static func parse(_ arguments: [String], command: CommandDeclaration) throws(UsageError) -> ParsedArguments {
        let name = command.name.isEmpty ? nil : command.name
        do {
            return try parseArguments(arguments, command: command)
        } catch {
            var error = error
            error.command = name
            throw error
        }
    }

    static func parseArguments(_ arguments: [String], command: CommandDeclaration) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments(command: command)
        var positionals: [String] = []
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            guard argument.hasPrefix("--") else {
                throw UsageError("unknown option \(UsageError.excerpt(argument))"
                    + suggestion("-" + argument, among: command.options.filter { !$0.isHidden }.map(\.spelled)))
            }
            let body = argument.dropFirst(2)
            let equals = body.firstIndex(of: "=")
            let name = String(equals.map { body[..<$0] } ?? body)
            guard let option = command.option(name) else {
                throw UsageError("unknown option --\(UsageError.excerpt(name))"
                    + (command.name.isEmpty ? "" : " for \(command.name)")
                    + suggestion("--" + name, among: command.options.filter { !$0.isHidden }.map(\.spelled)))
            }
            let value: String?
            if let equals {
                let text = String(body[body.index(after: equals)...])
                try option.kind.check(text, option: option.spelled)
                value = text
            } else if option.kind == .flag {
                value = ""
            } else if option.valueIsOptional {
                if index < arguments.count, !arguments[index].hasPrefix("-") {
                    try option.kind.check(arguments[index], option: option.spelled)
                    value = arguments[index]
                    index += 1
                } else {
                    value = nil
                }
            } else {
                guard index < arguments.count, !isDeclaredOption(arguments[index], of: command) else {
                    throw UsageError("\(option.spelled) needs a value: \(option.synopsis)")
                }
                try option.kind.check(arguments[index], option: option.spelled)
                value = arguments[index]
                index += 1
            }
            if parsed.isGiven(name) && !option.repeatable {
                throw UsageError("\(option.spelled) is given twice: give it once")
            }
            parsed.add(value, to: name)
        }
        try assign(positionals, to: &parsed)
        try checkRules(parsed)
        return parsed
    }

    /// Whether `argument` is `--name` or `--name=…` of a declared option (not a value).
    static func isDeclaredOption(_ argument: String, of command: CommandDeclaration) -> Bool {
        guard argument.hasPrefix("--") else { return false }
        let body = argument.dropFirst(2)
        return command.option(String(body.prefix { $0 != "=" })) != nil
    }

    static func assign(_ positionals: [String], to parsed: inout ParsedArguments) throws(UsageError) {
        let declared = parsed.command.positionals
        for (k, declaration) in declared.enumerated() {
            guard k < positionals.count else {
                if declaration.isOptional { continue }
                throw UsageError("missing \(declaration.name): \(declaration.help)")
            }
            parsed.set(positionals[k], positional: declaration.name)
        }
        if positionals.count > declared.count {
            let extra = positionals[declared.count]
            throw UsageError("unexpected argument '\(UsageError.excerpt(extra))'"
                + (declared.isEmpty ? ": \(parsed.command.name.isEmpty ? "it" : parsed.command.name) takes no arguments"
                    : ": \(parsed.command.name) takes \(declared.map(\.synopsis).joined(separator: " "))"))
        }
    }

    /// Options that apply only with another, and groups that go one at a time.
    static func checkRules(_ parsed: ParsedArguments) throws(UsageError) {
        let command = parsed.command
        for option in command.options where parsed.isGiven(option.name) {
            if let required = option.requires, !parsed.isGiven(required) {
                throw UsageError("\(option.spelled) applies only with --\(required)")
            }
        }
        for group in command.exclusive {
            let given = group.filter(parsed.isGiven)
            if given.count > 1 {
                throw UsageError(given.map { "--" + $0 }.joined(separator: " and ") + " go one at a time")
            }
        }
    }

    /// ` (did you mean '--width'?)`, or nothing.
    static func suggestion(_ word: String, among candidates: [String], quoted: Bool = false) -> String {
        guard let closest = EditDistance.closest(to: word, among: candidates) else { return "" }
        return quoted ? " (did you mean '\(closest)'?)" : " (did you mean \(closest)?)"
    }
}
