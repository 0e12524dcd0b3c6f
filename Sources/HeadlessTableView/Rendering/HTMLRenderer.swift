import TableDiff
/// A renderer that draws a table as HTML for a web page: the first frame as
/// markup, and every later change — a batch, a scroll, a selection — as a
/// short list of DOM operations (``HTMLOperation``), not a repaint.
///
/// ```swift
/// let renderer = try HTMLRenderer(rowIdentifier: { path in controller.object(at: path).id.description })
/// renderer.onOutput = { output in
///     switch output {
///     case .html(let html): page.show(html)                          // the whole table
///     case .operations(let patch): page.send(try JSONEncoder().encode(patch))   // HTMLRenderer.script applies it
///     }
/// }
/// table.renderer = renderer
/// ```
///
/// **The markup.** A frame is a `div.ht-table` holding, one element a line:
/// the search field (an `<input type="search">`) and the scope buttons when
/// the table has them; the grid, `role="grid"` with `aria-rowcount` (every
/// row of every section) and `data-scroll-top`, holding a spacer, the
/// window's headers (`role="heading"`), rows and footers, and a second
/// spacer; and the section index. A row is `role="row"` with its
/// `aria-rowindex` (its place among all the rows, from 1), `data-id` (its
/// object's identity, from ``rowIdentifier``), `data-key` and
/// `aria-selected`, its text and detail text each a `role="gridcell"`. Every
/// text from the data is escaped (``HTMLText``): a value holding `<script>`
/// or `"` shows as text. The same frame always gives the same bytes.
///
/// **The window, and recycled rows.** Only the elements meeting the window
/// are in the page; the spacers stand for everything above and below, so
/// the grid scrolls as the whole table would. When rows leave the window and
/// others enter it, the nodes of the rows that left are given to the rows
/// that entered (``HTMLOperation/replace(key:html:)``, then moved), as the
/// reuse pool recycles cells: the page holds the window's rows and never a
/// node per row of the table.
///
/// **Pixels.** The table's points become CSS pixels at ``pixelsPerPoint``.
/// Browsers cannot lay out an element of any height (Chromium stops near
/// 33 million pixels, Firefox near 18 million), so a table taller than
/// ``maximumContentHeight`` scrolls on a scaled track: the grid's scroll
/// range is the content's scaled down, the window's rows keep their own
/// heights, and ``contentOffset(forScrollTop:)`` turns a page's scroll
/// position back into the table's offset.
///
/// **Patches.** The renderer keeps what it last displayed (the page's state,
/// as it holds it) and compares the next frame with it, element by element
/// by key: elements gone are removed or recycled, new ones inserted or
/// given a recycled node, changed ones replaced in place, and the rest moved
/// only as needed (those on a longest run in order stay). The batch a table
/// applied (``display(_:from:to:)``) needs no other treatment: its rows carry
/// their identities. A patch applied to the HTML of the frame displayed
/// before gives exactly the HTML of the frame after.
///
/// - Complexity: a frame or a patch costs O(*w* log *w*) for a window of *w*
///   elements (plus the identities asked for), whatever the table's size.
public final class HTMLRenderer: TableRenderer {
    /// What one display gives: a whole table, or the changes to the one shown.
    public enum Output: Hashable, Sendable {
        /// The table's whole markup: the first display, or the first after ``reset()``.
        case html(String)
        /// The operations that turn the table shown into the new one, in order.
        case operations([HTMLOperation])
    }

    /// The CSS pixels of one of the table's points: 1 for a table laid out in
    /// points, as UIKit's; more for a table laid out in lines of text.
    public let pixelsPerPoint: Double
    /// The tallest the grid's scroll range grows, in CSS pixels; a taller
    /// table scrolls on a scaled track (see the type's discussion).
    public let maximumContentHeight: Double
    /// A row's object's identity, for its `data-id` and its key; nil (or a
    /// nil answer) for the row's place, `section.row`. Asked, when a frame is
    /// displayed, of the rows of that frame, in the data as it is then.
    public var rowIdentifier: ((TablePath) -> String?)?
    /// The grid's accessible name (`aria-label`); nil for none.
    public var label: String?

    /// Called with each display's output (never with an empty patch).
    public var onOutput: ((Output) -> Void)?
    /// The last display's output.
    public private(set) var lastOutput: Output?

