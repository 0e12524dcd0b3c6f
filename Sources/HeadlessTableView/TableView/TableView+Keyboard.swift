import TableDiff

extension TableView {
    // MARK: Moving the selection with keys

    /// A key that moves the selection, named as UIKit names the key commands
    /// (`UIKeyCommand.inputUpArrow`, `inputDownArrow`, `inputPageUp`,
    /// `inputPageDown`, `inputHome`, `inputEnd`).
    public enum SelectionKey: Hashable, Sendable, CaseIterable {
        /// The row before the selected one (across sections).
        case upArrow
        /// The row after the selected one (across sections).
        case downArrow
        /// The row a page higher: the viewport's height less the selected
        /// row's height above it.
        case pageUp
        /// The row a page lower: the viewport's height less the selected
        /// row's height below it.
        case pageDown
        /// The first row of the table.
        case home
        /// The last row of the table.
        case end
    }

    /// What a key does to a table whose selection follows the keyboard focus
    /// (UIKit's `selectionFollowsFocus`): the row the key names becomes the
    /// selected row and is scrolled into view (as ``scrollToRow(at:at:)``
    /// with ``ScrollPosition/none`` does). Without a selection, End selects
    /// the last row and every other key the first. The arrows step over
    /// empty sections; a page is the viewport's height less the selected
    /// row's (at least one row), and a page that would land on a header or a
    /// footer selects the first row after it; at the ends the first or the
    /// last row is selected.
    ///
    /// As with ``selectRow(at:scrollPosition:)``, no delegate method is
    /// called; with multiple selection, the row becomes the only one selected.
    /// A table without rows, or with `allowsSelection` off, does nothing.
    ///
    /// ```swift
    /// try table.pressKey(.end)        // the last row, scrolled into view
    /// try table.pressKey(.pageUp)     // a screen higher
    /// ```
    ///
    /// - Returns: the selected row, or nil when nothing happened.
    /// - Throws: what scrolling throws (``TableViewError/invalidGeometry(_:)``,
    ///   what the data source throws making a cell); the selection and the
    ///   offset stay as they were.
    /// - Complexity: O(log *n* + *w*) for a window of *w* rows, plus the
    ///   empty sections stepped over (O(*s*) to find the ends of a table of
    ///   *s* sections).
    @discardableResult
    public func pressKey(_ key: SelectionKey) throws -> TablePath? {
        guard allowsSelection, let first = firstRow(inSectionsFrom: 0), let last = lastRow(inSectionsUpTo: rowCounts.count - 1) else { return nil }
        let target: TablePath
        if let from = indexPathForSelectedRow {
            switch key {
            case .upArrow: target = row(before: from) ?? first
            case .downArrow: target = row(after: from) ?? last
            case .home: target = first
            case .end: target = last
            case .pageDown:
                let span = layout.span(ofRow: from)
                let y = span.y + Swift.max(span.height, viewportHeight - span.height)
                let found = y < contentHeight ? firstRow(atOrAfter: y) ?? last : last
                target = found > from ? found : row(after: from) ?? last
            case .pageUp:
                let span = layout.span(ofRow: from)
                let y = span.y - Swift.max(span.height, viewportHeight - span.height)
                let found = y <= 0 ? first : layout.row(at: y) ?? firstRow(atOrAfter: y) ?? first
                target = found < from ? found : row(before: from) ?? first
            }
        } else {
            target = key == .end ? last : first
        }
        // Scrolling is the step that can fail: it goes first, so that a
        // failure leaves the selection as it was.
        try scrollToRow(at: target, at: .none)
        if allowsMultipleSelection { deselectAllRows() }
        try selectRow(at: target)
        return target
    }

    /// The first row of the first section from `section` on that has rows.
    func firstRow(inSectionsFrom section: Int) -> TablePath? {
        var s = Swift.max(0, section)
        while s < rowCounts.count {
            if rowCounts[s] > 0 { return TablePath(row: 0, section: s) }
            s += 1
        }
        return nil
    }

    /// The last row of the last section up to `section` that has rows.
    func lastRow(inSectionsUpTo section: Int) -> TablePath? {
        var s = Swift.min(section, rowCounts.count - 1)
        while s >= 0 {
            if rowCounts[s] > 0 { return TablePath(row: rowCounts[s] - 1, section: s) }
            s -= 1
        }
        return nil
    }

    /// The row after `path` in the table's order, across sections.
    func row(after path: TablePath) -> TablePath? {
        path.row + 1 < rowCounts[path.section] ? TablePath(row: path.row + 1, section: path.section) : firstRow(inSectionsFrom: path.section + 1)
    }

    /// The row before `path` in the table's order, across sections.
    func row(before path: TablePath) -> TablePath? {
        path.row > 0 ? TablePath(row: path.row - 1, section: path.section) : lastRow(inSectionsUpTo: path.section - 1)
    }

    /// The row holding `y`, or the first one below it (when `y` is in a
    /// header, a footer or a row of no height).
    func firstRow(atOrAfter y: Double) -> TablePath? {
        if let row = layout.row(at: y) { return row }
        if let row = layout.rows(from: y, to: y + Swift.max(1, viewportHeight)).first { return row }
        // Nothing within a window's height: the first row of the section
        // whose header holds `y`, else of a later section.
        guard let s = layout.sections(from: y, to: y + 1).first else { return nil }
        let header = layout.span(ofHeader: s)
        return firstRow(inSectionsFrom: y < header.y + header.height ? s : s + 1)
    }

    /// The row that takes a deleted selected row's place: the one at its
    /// position in the table's order of rows (counted across sections) after
    /// the batch, or the last row when the table is now shorter.
    ///
    /// - Complexity: O(*s*) for *s* sections.
    package static func rowTakingThePlace(of old: TablePath, countsBefore: [Int], countsAfter: [Int]) -> TablePath? {
        var position = old.row
        for s in 0..<Swift.min(old.section, countsBefore.count) { position += countsBefore[s] }
        for (s, count) in countsAfter.enumerated() {
            if position < count { return TablePath(row: position, section: s) }
            position -= count
        }
        guard let s = countsAfter.lastIndex(where: { $0 > 0 }) else { return nil }
        return TablePath(row: countsAfter[s] - 1, section: s)
    }
}
