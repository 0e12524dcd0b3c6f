import Foundation

/// The code a document of the repository shows, for the tests that run that
/// code as written there.
public enum DocumentedCode {
    /// The repository's root (the folder above `Tests`).
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The lines of the document at `path` (from the repository's root) that
    /// are inside its fenced code blocks, each without its indentation, its
    /// trailing `// …` comment and trailing spaces; empty lines left out.
    public static func codeLines(of path: String) throws -> Set<String> {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        var lines = Set<String>()
        var inBlock = false
        for line in text.components(separatedBy: "\n") {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inBlock.toggle()
                continue
            }
            guard inBlock else { continue }
            let code = normalized(line)
            if !code.isEmpty { lines.insert(code) }
        }
        return lines
    }

    /// The lines of `code` that `document` does not show (normalized as
    /// ``codeLines(of:)`` does): empty when the document shows all of it.
    public static func linesMissing(from document: String, _ code: String) throws -> [String] {
        let shown = try codeLines(of: document)
        return code.components(separatedBy: "\n").map(normalized).filter { !$0.isEmpty && !shown.contains($0) }
    }

    /// `line` without its indentation, its trailing `// …` comment and spaces.
    static func normalized(_ line: String) -> String {
        var code = Substring(line)
        if let comment = code.range(of: " // ") ?? code.range(of: "  //") { code = code[..<comment.lowerBound] }
        return code.trimmingCharacters(in: .whitespaces)
    }
}
