/// Where every section and row of a table goes in a checked ``BatchUpdate``.
///
/// ``BatchUpdate/validate(rowCountsBefore:rowCountsAfter:)`` returns a mapping
/// once the batch passes UIKit's checks. It answers, for a section or row before
/// the batch, where it is after it — and the other way round — the way UIKit
/// places them: deleted and moved-out rows leave their section, inserted and
/// moved-in rows take their places, and every other row keeps its order and
/// fills the places left.
///
/// A reloaded row maps to its new place (it is the same row, refreshed); a row of a
/// deleted or reloaded section maps to nothing. Queries cost O(log *k*), where *k*
/// is the number of changes in the batch, whatever the number of rows.
public struct BatchMapping: Sendable {
    /// The number of sections before the batch.
    public let sectionCountBefore: Int
    /// The number of sections after the batch.
    public let sectionCountAfter: Int

    // Section maps, -1 for none.
    @usableFromInline let _newSectionForOld: [Int32]
    @usableFromInline let _oldSectionForNew: [Int32]
    /// Per old section: deleted, reloaded, moved.
    @usableFromInline let _oldSectionStates: [_OldSectionState]
    /// Per new section: inserted, target of a move, a reloaded section's new place.
    @usableFromInline let _newSectionStates: [_NewSectionState]

    // Row changes in surviving sections, sorted, without duplicates.
    let deletedRows: [TablePath]
    let insertedRows: [TablePath]
    /// The reloaded rows of sections that stay, in coordinates before the batch, sorted.
    public let reloadedRowPaths: [TablePath]
    /// The row moves, sorted by source.
    public let rowMoves: [Move<TablePath>]
    /// The row moves, sorted by destination.
    let rowMovesByDestination: [Move<TablePath>]
    /// The rows that leave their place — deleted, or moved out — in coordinates
    /// before the batch, sorted; rows of deleted and reloaded sections are not
    /// among them.
    public let leavingRows: [TablePath]
    /// The places rows arrive at — inserted, or moved in — in coordinates after
    /// the batch, sorted; rows of inserted and reloaded sections are not among them.
    public let arrivingRows: [TablePath]
    /// Whether every section stays where it is: the batch inserts, deletes,
    /// moves and reloads no section (a layout then changes only the sections
    /// whose rows the batch names).
    package let keepsSections: Bool

    init(
        newSectionForOld: [Int32], oldSectionForNew: [Int32],
        oldSectionStates: [_OldSectionState], newSectionStates: [_NewSectionState],
        deletedRows: [TablePath], reloadedRows: [TablePath], insertedRows: [TablePath],
        rowMoves: [Move<TablePath>], rowMovesByDestination: [Move<TablePath>], keepsSections: Bool
    ) {
        self.sectionCountBefore = newSectionForOld.count
        self.sectionCountAfter = oldSectionForNew.count
        self._newSectionForOld = newSectionForOld
        self._oldSectionForNew = oldSectionForNew
        self._oldSectionStates = oldSectionStates
        self._newSectionStates = newSectionStates
        self.deletedRows = deletedRows
        self.reloadedRowPaths = reloadedRows
        self.insertedRows = insertedRows
        self.rowMoves = rowMoves
        self.rowMovesByDestination = rowMovesByDestination
        self.keepsSections = keepsSections
        self.leavingRows = _mergeSorted(deletedRows, rowMoves.map(\.from))
        self.arrivingRows = _mergeSorted(insertedRows, rowMovesByDestination.map(\.to))
    }

    // MARK: Sections

    /// The index after the batch of the section at `section` before it, or nil
    /// when that section is deleted or does not exist.
    ///
    /// A reloaded section keeps its place: this returns its index after the batch.
    public func newSection(forOld section: Int) -> Int? {
        guard section >= 0, section < _newSectionForOld.count else { return nil }
        let t = _newSectionForOld[section]
        return t < 0 ? nil : Int(t)
    }

    /// The index before the batch of the section at `section` after it, or nil when
    /// that section is inserted or does not exist.
    public func oldSection(forNew section: Int) -> Int? {
        guard section >= 0, section < _oldSectionForNew.count else { return nil }
        let s = _oldSectionForNew[section]
        return s < 0 ? nil : Int(s)
    }

    /// Whether the section at `section` before the batch is reloaded by it.
    public func isSectionReloaded(old section: Int) -> Bool {
        section >= 0 && section < _oldSectionStates.count && _oldSectionStates[section].contains(.reloaded)
    }

    /// Whether the section at `section` after the batch is new: inserted, or the
    /// new place of a reloaded section — its rows all come from the data source.
    public func isSectionFresh(new section: Int) -> Bool {
        section >= 0 && section < _newSectionStates.count && !_newSectionStates[section].isDisjoint(with: .fresh)
    }

    // MARK: Rows

    /// Whether the row at `path` before the batch is reloaded by it (directly or
    /// because its section is).
    public func isRowReloaded(old path: TablePath) -> Bool {
        isSectionReloaded(old: path.section) || _contains(reloadedRowPaths, path)
    }

    /// The path after the batch of the row at `path` before it, or nil when the row
    /// is deleted, its section is deleted or reloaded, or it does not exist.
    ///
    /// - Complexity: O(log *k*), where *k* is the number of changes in the batch.
    public func newIndexPath(forOld path: TablePath) -> TablePath? {
        guard path.section >= 0, path.section < _newSectionForOld.count, path.row >= 0 else { return nil }
        let t = _newSectionForOld[path.section]
        if t < 0 || _oldSectionStates[path.section].contains(.reloaded) { return nil }
        if let move = _find(rowMoves, path, by: \.from) { return move.to }
        if _contains(deletedRows, path) { return nil }
        // The row keeps its order among the rows that stay: it is the k-th of them,
        // and takes the k-th place not taken by an inserted or moved-in row.
        let removed = _sectionSlice(leavingRows, path.section)
        let k = path.row - _countLess(removed, path.row)
        let taken = _sectionSlice(arrivingRows, Int(t))
        return TablePath(row: k + _countFillBefore(taken, k), section: Int(t))
    }

