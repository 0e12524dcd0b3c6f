import Testing
import TableDiff
import TableTestSupport

/// Every consistency error, with UIKit's exact words.
@Suite struct BatchUpdateValidationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var before: [Int]
        var after: [Int]
        var update: BatchUpdate
        var message: String
        var testDescription: String { message }
    }

    static func p(_ section: Int, _ row: Int) -> TablePath { TablePath(row: row, section: section) }

    static let cases: [Case] = [
        Case(before: [3], after: [3], update: BatchUpdate(insertedRows: [p(0, 0)]),
             message: "Invalid update: invalid number of rows in section 0. The number of rows contained in an existing section after the update (3) must be equal to the number of rows contained in that section before the update (3), plus or minus the number of rows inserted or deleted from that section (1 inserted, 0 deleted) and plus or minus the number of rows moved into or out of that section (0 moved in, 0 moved out)."),
        Case(before: [2, 2], after: [2, 2], update: BatchUpdate(movedRows: [Move(from: p(0, 0), to: p(1, 0))]),
             message: "Invalid update: invalid number of rows in section 0. The number of rows contained in an existing section after the update (2) must be equal to the number of rows contained in that section before the update (2), plus or minus the number of rows inserted or deleted from that section (0 inserted, 0 deleted) and plus or minus the number of rows moved into or out of that section (0 moved in, 1 moved out)."),
        Case(before: [2], after: [2, 0], update: BatchUpdate(),
             message: "Invalid update: invalid number of sections. The number of sections contained in the table view after the update (2) must be equal to the number of sections contained in the table view before the update (1), plus or minus the number of sections inserted or deleted (0 inserted, 0 deleted)."),
        Case(before: [2], after: [2], update: BatchUpdate(deletedRows: [p(0, 1)], reloadedRows: [p(0, 1)]),
             message: "attempt to delete and reload the same index path ({0, 1})"),
        Case(before: [2, 1], after: [1], update: BatchUpdate(deletedSections: [1], reloadedSections: [1]),
             message: "attempt to delete and reload the same section (1)"),
        Case(before: [2], after: [2], update: BatchUpdate(deletedRows: [p(0, 0)], movedRows: [Move(from: p(0, 0), to: p(0, 1))]),
             message: "attempt to perform a delete and a move from the same index path ({0, 0})"),
        Case(before: [2], after: [2], update: BatchUpdate(movedRows: [Move(from: p(0, 0), to: p(0, 1))], reloadedRows: [p(0, 0)]),
             message: "attempt to perform a delete and a move from the same index path ({0, 0})"),
        Case(before: [1, 1], after: [1], update: BatchUpdate(deletedSections: [0], movedSections: [Move(from: 0, to: 0)]),
             message: "attempt to perform a delete and a move from the same section (0)"),
        Case(before: [1, 1], after: [2], update: BatchUpdate(deletedSections: [0], movedRows: [Move(from: p(0, 0), to: p(0, 0))]),
             message: "attempt to perform a delete and a move from the same section (0)"),
        Case(before: [2], after: [3], update: BatchUpdate(insertedRows: [p(0, 1)], movedRows: [Move(from: p(0, 0), to: p(0, 1))]),
             message: "attempt to perform an insert and a move to the same index path ({0, 1})"),
        Case(before: [1, 1], after: [1, 1, 0], update: BatchUpdate(insertedSections: [0], movedSections: [Move(from: 1, to: 0)]),
             message: "attempt to perform an insert and a move to the same section (0)"),
        Case(before: [2], after: [1, 1], update: BatchUpdate(insertedSections: [1], movedRows: [Move(from: p(0, 0), to: p(1, 0))]),
             message: "attempt to perform an insert and a move to the same section (1)"),
        Case(before: [1], after: [], update: BatchUpdate(deletedSections: [1]),
             message: "attempt to delete section 1, but there are only 1 sections before the update"),
        Case(before: [1], after: [1], update: BatchUpdate(reloadedSections: [3]),
             message: "attempt to delete section 3, but there are only 1 sections before the update"),
        Case(before: [2], after: [1], update: BatchUpdate(deletedRows: [p(0, 5)]),
             message: "attempt to delete row 5 from section 0 which only contains 2 rows before the update"),
        Case(before: [2], after: [2], update: BatchUpdate(reloadedRows: [p(0, 2)]),
             message: "attempt to delete row 2 from section 0 which only contains 2 rows before the update"),
        Case(before: [2], after: [1], update: BatchUpdate(deletedRows: [p(4, 0)]),
             message: "attempt to delete row 0 from section 4, but there are only 1 sections before the update"),
        Case(before: [1], after: [1, 1], update: BatchUpdate(insertedSections: [2]),
             message: "attempt to insert section 2 but there are only 2 sections after the update"),
        Case(before: [1], after: [2], update: BatchUpdate(insertedRows: [p(0, 2)]),
             message: "attempt to insert row 2 into section 0, but there are only 2 rows in section 0 after the update"),
        Case(before: [1], after: [2], update: BatchUpdate(insertedRows: [p(1, 0)]),
             message: "attempt to insert row 0 into section 1, but there are only 1 sections after the update"),
        Case(before: [1, 1], after: [1, 1], update: BatchUpdate(movedSections: [Move(from: 2, to: 0)]),
             message: "attempt to move section 2, but there are only 2 sections before the update"),
        Case(before: [1, 1], after: [1, 1], update: BatchUpdate(movedSections: [Move(from: 0, to: 2)]),
             message: "attempt to move section 0 to section 2, but there are only 2 sections after the update"),
        Case(before: [2], after: [2], update: BatchUpdate(movedRows: [Move(from: p(0, 2), to: p(0, 0))]),
             message: "attempt to move index path ({0, 2}) that does not exist - there are only 2 rows in section 0 before the update"),
        Case(before: [2], after: [2], update: BatchUpdate(movedRows: [Move(from: p(1, 0), to: p(0, 0))]),
             message: "attempt to move index path ({1, 0}) that does not exist - there are only 1 sections before the update"),
        Case(before: [2], after: [2], update: BatchUpdate(movedRows: [Move(from: p(0, 0), to: p(0, 2))]),
             message: "attempt to move index path ({0, 0}) to index path ({0, 2}) that does not exist - there are only 2 rows in section 0 after the update"),
        Case(before: [2], after: [2], update: BatchUpdate(movedRows: [Move(from: p(0, 0), to: p(1, 0))]),
             message: "attempt to move index path ({0, 0}) to index path ({1, 0}) that does not exist - there are only 1 sections after the update"),
        Case(before: [3], after: [3], update: BatchUpdate(movedRows: [Move(from: p(0, 0), to: p(0, 1)), Move(from: p(0, 0), to: p(0, 2))]),
             message: "attempt to move row at index path {0, 0} to both {0, 1} and {0, 2}"),
        Case(before: [3], after: [3], update: BatchUpdate(movedRows: [Move(from: p(0, 0), to: p(0, 2)), Move(from: p(0, 1), to: p(0, 2))]),
             message: "attempt to move both row at index path {0, 0} and {0, 1} to {0, 2}"),
        Case(before: [1, 1, 1], after: [1, 1, 1], update: BatchUpdate(movedSections: [Move(from: 0, to: 1), Move(from: 0, to: 2)]),
             message: "attempt to move section 0 to both 1 and 2"),
        Case(before: [1, 1, 1], after: [1, 1, 1], update: BatchUpdate(movedSections: [Move(from: 0, to: 2), Move(from: 1, to: 2)]),
             message: "attempt to move both section 0 and 1 to 2"),
    ]

    @Test(arguments: cases)
    func refusedWithUIKitsMessage(_ c: Case) {
        #expect(throws: BatchUpdateError.self) {
            try c.update.validate(rowCountsBefore: c.before, rowCountsAfter: c.after)
        }
        do {
            _ = try c.update.validate(rowCountsBefore: c.before, rowCountsAfter: c.after)
        } catch {
            #expect(error.description == c.message)
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
        let shown = try update.apply(to: displayed, dataSource: data)
        #expect(shown == data)
        // A reloaded section takes its rows from the data source, whatever row changes name it.
        var reload = BatchUpdate(reloadedSections: [2])
        reload.deleteRows(at: [TablePath(row: 1, section: 2)])
        let reloadedData = table([("A", [1, 2]), ("B", [3]), ("C", [6, 7, 8])])
        #expect(try reload.apply(to: displayed, dataSource: reloadedData) == reloadedData)
    }

    /// UIKit's documentation example: C F H K → A H C K by delete F, insert A, move H.
    @Test func sectionsFillTheirPlacesInOrder() throws {
        let displayed = table([("C", []), ("F", []), ("H", []), ("K", [])])
        let data = table([("A", []), ("H", []), ("C", []), ("K", [])])
        let update = BatchUpdate(deletedSections: [1], insertedSections: [0], movedSections: [Move(from: 2, to: 1)])
        #expect(try update.apply(to: displayed, dataSource: data).map(\.name) == ["A", "H", "C", "K"])
        let mapping = try update.validate(rowCountsBefore: [0, 0, 0, 0], rowCountsAfter: [0, 0, 0, 0])
        #expect((0..<4).map { mapping.newSection(forOld: $0) } == [2, nil, 1, 3])
        #expect((0..<4).map { mapping.oldSection(forNew: $0) } == [nil, 2, 0, 3])
    }

    /// A move keeps the cell: content is refreshed only by a reload.
    @Test func movedRowsKeepTheirContentReloadedRowsTakeTheNewOne() throws {
        let displayed = [TableSection(name: "", rows: [Item(id: 1), Item(id: 2), Item(id: 3)])]
        let data = [TableSection(name: "", rows: [Item(id: 3, content: 1), Item(id: 1, content: 1), Item(id: 2, content: 1)])]
        let update = BatchUpdate(movedRows: [Move(from: TablePath(row: 2, section: 0), to: TablePath(row: 0, section: 0))],
                                 reloadedRows: [TablePath(row: 0, section: 0)])
        let shown = try update.apply(to: displayed, dataSource: data)
        #expect(shown[0].rows == [Item(id: 3, content: 0), Item(id: 1, content: 1), Item(id: 2, content: 0)])
    }
}
