import Foundation
import HeadlessTable
import InternalTableUtilities
import ToolArguments

/// `headless-table browse DATA [--where FORMAT] [--arg JSON]… [--sort KEY[,-KEY]…]
/// [--section-key KEY | --index KEY [--locale L]] [--text KEY] [--detail KEY]`
///
/// An interactive table of DATA's objects in the terminal, on the text
/// renderer: ↑/↓ (or k/j) move the selection, PgUp/PgDn a page, Home/End to
/// the ends; `/` starts a search that filters as you type (Enter keeps the
/// results, Esc cancels); `d` deletes the selected object through the store,
/// the change shown; `q` or Ctrl-C quits. It uses the terminal's size, redraws
/// when it changes, and puts the terminal back as it was on the way out.
enum BrowseCommand {
    static let declaration = CommandDeclaration(
        "browse",
        summary: "DATA's objects as an interactive table in the terminal",
        positionals: [PositionalDeclaration("DATA", help: "a JSON array of objects")],
        options: Query.options(limits: false) + [
            OptionDeclaration("text", .text("KEY"), help: "the field a row shows", defaultNote: "title, name or text"),
            OptionDeclaration("detail", .text("KEY"), help: "a field shown at the right of a row"),
        ],
        exclusive: [["section-key", "index"]],
        discussion: """
            Keys: ↑/↓ (or k/j) move the selection, PgUp/PgDn a page, Home/End to the ends;
            / searches as you type (Enter browses the results, Esc cancels); d deletes the
            selected object; q or Ctrl-C quits. Standard input and output must be a terminal.
            """)

    static func run(_ parsed: ParsedArguments, output: CommandOutput) throws {
        var query = try Query.parse(parsed)
        let textKey = parsed.string("text")
        let detailKey = parsed.string("detail")
        let file = parsed.positional("DATA") ?? "-"
        if file == "-" { throw CommandError.usage("browse reads its keys from standard input: give DATA as a file") }
        try query.compile()
        guard Terminal.isInteractive else {
            throw CommandError("browse draws on a terminal: run it with standard input and output on one (for text, use render)")
        }
        let browser = try Browser(file: file, query: query, textKey: textKey, detailKey: detailKey)
        let terminal = try Terminal()
        defer { terminal.restore() }
        browser.loop(terminal)
    }
}

/// The browser's state: the store and its tables, the selection, the search.
final class Browser: TableRenderer {
    let name: String
    let context: ObjectContext<DynamicObject>
    let table = TableView(viewportHeight: 10)
    let binding: FetchedResultsTableBinding<DynamicObject>
    let search: TableSearch<DynamicObject>
    /// Typing into the search field.
    var typing = false
    var searchText = ""
    /// The last change, for the status line.
    var status = ""
    var size = (columns: 80, lines: 24)

    init(file: String, query: Query, textKey: String?, detailKey: String?) throws {
        name = URL(fileURLWithPath: file).lastPathComponent
        context = ObjectContext(store: try Query.store(of: file, quiet: query.quiet))
        let request = FetchRequest<DynamicObject>(
            predicate: query.predicate.map(RecordPredicate.init), sortKeys: query.sortKeys.isEmpty ? [SortKey("id")] : query.sortKeys)
        let controller = query.controller(request, in: context)
        do {
            try controller.performFetch()
        } catch {
            throw CommandError("\(error)")
        }
        table.rowHeight = 1
        table.sectionHeaderHeight = 1
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        binding = try table.bind(to: controller) { table, indexPath, object in
            let cell = try table.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            cell.text = RecordTable.text(of: object.fields, textKey: textKey)
            cell.detailText = detailKey.flatMap { object.fields[$0] }.map(RecordTable.display)
            return cell
        }
        let context = context
        binding.onDelete = { object in
            try context.delete(object.id)
            _ = try context.save()
        }
        search = TableSearch(binding) { text in try RecordPredicate(RecordTable.matching(text, textKey: textKey)) }
        table.renderer = self
        search.resultsTable.renderer = self
    }

