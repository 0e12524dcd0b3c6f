import TableDiff

/// Every consistency error UIKit reports for a batch update, with a batch that
/// gets it and UIKit's exact words: shared by the diff's tests and the table's.
public enum BatchUpdateErrorCases {
    public struct Case: Sendable, CustomStringConvertible {
        public var before: [Int]
        public var after: [Int]
        public var update: BatchUpdate
        public var message: String
        public var description: String { message }
    }

    static func p(_ section: Int, _ row: Int) -> TablePath { TablePath(row: row, section: section) }

    public static let all: [Case] = [
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

}
