import Foundation
import HeadlessTableView
import TableDiff
import TableSnapshotTesting
import TableTestSupport
import Testing
import XCTest

/// What the text renderer draws, as reviewed snapshots, and the rules every
/// drawing keeps: exact widths, a final newline, the same bytes for the same state.
@Suite struct TextRendererTests {
    func renderer(_ width: Int, _ style: TextRenderer.Style = .box) throws -> TextRenderer {
        try TextRenderer(width: width, style: style, pointsPerLine: 1)
    }

    func draw(_ source: ListSource, lines: Int, width: Int, style: TextRenderer.Style = .box, _ setUp: (TableView) throws -> Void = { _ in }) throws -> String {
        let table = try source.table(lines: lines)
        try setUp(table)
        return try renderer(width, style).text(for: table.currentFrame)
    }

    // MARK: The seeds' tables

    @Test func diaryWithDates() throws {
        let source = SeedTables.diary()
        var out = try draw(source, lines: 9, width: 44) { try $0.selectRow(at: TablePath(row: 1, section: 1)) }
        out += "\n" + (try draw(source, lines: 9, width: 44, style: .ascii) { try $0.selectRow(at: TablePath(row: 1, section: 1)) })
        assertTextSnapshot(of: out)
    }

    @Test func toDoListWithDoneMarks() throws {
        let source = SeedTables.toDo()
        let out = try draw(source, lines: 5, width: 36) + "\n" + (try draw(source, lines: 5, width: 36, style: .ascii))
        assertTextSnapshot(of: out)
    }

    @Test func namesByLetterWithTheIndex() throws {
        let source = SeedTables.names()
        // A tall window shows every index title; a short one samples them.
        var out = try draw(source, lines: 30, width: 32)
        out += "\n" + (try draw(source, lines: 12, width: 32) { try $0.setContentOffset(20) })
        out += "\n" + (try draw(source, lines: 12, width: 32, style: .ascii) { try $0.setContentOffset(1_000) })
        assertTextSnapshot(of: out)
    }

    @Test func searchResult() throws {
        let source = ListSource([.init(title: nil, rows: ["Ada", "Barbara", "Dana", "Radia"].map { .init(text: $0, detail: "an") })])
        var out = try draw(source, lines: 5, width: 30) { $0.searchFieldText = "an" }
        out += "\n" + (try draw(source, lines: 5, width: 30, style: .ascii) { $0.searchFieldText = "" })
        assertTextSnapshot(of: out)
    }

    // MARK: Text

    @Test func wideAndCombiningText() throws {
        let rows: [ListSource.Row] = [
            .init(text: "東京タワーの夜景", detail: "写真"),
            .init(text: "👩‍👩‍👧 family picnic 🇯🇵", detail: "☀️"),
            .init(text: "e\u{301}cole, Ñandu\u{0303}, Zoë", detail: "é"),
            .init(text: "한국어 텍스트와 긴 설명이 이어집니다", detail: "12:00"),
            .init(text: "tab\there\nnewline", detail: "ctl"),
        ]
        let source = ListSource([.init(title: "Ünïcödé 見出し", rows: rows, footer: "足注 — footer")])
        var out = ""
        for width in [40, 24, 17] {
            out += try draw(source, lines: 7, width: width) + "\n"
        }
        assertTextSnapshot(of: out)
    }

    @Test func narrowWidths() throws {
        let source = SeedTables.diary()
        var out = ""
        for width in [10, 11, 12, 16] {
            out += "width \(width):\n" + (try draw(source, lines: 6, width: width) { try $0.selectRow(at: TablePath(row: 0, section: 0)) })
        }
        let names = SeedTables.names()
        for width in [10, 12] {
            out += "width \(width), index:\n" + (try draw(names, lines: 6, width: width))
        }
        for width in [1, 2, 3] {
            out += "width \(width):\n" + (try draw(source, lines: 3, width: width))
        }
        assertTextSnapshot(of: out)
    }

    @Test func emptyTablesAndEmptySections() throws {
        var out = "No sections:\n" + (try draw(ListSource([]), lines: 3, width: 24))
        out += "One empty section without titles:\n" + (try draw(ListSource([.init(title: nil, rows: [])]), lines: 3, width: 24))
        let sections = ListSource([
            .init(title: "Empty", rows: [], footer: "nothing here"),
            .init(title: "One", rows: [.init(text: "only row")]),
            .init(title: "", rows: []),
            .init(title: "Also empty", rows: []),
        ])
        out += "Empty sections:\n" + (try draw(sections, lines: 7, width: 24))
        assertTextSnapshot(of: out)
    }

