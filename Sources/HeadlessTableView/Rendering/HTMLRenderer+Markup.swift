import TableDiff

// The markup of each part of a table, one element a line. Every text of the
// data goes through `HTMLText.escaped`; attribute names and classes are the
// renderer's own.

extension HTMLRenderer {
    /// A row: `role="row"`, its place among all the rows, its identity and
    /// key, selection, outline and editing state; its text (after the image)
    /// and detail text each a grid cell; the accessory and the swipe actions.
    func rowHTML(_ element: TableFrame.Element, path: TablePath, key: String, id: String, frame: TableFrame) -> String {
        let cell = element.cell ?? TableFrame.Cell()
        var classes = "ht-row"
        switch cell.style {
        case .default: break
        case .value1: classes += " ht-value1"
        case .value2: classes += " ht-value2"
        case .subtitle: classes += " ht-subtitle"
        }
        if cell.textAlignment == .center { classes += " ht-center" }
        var html = #"<div class="\#(classes)" role="row" data-key="\#(HTMLText.escaped(key))" data-id="\#(HTMLText.escaped(id))""#
        html += #" aria-rowindex="\#(Self.counted(element.rowIndex ?? path.row))" aria-selected="\#(cell.isSelected)""#
        if let outline = cell.outline {
            html += #" aria-level="\#(Self.counted(Swift.max(0, outline.level)))""#
            switch outline.disclosure {
            case .none: break
            case .collapsed: html += #" aria-expanded="false""#
            case .expanded: html += #" aria-expanded="true""#
            }
        }
        if frame.isEditing {
            switch cell.editingStyle {
            case .none: break
            case .delete: html += #" data-editing="delete""#
            case .insert: html += #" data-editing="insert""#
            }
            if cell.showsReorderControl { html += #" data-reorder="true""# }
        }
        var style = "height:" + _HTMLNumber.pixels(element.span.height * pixelsPerPoint)
        let indentation = Double(Swift.max(0, cell.indentationLevel)) * cell.indentationWidth * pixelsPerPoint
        if indentation > 0, indentation.isFinite { style += ";padding-inline-start:" + _HTMLNumber.pixels(indentation) }
        html += #" style="\#(style)">"#
        // The text cell: the image, then the text (or the cell's own lines).
        html += #"<span class="ht-text" role="gridcell">"#
        if let image = cell.image {
            html += #"<span class="ht-image""#
            if let name = image.name { html += #" data-name="\#(HTMLText.escaped(name))""# }
            html += #" aria-hidden="true">\#(HTMLText.escaped(image.glyph ?? ""))</span>"#
        }
        if let lines = cell.lines {
            for line in lines { html += Self.lineHTML(line) }
        } else {
            html += HTMLText.escaped(cell.text ?? "")
        }
        html += "</span>"
        html += #"<span class="ht-detail" role="gridcell">\#(cell.lines == nil ? HTMLText.escaped(cell.detailText ?? "") : "")</span>"#
        if let accessory = Self.accessoryName(cell.accessory) {
            html += #"<span class="ht-accessory" data-accessory="\#(accessory)" aria-hidden="true"></span>"#
        }
        if let swiped = frame.swipedRow, swiped.indexPath == path {
            html += #"<span class="ht-actions" data-edge="\#(swiped.edge.rawValue)">"#
            for (k, action) in swiped.actions.enumerated() {
                let style = switch action.style {
                case .normal: "normal"
                case .destructive: "destructive"
                }
                html += #"<span class="ht-action" role="button" data-style="\#(style)""#
                if swiped.performingActionIndex == k { html += #" aria-busy="true""# }
                html += ">" + HTMLText.escaped(action.title ?? "") + "</span>"
            }
            html += "</span>"
        }
        return html + "</div>"
    }

    /// A section header (`role="heading"`) or footer: its title, its height;
    /// a floating one (pinned at the window's edge) takes no room in the
    /// flow (a negative margin) and carries `ht-floating`, for the page's
    /// `position: sticky`.
    func supplementaryHTML(_ element: TableFrame.Element, key: String, isHeader: Bool) -> String {
        let height = _HTMLNumber.pixels(element.span.height * pixelsPerPoint)
        var style = "height:" + height
        if element.isFloating { style += (isHeader ? ";margin-bottom:-" : ";margin-top:-") + height }
        let floating = element.isFloating ? " ht-floating" : ""
        let role = isHeader ? #" role="heading" aria-level="2""# : ""
        let title = HTMLText.escaped(element.title ?? "")
        return #"<div class="\#(isHeader ? "ht-header" : "ht-footer")\#(floating)"\#(role) data-key="\#(key)" style="\#(style)">\#(title)</div>"#
    }

    /// A line of a cell's own layout: its literal text and its fields, each
    /// field a span named by `data-field`.
    static func lineHTML(_ line: TextLine) -> String {
        var html = #"<span class="ht-line">"#
        for part in line.template.parts {
            switch part {
            case .literal(let text): html += HTMLText.escaped(text)
            case .field(let name, let alignment, _):
                let align = switch alignment {
                case .left: ""
                case .right: #" data-align="right""#
                case .center: #" data-align="center""#
                }
                html += #"<span class="ht-field" data-field="\#(HTMLText.escaped(name))"\#(align)>\#(HTMLText.escaped(line.values[name] ?? ""))</span>"#
            }
        }
        return html + "</span>"
    }

    /// A place counted from 1, as ARIA counts (a frame built by hand may hold `Int.max`).
    static func counted(_ index: Int) -> Int { index == .max ? index : index + 1 }

    static func accessoryName(_ accessory: CellAccessory) -> String? {
        switch accessory {
        case .none: nil
        case .disclosureIndicator: "disclosure-indicator"
        case .detailDisclosureButton: "detail-disclosure-button"
        case .checkmark: "checkmark"
        case .detailButton: "detail-button"
        }
    }

    /// The search field, holding `text`.
    static func searchFieldHTML(_ text: String) -> String {
        #"<input class="ht-search" type="search" aria-label="Search" autocomplete="off" value="\#(HTMLText.escaped(text))">"#
    }

    /// The scope buttons, the selected one checked; nil for none.
    static func scopesHTML(_ titles: [String]?, selected: Int) -> String? {
        guard let titles, !titles.isEmpty else { return nil }
        var html = #"<div class="ht-scopes" role="radiogroup" aria-label="Search scope">"#
        for (k, title) in titles.enumerated() {
            html += #"<span role="radio" data-scope="\#(k)" aria-checked="\#(k == selected)">\#(HTMLText.escaped(title))</span>"#
        }
        return html + "</div>"
    }

    /// The section index; nil for none.
    static func indexHTML(_ titles: [String]?) -> String? {
        guard let titles, !titles.isEmpty else { return nil }
        var html = #"<nav class="ht-index" aria-label="Section index">"#
        for (k, title) in titles.enumerated() { html += #"<span data-index="\#(k)">\#(HTMLText.escaped(title))</span>"# }
        return html + "</nav>"
    }
}

/// A table as a page holds it: the parts around the grid, the grid's
/// attributes and spacers, and the elements between the spacers, by key.
struct _HTMLDocument: Equatable {
    struct Element: Equatable {
        var key: String
        /// Rows are recycled for rows; headers and footers for each other.
        var isRow: Bool
        var html: String
    }

    var style: TableView.Style
    var label: String?
    var rowCount = 0
    var scrollTop = 0.0, topSpacer = 0.0, bottomSpacer = 0.0
    /// The track's scale (see `HTMLRenderer.Geometry`).
    var scale = 1.0
    var searchField: String?, scopes: String?, index: String?
    var elements: [Element] = []

    var styleClass: String {
        switch style {
        case .plain: "ht-plain"
        case .grouped: "ht-grouped"
        case .insetGrouped: "ht-inset-grouped"
        }
    }

    /// The grid's opening tag.
    var gridHTML: String {
        var html = #"<div class="ht-grid \#(styleClass)" role="grid" aria-rowcount="\#(rowCount)" aria-colcount="2""#
        if let label { html += #" aria-label="\#(HTMLText.escaped(label))""# }
        return html + #" data-scroll-top="\#(_HTMLNumber.text(scrollTop))" tabindex="0">"#
    }

    static func spacerHTML(_ place: String, _ height: Double) -> String {
        #"<div class="ht-spacer" data-spacer="\#(place)" aria-hidden="true" style="height:\#(_HTMLNumber.pixels(height))"></div>"#
    }

    /// The whole markup, one element a line.
    ///
    /// - Complexity: O(the markup's length).
    var html: String {
        var lines = [#"<div class="ht-table">"#]
        if let searchField { lines.append(searchField) }
        if let scopes { lines.append(scopes) }
        lines.append(gridHTML)
        lines.append(Self.spacerHTML("top", topSpacer))
        for element in elements { lines.append(element.html) }
        lines.append(Self.spacerHTML("bottom", bottomSpacer))
        lines.append("</div>")
        if let index { lines.append(index) }
        lines.append("</div>")
        return lines.map { $0 + "\n" }.joined()
    }
}

/// Numbers as the markup and the operations carry them: CSS pixels rounded
/// to 1/100, written without a fraction when whole.
enum _HTMLNumber {
    static func rounded(_ value: Double) -> Double {
        guard value.isFinite else { return 0 }
        let clamped = Swift.min(1e12, Swift.max(-1e12, value))
        return (clamped * 100).rounded() / 100
    }

    static func text(_ value: Double) -> String {
        let value = rounded(value)
        if value == value.rounded() { return String(Int(value)) }
        return String(value)
    }

    static func pixels(_ value: Double) -> String { text(Swift.max(0, value)) + "px" }
}
