import Foundation
import HeadlessTable
import ToolArguments

/// `headless-table diff OLD NEW [--id KEY] [--format text|json]
/// [--render [--width W] [--height H] [--ascii] [--text KEY] [--detail KEY]]`
/// (the declaration below is what the tool takes and its help shows).
enum DiffCommand {
    static let declaration = CommandDeclaration(
        "diff",
        summary: "the batch updates from one fetch result (a JSON file) to another; --render draws each stage",
        positionals: [
            PositionalDeclaration("OLD", help: "the fetch result before, as JSON (- for standard input)"),
            PositionalDeclaration("NEW", help: "the fetch result after, as JSON (- for standard input)"),
        ],
        options: [
            OptionDeclaration("id", .text("KEY"), help: "the key whose value identifies a row", default: "id"),
            OutputFormat.option,
            .flag("render", help: "draws each stage as a table applies it: the table before, the batch, after"),
            ReadProgress.quietOption,
        ] + DrawingOptions.options(requires: "render", height: "the tallest stage, at most 50"),
        discussion: """
            A fetch result is {"sections":[{"name":"A","objects":[{"id":1,…},…]},…]}
            or a plain array of objects (one section named ""). A row's content is its
            whole object: a changed object is a reload. In JSON, paths are [section,row];
            deleted, reloaded and moved-from paths are before their stage, inserted and
            moved-to after it; rowCounts are every section's rows after the stage;
            duplicates is always [] (duplicate ids are refused).
            """)

    static func run(_ parsed: ParsedArguments, output: CommandOutput) throws {
        let idKey = parsed.string("id") ?? "id"
        let format = OutputFormat(parsed)
        let render = parsed.flag("render")
        let drawing = DrawingOptions(parsed)
        let oldPath = parsed.positional("OLD") ?? "-", newPath = parsed.positional("NEW") ?? "-"
        if render && format == .json && parsed.isGiven("format") {
            throw CommandError.usage("--render draws text: it does not go with --format json")
        }
        if idKey.isEmpty { throw CommandError.usage("--id needs a KEY, not an empty one") }
        try InputFile.checkStandardInputOnce([oldPath, newPath])

        let quiet = parsed.flag("quiet")

        if render {
            let old = try FetchResultFile.read(oldPath, idKey: idKey, quiet: quiet)
            try checkUnique(old, file: oldPath)
            let new = try FetchResultFile.read(newPath, idKey: idKey, quiet: quiet)
            try checkUnique(new, file: newPath)
            let records = (old + new).lazy.flatMap(\.rows).compactMap { row -> DynamicRecord? in
                if case .record(let record) = row.object { record } else { nil }
            }
            try drawing.checkKeys(records)
            return output.out(try rendered(TableChangeset(from: old, to: new), from: old, to: new, drawing: drawing))
        }
        // Without --render only identities and whether contents changed count:
        // rows are kept as an identity and a digest of the object.
        let old = try FetchResultFile.read(oldPath, idKey: idKey, quiet: quiet, as: DigestRow.self)
        try checkUnique(old, file: oldPath)
        let new = try FetchResultFile.read(newPath, idKey: idKey, quiet: quiet, as: DigestRow.self)
        try checkUnique(new, file: newPath)
        let changeset = TableChangeset(from: old, to: new)
        switch format {
        case .json: output.out(json(changeset) + "\n")
        case .text: output.out(text(changeset, from: old))
        }
    }

    /// The input rules: ids are unique in a file (across its sections).
    static func checkUnique<Row: FetchResultRow>(_ sections: [TableSection<Row>], file: String) throws {
        let ids = sections.flatMap { $0.rows.map(\.id) }
        try InputRules.checkUnique(ids, file: file) { k in
            if sections.count == 1 && sections[0].name.isEmpty { return "object \(k)" }
            var k = k
            for (s, section) in sections.enumerated() {
                if k < section.rows.count { return "section \(s) (\(section.name.debugDescription)), object \(k)" }
                k -= section.rows.count
            }
            return "object \(k)"
        }
    }

