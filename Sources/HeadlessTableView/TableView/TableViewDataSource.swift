import TableDiff
import Foundation

/// What a table shows: its sections, rows and cells — UIKit's
/// `UITableViewDataSource`. Every method but the row count and the cell has a
/// default.
///
/// The table asks for counts when it reloads and at the end of every batch
/// update (not while scrolling), and for cells only for the rows in its window.
public protocol TableViewDataSource: AnyObject {
    /// The number of sections (default 1).
    func numberOfSections(in tableView: TableView) -> Int
    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int
    /// Every section's number of rows at once, in order — what
    /// ``numberOfSections(in:)`` and ``tableView(_:numberOfRowsInSection:)``
    /// answer, in one call. A data source of many sections that has its
    /// counts at hand gives them here, and the table checks a batch of a few
    /// changes without a call per section. Nil (the default): the table asks
    /// section by section.
    func numberOfRowsInSections(in tableView: TableView) -> [Int]?
    /// The cell for a row: dequeue one (`dequeueReusableCell(withIdentifier:for:)`)
    /// and set all its content. Returning nil is an error.
    func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell?

    /// The titles of a section's header and footer (nil for none).
    func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String?
    func tableView(_ tableView: TableView, titleForFooterInSection section: Int) -> String?

    /// The section index (nil for none), and the section an index title jumps
    /// to: the index into the titles comes in, a section index goes out. There
    /// may be fewer titles than sections.
    func sectionIndexTitles(for tableView: TableView) -> [String]?
    func tableView(_ tableView: TableView, sectionForSectionIndexTitle title: String, at index: Int) -> Int

    /// Whether a row can be edited — deleted by a swipe (default yes).
    func tableView(_ tableView: TableView, canEditRowAt indexPath: TablePath) -> Bool
    /// Commits an edit: for a delete, remove the object from the model and
    /// delete the row (`deleteRows(at:)`, or through the model's own updates).
    func tableView(_ tableView: TableView, commit editingStyle: TableView.EditingStyle, forRowAt indexPath: TablePath) throws
    /// Whether the user may move a row (default no).
    func tableView(_ tableView: TableView, canMoveRowAt indexPath: TablePath) -> Bool
    /// The user moved a row (``TableView/moveRowByUser(from:to:)``): update
    /// the model; the table then shows the move. A data source that changes
    /// the table itself meanwhile (its model reports the move back) has shown
    /// it: the table does not move the row again.
    func tableView(_ tableView: TableView, moveRowAt sourceIndexPath: TablePath, to destinationIndexPath: TablePath) throws
}

extension TableViewDataSource {
    public func numberOfSections(in tableView: TableView) -> Int { 1 }
    public func numberOfRowsInSections(in tableView: TableView) -> [Int]? { nil }
    public func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? { nil }
    public func tableView(_ tableView: TableView, titleForFooterInSection section: Int) -> String? { nil }
    public func sectionIndexTitles(for tableView: TableView) -> [String]? { nil }
    public func tableView(_ tableView: TableView, sectionForSectionIndexTitle title: String, at index: Int) -> Int { index }
    public func tableView(_ tableView: TableView, canEditRowAt indexPath: TablePath) -> Bool { true }
    public func tableView(_ tableView: TableView, commit editingStyle: TableView.EditingStyle, forRowAt indexPath: TablePath) throws {}
    public func tableView(_ tableView: TableView, canMoveRowAt indexPath: TablePath) -> Bool { false }
    public func tableView(_ tableView: TableView, moveRowAt sourceIndexPath: TablePath, to destinationIndexPath: TablePath) throws {}
}

/// How a table lays out and reacts — UIKit's `UITableViewDelegate`. Every
/// method has a default.
///
/// A height the delegate gives must be finite and at least 0: the table
/// refuses anything else with ``TableViewError/invalidGeometry(_:)`` naming
/// the method and the row or section, and the operation that asked changes
/// nothing.
public protocol TableViewDelegate: AnyObject {
    /// A row's height; nil for the table's (`rowHeight`, or the cell's
    /// measured height when that is ``TableView/automaticDimension``).
    /// Asked for every row when the table loads its rows — or, with
    /// ``TableView/automaticDimension``, when the row is shown (estimated
    /// until then, as UIKit does with estimates): what a table of a million
    /// rows wants. A bound table asks once per object while its shown
    /// content is unchanged.
    func tableView(_ tableView: TableView, heightForRowAt indexPath: TablePath) -> Double?
    /// A row's estimated height until it is shown; nil for the table's `estimatedRowHeight`.
    func tableView(_ tableView: TableView, estimatedHeightForRowAt indexPath: TablePath) -> Double?
    /// A section's header and footer heights; nil for the table's (the
    /// `sectionHeaderHeight` when the section has a title, else 0). A delegate
    /// that gives header views for sections without titles gives their heights.
    func tableView(_ tableView: TableView, heightForHeaderInSection section: Int) -> Double?
    func tableView(_ tableView: TableView, heightForFooterInSection section: Int) -> Double?
    /// A section's header and footer views (nil: the title alone, if any).
    func tableView(_ tableView: TableView, viewForHeaderInSection section: Int) -> TableHeaderFooterView?
    func tableView(_ tableView: TableView, viewForFooterInSection section: Int) -> TableHeaderFooterView?

