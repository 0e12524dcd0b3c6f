import Foundation
import Testing
import HeadlessTableView
import TableDiff
import TableTestSupport

/// Keeping the reader's place (`TableView.anchoring`), against a model of
/// items by id laid out by brute force: after random batches, staged
/// changesets, height corrections and scrolls over estimated heights, the
/// anchored row is where the model says it is on screen — for every setting.
@Suite struct AnchoringPropertyTests {
    static let headerHeight = 7.0

    /// The model: where every item of a table is, by brute force.
    struct Model {
        var table: Table
        var layout: BruteForceLayout

        init(_ table: Table, heights: [Int: Double]) {
            self.table = table
            layout = BruteForceLayout(
                rowHeights: table.map { $0.rows.map { heights[$0.id] ?? 10 } },
                headers: table.map { $0.name.isEmpty ? 0 : AnchoringPropertyTests.headerHeight },
                footers: table.map { _ in 0 })
        }

        func id(at path: TablePath) -> Int { table[path.section].rows[path.row].id }

        func path(of id: Int) -> TablePath? {
            for (s, section) in table.enumerated() {
                if let r = section.rows.firstIndex(where: { $0.id == id }) { return TablePath(row: r, section: s) }
            }
            return nil
        }

        func y(of path: TablePath) -> Double { layout.rows.first { $0.path == path }!.y }

        func clamped(_ offset: Double, viewport: Double) -> Double {
            Swift.max(0, Swift.min(offset, layout.contentHeight - viewport))
        }

        /// The first row meeting the window (rows of no height never do).
        func firstVisible(offset: Double, viewport: Double) -> (path: TablePath, y: Double)? {
            layout.rows.first { $0.height > 0 && $0.y < offset + viewport && $0.y + $0.height > offset }.map { ($0.path, $0.y) }
        }
    }

    /// The offset after a change from `old` to `new` (sections at `reloaded`,
    /// before the change, reloaded), by the rule of each setting: the offset
    /// stays; at the bottom, the bottom stays; otherwise the first visible
    /// row, by id — else the next row in the old order that is still there
    /// (in a reloaded section, the row at its index) — stays on screen.
    static func expectedOffset(
        _ anchoring: TableView.Anchoring, old: Model, new: Model, reloaded: Set<Int>, offset: Double, viewport: Double
    ) -> Double {
        switch anchoring {
        case .none: return new.clamped(offset, viewport: viewport)
        case .bottom where offset >= old.layout.contentHeight - viewport - 1e-9 * Swift.max(1, abs(old.layout.contentHeight - viewport)):
            return new.clamped(.infinity, viewport: viewport)
        case .bottom, .firstVisibleRow:
            guard let first = old.firstVisible(offset: offset, viewport: viewport) else { return new.clamped(offset, viewport: viewport) }
            let onScreen = first.y - offset
            let start = old.layout.rows.firstIndex { $0.path == first.path }!
            for row in old.layout.rows[start...] {
                let s = row.path.section
                if reloaded.contains(s) {
                    guard let t = new.table.firstIndex(where: { $0.name == old.table[s].name }), !new.table[t].rows.isEmpty else { continue }
                    let target = TablePath(row: Swift.min(row.path.row, new.table[t].rows.count - 1), section: t)
                    return new.clamped(new.y(of: target) - onScreen, viewport: viewport)
                }
                if let target = new.path(of: old.id(at: row.path)) {
                    return new.clamped(new.y(of: target) - onScreen, viewport: viewport)
                }
            }
            return new.clamped(offset, viewport: viewport)
        }
    }

    static func makeTable(_ sections: Table, heights: [Int: Double], viewport: Double, anchoring: TableView.Anchoring) throws -> (TableView, ItemSource) {
        let source = ItemSource(sections)
        source.heights = heights
        let table = TableView(viewportHeight: viewport)
        table.sectionHeaderHeight = headerHeight
        table.sectionFooterHeight = 0
        table.anchoring = anchoring
        try table.register(ItemCell.self, forCellReuseIdentifier: "item")
        table.dataSource = source
        table.delegate = source
        try table.reloadData()
        return (table, source)
    }