    @Test func editingMode() throws {
        let source = SeedTables.toDo()
        source.editingStyles = [TablePath(row: 1, section: 0): .insert, TablePath(row: 2, section: 0): .none]
        source.movable = [TablePath(row: 0, section: 0), TablePath(row: 3, section: 0)]
        let setUp: (TableView) throws -> Void = { table in
            table.setEditing(true)
            try table.selectRow(at: TablePath(row: 3, section: 0))
        }
        let out = try draw(source, lines: 5, width: 36, setUp) + "\n" + (try draw(source, lines: 5, width: 36, style: .ascii, setUp))
        assertTextSnapshot(of: out)
    }

    @Test func rowsTallerThanALineAndPartlyScrolledOut() throws {
        let source = SeedTables.diary()
        source.sections[0].rows[0].lines?.append(SeedTables.entryLayout.line(["title": "  second line of the entry"]))
        let table = try source.table(lines: 6)
        table.rowHeight = 2
        try table.reloadData()
        let renderer = try TextRenderer(width: 40, pointsPerLine: 1)
        var out = renderer.text(for: table.currentFrame)
        try table.setContentOffset(2.4)   // the first row is cut at the top
        out += "\n" + renderer.text(for: table.currentFrame)
        // Half a line rounds: 88-point rows at 44 points per line are two lines.
        let points = try TextRenderer(width: 40, pointsPerLine: 44)
        table.rowHeight = 88
        table.sectionHeaderHeight = 22
        try table.setViewportHeight(6 * 44)
        try table.reloadData()
        out += "\n" + points.text(for: table.currentFrame)
        assertTextSnapshot(of: out)
    }

    // MARK: Batches

    /// Every kind of change, through a table that drives the renderer: the
    /// before/after view of each update.
    @Test func everyBatchKind() throws {
        let source = ListSource([
            .init(title: "Fruit", rows: ["apple", "banana", "cherry"].map { .init(text: $0) }),
            .init(title: "Vegetables", rows: ["kale", "leek"].map { .init(text: $0) }),
        ])
        let renderer = try renderer(30)
        var out = ""
        renderer.onOutput = { out += $0 + "\n" }
        let table = try source.table(lines: 9, renderer: renderer)
        out = "Initial:\n" + out

        source.sections[0].rows.remove(at: 1)
        try table.deleteRows(at: [TablePath(row: 1, section: 0)], with: .fade)
        source.sections[1].rows.insert(.init(text: "onion"), at: 1)
        try table.insertRows(at: [TablePath(row: 1, section: 1)])
        source.sections[0].rows[0].text = "apricot"
        try table.reloadRows(at: [TablePath(row: 0, section: 0)], with: .none)
        let moved = source.sections[0].rows.remove(at: 1)
        source.sections[1].rows.insert(moved, at: 0)
        try table.moveRow(at: TablePath(row: 1, section: 0), to: TablePath(row: 0, section: 1))
        source.sections.insert(.init(title: "Herbs", rows: [.init(text: "basil")]), at: 1)
        try table.insertSections([1], with: .top)
        source.sections.swapAt(0, 2)
        try table.performBatchUpdates {
            try table.moveSection(0, toSection: 2)
            try table.moveSection(2, toSection: 0)
        }
        source.sections[1].rows = [.init(text: "mint"), .init(text: "thyme")]
        try table.reloadSections([1])
        source.sections.remove(at: 0)
        try table.deleteSections([0], with: .left)
        // Several kinds in one batch.
        try table.performBatchUpdates {
            source.sections[0].rows.append(.init(text: "sage"))
            try table.insertRows(at: [TablePath(row: 2, section: 0)], with: .bottom)
            source.sections[1].rows.remove(at: 0)
            try table.deleteRows(at: [TablePath(row: 0, section: 1)])
            try table.reloadRows(at: [TablePath(row: 0, section: 0)])
        }
        assertTextSnapshot(of: out)
    }