    /// Before the user selects a row: the row to select instead, or nil for none.
    func tableView(_ tableView: TableView, willSelectRowAt indexPath: TablePath) -> TablePath?
    func tableView(_ tableView: TableView, didSelectRowAt indexPath: TablePath)
    func tableView(_ tableView: TableView, willDeselectRowAt indexPath: TablePath) -> TablePath?
    func tableView(_ tableView: TableView, didDeselectRowAt indexPath: TablePath)

    /// The editing control a row shows in editing mode (default `.delete`;
    /// rows the data source cannot edit show none).
    func tableView(_ tableView: TableView, editingStyleForRowAt indexPath: TablePath) -> TableView.EditingStyle

    /// The actions a row shows when the user swipes it from its leading or
    /// trailing edge (``TableView/openSwipeActions(_:forRowAt:)``), asked when
    /// the swipe begins. Nil (the default): none at the leading edge; at the
    /// trailing edge, a Delete action that commits `.delete` through the data
    /// source, when it can edit the row and its editing style is `.delete`
    /// (UIKit's swipe to delete). A configuration without actions: none.
    func tableView(_ tableView: TableView, leadingSwipeActionsConfigurationForRowAt indexPath: TablePath) -> SwipeActionsConfiguration?
    func tableView(_ tableView: TableView, trailingSwipeActionsConfigurationForRowAt indexPath: TablePath) -> SwipeActionsConfiguration?
    /// A row's swipe actions opened, and closed — its path then, or nil when
    /// it no longer names the row (deleted, reloaded; a reload of the table).
    func tableView(_ tableView: TableView, willBeginEditingRowAt indexPath: TablePath)
    func tableView(_ tableView: TableView, didEndEditingRowAt indexPath: TablePath?)

    /// A row's indentation level (UIKit's `indentationLevelForRowAt`, the
    /// "depth of row for hierarchies"): set as the cell's
    /// ``TableViewCell/indentationLevel`` each time the data source makes or
    /// configures the row's cell. Nil (the default) leaves the cell's own.
    func tableView(_ tableView: TableView, indentationLevelForRowAt indexPath: TablePath) -> Int?

    /// Where a row the user moves lands — UIKit's
    /// `targetIndexPathForMoveFromRowAt:toProposedIndexPath:`: the proposed
    /// index path (where the row is after the move, in any section), or
    /// another. The table asks before the move lands (``TableView/moveRowByUser(from:to:)``);
    /// the default is the proposed path.
    func tableView(_ tableView: TableView, targetIndexPathForMoveFromRowAt sourceIndexPath: TablePath, toProposedIndexPath proposedDestinationIndexPath: TablePath) -> TablePath

    /// A cell is about to enter the window, or has left it.
    func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: TablePath)
    func tableView(_ tableView: TableView, didEndDisplaying cell: TableViewCell, forRowAt indexPath: TablePath)
}

extension TableViewDelegate {
    public func tableView(_ tableView: TableView, heightForRowAt indexPath: TablePath) -> Double? { nil }
    public func tableView(_ tableView: TableView, estimatedHeightForRowAt indexPath: TablePath) -> Double? { nil }
    public func tableView(_ tableView: TableView, heightForHeaderInSection section: Int) -> Double? { nil }
    public func tableView(_ tableView: TableView, heightForFooterInSection section: Int) -> Double? { nil }
    public func tableView(_ tableView: TableView, viewForHeaderInSection section: Int) -> TableHeaderFooterView? { nil }
    public func tableView(_ tableView: TableView, viewForFooterInSection section: Int) -> TableHeaderFooterView? { nil }
    public func tableView(_ tableView: TableView, willSelectRowAt indexPath: TablePath) -> TablePath? { indexPath }
    public func tableView(_ tableView: TableView, didSelectRowAt indexPath: TablePath) {}
    public func tableView(_ tableView: TableView, willDeselectRowAt indexPath: TablePath) -> TablePath? { indexPath }
    public func tableView(_ tableView: TableView, didDeselectRowAt indexPath: TablePath) {}
    public func tableView(_ tableView: TableView, editingStyleForRowAt indexPath: TablePath) -> TableView.EditingStyle { .delete }
    public func tableView(_ tableView: TableView, indentationLevelForRowAt indexPath: TablePath) -> Int? { nil }
    public func tableView(_ tableView: TableView, targetIndexPathForMoveFromRowAt sourceIndexPath: TablePath, toProposedIndexPath proposedDestinationIndexPath: TablePath) -> TablePath {
        proposedDestinationIndexPath
    }
    public func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: TablePath) {}
    public func tableView(_ tableView: TableView, didEndDisplaying cell: TableViewCell, forRowAt indexPath: TablePath) {}
}
