import HeadlessTable

/// A table's renderer for the browser: keeps the frame the table displays,
/// and the changes of its last batch; `BrowserModel.screen()` draws the
/// frame with `TextRenderer`.
final class BrowserScreen: TableRenderer {
    var frame: TableFrame?, changes: [BatchChange]?
    func display(_ frame: TableFrame) { self.frame = frame }
    func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame) { (frame, changes) = (new, update.changes) }
}
