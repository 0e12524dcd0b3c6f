/// One change to a page that shows a table, as ``HTMLRenderer`` makes them:
/// a patch is a list of these, applied in order, that turns the HTML of the
/// frame displayed before into the HTML of the frame after.
///
/// The elements between the grid's two spacers — rows, section headers and
/// footers — each carry a `data-key` attribute: a row's is made from its
/// object's identity (`data-id`), a header's and a footer's from their
/// section. The element operations name them by that key:
///
/// - ``remove(key:)`` takes an element out;
/// - ``insert(html:before:)`` puts a new element's markup before the element
///   with a key (before the bottom spacer when the key is nil);
/// - ``move(key:before:)`` moves an element the same way;
/// - ``replace(key:html:)`` gives an element new attributes and content —
///   its key among them — *in the same node*: how a row that left the window
///   is recycled for a row that entered it, as the reuse pool recycles cells.
///
/// The others set the parts around the elements: ``setSpacers(top:bottom:)``
/// the heights (CSS pixels) of the spacers that stand for the rows outside
/// the window, ``setGrid(rowCount:scrollTop:)`` the grid's `aria-rowcount` and
/// `data-scroll-top`, ``setSearchField(html:)``, ``setScopes(html:)`` and
/// ``setIndex(html:)`` the search field, the scope buttons and the section
/// index (each added, replaced, or removed when nil), and ``reset(html:)``
/// the whole table at once — only when the table's style changed.
///
/// Every markup an operation carries comes from the renderer, with every
/// text of the data escaped (``HTMLText``). As JSON (`Codable`), each
/// operation is an object named by `op`:
///
/// ```json
/// {"op":"replace","key":"r:17","html":"<div class=\"ht-row\" …>…</div>"}
/// {"op":"move","key":"r:41"}
/// {"op":"spacers","top":1176,"bottom":23998824}
/// ```
///
/// ``HTMLRenderer/script`` applies them to a page's DOM.
public enum HTMLOperation: Hashable, Sendable, Codable {
    /// Removes the element with this key.
    case remove(key: String)
    /// Inserts an element (its whole markup) before the element with the key
    /// `before`, or at the end of the elements (before the bottom spacer) when it is nil.
    case insert(html: String, before: String?)
    /// Moves the element with this key before the element with the key
    /// `before`, or to the end of the elements when it is nil.
    case move(key: String, before: String?)
    /// The element with this key takes the attributes and the content of
    /// `html` (one element's markup), staying the same node: its key becomes
    /// the one in `html`.
    case replace(key: String, html: String)
    /// The heights, in CSS pixels, of the spacer above the elements and the
    /// one below them.
    case setSpacers(top: Double, bottom: Double)
    /// The grid's `aria-rowcount` (every row of every section) and
    /// `data-scroll-top`, where the page scrolls the grid to, in CSS pixels.
    case setGrid(rowCount: Int, scrollTop: Double)
    /// The search field: this markup (an `<input type="search">`) in place of
    /// the one shown — a page keeps the text a person is typing — or at the
    /// table's top; nil removes it.
    case setSearchField(html: String?)
    /// The scope buttons under the search field, replaced; nil removes them.
    case setScopes(html: String?)
    /// The section index after the grid, replaced; nil removes it.
    case setIndex(html: String?)
    /// The whole table, replaced.
    case reset(html: String)

    private enum CodingKeys: String, CodingKey { case op, key, html, before, top, bottom, rowCount, scrollTop }

    /// The `op` names, as the JSON spells them.
    private enum Name: String, Codable {
        case remove, insert, move, replace, spacers, grid, search, scopes, index, reset
    }

    /// Decodes an operation from its JSON object (named by `op`).
    ///
    /// - Throws: `DecodingError` for an unknown `op` or a missing field.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Name.self, forKey: .op) {
        case .remove: self = .remove(key: try container.decode(String.self, forKey: .key))
        case .insert: self = .insert(html: try container.decode(String.self, forKey: .html), before: try container.decodeIfPresent(String.self, forKey: .before))
        case .move: self = .move(key: try container.decode(String.self, forKey: .key), before: try container.decodeIfPresent(String.self, forKey: .before))
        case .replace: self = .replace(key: try container.decode(String.self, forKey: .key), html: try container.decode(String.self, forKey: .html))
        case .spacers: self = .setSpacers(top: try container.decode(Double.self, forKey: .top), bottom: try container.decode(Double.self, forKey: .bottom))
        case .grid: self = .setGrid(rowCount: try container.decode(Int.self, forKey: .rowCount), scrollTop: try container.decode(Double.self, forKey: .scrollTop))
        case .search: self = .setSearchField(html: try container.decodeIfPresent(String.self, forKey: .html))
        case .scopes: self = .setScopes(html: try container.decodeIfPresent(String.self, forKey: .html))
        case .index: self = .setIndex(html: try container.decodeIfPresent(String.self, forKey: .html))
        case .reset: self = .reset(html: try container.decode(String.self, forKey: .html))
        }
    }

    /// Encodes the operation as an object named by `op`, with its fields
    /// (a nil `before` or `html` left out).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .remove(let key):
            try container.encode(Name.remove, forKey: .op)
            try container.encode(key, forKey: .key)
        case .insert(let html, let before):
            try container.encode(Name.insert, forKey: .op)
            try container.encode(html, forKey: .html)
            try container.encodeIfPresent(before, forKey: .before)
        case .move(let key, let before):
            try container.encode(Name.move, forKey: .op)
            try container.encode(key, forKey: .key)
            try container.encodeIfPresent(before, forKey: .before)
        case .replace(let key, let html):
            try container.encode(Name.replace, forKey: .op)
            try container.encode(key, forKey: .key)
            try container.encode(html, forKey: .html)
        case .setSpacers(let top, let bottom):
            try container.encode(Name.spacers, forKey: .op)
            try container.encode(top, forKey: .top)
            try container.encode(bottom, forKey: .bottom)
        case .setGrid(let rowCount, let scrollTop):
            try container.encode(Name.grid, forKey: .op)
            try container.encode(rowCount, forKey: .rowCount)
            try container.encode(scrollTop, forKey: .scrollTop)
        case .setSearchField(let html):
            try container.encode(Name.search, forKey: .op)
            try container.encodeIfPresent(html, forKey: .html)
        case .setScopes(let html):
            try container.encode(Name.scopes, forKey: .op)
            try container.encodeIfPresent(html, forKey: .html)
        case .setIndex(let html):
            try container.encode(Name.index, forKey: .op)
            try container.encodeIfPresent(html, forKey: .html)
        case .reset(let html):
            try container.encode(Name.reset, forKey: .op)
            try container.encode(html, forKey: .html)
        }
    }
}