    /// The path before the batch of the row at `path` after it, or nil when that row
    /// is inserted (or in an inserted or reloaded section), or does not exist.
    ///
    /// A reloaded row maps back to its place before the batch.
    ///
    /// - Complexity: O(log *k*), where *k* is the number of changes in the batch.
    public func oldIndexPath(forNew path: TablePath) -> TablePath? {
        guard path.section >= 0, path.section < _oldSectionForNew.count, path.row >= 0 else { return nil }
        let s = _oldSectionForNew[path.section]
        if s < 0 || _oldSectionStates[Int(s)].contains(.reloaded) { return nil }
        if let move = _find(rowMovesByDestination, path, by: \.to) { return move.from }
        if _contains(insertedRows, path) { return nil }
        let taken = _sectionSlice(arrivingRows, path.section)
        let k = path.row - _countLess(taken, path.row)
        let removed = _sectionSlice(leavingRows, Int(s))
        return TablePath(row: k + _countFillBefore(removed, k), section: Int(s))
    }
}

// MARK: - Section states

/// What a batch does to a section as it was before the batch.
@usableFromInline
struct _OldSectionState: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt8
    @usableFromInline init(rawValue: UInt8) { self.rawValue = rawValue }
    static let deleted = _OldSectionState(rawValue: 1 << 0)
    static let reloaded = _OldSectionState(rawValue: 1 << 1)
    static let moved = _OldSectionState(rawValue: 1 << 2)
    /// Replaced wholesale: its rows go with it.
    static let replaced: _OldSectionState = [.deleted, .reloaded]
}

/// What a batch does to a section as it is after the batch.
@usableFromInline
struct _NewSectionState: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt8
    @usableFromInline init(rawValue: UInt8) { self.rawValue = rawValue }
    static let inserted = _NewSectionState(rawValue: 1 << 0)
    static let moveTarget = _NewSectionState(rawValue: 1 << 1)
    /// The new place of a reloaded section.
    static let reloadTarget = _NewSectionState(rawValue: 1 << 2)
    /// New wholesale: its rows all come from the data source.
    static let fresh: _NewSectionState = [.inserted, .reloadTarget]
}

// MARK: - Sorted-array helpers

/// Merges two sorted arrays into one sorted array.
func _mergeSorted(_ a: [TablePath], _ b: [TablePath]) -> [TablePath] {
    if b.isEmpty { return a }
    if a.isEmpty { return b.sorted() }
    let b = b.sorted()
    var result: [TablePath] = []
    result.reserveCapacity(a.count + b.count)
    var i = 0, j = 0
    while i < a.count, j < b.count {
        if a[i] <= b[j] { result.append(a[i]); i += 1 } else { result.append(b[j]); j += 1 }
    }
    result += a[i...]
    result += b[j...]
    return result
}

/// The index of the first element not less than `key`.
func _lowerBound<T>(_ array: [T], _ key: TablePath, by path: (T) -> TablePath) -> Int {
    var low = 0, high = array.count
    while low < high {
        let mid = (low + high) / 2
        if path(array[mid]) < key { low = mid + 1 } else { high = mid }
    }
    return low
}

func _contains(_ sorted: [TablePath], _ path: TablePath) -> Bool {
    let i = _lowerBound(sorted, path) { $0 }
    return i < sorted.count && sorted[i] == path
}

func _find(_ sorted: [Move<TablePath>], _ path: TablePath, by key: KeyPath<Move<TablePath>, TablePath>) -> Move<TablePath>? {
    let i = _lowerBound(sorted, path) { $0[keyPath: key] }
    return i < sorted.count && sorted[i][keyPath: key] == path ? sorted[i] : nil
}

/// The rows (sorted) of one section within a sorted array of paths.
func _sectionSlice(_ sorted: [TablePath], _ section: Int) -> ArraySlice<TablePath> {
    let start = _lowerBound(sorted, TablePath(row: Int.min, section: section)) { $0 }
    let end = _lowerBound(sorted, TablePath(row: Int.min, section: section + 1)) { $0 }
    return sorted[start..<end]
}

/// The number of rows in `slice` (sorted, one section) less than `row`.
func _countLess(_ slice: ArraySlice<TablePath>, _ row: Int) -> Int {
    var low = slice.startIndex, high = slice.endIndex
    while low < high {
        let mid = (low + high) / 2
        if slice[mid].row < row { low = mid + 1 } else { high = mid }
    }
    return low - slice.startIndex
}

/// Given the sorted rows `occupied` of a section, the number of them that come
/// before the k-th (from 0) free row; the free row is then at `k + result`.
///
/// With occupied rows o₀ < o₁ < …, oₘ lies before the k-th free row exactly when
/// oₘ − m ≤ k, and oₘ − m never decreases, so a binary search finds the count.
func _countFillBefore(_ occupied: ArraySlice<TablePath>, _ k: Int) -> Int {
    var low = 0, high = occupied.count
    let base = occupied.startIndex
    while low < high {
        let mid = (low + high) / 2
        if occupied[base + mid].row - mid <= k { low = mid + 1 } else { high = mid }
    }
    return low
}
