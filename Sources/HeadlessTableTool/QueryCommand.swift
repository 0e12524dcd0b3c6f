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
        positionals: [PositionalDeclaration("DATA", help: "a JSON array of objects (- for standard input)")],
        options: Query.options(limits: true) + [OutputFormat.option],
        exclusive: [["section-key", "index"]],
        discussion: """
            Nested objects are to-one values, arrays to-many, {"$date": "ISO-8601"} a date.
            Without --sort, objects keep the data's order. A malformed predicate, a type
            error while evaluating (name > 5), an unbound variable or bad input exits 1.
            """)

    static func run(_ parsed: ParsedArguments, output: CommandOutput) throws {
        let format = OutputFormat(parsed)
        var query = try Query.parse(parsed)
        let path = parsed.positional("DATA") ?? "-"
        try query.compile()
        let sections = try query.sections(of: path)
        let (predicate, sectionKey, sectionLabel) = (query.predicate, query.sectionKey, query.sectionLabel)
        switch format {
        case .json:
            let list = sections.map { section in
                "{\"name\":\(JSON.string(.string(section.name))),\"indexTitle\":\(section.indexTitle.map { JSON.string(.string($0)) } ?? "null"),"
                    + "\"ids\":[\(section.objects.map { JSON.string($0.id) }.joined(separator: ","))]}"
            }
            output.out("{\"sections\":[\(list.joined(separator: ","))]}\n")
        case .text:
            let total = sections.reduce(0) { $0 + $1.objects.count }
            var lines = ["\(total) object\(total == 1 ? "" : "s")\(predicate.map { " where \($0)" } ?? "")"
                + (sectionKey == nil ? "" : ", \(sections.count) section\(sections.count == 1 ? "" : "s") by \(sectionLabel)")]
            for section in sections {
                if sectionKey != nil { lines.append("\(section.name.isEmpty ? "(no \(sectionKey ?? ""))" : section.name) (\(section.objects.count))") }
                lines += section.objects.map { "  " + JSON.string(.record($0.fields)) }
            }
            output.out(lines.joined(separator: "\n") + "\n")
        }
    }
}
