/// A command line parsed by a command's declaration: every value already
/// checked against its kind and range, every rule between options kept.
public struct ParsedArguments: Sendable {
    public let command: CommandDeclaration
    /// The values of each option given, in order (a flag's is `""`).
    public private(set) var values: [String: [String]] = [:]
    /// The options with an optional value given without one (`--index` alone).
    public private(set) var bare: Set<String> = []
    /// The positionals given, by name.
    public private(set) var positionals: [String: String] = [:]

    init(command: CommandDeclaration) { self.command = command }

    /// Adds a value of `option` (nil: given without its optional value).
    mutating func add(_ value: String?, to option: String) {
        values[option, default: []].append(value ?? "")
        if value == nil { bare.insert(option) } else { bare.remove(option) }
    }
    mutating func set(_ value: String, positional name: String) { positionals[name] = value }

    /// Whether `--name` was given.
    public func isGiven(_ name: String) -> Bool { values[name] != nil }

    /// Whether the flag `--name` was given.
    public func flag(_ name: String) -> Bool { isGiven(name) }

    /// The value of `--name`, or its default; nil when neither (or given without its optional value).
    public func string(_ name: String) -> String? {
        if let value = values[name]?.last { return bare.contains(name) ? nil : value }
        return command.option(name)?.defaultValue
    }

    /// Every value of a repeatable `--name`, in order.
    public func strings(_ name: String) -> [String] { values[name] ?? [] }

    /// A whole-number option's value (checked when parsing), or its default.
    public func integer(_ name: String) -> Int? { string(name).flatMap { Int($0) } }

    /// A number option's value (checked when parsing), or its default.
    public func number(_ name: String) -> Double? { string(name).flatMap { Double($0) } }

    /// The positional `name`, if given.
    public func positional(_ name: String) -> String? { positionals[name] }
}

/// What a command line asks for.
public enum Invocation: Sendable {
    /// Run a command with these arguments.
    case run(ParsedArguments)
    /// Print this help on standard output; exit 0.
    case help(String)
    /// Print this version line on standard output; exit 0.
    case version(String)
    /// No command given: print this usage on standard error; exit 2.
    case missingCommand(String)
}