    @Test func batchLogs() throws {
        var batch = BatchUpdate()
        batch.deleteRows(at: [TablePath(row: 3, section: 0)])
        batch.insertRows(at: [TablePath(row: 0, section: 1)])
        batch.reloadRows(at: [TablePath(row: 1, section: 0)])
        batch.moveRow(at: TablePath(row: 2, section: 0), to: TablePath(row: 4, section: 1))
        batch.deleteSections([2])
        batch.insertSections([3])
        batch.moveSection(4, toSection: 5)
        batch.reloadSections([6])
        let update = TableUpdate(batch: batch, animations: [.deleteRow(TablePath(row: 3, section: 0)): .fade])
        try expectEqual(renderer(40).log(of: update), """
            - delete section 2
            + insert section 3
            → move section 4 to 5
            ↻ reload section 6
            - delete {0, 3} (fade)
            + insert {1, 0}
            → move {0, 2} to {1, 4}
            ↻ reload {0, 1}

            """)
        #expect(try renderer(40, .ascii).log(of: update).contains("> move {0, 2} to {1, 4}\n~ reload {0, 1}\n"))
        try expectEqual(renderer(40).log(of: TableUpdate(batch: BatchUpdate())), "(no changes)\n")
    }

    // MARK: Rules

    /// Random frames — random places, spans, texts (wide, combining, control,
    /// long), index titles, search text, styles and widths — always give lines
    /// of exactly the width, as many as the viewport holds, ending in newlines,
    /// and the same bytes twice.
    @Test func everyLineHasTheRequestedWidth() throws {
        var g = SeededGenerator(seed: SeededGenerator.runSeed())
        let words = [
            "", "a", "Fog", "東京", "👩‍👩‍👧", "e\u{301}", "\u{301}", "🇯🇵", "☀️", "tab\tnew\nline", "\u{7}", "한국어", "ｆｕｌｌ",
            "a long text that will not fit in narrow widths at all", "…", "\u{200B}", "x\u{20DD}", "Ⓐ",
            "\u{202E}evil", "\u{2067}rtl\u{2069}", "\u{200F}",
        ]
        let bidirectionalControls: Set<UInt32> = Set(0x202A...0x202E).union(0x2066...0x2069).union([0x200E, 0x200F, 0x061C])
        func text() -> String { (0..<Int.random(in: 0...4, using: &g)).map { _ in words.randomElement(using: &g)! }.joined(separator: " ") }
        let template: TextLineTemplate = "{a} {b:>6} | {c:^4}{d}"
        for round in 0..<400 {
            let width = Int.random(in: 1...90, using: &g)
            let style = TextRenderer.Style.allCases.randomElement(using: &g)!
            let ppl = [1.0, 2, 44, 0.5].randomElement(using: &g)!
            let renderer = try TextRenderer(width: width, style: style, pointsPerLine: ppl)
            var y = Double.random(in: -10...10, using: &g) * ppl
            var elements: [TableFrame.Element] = []
            for i in 0..<Int.random(in: 0...20, using: &g) {
                let height = Double(Int.random(in: 0...3, using: &g)) * ppl * Double.random(in: 0.3...1.2, using: &g)
                let span = TableView.VerticalSpan(y: y, height: height)
                y += height
                switch Int.random(in: 0..<4, using: &g) {
                case 0: elements.append(.init(kind: .header(section: i), span: span, title: Bool.random(using: &g) ? text() : nil))
                case 1: elements.append(.init(kind: .footer(section: i), span: span, title: text()))
                default:
                    let lines = Bool.random(using: &g) ? nil : (0..<Int.random(in: 0...3, using: &g)).map { _ in
                        template.line(["a": text(), "b": text(), "c": text(), "d": text()])
                    }
                    let cell = TableFrame.Cell(
                        text: text(), detailText: Bool.random(using: &g) ? text() : nil,
                        accessory: CellAccessory.allCases.randomElement(using: &g)!, lines: lines, isSelected: Bool.random(using: &g),
                        editingStyle: [.none, .delete, .insert].randomElement(using: &g)!, showsReorderControl: Bool.random(using: &g))
                    elements.append(.init(kind: .row(TablePath(row: i, section: 0)), span: span, cell: cell))
                }
            }
            let viewport = Double(Int.random(in: 0...25, using: &g)) * ppl
            let frame = TableFrame(
                contentOffset: Double.random(in: 0...50, using: &g) * ppl, viewportHeight: viewport,
                contentHeight: viewport * Double.random(in: 0...4, using: &g), elements: elements,
                sectionIndexTitles: Bool.random(using: &g) ? (0..<Int.random(in: 0...40, using: &g)).map { _ in text() } : nil,
                searchText: Bool.random(using: &g) ? text() : nil, isEditing: Bool.random(using: &g))
            let out = renderer.text(for: frame)
            #expect(out.hasSuffix("\n"), "round \(round)")
            let lines = out.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
            let expectedLines = Swift.max(1, Int((viewport / ppl).rounded())) + (frame.searchText == nil ? 0 : 1)
            expectEqual(lines.count, expectedLines, "round \(round)")
            for line in lines where TerminalText.width(of: line) != width || line.contains(where: { $0.isNewline || $0 == "\t" }) {
                Issue.record("round \(round): width \(TerminalText.width(of: line)) ≠ \(width): \(line.debugDescription)")
            }
            expectEqual(renderer.text(for: frame), out)
            #expect(!out.unicodeScalars.contains { bidirectionalControls.contains($0.value) }, "round \(round): a bidirectional control reaches the terminal")
            // The before/after view keeps the width too.
            var batch = BatchUpdate()
            batch.moveRow(at: TablePath(row: 123_456, section: 7), to: TablePath(row: 0, section: 99_999))
            batch.reloadSections([Int.random(in: 0...1_000_000, using: &g)])
            let both = renderer.text(for: TableUpdate(batch: batch, animations: [.reloadSection(0): .middle]), from: frame, to: frame)
            #expect(both.dropLast().split(separator: "\n", omittingEmptySubsequences: false).allSatisfy { TerminalText.width(of: $0) == width })
        }
    }

