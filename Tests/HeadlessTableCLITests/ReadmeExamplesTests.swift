import Foundation
import TableTestSupport
import Testing

/// Every command-line example in the README, run as printed.
///
/// An example is a line `$ swift run headless-table ARGUMENTS` (continued with
/// a trailing `\`) in a code block, followed by what it prints, up to the
/// next `$` line or the end of the block. It runs from the repository's root
/// with the built tool; what it prints (standard output, then standard error)
/// must be those lines, but for spaces at line ends (the README trims them)
/// and a last line `…`, which stands for whatever follows. `$ cat FILE`
/// lines print the file, which must exist.
@Suite struct ReadmeExamplesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Example: CustomStringConvertible {
        var line: Int
        var command: [String]
        var expected: [String]
        var description: String { "README.md:\(line): \(command.joined(separator: " "))" }
    }

    /// The examples, in the order they appear.
    static func examples() throws -> [Example] {
        let text = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        var examples: [Example] = []
        var inBlock = false
        var current: Example?
        var continued: (line: Int, text: String)?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("```") {
                if let example = current { examples.append(example) }
                current = nil
                inBlock.toggle()
                continue
            }
            guard inBlock else { continue }
            if let (start, sofar) = continued {
                let joined = sofar + " " + line.trimmingCharacters(in: .whitespaces)
                if joined.hasSuffix("\\") {
                    continued = (start, String(joined.dropLast()))
                } else {
                    continued = nil
                    current = Example(line: start, command: try words(joined), expected: [])
                }
                continue
            }
            if line.hasPrefix("$ ") {
                if let example = current { examples.append(example) }
                current = nil
                let command = String(line.dropFirst(2))
                if command.hasSuffix("\\") {
                    continued = (index + 1, String(command.dropLast()))
                } else {
                    current = Example(line: index + 1, command: try words(command), expected: [])
                }
                continue
            }
            current?.expected.append(line)
        }
        return examples
    }

    /// A command line split into words as a POSIX shell would (quotes, escapes).
    static func words(_ line: String) throws -> [String] {
        var words: [String] = [], word = "", inWord = false
        var quote: Character?
        var escaped = false
        for c in line {
            if escaped { word.append(c); escaped = false; inWord = true; continue }
            if let q = quote {
                if c == q { quote = nil } else if c == "\\" && q == "\"" { escaped = true } else { word.append(c) }
                continue
            }
            switch c {
            case "'", "\"": quote = c; inWord = true
            case "\\": escaped = true
            case " ", "\t": if inWord { words.append(word); word = ""; inWord = false }
            default: word.append(c); inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    @Test func everyToolExampleRunsAsPrinted() throws {
        let examples = try Self.examples()
        let tool = examples.filter { $0.command.starts(with: ["swift", "run", "headless-table"]) }
        #expect(tool.count >= 6, "the README's tool examples were not found: \(examples)")
        for example in examples {
            if example.command.first == "cat", example.command.count == 2 {
                let file = Self.root.appendingPathComponent(example.command[1])
                let contents = try? String(contentsOf: file, encoding: .utf8)
                #expect(contents?.components(separatedBy: "\n").dropLast() == example.expected[...],
                        "\(example): the file is missing or differs from what the README shows")
                continue
            }
            guard example.command.starts(with: ["swift", "run", "headless-table"]) else { continue }
            let result = try BuiltExecutable.run("headless-table", Array(example.command.dropFirst(3)), in: Self.root)
            var printed = (result.out + result.err).components(separatedBy: "\n")
            if printed.last == "" { printed.removeLast() }
            printed = printed.map { String($0.reversed().drop(while: { $0 == " " }).reversed()) }
            var expected = example.expected
            while expected.last == "" { expected.removeLast() }
            if expected.last == "…" {
                expected.removeLast()
                #expect(Array(printed.prefix(expected.count)) == expected, "\(example) printed:\n\(printed.joined(separator: "\n"))")
            } else {
                #expect(printed == expected, "\(example) printed:\n\(printed.joined(separator: "\n"))")
            }
        }
    }
}
