import Foundation
import HeadlessTableView
import TableDiff
import TableTestSupport
import Testing

/// Layout queries and the window against a brute-force model, on random
/// tables with random heights; cells only for rows in the window; the bound
/// on live cells while scrolling.
@Suite struct TableViewLayoutTests {
    /// A random table, its source with random integral heights (some zero), and a table over it.
    static func randomTable(_ g: inout SeededGenerator, viewport: Double) throws -> (TableView, ItemSource, BruteForceLayout) {
        var ids = Array(0..<400)
        let sections = TableGenerator.randomTable(&g, sections: 0...5, rows: 0...30, ids: &ids)
        let source = ItemSource(sections)
        var heights: [Int: Double] = [:]
        for section in sections { for item in section.rows { heights[item.id] = g.chance(0.05) ? 0 : Double(g.int(1...60)) } }
        source.heights = heights
        source.headerHeights = sections.map { _ in g.chance(0.5) ? 0 : Double(g.int(1...30)) }
        source.footerHeights = sections.map { _ in g.chance(0.7) ? 0 : Double(g.int(1...20)) }
        let table = TableView(viewportHeight: viewport)
        try table.register(ItemCell.self, forCellReuseIdentifier: "item")
        table.dataSource = source
        table.delegate = source
        try table.reloadData()
        table._checkInvariants()
        let brute = BruteForceLayout(
            rowHeights: sections.map { $0.rows.map { heights[$0.id] ?? 10 } },
            headers: source.headerHeights ?? [], footers: source.footerHeights ?? [])
        return (table, source, brute)
    }

