import Foundation
import HeadlessTable

/// The browser of `headless-table browse` without a terminal: its state, what
/// each key does, and the screen as lines of text. The terminal loop only
/// reads keys, hands them to ``handle(_:)`` and writes ``screen()``; tests and
/// the benchmark drive it the same way, headless.
///
/// **Sizes.** Everything a key does costs about the window, not the table:
/// the rows are an array of the fetch's objects in order (a row is an index
/// into it), the table on screen is a sorted array of rows (every live row,
/// or a search's results) with its sections as runs, and drawing builds a
/// `TableFrame` of the visible lines only and hands it to `TextRenderer`.
///
/// **Search** (`/`, then type): the objects whose `--text` key (else `title`,
/// `name` or `text`) contains the text, case and diacritics ignored — what
/// `render --search` and the predicate `KEY CONTAINS[cd] TEXT` match. Each
/// row's searched strings are folded once, as the predicate folds them, into
/// one byte buffer — on a thread of its own while the first screen is drawn
/// (a search waits for it only if it comes first); a keystroke then scans
/// bytes. Containing the folded text's bytes is what the predicate asks of a
/// row whose every scalar is a character (ASCII, accented letters); a row
/// with clusters of several scalars (CR LF, Hangul, emoji) that contains
/// them is checked by the predicate, and so is a row whose searched values
/// are not strings. Rows are remembered by text: typing on (`jo` → `jos`)
/// scans the rows of the longest remembered text whose folded bytes the new
/// one contains; backspace finds its earlier results again; an edit in the
/// middle starts from the longest remembered text still inside. The results
/// are always the predicate's.
package final class BrowserModel {
    /// A key the browser knows (the terminal's `Key`).
    package typealias Input = Key

    // MARK: The data

    /// The file's (or store's) name, for the title line.
    let name: String
    /// The fetch's objects in order; a row is an index into it.
    let objects: [DynamicObject]
    /// The first row of each section of the fetch.
    let sectionStarts: [Int]
    /// The sections' names; nil without sections (no headers).
    let sectionNames: [String]?
    /// The sections' index titles (nil without sections); the index at the
    /// side shows those of the sections on screen.
    let sectionIndexTitles: [String?]?
    let textKey: String?
    let detailKey: String?
    /// Deletes an object through the store.
    let deleteObject: (DynamicObject) throws -> Void
    /// What the status line says about deletes: nil when they last.
    let unsavedNote: String?

    /// The searched bytes, made on a thread of its own.
    private let searchIndex: Handover<SearchBytes>
    /// The searched bytes once made (read through `searchBytes`).
    private var madeSearchBytes: SearchBytes?

    // MARK: The state

    /// The rows not deleted, in order.
    private(set) var live: [Int32]
    /// The sections of `live` with rows.
    private var liveRuns: [Run] = []
    /// The search's results (rows in order); nil when no search is on.
    private(set) var results: [Int32]?
    private var resultRuns: [Run] = []
    /// Remembered searches by text, the latest last: the folded text, the
    /// rows whose bytes contain it (a superset of the results, which narrows
    /// exactly), and the results.
    private var remembered: [(text: String, needle: [UInt8], candidates: [Int32], rows: [Int32])] = []
    static let rememberedLimit = 24
    /// Typing into the search field.
    package private(set) var typing = false
    package private(set) var searchText = ""
    /// The selection and scroll position of each table.
    private var livePlace = Place()
    private var resultPlace = Place()
    /// The last change, for the status line (shown once).
    package private(set) var status = ""
    /// Deletes made; whether any was made.
    package private(set) var deletedIDs: [RecordValue] = []
    package private(set) var columns = 80
    package private(set) var lines = 24
    /// The table's style (`--style`): in a plain table the header of the
    /// section at the top floats; in the grouped styles each section has a
    /// footer line too, blank, that sets it apart.
    package var style: TableView.Style = .plain
    /// How the last search was made: from remembered results (with their
    /// text) or from every row (nil). For tests and the benchmark.
    package private(set) var lastSearchBase: String??

    /// A section's rows in a table: the section, and where its rows start.
    struct Run: Equatable {
        var section: Int
        var start: Int
    }

    /// A table's selected position and top line.
    struct Place {
        var selected = 0
        var top = 0
    }

    /// A model of `objects` (a fetch's, in order) in `sections`: each
    /// section's name, index title and number of objects, in order, the
    /// counts adding up to the objects' — or nil for no sections (no
    /// headers). The objects are kept as they are (no copy).
    ///
    /// - Parameters:
    ///   - delete: deletes an object through the store; what it throws is shown.
    ///   - unsavedNote: the status line's note after a delete that will not
    ///     last; nil when deletes are saved.
    package init(
        name: String, objects: [DynamicObject], sections: [(name: String, indexTitle: String?, count: Int)]?,
        textKey: String?, detailKey: String?, unsavedNote: String?, delete: @escaping (DynamicObject) throws -> Void
    ) {
        self.name = name
        var starts: [Int] = []
        if let sections {
            starts.reserveCapacity(sections.count)
            var start = 0
            for section in sections {
                starts.append(start)
                start += section.count
            }
            assert(start == objects.count, "the sections' counts add up to the objects'")
        } else if !objects.isEmpty {
            starts = [0]
        }
        self.objects = objects
        sectionStarts = starts
        sectionNames = sections?.map(\.name)
        sectionIndexTitles = sections?.map(\.indexTitle)
        self.textKey = textKey
        self.detailKey = detailKey
        self.unsavedNote = unsavedNote
        deleteObject = delete

        // The search's bytes, while the first screen is drawn.
        let keys = textKey.map { [$0] } ?? RecordTable.textKeys
        searchIndex = Handover(makingOnAThreadOfItsOwn: { [objects] in SearchBytes(objects, keys: keys) })
        live = (0..<Int32(truncatingIfNeeded: objects.count)).map { $0 }
        liveRuns = runs(of: live)
    }

    /// The searched bytes: waits until they are made.
    var searchBytes: SearchBytes {
        if let made = madeSearchBytes { return made }
        let made = searchIndex.wait()
        madeSearchBytes = made
        return made
    }

    /// Waits until the searched bytes are made (for the benchmark and tests).
    package func waitForSearchIndex() { _ = searchBytes }

    // MARK: Keys

    /// Sets the terminal's size (at least 1 column and 4 lines).
    package func resize(columns: Int, lines: Int) {
        self.columns = Swift.min(TextRenderer.maximumWidth, Swift.max(1, columns))
        self.lines = Swift.min(TextRenderer.maximumLines, Swift.max(4, lines))
    }

    /// Acts on a key; false to quit.
    @discardableResult
    package func handle(_ key: Key) -> Bool {
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
        case .escape: if results != nil { cancelSearch() }
        case .character("d"): deleteSelected()
        case .character("j"): move(.down)
        case .character("k"): move(.up)
        default: move(key)
        }
        return true
    }

    /// The table the keys act on: the search's results while a search is on.
    var list: [Int32] { results ?? live }
    private var runsOfList: [Run] { results == nil ? liveRuns : resultRuns }
    private var place: Place {
        get { results == nil ? livePlace : resultPlace }
        set { if results == nil { livePlace = newValue } else { resultPlace = newValue } }
    }

    /// Whether the search field shows above the rows.
    var showsSearchField: Bool { results != nil || typing }
    /// The window's height in rows (the screen less the title, the status
    /// line and the search field).
    var viewportLines: Int { Swift.max(1, lines - 2 - (showsSearchField ? 1 : 0)) }

    /// Moves the selection as an arrow, page, Home or End key says.
    func move(_ key: Key) {
        let count = list.count
        guard count > 0 else { return }
        let page = Swift.max(1, viewportLines - 1)
        let from = place.selected
        let to: Int
        switch key {
        case .up: to = from - 1
        case .down: to = from + 1
        case .pageUp: to = from - page
        case .pageDown: to = from + page
        case .home: to = 0
        case .end: to = count - 1
        default: return
        }
        select(to)
    }

    /// Selects a position (kept within the table) and scrolls it into view.
    func select(_ position: Int) {
        let count = list.count
        var place = self.place
        place.selected = Swift.min(Swift.max(0, count - 1), Swift.max(0, position))
        place.top = top(showing: line(of: place.selected), from: place.top, height: viewportLines)
        self.place = place
    }

    /// The top line that shows `line` in a window `height` lines high, moved
    /// from `top` as little as it takes — below the top line when a header
    /// floats over it (a plain table with sections).
    func top(showing line: Int, from top: Int, height: Int) -> Int {
        let hidden = style == .plain && hasHeaders && height > 1 ? 1 : 0
        var top = top
        if line < top + hidden { top = line - hidden } else if line >= top + height { top = line - height + 1 }
        return Swift.max(0, Swift.min(top, contentLines - height))
    }

    // MARK: Search

    func setSearch(_ text: String) {
        searchText = text
        guard !text.isEmpty else {
            results = nil
            resultRuns = []
            return
        }
        let rows = matches(text)
        results = rows
        resultRuns = runs(of: rows)
        resultPlace = Place()
        select(0)
    }

    func cancelSearch() {
        typing = false
        searchText = ""
        results = nil
        resultRuns = []
    }

    /// The live rows matching `text`, in order; from remembered rows when
    /// they provably hold every match.
    func matches(_ text: String) -> [Int32] {
        if let known = remembered.lastIndex(where: { $0.text == text }) {
            let entry = remembered.remove(at: known)
            remembered.append(entry)
            lastSearchBase = .some(entry.text)
            return entry.rows
        }
        let predicate = (try? RecordTable.matching(text, textKey: textKey)).flatMap { try? $0.compiled(for: DynamicObject.self) }
        func evaluate(_ row: Int32) -> Bool {
            (try? predicate?.evaluate(objects[Int(row)], variables: [:])) == true
        }
        let needle = _SearchFolding.caseAndDiacriticInsensitive(text)
        guard !needle.contains(0) else {
            // A NUL is the rows' separator: the predicate, over every row.
            lastSearchBase = .some(nil)
            let found = live.filter(evaluate)
            remembered.append((text, needle, live, found))
            if remembered.count > Self.rememberedLimit { remembered.removeFirst() }
            return found
        }
        let bytes = searchBytes
        // The rows containing the needle contain every remembered needle
        // inside it: start from the longest one's.
        var base: (text: String, needle: [UInt8], candidates: [Int32], rows: [Int32])?
        for entry in remembered where entry.needle.count > (base?.needle.count ?? -1) && !entry.needle.contains(0) {
            if Self.contains(needle, entry.needle) { base = entry }
        }
        lastSearchBase = .some(base?.text)
        let candidates = bytes.scan(base?.candidates ?? live, for: needle)
        // The rows the bytes do not decide: the predicate.
        var found = bytes.kinds.withUnsafeBufferPointer { kinds in
            candidates.filter { kinds[Int($0)] == SearchBytes.exact || evaluate($0) }
        }
        if !bytes.complexRows.isEmpty {
            var complex: [Int32] = []
            var k = 0
            for row in bytes.complexRows where evaluate(row) {
                // Only live rows: `live` is sorted.
                while k < live.count && live[k] < row { k += 1 }
                if k < live.count && live[k] == row { complex.append(row) }
            }
            if !complex.isEmpty { found = Self.merge(found, complex) }
        }
        remembered.append((text, needle, candidates, found))
        if remembered.count > Self.rememberedLimit { remembered.removeFirst() }
        return found
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        if needle.isEmpty { return true }
        guard needle.count <= haystack.count else { return false }
        for i in 0...(haystack.count - needle.count) where haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
        return false
    }

    /// Two sorted row lists as one sorted list.
    static func merge(_ a: [Int32], _ b: [Int32]) -> [Int32] {
        var result: [Int32] = []
        result.reserveCapacity(a.count + b.count)
        var (i, j) = (0, 0)
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && a[i] < b[j]) {
                result.append(a[i])
                i += 1
            } else {
                if i < a.count && a[i] == b[j] { i += 1 }
                result.append(b[j])
                j += 1
            }
        }
        return result
    }

    // MARK: Sections

    /// The section of a row.
    func section(ofRow row: Int) -> Int {
        // The last start at or before row.
        var (low, high) = (0, sectionStarts.count)
        while low < high {
            let mid = (low + high) / 2
            if sectionStarts[mid] <= row { low = mid + 1 } else { high = mid }
        }
        return Swift.max(0, low - 1)
    }

    /// The sections of a sorted list of rows that have rows in it.
    func runs(of rows: [Int32]) -> [Run] {
        guard !rows.isEmpty else { return [] }
        guard sectionNames != nil else { return [Run(section: 0, start: 0)] }
        var result: [Run] = []
        if sectionStarts.count * 8 < rows.count {
            // Few sections: find where each starts.
            for (section, start) in sectionStarts.enumerated() {
                let position = Self.lowerBound(rows, Int32(truncatingIfNeeded: start))
                let end = section + 1 < sectionStarts.count ? Self.lowerBound(rows, Int32(truncatingIfNeeded: sectionStarts[section + 1])) : rows.count
                if position < end { result.append(Run(section: section, start: position)) }
            }
        } else {
            var current = -1
            for (position, row) in rows.enumerated() {
                let s = section(ofRow: Int(row))
                if s != current {
                    result.append(Run(section: s, start: position))
                    current = s
                }
            }
        }
        return result
    }

    static func lowerBound(_ rows: [Int32], _ value: Int32) -> Int {
        var (low, high) = (0, rows.count)
        while low < high {
            let mid = (low + high) / 2
            if rows[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The run holding a position of the list.
    func run(holding position: Int, in runs: [Run]) -> Int {
        var (low, high) = (0, runs.count)
        while low < high {
            let mid = (low + high) / 2
            if runs[mid].start <= position { low = mid + 1 } else { high = mid }
        }
        return Swift.max(0, low - 1)
    }

    var hasHeaders: Bool { sectionNames != nil }

    /// The lines a section takes besides its rows: its header, and in the
    /// grouped styles its footer; none without sections.
    var linesPerSection: Int { hasHeaders ? (style == .plain ? 1 : 2) : 0 }

    /// The content line of a position: headers (and footers) take a line each.
    func line(of position: Int) -> Int {
        hasHeaders ? position + run(holding: position, in: runsOfList) * linesPerSection + 1 : position
    }

    /// The lines of the whole table.
    var contentLines: Int { list.count + runsOfList.count * linesPerSection }

    /// A position's path in the table on screen.
    func path(of position: Int) -> TablePath {
        let runs = runsOfList
        let k = run(holding: position, in: runs)
        return TablePath(row: position - (runs.isEmpty ? 0 : runs[k].start), section: k)
    }

    // MARK: Delete

    func deleteSelected() {
        let list = self.list
        let position = place.selected
        guard list.indices.contains(position) else { return }
        let row = list[position]
        let object = objects[Int(row)]
        let path = self.path(of: position)
        let runs = runsOfList
        let runEnd = path.section + 1 < runs.count ? runs[path.section + 1].start : list.count
        let emptiesSection = hasHeaders && runEnd - runs[path.section].start == 1
        do {
            try deleteObject(object)
        } catch {
            status = "could not delete: \(error)"
            return
        }
        deletedIDs.append(object.id)
        remove(row, from: &live, runs: &liveRuns)
        if var rows = results {
            remove(row, from: &rows, runs: &resultRuns)
            results = rows
        }
        for k in remembered.indices {
            let i = Self.lowerBound(remembered[k].rows, row)
            if i < remembered[k].rows.count && remembered[k].rows[i] == row { remembered[k].rows.remove(at: i) }
            let j = Self.lowerBound(remembered[k].candidates, row)
            if j < remembered[k].candidates.count && remembered[k].candidates[j] == row { remembered[k].candidates.remove(at: j) }
        }
        let change: BatchChange = emptiesSection ? .deleteSection(path.section) : .deleteRow(path)
        status = "deleted \(RecordTable.text(of: object.fields, textKey: textKey)): \(change.logLine())" + (unsavedNote.map { " · " + $0 } ?? "")
        // The row below moves up into the selection.
        select(position)
    }

    private func remove(_ row: Int32, from rows: inout [Int32], runs: inout [Run]) {
        let i = Self.lowerBound(rows, row)
        guard i < rows.count && rows[i] == row else { return }
        rows.remove(at: i)
        guard !runs.isEmpty else { return }
        let k = run(holding: i, in: runs)
        let end = k + 1 < runs.count ? runs[k + 1].start : rows.count + 1
        for j in (k + 1)..<runs.count { runs[j].start -= 1 }
        if end - runs[k].start == 1 { runs.remove(at: k) }
    }

    // MARK: Drawing

    /// The table's window as a frame: the visible lines only.
    func frame() -> TableFrame {
        let list = self.list
        let runs = runsOfList
        let height = viewportLines
        let selected = place.selected
        // The selection in view: the window is a line shorter while the
        // search field shows; the table keeps its place for when it goes.
        let top = self.top(showing: line(of: selected), from: place.top, height: height)
        var elements: [TableFrame.Element] = []
        var y = top
        let total = contentLines
        while y < Swift.min(total, top + height) {
            // The run holding line y: the last whose header line is at or above it.
            var (low, high) = (0, runs.count)
            let perSection = linesPerSection
            while low < high {
                let mid = (low + high) / 2
                if runs[mid].start + mid * perSection <= y { low = mid + 1 } else { high = mid }
            }
            let k = Swift.max(0, low - 1)
            let headerLine = runs[k].start + k * perSection
            let runEnd = k + 1 < runs.count ? runs[k + 1].start : list.count
            let span = TableView.VerticalSpan(y: Double(y), height: 1)
            if hasHeaders && y == top && y != headerLine && style == .plain && height > 1 {
                // The header of the section at the top floats over the line there.
                let header = TableView.VerticalSpan(y: Double(headerLine), height: 1)
                elements.append(.init(kind: .header(section: k), span: header, title: sectionNames?[runs[k].section], floatingSpan: span))
            }
            if hasHeaders && y == headerLine {
                elements.append(.init(kind: .header(section: k), span: span, title: sectionNames?[runs[k].section]))
            } else if perSection == 2 && y == headerLine + 1 + runEnd - runs[k].start {
                elements.append(.init(kind: .footer(section: k), span: span))
            } else {
                let position = runs[k].start + y - headerLine - (hasHeaders ? 1 : 0)
                let object = objects[Int(list[position])]
                let cell = TableFrame.Cell(
                    text: RecordTable.text(of: object.fields, textKey: textKey),
                    detailText: detailKey.flatMap { object.fields[$0] }.map(RecordTable.display),
                    isSelected: position == selected)
                elements.append(.init(kind: .row(TablePath(row: position - runs[k].start, section: k)), span: span, cell: cell))
            }
            y += 1
        }
        return TableFrame(
            contentOffset: Double(top), viewportHeight: Double(height), contentHeight: Double(total), numberOfSections: runs.count,
            elements: elements, sectionIndexTitles: indexTitles,
            searchText: showsSearchField ? searchText + (typing ? "▏" : "") : nil, style: style)
    }

    /// The section index of the table on screen: its sections' index titles,
    /// once each; nil without sections.
    package var indexTitles: [String]? {
        guard let titles = sectionIndexTitles else { return nil }
        var seen = Set<String>()
        let shown = runsOfList.compactMap { titles[$0.section] }.filter { !$0.isEmpty && seen.insert($0).inserted }
        return shown.isEmpty ? nil : shown
    }

    /// The number of rows of each section of the table on screen.
    package var sectionCounts: [Int] {
        let runs = runsOfList
        return runs.indices.map { k in (k + 1 < runs.count ? runs[k + 1].start : list.count) - runs[k].start }
    }

    /// The whole screen, a line each (without escape codes): a title line,
    /// the search field and the table's window, and a status line; each
    /// `columns` wide. The status line shows the last change once.
    package func screen() -> [String] {
        // The selection kept within the table (a delete in the results
        // shortens the whole table).
        place.selected = Swift.min(Swift.max(0, list.count - 1), place.selected)
        let title = " \(name) — \(live.count) object\(live.count == 1 ? "" : "s")" + (results.map { ", \($0.count) found" } ?? "")
        var body: [String] = []
        if let renderer = try? TextRenderer(width: columns, pointsPerLine: 1) {
            body = renderer.text(for: frame()).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
        let help = typing
            ? "type to filter · Enter: browse the results · Esc: cancel"
            : "↑↓ PgUp PgDn Home End · / search · d delete" + (unsavedNote == nil ? "" : " (not saved)") + " · q quit"
        let bottom = status.isEmpty ? help : status
        status = ""
        return [TerminalText.fitting(title, into: columns)] + body.prefix(lines - 2) + [TerminalText.fitting(" " + bottom, into: columns)]
    }

    /// The selected row's object, if any.
    package var selectedObject: DynamicObject? {
        let list = self.list
        return list.indices.contains(place.selected) ? objects[Int(list[place.selected])] : nil
    }

    /// The objects of the table on screen, in order (for tests).
    package var listedObjects: [DynamicObject] { list.map { objects[Int($0)] } }
}

extension BrowserModel {
    /// The selected position in the table on screen.
    package var selectedPosition: Int { place.selected }
}

/// The rows' searched strings, folded as `CONTAINS[cd]` folds them, in one
/// byte buffer: what a search keystroke scans.
struct SearchBytes: Sendable {
    /// Every row's searched strings, each followed by a 0 byte; row `r`'s are
    /// `bytes[starts[r]..<starts[r + 1]]` (none for a complex row).
    let bytes: [UInt8]
    let starts: [Int]
    /// Each row's kind: `exact`, `check` or `complex`.
    let kinds: [UInt8]
    /// The complex rows, in order.
    let complexRows: [Int32]

    /// A row whose strings' every scalar is a character: containing the
    /// folded text's bytes is matching.
    static let exact: UInt8 = 0
    /// A row with clusters of several scalars (CR LF, Hangul, emoji):
    /// containing the bytes is needed, the predicate decides.
    static let check: UInt8 = 1
    /// A row with a searched value that is not a string: the predicate alone.
    static let complex: UInt8 = 2

    /// The searched bytes of `objects`' `keys`.
    init(_ objects: [DynamicObject], keys: [String]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(objects.count * 16)
        var starts: [Int] = []
        starts.reserveCapacity(objects.count + 1)
        var kinds = [UInt8](repeating: Self.exact, count: objects.count)
        var complex: [Int32] = []
        for (row, object) in objects.enumerated() {
            starts.append(bytes.count)
            let mark = bytes.count
            var kind = Self.exact
            for key in keys {
                guard let value = object.fields[key] else { continue }
                guard case .string(var text) = value else {
                    kind = Self.complex
                    break
                }
                if !Self.appendLowercasedASCII(&text, to: &bytes, kind: &kind) {
                    let folded = _SearchFolding.caseAndDiacriticInsensitive(text)
                    let string = String(decoding: folded, as: UTF8.self)
                    if string.count != string.unicodeScalars.count { kind = Swift.max(kind, Self.check) }
                    bytes += folded
                }
                bytes.append(0)
            }
            if kind == Self.complex {
                bytes.removeSubrange(mark...)
                complex.append(Int32(truncatingIfNeeded: row))
            }
            kinds[row] = kind
        }
        starts.append(bytes.count)
        self.bytes = bytes
        self.starts = starts
        self.kinds = kinds
        complexRows = complex
    }

    /// Appends `text` lower-cased when it is ASCII (a CR LF, one character of
    /// two scalars, makes the row one to check); false otherwise.
    private static func appendLowercasedASCII(_ text: inout String, to bytes: inout [UInt8], kind: inout UInt8) -> Bool {
        text.withUTF8 { utf8 in
            for b in utf8 where b >= 0x80 { return false }
            var previous: UInt8 = 0
            for b in utf8 {
                if previous == 0x0D && b == 0x0A { kind = Swift.max(kind, Self.check) }
                bytes.append(b >= 0x41 && b <= 0x5A ? b + 32 : b)
                previous = b
            }
            return true
        }
    }

    /// The rows of `rows` (not complex) whose bytes contain `needle`.
    func scan(_ rows: [Int32], for needle: [UInt8]) -> [Int32] {
        var found: [Int32] = []
        let m = needle.count
        bytes.withUnsafeBufferPointer { bytes in
            needle.withUnsafeBufferPointer { needle in
                starts.withUnsafeBufferPointer { starts in
                    kinds.withUnsafeBufferPointer { kinds in
                        guard let first = needle.first else {
                            found = rows.filter { kinds[Int($0)] != Self.complex }
                            return
                        }
                        for row in rows {
                            let r = Int(row)
                            guard kinds[r] != Self.complex else { continue }
                            var i = starts[r]
                            let last = starts[r + 1] - m
                            search: while i <= last {
                                if bytes[i] == first {
                                    var k = 1
                                    while k < m && bytes[i + k] == needle[k] { k += 1 }
                                    if k == m {
                                        found.append(row)
                                        break search
                                    }
                                }
                                i += 1
                            }
                        }
                    }
                }
            }
        }
        return found
    }
}
