import TableDiff
/// Text measured in terminal columns: what a monospaced terminal gives each
/// character, and text cut or padded to an exact number of columns.
///
/// A character (a grapheme cluster) takes the columns of its first scalar —
/// two for East Asian Wide and Fullwidth ones (CJK, Hangul syllables, most
/// emoji), none for combining marks and format characters standing alone, one
/// for the rest — except that an emoji made to show as emoji (`U+FE0F`) and a
/// flag take two. Control characters (a newline, a tab) would move the
/// cursor, and bidirectional controls (a right-to-left override, U+202E)
/// would reorder what a person reads after them: ``sanitized(_:)`` turns
/// each into one space first.
///
/// ```swift
/// TerminalText.width(of: "中文 ok")                   // 7
/// TerminalText.fitting("Grüße aus Köln", into: 8)   // "Grüße a…"
/// ```
public enum TerminalText {
    /// Where text shorter than its columns goes.
    public enum Alignment: Hashable, Sendable { case left, right, center }

    /// The columns one character takes: 0, 1 or 2.
    public static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.value < 0x7F { return first.value >= 0x20 ? 1 : 0 }
        if _isWide(first.value) { return 2 }
        let properties = first.properties
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control:
            return 0
        default:
            break
        }
        if (0x1160...0x11FF).contains(first.value) || (0xD7B0...0xD7FF).contains(first.value) { return 0 }   // Hangul medial vowels and finals
        if (0x1F1E6...0x1F1FF).contains(first.value) { return 2 }   // regional indicators: flags
        if properties.isEmoji && scalars.contains("\u{FE0F}") { return 2 }
        return 1
    }

    /// The columns a text takes (after ``sanitized(_:)``, which does not
    /// change it for text without control characters).
    ///
    /// - Complexity: O(*n*); one byte scan for ASCII text.
    public static func width(of text: some StringProtocol) -> Int {
        var ascii = true
        for byte in text.utf8 where byte < 0x20 || byte >= 0x7F {
            ascii = false
            break
        }
        if ascii { return text.utf8.count }
        return text.reduce(0) { $0 + (isControl($1) ? 1 : width(of: $1)) }
    }

    /// The text with every control character — a newline, a tab, a carriage
    /// return, any other C0 or C1 control — and every bidirectional control
    /// (the embeddings, overrides and isolates U+202A–U+202E and
    /// U+2066–U+2069, the marks U+200E, U+200F and U+061C) as one space, so
    /// that it stays on its line, keeps its columns and reads in the order
    /// it is written.
    ///
    /// - Complexity: O(*n*); one scan of the scalars for text without them.
    public static func sanitized(_ text: String) -> String {
        guard hasControl(text) else { return text }
        return String(text.map { isControl($0) ? " " : $0 })
    }

    /// Whether the text holds a scalar ``isControl(_:)`` finds, scalar by
    /// scalar: text with an ellipsis, a dash or a box-drawing character is
    /// not walked character by character.
    package static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { isControl($0.value) }
    }

    /// The text in exactly `width` columns: padded with spaces as `alignment`
    /// says, or cut at the end with `ellipsis` when it does not fit. A wide
    /// character that would straddle the cut is replaced by a space. An
    /// ellipsis wider than `width` is dropped.
    public static func fitting(_ text: String, into width: Int, alignment: Alignment = .left, ellipsis: String = "…") -> String {
        guard width > 0 else { return "" }
        let clean = sanitized(text)
        let used = Self.width(of: clean)
        if used <= width {
            let gap = width - used
            switch alignment {
            case .left: return clean + String(repeating: " ", count: gap)
            case .right: return String(repeating: " ", count: gap) + clean
            case .center: return String(repeating: " ", count: gap / 2) + clean + String(repeating: " ", count: gap - gap / 2)
            }
        }
        let mark = Self.width(of: ellipsis) <= width ? sanitized(ellipsis) : ""
        let room = width - Self.width(of: mark)
        var result = "", taken = 0
        for character in clean {
            let w = Self.width(of: character)
            if taken + w > room { break }
            result.append(character)
            taken += w
        }
        return result + String(repeating: " ", count: room - taken) + mark
    }

    /// Whether a character is one ``sanitized(_:)`` turns into a space: a C0
    /// or C1 control, or a bidirectional control (each is a character of its
    /// own: a grapheme break comes before and after it).
    package static func isControl(_ character: Character) -> Bool {
        guard let first = character.unicodeScalars.first else { return false }
        return isControl(first.value)
    }

    /// Whether a scalar is a C0 or C1 control or a bidirectional control.
    static func isControl(_ value: UInt32) -> Bool {
        switch value {
        case 0..<0x20, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    static func _isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        var lo = 0, hi = _wideRanges.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if _wideRanges[mid].upperBound < value { lo = mid + 1 } else { hi = mid }
        }
        return lo < _wideRanges.count && _wideRanges[lo].contains(value)
    }
}
