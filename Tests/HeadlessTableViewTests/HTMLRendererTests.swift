import Foundation
import HeadlessTableView
import TableDiff
import TableSnapshotTesting
import TableTestSupport
import Testing

/// The HTML renderer: a patch applied — by the independent applier below,
/// which edits the markup as text — to the HTML shown before gives exactly
/// the HTML of the next frame, through random batches, scrolls, selections
/// and reloads; the window's rows are recycled, never a node per row; every
/// text of the data is escaped; the markup is the reviewed snapshots'.
@Suite struct HTMLRendererTests {
    // MARK: A table over test items

    /// Items in sections (TableTestSupport's `Table`), each row showing
    /// `Item ID` and its content; section names as header titles.
    final class Source: TableViewDataSource {
        var sections: Table
        var indexTitles: [String]?
        var texts: [Int: String] = [:]

        init(_ sections: Table) { self.sections = sections }

        func numberOfSections(in tableView: TableView) -> Int { sections.count }
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { sections[section].rows.count }
        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            let cell = try tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            let item = sections[indexPath.section].rows[indexPath.row]
            cell.text = texts[item.id] ?? "Item \(item.id)"
            cell.detailText = "v\(item.content)"
            return cell
        }
        func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? {
            sections[section].name.isEmpty ? nil : sections[section].name
        }
        func sectionIndexTitles(for tableView: TableView) -> [String]? { indexTitles }

