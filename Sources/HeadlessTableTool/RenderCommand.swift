import Foundation
import HeadlessTable

/// `headless-table render DATA [--where FORMAT] [--arg JSON]… [--var NAME=JSON]… [--sort KEY[,-KEY]…]
/// [--section-key KEY | --index KEY [--locale L]] [--text KEY] [--detail KEY] [--width W] [--height H] [--offset Y | --row S,R]
/// [--ascii] [--index] [--search TEXT]`
///
/// The objects of DATA, fetched as `query` fetches them, drawn by the text
/// renderer as a table's window shows them: a line per row and per section
/// header. A bare `--index` shows the sections' index titles beside the table
/// (with `--section-key`); `--index KEY` sections by KEY's index and shows it.
enum RenderCommand {
    static func run(_ arguments: inout ArgumentList, output: CommandOutput) throws {
        var query = try Query.parse(&arguments, limits: false, bareIndexIsAFlag: true)
        let look = try Look.parse(&arguments)
        let offset = try ArgumentList.wholeNumber(try arguments.option("--offset"), "--offset", minimum: 0)
        let row = try arguments.option("--row").map(path)
        let index = arguments.flag("--index") || query.index != nil
        let search = try arguments.option("--search")
        let file = try arguments.positional("DATA (a JSON array of objects)")
        try arguments.finish()
        if offset != nil && row != nil { throw CommandError.usage("--offset and --row go one at a time") }
        if index && query.sectionKey == nil && query.index == nil { throw CommandError.usage("--index shows the sections' index titles: give --section-key too") }
        try query.compile()

        // A search keeps the objects whose text contains the search text.
        let matching = try search.flatMap { $0.isEmpty ? nil : try RecordTable.matching($0, textKey: look.textKey) }
        let sections = try query.sections(of: file, also: matching)
        let source = RecordTable(
            sections: sections.map { .init(name: query.sectionKey == nil ? nil : $0.name, rows: $0.objects.map(\.fields)) },
            textKey: look.textKey, detailKey: look.detailKey)
        if index {
            var seen = Set<String>()
            source.indexTitles = sections.compactMap(\.indexTitle).filter { !$0.isEmpty && seen.insert($0).inserted }
        }
        let table = try source.table(lines: Swift.max(1, (look.height ?? 20) - (search == nil ? 0 : 1)))
        table.searchFieldText = search
        do {
            if let offset { try table.setContentOffset(Double(offset)) }
            if let row { try table.scrollToRow(at: row, at: .top) }
        } catch {
            throw CommandError("--row: \(error)")
        }
        output.out(try look.renderer().text(for: table.currentFrame))
    }

    /// `S,R`: a row's section and row.
    static func path(_ text: String) throws -> TablePath {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let section = parts[0], let row = parts[1], section >= 0, row >= 0 else {
            throw CommandError.usage("--row takes SECTION,ROW, as in --row 0,12, not '\(text)'")
        }
        return TablePath(row: row, section: section)
    }

}

/// How a command draws tables: `--width W`, `--height H`, `--ascii`, `--text KEY`, `--detail KEY`.
struct Look {
    var width = 60
    /// Nil when not given: each command has its own default.
    var height: Int?
    var ascii = false
    var textKey: String?
    var detailKey: String?

    static func parse(_ arguments: inout ArgumentList) throws -> Look {
        var look = Look()
        look.width = try ArgumentList.wholeNumber(try arguments.option("--width"), "--width", minimum: 1) ?? look.width
        look.height = try ArgumentList.wholeNumber(try arguments.option("--height"), "--height", minimum: 1)
        look.ascii = arguments.flag("--ascii")
        look.textKey = try arguments.option("--text")
        look.detailKey = try arguments.option("--detail")
        return look
    }

    func renderer() throws -> TextRenderer {
        do {
            return try TextRenderer(width: width, style: ascii ? .ascii : .box, pointsPerLine: 1)
        } catch {
            throw CommandError.usage("--width: \(error)")
        }
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

    /// A table showing this, `lines` lines tall.
    func table(lines: Int) throws -> TableView {
        let table = TableView(viewportHeight: Double(lines))
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
