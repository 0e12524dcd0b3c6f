/// A command of a tool, declared once: what it takes and what it does.
/// Parsing (``ArgumentParser``) and help (``HelpText``) read only this.
public struct CommandDeclaration: Sendable {
    /// The word that runs it (`diff`); empty for a tool without commands.
    public var name: String
    /// One line for the tool's list of commands.
    public var summary: String
    public var positionals: [PositionalDeclaration]
    public var options: [OptionDeclaration]
    /// Options of which at most one may be given (`--offset` and `--row`).
    public var exclusive: [[String]]
    /// Paragraphs after the options in the command's help.
    public var discussion: String

    public init(
        _ name: String, summary: String, positionals: [PositionalDeclaration] = [], options: [OptionDeclaration] = [],
        exclusive: [[String]] = [], discussion: String = ""
    ) {
        self.name = name
        self.summary = summary
        self.positionals = positionals
        self.options = options
        self.exclusive = exclusive
        self.discussion = discussion
    }

    /// The option called `name` (without dashes), if declared.
    public func option(_ name: String) -> OptionDeclaration? { options.first { $0.name == name } }
}

/// A tool: its commands, its version, and the notes its help ends with.
public struct ToolDeclaration: Sendable {
    public var name: String
    public var version: String
    public var summary: String
    public var commands: [CommandDeclaration]
    /// Paragraphs after the list of commands in the tool's help.
    public var notes: String

    public init(name: String, version: String, summary: String, commands: [CommandDeclaration], notes: String = "") {
        self.name = name
        self.version = version
        self.summary = summary
        self.commands = commands
        self.notes = notes
    }

    public func command(_ name: String) -> CommandDeclaration? { commands.first { $0.name == name } }
}
