import Foundation
import HeadlessTableView
import TableDiff
import TableTestSupport

/// A cell that counts its reuses and remembers the row it was made for.
final class ItemCell: TableViewCell {
    var prepared = 0
    override func prepareForReuse() {
        super.prepareForReuse()
        prepared += 1
        text = nil
    }
}

/// A data source and delegate over a test table: each cell shows its item
/// (`id'content`). Heights per item id when given; every cell request is logged
/// with whether its row was in the window.
final class ItemSource: TableViewDataSource, TableViewDelegate {
    var sections: Table
    var identifier = "item"
    /// Row heights by item id (the delegate's); nil: the table's.
    var heights: [Int: Double]?
    /// Header and footer heights by section (the delegate's); nil: the table's.
    var headerHeights: [Double]?
    var footerHeights: [Double]?
    /// Cells the delegate was asked for, and those asked for outside the window.
    var requested: [TablePath] = []
    var requestedOutsideWindow: [TablePath] = []
    /// Dequeue twice for this row (to test the error).
    var dequeueTwiceFor: TablePath?
    var returnNilFor: TablePath?
    /// The section index: its titles, each naming section `index * indexStride`.
    var indexTitles: [String]?
    var indexStride = 1

    init(_ sections: Table) { self.sections = sections }

    func numberOfSections(in tableView: TableView) -> Int { sections.count }
    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { sections[section].rows.count }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
        requested.append(indexPath)
        if let span = tableView.rectForRow(at: indexPath),
            !(span.y < tableView.contentOffset + tableView.viewportHeight && span.maxY > tableView.contentOffset)
        {
            requestedOutsideWindow.append(indexPath)
        }
        let cell = try tableView.dequeueReusableCell(withIdentifier: identifier, for: indexPath)
        if indexPath == returnNilFor { return nil }   // after a dequeue: the table must take the cell back
        if indexPath == dequeueTwiceFor { _ = try tableView.dequeueReusableCell(withIdentifier: identifier, for: indexPath) }
        cell.text = sections[indexPath.section].rows[indexPath.row].description
        return cell
    }

    func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? {
        sections[section].name.isEmpty ? nil : sections[section].name
    }

    func tableView(_ tableView: TableView, heightForRowAt indexPath: TablePath) -> Double? {
        heights.map { $0[sections[indexPath.section].rows[indexPath.row].id] ?? 10 }
    }

    func sectionIndexTitles(for tableView: TableView) -> [String]? { indexTitles }
    func tableView(_ tableView: TableView, sectionForSectionIndexTitle title: String, at index: Int) -> Int { index * indexStride }

    func tableView(_ tableView: TableView, heightForHeaderInSection section: Int) -> Double? { headerHeights?[section] }
    func tableView(_ tableView: TableView, heightForFooterInSection section: Int) -> Double? { footerHeights?[section] }
}

extension TableView {
    /// What the window's cells show, by row.
    var shownTexts: [TablePath: String] {
        Dictionary(uniqueKeysWithValues: indexPathsForVisibleRows.compactMap { p in cellForRow(at: p).map { (p, $0.text ?? "") } })
    }
}

/// The rows of a table whose spans meet `[y0, y1)`, by brute force over the
/// spans of everything, top to bottom.
struct BruteForceLayout {
    var rows: [(path: TablePath, y: Double, height: Double)] = []
    var sections: [(y: Double, header: Double, footer: Double, height: Double)] = []
    var contentHeight = 0.0

    init(rowHeights: [[Double]], headers: [Double], footers: [Double]) {
        var y = 0.0
        for (s, heights) in rowHeights.enumerated() {
            let top = y
            y += headers[s]
            for (r, h) in heights.enumerated() {
                rows.append((TablePath(row: r, section: s), y, h))
                y += h
            }
            y += footers[s]
            sections.append((top, headers[s], footers[s], y - top))
        }
        contentHeight = y
    }

    func row(at y: Double) -> TablePath? { rows.first { $0.height > 0 && $0.y <= y && y < $0.y + $0.height }?.path }
    func window(_ y0: Double, _ y1: Double) -> [TablePath] { rows.filter { $0.height > 0 && $0.y < y1 && $0.y + $0.height > y0 }.map(\.path) }
}
