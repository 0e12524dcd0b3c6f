import TableDiff
/// A renderer that draws a table as text, for terminals, logs and snapshot
/// tests: the window's lines at a fixed width, and each batch as a
/// before/after view with its log.
///
/// ```swift
/// let renderer = try TextRenderer(width: 40)
/// renderer.onOutput = { print($0, terminator: "") }
/// table.renderer = renderer        // prints the window, then every change
/// ```
///
/// ```text
/// ── Sunday 22 November ──────────────────────
///  ▣ Fog on the river                  08:10 ›
///  ♪ Street musician at the st…        07:45 ›
/// ── Saturday 21 November ────────────────────
/// ▌▣ Night train                       23:02 ›
/// ```
///
/// A frame is as many lines as the viewport holds (its height divided by
/// ``pointsPerLine``, rounded), under a search field line when the table has
/// one (and a scope line, `Scope: [All] Mail Contacts`, when it has scopes). Each element takes the lines its place in the content rounds to (at
/// least one, pushing the next down when rounding would lose it):
/// section headers as a rule with the title, footers indented, rows as their
/// cell's lines — a selection mark in the left column, the editing control,
/// the text with the detail text at the right (or the cell's own
/// ``TableViewCell/textLines()``), the accessory, and the reorder control.
/// At the right run the section index and a scroll indicator (when the
/// content is taller than the viewport).
///
/// The same frame always gives the same bytes; every line has exactly
/// ``width`` columns (wide characters count two, combining marks none;
/// text that does not fit ends with an ellipsis) and ends with a newline.
public final class TextRenderer: TableRenderer {
    /// The characters a renderer draws with.
    public enum Style: String, Hashable, Sendable, CaseIterable {
        /// Box-drawing rules and marks (`──`, `▌`, `›`, `✓`, `…`).
        case box
        /// Plain ASCII (`--`, `>`, `v`, `...`).
        case ascii
    }

    /// The columns of every line.
    public let width: Int
    public let style: Style
    /// How many points of the table one line stands for.
    public let pointsPerLine: Double

    /// Called with the text of each display: a frame, or an update's
    /// before/after view.
    public var onOutput: ((String) -> Void)?
    /// The text of the last display.
    public private(set) var lastOutput: String?

    /// The most columns a line may have.
    public static let maximumWidth = 10_000
    /// The most lines a frame is drawn with (a taller viewport is cut).
    public static let maximumLines = 100_000

    /// A renderer of `width` columns.
    ///
    /// - Throws: ``TextRendererError`` for a width outside 1…``maximumWidth``
    ///   or a `pointsPerLine` that is not a positive number.
    public init(width: Int = 60, style: Style = .box, pointsPerLine: Double = 44) throws(TextRendererError) {
        guard (1...Self.maximumWidth).contains(width) else { throw .widthOutOfRange(width) }
        guard _Geometry.isValid(pointsPerLine, mustBePositive: true) else { throw .pointsPerLineNotPositive(pointsPerLine) }
        self.width = width
        self.style = style
        self.pointsPerLine = pointsPerLine
    }

    // MARK: TableRenderer

    public func display(_ frame: TableFrame) { output(text(for: frame)) }

