import Foundation
import HeadlessTable

/// `headless-table browse DATA [--where FORMAT] [--arg JSON]… [--sort KEY[,-KEY]…] [--section-key KEY]
/// [--text KEY] [--detail KEY]`
///
/// An interactive table of DATA's objects in the terminal, on the text
/// renderer: ↑/↓ (or k/j) move the selection, PgUp/PgDn a page, Home/End to
/// the ends; `/` starts a search that filters as you type (Enter keeps the
/// results, Esc cancels); `d` deletes the selected object through the store,
/// the change shown; `q` or Ctrl-C quits. It uses the terminal's size, redraws
/// when it changes, and puts the terminal back as it was on the way out.
enum BrowseCommand {
    static func run(_ arguments: inout ArgumentList, output: CommandOutput) throws {
        var query = try Query.parse(&arguments, limits: false)
        let textKey = try arguments.option("--text")
        let detailKey = try arguments.option("--detail")
        let file = try arguments.positional("DATA (a JSON array of objects)")
        try arguments.finish()
        try query.compile()
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
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
    let context = ObjectContext(store: ObjectStore<DynamicObject>())
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
        try Query.load(file, into: context)
        let request = FetchRequest<DynamicObject>(
            predicate: query.predicate.map(RecordPredicate.init), sortKeys: query.sortKeys.isEmpty ? [SortKey("id")] : query.sortKeys)
        let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: query.sectionKey)
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
        try? table.setViewportHeight(Double(self.size.lines - 2))
        try? search.resultsTable.setViewportHeight(Double(self.size.lines - 3))
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
                if let text = String(validating: bytes[i..<end], as: UTF8.self), let c = text.first { keys.append(.character(c)) }
                i = end
                continue
            }
            i += 1
        }
        return keys
    }
}

// The terminal's settings before the browser changed them, for the signal
// handlers that put them back (they may touch only plain globals).
nonisolated(unsafe) var savedTerminalSettings = termios()
nonisolated(unsafe) var terminalResized: sig_atomic_t = 0

/// The terminal in raw mode on the alternate screen, as long as it lives.
final class Terminal {
    static let leave = "\u{1B}[?25h\u{1B}[?1049l"
    /// The signals after which the terminal is put back.
    static let endingSignals = [SIGTERM, SIGHUP, SIGINT, SIGQUIT]

    init() throws {
        guard tcgetattr(STDIN_FILENO, &savedTerminalSettings) == 0 else {
            throw CommandError("browse could not read the terminal's settings")
        }
        var raw = savedTerminalSettings
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        // Put the terminal back on a signal, then go as the signal would.
        for sig in Self.endingSignals {
            signal(sig) { sig in
                tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedTerminalSettings)
                Terminal.leave.withCString { _ = Glibc.write(STDOUT_FILENO, $0, strlen($0)) }
                _exit(128 + sig)
            }
        }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in terminalResized = 1 }
        sigaction(SIGWINCH, &action, nil)
        // A parent may have left these blocked (the mask is inherited).
        var handled = sigset_t()
        sigemptyset(&handled)
        for sig in Self.endingSignals + [SIGWINCH] { sigaddset(&handled, sig) }
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
        write("\u{1B}[?1049h\u{1B}[?25l")
    }

    func restore() {
        write(Self.leave)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedTerminalSettings)
    }

    func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if n <= 0 { if errno == EINTR { continue } else { return } }
            bytes = bytes.dropFirst(n)
        }
    }

    /// The keys typed, waiting up to a tenth of a second; nil for none.
    func read() -> [Key]? {
        var poller = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 100) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = Glibc.read(STDIN_FILENO, &buffer, buffer.count)
        if n == 0 { return [.quit] }   // the terminal is gone
        guard n > 0 else { return nil }
        return Key.parse(Array(buffer.prefix(n)))
    }

    /// The terminal's columns and lines.
    func size() -> (columns: Int, lines: Int) {
        var window = winsize()
        let ok = withUnsafeMutablePointer(to: &window) { ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), $0) } == 0
        guard ok, window.ws_col > 0, window.ws_row > 0 else { return (80, 24) }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Whether the terminal's size changed since the last call.
    static func resized() -> Bool {
        defer { terminalResized = 0 }
        return terminalResized != 0
    }
}