    /// Frames the caller builds by hand may hold anything: no value traps.
    @Test func extremeFramesDrawWithoutTrapping() throws {
        let renderer = try renderer(12)
        let cell = TableFrame.Cell(text: "x")
        for value in [Double.nan, .infinity, -.infinity, 1e300, -1e300, 0, Double(Int.max)] {
            let frame = TableFrame(
                contentOffset: value, viewportHeight: Swift.abs(value), contentHeight: value,
                elements: [.init(kind: .row(TablePath(row: 0, section: 0)), span: .init(y: value, height: value), cell: cell)],
                sectionIndexTitles: ["A"])
            let lines = renderer.text(for: frame).split(separator: "\n")
            #expect(lines.count <= TextRenderer.maximumLines)
            #expect(lines.allSatisfy { TerminalText.width(of: $0) == 12 })
        }
    }

    @Test func badSettingsAreTypedErrors() {
        expectThrows(TextRendererError.widthOutOfRange(0)) { try TextRenderer(width: 0) }
        expectThrows(TextRendererError.widthOutOfRange(10_001)) { try TextRenderer(width: 10_001) }
        expectThrows(TextRendererError.pointsPerLineNotPositive(0)) { try TextRenderer(pointsPerLine: 0) }
        #expect((try? TextRenderer(pointsPerLine: .nan)) == nil)
        expectEqual(TextRendererError.widthOutOfRange(0).description, "A text renderer's width must be 1 to 10000 columns, not 0.")
    }
}

/// The table tells its renderer of every change of what it shows, once.
@Suite struct TableRendererHookTests {
    func frames(_ renderer: RecordingRenderer) -> Int { renderer.calls.filter { if case .frame = $0 { true } else { false } }.count }

    @Test func eachChangeIsDisplayedOnceAndOnlyWhenSomethingChanged() throws {
        let source = SeedTables.names()
        let renderer = RecordingRenderer()
        let table = try source.table(lines: 10, renderer: renderer)
        expectEqual(renderer.calls, [.frame(table.currentFrame)])
        try table.setContentOffset(5)
        expectEqual(renderer.calls.count, 2)
        try table.setContentOffset(5)   // nothing moved
        expectEqual(renderer.calls.count, 2)
        try table.selectRow(at: TablePath(row: 0, section: 3))
        try table.tapRow(at: TablePath(row: 1, section: 3))
        expectEqual(renderer.calls.count, 4)
        table.deselectRow(at: TablePath(row: 1, section: 3))
        table.setEditing(true)
        table.searchFieldText = "a"
        try table.setViewportHeight(12)
        try table.reloadData()   // same content: the same frame
        expectEqual(renderer.calls.count, 8)
        expectEqual(renderer.calls.last, .frame(table.currentFrame))
        // Nothing inside a batch until it is applied.
        table.beginUpdates()
        source.sections[3].rows.append(.init(text: "Dorothy"))
        try table.insertRows(at: [TablePath(row: 2, section: 3)], with: .fade)
        try table.setContentOffset(0)
        expectEqual(renderer.calls.count, 8)
        try table.endUpdates()
        expectEqual(renderer.calls.count, 9)
    }

