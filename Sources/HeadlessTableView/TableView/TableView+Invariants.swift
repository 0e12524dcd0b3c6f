import TableDiff
import Foundation

// Invariant checks, swift-collections style: compiled in debug builds (or any
// build with `-Xswiftc -DHEADLESS_TABLE_INTERNAL_CHECKS`), empty otherwise.

extension TableView {
    /// Checks the table's state groups against themselves and each other
    /// (debug builds, or `-DHEADLESS_TABLE_INTERNAL_CHECKS`); the property
    /// tests call it after every change. Traps on a broken invariant.
    ///
    /// - Complexity: O(*s* log *s* + *w* + *k*) for *s* sections, a window of
    ///   *w* rows and *k* selected rows, plus the layout's checks, in the
    ///   builds that check; O(1) otherwise.
    package func _checkInvariants() {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        shown._checkInvariants(viewportHeight: viewportHeight)
        precondition(selectionKeeper == nil || shown.selected.isEmpty, "index paths selected beside a data source that keeps the selection")
        precondition(batch.depth >= 0, "batch depth \(batch.depth)")
        precondition(batch.depth > 0 || batch.isEmpty, "changes collected outside a batch")
        precondition(cellMaking.isIdle, "a cell being made, or a window being filled, between operations")
        _checkSwipeInvariants()
        #endif
    }
}

extension TableView._Shown {
    /// Traps when what the table shows disagrees with itself: the layout
    /// against the counts, the window's rows against its cells and the
    /// layout, a selection or a view outside the table, a geometry value
    /// that is not finite or is negative.
    func _checkInvariants(viewportHeight: Double) {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        layout._checkInvariants()
        precondition(layout.sectionCount == rowCounts.count, "layout has \(layout.sectionCount) sections, counts \(rowCounts.count)")
        for s in 0..<rowCounts.count {
            precondition(layout.rowCount(in: s) == rowCounts[s], "section \(s): layout \(layout.rowCount(in: s)) rows, counts \(rowCounts[s])")
        }
        func exists(_ path: TablePath) -> Bool {
            rowCounts.indices.contains(path.section) && path.row >= 0 && path.row < rowCounts[path.section]
        }
        precondition(contentOffset.isFinite && contentOffset >= 0, "content offset \(contentOffset)")
        if viewportHeight.isFinite && viewportHeight >= 0 {
            // (Empty after a reload whose cells failed: the next reload fills it.)
            precondition(windowRows.isEmpty || windowRows == layout.rows(from: contentOffset, to: contentOffset + viewportHeight),
                         "the window's rows \(windowRows) are not those at offset \(contentOffset)")
        } else {
            // A bad viewport height given to `init` is refused by the first
            // operation that lays the table out: until one is set, nothing is.
            precondition(rowCounts.isEmpty && windowRows.isEmpty, "a table laid out with viewport height \(viewportHeight)")
        }
        precondition(zip(windowRows, windowRows.dropFirst()).allSatisfy { $0 < $1 }, "the window's rows out of order: \(windowRows)")
        precondition(cells.count == windowRows.count && windowRows.allSatisfy { cells[$0] != nil },
                     "the window's rows \(windowRows) and its cells' rows \(cells.keys.sorted()) differ")
        precondition(Set(cells.values.map(ObjectIdentifier.init)).count == cells.count, "a cell shows two rows")
        precondition(selected.allSatisfy(exists), "a selected row outside the table: \(selected.sorted())")
        precondition(headerViews.keys.allSatisfy(rowCounts.indices.contains), "a header view for a section outside the table")
        precondition(footerViews.keys.allSatisfy(rowCounts.indices.contains), "a footer view for a section outside the table")
        precondition(staleViews.isEmpty, "replaced header and footer views not queued")
        if let carried {
            precondition(carried.keys.allSatisfy { exists($0) && cells[$0] == nil }, "a kept cell's row \(carried.keys.sorted()) outside the table or in the window")
            precondition(Set(carried.values.map(ObjectIdentifier.init)).isDisjoint(with: cells.values.map(ObjectIdentifier.init)), "a kept cell in the window")
        }
        #endif
    }
}