    /// The table the keys act on: the search's results while a search is on.
    var current: TableView { search.isActive ? search.resultsTable : table }

    // MARK: TableRenderer: the screen is drawn by the loop; a batch is noted.

    func display(_ frame: TableFrame) {}
    func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame) {
        let log = update.changes.prefix(3).map { $0.logLine() }.joined(separator: "; ")
        status += (status.isEmpty || status.hasSuffix(": ") ? "" : " · ") + log + (update.changes.count > 3 ? " …" : "")
    }

    // MARK: The loop

    func loop(_ terminal: Terminal) {
        resize(terminal.size())
        selectFirstRow()
        draw(terminal)
        while true {
            if Terminal.resized() {
                resize(terminal.size())
                draw(terminal)
            }
            guard let keys = terminal.read() else { continue }
            for key in keys {
                if !handle(key) { return }
            }
            draw(terminal)
        }
    }

    /// Acts on a key; false to quit.
    func handle(_ key: Key) -> Bool {
        if typing {
            switch key {
            case .character(let c): setSearch(searchText + String(c))
            case .backspace: setSearch(String(searchText.dropLast()))
            case .enter: typing = false
            case .escape: cancelSearch()
            case .quit: return false
            default: move(key)
            }
            return true
        }
        switch key {
        case .quit, .character("q"): return false
        case .character("/"):
            typing = true
            setSearch(searchText)
        case .escape: if search.isActive { cancelSearch() }
        case .character("d"): deleteSelected()
        case .character("j"): move(.down)
        case .character("k"): move(.up)
        default: move(key)
        }
        return true
    }

    func setSearch(_ text: String) {
        searchText = text
        guard !text.isEmpty else { return search.cancel() }
        do {
            try search.update(text: text)
            selectFirstRow()
        } catch {
            status = "search: \(error)"
        }
    }

    func cancelSearch() {
        typing = false
        searchText = ""
        search.cancel()
    }

    func deleteSelected() {
        guard let path = current.indexPathForSelectedRow else { return }
        let index = flatIndex(of: path)
        status = "deleted \(current.cellForRow(at: path)?.text ?? "a row"): "
        do {
            try current.commit(.delete, forRowAt: path)
        } catch {
            status = "could not delete: \(error)"
        }
        // The row below moves up into the selection.
        select(self.path(at: index))
    }

    /// Moves the selection as an arrow, page, Home or End key says.
    func move(_ key: Key) {
        let page = Swift.max(1, Int(current.viewportHeight) - 1)
        let from = current.indexPathForSelectedRow.map(flatIndex) ?? 0
        switch key {
        case .up: select(path(at: from - 1))
        case .down: select(path(at: from + 1))
        case .pageUp: select(path(at: from - page))
        case .pageDown: select(path(at: from + page))
        case .home: select(path(at: 0))
        case .end: select(path(at: Int.max))
        default: break
        }
    }

    var counts: [Int] { (0..<current.numberOfSections).map { current.numberOfRows(inSection: $0) } }

    /// A row's place counting every row above it.
    func flatIndex(of path: TablePath) -> Int { counts.prefix(path.section).reduce(0, +) + path.row }

    /// The row at a place counting from the top, kept within the table.
    func path(at index: Int) -> TablePath? {
        let counts = counts
        var index = Swift.min(counts.reduce(0, +) - 1, Swift.max(0, index))
        for (section, count) in counts.enumerated() {
            if index < count { return TablePath(row: index, section: section) }
            index -= count
        }
        return nil
    }

    func select(_ path: TablePath?) {
        guard let path else { return }
        try? current.selectRow(at: path)
        try? current.scrollToRow(at: path, at: .none)
    }

    func selectFirstRow() { select(path(at: 0)) }

    func resize(_ size: (columns: Int, lines: Int)) {
        self.size = (Swift.max(1, size.columns), Swift.max(4, size.lines))
        try? table.setViewportHeight(Double(Swift.max(0, self.size.lines - 2)))
        try? search.resultsTable.setViewportHeight(Double(Swift.max(0, self.size.lines - 3)))
        if let path = current.indexPathForSelectedRow { try? current.scrollToRow(at: path, at: .none) }
    }

    /// The whole screen: a title line, the table, a status line.
    func draw(_ terminal: Terminal) {
        guard let renderer = try? TextRenderer(width: size.columns, pointsPerLine: 1) else { return }
        let count = (0..<table.numberOfSections).reduce(0) { $0 + table.numberOfRows(inSection: $1) }
        let found = search.isActive ? (0..<current.numberOfSections).reduce(0) { $0 + current.numberOfRows(inSection: $1) } : count
        let title = " \(name) — \(count) object\(count == 1 ? "" : "s")" + (search.isActive ? ", \(found) found" : "")
        var frame = current.currentFrame
        if search.isActive || typing { frame.searchText = searchText + (typing ? "▏" : "") }
        let body = renderer.text(for: frame).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        let help = typing
            ? "type to filter · Enter: browse the results · Esc: cancel"
            : "↑↓ PgUp PgDn Home End · / search · d delete · q quit"
        let bottom = status.isEmpty ? help : status
        status = ""
        let lines = ["\u{1B}[7m" + TerminalText.fitting(title, into: size.columns) + "\u{1B}[0m"]
            + body.prefix(size.lines - 2)
            + ["\u{1B}[7m" + TerminalText.fitting(" " + bottom, into: size.columns) + "\u{1B}[0m"]
        terminal.write("\u{1B}[H" + lines.joined(separator: "\r\n") + "\u{1B}[J")
    }
}

