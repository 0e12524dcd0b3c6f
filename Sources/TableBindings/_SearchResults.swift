import FetchedResults
import Foundation
import HeadlessTableView
import PredicateFormat
import Records
import TableDiff

/// The results table's data source: a sorted list of the main controller's
/// row positions (4 bytes a result) and, sectioned, the main sections they
/// fall in as runs. Cells, objects and titles come from the main binding.
final class _SearchResults<R: Record & Codable>: TableViewDataSource {
    /// A main section's results: which section, and where its rows start in `rows`.
    struct Run: Equatable {
        var section: Int
        var start: Int
    }

    /// The main binding (the search holds it; this only reads it).
    unowned let base: FetchedResultsTableBinding<R>
    /// Whether the main table's sections are kept.
    let isSectioned: Bool
    /// Whether a search is on (no sections otherwise).
    var isActive = false
    /// The results: main row positions, in order.
    var rows: [Int32] = []
    /// Sectioned: the main sections with results.
    var runs: [Run] = []

    init(_ base: FetchedResultsTableBinding<R>, sectioned: Bool) {
        self.base = base
        isSectioned = sectioned
    }

    var controller: FetchedResultsController<R> { base.controller }

    /// The runs of `rows` in the main sections.
    ///
    /// - Complexity: O(*s* log *m*) with few sections, O(*m* log *s*) with many.
    func recomputeRuns() {
        runs = []
        guard isSectioned, !rows.isEmpty else { return }
        let starts = controller.sectionStartPositions
        let sections = starts.count - 1
        if sections * 8 < rows.count {
            for section in 0..<sections {
                let lower = Self.lowerBound(rows, Int32(truncatingIfNeeded: starts[section]))
                let upper = Self.lowerBound(rows, Int32(truncatingIfNeeded: starts[section + 1]))
                if lower < upper { runs.append(Run(section: section, start: lower)) }
            }
        } else {
            var current = -1
            for (k, row) in rows.enumerated() {
                let section = Self.upperBound(starts, Int(row)) - 1
                if section != current {
                    runs.append(Run(section: section, start: k))
                    current = section
                }
            }
        }
    }

    static func lowerBound(_ rows: [Int32], _ value: Int32) -> Int {
        var (low, high) = (0, rows.count)
        while low < high {
            let mid = (low + high) / 2
            if rows[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }

    static func upperBound(_ starts: [Int], _ value: Int) -> Int {
        var (low, high) = (0, starts.count)
        while low < high {
            let mid = (low + high) / 2
            if starts[mid] <= value { low = mid + 1 } else { high = mid }
        }
        return low
    }

    // MARK: Paths

    /// The range of `rows` a results section holds; nil for no such section.
    func range(ofSection section: Int) -> Range<Int>? {
        guard isActive else { return nil }
        guard isSectioned else { return section == 0 ? 0..<rows.count : nil }
        guard runs.indices.contains(section) else { return nil }
        return runs[section].start..<(section + 1 < runs.count ? runs[section + 1].start : rows.count)
    }

    /// The main position of a results row; nil outside the results.
    func position(of indexPath: TablePath) -> Int? {
        guard let range = range(ofSection: indexPath.section), indexPath.row >= 0, indexPath.row < range.count else { return nil }
        let position = Int(rows[range.lowerBound + indexPath.row])
        return position < controller.numberOfRows ? position : nil
    }

    func mainIndexPath(for indexPath: TablePath) -> TablePath? {
        position(of: indexPath).map { controller.indexPath(ofPosition: $0) }
    }

    func object(at indexPath: TablePath) throws(FetchError) -> R {
        guard let position = position(of: indexPath), let record = controller.object(atPosition: position) else {
            throw .noObject(at: indexPath, sectionCount: numberOfSections, rowCount: range(ofSection: indexPath.section)?.count)
        }
        return record
    }

    // MARK: Data source

    var numberOfSections: Int { !isActive ? 0 : isSectioned ? runs.count : 1 }

    func numberOfSections(in tableView: TableView) -> Int { numberOfSections }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { range(ofSection: section)?.count ?? 0 }

    func numberOfRowsInSections(in tableView: TableView) -> [Int]? {
        (0..<numberOfSections).map { range(ofSection: $0)?.count ?? 0 }
    }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
        try base.cellProvider(tableView, indexPath, try object(at: indexPath))
    }

    func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? {
        guard isSectioned, runs.indices.contains(section) else { return nil }
        return controller.name(ofSection: runs[section].section)
    }

    func sectionIndexTitles(for tableView: TableView) -> [String]? {
        guard isSectioned, isActive else { return nil }
        if controller.sectionCollation != nil && controller.showsEveryCollationIndexTitle { return controller.sectionIndexTitles }
        var titles: [String] = []
        for run in runs {
            if let name = controller.name(ofSection: run.section), let title = controller.sectionIndexTitle(forSectionName: name),
                !title.isEmpty, title != titles.last
            {
                titles.append(title)
            }
        }
        return titles
    }

    func tableView(_ tableView: TableView, sectionForSectionIndexTitle title: String, at index: Int) -> Int {
        runs.firstIndex { run in controller.name(ofSection: run.section).flatMap { controller.sectionIndexTitle(forSectionName: $0) } == title } ?? 0
    }

    func tableView(_ tableView: TableView, canEditRowAt indexPath: TablePath) -> Bool { base.onDelete != nil }

    func tableView(_ tableView: TableView, commit editingStyle: TableView.EditingStyle, forRowAt indexPath: TablePath) throws {
        guard editingStyle == .delete, let onDelete = base.onDelete else { return }
        try onDelete(try object(at: indexPath))
    }
}

/// The results table's delegate: each row's height (and each section's
/// header and footer height) is the main table's delegate's, asked with the
/// row's index path in the main table.
final class _SearchResultsDelegate<R: Record & Codable>: TableViewDelegate {
    unowned let results: _SearchResults<R>

    init(_ results: _SearchResults<R>) { self.results = results }

    private var main: (table: TableView, delegate: any TableViewDelegate)? {
        guard let table = results.base.tableView, let delegate = table.delegate else { return nil }
        return (table, delegate)
    }

    func tableView(_ tableView: TableView, heightForRowAt indexPath: TablePath) -> Double? {
        guard let main, let path = results.mainIndexPath(for: indexPath) else { return nil }
        return main.delegate.tableView(main.table, heightForRowAt: path)
    }

    func tableView(_ tableView: TableView, estimatedHeightForRowAt indexPath: TablePath) -> Double? {
        guard let main, let path = results.mainIndexPath(for: indexPath) else { return nil }
        return main.delegate.tableView(main.table, estimatedHeightForRowAt: path)
    }

    func tableView(_ tableView: TableView, heightForHeaderInSection section: Int) -> Double? {
        guard let main, results.isSectioned, results.runs.indices.contains(section) else { return nil }
        return main.delegate.tableView(main.table, heightForHeaderInSection: results.runs[section].section)
    }

    func tableView(_ tableView: TableView, heightForFooterInSection section: Int) -> Double? {
        guard let main, results.isSectioned, results.runs.indices.contains(section) else { return nil }
        return main.delegate.tableView(main.table, heightForFooterInSection: results.runs[section].section)
    }
}
