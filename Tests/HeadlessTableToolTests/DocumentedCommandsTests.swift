import Foundation
import TableTestSupport
import Testing

/// Every command-line example in the documentation, run as printed: the
/// README, CONTRIBUTING, the examples' and benchmarks' READMEs, and every
/// article of the DocC catalogs (the getting-started tour and the tool's
/// reference hold most of them).
///
/// An example is a line `$ swift run headless-table ARGUMENTS` (continued with
/// a trailing `\`) in a code block, followed by what it prints, up to the
/// next `$` line or the end of the block. It runs from the repository's root
/// with the built tool; what it prints (standard output, then standard error)
/// must be those lines, but for spaces at line ends (the documents trim them)
/// and a last line `…`, which stands for whatever follows. `$ cat FILE`
/// lines print the file, which must exist.
@Suite struct DocumentedCommandsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Example: CustomStringConvertible {
        var file: String
        var line: Int
        var command: [String]
        var expected: [String]
        var description: String { "\(file):\(line): \(command.joined(separator: " "))" }
    }

    /// The documents, as paths from the repository's root: the top-level
    /// Markdown files and every article of every module's catalog.
    static func documents() throws -> [String] {
        let manager = FileManager.default
        var documents = ["README.md", "CONTRIBUTING.md", "Examples/README.md", "Benchmarks/README.md"]
        let sources = root.appendingPathComponent("Sources")
        for module in try manager.contentsOfDirectory(atPath: sources.path).sorted() {
            let catalog = "Sources/\(module)/\(module).docc"
            guard let articles = try? manager.contentsOfDirectory(atPath: root.appendingPathComponent(catalog).path) else { continue }
            documents += articles.filter { $0.hasSuffix(".md") }.sorted().map { "\(catalog)/\($0)" }
        }
        return documents.filter { manager.fileExists(atPath: root.appendingPathComponent($0).path) }
    }

    /// The examples of every document, in the order they appear.
    static func examples() throws -> [Example] {
        try documents().flatMap { try examples(in: $0) }
    }

    /// The examples of the document at `file` (a path from the repository's root).
    static func examples(in file: String) throws -> [Example] {
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
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
                    current = Example(file: file, line: start, command: try words(joined), expected: [])
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
                    current = Example(file: file, line: index + 1, command: try words(command), expected: [])
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
        // The tool's reference and the tour hold 15 today: finding fewer means
        // the parser or a document lost them.
        #expect(tool.count >= 15, "the documents' tool examples were not found: \(examples)")
        for document in ["CommandLineTool.md", "GettingStarted.md"] {
            #expect(tool.contains { $0.file.hasSuffix("/" + document) }, "no tool example found in \(document)")
        }
        for example in examples {
            if example.command.first == "cat", example.command.count == 2 {
                let file = Self.root.appendingPathComponent(example.command[1])
                let contents = try? String(contentsOf: file, encoding: .utf8)
                expectEqual(contents?.components(separatedBy: "\n").dropLast(), example.expected[...],
                        "\(example): the file is missing or differs from what the document shows")
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
                expectEqual(Array(printed.prefix(expected.count)), expected, "\(example) printed:\n\(printed.joined(separator: "\n"))")
            } else {
                expectEqual(printed, expected, "\(example) printed:\n\(printed.joined(separator: "\n"))")
            }
        }
    }

    /// The synopsis the README and the tool's reference show is the one the
    /// tool's help prints (made from the commands' declarations).
    @Test func theDocumentedSynopsisIsTheHelps() throws {
        let help = try BuiltExecutable.run("headless-table", ["--help"], in: Self.root)
        let lines = help.out.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("headless-table demo") })
        let end = lines[start...].firstIndex(of: "") ?? lines.endIndex
        let synopsis = "```text\n" + lines[start..<end].joined(separator: "\n") + "\n```\n"
        for document in ["README.md", "Sources/HeadlessTable/HeadlessTable.docc/CommandLineTool.md"] {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            #expect(text.contains(synopsis), "\(document) should show the synopsis as --help prints it:\n\(synopsis)")
        }
    }
}
