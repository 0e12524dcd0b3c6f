import Foundation
import HeadlessTable
import ToolArguments

/// A predicate's syntax error for a terminal: the format echoed whole when
/// it is short, else only a window around the offset, so that a 60,000-level
/// predicate does not come back as 240 KB of error.
enum PredicateMessage {
    /// The characters of the format shown on each side of the offset.
    static let window = 30

    static func syntax(_ error: PredicateSyntaxError) -> String {
        let expected = UsageError.excerpt(error.expected, length: 120)
        let found = UsageError.excerpt(error.found, length: 60)
        let format = error.format
        guard format.count > UsageError.excerptLength else {
            return "--where: \(PredicateSyntaxError(format: format, offset: error.offset, found: found, expected: expected))\n\(error.excerpt)"
        }
        let characters = Array(format)
        let offset = min(max(0, error.offset), characters.count)
        let start = max(0, offset - window), end = min(characters.count, offset + window)
        let before = start > 0 ? "…" : "", after = end < characters.count ? "…" : ""
        let line = before + String(characters[start..<end].map { $0.isNewline || $0 == "\t" ? " " : $0 }) + after
        return "--where: at offset \(offset) of the format (\(characters.count) characters): expected \(expected), found \(found)\n"
            + line + "\n" + String(repeating: " ", count: before.count + offset - start) + "^"
    }
}