    /// The most CSS pixels a point may be.
    public static let maximumPixelsPerPoint = 10_000.0

    /// What the renderer last displayed: the page's state, as it holds it.
    private var shown: _HTMLDocument?

    /// A renderer of `pixelsPerPoint` CSS pixels a point, whose grid scrolls
    /// at most `maximumContentHeight` pixels, naming rows by `rowIdentifier`.
    ///
    /// - Throws: ``HTMLRendererError`` for a `pixelsPerPoint` that is not a
    ///   number in (0, ``maximumPixelsPerPoint``], or a `maximumContentHeight`
    ///   that is not a positive number.
    public init(
        pixelsPerPoint: Double = 1, maximumContentHeight: Double = 15_000_000, rowIdentifier: ((TablePath) -> String?)? = nil
    ) throws(HTMLRendererError) {
        guard pixelsPerPoint.isFinite, pixelsPerPoint > 0, pixelsPerPoint <= Self.maximumPixelsPerPoint else {
            throw .pixelsPerPointOutOfRange(pixelsPerPoint)
        }
        guard maximumContentHeight.isFinite, maximumContentHeight > 0 else { throw .maximumContentHeightNotPositive(maximumContentHeight) }
        self.pixelsPerPoint = pixelsPerPoint
        self.maximumContentHeight = maximumContentHeight
        self.rowIdentifier = rowIdentifier
    }

    // MARK: TableRenderer

    /// Shows a frame: the whole markup the first time (or after ``reset()``),
    /// else the operations from what is shown, to ``onOutput`` (nothing when
    /// nothing changed).
    ///
    /// - Complexity: O(*w* log *w*) for a window of *w* elements.
    public func display(_ frame: TableFrame) { output(render(frame)) }

