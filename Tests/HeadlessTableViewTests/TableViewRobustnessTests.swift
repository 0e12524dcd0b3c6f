import Foundation
import HeadlessTableView
import TableDiff
import TableTestSupport
import Testing

/// What a review of the table found worth pinning down: failures after a batch
/// passes its check, the pool's accounts after data source errors, estimates
/// far from measures, reentrancy, re-registration with cells on screen, batches
/// inside batches, and the smaller APIs.
@Suite struct TableViewRobustnessTests {
    static func state(_ table: TableView) -> String {
        let counts = (0..<table.numberOfSections).map(table.numberOfRows(inSection:))
        let shown = table.indexPathsForVisibleRows.map { "\($0)=\(table.cellForRow(at: $0)?.text ?? "nil")" }
        return "\(counts) \(shown) selected \(table.indexPathsForSelectedRows) offset \(table.contentOffset) height \(table.contentHeight)"
    }

    @Test func aCellFailureAfterTheCheckLeavesTheTableAsItWas() throws {
        let (table, source) = try TableViewUpdateTests.makeTable(table([("A", [1, 2, 3]), ("B", [4])]), viewport: 1_000)
        try table.selectRow(at: TablePath(row: 2, section: 0))
        let before = Self.state(table)
        let live = table.reusePool.cellStatistics.live
        source.sections = TableTestSupport.table([("A", [0, 1, 2, 3]), ("B", [4])])
        source.returnNilFor = TablePath(row: 0, section: 0)
        expectThrows(TableViewError.noCell(TablePath(row: 0, section: 0))) {
            try table.performBatchUpdates { try table.insertRows(at: [TablePath(row: 0, section: 0)]) }
        }
        expectEqual(Self.state(table), before)
        expectEqual(table.reusePool.cellStatistics.inUse, table.visibleCells.count)
        expectEqual(table.reusePool.cellStatistics.live, live + 1)   // the cell dequeued for the failed row, queued again
        // With the data source fixed, the same batch goes through.
        source.returnNilFor = nil
        try table.performBatchUpdates { try table.insertRows(at: [TablePath(row: 0, section: 0)]) }
        expectEqual(table.visibleCells.map(\.text), ["0", "1", "2", "3", "4"])
        expectEqual(table.indexPathsForSelectedRows, [TablePath(row: 3, section: 0)])
    }

    @Test func cellsDequeuedByAFailingDataSourceGoBackToThePool() throws {
        let (table, source) = try TableViewUpdateTests.makeTable(table([("A", Array(0..<50))]), viewport: 200)
        source.dequeueTwiceFor = TablePath(row: 10, section: 0)
        for _ in 0..<5 { expectThrows(TableViewError.multipleDequeues(TablePath(row: 10, section: 0))) { try table.setContentOffset(400) } }
        let stats = table.reusePool.cellStatistics
        expectEqual(stats.inUse, table.visibleCells.count, "\(stats)")
        expectEqual(table.contentOffset, 0)
    }

