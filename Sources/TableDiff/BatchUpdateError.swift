/// Why UIKit would refuse a batch update: the same checks, with UIKit's words.
///
/// UIKit raises `NSInternalInconsistencyException` for these; HeadlessTable
/// throws instead and leaves the table as it was. ``description`` is UIKit's
/// message (with one space after a sentence), naming index paths as
/// `{section, row}`.
public enum BatchUpdateError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An existing section's row count after the update does not add up.
    case invalidNumberOfRows(section: Int, after: Int, before: Int, inserted: Int, deleted: Int, movedIn: Int, movedOut: Int)
    /// The number of sections after the update does not add up.
    case invalidNumberOfSections(after: Int, before: Int, inserted: Int, deleted: Int)
    /// A row is deleted and reloaded in the same batch.
    case deleteAndReloadRow(TablePath)
    /// A section is deleted and reloaded in the same batch.
    case deleteAndReloadSection(Int)
    /// A row is deleted (or reloaded) and moved in the same batch.
    case deleteAndMoveRow(TablePath)
    /// A section is deleted (or reloaded) and moved, or a row moves out of a
    /// section that is deleted or reloaded, in the same batch.
    case deleteAndMoveSection(Int)
    /// A row is inserted and another moved to the same path in the same batch.
    case insertAndMoveRow(TablePath)
    /// A section is inserted and another moved to the same index, or a row moves
    /// into a section that is inserted or reloaded, in the same batch.
    case insertAndMoveSection(Int)
    /// A deleted (or reloaded) section does not exist before the update.
    case deleteSectionOutOfRange(section: Int, sectionCount: Int)
    /// A deleted (or reloaded) row does not exist before the update.
    case deleteRowOutOfRange(row: Int, section: Int, rowCount: Int)
    /// A deleted (or reloaded) row names a section that does not exist before the update.
    case deleteRowSectionOutOfRange(row: Int, section: Int, sectionCount: Int)
    /// An inserted section does not exist after the update.
    case insertSectionOutOfRange(section: Int, sectionCount: Int)
    /// An inserted row does not exist after the update.
    case insertRowOutOfRange(row: Int, section: Int, rowCount: Int)
    /// An inserted row names a section that does not exist after the update.
    case insertRowSectionOutOfRange(row: Int, section: Int, sectionCount: Int)
    /// A moved section does not exist before the update.
    case moveSectionOutOfRange(section: Int, sectionCount: Int)
    /// A moved section's destination does not exist after the update.
    case moveSectionDestinationOutOfRange(from: Int, to: Int, sectionCount: Int)
    /// A moved row does not exist before the update.
    case moveRowOutOfRange(TablePath, rowCount: Int)
    /// A moved row names a section that does not exist before the update.
    case moveRowSectionOutOfRange(TablePath, sectionCount: Int)
    /// A moved row's destination does not exist after the update.
    case moveRowDestinationOutOfRange(from: TablePath, to: TablePath, rowCount: Int)
    /// A moved row's destination names a section that does not exist after the update.
    case moveRowDestinationSectionOutOfRange(from: TablePath, to: TablePath, sectionCount: Int)
    /// One row is moved to two places.
    case moveRowToBoth(from: TablePath, first: TablePath, second: TablePath)
    /// Two rows are moved to one place.
    case moveBothRows(first: TablePath, second: TablePath, to: TablePath)
    /// One section is moved to two places.
    case moveSectionToBoth(from: Int, first: Int, second: Int)
    /// Two sections are moved to one place.
    case moveBothSections(first: Int, second: Int, to: Int)

    /// UIKit's message for the error.
    public var description: String {
        switch self {
        case let .invalidNumberOfRows(section, after, before, inserted, deleted, movedIn, movedOut):
            return "Invalid update: invalid number of rows in section \(section). The number of rows contained in an existing section after the update (\(after)) must be equal to the number of rows contained in that section before the update (\(before)), plus or minus the number of rows inserted or deleted from that section (\(inserted) inserted, \(deleted) deleted) and plus or minus the number of rows moved into or out of that section (\(movedIn) moved in, \(movedOut) moved out)."
        case let .invalidNumberOfSections(after, before, inserted, deleted):
            return "Invalid update: invalid number of sections. The number of sections contained in the table view after the update (\(after)) must be equal to the number of sections contained in the table view before the update (\(before)), plus or minus the number of sections inserted or deleted (\(inserted) inserted, \(deleted) deleted)."
        case let .deleteAndReloadRow(path):
            return "attempt to delete and reload the same index path (\(path))"
        case let .deleteAndReloadSection(section):
            return "attempt to delete and reload the same section (\(section))"
        case let .deleteAndMoveRow(path):
            return "attempt to perform a delete and a move from the same index path (\(path))"
        case let .deleteAndMoveSection(section):
            return "attempt to perform a delete and a move from the same section (\(section))"
        case let .insertAndMoveRow(path):
            return "attempt to perform an insert and a move to the same index path (\(path))"
        case let .insertAndMoveSection(section):
            return "attempt to perform an insert and a move to the same section (\(section))"
        case let .deleteSectionOutOfRange(section, count):
            return "attempt to delete section \(section), but there are only \(count) sections before the update"
        case let .deleteRowOutOfRange(row, section, count):
            return "attempt to delete row \(row) from section \(section) which only contains \(count) rows before the update"
        case let .deleteRowSectionOutOfRange(row, section, count):
            return "attempt to delete row \(row) from section \(section), but there are only \(count) sections before the update"
        case let .insertSectionOutOfRange(section, count):
            return "attempt to insert section \(section) but there are only \(count) sections after the update"
        case let .insertRowOutOfRange(row, section, count):
            return "attempt to insert row \(row) into section \(section), but there are only \(count) rows in section \(section) after the update"
        case let .insertRowSectionOutOfRange(row, section, count):
            return "attempt to insert row \(row) into section \(section), but there are only \(count) sections after the update"
        case let .moveSectionOutOfRange(section, count):
            return "attempt to move section \(section), but there are only \(count) sections before the update"
        case let .moveSectionDestinationOutOfRange(from, to, count):
            return "attempt to move section \(from) to section \(to), but there are only \(count) sections after the update"
        case let .moveRowOutOfRange(path, count):
            return "attempt to move index path (\(path)) that does not exist - there are only \(count) rows in section \(path.section) before the update"
        case let .moveRowSectionOutOfRange(path, count):
            return "attempt to move index path (\(path)) that does not exist - there are only \(count) sections before the update"
        case let .moveRowDestinationOutOfRange(from, to, count):
            return "attempt to move index path (\(from)) to index path (\(to)) that does not exist - there are only \(count) rows in section \(to.section) after the update"
        case let .moveRowDestinationSectionOutOfRange(from, to, count):
            return "attempt to move index path (\(from)) to index path (\(to)) that does not exist - there are only \(count) sections after the update"
        case let .moveRowToBoth(from, first, second):
            return "attempt to move row at index path \(from) to both \(first) and \(second)"
        case let .moveBothRows(first, second, to):
            return "attempt to move both row at index path \(first) and \(second) to \(to)"
        case let .moveSectionToBoth(from, first, second):
            return "attempt to move section \(from) to both \(first) and \(second)"
        case let .moveBothSections(first, second, to):
            return "attempt to move both section \(first) and \(second) to \(to)"
        }
    }
}
