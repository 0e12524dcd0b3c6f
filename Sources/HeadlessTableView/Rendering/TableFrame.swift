import TableDiff
/// What a table shows at one moment — the headers, rows and footers meeting
/// its window, with their places and content, and the state around them (the
/// section index, a search field, editing) — everything a renderer draws, as
/// a value.
///
/// A ``TableView`` makes one with ``TableView/currentFrame`` and hands it to
/// its ``TableView/renderer``; a test can also build one by hand.
///
/// - Complexity: a frame holds the window's elements only: O(*w*) for a window
///   of *w* rows, whatever the table's size.
public struct TableFrame: Hashable, Sendable {
    /// The distance from the content's top to the window's top.
    public var contentOffset: Double
    /// The window's height.
    public var viewportHeight: Double
    /// The height of everything.
    public var contentHeight: Double
    public var numberOfSections: Int
    /// The rows of every section (a grid's row count for assistive
    /// technology); 0 in a frame built without it.
    public var numberOfRows: Int
    /// The headers, rows and footers meeting the window, top to bottom.
    public var elements: [Element]
    /// The section index shown at the side, if any.
    public var sectionIndexTitles: [String]?
    /// The text of a search field above the rows; nil when there is none.
    public var searchText: String?
    /// Whether rows show their editing controls.
    public var isEditing: Bool
    /// The scope buttons under the search field; nil (or empty) for none.
    public var searchScopeTitles: [String]?
    /// The scope button selected, an index into ``searchScopeTitles``.
    public var selectedSearchScopeIndex: Int
    /// The table's style: how a renderer sets sections apart.
    public var style: TableView.Style
    /// The row showing its swipe actions, if any (a row of the frame): a
    /// renderer draws the actions at the row's edge.
    public var swipedRow: TableView.SwipedRow? = nil

    public init(
        contentOffset: Double = 0, viewportHeight: Double, contentHeight: Double, numberOfSections: Int = 1,
        elements: [Element], sectionIndexTitles: [String]? = nil, searchText: String? = nil, isEditing: Bool = false,
        searchScopeTitles: [String]? = nil, selectedSearchScopeIndex: Int = 0, style: TableView.Style = .plain,
        numberOfRows: Int = 0
    ) {
        self.style = style
        self.numberOfRows = numberOfRows
        self.searchScopeTitles = searchScopeTitles
        self.selectedSearchScopeIndex = selectedSearchScopeIndex
        self.contentOffset = contentOffset
        self.viewportHeight = viewportHeight
        self.contentHeight = contentHeight
        self.numberOfSections = numberOfSections
        self.elements = elements
        self.sectionIndexTitles = sectionIndexTitles
        self.searchText = searchText
        self.isEditing = isEditing
    }

    /// The paths of the rows in the frame, in order.
    public var rows: [TablePath] {
        elements.compactMap { if case .row(let path) = $0.kind { path } else { nil } }
    }

    /// The header pinned at the window's top, if any (a ``TableView/Style/plain``
    /// table's floating header).
    public var floatingHeader: Element? { elements.first { $0.isFloating && $0.kind.isHeader } }
    /// The footer pinned at the window's bottom, if any.
    public var floatingFooter: Element? { elements.last { $0.isFloating && !$0.kind.isHeader } }

    /// A header, a row or a footer, where it is in the content — and, for a
    /// floating header or footer, where it shows.
    public struct Element: Hashable, Sendable {
        public enum Kind: Hashable, Sendable {
            case header(section: Int)
            case row(TablePath)
            case footer(section: Int)

            /// Whether this is a section header.
            public var isHeader: Bool { if case .header = self { true } else { false } }
        }

        public var kind: Kind
        /// Its place in the content (not in the window): for a floating
        /// header or footer, its natural place, where it would be if it scrolled.
        public var span: TableView.VerticalSpan
        /// A header's or footer's title (its view's text, else the data source's).
        public var title: String?
        /// A row's cell.
        public var cell: Cell?
        /// Where a floating header or footer shows, in the content: pinned at
        /// the window's top (a header) or bottom (a footer), or pushed by the
        /// next section; nil for everything at its natural place.
        public var floatingSpan: TableView.VerticalSpan?
        /// A row's place among all the table's rows, counted from 0 across
        /// sections (the rows of the sections before it, plus its row); nil
        /// for a header or a footer, or in a frame built without it.
        public var rowIndex: Int?

        public init(
            kind: Kind, span: TableView.VerticalSpan, title: String? = nil, cell: Cell? = nil, floatingSpan: TableView.VerticalSpan? = nil,
            rowIndex: Int? = nil
        ) {
            self.rowIndex = rowIndex
            self.kind = kind
            self.span = span
            self.title = title
            self.cell = cell
            self.floatingSpan = floatingSpan
        }

        /// Whether the element floats: pinned away from its natural place.
        public var isFloating: Bool { floatingSpan != nil }
        /// Where the element shows: its floating place, else its place in the content.
        public var shownSpan: TableView.VerticalSpan { floatingSpan ?? span }
    }

