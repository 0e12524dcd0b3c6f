import Foundation
import HeadlessTableView
import TableDiff
import TableTestSupport
import Testing

/// A table's prefetch data source against a model of what it was told: rows
/// announced and neither shown nor cancelled since.
@Suite struct TableViewPrefetchingTests {
    /// Rows of one point each in sections of given sizes; records the cells
    /// asked for and checks every prefetch call against the model.
    final class Rows: TableViewDataSource, TableViewDataSourcePrefetching {
        var counts: [Int]
        /// Rows announced and neither shown nor cancelled since.
        var outstanding: Set<TablePath> = []
        var announcedTotal = 0, cancelledTotal = 0
        /// Cells made, and those made for rows not outstanding.
        var made: [TablePath] = []
        var unannounced: [TablePath] = []
        var problems: [String] = []

        init(_ counts: [Int]) { self.counts = counts }

        func numberOfSections(in tableView: TableView) -> Int { counts.count }
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { counts[section] }
        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            made.append(indexPath)
            if outstanding.remove(indexPath) == nil { unannounced.append(indexPath) }
            let cell = try tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            cell.text = "\(indexPath)"
            return cell
        }

        func tableView(_ tableView: TableView, prefetchRowsAt indexPaths: [TablePath]) {
            announcedTotal += indexPaths.count
            if indexPaths.isEmpty { problems.append("an empty prefetch call") }
            for path in indexPaths {
                if outstanding.contains(path) { problems.append("\(path) announced twice without a cancel") }
                if !(counts.indices.contains(path.section) && (0..<counts[path.section]).contains(path.row)) { problems.append("\(path) does not exist") }
                if tableView.indexPathsForVisibleRows.contains(path) { problems.append("\(path) announced while shown") }
                outstanding.insert(path)
            }
            if Set(indexPaths).count != indexPaths.count { problems.append("a row twice in one call: \(indexPaths)") }
        }

        func tableView(_ tableView: TableView, cancelPrefetchingForRowsAt indexPaths: [TablePath]) {
            cancelledTotal += indexPaths.count
            for path in indexPaths where outstanding.remove(path) == nil { problems.append("\(path) cancelled but not outstanding") }
        }
    }

    static func table(_ rows: Rows, viewport: Double, distance: Int) throws -> TableView {
        let table = TableView(viewportHeight: viewport)
        table.rowHeight = 1
        table.sectionHeaderHeight = 0
        table.sectionFooterHeight = 0
        table.prefetchDistance = distance
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        table.dataSource = rows
        table.prefetchDataSource = rows
        try table.reloadData()
        return table
    }

    /// Random tables scrolled at a constant speed of at most the prefetch
    /// distance, down and up, with jumps: every row shown while scrolling on
    /// (not the first window, not the step after a jump or a reversal) was
    /// announced before; nothing is announced twice without a cancel or a
    /// show between; the table's list of rows announced is the model's.
    @Test func everyRowShownAtConstantSpeedWasAnnouncedAndNoneTwice() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for round in 0..<60 {
            let counts = (0..<g.int(1...6)).map { _ in g.chance(0.2) ? 0 : g.int(1...80) }
            let rows = Rows(counts)
            let distance = g.int(1...12)
            let table = try Self.table(rows, viewport: Double(g.int(1...15)), distance: distance)
            let speed = Double(g.int(1...distance))
            var direction = 1.0
            var afterJump = false
            let context = "seed \(seed), round \(round), counts \(counts), distance \(distance), speed \(speed)"
            for step in 0..<300 {
                let end = max(0, table.contentHeight - table.viewportHeight)
                var target = table.contentOffset + direction * speed
                // The step after a jump is not steady either: the jump set the
                // direction the table looks ahead in.
                var steady = !afterJump
                afterJump = false
                if g.chance(0.03) {
                    target = Double(g.int(0...Int(end)))   // a jump
                    steady = false
                    afterJump = true
                } else if target > end || target < 0 {
                    direction = -direction                // a reversal
                    target = table.contentOffset + direction * speed
                    steady = false
                }
                target = min(max(0, target), end)
                let before = rows.unannounced.count
                try table.setContentOffset(target)
                if steady {
                    expectEqual(rows.unannounced.count, before, "\(context), step \(step): shown unannounced \(rows.unannounced[before...])")
                }
                expectEqual(Set(table.indexPathsForPrefetchedRows), rows.outstanding, "\(context), step \(step)")
                #expect(rows.problems.isEmpty, "\(context), step \(step): \(rows.problems)")
                if !rows.problems.isEmpty { return }
            }
        }
    }

    @Test func aScrollAnnouncesTheRowsAheadNearestFirstAndAReversalCancelsThem() throws {
        let rows = Rows([100])
        let table = try Self.table(rows, viewport: 10, distance: 3)
        // After the first load the rows below the window are announced.
        expectEqual(table.indexPathsForPrefetchedRows, [10, 11, 12].map { TablePath(row: $0, section: 0) })
        try table.setContentOffset(2)
        expectEqual(table.indexPathsForPrefetchedRows, [12, 13, 14].map { TablePath(row: $0, section: 0) })
        // Only the first window showed unannounced.
        expectEqual(rows.unannounced, (0..<10).map { TablePath(row: $0, section: 0) })
        #expect(rows.announcedTotal == 5 && rows.cancelledTotal == 0)
        try table.setContentOffset(1)   // up: the rows below are cancelled, the row above announced
        expectEqual(rows.outstanding, [TablePath(row: 0, section: 0)])
        expectEqual(rows.cancelledTotal, 3)
        try table.setContentOffset(80)  // a jump: cancelled, the new window unannounced
        expectEqual(rows.outstanding, Set([90, 91, 92].map { TablePath(row: $0, section: 0) }))
        #expect(rows.problems.isEmpty)
        table.isPrefetchingEnabled = false
        #expect(rows.outstanding.isEmpty && table.indexPathsForPrefetchedRows.isEmpty)
        try table.setContentOffset(82)
        #expect(rows.outstanding.isEmpty)
    }

    @Test func announcementsFollowTheirRowsThroughABatchAndAReloadCancelsThem() throws {
        let rows = Rows([20, 5])
        let table = try Self.table(rows, viewport: 10, distance: 2)
        expectEqual(rows.outstanding, [TablePath(row: 10, section: 0), TablePath(row: 11, section: 0)])
        rows.counts[0] += 1
        try table.performBatchUpdates {
            // A data source keyed by path follows its rows too.
            rows.outstanding = Set(rows.outstanding.map { TablePath(row: $0.row + 1, section: $0.section) })
            try table.insertRows(at: [TablePath(row: 0, section: 0)])
        }
        // Row 9 moved out of the window to 10 (it was shown: not announced); 10 and 11 are now 11 and 12 …
        // … and the table announces what is now ahead of the window.
        expectEqual(Set(table.indexPathsForPrefetchedRows), rows.outstanding)
        #expect(rows.problems.isEmpty, "\(rows.problems)")
        rows.counts = [3, 30]
        try table.reloadData()
        #expect(rows.problems.isEmpty, "\(rows.problems)")
        // The window shows section 0's 3 rows and section 1's first 7: its next 2 are announced.
        expectEqual(rows.outstanding, [TablePath(row: 7, section: 1), TablePath(row: 8, section: 1)])
    }
}
