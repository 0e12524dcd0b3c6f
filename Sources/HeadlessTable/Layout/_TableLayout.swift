import InternalTableUtilities

/// Where everything of a table is, top to bottom: for each section its header,
/// its rows and its footer, with a Fenwick tree over the sections' heights.
///
/// The section at an offset, and a row's place, cost O(log *s*) plus the
/// section's own `_HeightList` lookup; a row's height changing costs the same
/// plus one tree update. A batch update makes a new layout from the old one's
/// sections (`TableView.updatedLayout`), rebuilding the sections' tree, O(*s*).
struct _TableLayout {
    struct Section {
        var header: Double
        var rows: _HeightList
        var footer: Double

        var height: Double { header + rows.total + footer }
    }

    private(set) var sections: [Section] = []
    var heights = _Fenwick<Double>([])

    init(_ sections: [Section] = []) {
        self.sections = sections
        rebuild()
    }

    private mutating func rebuild() {
        heights = _Fenwick(sections.map(\.height))
    }

    var contentHeight: Double { heights.total }
    var sectionCount: Int { sections.count }
    func rowCount(in section: Int) -> Int { sections[section].rows.count }

    // MARK: Where things are

    /// The top of a section (its header's top).
    func top(ofSection s: Int) -> Double { heights.prefix(s) }

    /// A section: its top and its height (header, rows and footer).
    func span(ofSection s: Int) -> (y: Double, height: Double) { (top(ofSection: s), sections[s].height) }

    func span(ofHeader s: Int) -> (y: Double, height: Double) { (top(ofSection: s), sections[s].header) }

    func span(ofFooter s: Int) -> (y: Double, height: Double) {
        (top(ofSection: s) + sections[s].header + sections[s].rows.total, sections[s].footer)
    }

    func span(ofRow path: TablePath) -> (y: Double, height: Double) {
        let section = sections[path.section]
        return (top(ofSection: path.section) + section.header + section.rows.offset(of: path.row), section.rows.height(at: path.row))
    }

    /// The row whose span holds `y`; nil in a header, a footer, or outside the content.
    func row(at y: Double) -> TablePath? {
        guard y >= 0, y < contentHeight else { return nil }
        let (s, remainder) = heights.find(y)
        guard s < sections.count else { return nil }
        let inRows = remainder - sections[s].header
        guard inRows >= 0, let r = sections[s].rows.index(atOffset: inRows) else { return nil }
        return TablePath(row: r, section: s)
    }

    /// The rows whose spans meet `[y0, y1)` (rows of no height never do), in order.
    ///
    /// - Complexity: O(log *n*) per row returned, plus the sections crossed.
    func rows(from y0: Double, to y1: Double) -> [TablePath] {
        guard y1 > y0, !sections.isEmpty, y0 < contentHeight else { return [] }
        var (s, remainder) = heights.find(Swift.max(0, y0))
        var result: [TablePath] = []
        var sectionTop = Swift.max(0, y0) - remainder
        while s < sections.count, sectionTop < y1 {
            let section = sections[s]
            let rowsTop = sectionTop + section.header
            var r = section.rows.index(atOffset: Swift.max(0, y0 - rowsTop)) ?? section.rows.count
            if y0 < rowsTop { r = 0 }
            var top = rowsTop + section.rows.offset(of: r)
            while r < section.rows.count, top < y1 {
                let h = section.rows.height(at: r)
                if h > 0 && top + h > y0 { result.append(TablePath(row: r, section: s)) }
                top += h
                r += 1
            }
            sectionTop += section.height
            s += 1
        }
        return result
    }

    /// The sections whose spans meet `[y0, y1)`.
    func sections(from y0: Double, to y1: Double) -> Range<Int> {
        guard y1 > y0, !sections.isEmpty, y0 < contentHeight else { return 0..<0 }
        let first = Swift.min(heights.find(Swift.max(0, y0)).index, sections.count - 1)
        var last = first
        var top = top(ofSection: first)
        while last < sections.count, top < y1 {
            top += sections[last].height
            last += 1
        }
        return first..<last
    }

    // MARK: Changing

    mutating func setHeight(_ height: Double, ofRow path: TablePath) {
        let old = sections[path.section].rows.height(at: path.row)
        guard old != height else { return }
        sections[path.section].rows.setHeight(height, at: path.row)
        heights.add(height - old, at: path.section)
    }
}
