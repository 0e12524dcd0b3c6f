import TableDiff
import Foundation

/// A view a table reuses: a cell, or a section header or footer view.
///
/// Its reuse identifier is fixed when it is made. When the table takes it from
/// the reuse queue, it gets ``prepareForReuse()`` first; whoever dequeues it then
/// sets all its content.
///
/// Reusable views are `Codable`, so that a prototype can be archived once and
/// every new view decoded from the archive (``ViewTemplate``), as nib and
/// storyboard prototypes are. A subclass's own stored properties are archived
/// when they are marked ``Archived`` (or when the subclass overrides
/// `init(from:)` and `encode(to:)`, as a UIKit cell overrides `init(coder:)`);
/// other properties — closures, delegates, caches — start at their initial
/// values in every view made from a template, as outlets and actions are
/// connected again for every view loaded from a nib.
open class TableReusableView: Codable {
    /// The identifier the view is registered and dequeued under.
    public let reuseIdentifier: String?

    public required init(reuseIdentifier: String?) {
        self.reuseIdentifier = reuseIdentifier
    }

    /// Called just before the view is handed out again from the reuse queue.
    /// Reset state that does not belong to the next row here; the data source
    /// sets the content.
    open func prepareForReuse() {}

    enum CodingKeys: String, CodingKey { case reuseIdentifier }

    /// Decodes a view. Its reuse identifier is the one it is registered under
    /// (given by the pool), or the archived one.
    public required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let archived = try container.decodeIfPresent(String.self, forKey: .reuseIdentifier)
        reuseIdentifier = decoder.userInfo[.reuseIdentifier] as? String ?? archived
        let archivedProperties = try decoder.container(keyedBy: _ArchiveKey.self)
        for (key, property) in archivedPropertyList { try property.decode(from: archivedProperties, key) }
    }

    open func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(reuseIdentifier, forKey: .reuseIdentifier)
        var archivedProperties = encoder.container(keyedBy: _ArchiveKey.self)
        for (key, property) in archivedPropertyList { try property.encode(to: &archivedProperties, key) }
    }

    /// The ``Archived`` properties of the view's classes, by name.
    private var archivedPropertyList: [(_ArchiveKey, any _ArchivedProperty)] {
        var result: [(_ArchiveKey, any _ArchivedProperty)] = []
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            for child in current.children {
                guard let property = child.value as? any _ArchivedProperty, let label = child.label else { continue }
                // The wrapper's storage is named `_name`.
                result.append((_ArchiveKey(stringValue: label.hasPrefix("_") ? String(label.dropFirst()) : label), property))
            }
            mirror = current.superclassMirror
        }
        return result
    }
}

/// A stored property of a cell (or header or footer view) subclass that
/// templates keep: archived with the prototype, and set in every view made
/// from the template — what Interface Builder keeps for a nib's cell.
///
/// ```swift
/// final class BadgeCell: TableViewCell {
///     @Archived var badge = ""
///     @Archived var badgeColor = 3
///     var onTap: (() -> Void)?        // not archivable: nil in every copy
/// }
/// let prototype = BadgeCell(reuseIdentifier: nil)
/// prototype.badge = "fancy"
/// try table.register(ViewTemplate(prototype), forCellReuseIdentifier: "badge")
/// // every dequeued "badge" cell starts with badge == "fancy"
/// ```
///
/// The property is stored under its name in the archive (so a template file
/// written by hand can set it); an archive without it leaves the initial value.
@propertyWrapper
public struct Archived<Value: Codable> {
    final class Storage {
        var value: Value
        init(_ value: Value) { self.value = value }
    }
    let storage: Storage

    public init(wrappedValue: Value) { storage = Storage(wrappedValue) }

    public var wrappedValue: Value {
        get { storage.value }
        nonmutating set { storage.value = newValue }
    }
}

/// An ``Archived`` property, whatever its type.
protocol _ArchivedProperty {
    func encode(to container: inout KeyedEncodingContainer<_ArchiveKey>, _ key: _ArchiveKey) throws
    func decode(from container: KeyedDecodingContainer<_ArchiveKey>, _ key: _ArchiveKey) throws
}

extension Archived: _ArchivedProperty {
    func encode(to container: inout KeyedEncodingContainer<_ArchiveKey>, _ key: _ArchiveKey) throws {
        try container.encode(storage.value, forKey: key)
    }
    func decode(from container: KeyedDecodingContainer<_ArchiveKey>, _ key: _ArchiveKey) throws {
        if let value = try container.decodeIfPresent(Value.self, forKey: key) { storage.value = value }
    }
}

/// The archive key of an ``Archived`` property: its name.
struct _ArchiveKey: CodingKey {
    let stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    var intValue: Int? { nil }
}

