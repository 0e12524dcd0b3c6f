extension TableView {
    /// How a batch's rows and sections come and go on screen, as UIKit names
    /// it; the table passes it on to its ``renderer`` in a ``TableUpdate``.
    public enum RowAnimation: String, Hashable, Sendable, CaseIterable {
        case automatic, fade, right, left, top, bottom, middle, none
    }

    /// What the table shows now: the headers, rows and footers meeting the
    /// window, with their content, and the section index, search field and
    /// editing state.
    ///
    /// - Complexity: O(*w* log *n*) for a window of *w* rows; the data source is
    ///   asked for the window's section titles (and, in editing mode, whether
    ///   its rows can be edited and moved).
    public var currentFrame: TableFrame {
        let top = contentOffset, bottom = contentOffset + viewportHeight
        func meets(_ span: (y: Double, height: Double)) -> Bool { span.height > 0 && span.y < bottom && span.y + span.height > top }
        var elements: [TableFrame.Element] = []
        var next = 0   // the first window row not yet placed
        for s in layout.sections(from: top, to: bottom) {
            let header = layout.span(ofHeader: s)
            if meets(header) {
                let title = headerViews[s]?.text ?? dataSource?.tableView(self, titleForHeaderInSection: s)
                elements.append(.init(kind: .header(section: s), span: Span(y: header.y, height: header.height), title: title))
            }
            while next < windowRows.count, windowRows[next].section == s {
                let path = windowRows[next]
                next += 1
                guard let cell = cells[path] else { continue }
                let span = layout.span(ofRow: path)
                elements.append(.init(kind: .row(path), span: Span(y: span.y, height: span.height), cell: frameCell(cell, at: path)))
            }
            let footer = layout.span(ofFooter: s)
            if meets(footer) {
                let title = footerViews[s]?.text ?? dataSource?.tableView(self, titleForFooterInSection: s)
                elements.append(.init(kind: .footer(section: s), span: Span(y: footer.y, height: footer.height), title: title))
            }
        }
        return TableFrame(
            contentOffset: contentOffset, viewportHeight: viewportHeight, contentHeight: contentHeight,
            numberOfSections: numberOfSections, elements: elements, sectionIndexTitles: indexTitles,
            searchText: searchFieldText, isEditing: isEditing,
            searchScopeTitles: searchScopeTitles, selectedSearchScopeIndex: selectedSearchScopeIndex)
    }

    func frameCell(_ cell: TableViewCell, at path: TablePath) -> TableFrame.Cell {
        var style = EditingStyle.none, reorder = false
        if isEditing, let dataSource, dataSource.tableView(self, canEditRowAt: path) {
            style = delegate?.tableView(self, editingStyleForRowAt: path) ?? .delete
            reorder = dataSource.tableView(self, canMoveRowAt: path)
        }
        return TableFrame.Cell(
            text: cell.text, detailText: cell.detailText, accessory: cell.accessory, lines: cell.textLines(),
            isSelected: selected.contains(path), editingStyle: style, showsReorderControl: reorder)
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
        guard !update.batch.isEmpty else { return displayIfNeeded() }
        let frame = currentFrame
        lastDisplayedFrame = frame
        renderer.display(update, from: old ?? frame, to: frame)
    }
}
