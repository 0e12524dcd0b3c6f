import TableDiff
import Foundation

/// Why a table view refused something, in UIKit's words where UIKit has them.
/// The table is left as it was.
public enum TableViewError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A batch update that does not add up, or names what does not exist —
    /// UIKit's exact message (`BatchUpdateError`).
    case inconsistentUpdate(BatchUpdateError)
    /// `dequeueReusableCell(withIdentifier:for:)` with nothing registered.
    case unregisteredIdentifier(String)
    /// A second dequeue for the row whose cell is being made.
    case multipleDequeues(TablePath)
    /// The data source returned no cell.
    case noCell(TablePath)
    /// An empty reuse identifier.
    case emptyReuseIdentifier
    /// An index path outside the table.
    case invalidIndexPath(TablePath, sectionCount: Int, rowCount: Int?)
    /// The table has no data source.
    case noDataSource
    /// The data source reported a negative number of sections or rows.
    case negativeCount(section: Int?, count: Int)
    /// The data source reported more sections or rows than ``TableView/maximumRowCount``.
    case tooManyRows(section: Int?, count: Int)
    /// The table was asked to change while it was asking its data source for
    /// a cell (from `cellForRowAt`).
    case busy
    /// `apply(_:_:)` inside a batch: its stages are batches of their own.
    case applyInsideBatch
    /// A user move outside editing mode.
    case notEditing
    /// Editing a row the data source says cannot be edited (or moved).
    case notEditable(TablePath)
    case notMovable(TablePath)
    /// ``TableView/moveRowByUser(from:to:)`` inside a batch update: a user's
    /// move is a batch of its own.
    case userMoveInsideBatch
    /// A geometry input that is NaN, infinite or negative: the viewport's
    /// height, an offset, a height setting, a height the delegate gives, or a
    /// cell's (or its template's) preferred height.
    case invalidGeometry(TableGeometryError)
    /// A template that cannot be read, or is not an archive of its view type.
    case unreadableTemplate(String)
    /// A swipe action call the table cannot follow: a row off screen, no
    /// swiped row, no such action, or an action still being performed.
    case invalidSwipeAction(SwipeActionError)

    public var description: String {
        switch self {
        case .inconsistentUpdate(let error):
            return error.description
        case .unregisteredIdentifier(let identifier):
            return "unable to dequeue a cell with identifier \(identifier) - must register a nib or a class for the identifier or connect a prototype cell in a storyboard"
        case .multipleDequeues:
            return "Attempted to dequeue multiple cells for the same index path, which is not allowed."
        case .noCell(let path):
            return "dataSource returned a nil cell for row at index path: \(path)"
        case .emptyReuseIdentifier:
            return "must pass a valid reuse identifier to register(_:forCellReuseIdentifier:)"
        case let .invalidIndexPath(path, sectionCount, rowCount):
            if let rowCount {
                return "invalid index path \(path): section \(path.section) has \(rowCount) row\(rowCount == 1 ? "" : "s")"
            }
            return "invalid index path \(path): the table has \(sectionCount) section\(sectionCount == 1 ? "" : "s")"
        case .noDataSource:
            return "the table view has no data source"
        case let .tooManyRows(section, count):
            return section.map { "the data source reported \(count) rows in section \($0); a section may have at most \(TableView.maximumRowCount)" }
                ?? "the data source reported \(count) sections; a table may have at most \(TableView.maximumRowCount)"
        case .busy:
            return "the table cannot change while it is asking its data source for a cell"
        case .applyInsideBatch:
            return "apply(_:_:) runs each stage as a batch of its own: call it outside performBatchUpdates"
        case .notEditing:
            return "rows can be moved by the user only in editing mode"
        case let .negativeCount(section, count):
            return section.map { "the data source reported \(count) rows in section \($0)" } ?? "the data source reported \(count) sections"
        case .notEditable(let path):
            return "the row at \(path) cannot be edited (the data source's canEditRowAt says no)"
        case .notMovable(let path):
            return "the row at \(path) cannot be moved (the data source's canMoveRowAt says no)"
        case .userMoveInsideBatch:
            return "a row cannot be moved by the user inside a batch update (performBatchUpdates): the move is a batch of its own"
        case .invalidGeometry(let error):
            return error.description
        case .unreadableTemplate(let reason):
            return "unreadable template: \(reason)"
        case .invalidSwipeAction(let error):
            return error.description
        }
    }
}
