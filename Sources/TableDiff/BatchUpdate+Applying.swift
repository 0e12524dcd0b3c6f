extension BatchUpdate {
    /// Applies the batch to what a table shows, the way UIKit does, and returns
    /// what it shows afterwards.
    ///
    /// `displayed` is what the table showed before the batch; `dataSource` is what
    /// its data source reports during the batch. The batch is checked first
    /// (``validate(rowCountsBefore:rowCountsAfter:)``). Then, as in UIKit:
    /// - inserted rows, and every row of an inserted or reloaded section, come from
    ///   the data source;
    /// - reloaded rows come from the data source, at their new place;
    /// - every other row — moved or staying — keeps what it showed: a move does
    ///   not refresh content. A stale row is what a missing reload looks like.
    ///
    /// A section that stays keeps its displayed name.
    ///
    /// - Throws: ``BatchUpdateError`` with UIKit's message; nothing is applied.
    /// - Complexity: O(*n* + *k* log *k*), where *n* is the number of rows after
    ///   the batch and *k* the number of changes.
    public func applying<Row>(
        to displayed: [TableSection<Row>], dataSource: [TableSection<Row>]
    ) throws(BatchUpdateError) -> [TableSection<Row>] {
        let mapping = try validate(rowCountsBefore: displayed.rowCounts(), rowCountsAfter: dataSource.rowCounts())
        var result: [TableSection<Row>] = []
        result.reserveCapacity(dataSource.count)
        for t in dataSource.indices {
            guard let s = mapping.oldSection(forNew: t), !mapping.isSectionReloaded(old: s) else {
                result.append(dataSource[t])
                continue
            }
            let source = dataSource[t].rows
            let old = displayed[s].rows
            let taken = _sectionSlice(mapping.arrivingRows, t)
            let removed = _sectionSlice(mapping.leavingRows, s)
            let reloaded = _sectionSlice(mapping.reloadedRowPaths, s)
            var takenIndex = taken.startIndex, removedIndex = removed.startIndex, reloadedIndex = reloaded.startIndex
            var r = 0   // the next old row that may stay
            var rows: [Row] = []
            rows.reserveCapacity(source.count)
            for x in source.indices {
                if takenIndex < taken.endIndex, taken[takenIndex].row == x {
                    takenIndex += 1
                    let here = TablePath(row: x, section: t)
                    if let move = _find(mapping.rowMovesByDestination, here, by: \.to) {
                        rows.append(displayed[move.from.section].rows[move.from.row])
                    } else {
                        rows.append(source[x])
                    }
                    continue
                }
                while removedIndex < removed.endIndex, removed[removedIndex].row == r {
                    removedIndex += 1
                    r += 1
                }
                while reloadedIndex < reloaded.endIndex, reloaded[reloadedIndex].row < r { reloadedIndex += 1 }
                if reloadedIndex < reloaded.endIndex, reloaded[reloadedIndex].row == r {
                    rows.append(source[x])
                } else {
                    rows.append(old[r])
                }
                r += 1
            }
            result.append(TableSection(name: displayed[s].name, rows: rows))
        }
        return result
    }

    @available(*, deprecated, renamed: "applying(to:dataSource:)")
    public func apply<Row>(
        to displayed: [TableSection<Row>], dataSource: [TableSection<Row>]
    ) throws(BatchUpdateError) -> [TableSection<Row>] {
        try applying(to: displayed, dataSource: dataSource)
    }
}