extension CodingUserInfoKey {
    /// The reuse identifier a decoded view takes.
    // (The initializer is failable in name only: any raw value is accepted.)
    public static let reuseIdentifier = CodingUserInfoKey(rawValue: "HeadlessTable.reuseIdentifier")!
}

/// What a cell shows at its trailing edge.
public enum CellAccessory: String, Codable, Hashable, Sendable, CaseIterable {
    case none, disclosureIndicator, detailDisclosureButton, checkmark, detailButton
}

/// A table's cell: a text, a detail text, an image and an accessory in one of
/// UIKit's four cell styles — or a content configuration — plus whatever a
/// subclass adds; the table sets its selection and editing state.
///
/// ```swift
/// let cell = TableViewCell(style: .subtitle, reuseIdentifier: "entry")
/// cell.text = "Fog on the river"
/// cell.detailText = "08:10"
/// cell.image = CellImage(named: "photo", glyph: "▣")
///
/// var content = cell.defaultContentConfiguration()   // or .subtitleCell(), .valueCell()
/// content.text = "Night train"
/// content.secondaryText = "23:02"
/// cell.contentConfiguration = content
/// ```
///
/// A registered class is made with ``init(reuseIdentifier:)``, in the
/// `.default` style; a subclass picks another as a UIKit subclass does:
///
/// ```swift
/// final class EntryCell: TableViewCell {
///     required init(reuseIdentifier: String?) { super.init(style: .subtitle, reuseIdentifier: reuseIdentifier) }
///     required init(from decoder: any Decoder) throws { try super.init(from: decoder) }
/// }
/// ```
open class TableViewCell: TableReusableView {
    /// How a cell lays out its text, detail text and image — UIKit's
    /// `UITableViewCell.CellStyle`.
    public enum CellStyle: String, Codable, Hashable, Sendable, CaseIterable {
        /// The text on the left, after the image. (UIKit's has no detail
        /// label; a detail text set anyway shows at the right, as before
        /// cell styles existed here.)
        case `default`
        /// The text on the left, the detail text on the right, right-aligned
        /// (Settings).
        case value1
        /// The text in a narrow column on the left, right-aligned, and the
        /// detail text after it (Contacts); no image.
        case value2
        /// The text, and the detail text below it.
        case subtitle
    }

    /// The cell's style, given when it is made.
    public let cellStyle: CellStyle
    open var text: String?
    open var detailText: String?
    /// The image before the text (UIKit's `imageView.image`); nil for none.
    open var image: CellImage?
    open var accessory: CellAccessory = .none
    /// How deep the content is indented, in levels of ``indentationWidth``
    /// (UIKit's `indentationLevel`). The delegate's
    /// ``TableViewDelegate/tableView(_:indentationLevelForRowAt:)``, when it
    /// gives one, sets it before the cell shows. A negative level is drawn as 0.
    open var indentationLevel = 0
    /// The points of one level of indentation (default 10, as UIKit).
    open var indentationWidth: Double = 10
    /// The row's place in an outline: its level and disclosure state (nil,
    /// the default, for a row that is not in one). A diffable data source
    /// sets it, with ``indentationLevel``, on the cells of a section shown
    /// from a `TableSectionSnapshot`; the frame carries it
    /// (``TableFrame/Cell/outline``) and ``TextRenderer`` draws `▸`/`▾`.
    open var outline: TableFrame.Outline?
    /// What the cell shows, as a value — UIKit's `contentConfiguration`: when
    /// set, the frame shows its text, secondary text, image and layout in
    /// place of ``text``, ``detailText``, ``image`` and the cell's style.
    /// Nil (the default) for those.
    open var contentConfiguration: ListContentConfiguration?
    /// The height the cell wants when the table's row height is
    /// ``TableView/automaticDimension``; nil for its template's, else the
    /// table's estimate. A finite number ≥ 0: the table refuses anything else
    /// (``TableViewError/invalidGeometry(_:)``) when it measures the cell.
    open var preferredHeight: Double?

    /// The cell's own line layout for a text renderer, in place of the
    /// style's layout: one ``TextLine`` per line, top down. Nil, the default,
    /// for the style's layout.
    ///
    /// ```swift
    /// static let layout: TextLineTemplate = "{title} {date:>12}"
    /// override func textLines() -> [TextLine]? { [Self.layout.line(["title": title, "date": date])] }
    /// ```
    open func textLines() -> [TextLine]? { nil }

    /// A configuration for the cell's style, empty, to fill and set as
    /// ``contentConfiguration``: ``ListContentConfiguration/subtitleCell()``
    /// for `.subtitle`, ``ListContentConfiguration/valueCell()`` for `.value1`
    /// and `.value2`, else ``ListContentConfiguration/cell()``.
    open func defaultContentConfiguration() -> ListContentConfiguration {
        switch cellStyle {
        case .default: .cell()
        case .subtitle: .subtitleCell()
        case .value1, .value2: .valueCell()
        }
    }