/// A key the browser knows.
enum Key: Equatable {
    case up, down, pageUp, pageDown, home, end, enter, escape, backspace, quit
    case character(Character)

    /// The keys in bytes read from a terminal.
    static func parse(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == 0x1B {
                // An escape sequence, or Esc alone.
                let rest = Array(bytes[(i + 1)...].prefix(3))
                let sequences: [([UInt8], Key)] = [
                    (Array("[A".utf8), .up), (Array("[B".utf8), .down), (Array("OA".utf8), .up), (Array("OB".utf8), .down),
                    (Array("[5~".utf8), .pageUp), (Array("[6~".utf8), .pageDown), (Array("[H".utf8), .home), (Array("[F".utf8), .end),
                    (Array("OH".utf8), .home), (Array("OF".utf8), .end), (Array("[1~".utf8), .home), (Array("[4~".utf8), .end),
                    (Array("[7~".utf8), .home), (Array("[8~".utf8), .end),
                ]
                if let (sequence, key) = sequences.first(where: { rest.starts(with: $0.0) }) {
                    keys.append(key)
                    i += 1 + sequence.count
                } else if rest.first == UInt8(ascii: "[") || rest.first == UInt8(ascii: "O") {
                    // Another sequence (an arrow sideways, a function key): skip it.
                    var j = i + 2
                    while j < bytes.count, !(0x40...0x7E).contains(bytes[j]) { j += 1 }
                    i = j + 1
                } else {
                    keys.append(.escape)
                    i += 1
                }
                continue
            }
            switch byte {
            case 0x03, 0x04: keys.append(.quit)
            case 0x0D, 0x0A: keys.append(.enter)
            case 0x7F, 0x08: keys.append(.backspace)
            case 0x00..<0x20: break
            default:
                // A character, in UTF-8.
                let length = byte < 0xC0 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
                let end = Swift.min(bytes.count, i + length)
                if let text = _validatedUTF8String(bytes[i..<end]), let c = text.first { keys.append(.character(c)) }
                i = end
                continue
            }
            i += 1
        }
        return keys
    }
}
