import Foundation

/// What a cell shows, as a value — UIKit's `UIListContentConfiguration`,
/// the parts of it that mean something without a screen: a text, a
/// secondary text, an image, how the secondary text sits, and the text
/// properties a renderer can honour.
///
/// ```swift
/// var content = cell.defaultContentConfiguration()   // or ListContentConfiguration.valueCell()
/// content.text = "Wi-Fi"
/// content.secondaryText = "Home"
/// content.image = CellImage(named: "wifi", glyph: "≋")
/// cell.contentConfiguration = content
/// ```
///
/// Set on a cell (``TableViewCell/contentConfiguration``), it is what the
/// table's frame shows for the row, in place of the cell's own text, detail
/// text, image and style: the secondary text beside the text, at the right,
/// when ``prefersSideBySideTextAndSecondaryText`` (``valueCell()``), else
/// below it (``cell()``, ``subtitleCell()``). Fonts, colours and margins have
/// no counterpart: a UI layer that draws the frame picks them.
public struct ListContentConfiguration: Codable, Hashable, Sendable {
    /// How a text is aligned in its place (UIKit's `TextProperties.TextAlignment`).
    public enum TextAlignment: String, Codable, Hashable, Sendable, CaseIterable {
        /// At the leading edge.
        case natural
        /// In the middle of its place.
        case center
        /// As ``natural`` in a text renderer (a line is not spread).
        case justified
    }

    /// How a text is cased before it shows (UIKit's `TextProperties.TextTransform`).
    public enum TextTransform: String, Codable, Hashable, Sendable, CaseIterable {
        /// As it is.
        case none
        /// Each word capitalized.
        case capitalized
        case lowercase
        case uppercase

        /// `text` transformed.
        public func apply(to text: String) -> String {
            switch self {
            case .none: text
            case .capitalized: text.capitalized
            case .lowercase: text.lowercased()
            case .uppercase: text.uppercased()
            }
        }
    }

    /// The properties of a text that a renderer without fonts can honour.
    public struct TextProperties: Codable, Hashable, Sendable {
        /// Where the text sits in its place.
        public var alignment: TextAlignment = .natural
        /// How the text is cased before it shows.
        public var transform: TextTransform = .none

        public init(alignment: TextAlignment = .natural, transform: TextTransform = .none) {
            self.alignment = alignment
            self.transform = transform
        }
    }

    /// The main text (UIKit's `text`).
    public var text: String?
    /// The secondary text: a subtitle, or a value at the trailing edge.
    public var secondaryText: String?
    /// The image before the texts.
    public var image: CellImage?
    /// How ``text`` shows.
    public var textProperties = TextProperties()
    /// How ``secondaryText`` shows.
    public var secondaryTextProperties = TextProperties()
    /// Whether the secondary text sits beside the text, at the trailing edge
    /// (true for ``valueCell()``), or below it.
    public var prefersSideBySideTextAndSecondaryText = false

    /// An empty configuration: the secondary text, if any, below the text.
    public init() {}

    /// A cell's configuration: the secondary text below the text (UIKit's `cell()`).
    public static func cell() -> ListContentConfiguration { ListContentConfiguration() }

    /// The secondary text below the text, as a subtitle (UIKit's `subtitleCell()`).
    public static func subtitleCell() -> ListContentConfiguration { ListContentConfiguration() }

    /// The secondary text beside the text, at the trailing edge (UIKit's `valueCell()`).
    public static func valueCell() -> ListContentConfiguration {
        var content = ListContentConfiguration()
        content.prefersSideBySideTextAndSecondaryText = true
        return content
    }

    /// Shows this in a frame's cell: the texts transformed, the image, and
    /// the layout (`.value1` side by side, `.subtitle` with a secondary
    /// text below, else `.default`).
    func apply(to cell: inout TableFrame.Cell) {
        cell.text = text.map(textProperties.transform.apply)
        cell.detailText = secondaryText.map(secondaryTextProperties.transform.apply)
        cell.image = image
        cell.textAlignment = textProperties.alignment
        cell.style = prefersSideBySideTextAndSecondaryText ? .value1 : (secondaryText == nil ? .default : .subtitle)
    }
}