        /// A row's identity, as the renderer asks for it.
        func identity(_ path: TablePath) -> String? {
            sections.indices.contains(path.section) && sections[path.section].rows.indices.contains(path.row)
                ? String(sections[path.section].rows[path.row].id) : nil
        }
    }

    /// A table of `sections` in a window `viewport` points high, drawn by an
    /// HTML renderer whose outputs land in `outputs`.
    static func makeTable(
        _ sections: Table, viewport: Double, style: TableView.Style = .plain, pixelsPerPoint: Double = 1, maximumContentHeight: Double = 15_000_000
    ) throws -> (TableView, Source, HTMLRenderer, Outputs) {
        let source = Source(sections)
        let table = TableView(viewportHeight: viewport, style: style)
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        table.dataSource = source
        try table.reloadData()
        let renderer = try HTMLRenderer(pixelsPerPoint: pixelsPerPoint, maximumContentHeight: maximumContentHeight, rowIdentifier: source.identity)
        let outputs = Outputs()
        renderer.onOutput = { outputs.list.append($0) }
        table.renderer = renderer
        return (table, source, renderer, outputs)
    }

    final class Outputs {
        var list: [HTMLRenderer.Output] = []
        /// The outputs since the last call.
        func take() -> [HTMLRenderer.Output] { defer { list = [] }; return list }
    }

    // MARK: The independent applier

    /// Applies operations to a table's markup as text: one element a line,
    /// found by its `data-key`; the spacers' and the grid's attributes
    /// rewritten in place. Written from `HTMLOperation`'s documentation, not
    /// from the renderer's code.
    struct Applier {
        var lines: [String]

        init(_ html: String) { lines = html.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
        var html: String { lines.map { $0 + "\n" }.joined() }

        /// HTML's escaping of an attribute value, written again.
        static func escape(_ text: String) -> String {
            var out = ""
            for c in text.unicodeScalars {
                switch c {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                case "\"": out += "&quot;"
                case "'": out += "&#39;"
                case "\n": out += "&#10;"
                case "\r": out += "&#13;"
                default: out.unicodeScalars.append(c)
                }
            }
            return out
        }

        static func number(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }

        func line(where predicate: (String) -> Bool) -> Int? { lines.firstIndex(where: predicate) }
        func element(_ key: String) throws -> Int {
            try #require(line { $0.contains(#" data-key="\#(Self.escape(key))""#) && !$0.contains("ht-spacer") }, "no element \(key)")
        }
        var bottomSpacer: Int { lines.firstIndex { $0.contains(#"data-spacer="bottom""#) } ?? lines.count }
        func anchor(_ key: String?) throws -> Int { try key.map(element) ?? bottomSpacer }

        mutating func setAttribute(_ name: String, _ value: String, onLine k: Int) throws {
            let pattern = try NSRegularExpression(pattern: " \(name)=\"[^\"]*\"")
            let line = lines[k]
            let range = NSRange(line.startIndex..., in: line)
            #expect(pattern.firstMatch(in: line, range: range) != nil, "no \(name) on \(line)")
            lines[k] = pattern.stringByReplacingMatches(in: line, range: range, withTemplate: NSRegularExpression.escapedTemplate(for: " \(name)=\"\(value)\""))
        }

        mutating func part(_ prefix: String, _ html: String?, insertAt place: Int) {
            if let k = line(where: { $0.hasPrefix(prefix) }) {
                if let html { lines[k] = html } else { lines.remove(at: k) }
            } else if let html {
                lines.insert(html, at: place)
            }
        }

        mutating func apply(_ operations: [HTMLOperation]) throws {
            for operation in operations {
                switch operation {
                case .remove(let key): lines.remove(at: try element(key))
                case .insert(let html, let before): lines.insert(html, at: try anchor(before))
                case .move(let key, let before):
                    let line = lines.remove(at: try element(key))
                    lines.insert(line, at: try anchor(before))
                case .replace(let key, let html): lines[try element(key)] = html
                case .setSpacers(let top, let bottom):
                    let t = try #require(line { $0.contains(#"data-spacer="top""#) })
                    try setAttribute("style", "height:\(Self.number(top))px", onLine: t)
                    try setAttribute("style", "height:\(Self.number(bottom))px", onLine: bottomSpacer)
                case .setGrid(let rowCount, let scrollTop):
                    let grid = try #require(line { $0.hasPrefix(#"<div class="ht-grid"#) })
                    try setAttribute("aria-rowcount", "\(rowCount)", onLine: grid)
                    try setAttribute("data-scroll-top", Self.number(scrollTop), onLine: grid)
                case .setSearchField(let html): part(#"<input class="ht-search""#, html, insertAt: 1)
                case .setScopes(let html):
                    let grid = line { $0.hasPrefix(#"<div class="ht-grid"#) } ?? 1
                    part(#"<div class="ht-scopes""#, html, insertAt: grid)
                case .setIndex(let html):
                    let end = bottomSpacer + 2
                    part(#"<nav class="ht-index""#, html, insertAt: end)
                case .reset(let html): self = Applier(html)
                }
            }
        }

        /// The keys of the elements between the spacers, in order.
        var keys: [String] {
            let pattern = try! NSRegularExpression(pattern: #" data-key="([^"]*)""#)
            return lines.compactMap { line in
                guard !line.contains("ht-spacer"), let m = pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                      let r = Range(m.range(at: 1), in: line) else { return nil }
                return String(line[r])
            }
        }
    }

    /// Applies each output to `applier` (a whole table replaces it).
    static func apply(_ outputs: [HTMLRenderer.Output], to applier: inout Applier) throws {
        for output in outputs {
            switch output {
            case .html(let html): applier = Applier(html)
            case .operations(let operations): try applier.apply(operations)
            }
        }
    }

    // MARK: Patches

    /// Random tables (TableTestSupport's batch generator: UIKit's valid
    /// batches, sections and rows deleted, inserted, moved, reloaded), each
    /// batch applied by a table drawn by the renderer, then random scrolls,
    /// selections, viewports, search fields, index titles and reloads: after
    /// every step the page's markup patched by the applier is the markup of
    /// the table's frame, the patch holds no `reset`, and the page holds the
    /// window's elements only.
    @Test func patchesTurnTheShownHTMLIntoTheNextFrames() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        var operationsSeen = Set<String>()
        let rounds = TestScale.cases(300, full: 600)
        for round in 0..<rounds {
            let c = BatchGenerator.generate(&g)
            let style = TableView.Style.allCases.randomElement(using: &g)!
            let (table, source, renderer, outputs) = try Self.makeTable(
                c.displayed, viewport: Double(g.int(40...400)), style: style, pixelsPerPoint: [1, 0.5, 24][g.int(0...2)],
                maximumContentHeight: g.chance(0.3) ? 500 : 15_000_000)
            try table.setContentOffset(Double(g.int(0...300)))
            var page = Applier(try #require(renderer.html))
            _ = outputs.take()
            let context = "seed \(seed), round \(round): \(describe(c.displayed)) with \(c.update.logLines().joined(separator: "; "))"

            func check(_ step: String) throws {
                let produced = outputs.take()
                for case .operations(let operations) in produced {
                    for operation in operations {
                        if case .reset = operation { Issue.record("a reset for \(step): \(context)") }
                        operationsSeen.insert(String(describing: operation).prefix { $0 != "(" }.description)
                    }
                }
                try Self.apply(produced, to: &page)
                let expected = renderer.html(for: table.currentFrame)
                expectEqual(page.html, expected, "after \(step): \(context)\npatched:\n\(page.html)\nexpected:\n\(expected)")
                expectEqual(renderer.html, expected, "the renderer's HTML after \(step): \(context)")
                expectEqual(page.keys.count, table.currentFrame.elements.count, "the page's elements after \(step): \(context)")
            }

            source.sections = c.data
            try table.performBatchUpdates {
                try table.deleteSections(c.update.deletedSections)
                try table.insertSections(c.update.insertedSections)
                for m in c.update.movedSections { try table.moveSection(m.from, toSection: m.to) }
                try table.reloadSections(c.update.reloadedSections)
                try table.deleteRows(at: c.update.deletedRows)
                try table.insertRows(at: c.update.insertedRows)
                for m in c.update.movedRows { try table.moveRow(at: m.from, to: m.to) }
                try table.reloadRows(at: c.update.reloadedRows)
            }
            try check("the batch")
            for _ in 0..<g.int(1...6) {
                switch g.int(0...6) {
                case 0, 1:
                    try table.setContentOffset(Double(g.int(0...Swift.max(0, Int(table.contentHeight)))))
                    try check("a scroll")
                case 2:
                    if let path = table.indexPathsForVisibleRows.randomElement(using: &g) { try table.selectRow(at: path) }
                    try check("a selection")
                case 3:
                    try table.setViewportHeight(Double(g.int(0...300)))
                    try check("a viewport")
                case 4:
                    table.searchFieldText = g.chance(0.5) ? nil : ["", "a", #"<b>"x"</b>"#].randomElement(using: &g)!
                    try check("the search field")
                case 5:
                    source.indexTitles = g.chance(0.3) ? nil : (0..<g.int(1...4)).map { "T\($0)" }
                    try table.reloadData()
                    try check("index titles")
                default:
                    var ids = Array(500..<700).shuffled(using: &g)
                    source.sections = TableGenerator.randomTable(&g, sections: 0...4, rows: 0...8, ids: &ids)
                    try table.reloadData()
                    try check("a reload")
                }
            }
        }
        // The rounds reach every kind of operation but a reset.
        for name in ["remove", "insert", "move", "replace", "setSpacers", "setGrid", "setSearchField", "setIndex"] {
            #expect(operationsSeen.contains(name), "no \(name) in \(rounds) rounds (seed \(seed))")
        }
    }

    /// Scrolling a long table recycles the rows that leave the window for
    /// those that enter it: no insert or remove while the window's row count
    /// stays, the page's nodes never more than the window's elements, and a
    /// step of one row is a replace, a move, the spacers and the grid.
    @Test func scrollingRecyclesTheWindowsRows() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let rows = (0..<100_000).map { Item(id: $0) }
        let (table, _, renderer, outputs) = try Self.makeTable([TableSection(name: "", rows: rows)], viewport: 440)
        var page = Applier(try #require(renderer.html))
        _ = outputs.take()
        try table.setContentOffset(44)
        let step = outputs.take()
        guard case .operations(let operations) = try #require(step.first) else { Issue.record("a whole table for a scroll"); return }
        expectEqual(operations, [
            .replace(key: "r:0", html: try #require(Applier(renderer.html(for: table.currentFrame)).lines.first { $0.contains(#"data-key="r:10""#) })),
            .move(key: "r:10", before: nil),
            .setSpacers(top: 44, bottom: 4_399_516),
            .setGrid(rowCount: 100_000, scrollTop: 44),
        ])
        try Self.apply(step, to: &page)
        for _ in 0..<300 {
            let before = page.keys.count
            let offset = g.chance(0.1) ? Double(g.int(0...4_400_000)) : table.contentOffset + Double(g.int(-200...200))
            try table.setContentOffset(Swift.max(0, offset))
            for case .operations(let operations) in outputs.list {
                let inserts = operations.filter { if case .insert = $0 { true } else { false } }.count
                let removes = operations.filter { if case .remove = $0 { true } else { false } }.count
                let after = table.currentFrame.elements.count
                #expect(inserts == Swift.max(0, after - before) && removes == Swift.max(0, before - after), "seed \(seed): \(operations)")
            }
            try Self.apply(outputs.take(), to: &page)
            expectEqual(page.html, renderer.html(for: table.currentFrame), "seed \(seed)")
            #expect(page.keys.count <= 11, "seed \(seed): \(page.keys.count) nodes for a window of 10 rows")
        }
    }

    // MARK: Markup

    /// Every text of the data is escaped, in the whole markup and in the
    /// operations: a value holding markup shows as text.
    @Test func everyTextOfTheDataIsEscaped() throws {
        let hostile = #"<script>alert("x")</script> & 'quotes' "too"#
        let (table, source, renderer, outputs) = try Self.makeTable(TableTestSupport.table([("<b>Section</b>", [1, 2])]), viewport: 200)
        source.texts[2] = hostile
        source.indexTitles = ["<i>"]
        renderer.label = #"a "label""#
        source.sections[0].rows.append(Item(id: 3))
        table.searchFieldText = #""><script>"#
        try table.reloadData()
        let html = try #require(renderer.html)
        for raw in ["<script>", "<b>", "<i>", #"label""#] { #expect(!html.contains(raw), "\(raw) unescaped in\n\(html)") }
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39; &quot;too"))
        #expect(html.contains(#"<div class="ht-header" role="heading" aria-level="2" data-key="h0" style="height:28px">&lt;b&gt;Section&lt;/b&gt;</div>"#))
        #expect(html.contains(#"value="&quot;&gt;&lt;script&gt;""#))
        // A row's identity is escaped in its attributes, and as a key in operations it is the raw text.
        let weird = try HTMLRenderer(rowIdentifier: { _ in #"a"b<c>&'d"# })
        let frame = table.currentFrame
        #expect(weird.html(for: frame).contains(#"data-key="r:a&quot;b&lt;c&gt;&amp;&#39;d" data-id="a&quot;b&lt;c&gt;&amp;&#39;d""#))
        // Through a patch: the new row's markup, escaped.
        _ = outputs.take()
        source.texts[4] = "<img src=x onerror=alert(1)>\nnext"
        source.sections[0].rows.insert(Item(id: 4), at: 0)
        try table.insertRows(at: [TablePath(row: 0, section: 0)])
        let patch = outputs.take()
        guard case .operations(let operations) = try #require(patch.first) else { Issue.record("no patch"); return }
        let markup = operations.compactMap { if case .insert(let html, _) = $0 { html } else if case .replace(_, let html) = $0 { html } else { nil } }
        #expect(markup.contains { $0.contains("&lt;img src=x onerror=alert(1)&gt;&#10;next") }, "\(operations)")
        #expect(!markup.joined().contains("<img"))
        expectEqual(HTMLText.escaped("plain text, ünïcödé 中文"), "plain text, ünïcödé 中文")
        expectEqual(HTMLText.escaped("a\0b\r"), "a\u{FFFD}b&#13;")
    }

    /// Two rows of one identity in a window still get keys of their own.
    @Test func duplicateIdentitiesGetKeysOfTheirOwn() throws {
        let (table, _, renderer, _) = try Self.makeTable(TableTestSupport.table([("", [1, 2, 3])]), viewport: 200)
        renderer.rowIdentifier = { _ in "same" }
        let page = Applier(renderer.html(for: table.currentFrame))
        expectEqual(page.keys, ["r:same", "r2:same", "r3:same"])
    }

    /// The operations as JSON: an object each, named by `op`, decoded back to the same.
    @Test func operationsAreJSONObjectsNamedByOp() throws {
        let operations: [HTMLOperation] = [
            .remove(key: "r:1"), .insert(html: "<div data-key=\"r:2\"></div>", before: nil), .insert(html: "<p>", before: "h0"),
            .move(key: "r:3", before: "r:4"), .move(key: "r:3", before: nil), .replace(key: "r:5", html: "<div></div>"),
            .setSpacers(top: 1.5, bottom: 20), .setGrid(rowCount: 1_000_000, scrollTop: 33), .setSearchField(html: nil),
            .setSearchField(html: "<input>"), .setScopes(html: nil), .setIndex(html: "<nav></nav>"), .reset(html: "<div></div>"),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(operations)
        try expectEqual(JSONDecoder().decode([HTMLOperation].self, from: data), operations)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix(#"[{"key":"r:1","op":"remove"},{"html":"<div data-key=\"r:2\"></div>","op":"insert"}"#), "\(text)")
        #expect(text.contains(#"{"bottom":20,"op":"spacers","top":1.5}"#))
        #expect(text.contains(#"{"op":"grid","rowCount":1000000,"scrollTop":33}"#))
        #expect(text.contains(#"{"op":"search"}"#))
        expectThrows(DecodingError.self) { try JSONDecoder().decode(HTMLOperation.self, from: Data(#"{"op":"explode"}"#.utf8)) }
    }

    /// A million rows: the markup holds the window only, and a table taller
    /// than the maximum scrolls on a scaled track whose scroll positions map
    /// back to the table's offsets.
    @Test func aMillionRowsScrollOnAScaledTrack() throws {
        let rows = (0..<1_000_000).map { Item(id: $0) }
        let (table, _, renderer, _) = try Self.makeTable([TableSection(name: "", rows: rows)], viewport: 600)
        #expect(try #require(renderer.html).utf8.count < 8_000)
        expectEqual(renderer.html?.contains(#"aria-rowcount="1000000""#), true)
        // 44,000,000 points of content, 15,000,000 pixels of track at most.
        try table.setContentOffset(table.contentHeight - 600)
        let page = Applier(try #require(renderer.html))
        let grid = try #require(page.lines.first { $0.hasPrefix(#"<div class="ht-grid"#) })
        let scale = (15_000_000 - 600) / (44_000_000 - 600.0)
        let scrollTop = ((44_000_000 - 600) * scale * 100).rounded() / 100
        #expect(grid.contains(#"data-scroll-top="\#(Applier.number(scrollTop))""#), "\(grid)")
        #expect(abs(renderer.contentOffset(forScrollTop: scrollTop) - table.contentOffset) < 1)
        #expect(page.lines.last { $0.contains(#"aria-rowindex="1000000""#) } != nil)
        // The last row ends where the track does: nothing below it.
        #expect(page.lines.contains { $0.contains(#"data-spacer="bottom" aria-hidden="true" style="height:0px""#) })
        #expect(renderer.contentOffset(forScrollTop: .nan) == 0 && renderer.contentOffset(forScrollTop: -5) == 0)
    }

    @Test func badSettingsAreTypedErrors() {
        expectThrows(HTMLRendererError.pixelsPerPointOutOfRange(0)) { try HTMLRenderer(pixelsPerPoint: 0) }
        expectThrows(HTMLRendererError.pixelsPerPointOutOfRange(20_000)) { try HTMLRenderer(pixelsPerPoint: 20_000) }
        expectThrows(HTMLRendererError.maximumContentHeightNotPositive(-1)) { try HTMLRenderer(maximumContentHeight: -1) }
        #expect((try? HTMLRenderer(pixelsPerPoint: .nan)) == nil)
        expectEqual(HTMLRendererError.pixelsPerPointOutOfRange(0).description, "An HTML renderer's pixels per point must be a number above 0 and at most 10000, not 0.0.")
    }

    /// Frames built by hand may hold anything: no value traps, and the output is the same twice.
    @Test func extremeFramesRenderWithoutTrapping() throws {
        let renderer = try HTMLRenderer()
        for value in [Double.nan, .infinity, -.infinity, 1e300, -1e300, 0, Double(Int.max)] {
            let frame = TableFrame(
                contentOffset: value, viewportHeight: Swift.abs(value), contentHeight: value,
                elements: [.init(kind: .row(TablePath(row: Int.max, section: 0)), span: .init(y: value, height: value), cell: .init(text: "x"))],
                sectionIndexTitles: ["A"])
            let html = renderer.html(for: frame)
            expectEqual(html, renderer.html(for: frame))
            #expect(!html.contains("nan") && !html.contains("inf"), "\(html)")
        }
    }

    // MARK: Snapshots

    /// Names by letter: a plain table with floating headers, the index, a
    /// search field, a selected row; then the same scrolled, as a patch.
    @Test func namesWithHeadersIndexAndSelection() throws {
        let names = [("A", ["Ada", "Alan"]), ("B", ["Barbara", "Ben"]), ("C", ["Carl", "Clara", "Corrado"])]
        var id = 0
        let sections = names.map { letter, people in TableSection(name: letter, rows: people.map { _ in defer { id += 1 }; return Item(id: id) }) }
        let (table, source, renderer, outputs) = try Self.makeTable(sections, viewport: 150)
        for (s, section) in names.enumerated() { for (r, name) in section.1.enumerated() { source.texts[sections[s].rows[r].id] = name } }
        source.indexTitles = ["A", "B", "C"]
        table.searchFieldText = "a"
        renderer.label = "People"
        try table.reloadData()
        try table.selectRow(at: TablePath(row: 1, section: 0))
        var text = "Frame:\n" + (renderer.html ?? "")
        _ = outputs.take()
        try table.setContentOffset(60)
        text += "\nScrolled by 60 points, the patch:\n"
        for case .operations(let operations) in outputs.take() {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            for operation in operations { text += String(decoding: try encoder.encode(operation), as: UTF8.self) + "\n" }
        }
        text += "\nAfter:\n" + (renderer.html ?? "")
        assertTextSnapshot(of: text)
    }

    /// A grouped table in editing mode, rows with an image, an accessory, the
    /// cell's own lines, an outline level, a content configuration, swipe
    /// actions shown, at 2 pixels a point.
    @Test func cellsOfEveryKind() throws {
        let line: TextLineTemplate = "{icon:1} {title} {date:>12}"
        let frame = TableFrame(
            contentOffset: 0, viewportHeight: 100, contentHeight: 100, numberOfSections: 1,
            elements: [
                .init(kind: .header(section: 0), span: .init(y: 0, height: 18), title: "Today"),
                .init(kind: .row(TablePath(row: 0, section: 0)), span: .init(y: 18, height: 20), cell: .init(
                    text: "Fog on the river", detailText: "08:10", accessory: .disclosureIndicator, editingStyle: .delete,
                    showsReorderControl: true, style: .subtitle, image: CellImage(named: "photo", glyph: "▣")), rowIndex: 0),
                .init(kind: .row(TablePath(row: 1, section: 0)), span: .init(y: 38, height: 20), cell: .init(
                    lines: [line.line(["icon": "♪", "title": "Street musician", "date": "07:45"])], isSelected: true, editingStyle: .insert,
                    indentationLevel: 2, outline: .init(level: 1, disclosure: .collapsed)), rowIndex: 1),
                .init(kind: .row(TablePath(row: 2, section: 0)), span: .init(y: 58, height: 20), cell: .init(
                    text: "Night train", detailText: "23:02", accessory: .checkmark, style: .value1, textAlignment: .center), rowIndex: 2),
                .init(kind: .footer(section: 0), span: .init(y: 78, height: 18), title: "3 entries"),
            ],
            isEditing: true, searchScopeTitles: ["All", "Photos"], selectedSearchScopeIndex: 1, style: .grouped, numberOfRows: 3)
        var swiped = frame
        swiped.swipedRow = TableView.SwipedRow(
            indexPath: TablePath(row: 2, section: 0), edge: .trailing,
            actions: [.init(title: "Delete", style: .destructive), .init(title: "Flag", style: .normal)], performingActionIndex: 0)
        let renderer = try HTMLRenderer(pixelsPerPoint: 2)
        assertTextSnapshot(of: renderer.html(for: frame) + "\nSwiped:\n" + renderer.html(for: swiped))
    }
}