    /// Whether the row the cell shows is selected (set by the table).
    public internal(set) var isSelected = false
    /// Whether the table is in editing mode (set by the table).
    public internal(set) var isEditing = false

    /// A cell of the `.default` style — how a table makes cells of a registered class.
    public required init(reuseIdentifier: String?) {
        cellStyle = .default
        super.init(reuseIdentifier: reuseIdentifier)
    }

    /// A cell of a style — UIKit's `init(style:reuseIdentifier:)`.
    public init(style: CellStyle, reuseIdentifier: String?) {
        cellStyle = style
        super.init(reuseIdentifier: reuseIdentifier)
    }

    /// Clears the selection and editing state; the content stays until the data
    /// source sets it.
    open override func prepareForReuse() {
        super.prepareForReuse()
        isSelected = false
        isEditing = false
    }

    enum CellKeys: String, CodingKey {
        case text, detailText, accessory, preferredHeight, style, image, indentationLevel, indentationWidth, contentConfiguration
    }

    public required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CellKeys.self)
        cellStyle = try container.decodeIfPresent(CellStyle.self, forKey: .style) ?? .default
        try super.init(from: decoder)
        text = try container.decodeIfPresent(String.self, forKey: .text)
        detailText = try container.decodeIfPresent(String.self, forKey: .detailText)
        accessory = try container.decodeIfPresent(CellAccessory.self, forKey: .accessory) ?? .none
        preferredHeight = try container.decodeIfPresent(Double.self, forKey: .preferredHeight)
        image = try container.decodeIfPresent(CellImage.self, forKey: .image)
        indentationLevel = try container.decodeIfPresent(Int.self, forKey: .indentationLevel) ?? 0
        indentationWidth = try container.decodeIfPresent(Double.self, forKey: .indentationWidth) ?? 10
        contentConfiguration = try container.decodeIfPresent(ListContentConfiguration.self, forKey: .contentConfiguration)
    }

    open override func encode(to encoder: any Encoder) throws {
        try super.encode(to: encoder)
        var container = encoder.container(keyedBy: CellKeys.self)
        try container.encodeIfPresent(text, forKey: .text)
        try container.encodeIfPresent(detailText, forKey: .detailText)
        if accessory != .none { try container.encode(accessory, forKey: .accessory) }
        try container.encodeIfPresent(preferredHeight, forKey: .preferredHeight)
        if cellStyle != .default { try container.encode(cellStyle, forKey: .style) }
        try container.encodeIfPresent(image, forKey: .image)
        if indentationLevel != 0 { try container.encode(indentationLevel, forKey: .indentationLevel) }
        if indentationWidth != 10 { try container.encode(indentationWidth, forKey: .indentationWidth) }
        try container.encodeIfPresent(contentConfiguration, forKey: .contentConfiguration)
    }
}

/// An image a cell shows before its text: a name (an asset's or a symbol's,
/// for a UI layer to look up) and the glyph a text renderer draws for it.
///
/// ```swift
/// cell.image = CellImage(named: "star.fill", glyph: "★")
/// cell.image = CellImage(glyph: "♪")
/// ```
///
/// ``TextRenderer`` draws the glyph in one column (two for a wide
/// character), then a space; an image without a glyph is drawn as `▪` (`*`
/// in ASCII).
public struct CellImage: Codable, Hashable, Sendable {
    /// The image's name; nil for a glyph alone.
    public var name: String?
    /// What a text renderer draws; nil for its placeholder.
    public var glyph: String?

    /// An image by name, and the glyph a text renderer draws for it.
    public init(named name: String, glyph: String? = nil) {
        self.name = name
        self.glyph = glyph
    }

    /// An image that is a glyph.
    public init(glyph: String) {
        self.name = nil
        self.glyph = glyph
    }
}

/// A section's header or footer view: a text, plus whatever a subclass adds.
open class TableHeaderFooterView: TableReusableView {
    open var text: String?

    public required init(reuseIdentifier: String?) {
        super.init(reuseIdentifier: reuseIdentifier)
    }

    enum ViewKeys: String, CodingKey { case text }

    public required init(from decoder: any Decoder) throws {
        try super.init(from: decoder)
        text = try decoder.container(keyedBy: ViewKeys.self).decodeIfPresent(String.self, forKey: .text)
    }

    open override func encode(to encoder: any Encoder) throws {
        try super.encode(to: encoder)
        var container = encoder.container(keyedBy: ViewKeys.self)
        try container.encodeIfPresent(text, forKey: .text)
    }
}
