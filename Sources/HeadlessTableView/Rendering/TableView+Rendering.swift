import TableDiff
extension TableView {
    /// How a batch's rows and sections come and go on screen, as UIKit names
    /// it; the table passes it on to its ``renderer`` in a ``TableUpdate``.
    public enum RowAnimation: String, Hashable, Sendable, CaseIterable {
        case automatic, fade, right, left, top, bottom, middle, none
    }

    /// The animation of each kind of change in a batch (UIKit's `with:`
    /// argument, given once per kind): what a binding passes to
    /// ``TableView/performBatchUpdates(_:reconfiguring:animations:)``.
    public struct RowAnimations: Hashable, Sendable {
        public var insertRows: RowAnimation
        public var deleteRows: RowAnimation
        public var reloadRows: RowAnimation
        public var insertSections: RowAnimation
        public var deleteSections: RowAnimation
        public var reloadSections: RowAnimation
        /// Row and section moves (UIKit animates them itself; a renderer may
        /// show them as it likes, e.g. fading, as code that moves by deleting
        /// and inserting does).
        public var moves: RowAnimation

        /// One animation for every kind.
        public init(_ animation: RowAnimation) {
            (insertRows, deleteRows, reloadRows) = (animation, animation, animation)
            (insertSections, deleteSections, reloadSections) = (animation, animation, animation)
            moves = animation
        }

        public init(
            insertRows: RowAnimation = .automatic, deleteRows: RowAnimation = .automatic, reloadRows: RowAnimation = .automatic,
            insertSections: RowAnimation = .automatic, deleteSections: RowAnimation = .automatic, reloadSections: RowAnimation = .automatic,
            moves: RowAnimation = .automatic
        ) {
            self.moves = moves
            (self.insertRows, self.deleteRows, self.reloadRows) = (insertRows, deleteRows, reloadRows)
            (self.insertSections, self.deleteSections, self.reloadSections) = (insertSections, deleteSections, reloadSections)
        }

        /// The table's choice for every change.
        public static let automatic = RowAnimations(.automatic)
        /// Everything fades: the choice of Apple's Core Data table template.
        public static let fade = RowAnimations(.fade)

        /// The animation of one change.
        public func animation(for change: BatchChange) -> RowAnimation {
            switch change {
            case .insertRow: insertRows
            case .deleteRow: deleteRows
            case .reloadRow: reloadRows
            case .reconfigureRow: .automatic
            case .insertSection: insertSections
            case .deleteSection: deleteSections
            case .reloadSection: reloadSections
            case .moveRow, .moveSection: moves
            }
        }
    }

    /// What the table shows now: the headers, rows and footers meeting the
    /// window, with their content, and the section index, search field and
    /// editing state.
    ///
    /// In a ``Style/plain`` table, the header of the section crossing the
    /// window's top is pinned there, as UIKit floats it: at the window's top
    /// once its natural place has scrolled above it, but never below its
    /// section's end, so the next section's header pushes it up. The footer of
    /// the section crossing the window's bottom is pinned there the same way
    /// while the section's rows show (never above them, over its own
    /// header). Each is in the frame once, at its natural
    /// ``TableFrame/Element/span`` with its
    /// ``TableFrame/Element/floatingSpan``; rows are where they are
    /// (``indexPathForRow(at:)`` answers from them, not from what floats).
    /// Each row carries its place among all the table's rows
    /// (``TableFrame/Element/rowIndex``) and the frame the number of rows
    /// (``TableFrame/numberOfRows``), from the layout's tree of row counts.
    ///
    /// - Complexity: O(*w* log *n*) for a window of *w* rows; the data source is
    ///   asked for the window's section titles (and, in editing mode, whether
    ///   its rows can be edited and moved).
    public var currentFrame: TableFrame {
        let top = contentOffset, bottom = contentOffset + viewportHeight
        func meets(_ span: (y: Double, height: Double)) -> Bool { span.height > 0 && span.y < bottom && span.y + span.height > top }
        var elements: [TableFrame.Element] = []
        var next = 0   // the first window row not yet placed
        let sections = layout.sections(from: top, to: bottom)
        let floating = style == .plain ? floatingSpans(in: sections) : (header: nil, footer: nil)
        let isSelected = selectedRowTest()
        for s in sections {
            let rowsBefore = layout.rowsBefore(section: s)
            let header = layout.span(ofHeader: s)
            let pinnedHeader = floating.header.flatMap { $0.section == s ? $0.span : nil }
            if pinnedHeader != nil || meets(header) {
                let title = headerViews[s]?.text ?? dataSource?.tableView(self, titleForHeaderInSection: s)
                elements.append(.init(
                    kind: .header(section: s), span: VerticalSpan(y: header.y, height: header.height), title: title, floatingSpan: pinnedHeader))
            }
            while next < windowRows.count, windowRows[next].section == s {
                let path = windowRows[next]
                next += 1
                guard let cell = cells[path] else { continue }
                let span = layout.span(ofRow: path)
                elements.append(.init(
                    kind: .row(path), span: VerticalSpan(y: span.y, height: span.height), cell: frameCell(cell, at: path, isSelected: isSelected(path)),
                    rowIndex: rowsBefore + path.row))
            }
            let footer = layout.span(ofFooter: s)
            let pinnedFooter = floating.footer.flatMap { $0.section == s ? $0.span : nil }
            if pinnedFooter != nil || meets(footer) {
                let title = footerViews[s]?.text ?? dataSource?.tableView(self, titleForFooterInSection: s)
                elements.append(.init(
                    kind: .footer(section: s), span: VerticalSpan(y: footer.y, height: footer.height), title: title, floatingSpan: pinnedFooter))
            }
        }
        var frame = TableFrame(
            contentOffset: contentOffset, viewportHeight: viewportHeight, contentHeight: contentHeight,
            numberOfSections: numberOfSections, elements: elements, sectionIndexTitles: indexTitles,
            searchText: searchFieldText, isEditing: isEditing,
            searchScopeTitles: searchScopeTitles, selectedSearchScopeIndex: selectedSearchScopeIndex, style: style,
            numberOfRows: layout.numberOfRows)
        frame.swipedRow = swipedRow
        return frame
    }

