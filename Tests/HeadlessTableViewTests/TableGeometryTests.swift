import Foundation
import HeadlessTableView
import TableDiff
import TableTestSupport
import Testing

/// Every geometry input is checked the same way: NaN, infinities and negative
/// numbers are a typed error, and the table is left as it was.
@Suite struct TableGeometryTests {
    // (-1 is automaticDimension for the height settings.)
    static let bad: [Double] = [.nan, .infinity, -.infinity, -2, -0.5, -Double.greatestFiniteMagnitude]

    func expectGeometryError(_ quantity: String, _ value: Double, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try body()
            Issue.record("\(quantity) = \(value) was accepted", sourceLocation: sourceLocation)
        } catch let TableViewError.invalidGeometry(error) {
            expectEqual(error.quantity, quantity, sourceLocation: sourceLocation)
            expectEqual("\(error)", "\(quantity) must be a finite number of points, at least 0, not \(value)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(quantity) = \(value): \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func viewportAndOffsetRefuseBadValues() throws {
        let (table, source) = try TableViewUpdateTests.makeTable(table([("A", Array(0..<100))]), viewport: 200)
        defer { withExtendedLifetime(source) {} }
        try table.setContentOffset(300)
        let before = TableViewRobustnessTests.state(table)
        for value in Self.bad {
            expectGeometryError("the viewport height", value) { try table.setViewportHeight(value) }
            expectGeometryError("the content offset", value) { try table.setContentOffset(value) }
            expectEqual(TableViewRobustnessTests.state(table), before)
            #expect(table.viewportHeight == 200 && table.contentOffset == 300)
        }
        // Zero is a height (an empty window); past the content's end is clamped.
        try table.setViewportHeight(0)
        #expect(table.indexPathsForVisibleRows.isEmpty)
        try table.setViewportHeight(200)
        try table.setContentOffset(1e300)
        expectEqual(table.contentOffset, table.contentHeight - 200)
    }

    @Test func heightSettingsRefuseBadValuesOnReloadAndUpdate() throws {
        let settings: [(String, ReferenceWritableKeyPath<TableView, Double>)] = [
            ("rowHeight", \.rowHeight), ("estimatedRowHeight", \.estimatedRowHeight),
            ("sectionHeaderHeight", \.sectionHeaderHeight), ("sectionFooterHeight", \.sectionFooterHeight),
        ]
        for (name, keyPath) in settings {
            let (table, source) = try TableViewUpdateTests.makeTable(table([("A", Array(0..<100)), ("B", [100])]), viewport: 200)
            let before = TableViewRobustnessTests.state(table)
            let good = table[keyPath: keyPath]
            for value in Self.bad {
                table[keyPath: keyPath] = value
                expectGeometryError(name, value) { try table.reloadData() }
                source.sections = TableTestSupport.table([("A", Array(0..<101)), ("B", [100])])
                expectGeometryError(name, value) {
                    try table.performBatchUpdates { try table.insertRows(at: [TablePath(row: 100, section: 0)]) }
                }
                source.sections = TableTestSupport.table([("A", Array(0..<100)), ("B", [100])])
                expectEqual(TableViewRobustnessTests.state(table), before)
            }
            table[keyPath: keyPath] = TableView.automaticDimension
            try table.reloadData()
            table[keyPath: keyPath] = good
            try table.reloadData()
            expectEqual(TableViewRobustnessTests.state(table), before)
        }
    }

    @Test func theRendererSharesTheRule() {
        for value in Self.bad + [0] {
            expectThrows(TextRendererError.self) { try TextRenderer(pointsPerLine: value) }
        }
        #expect((try? TextRenderer(pointsPerLine: 1e-9)) != nil)
    }
}
