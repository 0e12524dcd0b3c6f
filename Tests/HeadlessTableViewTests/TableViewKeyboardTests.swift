import Foundation
import HeadlessTableView
import TableDiff
import TableTestSupport
import Testing

/// `TableView.pressKey(_:)` and `selectionFollowsDeletes`, against a model
/// kept by hand: the rows as one list with their places in the content.
@Suite struct TableViewKeyboardTests {
    /// Sections with an optional header title and a height for each row.
    final class Source: TableViewDataSource, TableViewDelegate {
        var sections: [(title: String?, heights: [Double])]
        init(_ sections: [(title: String?, heights: [Double])]) { self.sections = sections }

        func numberOfSections(in tableView: TableView) -> Int { sections.count }
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { sections[section].heights.count }
        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            let cell = try tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            cell.text = "\(indexPath)"
            return cell
        }
        func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? { sections[section].title }
        func tableView(_ tableView: TableView, heightForRowAt indexPath: TablePath) -> Double? { sections[indexPath.section].heights[indexPath.row] }
    }

    /// The rows in order with their spans, computed from the sections alone.
    struct Model {
        var rows: [(path: TablePath, y: Double, height: Double)] = []
        var contentHeight = 0.0
        /// The height of each row's section header: the plain table's
        /// floating header covers that much of the window's top.
        var covered: [Double] = []

        init(_ sections: [(title: String?, heights: [Double])], headerHeight: Double) {
            var y = 0.0
            for (s, section) in sections.enumerated() {
                if section.title != nil { y += headerHeight }
                for (r, h) in section.heights.enumerated() {
                    rows.append((TablePath(row: r, section: s), y, h))
                    covered.append(section.title != nil ? headerHeight : 0)
                    y += h
                }
            }
            contentHeight = y
        }

        /// The position of the row holding `y`, or of the first row starting below it.
        func position(atOrAfter y: Double) -> Int? {
            rows.firstIndex { $0.y + $0.height > y }
        }

        /// The selected position after a key, from `from` (nil: no selection).
        func press(_ key: TableView.SelectionKey, from: Int?, viewport: Double) -> Int? {
            guard !rows.isEmpty else { return nil }
            let last = rows.count - 1
            guard let from else { return key == .end ? last : 0 }
            let (y, h) = (rows[from].y, rows[from].height)
            let page = max(h, viewport - h)
            switch key {
            case .upArrow: return max(0, from - 1)
            case .downArrow: return min(last, from + 1)
            case .home: return 0
            case .end: return last
            case .pageDown:
                let target = y + page
                let found = target < contentHeight ? position(atOrAfter: target) ?? last : last
                return found > from ? found : min(last, from + 1)
            case .pageUp:
                let target = y - page
                let found = target <= 0 ? 0 : position(atOrAfter: target) ?? 0
                return found < from ? found : max(0, from - 1)
            }
        }

        /// The offset after scrolling row `p` into view from `offset`, below
        /// its section's floating header.
        func scrolled(to p: Int, from offset: Double, viewport: Double) -> Double {
            let (y, h) = (rows[p].y, rows[p].height)
            var target = offset
            let covered = covered[p] + h <= viewport ? covered[p] : 0
            if y < offset + covered { target = y - covered } else if y + h > offset + viewport { target = y + h - viewport }
            return max(0, min(max(0, target), contentHeight - viewport))
        }
    }

    static func randomSections(_ random: inout SeededGenerator) -> [(title: String?, heights: [Double])] {
        (0..<random.int(0...5)).map { s in
            let count = random.chance(0.25) ? 0 : random.int(1...12)
            return (random.chance(0.5) ? "S\(s)" : nil, (0..<count).map { _ in random.chance(0.8) ? 1 : Double(random.int(1...4)) })
        }
    }

    @Test(arguments: Array(1...40) as [UInt64])
    func keysMoveTheSelectionAsTheModelSays(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let sections = Self.randomSections(&random)
        let headerHeight = Double(random.int(0...2))
        let viewport = Double(random.int(1...8))
        let source = Source(sections)
        let table = TableView(viewportHeight: viewport)
        table.sectionHeaderHeight = headerHeight
        table.sectionFooterHeight = 0
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        table.dataSource = source
        table.delegate = source
        try table.reloadData()
        let model = Model(sections, headerHeight: headerHeight)
        var selected: Int?
        var offset = 0.0
        for step in 0..<60 {
            let key = TableView.SelectionKey.allCases[random.int(0..<TableView.SelectionKey.allCases.count)]
            let got = try table.pressKey(key)
            selected = model.press(key, from: selected, viewport: viewport)
            if let selected { offset = model.scrolled(to: selected, from: offset, viewport: viewport) }
            let context = "seed \(seed), step \(step), \(key), sections \(sections.map { ($0.title ?? "-", $0.heights) }), header \(headerHeight), viewport \(viewport)"
            let expected = selected.map { model.rows[$0].path }
            expectEqual(got, expected, "\(context)")
            expectEqual(table.indexPathsForSelectedRows, (expected.map { [$0] } ?? []), "\(context)")
            expectEqual(table.contentOffset, offset, "\(context)")
            if let expected {
                expectEqual(table.cellForRow(at: expected)?.isSelected, true, "\(context)")
            }
        }
    }

    @Test func aTableWithoutRowsOrSelectionDoesNothing() throws {
        let source = Source([("A", []), (nil, [])])
        let table = TableView(viewportHeight: 5)
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        table.dataSource = source
        try table.reloadData()
        for key in TableView.SelectionKey.allCases { #expect(try table.pressKey(key) == nil) }
        source.sections = [(nil, [1, 1])]
        try table.reloadData()
        table.allowsSelection = false
        #expect(try table.pressKey(.downArrow) == nil)
        #expect(table.indexPathForSelectedRow == nil)
    }

    @Test func multipleSelectionBecomesTheOneRow() throws {
        let source = Source([(nil, [1, 1, 1, 1])])
        let table = TableView(viewportHeight: 5)
        table.allowsMultipleSelection = true
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        table.dataSource = source
        table.delegate = source
        try table.reloadData()
        try table.selectRow(at: TablePath(row: 1, section: 0))
        try table.selectRow(at: TablePath(row: 3, section: 0))
        try expectEqual(table.pressKey(.downArrow), TablePath(row: 2, section: 0))
        expectEqual(table.indexPathsForSelectedRows, [TablePath(row: 2, section: 0)])
        expectEqual(table.cellForRow(at: TablePath(row: 3, section: 0))?.isSelected, false)
    }

    /// Every table of up to three sections of up to two rows, every selected
    /// row deleted alone, with its section when it empties it (as a binding
    /// does) and without (the section stays, empty): the selection goes to
    /// the row at the deleted one's position in the order of rows, or the
    /// last; with the setting off it is gone; a reloaded row is deselected.
    @Test func deletingTheSelectedRowSelectsTheRowTakingItsPlace() throws {
        var cases = 0
        // Every list of 0 to 3 sections of 0, 1 or 2 rows.
        var shapes: [[Int]] = [[]]
        for _ in 1...3 {
            let longest = shapes.filter { $0.count == shapes.last?.count }
            for shape in longest {
                for rows in 0...2 { shapes.append(shape + [rows]) }
            }
        }
        for counts in shapes {
            let total = counts.reduce(0, +)
            for position in 0..<total {
                var section = 0, row = position
                while row >= counts[section] {
                    row -= counts[section]
                    section += 1
                }
                let path = TablePath(row: row, section: section)
                for (follows, deletesSection) in [(true, false), (true, true), (false, false)] {
                    let deletesSection = deletesSection && counts[section] == 1
                    let source = Source(counts.enumerated().map { ("S\($0.offset)", Array(repeating: 1, count: $0.element)) })
                    let table = TableView(viewportHeight: 4)
                    table.selectionFollowsDeletes = follows
                    try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
                    table.dataSource = source
                    table.delegate = source
                    try table.reloadData()
                    try table.selectRow(at: path)
                    try table.performBatchUpdates {
                        if deletesSection {
                            source.sections.remove(at: section)
                            try table.deleteSections([section])
                        } else {
                            source.sections[section].heights.removeLast()
                            try table.deleteRows(at: [path])
                        }
                    }
                    let after = source.sections.map(\.heights.count)
                    var expected: TablePath?
                    if follows {
                        var p = position
                        for (s, count) in after.enumerated() where expected == nil {
                            if p < count { expected = TablePath(row: p, section: s) } else { p -= count }
                        }
                        if expected == nil, let s = after.lastIndex(where: { $0 > 0 }) { expected = TablePath(row: after[s] - 1, section: s) }
                    }
                    expectEqual(table.indexPathForSelectedRow, expected, "\(counts), delete \(path)\(deletesSection ? " and its section" : ""), follows \(follows)")
                    if let expected, let cell = table.cellForRow(at: expected) { #expect(cell.isSelected) }
                    cases += 1
                }
            }
        }
        #expect(cases > 300)

        // A reloaded row is deselected, and another row deleted leaves the selection on its row.
        let source = Source([(nil, [1, 1, 1])])
        let table = TableView(viewportHeight: 4)
        table.selectionFollowsDeletes = true
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        table.dataSource = source
        try table.reloadData()
        try table.selectRow(at: TablePath(row: 2, section: 0))
        try table.performBatchUpdates {
            source.sections[0].heights.removeFirst()
            try table.deleteRows(at: [TablePath(row: 0, section: 0)])
        }
        expectEqual(table.indexPathForSelectedRow, TablePath(row: 1, section: 0))
        try table.reloadRows(at: [TablePath(row: 1, section: 0)])
        #expect(table.indexPathForSelectedRow == nil)
    }
}
