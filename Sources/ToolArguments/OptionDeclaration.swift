/// An option a command takes, declared once: parsing, usage and help all
/// come from it.
package struct OptionDeclaration: Sendable {
    /// The name without dashes: `width` is given as `--width 40` or `--width=40`.
    package var name: String
    package var kind: ValueKind
    /// One line (or a few) for the command's help.
    package var help: String
    /// The value when the option is not given, shown in help (nil: none).
    package var defaultValue: String?
    /// What help says the default is when it is not a value (`the tallest stage`).
    package var defaultNote: String?
    /// Whether it may be given more than once (each value kept, in order).
    package var repeatable: Bool
    /// Another option this one only applies with (`width` with `render` on `diff`).
    package var requires: String?
    /// Whether the value may be left out (`--index` alone, or `--index KEY`):
    /// the next argument is the value only when it does not start with `-`.
    package var valueIsOptional: Bool
    /// Left out of usage and help (the benchmarks' internal `--child`).
    package var isHidden: Bool

    package init(
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
    package static func flag(_ name: String, help: String, requires: String? = nil) -> OptionDeclaration {
        OptionDeclaration(name, .flag, help: help, requires: requires)
    }

    /// `--name`.
    package var spelled: String { "--" + name }

    /// `--width W`, `--index [KEY]`, `--ascii`, `--arg JSON…`.
    package var synopsis: String {
        guard let placeholder = kind.placeholder else { return spelled }
        return spelled + (valueIsOptional ? " [\(placeholder)]" : " \(placeholder)") + (repeatable && !placeholder.hasSuffix("…") ? "…" : "")
    }
}

/// A positional argument: a file (where `-` is standard input) or a word.
package struct PositionalDeclaration: Sendable {
    /// As usage shows it: `DATA`, `OLD`.
    package var name: String
    package var help: String
    package var isOptional: Bool

    package init(_ name: String, help: String, isOptional: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
    }

    /// `DATA` or `[DATA]`.
    package var synopsis: String { isOptional ? "[\(name)]" : name }
}