    @Test func anUpdateComesWithTheFramesBeforeAndAfterAndItsAnimations() throws {
        let source = SeedTables.toDo()
        let renderer = RecordingRenderer()
        let table = try source.table(lines: 4, renderer: renderer)
        let before = table.currentFrame
        source.sections[0].rows.remove(at: 0)
        source.sections[0].rows[0].accessory = .checkmark
        try table.performBatchUpdates {
            try table.deleteRows(at: [TablePath(row: 0, section: 0)], with: .left)
            try table.reloadRows(at: [TablePath(row: 1, section: 0)])
        }
        guard case .update(let update, let from, let to) = renderer.calls.last else {
            Issue.record("no update: \(renderer.calls)")
            return
        }
        expectEqual(from, before)
        expectEqual(to, table.currentFrame)
        expectEqual(update.changes, [.deleteRow(TablePath(row: 0, section: 0)), .reloadRow(TablePath(row: 1, section: 0))])
        expectEqual(update.animation(for: .deleteRow(TablePath(row: 0, section: 0))), .left)
        expectEqual(update.animation(for: .reloadRow(TablePath(row: 1, section: 0))), .automatic)
        expectEqual(to.elements.first?.cell, TableFrame.Cell(text: "Call the plumber", accessory: .checkmark))
    }

    @Test func aRefusedBatchDisplaysNothing() throws {
        let source = SeedTables.toDo()
        let renderer = RecordingRenderer()
        let table = try source.table(lines: 4, renderer: renderer)
        expectThrows(TableViewError.self) { try table.deleteRows(at: [TablePath(row: 0, section: 0)]) }
        expectThrows((any Error).self) {
            try table.performBatchUpdates {
                try table.insertRows(at: [TablePath(row: 0, section: 0)], with: .fade)
                throw CancellationError()
            }
        }
        expectEqual(renderer.calls.count, 1)
        // The dropped batch's animation does not leak into the next one.
        source.sections[0].rows.insert(.init(text: "new"), at: 0)
        try table.insertRows(at: [TablePath(row: 0, section: 0)])
        guard case .update(let update, _, _) = renderer.calls.last else {
            Issue.record("no update")
            return
        }
        #expect(update.animations.isEmpty)
    }

    @Test func aChangesetIsOneUpdatePerStageWithItsAnimation() throws {
        let old = [TableSection(name: "a", rows: [1, 2, 3]), TableSection(name: "b", rows: [4])]
        let new = [TableSection(name: "b", rows: [4, 2]), TableSection(name: "c", rows: [5])]
        let changeset = TableChangeset(from: old, to: new)
        let source = ListSource(old.map { .init(title: $0.name, rows: $0.rows.map { .init(text: "\($0)") }) })
        let renderer = RecordingRenderer()
        let table = try source.table(lines: 10, renderer: renderer)
        try table.apply(changeset, animation: .fade) { stage in
            source.sections = stage.sections.map { .init(title: $0.name, rows: $0.rows.map { .init(text: "\($0)") }) }
        }
        let updates = renderer.calls.compactMap { if case .update(let u, _, _) = $0 { u } else { nil } }
        expectEqual(updates.count, changeset.stages.count)
        #expect(updates.allSatisfy { u in u.changes.allSatisfy { u.animation(for: $0) == .fade } })
        expectEqual(table.currentFrame.rows.count, 3)
    }

    @Test func theTextRendererDrawsEachDisplay() throws {
        let renderer = try TextRenderer(width: 20, pointsPerLine: 1)
        var outputs: [String] = []
        renderer.onOutput = { outputs.append($0) }
        let source = SeedTables.toDo()
        let table = try source.table(lines: 3, renderer: renderer)
        try table.setContentOffset(1)
        expectEqual(outputs, [
            renderer.text(for: try { let t = try source.table(lines: 3); return t.currentFrame }()),
            renderer.text(for: table.currentFrame),
        ])
        expectEqual(renderer.lastOutput, outputs.last)
    }
}

/// The snapshot assertion in an XCTest test.
final class TextSnapshotXCTests: XCTestCase {
    func testARenderedTableMatchesItsSnapshot() throws {
        let table = try SeedTables.toDo().table(lines: 3)
        assertTextSnapshot(of: try TextRenderer(width: 30, pointsPerLine: 1).text(for: table.currentFrame))
    }
}
