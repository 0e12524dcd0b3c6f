import TableDiff

/// Told which rows are about to enter the table's window, so that their data
/// can be loaded before their cells are asked for — UIKit's
/// `UITableViewDataSourcePrefetching`, set as ``TableView/prefetchDataSource``.
///
/// ```swift
/// final class Thumbnails: TableViewDataSourcePrefetching {
///     func tableView(_ tableView: TableView, prefetchRowsAt indexPaths: [TablePath]) {
///         for path in indexPaths { loader.start(path) }
///     }
///     func tableView(_ tableView: TableView, cancelPrefetchingForRowsAt indexPaths: [TablePath]) {
///         for path in indexPaths { loader.cancel(path) }
///     }
/// }
/// table.prefetchDataSource = thumbnails   // held weakly
/// ```
///
/// The table announces a row at most once until it is shown or cancelled (see
/// ``TableView/prefetchDistance``). Not every row is announced: the rows of
/// the first window and of the window after a jump are needed at once, and a
/// scroll of more than the prefetch distance in one step reaches rows never
/// announced. `cellForRowAt` must cope with data loaded, in flight, or never
/// asked for.
public protocol TableViewDataSourcePrefetching: AnyObject {
    /// Rows about to enter the window, nearest first: start loading their data.
    func tableView(_ tableView: TableView, prefetchRowsAt indexPaths: [TablePath])
    /// Rows announced before that will not enter the window soon after all
    /// (the scroll reversed or jumped): stop loading them. Default: nothing.
    func tableView(_ tableView: TableView, cancelPrefetchingForRowsAt indexPaths: [TablePath])
}

extension TableViewDataSourcePrefetching {
    public func tableView(_ tableView: TableView, cancelPrefetchingForRowsAt indexPaths: [TablePath]) {}
}

/// What the table has announced to its prefetch data source, and how.
struct _Prefetching {
    /// Rows announced and neither shown nor cancelled since, nearest first.
    var outstanding: [TablePath] = []
    /// Which way the last scroll went: +1 down (the default), -1 up.
    var direction = 1
    var distance = 10
    var isEnabled = true
}

extension TableView {
    /// How many rows beyond the window, in the direction of the scroll, are
    /// announced to the ``prefetchDataSource`` (default 10; 0 announces none).
    /// A scroll of up to this many rows at a time shows only rows announced
    /// before. A negative value is taken as 0.
    public var prefetchDistance: Int {
        get { prefetching.distance }
        set { prefetching.distance = Swift.max(0, newValue) }
    }

    /// Whether the table announces rows to its ``prefetchDataSource`` (UIKit's
    /// `isPrefetchingEnabled`, default true). Turning it off cancels the rows
    /// announced.
    public var isPrefetchingEnabled: Bool {
        get { prefetching.isEnabled }
        set {
            prefetching.isEnabled = newValue
            if !newValue { cancelAllPrefetching() }
        }
    }

    /// The rows announced to the ``prefetchDataSource`` and neither shown nor
    /// cancelled since, nearest the window first.
    public var indexPathsForPrefetchedRows: [TablePath] { prefetching.outstanding }

    /// Cancels every row announced (when the rows' paths stop naming them: a reload).
    func cancelAllPrefetching() {
        let outstanding = prefetching.outstanding
        prefetching.outstanding = []
        guard !outstanding.isEmpty, let prefetchDataSource else { return }
        prefetchDataSource.tableView(self, cancelPrefetchingForRowsAt: outstanding)
    }

    /// After a batch update: the rows announced follow their rows; a deleted
    /// or reloaded row's announcement is dropped without a cancel (its path no
    /// longer names it).
    func followPrefetchedRows(_ mapping: BatchMapping) {
        guard !prefetching.outstanding.isEmpty else { return }
        prefetching.outstanding = prefetching.outstanding.compactMap {
            mapping.isRowReloaded(old: $0) ? nil : mapping.newIndexPath(forOld: $0)
        }
        updatePrefetching(scrolledBy: 0)
    }

    /// After the window moved by `delta` (0: it changed in place): rows now
    /// shown stop being outstanding, rows no longer ahead are cancelled, and
    /// the rows ahead not yet announced are announced, nearest first.
    ///
    /// - Complexity: O(*d* + *w*) for a distance of *d* rows and a window of
    ///   *w* (plus the empty sections stepped over).
    func updatePrefetching(scrolledBy delta: Double) {
        if delta > 0 { prefetching.direction = 1 } else if delta < 0 { prefetching.direction = -1 }
        guard let prefetchDataSource, prefetching.isEnabled else { return cancelAllPrefetching() }
        let shownRows = Set(windowRows)
        let ahead = rowsAhead(of: prefetching.direction, count: prefetching.distance)
        let aheadSet = Set(ahead)
        var cancelled: [TablePath] = []
        var kept: Set<TablePath> = []
        for path in prefetching.outstanding where !shownRows.contains(path) {
            if aheadSet.contains(path) { kept.insert(path) } else { cancelled.append(path) }
        }
        let announced = ahead.filter { !kept.contains($0) }
        prefetching.outstanding = ahead
        if !cancelled.isEmpty { prefetchDataSource.tableView(self, cancelPrefetchingForRowsAt: cancelled) }
        if !announced.isEmpty { prefetchDataSource.tableView(self, prefetchRowsAt: announced) }
    }

    /// The `count` rows after the window's last row (`direction` 1) or before
    /// its first (-1), nearest first, across sections.
    func rowsAhead(of direction: Int, count: Int) -> [TablePath] {
        guard count > 0, let edge = direction > 0 ? windowRows.last : windowRows.first else { return [] }
        var rows: [TablePath] = []
        var section = edge.section, row = edge.row
        while rows.count < count {
            row += direction
            while row < 0 || row >= numberOfRows(inSection: section) {
                section += direction
                guard section >= 0, section < numberOfSections else { return rows }
                row = direction > 0 ? 0 : numberOfRows(inSection: section) - 1
            }
            rows.append(TablePath(row: row, section: section))
        }
        return rows
    }
}
