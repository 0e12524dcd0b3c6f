import Foundation
import HeadlessTableView
import TableDiff

/// A cell that may lay itself out from a template.
final class LinesCell: TableViewCell {
    var lines: [TextLine]?
    override func textLines() -> [TextLine]? { lines }
    override func prepareForReuse() {
        super.prepareForReuse()
        lines = nil
    }
}

/// A table's content as plain values, for rendering tests: sections with
/// header and footer titles, rows with text, detail, accessory, or their own lines.
final class ListSource: TableViewDataSource, TableViewDelegate {
    struct Row: Hashable {
        var text: String
        var detail: String? = nil
        var accessory: CellAccessory = .none
        var lines: [TextLine]? = nil
    }
    struct Section {
        var title: String?
        var rows: [Row]
        var footer: String? = nil
    }

    var sections: [Section]
    var indexTitles: [String]?
    var editingStyles: [TablePath: TableView.EditingStyle] = [:]
    var movable: Set<TablePath> = []

    init(_ sections: [Section], indexTitles: [String]? = nil) {
        self.sections = sections
        self.indexTitles = indexTitles
    }

    /// A table of one line per point: rows, headers and footers one line each.
    func table(lines: Int, style: TableView.Style = .plain, renderer: (any TableRenderer)? = nil) throws -> TableView {
        let table = TableView(viewportHeight: Double(lines), style: style)
        table.rowHeight = 1
        table.sectionHeaderHeight = 1
        table.sectionFooterHeight = 1
        try table.register(LinesCell.self, forCellReuseIdentifier: "row")
        table.dataSource = self
        table.delegate = self
        try table.reloadData()
        table.renderer = renderer
        return table
    }

    func numberOfSections(in tableView: TableView) -> Int { sections.count }
    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { sections[section].rows.count }
    func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
        let cell = try tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        let row = sections[indexPath.section].rows[indexPath.row]
        cell.text = row.text
        cell.detailText = row.detail
        cell.accessory = row.accessory
        (cell as? LinesCell)?.lines = row.lines
        return cell
    }
    func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? { sections[section].title }
    func tableView(_ tableView: TableView, titleForFooterInSection section: Int) -> String? { sections[section].footer }
    func sectionIndexTitles(for tableView: TableView) -> [String]? { indexTitles }
    func tableView(_ tableView: TableView, canMoveRowAt indexPath: TablePath) -> Bool { movable.contains(indexPath) }
    func tableView(_ tableView: TableView, editingStyleForRowAt indexPath: TablePath) -> TableView.EditingStyle {
        editingStyles[indexPath] ?? .delete
    }
}

/// A renderer that keeps every call.
final class RecordingRenderer: TableRenderer {
    enum Call: Equatable {
        case frame(TableFrame)
        case update(TableUpdate, from: TableFrame, to: TableFrame)
    }
    var calls: [Call] = []
    func display(_ frame: TableFrame) { calls.append(.frame(frame)) }
    func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame) {
        calls.append(.update(update, from: old, to: new))
    }
}

/// The seeds' tables, as the rendering tests and benchmarks draw them.
enum SeedTables {
    static let entryLayout: TextLineTemplate = "{icon:1} {title} {date:>12}"

    /// A photo diary: entries by day, newest first, each from a template.
    static func diary() -> ListSource {
        func entry(_ icon: String, _ title: String, _ date: String) -> ListSource.Row {
            ListSource.Row(text: title, accessory: .disclosureIndicator, lines: [entryLayout.line(["icon": icon, "title": title, "date": date])])
        }
        return ListSource([
            .init(title: "Sunday 22 November", rows: [
                entry("▣", "Fog on the river", "08:10"),
                entry("♪", "Street musician at the station", "07:45"),
            ]),
            .init(title: "Saturday 21 November", rows: [
                entry("▣", "Market stalls", "16:30"),
                entry("▣", "Night train", "23:02"),
                entry("✎", "Notes on the way home", "23:40"),
            ], footer: "3 entries"),
        ])
    }

    /// A to-do list: done items carry a checkmark.
    static func toDo() -> ListSource {
        let items: [(String, Bool)] = [
            ("Buy milk", true), ("Call the plumber", false), ("Write the quarterly report for the board", false),
            ("Water the plants", true), ("Book train tickets", false),
        ]
        return ListSource([
            .init(title: nil, rows: items.map { .init(text: $0.0, accessory: $0.1 ? .checkmark : .none) })
        ])
    }

    static let firstNames = [
        "Ada", "Alan", "Barbara", "Ben", "Carl", "Clara", "Dana", "Dmitri", "Edsger", "Emmy", "Frances", "Grace",
        "Hedy", "Ida", "John", "Katherine", "Leslie", "Margaret", "Niklaus", "Olga", "Peter", "Radia", "Sophie",
        "Tim", "Ursula", "Vint", "Whitfield", "Xavier", "Yukihiro", "Zhores",
    ]

    /// Names by first letter, with the A–Z index.
    static func names() -> ListSource {
        let letters = Array(Set(firstNames.map { String($0.prefix(1)) })).sorted()
        return ListSource(
            letters.map { letter in
                .init(title: letter, rows: firstNames.filter { $0.hasPrefix(letter) }.map { .init(text: $0) })
            },
            indexTitles: (UInt8(ascii: "A")...UInt8(ascii: "Z")).map { String(UnicodeScalar($0)) })
    }
}