    public func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame) {
        output(text(for: update, from: old, to: new))
    }

    func output(_ text: String) {
        lastOutput = text
        onOutput?(text)
    }

    // MARK: Text

    /// The frame as text: one line per line of the viewport (and the search
    /// field's and scope buttons' lines on top), each `width` columns and a newline.
    ///
    /// - Complexity: O(*lines* × *width* + elements).
    public func text(for frame: TableFrame) -> String {
        lines(for: frame).map { $0 + "\n" }.joined()
    }

    /// The batch's log, one change per line (`- delete {0, 3}`, `+ insert
    /// section 1`, `→ move {0, 2} to {1, 4}`, `↻ reload {0, 1}`), each with
    /// the animation asked for unless it is `.automatic`; `(no changes)` for
    /// an empty batch. Lines are not cut to the width.
    public func log(of update: TableUpdate) -> String {
        logLines(of: update).map { $0 + "\n" }.joined()
    }

    /// An update as a before/after view: `Before:`, the old frame, the batch's
    /// caption and log (a long log line continues on the next), `After:`, the
    /// new frame — every line `width` columns.
    public func text(for update: TableUpdate, from old: TableFrame, to new: TableFrame) -> String {
        let count = update.batch.changeCount
        var result = [caption("Before:")] + lines(for: old)
        result.append(caption("Batch (\(count) change\(count == 1 ? "" : "s")):"))
        result += logLines(of: update).flatMap(wrapped)
        result.append(caption("After:"))
        result += lines(for: new)
        return result.map { $0 + "\n" }.joined()
    }

    func logLines(of update: TableUpdate) -> [String] {
        let changes = update.changes
        if changes.isEmpty { return ["(no changes)"] }
        return changes.map { change in
            let line = change.logLine(ascii: style == .ascii)
            let animation = update.animation(for: change)
            return animation == .automatic ? line : "\(line) (\(animation.rawValue))"
        }
    }

    func caption(_ text: String) -> String { TerminalText.fitting(text, into: width, ellipsis: marks.ellipsis) }

    /// A log line in lines of the width: broken at spaces outside paths,
    /// continued two columns in, so that no change is cut short.
    func wrapped(_ text: String) -> [String] {
        var words: [String] = [], word = "", depth = 0
        for character in text {
            if character == "{" { depth += 1 } else if character == "}" { depth -= 1 }
            if character == " " && depth == 0 {
                words.append(word)
                word = ""
            } else {
                word.append(character)
            }
        }
        words.append(word)
        var lines: [String] = [], line = ""
        for word in words {
            let candidate = line.isEmpty ? word : line + " " + word
            if TerminalText.width(of: candidate) <= width || line.allSatisfy({ $0 == " " }) {
                line = candidate
            } else {
                lines.append(line)
                line = "  " + word
            }
        }
        lines.append(line)
        return lines.map(caption)
    }

    // MARK: Layout

    /// The frame's lines, each exactly `width` columns.
    func lines(for frame: TableFrame) -> [String] {
        let count = Swift.min(Self.maximumLines, Swift.max(1, lineIndex(frame.viewportHeight)))
        let columns = self.columns(for: frame)
        var body = Array(repeating: String(repeating: " ", count: columns.content), count: count)
        // Each element takes the lines its span rounds to, and at least one
        // when it has a height: a short header below a tall row is pushed
        // down a line rather than lost.
        var free = Int.min
        let inset = frame.style == .insetGrouped && columns.content >= 12 ? 2 : 0
        func draw(_ element: TableFrame.Element, top: Int, bottom: Int) {
            for line in Swift.max(0, top)..<Swift.max(Swift.max(0, top), Swift.min(count, bottom)) {
                let drawn = self.text(of: element, line: line - top, lines: bottom - top, frame: frame, columns: columns.content - 2 * inset)
                body[line] = inset == 0 ? drawn : "  " + drawn + "  "
            }
        }
        for element in frame.elements where element.span.height > 0 && !element.isFloating {
            let top = Swift.max(free, lineIndex(element.span.y - frame.contentOffset))
            let bottom = Swift.max(top + 1, lineIndex(element.span.y + element.span.height - frame.contentOffset))
            free = bottom
            draw(element, top: top, bottom: bottom)
        }
        // Floating headers and footers over what scrolls under them.
        for element in frame.elements where element.shownSpan.height > 0 && element.isFloating {
            let span = element.shownSpan
            let top = lineIndex(span.y - frame.contentOffset)
            draw(element, top: top, bottom: Swift.max(top + 1, lineIndex(span.y + span.height - frame.contentOffset)))
        }
        let index = indexColumn(frame.sectionIndexTitles ?? [], lines: count, width: columns.index)
        let scroll = scrollColumn(frame, lines: count, show: columns.scroll)
        var result: [String] = []
        result.reserveCapacity(count + 1)
        if let search = frame.searchText {
            result.append(TerminalText.fitting("Search: " + search, into: width, ellipsis: marks.ellipsis))
        }
        if let scopes = frame.searchScopeTitles, !scopes.isEmpty {
            // The selected button in brackets: `Scope: [All] Mail Contacts`.
            let buttons = scopes.enumerated().map { k, title in k == frame.selectedSearchScopeIndex ? "[\(title)]" : title }
            result.append(TerminalText.fitting("Scope: " + buttons.joined(separator: " "), into: width, ellipsis: marks.ellipsis))
        }
        for line in 0..<count {
            result.append(body[line] + index[line] + scroll[line])
        }
        return result
    }

    /// The line a distance from the window's top falls on, rounded, kept
    /// within what a frame can draw.
    func lineIndex(_ points: Double) -> Int {
        let lines = points / pointsPerLine
        let bound = Double(Self.maximumLines + 1)
        guard lines.isFinite else { return lines.isNaN ? 0 : (lines > 0 ? Int(bound) : -Int(bound)) }
        return Int(Swift.min(bound, Swift.max(-bound, lines.rounded())))
    }

    /// How a line's columns are shared: the content, the section index (with
    /// a space before it) and the scroll indicator. The index and the
    /// indicator give way when the content would be left fewer than 8 columns.
    func columns(for frame: TableFrame) -> (content: Int, index: Int, scroll: Bool) {
        var content = width
        let scroll = frame.contentHeight > frame.viewportHeight && width >= 4
        if scroll { content -= 1 }
        var index = 0
        if let titles = frame.sectionIndexTitles, !titles.isEmpty {
            let widest = Swift.min(4, titles.map { TerminalText.width(of: $0) }.max() ?? 1)
            if content - (widest + 1) >= 8 { index = widest + 1 }
        }
        content -= index
        return (content, index, scroll)
    }

    /// The section index, centred on the lines; when there are more titles
    /// than lines, every other line shows a sampled title and the others a dot.
    func indexColumn(_ titles: [String], lines: Int, width: Int) -> [String] {
        var column = Array(repeating: String(repeating: " ", count: width), count: lines)
        guard width > 0, !titles.isEmpty else { return column }
        func entry(_ text: String) -> String { " " + TerminalText.fitting(text, into: width - 1, alignment: .center, ellipsis: "") }
        if titles.count <= lines {
            let start = (lines - titles.count) / 2
            for (i, title) in titles.enumerated() { column[start + i] = entry(title) }
        } else {
            for line in 0..<lines {
                let sampled = line % 2 == 0 || line == lines - 1
                let i = lines == 1 ? 0 : (line * (titles.count - 1) + (lines - 1) / 2) / (lines - 1)
                column[line] = entry(sampled ? titles[i] : marks.indexDot)
            }
        }
        return column
    }

    /// The scroll indicator: a track with a thumb as long as the viewport is
    /// a part of the content, placed as the offset is.
    func scrollColumn(_ frame: TableFrame, lines: Int, show: Bool) -> [String] {
        guard show else { return Array(repeating: "", count: lines) }
        let part = frame.viewportHeight / frame.contentHeight
        let thumb = Swift.max(1, Swift.min(lines, Int((Double(lines) * (part.isFinite ? part : 1)).rounded())))
        let range = frame.contentHeight - frame.viewportHeight
        let position = range > 0 && frame.contentOffset.isFinite ? Swift.min(1, Swift.max(0, frame.contentOffset / range)) : 0
        let start = Int((Double(lines - thumb) * position).rounded())
        return (0..<lines).map { (start..<start + thumb).contains($0) ? marks.thumb : marks.track }
    }

    /// One line of an element that takes `lines` lines, `columns` wide.
    func text(of element: TableFrame.Element, line: Int, lines: Int, frame: TableFrame, columns: Int) -> String {
        let ellipsis = marks.ellipsis
        let blank = String(repeating: " ", count: Swift.max(0, columns))
        switch element.kind {
        case .header:
            switch frame.style {
            case .plain:
                guard line == 0 else { return blank }
                let rule = marks.rule
                guard let title = element.title, !title.isEmpty else { return String(repeating: rule, count: columns) }
                let text = rule + rule + " " + TerminalText.sanitized(title) + " "
                let used = TerminalText.width(of: text)
                guard used <= columns else { return TerminalText.fitting(text, into: columns, ellipsis: ellipsis) }
                return text + String(repeating: rule, count: columns - used)
            case .grouped, .insetGrouped:
                // A group's title sits on the header's last line, just above its rows.
                guard line == lines - 1, let title = element.title, !title.isEmpty else { return blank }
                return TerminalText.fitting(" " + title, into: columns, ellipsis: ellipsis)
            }
        case .footer:
            guard line == 0, let title = element.title else { return blank }
            return TerminalText.fitting("  " + title, into: columns, ellipsis: ellipsis)
        case .row(let path):
            if let swiped = frame.swipedRow, swiped.indexPath == path {
                return swipedRowText(swiped, line: line, columns: columns) { rowText(element.cell ?? TableFrame.Cell(), line: line, lines: lines, isEditing: frame.isEditing, columns: $0) }
            }
            return rowText(element.cell ?? TableFrame.Cell(), line: line, lines: lines, isEditing: frame.isEditing, columns: columns)
        }
    }

    /// A row's line: the selection mark, the editing control, the content,
    /// the accessory and the reorder control, from left to right.
    func rowText(_ cell: TableFrame.Cell, line: Int, lines: Int = 1, isEditing: Bool, columns: Int) -> String {
        var left = cell.isSelected ? marks.selected : " "
        var right = ""
        if line == 0 {
            if isEditing {
                switch cell.editingStyle {
                case .delete: left += marks.delete + " "
                case .insert: left += marks.insert + " "
                case .none: left += "  "
                }
            }
            if let accessory = marks.accessory(cell.accessory) { right += " " + accessory }
            if cell.showsReorderControl { right += " " + marks.reorder }
        } else if isEditing {
            left += "  "
        }
        var room = columns - TerminalText.width(of: left) - TerminalText.width(of: right)
        if room < 1 {
            // Too narrow for the controls: the content comes first.
            right = ""
            room = columns - TerminalText.width(of: left)
        }
        guard room > 0 else { return TerminalText.fitting(left, into: columns, ellipsis: "") }
        return left + content(of: cell, line: line, lines: lines, room: room) + right
    }

    /// A row's content on one of its lines, exactly `room` columns: the
    /// indentation, the image, and the text and detail text laid out as the
    /// cell's style lays them out — or the cell's own lines.
    func content(of cell: TableFrame.Cell, line: Int, lines: Int, room: Int) -> String {
        let ellipsis = marks.ellipsis
        // A column per 5 points of indentation: two per level at UIKit's 10 points.
        let points = Double(Swift.max(0, cell.indentationLevel)) * (cell.indentationWidth.isFinite ? Swift.max(0, cell.indentationWidth) : 0)
        let indent = Int(Swift.min(Double(room - 1), (points / 5).rounded()))
        var prefix = String(repeating: " ", count: Swift.max(0, indent))
        var rest = room - prefix.count
        if let outline = cell.outline, rest >= 3 {
            // An outline's row: its disclosure state after the indentation,
            // a blank for a row without children, so that siblings line up.
            let mark = switch outline.disclosure {
            case .collapsed: marks.collapsed
            case .expanded: marks.expanded
            case .none: " "
            }
            prefix += (line == 0 ? mark : " ") + " "
            rest -= 2
        }
        if let lines = cell.lines {
            return prefix + (line < lines.count ? lines[line].rendered(width: rest, ellipsis: ellipsis) : String(repeating: " ", count: rest))
        }
        if let image = cell.image, cell.style != .value2 {
            let glyph = TerminalText.sanitized(image.glyph ?? marks.image)
            let columns = Swift.min(2, Swift.max(1, TerminalText.width(of: glyph)))
            if rest >= columns + 2 {
                prefix += (line == 0 ? TerminalText.fitting(glyph, into: columns, ellipsis: "") : String(repeating: " ", count: columns)) + " "
                rest -= columns + 1
            }
        }
        let text = TerminalText.sanitized(cell.text ?? ""), detail = TerminalText.sanitized(cell.detailText ?? "")
        let alignment: TerminalText.Alignment = cell.textAlignment == .center ? .center : .left
        switch cell.style {
        case .subtitle where lines >= 2 && !detail.isEmpty:
            // The detail text on the second line, under the text.
            switch line {
            case 0: return prefix + TerminalText.fitting(text, into: rest, alignment: alignment, ellipsis: ellipsis)
            case 1: return prefix + TerminalText.fitting(detail, into: rest, alignment: alignment, ellipsis: ellipsis)
            default: return prefix + String(repeating: " ", count: rest)
            }
        case .value2 where rest >= 3:
            // The text narrow on the left, right-aligned; the detail text after it.
            guard line == 0 else { return prefix + String(repeating: " ", count: rest) }
            let label = Swift.max(1, rest * 3 / 10)
            return prefix + TerminalText.fitting(text, into: label, alignment: .right, ellipsis: ellipsis) + " "
                + TerminalText.fitting(detail, into: rest - label - 1, ellipsis: ellipsis)
        default:
            guard line == 0 else { return prefix + String(repeating: " ", count: rest) }
            if detail.isEmpty && alignment != .left { return prefix + TerminalText.fitting(text, into: rest, alignment: alignment, ellipsis: ellipsis) }
            return prefix + Self.defaultLayout.render(["text": text, "detail": detail], width: rest, ellipsis: ellipsis)
        }
    }

    /// Text at the left, detail text at the right.
    static let defaultLayout: TextLineTemplate = "{text} {detail}"

    var marks: Marks { style == .box ? .box : .ascii }

    /// The characters of a style.
    struct Marks {
        var ellipsis, rule, selected, delete, insert, reorder, track, thumb, indexDot, image: String
        var disclosure, checkmark, detail, detailDisclosure: String
        /// An outline's collapsed and expanded parents.
        var collapsed, expanded: String

        func accessory(_ accessory: CellAccessory) -> String? {
            switch accessory {
            case .none: nil
            case .disclosureIndicator: disclosure
            case .checkmark: checkmark
            case .detailButton: detail
            case .detailDisclosureButton: detailDisclosure
            }
        }

        static let box = Marks(
            ellipsis: "…", rule: "─", selected: "▌", delete: "⊖", insert: "⊕", reorder: "≡", track: "│", thumb: "█", indexDot: "•", image: "▪",
            disclosure: "›", checkmark: "✓", detail: "ⓘ", detailDisclosure: "ⓘ›", collapsed: "▸", expanded: "▾")
        static let ascii = Marks(
            ellipsis: "...", rule: "-", selected: ">", delete: "-", insert: "+", reorder: "=", track: "|", thumb: "#", indexDot: ".", image: "*",
            disclosure: ">", checkmark: "v", detail: "i", detailDisclosure: "i>", collapsed: "+", expanded: "-")
    }
}

/// A text renderer's setting that cannot work.
public enum TextRendererError: Error, Hashable, Sendable, CustomStringConvertible {
    case widthOutOfRange(Int)
    case pointsPerLineNotPositive(Double)

    public var description: String {
        switch self {
        case .widthOutOfRange(let width):
            "A text renderer's width must be 1 to \(TextRenderer.maximumWidth) columns, not \(width)."
        case .pointsPerLineNotPositive(let points):
            "A text renderer's points per line must be a positive number, not \(points)."
        }
    }
}
