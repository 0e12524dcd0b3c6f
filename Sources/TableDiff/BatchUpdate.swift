/// One batch of changes to a table, as UIKit's `performBatchUpdates` takes it.
///
/// The coordinates are UIKit's:
/// - deletes and reloads name rows and sections by their index **before** the batch;
/// - inserts name them by their index **after** the batch;
/// - a move names its source before and its destination after the batch.
///
/// A reload is a delete plus an insert of the same row, so a row cannot be both
/// reloaded and moved, or reloaded and deleted, in one batch. Row changes inside
/// a section that is itself inserted, deleted or reloaded are ignored.
///
/// Build one with the UIKit-named mutating methods, or take it from a
/// ``TableChangeset``'s stages, and check it against the table's counts with
/// ``validate(rowCountsBefore:rowCountsAfter:)``:
///
/// ```swift
/// var update = BatchUpdate()
/// update.deleteRows(at: [TablePath(row: 3, section: 0)])
/// update.insertRows(at: [TablePath(row: 0, section: 1)])
/// let mapping = try update.validate(rowCountsBefore: [5, 2], rowCountsAfter: [4, 3])
/// ```
public struct BatchUpdate: Hashable, Sendable, Codable {
    /// Sections deleted, by their index before the batch.
    public var deletedSections: [Int]
    /// Sections inserted, by their index after the batch.
    public var insertedSections: [Int]
    /// Sections moved, from their index before to their index after the batch.
    public var movedSections: [Move<Int>]
    /// Sections reloaded, by their index before the batch.
    public var reloadedSections: [Int]
    /// Rows deleted, by their path before the batch.
    public var deletedRows: [TablePath]
    /// Rows inserted, by their path after the batch.
    public var insertedRows: [TablePath]
    /// Rows moved, from their path before to their path after the batch.
    public var movedRows: [Move<TablePath>]
    /// Rows reloaded, by their path before the batch.
    public var reloadedRows: [TablePath]

    /// Creates a batch from its changes; everything defaults to none.
    public init(
        deletedSections: [Int] = [],
        insertedSections: [Int] = [],
        movedSections: [Move<Int>] = [],
        reloadedSections: [Int] = [],
        deletedRows: [TablePath] = [],
        insertedRows: [TablePath] = [],
        movedRows: [Move<TablePath>] = [],
        reloadedRows: [TablePath] = []
    ) {
        self.deletedSections = deletedSections
        self.insertedSections = insertedSections
        self.movedSections = movedSections
        self.reloadedSections = reloadedSections
        self.deletedRows = deletedRows
        self.insertedRows = insertedRows
        self.movedRows = movedRows
        self.reloadedRows = reloadedRows
    }

    /// Whether the batch changes nothing.
    public var isEmpty: Bool { changeCount == 0 }

    /// The number of changes in the batch: every section and row deleted,
    /// inserted, moved or reloaded counts one.
    public var changeCount: Int {
        deletedSections.count + insertedSections.count + movedSections.count + reloadedSections.count
            + deletedRows.count + insertedRows.count + movedRows.count + reloadedRows.count
    }

    // MARK: UIKit's names

    /// Deletes sections, named by their index before the batch.
    public mutating func deleteSections(_ sections: some Sequence<Int>) {
        deletedSections.append(contentsOf: sections)
    }

    /// Inserts sections, named by their index after the batch.
    public mutating func insertSections(_ sections: some Sequence<Int>) {
        insertedSections.append(contentsOf: sections)
    }

    /// Moves a section from its index before to its index after the batch.
    public mutating func moveSection(_ section: Int, toSection newSection: Int) {
        movedSections.append(Move(from: section, to: newSection))
    }

    /// Reloads sections, named by their index before the batch.
    public mutating func reloadSections(_ sections: some Sequence<Int>) {
        reloadedSections.append(contentsOf: sections)
    }

    /// Deletes rows, named by their path before the batch.
    public mutating func deleteRows(at paths: some Sequence<TablePath>) {
        deletedRows.append(contentsOf: paths)
    }

    /// Inserts rows, named by their path after the batch.
    public mutating func insertRows(at paths: some Sequence<TablePath>) {
        insertedRows.append(contentsOf: paths)
    }

    /// Moves a row from its path before to its path after the batch.
    public mutating func moveRow(at path: TablePath, to newPath: TablePath) {
        movedRows.append(Move(from: path, to: newPath))
    }

    /// Reloads rows, named by their path before the batch.
    public mutating func reloadRows(at paths: some Sequence<TablePath>) {
        reloadedRows.append(contentsOf: paths)
    }

    /// Adds every change of `other` to this batch, as if its calls had been made
    /// inside this batch (UIKit's nested `beginUpdates`/`endUpdates`).
    public mutating func merge(_ other: BatchUpdate) {
        deletedSections += other.deletedSections
        insertedSections += other.insertedSections
        movedSections += other.movedSections
        reloadedSections += other.reloadedSections
        deletedRows += other.deletedRows
        insertedRows += other.insertedRows
        movedRows += other.movedRows
        reloadedRows += other.reloadedRows
    }
}