    /// Where a plain table's floating header and footer show: the header of
    /// the section crossing the window's top edge (its natural place above
    /// the edge), pinned at the edge but not below its section's end; the
    /// footer of the section crossing the bottom edge, pinned at the edge but
    /// not above its section's rows (its header stays clear). `sections` are
    /// those meeting the window.
    ///
    /// - Complexity: O(log *s*): the first and last sections of the window only.
    func floatingSpans(in sections: Range<Int>) -> (header: (section: Int, span: VerticalSpan)?, footer: (section: Int, span: VerticalSpan)?) {
        guard let first = sections.first, let last = sections.last else { return (nil, nil) }
        let top = contentOffset, bottom = contentOffset + viewportHeight
        var result: (header: (section: Int, span: VerticalSpan)?, footer: (section: Int, span: VerticalSpan)?) = (nil, nil)
        let firstSpan = layout.span(ofSection: first), header = layout[section: first].header
        if header > 0, firstSpan.y < top, top < firstSpan.y + firstSpan.height {
            result.header = (first, VerticalSpan(y: Swift.min(top, firstSpan.y + firstSpan.height - header), height: header))
        }
        let lastSpan = layout.span(ofSection: last), lastSection = layout[section: last]
        let footer = lastSection.footer, rowsTop = lastSpan.y + lastSection.header
        // Only while the section's rows show: never over its own header.
        if footer > 0, rowsTop < bottom, bottom < lastSpan.y + lastSpan.height {
            result.footer = (last, VerticalSpan(y: Swift.max(bottom - footer, rowsTop), height: footer))
        }
        return result
    }

    func frameCell(_ cell: TableViewCell, at path: TablePath, isSelected: Bool) -> TableFrame.Cell {
        var editingStyle = EditingStyle.none, reorder = false
        if isEditing, let dataSource, dataSource.tableView(self, canEditRowAt: path) {
            editingStyle = delegate?.tableView(self, editingStyleForRowAt: path) ?? .delete
            reorder = dataSource.tableView(self, canMoveRowAt: path)
        }
        var frame = TableFrame.Cell(
            text: cell.text, detailText: cell.detailText, accessory: cell.accessory, lines: cell.textLines(),
            isSelected: isSelected, editingStyle: editingStyle, showsReorderControl: reorder,
            style: cell.cellStyle, image: cell.image, indentationLevel: cell.indentationLevel, indentationWidth: cell.indentationWidth,
            outline: cell.outline)
        if let content = cell.contentConfiguration { content.apply(to: &frame) }
        return frame
    }

    /// Hands the renderer the current frame if it differs from the one it
    /// last displayed. The table does this after each of its own changes;
    /// call it after changing a visible cell's content directly.
    public func displayIfNeeded() {
        guard let renderer, updateDepth == 0, !isBusy else { return }
        let frame = currentFrame
        guard frame != lastDisplayedFrame else { return }
        lastDisplayedFrame = frame
        renderer.display(frame)
    }

    /// Hands the renderer an applied batch, from the frame it last displayed.
    func display(_ update: TableUpdate, from old: TableFrame?) {
        guard let renderer else { return }
        guard !update.changes.isEmpty else { return displayIfNeeded() }
        let frame = currentFrame
        lastDisplayedFrame = frame
        present(update, from: old ?? frame, to: frame, on: renderer)
    }
}
