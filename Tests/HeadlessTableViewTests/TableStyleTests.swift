import Foundation
import Testing
import HeadlessTableView
import TableDiff
import TableSnapshotTesting
import TableTestSupport

/// Table styles and floating headers: a plain table's frame pins the header
/// of the section at the window's top (and the footer of the section at its
/// bottom) where a brute-force model of UIKit's rule puts them; the grouped
/// styles give every section a header and a footer that scroll; the text
/// renderer draws each style.
@Suite struct TableStyleTests {
    /// UIKit's rule, by brute force over every section's span: the header of
    /// the section whose span strictly crosses the window's top edge, pinned at
    /// the edge but not below its section's end; the footer of the section
    /// crossing the bottom edge, pinned there while its rows show (not above
    /// them: never over its own header).
    static func expectedFloating(_ layout: BruteForceLayout, offset: Double, viewport: Double)
        -> (header: (section: Int, y: Double)?, footer: (section: Int, y: Double)?)
    {
        let top = offset, bottom = offset + viewport
        var header: (Int, Double)?, footer: (Int, Double)?
        for (s, section) in layout.sections.enumerated() {
            if section.header > 0, section.y < top, top < section.y + section.height {
                header = (s, Swift.min(top, section.y + section.height - section.header))
            }
            if section.footer > 0, section.y + section.header < bottom, bottom < section.y + section.height {
                footer = (s, Swift.max(bottom - section.footer, section.y + section.header))
            }
        }
        return (header, footer)
    }

