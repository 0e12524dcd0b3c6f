import TableDiff
import InternalTableUtilities

/// Where everything of a table is, top to bottom: for each section its header,
/// its rows and its footer, with a Fenwick tree over the sections' heights and
/// one over their row counts (a row's place among all the table's rows).
///
/// The section at an offset, and a row's place, cost O(log *s*) plus the
/// section's own `_HeightList` lookup; a row's height changing costs the same
/// plus one tree update. The sections are kept in chunks of `chunkSize`, so
/// that a copy of the layout (the one a batch update keeps to roll back to)
/// shares them, and changing a section copies only its chunk. A batch that
/// keeps the sections changes only the sections whose rows it names, and the
/// tree by their deltas (`apply(_:counts:_:)`, in `_TableLayout+Batch.swift`).
struct _TableLayout {
    struct Section {
        var header: Double
        var rows: _HeightList
        var footer: Double

        var height: Double { header + rows.total + footer }
    }

    /// The sections, `chunkSize` to a chunk: every chunk full but the last, none empty.
    private(set) var chunks: [[Section]] = []
    private(set) var sectionCount = 0
    var heights = _Fenwick<Double>([])
    /// The sections' row counts: the rows before a section in O(log *s*).
    private(set) var rowCounts = _Fenwick<Int>([])

    static let chunkShift = 6
    static let chunkSize = 1 << chunkShift

    init(_ sections: [Section] = []) {
        replaceSections(sections)
    }

    /// Lays out these sections instead, rebuilding the tree. O(*s*).
    mutating func replaceSections(_ sections: [Section]) {
        chunks = stride(from: 0, to: sections.count, by: Self.chunkSize).map {
            Array(sections[$0..<Swift.min($0 + Self.chunkSize, sections.count)])
        }
        sectionCount = sections.count
        heights = _Fenwick(sections.map(\.height))
        rowCounts = _Fenwick(sections.map(\.rows.count))
    }

    /// The sections, as one collection (each a read from its chunk).
    var sections: Sections { Sections(chunks: chunks, count: sectionCount) }

    struct Sections: RandomAccessCollection {
        let chunks: [[Section]]
        let count: Int
        var startIndex: Int { 0 }
        var endIndex: Int { count }
        subscript(s: Int) -> Section { chunks[s >> _TableLayout.chunkShift][s & (_TableLayout.chunkSize - 1)] }
    }

    subscript(section s: Int) -> Section { chunks[s >> Self.chunkShift][s & (Self.chunkSize - 1)] }

    /// Changes section `s` in place (only its chunk is copied when the layout
    /// is shared), and the trees by its height's and its row count's deltas.
    mutating func modifySection<T>(_ s: Int, _ body: (inout Section) throws -> T) rethrows -> T {
        let (c, i) = (s >> Self.chunkShift, s & (Self.chunkSize - 1))
        let before = chunks[c][i].height, countBefore = chunks[c][i].rows.count
        defer {
            let after = chunks[c][i].height, countAfter = chunks[c][i].rows.count
            if after != before { heights.add(after - before, at: s) }
            if countAfter != countBefore { rowCounts.add(countAfter - countBefore, at: s) }
        }
        return try body(&chunks[c][i])
    }

    var contentHeight: Double { heights.total }
    func rowCount(in section: Int) -> Int { self[section: section].rows.count }
    /// The rows of every section.
    var numberOfRows: Int { rowCounts.total }
    /// The rows of the sections before `s`: a row's place among all the
    /// table's rows is this plus its row. O(log *s*).
    func rowsBefore(section s: Int) -> Int { rowCounts.prefix(s) }

    // MARK: Where things are

    /// The top of a section (its header's top).
    func top(ofSection s: Int) -> Double { heights.prefix(s) }

    /// A section: its top and its height (header, rows and footer).
    func span(ofSection s: Int) -> (y: Double, height: Double) { (top(ofSection: s), self[section: s].height) }

    func span(ofHeader s: Int) -> (y: Double, height: Double) { (top(ofSection: s), self[section: s].header) }

    func span(ofFooter s: Int) -> (y: Double, height: Double) {
        let section = self[section: s]
        return (top(ofSection: s) + section.header + section.rows.total, section.footer)
    }

    func span(ofRow path: TablePath) -> (y: Double, height: Double) {
        let section = self[section: path.section]
        return (top(ofSection: path.section) + section.header + section.rows.offset(of: path.row), section.rows.height(at: path.row))
    }

    /// The row whose span holds `y`; nil in a header, a footer, or outside the content.
    func row(at y: Double) -> TablePath? {
        guard y >= 0, y < contentHeight else { return nil }
        let (s, remainder) = heights.find(y)
        guard s < sectionCount else { return nil }
        let section = self[section: s]
        let inRows = remainder - section.header
        guard inRows >= 0, let r = section.rows.index(atOffset: inRows) else { return nil }
        return TablePath(row: r, section: s)
    }

    /// The rows whose spans meet `[y0, y1)` (rows of no height never do), in order.
    ///
    /// - Complexity: O(log *n*) per row returned, plus the sections crossed.
    func rows(from y0: Double, to y1: Double) -> [TablePath] {
        guard y1 > y0, sectionCount > 0, y0 < contentHeight else { return [] }
        var (s, remainder) = heights.find(Swift.max(0, y0))
        var result: [TablePath] = []
        var sectionTop = Swift.max(0, y0) - remainder
        while s < sectionCount, sectionTop < y1 {
            let section = self[section: s]
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
        guard y1 > y0, sectionCount > 0, y0 < contentHeight else { return 0..<0 }
        let first = Swift.min(heights.find(Swift.max(0, y0)).index, sectionCount - 1)
        var last = first
        var top = top(ofSection: first)
        while last < sectionCount, top < y1 {
            top += self[section: last].height
            last += 1
        }
        return first..<last
    }

    // MARK: Changing

    mutating func setHeight(_ height: Double, ofRow path: TablePath) {
        let old = self[section: path.section].rows.height(at: path.row)
        guard old != height else { return }
        let (c, i) = (path.section >> Self.chunkShift, path.section & (Self.chunkSize - 1))
        chunks[c][i].rows.setHeight(height, at: path.row)
        heights.add(height - old, at: path.section)
    }
}