    /// The changeset as JSON, in exactly this shape (paths are `[section,row]`):
    /// `{"stages":[{"deletedSections":[…],"insertedSections":[…],"movedSections":[[from,to],…],
    /// "reloadedSections":[…],"deletedRows":[[s,r],…],"insertedRows":[[s,r],…],
    /// "movedRows":[[[s,r],[s,r]],…],"reloadedRows":[[s,r],…],"rowCounts":[…]}],"duplicates":[…]}`
    static func json<Row: FetchResultRow>(_ changeset: TableChangeset<Row>) -> String {
        func list<T>(_ items: [T], _ item: (T) -> String) -> String { "[" + items.map(item).joined(separator: ",") + "]" }
        func path(_ p: TablePath) -> String { "[\(p.section),\(p.row)]" }
        let stages = changeset.stages.map { stage in
            let u = stage.update
            return "{\"deletedSections\":\(list(u.deletedSections) { "\($0)" })"
                + ",\"insertedSections\":\(list(u.insertedSections) { "\($0)" })"
                + ",\"movedSections\":\(list(u.movedSections) { "[\($0.from),\($0.to)]" })"
                + ",\"reloadedSections\":\(list(u.reloadedSections) { "\($0)" })"
                + ",\"deletedRows\":\(list(u.deletedRows, path))"
                + ",\"insertedRows\":\(list(u.insertedRows, path))"
                + ",\"movedRows\":\(list(u.movedRows) { "[\(path($0.from)),\(path($0.to))]" })"
                + ",\"reloadedRows\":\(list(u.reloadedRows, path))"
                + ",\"rowCounts\":\(list(stage.sections) { "\($0.rows.count)" })}"
        }
        return "{\"stages\":[\(stages.joined(separator: ","))],\"duplicates\":\(list(changeset.duplicateIdentifiers) { JSON.string($0) })}"
    }

    /// The changeset for people: a line per stage, a line per change, the row's id beside it.
    static func text<Row: FetchResultRow>(_ changeset: TableChangeset<Row>, from old: [TableSection<Row>]) -> String {
        changeset.logLines(from: old) { JSON.string($0.id) }.joined(separator: "\n") + "\n"
    }

    /// Each stage drawn by the text renderer as a table applies it: before,
    /// the batch log, after. The window is as tall as the tallest stage
    /// (at most 50 lines) unless `--height` says.
    static func rendered(
        _ changeset: TableChangeset<JSONRow>, from old: [TableSection<JSONRow>], to new: [TableSection<JSONRow>], drawing: DrawingOptions
    ) throws -> String {
        let named = (old + new).contains { !$0.name.isEmpty }
        func sections(_ list: [TableSection<JSONRow>]) -> [RecordTable.Section] {
            list.map { section in
                .init(name: named ? section.name : nil, rows: section.rows.map { row in
                    if case .record(let record) = row.object { record } else { DynamicRecord(fields: [("text", .string(JSON.string(row.object)))]) }
                })
            }
        }
        let source = RecordTable(sections: sections(old), textKey: drawing.textKey, detailKey: drawing.detailKey)
        var lines = source.contentLines
        for stage in changeset.stages { lines = Swift.max(lines, RecordTable(sections: sections(stage.sections), textKey: nil, detailKey: nil).contentLines) }
        let table = try source.table(lines: drawing.height ?? Swift.min(50, Swift.max(1, lines)))
        let renderer = try drawing.renderer()
        guard !changeset.stages.isEmpty else { return "(no changes)\n" + renderer.text(for: table.currentFrame) }
        table.renderer = renderer
        var views: [String] = []
        renderer.onOutput = { views.append($0) }
        try table.apply(changeset) { stage in source.sections = sections(stage.sections) }
        let count = changeset.stages.count
        return views.enumerated().map { k, view in
            (count > 1 ? "Stage \(k + 1) of \(count):\n" : "") + view
        }.joined(separator: "\n")
    }
}
