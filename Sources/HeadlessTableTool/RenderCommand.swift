import Foundation
import HeadlessTable
import ToolArguments

/// `headless-table render DATA [--where FORMAT] [--arg JSON]… [--var NAME=JSON]… [--sort KEY[,-KEY]…]
/// [--section-key KEY | --index KEY [--locale L]] [--text KEY] [--detail KEY] [--width W] [--height H] [--offset Y | --row S,R]
/// [--ascii] [--index] [--search TEXT] [--style plain|grouped|inset-grouped]`
///
/// The objects of DATA, fetched as `query` fetches them, drawn by the text
/// renderer as a table's window shows them: a line per row and per section
/// header. A bare `--index` shows the sections' index titles beside the table
/// (with `--section-key`); `--index KEY` sections by KEY's index and shows it.
enum RenderCommand {
    static let declaration = CommandDeclaration(
        "render",
        summary: "DATA's objects drawn as a table's window shows them: a line per row and per section header",
        positionals: [PositionalDeclaration("DATA", help: "a JSON array of objects, or a model file with --entity (- for standard input)")],
        options: Query.options(limits: false, bareIndexIsAFlag: true)
            + DrawingOptions.options(requires: nil, height: "20")
            + [
                OptionDeclaration("offset", .integer("Y", 0...Int.max), help: "scrolled Y lines down"),
                OptionDeclaration("row", .text("S,R"), help: "scrolled to row R of section S"),
                OptionDeclaration("search", .text("TEXT"), help: "a search field, and only the rows whose text contains TEXT (case and diacritics ignored)"),
                TableStyleOption.option,
            ],
        exclusive: [["offset", "row"]],
        discussion: """
            A row's text is its --text field, else its title, name or text, else the object
            without its id.
            """ + "\n\n" + IndexOption.discussion)

    static func run(_ parsed: ParsedArguments, output: CommandOutput) throws {
        var query = try Query.parse(parsed)
        let drawing = DrawingOptions(parsed)
        let offset = parsed.integer("offset")
        let row = try parsed.string("row").map(path)
        let index = parsed.isGiven("index")
        let search = parsed.string("search")
        let file = parsed.positional("DATA") ?? "-"
        if index && query.sectionKey == nil && query.index == nil { throw CommandError.usage("--index alone shows the sections' index titles: give --section-key too, or --index KEY") }
        try query.compile()

        // A search keeps the objects whose text contains the search text.
        let matching = try search.flatMap { $0.isEmpty ? nil : try RecordTable.matching($0, textKey: drawing.textKey) }
        let sections = try query.sections(of: file, also: matching)
        try drawing.checkKeys(sections.lazy.flatMap(\.objects).map(\.fields))
        let source = RecordTable(
            sections: sections.map { .init(name: query.sectionKey == nil ? nil : $0.name, rows: $0.objects.map(\.fields)) },
            textKey: drawing.textKey, detailKey: drawing.detailKey)
        if index {
            var seen = Set<String>()
            source.indexTitles = sections.compactMap(\.indexTitle).filter { !$0.isEmpty && seen.insert($0).inserted }
        }
        let table = try source.table(lines: Swift.max(1, (drawing.height ?? 20) - (search == nil ? 0 : 1)), style: TableStyleOption.style(parsed))
        table.searchFieldText = search
        do {
            if let offset { try table.setContentOffset(Double(offset)) }
            if let row { try table.scrollToRow(at: row, at: .top) }
        } catch {
            throw CommandError("--row \(row.map { "\($0.section),\($0.row)" } ?? ""): \(error)")
        }
        output.out(try drawing.renderer().text(for: table.currentFrame))
    }

    /// `S,R`: a row's section and row.
    static func path(_ text: String) throws -> TablePath {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let section = parts[0], let row = parts[1], section >= 0, row >= 0 else {
            throw CommandError.usage("--row takes SECTION,ROW, as in --row 0,12, not '\(UsageError.excerpt(text))'")
        }
        return TablePath(row: row, section: section)
    }

}

/// A table of JSON objects: a section per name (with a header when it has
/// one), a row per object showing its text and detail text. One point a line.
final class RecordTable: TableViewDataSource {
    struct Section {
        var name: String?
        var rows: [DynamicRecord]
    }

    /// The keys whose value is a row's text when `--text` names none: the first present.
    static let textKeys = ["title", "name", "text"]

    var sections: [Section]
    var indexTitles: [String]?
    let textKey: String?
    let detailKey: String?

    init(sections: [Section], textKey: String?, detailKey: String?) {
        self.sections = sections
        self.textKey = textKey
        self.detailKey = detailKey
    }

    /// A table of a style showing this, `lines` lines tall: a line per row,
    /// header and footer (in the grouped styles, every section has a header
    /// line and a footer line).
    func table(lines: Int, style: TableView.Style = .plain) throws -> TableView {
        let table = TableView(viewportHeight: Double(lines), style: style)
        table.rowHeight = 1
        table.sectionHeaderHeight = 1
        table.sectionFooterHeight = 1
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        table.dataSource = self
        try table.reloadData()
        return table
    }

    /// The lines the whole table takes.
    var contentLines: Int { sections.reduce(0) { $0 + $1.rows.count + ($1.name == nil ? 0 : 1) } }

    func numberOfSections(in tableView: TableView) -> Int { sections.count }
    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { sections[section].rows.count }
    func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? {
        sections[section].name.map { $0.isEmpty ? "(none)" : $0 }
    }
    func sectionIndexTitles(for tableView: TableView) -> [String]? { indexTitles }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
        let cell = try tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        let record = sections[indexPath.section].rows[indexPath.row]
        cell.text = text(of: record)
        cell.detailText = detailKey.flatMap { record[$0] }.map(Self.display)
        return cell
    }

    func text(of record: DynamicRecord) -> String { Self.text(of: record, textKey: textKey) }

    /// A row's text: its `--text` field, else its title, name or text, else
    /// the object without its id.
    static func text(of record: DynamicRecord, textKey: String?) -> String {
        if let textKey { return record[textKey].map(Self.display) ?? "" }
        if let value = Self.textKeys.lazy.compactMap({ record[$0] }).first { return Self.display(value) }
        var rest = record
        rest["id"] = nil
        return JSON.string(.record(rest))
    }

    /// The objects whose text contains `search`, case and diacritics ignored.
    static func matching(_ search: String, textKey: String?) throws -> FormatPredicate {
        let keys = textKey.map { [$0] } ?? textKeys
        let format = keys.map { _ in "%K CONTAINS[cd] %@" }.joined(separator: " OR ")
        return try FormatPredicate(format: format, arguments: keys.flatMap { [.string($0), .string(search)] })
    }

    /// A value as a cell shows it: strings bare, null empty, the rest as JSON.
    static func display(_ value: RecordValue) -> String {
        switch value {
        case .string(let text): text
        case .null: ""
        default: JSON.string(value)
        }
    }
}