    @Test func queriesAgreeWithBruteForce() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<150 {
            let (table, _, brute) = try Self.randomTable(&g, viewport: Double(g.int(1...300)))
            expectEqual(table.contentHeight, brute.contentHeight, "seed \(seed)")
            for (s, section) in brute.sections.enumerated() {
                expectEqual(table.rect(forSection: s), TableView.VerticalSpan(y: section.y, height: section.height), "seed \(seed)")
                expectEqual(table.rectForHeader(inSection: s)?.height, section.header)
                expectEqual(table.rectForFooter(inSection: s), TableView.VerticalSpan(y: section.y + section.height - section.footer, height: section.footer))
            }
            for row in brute.rows {
                expectEqual(table.rectForRow(at: row.path), TableView.VerticalSpan(y: row.y, height: row.height), "seed \(seed)")
            }
            for _ in 0..<40 {
                let y = Double(g.int(-10...Int(brute.contentHeight) + 10)) + (g.chance(0.5) ? 0.5 : 0)
                expectEqual(table.indexPathForRow(at: y), brute.row(at: y), "seed \(seed), y \(y)")
            }
            #expect(table.rect(forSection: brute.sections.count) == nil)
            #expect(table.rectForRow(at: TablePath(row: 0, section: brute.sections.count)) == nil)
        }
    }

    /// Random scrolls, small steps and jumps: the window is the brute-force
    /// window, cells are asked for only for rows in it, each visible row has a
    /// cell showing its item, and the cells alive never exceed the rows of the
    /// window before and after a scroll (one more than the window, for steps
    /// shorter than the shortest row).
    @Test func scrollingKeepsTheWindowAndBoundsTheCells() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for _ in 0..<60 {
            let (table, source, brute) = try Self.randomTable(&g, viewport: Double(g.int(20...250)))
            let maxOffset = max(0, brute.contentHeight - table.viewportHeight)
            var previous = table.indexPathsForVisibleRows
            var maxUnion = previous.count
            for _ in 0..<60 {
                let target = g.chance(0.3) ? Double(g.int(0...Int(maxOffset) + 50)) : table.contentOffset + Double(g.int(-40...40))
                if target < 0 {
                    // A negative offset is refused (TableGeometryError), and nothing moves.
                    let before = table.contentOffset
                    expectThrows(TableViewError.self) { try table.setContentOffset(target) }
                    expectEqual(table.contentOffset, before)
                    continue
                }
                try table.setContentOffset(target)
                table._checkInvariants()
                let y = table.contentOffset
                expectEqual(y, min(target, maxOffset), "seed \(seed)")
                let window = brute.window(y, y + table.viewportHeight)
                expectEqual(table.indexPathsForVisibleRows, window, "seed \(seed), offset \(y)")
                for path in window {
                    let item = source.sections[path.section].rows[path.row]
                    expectEqual(table.cellForRow(at: path)?.text, item.description, "seed \(seed)")
                }
                maxUnion = max(maxUnion, Set(previous).union(window).count)
                previous = window
                #expect(table.reusePool.cellStatistics.maxLive <= maxUnion, "seed \(seed): \(table.reusePool.cellStatistics)")
            }
            #expect(source.requestedOutsideWindow.isEmpty, "seed \(seed): \(source.requestedOutsideWindow)")
        }
    }

    /// Scrolling by less than the shortest row, top to bottom of a long table:
    /// cells made stay at the largest window plus one.
    @Test func slowScrollingKeepsTheWindowPlusOne() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let items = (0..<2_000).map { Item(id: $0) }
        let source = ItemSource([TableSection(name: "", rows: items)])
        source.heights = Dictionary(uniqueKeysWithValues: items.map { ($0.id, Double(g.int(20...60))) })
        let table = TableView(viewportHeight: 300)
        try table.register(ItemCell.self, forCellReuseIdentifier: "item")
        table.dataSource = source
        table.delegate = source
        try table.reloadData()
        var maxVisible = 0
        while table.contentOffset < table.contentHeight - table.viewportHeight {
            try table.setContentOffset(table.contentOffset + Double(g.int(1...19)))
            maxVisible = max(maxVisible, table.indexPathsForVisibleRows.count)
        }
        let stats = table.reusePool.cellStatistics
        #expect(stats.created <= maxVisible + 1, "\(stats), at most \(maxVisible) visible")
        #expect(stats.reused > 1_900)
        #expect(source.requestedOutsideWindow.isEmpty)
    }

    /// Estimated heights become measured ones as rows are shown.
    @Test func estimatedHeightsAreReplacedByMeasuredOnes() throws {
        final class SizedCell: TableViewCell {}
        final class Source: TableViewDataSource {
            func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 100 }
            func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
                let cell = try tableView.dequeueReusableCell(withIdentifier: "sized", for: indexPath)
                cell.preferredHeight = Double(10 + indexPath.row % 7)
                return cell
            }
        }
        let source = Source()
        let table = TableView(viewportHeight: 100)
        table.rowHeight = TableView.automaticDimension
        table.estimatedRowHeight = 20
        try table.register(SizedCell.self, forCellReuseIdentifier: "sized")
        table.dataSource = source
        try table.reloadData()
        expectEqual(table.rectForRow(at: TablePath(row: 99, section: 0))?.height, 20)
        var y = 0.0
        while y < table.contentHeight {
            try table.setContentOffset(y)
            y += 50
        }
        let measured = (0..<100).reduce(0.0) { $0 + Double(10 + $1 % 7) }
        expectEqual(table.contentHeight, measured)
        expectEqual(table.indexPathForRow(at: 9.5), TablePath(row: 0, section: 0))
        expectEqual(table.indexPathForRow(at: 10), TablePath(row: 1, section: 0))
    }

    /// With automatic dimensions, the delegate's heights are asked as rows
    /// are shown, as UIKit asks them with estimates — about a window's worth
    /// each time, whatever the size; with a fixed row height, every row at
    /// load too.
    @Test(arguments: [100, 100_000])
    func theDelegatesHeightsAreAskedAsRowsAreShownWithAutomaticDimensions(rows: Int) throws {
        final class Source: TableViewDataSource, TableViewDelegate {
            let rows: Int
            var asked: [Int] = []
            init(rows: Int) { self.rows = rows }
            static func height(_ row: Int) -> Double { Double(10 + row % 7) }
            func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { rows }
            func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
                try tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            }
            func tableView(_ tableView: TableView, heightForRowAt indexPath: TablePath) -> Double? {
                asked.append(indexPath.row)
                return Self.height(indexPath.row)
            }
        }
        var g = SeededGenerator(seed: SeededGenerator.runSeed())
        // A window holds at most 11 rows (10 points or more each, 100 points): twice that, measured as the window settles.
        let aboutAWindow = 22
        for automatic in [true, false] {
            let source = Source(rows: rows)
            let table = TableView(viewportHeight: 100)
            if automatic { table.rowHeight = TableView.automaticDimension }
            table.estimatedRowHeight = 20
            try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
            table.dataSource = source
            table.delegate = source
            try table.reloadData()
            #expect(automatic ? source.asked.count <= aboutAWindow : Set(source.asked).count == rows, "automatic: \(automatic), \(source.asked.count) asked")
            for _ in 0..<20 {
                source.asked = []
                try table.setContentOffset(Double.random(in: 0..<table.contentHeight, using: &g))
                #expect(source.asked.count <= aboutAWindow, "automatic: \(automatic), \(source.asked.count) asked")
                // Every shown row has the delegate's height.
                for path in table.indexPathsForVisibleRows { expectEqual(table.rectForRow(at: path)?.height, Source.height(path.row)) }
                table._checkInvariants()
            }
        }
    }

    @Test func scrollToRowPutsItWhereAsked() throws {
        let source = ItemSource([TableSection(name: "", rows: (0..<100).map { Item(id: $0) })])
        let table = TableView(viewportHeight: 100)
        try table.register(ItemCell.self, forCellReuseIdentifier: "item")
        table.dataSource = source
        try table.reloadData()
        let row = TablePath(row: 50, section: 0)
        try table.scrollToRow(at: row, at: .top)
        expectEqual(table.contentOffset, 50 * 44)
        try table.scrollToRow(at: row, at: .bottom)
        expectEqual(table.contentOffset, 51 * 44 - 100)
        try table.scrollToRow(at: row, at: .middle)
        expectEqual(table.contentOffset, 50 * 44 + 22 - 50)
        try table.scrollToRow(at: TablePath(row: 0, section: 0), at: .none)
        expectEqual(table.contentOffset, 0)
        try table.scrollToRow(at: TablePath(row: 99, section: 0), at: .top)
        expectEqual(table.contentOffset, table.contentHeight - 100)   // never past the end
        expectThrows(TableViewError.invalidIndexPath(TablePath(row: 100, section: 0), sectionCount: 1, rowCount: 100)) {
            try table.scrollToRow(at: TablePath(row: 100, section: 0), at: .top)
        }
    }
}