    /// What a row's cell shows.
    ///
    /// A cell with a ``TableViewCell/contentConfiguration`` shows the
    /// configuration's: its text (transformed) as ``text``, its secondary
    /// text as ``detailText``, its image, and the layout it asks for as
    /// ``style`` (`.value1` for secondary text side by side, `.subtitle` for
    /// secondary text below, else `.default`).
    public struct Cell: Hashable, Sendable {
        public var text: String?
        public var detailText: String?
        /// How the text and the detail text are laid out (the cell's style).
        public var style: TableViewCell.CellStyle
        /// The image before the text, if any.
        public var image: CellImage?
        /// How deep the row is indented, in levels of ``indentationWidth`` points.
        public var indentationLevel: Int
        /// The points of one level of indentation.
        public var indentationWidth: Double
        /// How the text is aligned in its place.
        public var textAlignment: ListContentConfiguration.TextAlignment
        public var accessory: CellAccessory
        /// The cell's own layout (``TableViewCell/textLines()``); nil for the
        /// default one: text, and detail text at the right.
        public var lines: [TextLine]?
        public var isSelected: Bool
        /// The editing control the row shows: `.none` outside editing mode or
        /// for a row that cannot be edited.
        public var editingStyle: TableView.EditingStyle
        /// Whether the row shows a reorder control (editing mode, a movable row).
        public var showsReorderControl: Bool
        /// The row's place in an outline — its level and disclosure state —
        /// for a row of a section shown as one (``TableViewCell/outline``);
        /// nil for any other row.
        public var outline: Outline?

        public init(
            text: String? = nil, detailText: String? = nil, accessory: CellAccessory = .none, lines: [TextLine]? = nil,
            isSelected: Bool = false, editingStyle: TableView.EditingStyle = .none, showsReorderControl: Bool = false,
            style: TableViewCell.CellStyle = .default, image: CellImage? = nil, indentationLevel: Int = 0, indentationWidth: Double = 10,
            textAlignment: ListContentConfiguration.TextAlignment = .natural, outline: Outline? = nil
        ) {
            self.style = style
            self.image = image
            self.indentationLevel = indentationLevel
            self.indentationWidth = indentationWidth
            self.textAlignment = textAlignment
            self.text = text
            self.detailText = detailText
            self.accessory = accessory
            self.lines = lines
            self.isSelected = isSelected
            self.editingStyle = editingStyle
            self.showsReorderControl = showsReorderControl
            self.outline = outline
        }
    }

    /// A row's place in an outline (a section of a diffable data source shown
    /// from a `TableSectionSnapshot`): how deep it is, and whether it is a
    /// parent, expanded or collapsed — what UIKit's list cells show with
    /// their indentation and outline disclosure accessory.
    public struct Outline: Hashable, Sendable, Codable {
        /// Whether a row has children, and shows them.
        public enum Disclosure: String, Hashable, Sendable, Codable {
            /// A row without children: no disclosure control.
            case none
            /// A parent whose children do not show (`▸`).
            case collapsed
            /// A parent whose children show (`▾`).
            case expanded
        }

        /// 0 for a root item, 1 for its children, and so on.
        public var level: Int
        public var disclosure: Disclosure

        public init(level: Int, disclosure: Disclosure) {
            self.level = level
            self.disclosure = disclosure
        }
    }
}

/// A batch a table applied: its changes, in UIKit's coordinates (deletes and
/// reloads before the batch, inserts after, moves from before to after), and
/// the animation the caller asked for each.
public struct TableUpdate: Hashable, Sendable {
    public var batch: BatchUpdate
    /// The animations asked for, by change; a change without one is `.automatic`.
    public var animations: [BatchChange: TableView.RowAnimation]
    /// The rows configured again in place with the batch (paths after it):
    /// edits that keep their cells — a renderer shows them as edits, not moves.
    public var reconfiguredRows: [TablePath]

    public init(batch: BatchUpdate, animations: [BatchChange: TableView.RowAnimation] = [:], reconfiguredRows: [TablePath] = []) {
        self.batch = batch
        self.animations = animations
        self.reconfiguredRows = reconfiguredRows
    }

    /// Every change, in log order (see `BatchUpdate.changes`), then the
    /// reconfigured rows in order.
    public var changes: [BatchChange] { batch.changes + Set(reconfiguredRows).sorted().map(BatchChange.reconfigureRow) }

    public func animation(for change: BatchChange) -> TableView.RowAnimation { animations[change] ?? .automatic }
}

/// What a UI layer implements to draw a table: the table calls it after every
/// change of what it shows.
///
/// ```swift
/// final class TerminalScreen: TableRenderer {
///     func display(_ frame: TableFrame) { draw(frame) }
///     func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame) {
///         animate(update.changes, from: old, to: new)
///     }
/// }
/// table.renderer = TerminalScreen()
/// ```
///
/// A table calls exactly one of the two for each change: `display(_:from:to:)`
/// for a batch update (row and section inserts, deletes, moves and reloads),
/// `display(_:)` for everything else — a reload, a scroll, a new viewport, a
/// selection, editing mode, refreshed cells, the search text. It calls
/// `display(_:)` only when the frame differs from the one it last displayed.
public protocol TableRenderer: AnyObject {
    /// Draws the table as it now is.
    func display(_ frame: TableFrame)
    /// Shows a batch update, from the frame displayed before it to the frame
    /// after it. The default draws the frame after.
    func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame)
}

extension TableRenderer {
    public func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame) { display(new) }
}
