import Foundation
import HeadlessTableView
import TableDiff
import TableTestSupport
import Testing

/// Batches on tables of many sections: the layout a batch leaves (changing
/// only the sections it touches, a few chunks of sections) is the layout of
/// the new table loaded afresh; header and footer heights are asked again
/// only where the batch changes something; counts given at once are checked
/// as counts given section by section.
@Suite struct TableViewManySectionsTests {
    /// Random changes — rows deleted, inserted and moved between sections, now
    /// and then sections deleted and inserted — on tables of 100 to 300
    /// sections (several chunks), applied as changesets: every span is where
    /// a fresh table of the new data puts it.
    @Test func batchesLayOutAsAFreshTable() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        var nextID = 0, nextName = 0
        for round in 0..<60 {
            var old: Table = []
            for _ in 0..<g.int(100...300) {
                let rows = (0..<g.int(0...3)).map { _ in nextID += 1; return Item(id: nextID) }
                nextName += 1
                old.append(TableSection(name: "s\(nextName)", rows: rows))
            }
            var new = old
            let changesSections = g.chance(0.3)
            if changesSections {
                for _ in 0..<g.int(1...3) where !new.isEmpty { new.remove(at: g.int(0..<new.count)) }
                for _ in 0..<g.int(0...3) {
                    nextName += 1
                    new.insert(TableSection(name: "n\(nextName)", rows: (0..<g.int(0...3)).map { _ in nextID += 1; return Item(id: nextID) }), at: g.int(0...new.count))
                }
            }
            for _ in 0..<g.int(1...8) {
                let s = g.int(0..<new.count)
                switch g.int(0..<3) {
                case 0 where !new[s].rows.isEmpty:
                    new[s].rows.remove(at: g.int(0..<new[s].rows.count))
                case 1 where !new[s].rows.isEmpty:
                    let item = new[s].rows.remove(at: g.int(0..<new[s].rows.count))
                    let t = g.int(0..<new.count)
                    new[t].rows.insert(item, at: g.int(0...new[t].rows.count))
                default:
                    nextID += 1
                    new[s].rows.insert(Item(id: nextID), at: g.int(0...new[s].rows.count))
                }
            }
            var heights: [Int: Double] = [:]
            for item in (old + new).flatMap(\.rows) where heights[item.id] == nil { heights[item.id] = Double(g.int(5...60)) }
            let source = ItemSource(old)
            source.heights = heights
            let table = TableView(viewportHeight: 300)
            try table.register(ItemCell.self, forCellReuseIdentifier: "item")
            table.dataSource = source
            table.delegate = source
            try table.reloadData()
            try table.setContentOffset(Double(g.int(0...2_000)))
            let changeset = TableChangeset(from: old, to: new)
            try table.apply(changeset) { stage in source.sections = stage.sections }
            table._checkInvariants()

            let freshSource = ItemSource(new)
            freshSource.heights = heights
            let fresh = TableView(viewportHeight: 300)
            try fresh.register(ItemCell.self, forCellReuseIdentifier: "item")
            fresh.dataSource = freshSource
            fresh.delegate = freshSource
            try fresh.reloadData()
            let context = "seed \(seed), round \(round), sections changed: \(changesSections)"
            expectEqual(table.numberOfSections, new.count, "\(context)")
            #expect(abs(table.contentHeight - fresh.contentHeight) < 1e-6, "\(context)")
            for s in 0..<new.count {
                expectEqual(table.numberOfRows(inSection: s), new[s].rows.count, "\(context), section \(s)")
                let (a, b) = (table.rect(forSection: s), fresh.rect(forSection: s))
                expectEqual(a.map { abs($0.y - b!.y) < 1e-6 && abs($0.height - b!.height) < 1e-6 }, true, "\(context), section \(s): \(String(describing: a)) against \(String(describing: b))")
                for r in 0..<new[s].rows.count {
                    let p = TablePath(row: r, section: s)
                    expectEqual(table.rectForRow(at: p)?.height, fresh.rectForRow(at: p)?.height, "\(context), row \(p)")
                }
            }
        }
    }

    /// Counts the header and footer heights a table asks for.
    final class HeightCounter: TableViewDelegate {
        var headers: [Int] = []
        var footers: [Int] = []
        var headerHeights: [Double]
        init(sections: Int) { headerHeights = Array(repeating: 20, count: sections) }
        func tableView(_ tableView: TableView, heightForHeaderInSection section: Int) -> Double? {
            headers.append(section)
            return headerHeights[section]
        }
        func tableView(_ tableView: TableView, heightForFooterInSection section: Int) -> Double? {
            footers.append(section)
            return 0
        }
    }

    /// A batch asks the header and footer heights of the sections whose rows
    /// it changes, not of the others (UIKit asks every section's); a section
    /// reloaded is asked again.
    @Test func aBatchAsksOnlyTheSectionsItChanges() throws {
        let sections = (0..<200).map { s in TableSection(name: "s\(s)", rows: [Item(id: 2 * s), Item(id: 2 * s + 1)]) }
        let source = ItemSource(sections)
        let heights = HeightCounter(sections: 200)
        let table = TableView(viewportHeight: 300)
        try table.register(ItemCell.self, forCellReuseIdentifier: "item")
        table.dataSource = source
        table.delegate = heights
        try table.reloadData()
        expectEqual(heights.headers.count, 200)
        heights.headers = []
        heights.footers = []
        // A row moves from section 5 to section 150.
        let item = source.sections[5].rows.remove(at: 0)
        source.sections[150].rows.insert(item, at: 1)
        heights.headerHeights[7] = 50   // not told: kept
        try table.performBatchUpdates { try table.moveRow(at: TablePath(row: 0, section: 5), to: TablePath(row: 1, section: 150)) }
        expectEqual(heights.headers, [5, 150])
        expectEqual(heights.footers, [5, 150])
        expectEqual(table.rectForHeader(inSection: 7)?.height, 20)
        table._checkInvariants()
        // Reloading section 7 asks it again.
        heights.headers = []
        try table.reloadSections([7])
        expectEqual(heights.headers, [7])
        expectEqual(table.rectForHeader(inSection: 7)?.height, 50)
        expectEqual(table.rect(forSection: 8)?.y, table.rect(forSection: 7).map { $0.y + $0.height })
        table._checkInvariants()
        // Inserting a section moves the others: every section is asked, as UIKit does.
        heights.headers = []
        heights.footers = []
        source.sections.insert(TableSection(name: "new", rows: []), at: 0)
        heights.headerHeights.insert(30, at: 0)
        try table.insertSections([0])
        expectEqual(heights.headers, Array(0...200))
        expectEqual(heights.footers, Array(0...200))
        expectEqual(table.rectForHeader(inSection: 0)?.height, 30)
        expectEqual(table.rectForHeader(inSection: 8)?.height, 50)
        table._checkInvariants()
    }

    /// A data source giving its counts at once.
    final class AllCounts: TableViewDataSource {
        var counts: [Int]
        var reported: [Int]?
        init(_ counts: [Int]) { self.counts = counts }
        func numberOfSections(in tableView: TableView) -> Int { counts.count }
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { counts[section] }
        func numberOfRowsInSections(in tableView: TableView) -> [Int]? { reported ?? counts }
        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            try tableView.dequeueReusableCell(withIdentifier: "item", for: indexPath)
        }
    }

    /// Counts given at once are checked as counts given section by section:
    /// the same message for a batch that does not add up, the same error for
    /// a negative count, and the table as it was.
    @Test func countsGivenAtOnceAreCheckedAlike() throws {
        let source = AllCounts([2, 3, 1])
        let table = TableView(viewportHeight: 300)
        try table.register(ItemCell.self, forCellReuseIdentifier: "item")
        table.dataSource = source
        try table.reloadData()
        source.counts = [2, 4, 1]
        try table.insertRows(at: [TablePath(row: 3, section: 1)])
        expectEqual(table.numberOfRows(inSection: 1), 4)
        // Section 2 grew untold.
        source.counts = [2, 5, 2]
        let expected = try #require(throws: TableViewError.self) { try table.insertRows(at: [TablePath(row: 4, section: 1)]) }
        let oneByOne = try #require(throws: BatchUpdateError.self) {
            var update = BatchUpdate()
            update.insertRows(at: [TablePath(row: 4, section: 1)])
            _ = try update.validate(rowCountsBefore: [2, 4, 1], rowCountsAfter: [2, 5, 2])
        }
        expectEqual(expected, .inconsistentUpdate(oneByOne))
        expectEqual((0..<3).map(table.numberOfRows(inSection:)), [2, 4, 1])
        source.reported = [2, -1, 1]
        expectThrows(TableViewError.negativeCount(section: 1, count: -1)) { try table.reloadData() }
        source.reported = [2, TableView.maximumRowCount + 1]
        expectThrows(TableViewError.tooManyRows(section: 1, count: TableView.maximumRowCount + 1)) { try table.reloadData() }
        expectEqual((0..<3).map(table.numberOfRows(inSection:)), [2, 4, 1])
        table._checkInvariants()
    }
}