    /// Shows a batch: the operations from what is shown to `new` (the rows
    /// carry their identities, so the batch's paths are not needed).
    ///
    /// - Complexity: O(*w* log *w*) for a window of *w* elements.
    public func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame) { output(render(new)) }

    private func output(_ output: Output) {
        if case .operations(let operations) = output, operations.isEmpty { return }
        lastOutput = output
        onOutput?(output)
    }

    // MARK: Rendering

    /// Takes `frame` as shown and returns what the page needs to show it: the
    /// whole markup the first time (or after ``reset()``), otherwise the
    /// operations from what was shown — empty when nothing changed. What
    /// ``display(_:)`` calls; an embedder with a page of its own can call it
    /// instead of setting ``onOutput``.
    ///
    /// - Complexity: O(*w* log *w*) for a window of *w* elements.
    public func render(_ frame: TableFrame) -> Output {
        let new = document(for: frame)
        defer { shown = new }
        guard let old = shown else { return .html(new.html) }
        return .operations(Self.operations(from: old, to: new))
    }

    /// The whole markup of the table shown (the last display's), for a page
    /// that loads now; nil before the first display.
    ///
    /// - Complexity: O(*w*).
    public var html: String? { shown?.html }

    /// Forgets what is shown: the next display gives the whole markup (for a
    /// page that lost the operations, or a new page).
    public func reset() { shown = nil }

    /// The markup of a frame, as the first display of it gives it.
    ///
    /// - Complexity: O(*w*) for a window of *w* elements.
    public func html(for frame: TableFrame) -> String { document(for: frame).html }

    /// The table's offset (its points) that a page's scroll position (the
    /// grid's `scrollTop`, CSS pixels) stands for, on the track of the frame
    /// last displayed (1 pixel is 1 / ``pixelsPerPoint`` point unless the
    /// track is scaled).
    public func contentOffset(forScrollTop scrollTop: Double) -> Double {
        guard scrollTop.isFinite else { return 0 }
        return Swift.max(0, scrollTop) / ((shown?.scale ?? 1) * pixelsPerPoint)
    }

    // MARK: The document

    /// The frame as the page holds it: its parts' markup, its elements by key.
    func document(for frame: TableFrame) -> _HTMLDocument {
        var document = _HTMLDocument(style: frame.style)
        document.label = label
        document.rowCount = frame.numberOfRows > 0 ? frame.numberOfRows : (frame.elements.contains { $0.kind.isRow } ? -1 : 0)
        document.searchField = frame.searchText.map(Self.searchFieldHTML)
        document.scopes = Self.scopesHTML(frame.searchScopeTitles, selected: frame.selectedSearchScopeIndex)
        document.index = Self.indexHTML(frame.sectionIndexTitles)
        let geometry = Geometry(frame, pixelsPerPoint: pixelsPerPoint, maximum: maximumContentHeight)
        document.scale = geometry.scale
        document.scrollTop = geometry.scrollTop
        (document.topSpacer, document.bottomSpacer) = (geometry.top, geometry.bottom)
        var occurrences: [String: Int] = [:]
        document.elements.reserveCapacity(frame.elements.count)
        for element in frame.elements {
            switch element.kind {
            case .row(let path):
                let id = rowIdentifier?(path) ?? "\(path.section).\(path.row)"
                // Two rows of one identity in a window (a data source's
                // mistake) still get keys of their own: `r:ID`, `r2:ID`, …
                let n = occurrences[id, default: 0] + 1
                occurrences[id] = n
                let key = n == 1 ? "r:" + id : "r\(n):" + id
                document.elements.append(.init(key: key, isRow: true, html: rowHTML(element, path: path, key: key, id: id, frame: frame)))
            case .header(let section):
                let key = "h\(section)"
                document.elements.append(.init(key: key, isRow: false, html: supplementaryHTML(element, key: key, isHeader: true)))
            case .footer(let section):
                let key = "f\(section)"
                document.elements.append(.init(key: key, isRow: false, html: supplementaryHTML(element, key: key, isHeader: false)))
            }
        }
        return document
    }

    /// Where the grid scrolls to and how tall its spacers are, in CSS pixels.
    ///
    /// The track: a table of content height *c* and viewport *v* (pixels)
    /// scrolls over *c* when it fits under the maximum *m*, else over
    /// (*c* − *v*) × *s* + *v* = *m*, *s* = (*m* − *v*) / (*c* − *v*): at
    /// offset *o* the grid's scroll position is
    /// *o* × *s*, and the top spacer puts the window's first element where
    /// its content place shows at that position — so the page's position and
    /// the table's offset always agree (with *s* = 1: the element's place).
    struct Geometry {
        var scale = 1.0, scrollTop = 0.0, top = 0.0, bottom = 0.0

        init(_ frame: TableFrame, pixelsPerPoint: Double, maximum: Double) {
            func pixels(_ points: Double) -> Double { points.isFinite ? Swift.min(1e12, Swift.max(-1e12, points * pixelsPerPoint)) : 0 }
            let content = Swift.max(0, pixels(frame.contentHeight)), viewport = Swift.max(0, pixels(frame.viewportHeight))
            let offset = Swift.min(Swift.max(0, pixels(frame.contentOffset)), Swift.max(0, content - viewport))
            // The track of a table taller than the maximum is the maximum.
            if content > maximum { scale = maximum > viewport ? (maximum - viewport) / (content - viewport) : maximum / content }
            let track = content > viewport ? (content - viewport) * scale + viewport : content
            scrollTop = offset * scale
            let placed = frame.elements.filter { !$0.isFloating }
            let first = placed.first.map { pixels($0.span.y) } ?? offset
            let heights = placed.reduce(0) { $0 + Swift.max(0, pixels($1.span.height)) }
            top = Swift.max(0, scrollTop - (offset - first))
            bottom = Swift.max(0, track - top - heights)
            (scale, scrollTop, top, bottom) = (scale, _HTMLNumber.rounded(scrollTop), _HTMLNumber.rounded(top), _HTMLNumber.rounded(bottom))
        }
    }
}

/// An HTML renderer's setting that cannot work.
public enum HTMLRendererError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The pixels per point given: not a number above 0 and at most ``HTMLRenderer/maximumPixelsPerPoint``.
    case pixelsPerPointOutOfRange(Double)
    /// The maximum content height given: not a positive number.
    case maximumContentHeightNotPositive(Double)

    /// What is wrong, and what would do.
    public var description: String {
        switch self {
        case .pixelsPerPointOutOfRange(let value):
            "An HTML renderer's pixels per point must be a number above 0 and at most \(Int(HTMLRenderer.maximumPixelsPerPoint)), not \(value)."
        case .maximumContentHeightNotPositive(let value):
            "An HTML renderer's maximum content height must be a positive number of pixels, not \(value)."
        }
    }
}

extension TableFrame.Element.Kind {
    var isRow: Bool { if case .row = self { true } else { false } }
}
