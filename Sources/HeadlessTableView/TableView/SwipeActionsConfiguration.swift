import TableDiff

/// An action a row shows when the user swipes it — UIKit's
/// `UIContextualAction`: a title, a style, and a handler that performs it.
///
/// ```swift
/// let archive = ContextualAction(style: .normal, title: "Archive") { _, completion in
///     mail.archive(message)
///     completion(true)                  // done: the row closes
/// }
/// let delete = ContextualAction(style: .destructive, title: "Delete") { _, completion in
///     confirm("Delete?") { confirmed in // later is fine
///         if confirmed { mail.delete(message) }   // the model's update deletes the row
///         completion(confirmed)         // false: the row stays open
///     }
/// }
/// return SwipeActionsConfiguration(actions: [delete, archive])
/// ```
///
/// The handler is called once each time the user performs the action
/// (``TableView/performSwipeAction(at:)``, or a full swipe); it calls
/// `completion` once — at once or later, on the table's isolation — with
/// whether the action was performed. Until it does, the row's other actions
/// cannot be performed. An action belongs to the table's isolation (it is
/// not `Sendable`), as the table does.
public final class ContextualAction {
    /// How an action looks: UIKit's `UIContextualAction.Style`.
    public enum Style: String, Hashable, Sendable, CaseIterable {
        /// An ordinary action (UIKit draws it grey, or in its background colour).
        case normal
        /// An action that removes the row's object (UIKit draws it red).
        case destructive
    }

    /// Performs the action: `action` is the action itself; call `completion`
    /// once with `true` when the action was performed (the row closes) or
    /// `false` when it was not (the row stays open).
    public typealias Handler = (_ action: ContextualAction, _ completion: @escaping (Bool) -> Void) -> Void

    /// The action's style, given when it was made.
    public let style: Style
    /// The title of the action's button; nil for none (UIKit would show its image).
    public var title: String?
    /// What performing the action does.
    public let handler: Handler
    /// Whether this is the table's own Delete action (see
    /// ``TableViewDelegate/tableView(_:trailingSwipeActionsConfigurationForRowAt:)``):
    /// performing it commits the delete through the data source.
    let commitsDelete: Bool

    /// An action of a style, with a title and a handler — UIKit's
    /// `init(style:title:handler:)`.
    public init(style: Style, title: String?, handler: @escaping Handler) {
        self.style = style
        self.title = title
        self.handler = handler
        commitsDelete = false
    }

    /// The table's Delete action, which commits `.delete` through the data source.
    init(deleteTitled title: String) {
        style = .destructive
        self.title = title
        handler = { _, completion in completion(true) }
        commitsDelete = true
    }
}

/// The actions a row shows at one edge when the user swipes it — UIKit's
/// `UISwipeActionsConfiguration`, which the delegate gives for a row
/// (``TableViewDelegate/tableView(_:leadingSwipeActionsConfigurationForRowAt:)``
/// and ``TableViewDelegate/tableView(_:trailingSwipeActionsConfigurationForRowAt:)``).
///
/// The first action sits at the row's edge — the rightmost for the trailing
/// edge, the leftmost for the leading one — and is the one a full swipe
/// performs. A configuration without actions turns the edge's swipe off.
public struct SwipeActionsConfiguration {
    /// The actions, the first at the row's edge.
    public var actions: [ContextualAction]
    /// Whether a full swipe performs the first action (default true, as UIKit).
    /// Off, a full swipe only opens the actions.
    public var performsFirstActionWithFullSwipe = true

    /// A configuration of these actions, the first at the row's edge.
    public init(actions: [ContextualAction]) {
        self.actions = actions
    }
}

/// Why the table refused a swipe action call — the table is left as it was.
/// A ``TableViewError/invalidSwipeAction(_:)`` carries it.
public enum SwipeActionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A row outside the table's window: a user swipes rows on screen.
    case rowNotVisible(TablePath)
    /// No row shows its swipe actions.
    case noSwipedRow
    /// No action at this index among the swiped row's.
    case noSuchAction(index: Int, count: Int, row: TablePath)
    /// An action of the swiped row is being performed: its handler has not
    /// called its completion yet.
    case actionInProgress(index: Int, row: TablePath)

    public var description: String {
        switch self {
        case .rowNotVisible(let path):
            "the row at \(path) is not in the table's window: only rows on screen can be swiped"
        case .noSwipedRow:
            "no row shows its swipe actions"
        case let .noSuchAction(index, count, row):
            "no swipe action at index \(index): the row at \(row) shows \(count) action\(count == 1 ? "" : "s")"
        case let .actionInProgress(index, row):
            "the swipe action at index \(index) of the row at \(row) has not called its completion handler yet"
        }
    }
}
