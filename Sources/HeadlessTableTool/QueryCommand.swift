import Foundation
import HeadlessTable
import ToolArguments

/// `headless-table query DATA [--where FORMAT] [--arg JSON]… [--var NAME=JSON]…
/// [--sort KEY[,-KEY]…] [--section-key KEY | --index KEY [--locale L]] [--limit N] [--offset N] [--format text|json]`
///
/// The objects of DATA (a JSON array of objects with an `id`) that match the
/// predicate, sorted and sectioned by a fetched results controller on an
/// in-memory store.
enum QueryCommand {
    static let declaration = CommandDeclaration(
        "query",
        summary: "the objects of DATA that a predicate matches, sorted and sectioned as a fetched results controller would",
        positionals: [PositionalDeclaration("DATA", help: "a JSON array of objects, or a model file with --entity (- for standard input)")],
        options: Query.options(limits: true) + [OutputFormat.option],
        exclusive: [["section-key", "index"]],
        discussion: """
            Nested objects are to-one values, arrays to-many, {"$date": "ISO-8601"} a date.
            Without --sort, objects keep the data's order. A malformed predicate, a type
            error while evaluating (name > 5), an unbound variable or bad input exits 1.
            """ + "\n\n" + IndexOption.discussion)

    static func run(_ parsed: ParsedArguments, output: CommandOutput) throws {
        let format = OutputFormat(parsed)
        var query = try Query.parse(parsed)
        let path = parsed.positional("DATA") ?? "-"
        try query.compile()
        if query.sortKeys.isEmpty && query.sectionKey == nil && query.entity == nil {
            // No order asked for: the data's order, streamed as the file is read.
            return try streamed(query, path: path, format: format, output: output)
        }
        let sections = try query.sections(of: path)
        let (predicate, sectionKey, sectionLabel) = (query.predicate, query.sectionKey, query.sectionLabel)
        // Written a piece at a time: a million rows are not one string.
        var text = OutputBuffer()
        switch format {
        case .json:
            output.out("{\"sections\":[")
            for (k, section) in sections.enumerated() {
                text.append(k == 0 ? "{\"name\":" : ",{\"name\":")
                JSON.write(.string(section.name), into: &text.current)
                text.append(",\"indexTitle\":")
                JSON.write(section.indexTitle.map { .string($0) } ?? .null, into: &text.current)
                text.append(",\"ids\":[")
                for (j, object) in section.objects.enumerated() {
                    if j > 0 { text.append(",") }
                    JSON.write(object.id, into: &text.current)
                    text.flushIfFull()
                }
                text.append("]}")
            }
            text.write(to: output)
            output.out("]}\n")
        case .text:
            let total = sections.reduce(0) { $0 + $1.objects.count }
            output.out("\(total) object\(total == 1 ? "" : "s")\(predicate.map { " where \($0)" } ?? "")"
                + (sectionKey == nil ? "" : ", \(sections.count) section\(sections.count == 1 ? "" : "s") by \(sectionLabel)") + "\n")
            for section in sections {
                if sectionKey != nil {
                    text.current += "\(section.name.isEmpty ? "(no \(sectionKey ?? ""))" : section.name) (\(section.objects.count))\n".utf8
                }
                for object in section.objects {
                    text.append("  ")
                    JSON.write(.record(object.fields), into: &text.current)
                    text.append("\n")
                    text.flushIfFull()
                }
            }
            text.write(to: output)
        }
    }
}

extension QueryCommand {
    /// The matches in the data's order, read a piece at a time: no store, and
    /// only the output (and the identities, to find duplicates) held until
    /// the file has been read. Prints what the store's fetch would.
    static func streamed(_ query: Query, path: String, format: OutputFormat, output: CommandOutput) throws {
        var text = OutputBuffer()
        var total = 0
        var first = true
        let count = try query.forEachMatch(in: path) { object in
            total += 1
            switch format {
            case .json:
                if !first { text.append(",") }
                JSON.write(object.id, into: &text.current)
            case .text:
                text.append("  ")
                JSON.write(.record(object.fields), into: &text.current)
                text.append("\n")
            }
            first = false
            text.flushIfFull()
        }
        switch format {
        case .json:
            output.out("{\"sections\":[{\"name\":\"\",\"indexTitle\":null,\"ids\":[")
            text.write(to: output)
            output.out("]}]}\n")
        case .text:
            output.out("\(count) object\(count == 1 ? "" : "s")\(query.predicate.map { " where \($0)" } ?? "")\n")
            text.write(to: output)
        }
    }
}

/// Text written in pieces of about a megabyte, kept until it is printed.
struct OutputBuffer {
    var pieces: [[UInt8]] = []
    var current: [UInt8] = []

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { current.append(contentsOf: $0) }
    }

    mutating func flushIfFull() {
        if current.count >= 1 << 20 {
            pieces.append(current)
            current = []
            current.reserveCapacity(1 << 20 + 4096)
        }
    }

    /// Prints the pieces, letting each go once printed.
    mutating func write(to output: CommandOutput) {
        for k in pieces.indices {
            output.out(String(decoding: pieces[k], as: UTF8.self))
            pieces[k] = []
        }
        if !current.isEmpty { output.out(String(decoding: current, as: UTF8.self)) }
        pieces = []
        current = []
    }
}