    static func randomHeights(_ g: inout SeededGenerator) -> [Int: Double] {
        var heights: [Int: Double] = [:]
        for id in Array(0..<200) + Array(1_000..<1_200) { heights[id] = [0, 4, 10, 17, 30, 55][g.int(0..<6)] }
        return heights
    }

    static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-6 * Swift.max(1, abs(a), abs(b)) }

    @Test(arguments: TableView.Anchoring.allCases)
    func randomBatchesKeepTheAnchoredRow(_ anchoring: TableView.Anchoring) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        var anchoredElsewhere = 0   // rounds where the setting's offset is not the offset kept
        for round in 0..<TestScale.cases(300, full: 1_500) {
            let c = BatchGenerator.generate(&g)
            let heights = Self.randomHeights(&g)
            let viewport = Double(g.int(10...120))
            let (table, source) = try Self.makeTable(c.displayed, heights: heights, viewport: viewport, anchoring: anchoring)
            let old = Model(c.displayed, heights: heights)
            // Anywhere, and often at the very bottom (a chat).
            let offset = g.chance(0.3) ? old.layout.contentHeight : Double(g.int(0...400))
            try table.setContentOffset(offset)
            let before = table.contentOffset
            #expect(Self.close(before, old.clamped(offset, viewport: viewport)))
            source.sections = c.data
            try table.performBatchUpdates(c.update)
            table._checkInvariants()
            let new = Model(c.data, heights: heights)
            let expected = Self.expectedOffset(anchoring, old: old, new: new, reloaded: Set(c.update.reloadedSections), offset: before, viewport: viewport)
            if !Self.close(expected, new.clamped(before, viewport: viewport)) { anchoredElsewhere += 1 }
            #expect(Self.close(table.contentOffset, expected),
                    "seed \(seed), round \(round), \(anchoring): offset \(table.contentOffset), expected \(expected); \(describe(c.displayed)) → \(describe(c.data)) with \(c.update.logLines().joined(separator: "; ")), from offset \(before), viewport \(viewport)")
            #expect(Self.close(table.contentHeight, new.layout.contentHeight))
            expectEqual(table.indexPathsForVisibleRows, new.layout.window(table.contentOffset, table.contentOffset + viewport))
        }
        // The rounds test something: anchored, the offset often moves.
        #expect(anchoring == .none ? anchoredElsewhere == 0 : anchoredElsewhere > TestScale.cases(40, full: 200), "seed \(seed): \(anchoredElsewhere) rounds moved the offset")
    }

    /// Staged changes (a changeset's stages, as a diffable data source applies
    /// them) keep the anchored row stage by stage.
    @Test(arguments: TableView.Anchoring.allCases)
    func stagedChangesetsKeepTheAnchoredRow(_ anchoring: TableView.Anchoring) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for round in 0..<TestScale.cases(150, full: 600) {
            // Sections kept (moved at most): every row that stays is moved, never deleted and inserted.
            let (old, new): (Table, Table)
            if g.chance(0.5) {
                (old, new) = TableGenerator.pair([TableGenerator.Shape.flat, .shuffledSections][g.int(0..<2)], &g)
            } else {
                var ids = Array(0..<60).shuffled(using: &g)
                let start = TableGenerator.randomTable(&g, sections: 1...5, rows: 0...8, ids: &ids)
                (old, new) = (start, TableGenerator.mutate(start, &g, nextID: 60, keepSections: true))
            }
            let changeset = TableChangeset(from: old, to: new)
            guard changeset.duplicateIdentifiers.isEmpty else { continue }
            let heights = Self.randomHeights(&g)
            let viewport = Double(g.int(10...120))
            let (table, source) = try Self.makeTable(old, heights: heights, viewport: viewport, anchoring: anchoring)
            try table.setContentOffset(g.chance(0.3) ? table.contentHeight : Double(g.int(0...300)))
            var pending: Double?
            var stage = 0
            func check(_ context: @autoclosure () -> String) {
                guard let expected = pending else { return }
                #expect(Self.close(table.contentOffset, expected), "seed \(seed), round \(round), \(anchoring), stage \(stage): offset \(table.contentOffset), expected \(expected); \(context())")
            }
            try table.apply(changeset) { next in
                check("\(describe(old)) → \(describe(new))")
                let before = Model(source.sections, heights: heights), after = Model(next.sections, heights: heights)
                pending = Self.expectedOffset(anchoring, old: before, new: after, reloaded: [], offset: table.contentOffset, viewport: viewport)
                stage += 1
                source.sections = next.sections
            }
            check("\(describe(old)) → \(describe(new))")
            table._checkInvariants()
        }
    }

    /// Rows measured differently from their estimate as they enter the window
    /// move nothing that was shown, when the table is anchored: the first row
    /// of the new window that was in the old one keeps the place it had
    /// before the rows were measured (unless the offset meets an end of the
    /// content). Without anchoring, the offset stays.
    @Test(arguments: TableView.Anchoring.allCases)
    func measuredHeightsMoveNothingShown(_ anchoring: TableView.Anchoring) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        final class Measured: TableViewDataSource {
            var counts: [Int]
            var heights: [TablePath: Double]
            init(counts: [Int], heights: [TablePath: Double]) {
                self.counts = counts
                self.heights = heights
            }
            func numberOfSections(in tableView: TableView) -> Int { counts.count }
            func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { counts[section] }
            func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? { "S\(section)" }
            func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
                let cell = try tableView.dequeueReusableCell(withIdentifier: "cell", for: indexPath)
                cell.preferredHeight = heights[indexPath]
                return cell
            }
        }
        for round in 0..<TestScale.cases(80, full: 300) {
            let counts = (0..<g.int(1...4)).map { _ in g.int(0...40) }
            var heights: [TablePath: Double] = [:]
            for (s, n) in counts.enumerated() { for r in 0..<n { heights[TablePath(row: r, section: s)] = Double(g.int(5...60)) } }
            let source = Measured(counts: counts, heights: heights)
            let table = TableView(viewportHeight: Double(g.int(40...200)))
            table.rowHeight = TableView.automaticDimension
            table.estimatedRowHeight = 30
            table.anchoring = anchoring
            try table.register(TableViewCell.self, forCellReuseIdentifier: "cell")
            table.dataSource = source
            try table.reloadData()
            try table.setContentOffset(table.contentHeight)   // from the bottom, scrolling up meets unmeasured rows
            for step in 0..<12 {
                let oldWindow = Set(table.indexPathsForVisibleRows)
                let target = Swift.max(0, table.contentOffset - Double(g.int(0...150)) + (g.chance(0.2) ? Double(g.int(0...200)) : 0))
                // Where everything is before the rows entering are measured.
                let end = table.contentHeight - table.viewportHeight
                let clampedTarget = Swift.max(0, Swift.min(target, end))
                let entering = (0..<counts.count).flatMap { s in (0..<counts[s]).map { TablePath(row: $0, section: s) } }
                    .filter { p in table.rectForRow(at: p).map { $0.height > 0 && $0.y < clampedTarget + table.viewportHeight && $0.maxY > clampedTarget } ?? false }
                let kept = entering.first { oldWindow.contains($0) } ?? entering.first
                let keptY = kept.flatMap { table.rectForRow(at: $0)?.y }
                try table.setContentOffset(target)
                table._checkInvariants()
                let context = "seed \(seed), round \(round), step \(step), \(anchoring)"
                for p in table.indexPathsForVisibleRows { expectEqual(table.rectForRow(at: p)?.height, heights[p], "\(context): \(p) not measured") }
                switch anchoring {
                case .none:
                    #expect(Self.close(table.contentOffset, Swift.max(0, Swift.min(clampedTarget, table.contentHeight - table.viewportHeight))), "\(context)")
                case .firstVisibleRow, .bottom:
                    guard let kept, let keptY else { continue }
                    let expected = (table.rectForRow(at: kept)?.y ?? 0) - (keptY - clampedTarget)
                    let bounded = Swift.max(0, Swift.min(expected, table.contentHeight - table.viewportHeight))
                    #expect(Self.close(table.contentOffset, bounded), "\(context): \(kept) at \(String(describing: table.rectForRow(at: kept))) − offset \(table.contentOffset), was \(keptY) − \(clampedTarget)")
                }
            }
        }
    }

    /// Height corrections above and in the window (rows reloaded at other
    /// heights) keep the first visible row where it is, by each setting.
    @Test func newHeightsAboveKeepTheFirstVisibleRow() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for round in 0..<300 {
            var ids = Array(0..<200).shuffled(using: &g)
            let sections = TableGenerator.randomTable(&g, sections: 1...4, rows: 1...20, ids: &ids)
            var heights = Self.randomHeights(&g)
            let anchoring = TableView.Anchoring.allCases[round % 3]
            let viewport = Double(g.int(20...120))
            let (table, source) = try Self.makeTable(sections, heights: heights, viewport: viewport, anchoring: anchoring)
            try table.setContentOffset(Double(g.int(0...500)))
            let old = Model(sections, heights: heights)
            let before = table.contentOffset
            // New heights for some rows (the delegate's), the window's rows reconfigured.
            for id in heights.keys where g.chance(0.3) { heights[id] = [0, 4, 10, 17, 30, 55][g.int(0..<6)] }
            source.heights = heights
            // A reload of every row tells the table the new heights.
            var update = BatchUpdate()
            update.reloadedRows = sections.indices.flatMap { s in sections[s].rows.indices.map { TablePath(row: $0, section: s) } }
            try table.performBatchUpdates(update)
            let new = Model(sections, heights: heights)
            let expected = Self.expectedOffset(anchoring, old: old, new: new, reloaded: [], offset: before, viewport: viewport)
            #expect(Self.close(table.contentOffset, expected), "seed \(seed), round \(round), \(anchoring): \(table.contentOffset) vs \(expected)")
        }
    }

    @Test func aChatStaysAtTheBottomAsMessagesArrive() throws {
        var sections = TableTestSupport.table([("", Array(0..<30))])
        let (table, source) = try Self.makeTable(sections, heights: [:], viewport: 100, anchoring: .bottom)
        try table.setContentOffset(table.contentHeight)
        for id in 100..<110 {
            sections[0].rows.append(Item(id: id))
            source.sections = sections
            try table.insertRows(at: [TablePath(row: sections[0].rows.count - 1, section: 0)])
            expectEqual(table.contentOffset, table.contentHeight - 100)
            expectEqual(table.indexPathsForVisibleRows.last, TablePath(row: sections[0].rows.count - 1, section: 0))
        }
        // Scrolled up, the first visible row stays as more arrive below and above.
        try table.setContentOffset(55)
        let first = table.indexPathsForVisibleRows[0]
        let onScreen = table.rectForRow(at: first)!.y - table.contentOffset
        sections[0].rows.insert(Item(id: 200), at: 0)
        sections[0].rows.append(Item(id: 201))
        source.sections = sections
        try table.performBatchUpdates {
            try table.insertRows(at: [TablePath(row: 0, section: 0), TablePath(row: sections[0].rows.count - 1, section: 0)])
        }
        let moved = TablePath(row: first.row + 1, section: 0)
        expectEqual(table.indexPathsForVisibleRows[0], moved)
        expectEqual(table.rectForRow(at: moved)!.y - table.contentOffset, onScreen)
    }
}
