/// What an option takes: nothing (a flag), a text, one of a few words, or a
/// number in a range. The range is checked when parsing and shown in help.
public enum ValueKind: Sendable, Equatable {
    /// No value: the option is there or not.
    case flag
    /// Any text; the name stands for it in usage (`KEY`, `FORMAT`).
    case text(String)
    /// One of these words (`text|json`).
    case choice([String])
    /// A whole number in a range (`W`, 1…10000).
    case integer(String, ClosedRange<Int>)
    /// A number in a range (`S`, 0.01…1000000000).
    case number(String, ClosedRange<Double>)

    /// How usage shows the value: `KEY`, `text|json`, `W`; nil for a flag.
    public var placeholder: String? {
        switch self {
        case .flag: nil
        case .text(let name), .integer(let name, _), .number(let name, _): name
        case .choice(let words): words.joined(separator: "|")
        }
    }

    /// The range as help shows it (`1…10000`), if any.
    public var rangeText: String? {
        switch self {
        case .integer(_, let range): range.upperBound == Int.max ? "at least \(range.lowerBound)" : "\(range.lowerBound)…\(range.upperBound)"
        case .number(_, let range): "\(Self.format(range.lowerBound))…\(Self.format(range.upperBound))"
        default: nil
        }
    }

    /// A number as people write it: `10`, not `10.0`.
    public static func format(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : String(x)
    }

    /// Checks `text` as this kind's value for `option`; the message says what it takes.
    func check(_ text: String, option: String) throws(UsageError) {
        switch self {
        case .flag:
            throw UsageError("\(option) takes no value, not '\(UsageError.excerpt(text))'")
        case .text:
            return
        case .choice(let words):
            guard words.contains(text) else {
                throw UsageError("\(option) takes \(Self.list(words)), not '\(UsageError.excerpt(text))'"
                    + (EditDistance.closest(to: text, among: words).map { " (did you mean '\($0)'?)" } ?? ""))
            }
        case .integer(_, let range):
            guard let n = Int(text), range.contains(n) else {
                let bounds = range.upperBound == Int.max ? "of at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
                throw UsageError("\(option) takes a whole number \(bounds), not '\(UsageError.excerpt(text))'")
            }
        case .number(_, let range):
            guard let x = Double(text), x.isFinite, range.contains(x) else {
                throw UsageError("\(option) takes a number from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound)), not '\(UsageError.excerpt(text))'")
            }
        }
    }

    /// `a, b or c`.
    static func list(_ words: [String]) -> String {
        words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + (words.last ?? "")
    }
}