    @Test(arguments: TableView.Style.allCases)
    func floatingHeadersAgreeWithTheModel(_ style: TableView.Style) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for round in 0..<TestScale.cases(150, full: 400) {
            var ids = Array(0..<200).shuffled(using: &g)
            let sections = TableGenerator.randomTable(&g, sections: 0...6, rows: 0...8, ids: &ids)
            let source = ItemSource(sections)
            var heights: [Int: Double] = [:]
            for section in sections { for item in section.rows { heights[item.id] = [0, 5, 12, 20, 33][g.int(0..<5)] } }
            source.heights = heights
            source.headerHeights = sections.map { _ in [0, 8, 15, 40][g.int(0..<4)] }
            source.footerHeights = sections.map { _ in [0, 0, 6, 25][g.int(0..<4)] }
            let viewport = Double(g.int(5...150))
            let table = TableView(viewportHeight: viewport, style: style)
            try table.register(ItemCell.self, forCellReuseIdentifier: "item")
            table.dataSource = source
            table.delegate = source
            try table.reloadData()
            let layout = BruteForceLayout(
                rowHeights: sections.map { $0.rows.map { heights[$0.id]! } },
                headers: source.headerHeights!, footers: source.footerHeights!)
            expectEqual(table.contentHeight, layout.contentHeight)
            for probe in 0..<8 {
                let end = Swift.max(0, layout.contentHeight - viewport)
                let offset = [0, end, Double(g.int(0...Int(end.rounded(.down)))), Double.random(in: 0...Swift.max(0, end), using: &g)][probe % 4]
                try table.setContentOffset(offset)
                let frame = table.currentFrame
                let context = "seed \(seed), round \(round), \(style), offset \(offset), viewport \(viewport): \(describe(sections))"
                expectEqual(frame.style, style)
                if style == .plain {
                    let expected = Self.expectedFloating(layout, offset: table.contentOffset, viewport: viewport)
                    let header = frame.floatingHeader, footer = frame.floatingFooter
                    expectEqual(header.map(\.kind), expected.header.map { TableFrame.Element.Kind.header(section: $0.section) }, "\(context)")
                    expectEqual(header?.floatingSpan?.y, expected.header?.y, "\(context)")
                    expectEqual(footer.map(\.kind), expected.footer.map { TableFrame.Element.Kind.footer(section: $0.section) }, "\(context)")
                    expectEqual(footer?.floatingSpan?.y, expected.footer?.y, "\(context)")
                    // A floating element keeps its natural place too.
                    if let header, case .header(let s) = header.kind {
                        #expect(header.span.y == layout.sections[s].y && header.span.height == layout.sections[s].header)
                    }
                    expectEqual(frame.elements.filter(\.isFloating).count, (expected.header == nil ? 0 : 1) + (expected.footer == nil ? 0 : 1))
                } else {
                    #expect(frame.elements.allSatisfy { !$0.isFloating }, "\(context)")
                }
                // Everything else is at its place, meeting the window; rows are the brute force's.
                for element in frame.elements where !element.isFloating {
                    #expect(element.span.y < table.contentOffset + viewport && element.span.maxY > table.contentOffset, "\(context)")
                }
                expectEqual(frame.rows, layout.window(table.contentOffset, table.contentOffset + viewport), "\(context)")
                // Hit testing answers from the rows, whatever floats over them.
                for _ in 0..<4 {
                    let y = table.contentOffset + Double.random(in: 0..<Swift.max(1, viewport), using: &g)
                    expectEqual(table.indexPathForRow(at: y), layout.row(at: y), "\(context), y \(y)")
                }
            }
        }
    }

    @Test func groupedStylesGiveEverySectionAHeaderAndAFooter() throws {
        for style in [TableView.Style.grouped, .insetGrouped] {
            let source = ListSource([
                .init(title: nil, rows: [.init(text: "Wi-Fi")]),
                .init(title: "General", rows: [.init(text: "About"), .init(text: "Storage")], footer: "Free: 12 GB"),
            ])
            let table = TableView(viewportHeight: 400, style: style)
            #expect(table.sectionHeaderHeight == 18 && table.sectionFooterHeight == 18)
            try table.register(LinesCell.self, forCellReuseIdentifier: "row")
            table.dataSource = source
            try table.reloadData()
            expectEqual(table.rectForHeader(inSection: 0), TableView.VerticalSpan(y: 0, height: 18))
            expectEqual(table.rectForFooter(inSection: 0), TableView.VerticalSpan(y: 62, height: 18))
            expectEqual(table.rect(forSection: 1), TableView.VerticalSpan(y: 80, height: 18 + 88 + 18))
        }
        // Plain: only titled sections have a header (28 by default).
        let plain = TableView(viewportHeight: 400)
        #expect(plain.style == .plain && plain.sectionHeaderHeight == 28)
    }

    /// The styles drawn: a plain table scrolled so that its header floats,
    /// then pushed up by the next one; the grouped and inset grouped tables
    /// at the same offsets, their headers scrolling.
    @Test func everyTableStyle() throws {
        let source = ListSource([
            .init(title: "Fruit", rows: ["Apple", "Banana", "Cherry", "Damson"].map { .init(text: $0, detail: "kg", accessory: .disclosureIndicator) }),
            .init(title: "Vegetables", rows: ["Leek", "Onion"].map { .init(text: $0) }, footer: "In season"),
            .init(title: nil, rows: ["Bread", "Milk", "Tea"].map { .init(text: $0) }),
        ])
        var out = ""
        for style in TableView.Style.allCases {
            for offset in [0.0, 2, 4, 6] {
                let table = try source.table(lines: 6, style: style)
                try table.setContentOffset(offset)
                out += "\(style) at \(Int(offset)):\n" + (try TextRenderer(width: 34, pointsPerLine: 1).text(for: table.currentFrame))
            }
        }
        let table = try source.table(lines: 6, style: .plain)
        try table.setContentOffset(3)
        out += "plain at 3, ASCII:\n" + (try TextRenderer(width: 34, style: .ascii, pointsPerLine: 1).text(for: table.currentFrame))
        assertTextSnapshot(of: out)
    }

    // MARK: Cell styles

    /// A row of the cell-style table: how its cell is made and filled.
    struct StyledRow {
        var style: TableViewCell.CellStyle = .default
        var text: String
        var detail: String?
        var image: CellImage?
        var indentation = 0
        var lines = 1
        var configuration: ListContentConfiguration?
    }

    /// Cells made by the data source in their styles (not registered: each
    /// style its own identifier), indented by the delegate.
    final class StyledSource: TableViewDataSource, TableViewDelegate {
        var rows: [StyledRow]
        init(_ rows: [StyledRow]) { self.rows = rows }
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { rows.count }
        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            let row = rows[indexPath.row]
            let identifier = row.style.rawValue
            let cell = tableView.dequeueReusableCell(withIdentifier: identifier) ?? TableViewCell(style: row.style, reuseIdentifier: identifier)
            cell.text = row.text
            cell.detailText = row.detail
            cell.image = row.image
            cell.contentConfiguration = row.configuration
            return cell
        }
        func tableView(_ tableView: TableView, heightForRowAt indexPath: TablePath) -> Double? { Double(rows[indexPath.row].lines) }
        func tableView(_ tableView: TableView, indentationLevelForRowAt indexPath: TablePath) -> Int? { rows[indexPath.row].indentation }
    }

    static func draw(_ rows: [StyledRow], width: Int, ascii: Bool = false) throws -> String {
        let source = StyledSource(rows)
        let table = TableView(viewportHeight: Double(rows.reduce(0) { $0 + $1.lines }))
        table.dataSource = source
        table.delegate = source
        try table.reloadData()
        return try TextRenderer(width: width, style: ascii ? .ascii : .box, pointsPerLine: 1).text(for: table.currentFrame)
    }

    @Test func everyCellStyle() throws {
        let star = CellImage(named: "star.fill", glyph: "★")
        var subtitle = ListContentConfiguration.subtitleCell()
        subtitle.text = "Night train"
        subtitle.secondaryText = "23:02 from Vienna"
        subtitle.image = CellImage(glyph: "♪")
        var value = ListContentConfiguration.valueCell()
        value.text = "Wi-Fi"
        value.secondaryText = "Home"
        value.image = CellImage(named: "wifi")
        var shouting = ListContentConfiguration.cell()
        shouting.text = "centred and loud"
        shouting.textProperties = .init(alignment: .center, transform: .uppercase)
        let rows = [
            StyledRow(style: .default, text: "Default", detail: nil, image: star),
            StyledRow(style: .default, text: "Default with detail", detail: "right"),
            StyledRow(style: .value1, text: "Value 1", detail: "detail", image: star),
            StyledRow(style: .value2, text: "Phone", detail: "+44 20 7946 0000", image: star),
            StyledRow(style: .subtitle, text: "Subtitle, two lines", detail: "the detail below", image: star, lines: 2),
            StyledRow(style: .subtitle, text: "Subtitle, one line", detail: "beside"),
            StyledRow(style: .default, text: "Indented once", indentation: 1),
            StyledRow(style: .subtitle, text: "Indented twice", detail: "and its subtitle", image: star, indentation: 2, lines: 2),
            StyledRow(style: .default, text: "", lines: 2, configuration: subtitle),
            StyledRow(style: .subtitle, text: "", configuration: value),
            StyledRow(style: .default, text: "", configuration: shouting),
        ]
        let out = try Self.draw(rows, width: 40) + "\n" + (try Self.draw(rows, width: 40, ascii: true))
            + "\n" + (try Self.draw(rows, width: 14))
        assertTextSnapshot(of: out)
    }

    @Test func cellStylesAndConfigurationsSurviveTemplates() throws {
        let prototype = TableViewCell(style: .value2, reuseIdentifier: nil)
        prototype.image = CellImage(named: "phone", glyph: "☎")
        prototype.indentationLevel = 3
        prototype.indentationWidth = 15
        var content = prototype.defaultContentConfiguration()
        #expect(content.prefersSideBySideTextAndSecondaryText)
        content.text = "mobile"
        content.secondaryTextProperties.transform = .lowercase
        prototype.contentConfiguration = content
        let template = try ViewTemplate(prototype)
        let cell = try template.makeView(TableViewCell.self, reuseIdentifier: "phone")
        expectEqual(cell.cellStyle, .value2)
        #expect(cell.image == prototype.image && cell.indentationLevel == 3 && cell.indentationWidth == 15)
        expectEqual(cell.contentConfiguration, content)
        // A registered class makes `.default` cells; a subclass picks its style.
        final class SubtitleCell: TableViewCell {
            required init(reuseIdentifier: String?) { super.init(style: .subtitle, reuseIdentifier: reuseIdentifier) }
            required init(from decoder: any Decoder) throws { try super.init(from: decoder) }
        }
        let pool = ReusePool()
        try pool.register(SubtitleCell.self, forCellReuseIdentifier: "s")
        try pool.register(TableViewCell.self, forCellReuseIdentifier: "d")
        expectEqual(pool.dequeueReusableCell(withIdentifier: "s")?.cellStyle, .subtitle)
        expectEqual(pool.dequeueReusableCell(withIdentifier: "d")?.cellStyle, .default)
        expectEqual(TableViewCell(style: .subtitle, reuseIdentifier: nil).defaultContentConfiguration(), .subtitleCell())
        expectEqual(TableViewCell(reuseIdentifier: nil).defaultContentConfiguration(), .cell())
    }

    @Test func theDelegatesIndentationLevelIsSetOnTheCell() throws {
        let source = StyledSource((0..<4).map { StyledRow(text: "row \($0)", indentation: $0) })
        let table = TableView(viewportHeight: 10)
        table.dataSource = source
        table.delegate = source
        try table.reloadData()
        expectEqual(table.visibleCells.map(\.indentationLevel), [0, 1, 2, 3])
        expectEqual(table.currentFrame.elements.compactMap { $0.cell?.indentationLevel }, [0, 1, 2, 3])
    }
}
