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

/// A table's cell: a text, a detail text and an accessory, plus whatever a
/// subclass adds; the table sets its selection and editing state.
///
/// ```swift
/// final class EntryCell: TableViewCell {
///     var date = ""
///     override func prepareForReuse() { super.prepareForReuse(); date = "" }
/// }
/// ```
open class TableViewCell: TableReusableView {
    open var text: String?
    open var detailText: String?
    open var accessory: CellAccessory = .none
    /// The height the cell wants when the table's row height is
    /// ``TableView/automaticDimension``; nil for its template's, else the
    /// table's estimate. A finite number ≥ 0: the table refuses anything else
    /// (``TableViewError/invalidGeometry(_:)``) when it measures the cell.
    open var preferredHeight: Double?

    /// The cell's own line layout for a text renderer, in place of the default
    /// (text, then detail text at the right): one ``TextLine`` per line,
    /// top down. Nil, the default, for the default layout.
    ///
    /// ```swift
    /// static let layout: TextLineTemplate = "{title} {date:>12}"
    /// override func textLines() -> [TextLine]? { [Self.layout.line(["title": title, "date": date])] }
    /// ```
    open func textLines() -> [TextLine]? { nil }

    /// Whether the row the cell shows is selected (set by the table).
    public internal(set) var isSelected = false
    /// Whether the table is in editing mode (set by the table).
    public internal(set) var isEditing = false

    public required init(reuseIdentifier: String?) {
        super.init(reuseIdentifier: reuseIdentifier)
    }

    /// Clears the selection and editing state; the content stays until the data
    /// source sets it.
    open override func prepareForReuse() {
        super.prepareForReuse()
        isSelected = false
        isEditing = false
    }

    enum CellKeys: String, CodingKey { case text, detailText, accessory, preferredHeight }

    public required init(from decoder: any Decoder) throws {
        try super.init(from: decoder)
        let container = try decoder.container(keyedBy: CellKeys.self)
        text = try container.decodeIfPresent(String.self, forKey: .text)
        detailText = try container.decodeIfPresent(String.self, forKey: .detailText)
        accessory = try container.decodeIfPresent(CellAccessory.self, forKey: .accessory) ?? .none
        preferredHeight = try container.decodeIfPresent(Double.self, forKey: .preferredHeight)
    }

    open override func encode(to encoder: any Encoder) throws {
        try super.encode(to: encoder)
        var container = encoder.container(keyedBy: CellKeys.self)
        try container.encodeIfPresent(text, forKey: .text)
        try container.encodeIfPresent(detailText, forKey: .detailText)
        if accessory != .none { try container.encode(accessory, forKey: .accessory) }
        try container.encodeIfPresent(preferredHeight, forKey: .preferredHeight)
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
