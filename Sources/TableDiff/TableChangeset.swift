/// The batch updates that turn one table into another, in stages UIKit accepts.
///
/// Create one from the old and the new sections (or rows) of a table:
///
/// ```swift
/// let changeset = TableChangeset(from: oldSections, to: newSections)
/// for stage in changeset.stages {
///     dataSource.sections = stage.sections      // the data during this batch
///     tableView.performBatchUpdates { apply(stage.update) }
/// }
/// ```
///
/// **What is guaranteed.**
/// - Applying the stages in order, each with its ``Stage/sections`` as the data
///   source's data, turns the old table into the new one under UIKit's rules:
///   every stage passes UIKit's consistency checks
///   (``BatchUpdate/validate(rowCountsBefore:rowCountsAfter:)``).
/// - Rows and sections are paired by identity (``TableDiffable/diffIdentifier``
///   and the section name). A paired row is never deleted and reinserted: it
///   stays or it moves, across sections too, even when sections are inserted,
///   deleted or moved in the same change.
/// - Every paired row whose content changed (``TableDiffable/isContentEqual(to:)``
///   is `false`) is reloaded — at its place in the stage that reloads it.
/// - Moves are as few as possible: within each pair of sections, the rows (and
///   among sections, the sections) on a longest run that keeps its order stay;
///   the others move.
/// - There are as few stages as UIKit's rules allow, in this order:
///   1. *open* (only when a row moves into an inserted section): inserts those
///      sections, and reloads rows that both move and change, at their old place;
///   2. *main*: everything else;
///   3. *close* (only when a row moves out of a deleted section, or rows both
///      move and change and there is no open stage): deletes those sections,
///      and reloads the moved, changed rows at their new place.
///   An unchanged table gives no stage at all.
///
/// **Duplicates.** Identities should be unique, as UIKit's diffable data source
/// requires; HeadlessTable does not trap on duplicates. The k-th occurrence of an
/// identity in the new table is paired with the k-th occurrence in the old one;
/// extra occurrences are deleted or inserted. Every duplicated identity is listed
/// in ``duplicateIdentifiers`` (and section names in ``duplicateSectionNames``),
/// and the changeset stays valid.
///
/// **What is not guaranteed.** The stages are the fewest UIKit allows *given*
/// the fewest moves; a changeset is not the shortest possible edit script in any
/// other sense.
///
/// - Complexity: O(*n* + *s* + *m* log *m*) expected time and O(*n* + *s*) space,
///   where *n* is the number of rows, *s* the number of sections, and *m* the
///   number of rows that do not keep their order (on the usual changes *m* is
///   small; on a reversed table the log term is 1). Every identity is hashed once.
public struct TableChangeset<Row: TableDiffable> {
    /// One batch of a changeset, and the data the data source must report during it.
    public struct Stage {
        /// The batch to perform.
        public var update: BatchUpdate
        /// The sections and rows after this batch: what the data source reports
        /// while the batch is performed.
        public var sections: [TableSection<Row>]

        /// Creates a stage from its batch and the data after it.
        public init(update: BatchUpdate, sections: [TableSection<Row>]) {
            self.update = update
            self.sections = sections
        }
    }

    /// The batches, in the order they must be performed.
    public var stages: [Stage]
    /// Every row identity that occurs more than once in the old or the new table:
    /// those duplicated in the old table first, each side in order of position.
    public var duplicateIdentifiers: [Row.DiffIdentifier]
    /// Every section name that occurs more than once in the old or the new table.
    public var duplicateSectionNames: [String]

    /// Creates a changeset from its stages.
    public init(
        stages: [Stage], duplicateIdentifiers: [Row.DiffIdentifier] = [], duplicateSectionNames: [String] = []
    ) {
        self.stages = stages
        self.duplicateIdentifiers = duplicateIdentifiers
        self.duplicateSectionNames = duplicateSectionNames
    }

    /// Whether the two tables are the same: no stage at all.
    public var isEmpty: Bool { stages.isEmpty }

