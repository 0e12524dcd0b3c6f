import TableDiff

extension TextRenderer {
    /// The buttons of a swiped row's actions, in brackets, from left to
    /// right: the first action at the row's edge (the rightmost for the
    /// trailing edge), as UIKit lays them out — `[Archive] [Delete]`.
    func swipeButtons(_ swiped: TableView.SwipedRow) -> String {
        let buttons = swiped.actions.map { "[" + TerminalText.sanitized($0.title ?? "") + "]" }
        return (swiped.edge == .trailing ? buttons.reversed() : buttons).joined(separator: " ")
    }

    /// A line of a swiped row: the row slid aside by its actions' buttons,
    /// which take its edge on the first line (the other lines leave their
    /// place blank). When the buttons leave the row fewer than 4 columns, they
    /// take the whole line. `row` draws the row in a number of columns.
    func swipedRowText(_ swiped: TableView.SwipedRow, line: Int, columns: Int, row: (Int) -> String) -> String {
        let buttons = swipeButtons(swiped)
        let used = TerminalText.width(of: buttons) + 1
        guard columns - used >= 4 else {
            return line == 0 ? TerminalText.fitting(buttons, into: columns, ellipsis: marks.ellipsis) : String(repeating: " ", count: Swift.max(0, columns))
        }
        let place = line == 0 ? buttons : String(repeating: " ", count: used - 1)
        let content = row(columns - used)
        return swiped.edge == .trailing ? content + " " + place : place + " " + content
    }
}
