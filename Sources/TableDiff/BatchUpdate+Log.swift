/// One change of a ``BatchUpdate``, for logs and annotations.
public enum BatchChange: Hashable, Sendable {
    case deleteSection(Int)
    case insertSection(Int)
    case moveSection(Move<Int>)
    case reloadSection(Int)
    case deleteRow(TablePath)
    case insertRow(TablePath)
    case moveRow(Move<TablePath>)
    case reloadRow(TablePath)
    /// A row configured again in place (its path after the batch): an edit
    /// that keeps the row's cell — not part of a ``BatchUpdate``, but of what a
    /// table applied with it.
    case reconfigureRow(TablePath)

    /// The change as one line of a batch log: `- delete {0, 3}`, `+ insert {1, 0}`,
    /// `→ move {0, 2} to {1, 4}`, `↻ reload {0, 1}`, `↺ reconfigure {0, 2}`, and
    /// `section N` in place of a path for sections. With `ascii`, moves use `>`,
    /// reloads `~` and reconfigurations `*`.
    public func logLine(ascii: Bool = false) -> String {
        let moveMark = ascii ? ">" : "→"
        let reloadMark = ascii ? "~" : "↻"
        switch self {
        case .deleteSection(let s): return "- delete section \(s)"
        case .insertSection(let s): return "+ insert section \(s)"
        case .moveSection(let m): return "\(moveMark) move section \(m.from) to \(m.to)"
        case .reloadSection(let s): return "\(reloadMark) reload section \(s)"
        case .deleteRow(let p): return "- delete \(p)"
        case .insertRow(let p): return "+ insert \(p)"
        case .moveRow(let m): return "\(moveMark) move \(m.from) to \(m.to)"
        case .reloadRow(let p): return "\(reloadMark) reload \(p)"
        case .reconfigureRow(let p): return "\(ascii ? "*" : "↺") reconfigure \(p)"
        }
    }
}

extension BatchUpdate: CustomStringConvertible {
    /// Every change of the batch, in log order: sections before rows, and in each,
    /// deletes, inserts, moves, then reloads, each kind sorted by position.
    ///
    /// - Complexity: O(*k* log *k*), where *k* is the number of changes.
    public var changes: [BatchChange] {
        var result: [BatchChange] = []
        result.reserveCapacity(changeCount)
        result += deletedSections.sorted().map(BatchChange.deleteSection)
        result += insertedSections.sorted().map(BatchChange.insertSection)
        result += movedSections.sorted { ($0.from, $0.to) < ($1.from, $1.to) }.map(BatchChange.moveSection)
        result += reloadedSections.sorted().map(BatchChange.reloadSection)
        result += deletedRows.sorted().map(BatchChange.deleteRow)
        result += insertedRows.sorted().map(BatchChange.insertRow)
        result += movedRows.sorted { $0.from != $1.from ? $0.from < $1.from : $0.to < $1.to }.map(BatchChange.moveRow)
        result += reloadedRows.sorted().map(BatchChange.reloadRow)
        return result
    }

    /// The batch as a readable log, one line per change (see ``BatchChange/logLine(ascii:)``).
    public func logLines(ascii: Bool = false) -> [String] {
        changes.map { $0.logLine(ascii: ascii) }
    }

    /// The batch log, one change per line; `(no changes)` for an empty batch.
    public var description: String {
        isEmpty ? "(no changes)" : logLines().joined(separator: "\n")
    }
}