    /// Estimates far above the measured heights: the window still fills
    /// completely — the brute-force window of the measured heights.
    @Test func estimatesFarAboveMeasuresStillFillTheWindow() throws {
        final class Small: TableViewDataSource {
            func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 500 }
            func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
                let cell = try tableView.dequeueReusableCell(withIdentifier: "c", for: indexPath)
                cell.preferredHeight = 20
                return cell
            }
        }
        let source = Small()
        let table = TableView(viewportHeight: 600)
        table.rowHeight = TableView.automaticDimension
        table.estimatedRowHeight = 200
        try table.register(TableViewCell.self, forCellReuseIdentifier: "c")
        table.dataSource = source
        try table.reloadData()
        expectEqual(table.indexPathsForVisibleRows, (0..<30).map { TablePath(row: $0, section: 0) })
        expectEqual(table.reusePool.cellStatistics.inUse, 30)
    }

    @Test func theTableCannotChangeWhileMakingACell() throws {
        final class Meddling: TableViewDataSource {
            var meddle: ((TableView) throws -> Void)?
            var caught: [String] = []
            func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 100 }
            func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
                if let meddle {
                    do { try meddle(tableView) } catch { caught.append("\(error)") }
                }
                let cell = try tableView.dequeueReusableCell(withIdentifier: "c", for: indexPath)
                cell.text = "\(indexPath.row)"
                return cell
            }
        }
        let source = Meddling()
        let table = TableView(viewportHeight: 100)
        try table.register(TableViewCell.self, forCellReuseIdentifier: "c")
        table.dataSource = source
        try table.reloadData()
        for meddle: (TableView) throws -> Void in [
            { try $0.setContentOffset(2_000) }, { try $0.reloadData() }, { try $0.reconfigureRows(at: [TablePath(row: 0, section: 0)]) },
            { try $0.setViewportHeight(50) }, { try $0.insertRows(at: []) },
        ] {
            source.meddle = meddle
            source.caught = []
            try table.setContentOffset(table.contentOffset + 300)
            #expect(!source.caught.isEmpty && source.caught.allSatisfy { $0 == "the table cannot change while it is asking its data source for a cell" })
            expectEqual(table.visibleCells.map(\.text), table.indexPathsForVisibleRows.map { "\($0.row)" })
        }
    }

    @Test func reRegisteringDropsCellsOfTheOldClass() throws {
        final class OldCell: TableViewCell {}
        final class NewCell: TableViewCell {}
        final class Source: TableViewDataSource {
            func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 100 }
            func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
                try tableView.dequeueReusableCell(withIdentifier: "c", for: indexPath)
            }
        }
        let source = Source()
        let table = TableView(viewportHeight: 200)
        try table.register(OldCell.self, forCellReuseIdentifier: "c")
        table.dataSource = source
        try table.reloadData()
        try table.register(NewCell.self, forCellReuseIdentifier: "c")
        for step in 1...40 { try table.setContentOffset(Double(step) * 50) }
        #expect(table.visibleCells.allSatisfy { $0 is NewCell })
        #expect(table.reusePool.cellStatistics(forReuseIdentifier: "c").queued <= 6)
    }

    /// Two kinds of cells, scrolled slowly: each identifier keeps to its own
    /// window plus one.
    @Test func theBoundHoldsPerIdentifier() throws {
        final class Mixed: TableViewDataSource {
            func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 3_000 }
            func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
                try tableView.dequeueReusableCell(withIdentifier: indexPath.row % 3 == 0 ? "header-like" : "plain", for: indexPath)
            }
        }
        let source = Mixed()
        let table = TableView(viewportHeight: 440)
        try table.register(TableViewCell.self, forCellReuseIdentifier: "header-like")
        try table.register(TableViewCell.self, forCellReuseIdentifier: "plain")
        table.dataSource = source
        try table.reloadData()
        var most = ["header-like": 0, "plain": 0]
        while table.contentOffset < table.contentHeight - table.viewportHeight {
            try table.setContentOffset(table.contentOffset + 13)
            for (identifier, n) in most {
                let shown = table.visibleCells.filter { $0.reuseIdentifier == identifier }.count
                most[identifier] = max(n, shown)
            }
        }
        for (identifier, n) in most {
            let stats = table.reusePool.cellStatistics(forReuseIdentifier: identifier)
            #expect(stats.created <= n + 1, "\(identifier): \(stats), at most \(n) shown")
        }
    }

    @Test func batchesInsideBatches() throws {
        let (table, source) = try TableViewUpdateTests.makeTable(table([("A", [1, 2, 3])]), viewport: 1_000)
        let changeset = TableChangeset(from: TableTestSupport.table([("A", [1, 2, 3])]), to: TableTestSupport.table([("A", [3, 1])]))
        expectThrows(TableViewError.applyInsideBatch) {
            try table.performBatchUpdates { try table.apply(changeset) { source.sections = $0.sections } }
        }
        // A nested block that throws drops only its own changes.
        struct Stop: Error {}
        source.sections = TableTestSupport.table([("A", [0, 1, 2, 3])])
        try table.performBatchUpdates {
            try table.insertRows(at: [TablePath(row: 0, section: 0)])
            expectThrows(Stop.self) {
                try table.performBatchUpdates {
                    try table.deleteRows(at: [TablePath(row: 0, section: 0)])
                    throw Stop()
                }
            }
        }
        expectEqual(table.visibleCells.map(\.text), ["0", "1", "2", "3"])
        // Reconfigure in a batch names rows after it: a moved row, at its new place.
        let moved = table.cellForRow(at: TablePath(row: 3, section: 0))
        source.sections = [TableSection(name: "A", rows: [Item(id: 3, content: 9), Item(id: 0), Item(id: 1), Item(id: 2)])]
        try table.performBatchUpdates {
            try table.moveRow(at: TablePath(row: 3, section: 0), to: TablePath(row: 0, section: 0))
            try table.reconfigureRows(at: [TablePath(row: 0, section: 0)])
        }
        #expect(table.cellForRow(at: TablePath(row: 0, section: 0)) === moved)
        expectEqual(table.visibleCells.map(\.text), ["3'9", "0", "1", "2"])
        expectThrows(TableViewError.self) { try table.reconfigureRows(at: [TablePath(row: 9, section: 0)]) }
    }

    @Test func theSmallerAPIs() throws {
        let source = ItemSource(TableTestSupport.table((0..<6).map { s in ("S\(s)", Array((s * 10)..<(s * 10 + 10))) }))
        source.indexTitles = ["A", "B", "C"]
        source.indexStride = 2
        let table = TableView(viewportHeight: 300)
        try table.register(ItemCell.self, forCellReuseIdentifier: "item")
        table.dataSource = source
        try table.reloadData()
        expectEqual(table.sectionIndexTitles, ["A", "B", "C"])
        try table.tapSectionIndexTitle(at: 2)   // section 4
        expectEqual(table.contentOffset, table.rect(forSection: 4)?.y)
        try table.tapSectionIndexTitle(at: 7)   // no such title: nothing
        expectEqual(table.contentOffset, table.rect(forSection: 4)?.y)
        // The viewport grows and shrinks; the window follows.
        try table.setViewportHeight(600)
        #expect(table.indexPathsForVisibleRows.count > 10)
        try table.setViewportHeight(50)
        #expect(table.indexPathsForVisibleRows.count <= 3)
        // Selection settings.
        table.allowsSelection = false
        try table.tapRow(at: TablePath(row: 0, section: 4))
        #expect(table.indexPathsForSelectedRows.isEmpty)
        table.allowsSelection = true
        table.allowsMultipleSelection = true
        try table.tapRow(at: TablePath(row: 0, section: 4))
        try table.tapRow(at: TablePath(row: 1, section: 4))
        expectEqual(table.indexPathsForSelectedRows, [TablePath(row: 0, section: 4), TablePath(row: 1, section: 4)])
        try table.tapRow(at: TablePath(row: 0, section: 4))   // a tap on a selected row deselects it
        expectEqual(table.indexPathsForSelectedRows, [TablePath(row: 1, section: 4)])
        table.deselectRow(at: TablePath(row: 1, section: 4))
        #expect(table.indexPathsForSelectedRows.isEmpty)
        // Moves by the user need editing mode and a data source that allows them.
        expectThrows(TableViewError.notEditing) { try table.moveRowByUser(from: TablePath(row: 0, section: 0), to: TablePath(row: 1, section: 0)) }
        table.setEditing(true)
        expectThrows(TableViewError.notMovable(TablePath(row: 0, section: 0))) { try table.moveRowByUser(from: TablePath(row: 0, section: 0), to: TablePath(row: 1, section: 0)) }
        // Footer spans, and sections that do not exist.
        expectEqual(table.rectForFooter(inSection: 0)?.height, 0)
        #expect(table.rectForHeader(inSection: 6) == nil && table.footerView(forSection: 0) == nil)
        expectEqual(table.numberOfRows(inSection: 9), 0)
    }

    @Test func badCountsAreErrors() throws {
        final class Bad: TableViewDataSource {
            var rows = -1
            func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { rows }
            func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? { nil }
        }
        let source = Bad()
        let table = TableView()
        table.dataSource = source
        expectThrows(TableViewError.negativeCount(section: 0, count: -1)) { try table.reloadData() }
        source.rows = Int.max
        expectThrows(TableViewError.tooManyRows(section: 0, count: Int.max)) { try table.reloadData() }
        #expect(TableViewError.tooManyRows(section: 0, count: Int.max).description.hasPrefix("the data source reported \(Int.max) rows in section 0"))
    }

    @Test func headerAndFooterTemplates() throws {
        let prototype = TableHeaderFooterView(reuseIdentifier: nil)
        prototype.text = "from the template"
        let pool = ReusePool()
        try pool.register(ViewTemplate(prototype), forHeaderFooterViewReuseIdentifier: "header")
        expectEqual(pool.dequeueReusableHeaderFooterView(withIdentifier: "header")?.text, "from the template")
        expectThrows(TableViewError.self) { try pool.register(ViewTemplate(TableViewCell(reuseIdentifier: nil)), forHeaderFooterViewReuseIdentifier: "x") }
    }
}
