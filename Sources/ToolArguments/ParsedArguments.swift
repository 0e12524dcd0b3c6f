/// A command line parsed by a command's declaration: every value already
/// checked against its kind and range, every rule between options kept.
package struct ParsedArguments: Sendable {
    package let command: CommandDeclaration
    /// The values of each option given, in order (a flag's is `""`).
    package private(set) var values: [String: [String]] = [:]
    /// The options with an optional value given without one (`--index` alone).
    package private(set) var bare: Set<String> = []
    /// The positionals given, by name.
    package private(set) var positionals: [String: String] = [:]

    init(command: CommandDeclaration) { self.command = command }

    /// Adds a value of `option` (nil: given without its optional value).
    mutating func add(_ value: String?, to option: String) {
        values[option, default: []].append(value ?? "")
        if value == nil { bare.insert(option) } else { bare.remove(option) }
    }
    mutating func set(_ value: String, positional name: String) { positionals[name] = value }

    /// Whether `--name` was given.
    package func isGiven(_ name: String) -> Bool { values[name] != nil }

    /// Whether the flag `--name` was given.
    package func flag(_ name: String) -> Bool { isGiven(name) }

    /// The value of `--name`, or its default; nil when neither (or given without its optional value).
    package func string(_ name: String) -> String? {
        if let value = values[name]?.last { return bare.contains(name) ? nil : value }
        return command.option(name)?.defaultValue
    }

    /// Every value of a repeatable `--name`, in order.
    package func strings(_ name: String) -> [String] { values[name] ?? [] }

    /// A whole-number option's value (checked when parsing), or its default.
    package func integer(_ name: String) -> Int? { string(name).flatMap { Int($0) } }

    /// A number option's value (checked when parsing), or its default.
    package func number(_ name: String) -> Double? { string(name).flatMap { Double($0) } }

    /// The positional `name`, if given.
    package func positional(_ name: String) -> String? { positionals[name] }
}

/// What a command line asks for.
package enum Invocation: Sendable {
    /// Run a command with these arguments.
    case run(ParsedArguments)
    /// Print this help on standard output; exit 0.
    case help(String)
    /// Print this version line on standard output; exit 0.
    case version(String)
    /// No command given: print this usage on standard error; exit 2.
    case missingCommand(String)
}
