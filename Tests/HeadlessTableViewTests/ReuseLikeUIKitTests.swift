import Foundation
import HeadlessTableView
import TableDiff
import TableTestSupport
import Testing

/// Reuse as UIKit does it for the code the seeds write: cells made by hand
/// after a nil dequeue are queued by their identifier and handed back; a jump
/// reuses the cells that left; a template keeps its subclass's archived
/// properties.
@Suite struct ReuseLikeUIKitTests {
    /// The German book's first table listing and its cell counter: dequeue,
    /// and on nil make the cell by hand (`made` counts them).
    final class HandMadeCells: TableViewDataSource {
        let rows: Int
        var made = 0
        let template: ViewTemplate?
        init(rows: Int, template: ViewTemplate? = nil) {
            self.rows = rows
            self.template = template
        }
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { rows }
        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            var cell = tableView.dequeueReusableCell(withIdentifier: "CellIdentifier")
            if cell == nil {
                cell = try template.map { try $0.makeView(TableViewCell.self, reuseIdentifier: "CellIdentifier") }
                    ?? TableViewCell(reuseIdentifier: "CellIdentifier")
                made += 1
            }
            cell?.text = "Row \(indexPath.row)"
            return cell
        }
    }

    /// The window's rows: at most this many cells should ever exist.
    static func windowRows(_ table: TableView) -> Int { Int((table.viewportHeight / table.rowHeight).rounded(.up)) + 1 }

    @Test(arguments: [false, true])
    func cellsMadeByHandAreReused(fromATemplate: Bool) throws {
        let table = TableView(viewportHeight: 440)   // 10 rows of 44
        let source = HandMadeCells(rows: 200, template: fromATemplate ? try ViewTemplate(TableViewCell(reuseIdentifier: nil)) : nil)
        table.dataSource = source
        try table.reloadData()
        for step in 1...(200 * 44 / 22) { try table.setContentOffset(Double(step * 22)) }
        expectEqual(table.indexPathsForVisibleRows.last?.row, 199)
        #expect(source.made <= Self.windowRows(table), "\(source.made) cells made for 200 rows")
        let statistics = table.reusePool.cellStatistics(forReuseIdentifier: "CellIdentifier")
        #expect(statistics.adopted == source.made && statistics.created == 0, "\(statistics), \(source.made) made")
        #expect(statistics.reused >= 200 - source.made, "\(statistics), \(source.made) made")
        // Every cell shows its row.
        expectEqual(table.visibleCells.map(\.text), table.indexPathsForVisibleRows.map { "Row \($0.row)" })
    }

    /// Jumps anywhere in a million rows: the cells that left are reused, and
    /// no more cells than a window (plus one) are ever alive.
    @Test func jumpsReuseTheCellsThatLeft() throws {
        var g = SeededGenerator(seed: SeededGenerator.runSeed())
        let table = TableView(viewportHeight: 440)
        try table.register(TableViewCell.self, forCellReuseIdentifier: "CellIdentifier")
        final class Rows: TableViewDataSource {
            func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 1_000_000 }
            func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
                let cell = try tableView.dequeueReusableCell(withIdentifier: "CellIdentifier", for: indexPath)
                cell.text = "Row \(indexPath.row)"
                return cell
            }
        }
        let rows = Rows()
        table.dataSource = rows
        try table.reloadData()
        for _ in 0..<200 {
            try table.setContentOffset(g.chance(0.5) ? Double(g.int(0...44_000_000)) : table.contentOffset + Double(g.int(-500...500)).magnitude)
            expectEqual(table.visibleCells.map(\.text), table.indexPathsForVisibleRows.map { "Row \($0.row)" })
        }
        let statistics = table.reusePool.cellStatistics(forReuseIdentifier: "CellIdentifier")
        #expect(statistics.maxLive <= Self.windowRows(table) + 1, "\(statistics)")
        #expect(statistics.created <= Self.windowRows(table) + 1, "\(statistics)")
    }

    /// A jump whose cells the data source fails to make changes nothing:
    /// every row still shows its own content, in its own cell.
    @Test func aFailedJumpLeavesEveryRowItsContent() throws {
        final class Failing: TableViewDataSource {
            var failAt: Int?
            func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 10_000 }
            func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
                let cell = try tableView.dequeueReusableCell(withIdentifier: "c", for: indexPath)
                cell.text = "Row \(indexPath.row)"
                if indexPath.row == failAt { throw CocoaError(.featureUnsupported) }
                return cell
            }
        }
        let table = TableView(viewportHeight: 440)
        try table.register(TableViewCell.self, forCellReuseIdentifier: "c")
        let source = Failing()
        table.dataSource = source
        try table.reloadData()
        let before = table.visibleCells.map { ObjectIdentifier($0) }
        source.failAt = 5_003
        expectThrows(CocoaError.self) { try table.setContentOffset(5_000 * 44) }
        expectEqual(table.contentOffset, 0)
        expectEqual(table.visibleCells.map { ObjectIdentifier($0) }, before)
        expectEqual(table.visibleCells.map(\.text), table.indexPathsForVisibleRows.map { "Row \($0.row)" })
        source.failAt = nil
        try table.setContentOffset(5_000 * 44)
        expectEqual(table.visibleCells.map(\.text), table.indexPathsForVisibleRows.map { "Row \($0.row)" })
        #expect(table.reusePool.cellStatistics(forReuseIdentifier: "c").maxLive <= Self.windowRows(table) + 1)
    }

    final class BadgeCell: TableViewCell {
        @Archived var badge = ""
        @Archived var count = 0
        @Archived var colors: [String] = []
        var onTap: (() -> Void)?
    }

    /// A template of a subclass keeps every archived property, through the
    /// pool and through a file; a hand-written archive without them keeps the
    /// initial values; closures start empty.
    @Test func templatesKeepTheSubclassesArchivedProperties() throws {
        let prototype = BadgeCell(reuseIdentifier: nil)
        prototype.badge = "fancy"
        prototype.count = 7
        prototype.colors = ["red", "blue"]
        prototype.text = "title"
        prototype.onTap = {}
        let template = try ViewTemplate(prototype)
        let pool = ReusePool()
        try pool.register(template, forCellReuseIdentifier: "badge")
        let first = try #require(pool.dequeueReusableCell(withIdentifier: "badge") as? BadgeCell)
        #expect(first.badge == "fancy" && first.count == 7 && first.colors == ["red", "blue"] && first.text == "title")
        #expect(first.onTap == nil && first.reuseIdentifier == "badge")
        // Copies are independent of each other and of the prototype.
        first.badge = "changed"
        let second = try #require(pool.dequeueReusableCell(withIdentifier: "badge") as? BadgeCell)
        #expect(second.badge == "fancy" && prototype.badge == "fancy")
        // Through a file, like a nib.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("badge-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try template.write(to: url)
        let loaded = try #require(try ViewTemplate(contentsOf: url, as: BadgeCell.self).prototype as? BadgeCell)
        #expect(loaded.badge == "fancy" && loaded.count == 7 && loaded.colors == ["red", "blue"])
        // An archive written by hand without them: the initial values.
        let bare = try ViewTemplate(archive: Data(#"{"text": "t", "badge": "b"}"#.utf8), as: BadgeCell.self).makeView(BadgeCell.self, reuseIdentifier: "x")
        #expect(bare.badge == "b" && bare.count == 0 && bare.colors == [] && bare.text == "t" && bare.reuseIdentifier == "x")
        // A wrongly typed property is a template error, not a trap.
        expectThrows(TableViewError.self) { try ViewTemplate(archive: Data(#"{"count": "seven"}"#.utf8), as: BadgeCell.self) }
        expectThrows(TableViewError.self) { try template.makeView(TableHeaderFooterView.self, reuseIdentifier: "x") }
    }

    /// Batches whose window fails to fill after the cells of rows pushed out
    /// were reused, with the book's data source (its dequeue does not hand a
    /// row back its own cell when the window is put back): the table is as it
    /// was, every row in the window has a cell of its own showing it, and no
    /// cell is both shown and queued (scrolling on never shows one twice).
    @Test func failedBatchesLeaveNoCellBothShownAndQueued() throws {
        struct Refused: Error {}
        final class Items: TableViewDataSource {
            var ids = Array(0..<60)
            var failing: Int?
            func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { ids.count }
            func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
                let id = ids[indexPath.row]
                if id == failing { throw Refused() }
                let cell = tableView.dequeueReusableCell(withIdentifier: "CellIdentifier") ?? TableViewCell(reuseIdentifier: "CellIdentifier")
                cell.text = "\(id)"
                return cell
            }
        }
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let source = Items()
        let table = TableView(viewportHeight: 220)   // 5 rows of 44
        table.dataSource = source
        try table.reloadData()
        func check(_ context: String) {
            let rows = table.indexPathsForVisibleRows, cells = table.visibleCells
            expectEqual(cells.map(\.text), rows.map { "\(source.ids[$0.row])" }, "\(context), seed \(seed)")
            expectEqual(Set(cells.map(ObjectIdentifier.init)).count, cells.count, "\(context), seed \(seed)")
            table._checkInvariants()
        }
        var (failed, next) = (0, 1_000)
        for round in 0..<300 {
            try table.setContentOffset(Double(g.int(0...(source.ids.count * 44 - 220))))
            let before = source.ids
            let at = table.indexPathsForVisibleRows.first?.row ?? 0, count = g.int(1...4)
            let new = (0..<count).map { next + $0 }
            next += count
            source.ids.insert(contentsOf: new, at: at)
            source.failing = g.chance(0.6) ? new[g.int(0..<count)] : nil
            do {
                try table.performBatchUpdates { try table.insertRows(at: (at..<at + count).map { TablePath(row: $0, section: 0) }) }
            } catch is Refused {
                failed += 1
                source.ids = before   // the table is as it was, and so is the data
            }
            source.failing = nil
            check("round \(round)")
            // Scrolling on dequeues the queued cells: none is still shown.
            for _ in 0..<3 {
                try table.setContentOffset(table.contentOffset + 110)
                check("round \(round), scrolled")
            }
        }
        #expect(failed > 100)
    }
}
