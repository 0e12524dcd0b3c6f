/// An option a command takes, declared once: parsing, usage and help all
/// come from it.
public struct OptionDeclaration: Sendable {
    /// The name without dashes: `width` is given as `--width 40` or `--width=40`.
    public var name: String
    public var kind: ValueKind
    /// One line (or a few) for the command's help.
    public var help: String
    /// The value when the option is not given, shown in help (nil: none).
    public var defaultValue: String?
    /// What help says the default is when it is not a value (`the tallest stage`).
    public var defaultNote: String?
    /// Whether it may be given more than once (each value kept, in order).
    public var repeatable: Bool
    /// Another option this one only applies with (`width` with `render` on `diff`).
    public var requires: String?
    /// Whether the value may be left out (`--index` alone, or `--index KEY`):
    /// the next argument is the value only when it does not start with `-`.
    public var valueIsOptional: Bool
    /// Left out of usage and help (the benchmarks' internal `--child`).
    public var isHidden: Bool

    public init(
        _ name: String, _ kind: ValueKind, help: String, default defaultValue: String? = nil,
        defaultNote: String? = nil, repeatable: Bool = false, requires: String? = nil, valueIsOptional: Bool = false,
        isHidden: Bool = false
    ) {
        self.defaultNote = defaultNote
        self.name = name
        self.kind = kind
        self.help = help
        self.defaultValue = defaultValue
        self.repeatable = repeatable
        self.requires = requires
        self.valueIsOptional = valueIsOptional
        self.isHidden = isHidden
    }

    /// A flag: `--ascii`.
    public static func flag(_ name: String, help: String, requires: String? = nil) -> OptionDeclaration {
        OptionDeclaration(name, .flag, help: help, requires: requires)
    }

    /// `--name`.
    public var spelled: String { "--" + name }

    /// `--width W`, `--index [KEY]`, `--ascii`, `--arg JSON…`.
    public var synopsis: String {
        guard let placeholder = kind.placeholder else { return spelled }
        return spelled + (valueIsOptional ? " [\(placeholder)]" : " \(placeholder)") + (repeatable && !placeholder.hasSuffix("…") ? "…" : "")
    }
}

/// A positional argument: a file (where `-` is standard input) or a word.
public struct PositionalDeclaration: Sendable {
    /// As usage shows it: `DATA`, `OLD`.
    public var name: String
    public var help: String
    public var isOptional: Bool

    public init(_ name: String, help: String, isOptional: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
    }

    /// `DATA` or `[DATA]`.
    public var synopsis: String { isOptional ? "[\(name)]" : name }
}
