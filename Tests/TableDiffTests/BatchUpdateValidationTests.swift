import TableDiff
import TableTestSupport
import Testing

/// Every consistency error, with UIKit's exact words.
@Suite struct BatchUpdateValidationTests {
    typealias Case = BatchUpdateErrorCases.Case
    static let cases = BatchUpdateErrorCases.all
    static func p(_ section: Int, _ row: Int) -> TablePath { TablePath(row: row, section: section) }

    @Test(arguments: cases)
    func refusedWithUIKitsMessage(_ c: Case) {
        expectThrows(BatchUpdateError.self) {
            try c.update.validate(rowCountsBefore: c.before, rowCountsAfter: c.after)
        }
        do {
            _ = try c.update.validate(rowCountsBefore: c.before, rowCountsAfter: c.after)
        } catch {
            expectEqual(error.description, c.message)
        }
        // The independent oracle refuses it too.
        let displayed: Table = c.before.enumerated().map { s, n in TableSection(name: "\(s)", rows: (0..<n).map { Item(id: s * 100 + $0) }) }
        let data: Table = c.after.enumerated().map { s, n in TableSection(name: "\(s)", rows: (0..<n).map { Item(id: 1000 + s * 100 + $0) }) }
        if case .success = UIKitOracle.replay(c.update, displayed: displayed, data: data) {
            Issue.record("the oracle accepts: \(c.message)")
        }
    }

    /// Row changes inside inserted, deleted and reloaded sections are ignored.
    @Test func rowChangesInsideReplacedSectionsAreIgnored() throws {
        let displayed = table([("A", [1, 2]), ("B", [3]), ("C", [4, 5])])
        let data = table([("A", [1, 2]), ("N", [9]), ("C", [4, 5])])
        var update = BatchUpdate(deletedSections: [1], insertedSections: [1])
        update.deleteRows(at: [TablePath(row: 0, section: 1)])        // in the deleted section
        update.insertRows(at: [TablePath(row: 0, section: 1)])        // in the inserted section
        let shown = try update.applying(to: displayed, dataSource: data)
        expectEqual(shown, data)
        // A reloaded section takes its rows from the data source, whatever row changes name it.
        var reload = BatchUpdate(reloadedSections: [2])
        reload.deleteRows(at: [TablePath(row: 1, section: 2)])
        let reloadedData = table([("A", [1, 2]), ("B", [3]), ("C", [6, 7, 8])])
        try expectEqual(reload.applying(to: displayed, dataSource: reloadedData), reloadedData)
    }

    /// UIKit's documentation example: C F H K → A H C K by delete F, insert A, move H.
    @Test func sectionsFillTheirPlacesInOrder() throws {
        let displayed = table([("C", []), ("F", []), ("H", []), ("K", [])])
        let data = table([("A", []), ("H", []), ("C", []), ("K", [])])
        let update = BatchUpdate(deletedSections: [1], insertedSections: [0], movedSections: [Move(from: 2, to: 1)])
        try expectEqual(update.applying(to: displayed, dataSource: data).map(\.name), ["A", "H", "C", "K"])
        let mapping = try update.validate(rowCountsBefore: [0, 0, 0, 0], rowCountsAfter: [0, 0, 0, 0])
        expectEqual((0..<4).map { mapping.newSection(forOld: $0) }, [2, nil, 1, 3])
        expectEqual((0..<4).map { mapping.oldSection(forNew: $0) }, [nil, 2, 0, 3])
    }

    /// A move keeps the cell: content is refreshed only by a reload.
    @Test func movedRowsKeepTheirContentReloadedRowsTakeTheNewOne() throws {
        let displayed = [TableSection(name: "", rows: [Item(id: 1), Item(id: 2), Item(id: 3)])]
        let data = [TableSection(name: "", rows: [Item(id: 3, content: 1), Item(id: 1, content: 1), Item(id: 2, content: 1)])]
        let update = BatchUpdate(movedRows: [Move(from: TablePath(row: 2, section: 0), to: TablePath(row: 0, section: 0))],
                                 reloadedRows: [TablePath(row: 0, section: 0)])
        let shown = try update.applying(to: displayed, dataSource: data)
        expectEqual(shown[0].rows, [Item(id: 3, content: 0), Item(id: 1, content: 1), Item(id: 2, content: 0)])
    }
}