    /// The number of changes over all stages (see ``BatchUpdate/changeCount``).
    public var changeCount: Int { stages.reduce(0) { $0 + $1.update.changeCount } }
}

extension TableChangeset {
    /// Computes the changeset from the old to the new sections of a table.
    ///
    /// - Complexity: O(*n* + *s* + *m* log *m*); see ``TableChangeset``.
    @inlinable
    public init(from old: [TableSection<Row>], to new: [TableSection<Row>]) {
        let oldRows = old.count == 1 ? old[0].rows : old.flatMap(\.rows)
        let newRows = new.count == 1 ? new[0].rows : new.flatMap(\.rows)
        let rowMatching = _matchIdentities(old: oldRows, new: newRows)
        let oldNames = old.map(\.name), newNames = new.map(\.name)
        let sectionMatching = _matchIdentities(old: oldNames, new: newNames)
        let planned = _planStages(
            oldRowCounts: old.map(\.rows.count), newRowCounts: new.map(\.rows.count),
            rows: rowMatching, sections: sectionMatching)

        stages = planned.map { stage in
            guard let layout = stage.layout else { return Stage(update: stage.update, sections: new) }
            var sections: [TableSection<Row>] = []
            sections.reserveCapacity(layout.sections.count)
            for (ref, rows) in zip(layout.sections, layout.rows) {
                if let rows {
                    sections.append(TableSection(name: _Ref.element(ref, old: oldNames, new: newNames), rows: rows.map { _Ref.element($0, old: oldRows, new: newRows) }))
                } else {
                    sections.append(_Ref.element(ref, old: old, new: new))   // the section as it is, its rows shared
                }
            }
            return Stage(update: stage.update, sections: sections)
        }
        duplicateIdentifiers = rowMatching.duplicates.map { $0.element(old: oldRows, new: newRows).diffIdentifier }
        duplicateSectionNames = sectionMatching.duplicates.map { $0.element(old: oldNames, new: newNames) }
    }

    /// Computes the changeset from the old to the new rows of a table with one
    /// section, named "".
    ///
    /// - Complexity: O(*n* + *m* log *m*); see ``TableChangeset``.
    @inlinable
    public init(from old: [Row], to new: [Row]) {
        self.init(from: [TableSection(name: "", rows: old)], to: [TableSection(name: "", rows: new)])
    }

    /// Applies every stage in order to what a table shows, the way UIKit does
    /// (see ``BatchUpdate/applying(to:dataSource:)``), and returns what it shows
    /// afterwards: the new table.
    ///
    /// - Throws: ``BatchUpdateError`` when a stage does not fit `displayed`.
    public func applying(to displayed: [TableSection<Row>]) throws(BatchUpdateError) -> [TableSection<Row>] {
        var shown = displayed
        for stage in stages { shown = try stage.update.applying(to: shown, dataSource: stage.sections) }
        return shown
    }

    @available(*, deprecated, renamed: "applying(to:)")
    public func apply(to displayed: [TableSection<Row>]) throws(BatchUpdateError) -> [TableSection<Row>] {
        try applying(to: displayed)
    }
}

extension TableChangeset.Stage: Sendable where Row: Sendable {}
extension TableChangeset: Sendable where Row: Sendable, Row.DiffIdentifier: Sendable {}
extension TableChangeset.Stage: Equatable where Row: Equatable {}
extension TableChangeset: Equatable where Row: Equatable {}

extension TableChangeset: CustomStringConvertible {
    /// The stages as a batch log (see ``BatchUpdate/logLines(ascii:)``).
    public var description: String {
        if stages.isEmpty { return "(no changes)" }
        var lines: [String] = []
        for (index, stage) in stages.enumerated() {
            if stages.count > 1 { lines.append("stage \(index + 1) of \(stages.count)") }
            lines += stage.update.logLines().map { stages.count > 1 ? "  " + $0 : $0 }
        }
        return lines.joined(separator: "\n")
    }
}
