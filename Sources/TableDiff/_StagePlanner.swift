// The second half of the diff: from the pairing of rows and sections
// (`_IdentityMatching.swift`), the stages of a changeset. Not generic: it works
// on flat integer arrays only.
//
// One stage when UIKit allows it. UIKit refuses three things in one batch, and
// each adds a stage:
// - a row moving **into a section inserted** by the same batch: the section must
//   exist first, so an *open* stage inserts it before the main stage;
// - a row moving **out of a section deleted** by the same batch: the row must
//   leave first, so a *close* stage deletes the section after the main stage;
// - a row both **moved and changed**: a reload and a move of one row cannot share
//   a batch, so the row is reloaded in the open stage, at its old place, when
//   there is one; otherwise in the close stage, at its new place (a close stage
//   is then added if needed).
// Rows whose content changed but that stay in place are reloaded in the main
// stage. So a changeset has one, two or three stages, in this order:
// open (insert sections, reload) → main (everything else) → close (delete
// sections, reload).

/// An old or a new index in one `Int32`, as `_Layout` stores them (one word
/// per row of a staged layout): old `i` as `i`, new `j` as `-(j + 1)`. The
/// encoding is written and read through these alone.
@usableFromInline
enum _Ref {
    @inlinable @inline(__always)
    static func new(_ j: Int) -> Int32 { Int32(-(j + 1)) }
    @inlinable @inline(__always)
    static func new(_ j: Int32) -> Int32 { -(j + 1) }
    @inlinable @inline(__always)
    static func newIndex(_ ref: Int32) -> Int { Int(-(ref + 1)) }
    /// The element a reference names: an old one, or a new one.
    @inlinable @inline(__always)
    static func element<T>(_ ref: Int32, old: [T], new: [T]) -> T { ref >= 0 ? old[Int(ref)] : new[newIndex(ref)] }
}

/// A table state within a changeset, by reference into the old and new tables.
@usableFromInline
struct _Layout: Sendable {
    /// For every section: an old section `s` (≥ 0) or a new section `t` as `-(t + 1)`.
    @usableFromInline var sections: [Int32]
    /// For every section: nil when it is exactly that old or new section, rows
    /// and all (its data is then that section's, shared); otherwise its rows,
    /// each an old row `i` (≥ 0) or a new row `j` as `-(j + 1)`, by flat index.
    @usableFromInline var rows: [[Int32]?]
}

@usableFromInline
struct _PlannedStage: Sendable {
    @usableFromInline var update: BatchUpdate
    /// The table after the stage; nil when it is the new table itself.
    @usableFromInline var layout: _Layout?
}

/// The section (by `starts`, one more than the sections) holding flat row `flat`.
func _sectionOf(_ flat: Int, _ starts: [Int32]) -> Int {
    var low = 0, high = starts.count - 1
    while low < high {
        let mid = (low + high) >> 1
        if Int(starts[mid + 1]) <= flat { low = mid + 1 } else { high = mid }
    }
    return low
}

func _prefixStarts(_ counts: [Int]) -> [Int32] {
    var starts = [Int32](repeating: 0, count: counts.count + 1)
    for k in counts.indices { starts[k + 1] = starts[k] + Int32(counts[k]) }
    return starts
}

/// The old and new tables, their pairing, and the order of sections around the
/// main stage.
struct _Tables {
    let oldStarts: [Int32], newStarts: [Int32]
    let rows: _Matching, sections: _Matching
    /// Deleted sections that hold a row of the new table: they stay through the
    /// main stage (the rows leave them) and are deleted in the close stage.
    var emitting: [Bool]
    /// Inserted sections that receive a row of the old table: the open stage
    /// inserts them (with their new rows) before the main stage.
    var receiving: [Bool]
    /// The sections before the main stage (after the open stage, "A") and
    /// after it (before the close stage, "B"): old or new section references
    /// (`_Ref`), as in `_Layout.sections`.
    var sectionsBeforeMain: [Int32] = [], sectionsAfterMain: [Int32] = []
    /// Positions in A of old sections and of receiving sections; in B of new
    /// sections and of emitting sections; -1 when absent.
    var beforeMainPlaceOfOld: [Int32] = [], beforeMainPlaceOfNew: [Int32] = [], afterMainPlaceOfNew: [Int32] = [], afterMainPlaceOfOld: [Int32] = []

    var oldSectionCount: Int { oldStarts.count - 1 }
    var newSectionCount: Int { newStarts.count - 1 }

    init(oldRowCounts: [Int], newRowCounts: [Int], rows: _Matching, sections: _Matching) {
        oldStarts = _prefixStarts(oldRowCounts)
        newStarts = _prefixStarts(newRowCounts)
        self.rows = rows
        self.sections = sections
        emitting = [Bool](repeating: false, count: oldRowCounts.count)
        receiving = [Bool](repeating: false, count: newRowCounts.count)
        for s in 0..<oldRowCounts.count where sections.oldToNew[s] < 0 {
            emitting[s] = (Int(oldStarts[s])..<Int(oldStarts[s + 1])).contains { rows.oldToNew[$0] >= 0 }
        }
        for t in 0..<newRowCounts.count where sections.newToOld[t] < 0 {
            receiving[t] = (Int(newStarts[t])..<Int(newStarts[t + 1])).contains { rows.newToOld[$0] >= 0 }
        }

        // A: the old sections, and each receiving section after the old section
        // that comes before it in the new table.
        var lastOld = -1
        var receivingAfter = [[Int32]](repeating: [], count: oldSectionCount + 1)
        for t in 0..<newSectionCount {
            let s = Int(sections.newToOld[t])
            if s >= 0 { lastOld = s } else if receiving[t] { receivingAfter[lastOld + 1].append(_Ref.new(t)) }
        }
        sectionsBeforeMain += receivingAfter[0]
        for s in 0..<oldSectionCount { sectionsBeforeMain.append(Int32(s)); sectionsBeforeMain += receivingAfter[s + 1] }
        // B: the new sections, and each emitting section just before the section
        // that follows it in A and is still there after the main stage (or at the
        // end) — so that A and B agree on the order of the sections they share.
        var emittingBefore = [[Int32]](repeating: [], count: newSectionCount + 1)   // by new section; last: at the end
        var following = newSectionCount
        for ref in sectionsBeforeMain.reversed() {
            if ref < 0 {
                following = _Ref.newIndex(ref)
            } else if sections.oldToNew[Int(ref)] >= 0 {
                following = Int(sections.oldToNew[Int(ref)])
            } else if emitting[Int(ref)] {
                emittingBefore[following].insert(ref, at: 0)
            }
        }
        for t in 0..<newSectionCount { sectionsAfterMain += emittingBefore[t]; sectionsAfterMain.append(_Ref.new(t)) }
        sectionsAfterMain += emittingBefore[newSectionCount]

        beforeMainPlaceOfOld = [Int32](repeating: -1, count: oldSectionCount)
        beforeMainPlaceOfNew = [Int32](repeating: -1, count: newSectionCount)
        for (k, ref) in sectionsBeforeMain.enumerated() {
            if ref >= 0 { beforeMainPlaceOfOld[Int(ref)] = Int32(k) } else { beforeMainPlaceOfNew[_Ref.newIndex(ref)] = Int32(k) }
        }
        afterMainPlaceOfNew = [Int32](repeating: -1, count: newSectionCount)
        afterMainPlaceOfOld = [Int32](repeating: -1, count: oldSectionCount)
        for (k, ref) in sectionsAfterMain.enumerated() {
            if ref >= 0 { afterMainPlaceOfOld[Int(ref)] = Int32(k) } else { afterMainPlaceOfNew[_Ref.newIndex(ref)] = Int32(k) }
        }
    }

    var needsOpen: Bool { sectionsBeforeMain.count > oldSectionCount }
    var needsClose: Bool { sectionsAfterMain.count > newSectionCount }

    /// The path in B of new row `j`.
    func afterMainPath(ofNew j: Int) -> TablePath {
        let t = _sectionOf(j, newStarts)
        return TablePath(row: j - Int(newStarts[t]), section: Int(afterMainPlaceOfNew[t]))
    }

    /// The rows of a layout section that is not verbatim: the receiving section
    /// `t`'s new rows, or the emitting section `s`'s deleted rows.
    func partialRows(_ ref: Int32) -> [Int32] {
        if ref >= 0 {
            let s = Int(ref)
            return (oldStarts[s]..<oldStarts[s + 1]).filter { rows.oldToNew[Int($0)] < 0 }
        }
        let t = _Ref.newIndex(ref)
        return (newStarts[t]..<newStarts[t + 1]).filter { rows.newToOld[Int($0)] < 0 }.map(_Ref.new)
    }

    /// A layout of `order`: sections verbatim, except receiving and emitting ones.
    func layout(_ order: [Int32], partial: (Int32) -> Bool) -> _Layout {
        _Layout(sections: order, rows: order.map { partial($0) ? partialRows($0) : nil })
    }
}

/// Plans the stages of a changeset.
///
/// - Complexity: O(*n* + *s* log *s* + *m* log *m*), where *n* is the number of
///   rows, *s* the number of sections and *m* the number of paired rows not in
///   runs that keep their order (see `_longestIncreasingSubsequence`).
@usableFromInline
func _planStages(oldRowCounts: [Int], newRowCounts: [Int], rows: _Matching, sections: _Matching) -> [_PlannedStage] {
    let tables = _Tables(oldRowCounts: oldRowCounts, newRowCounts: newRowCounts, rows: rows, sections: sections)
    let needsOpen = tables.needsOpen, needsClose = tables.needsClose
    let (update, refresh) = _buildTransition(tables, refreshIsFree: needsOpen || needsClose)

    // Layouts after the open stage (A) and after the main stage (B), when those
    // are not the new table.
    var afterOpen = tables.layout(tables.sectionsBeforeMain) { $0 < 0 }
    var afterMain = tables.layout(tables.sectionsAfterMain) { $0 >= 0 }
    // Rows that move and change are reloaded in the open stage if there is one
    // (at their old place), else in the close stage (at their new place); until
    // then they show their old content.
    let refreshInOpen = needsOpen
    var reloads: [TablePath] = []
    for (i, j) in refresh {
        if refreshInOpen {
            let s = _sectionOf(Int(i), tables.oldStarts)
            reloads.append(TablePath(row: Int(i) - Int(tables.oldStarts[s]), section: s))
            let k = Int(tables.beforeMainPlaceOfOld[s])
            var shown = afterOpen.rows[k] ?? Array(tables.oldStarts[s]..<tables.oldStarts[s + 1])
            shown[Int(i) - Int(tables.oldStarts[s])] = _Ref.new(j)
            afterOpen.rows[k] = shown
        } else {
            let path = tables.afterMainPath(ofNew: Int(j))
            reloads.append(path)
            let t = _sectionOf(Int(j), tables.newStarts)
            var shown = afterMain.rows[path.section] ?? (tables.newStarts[t]..<tables.newStarts[t + 1]).map(_Ref.new)
            shown[path.row] = i
            afterMain.rows[path.section] = shown
        }
    }
    reloads.sort()

    var stages: [_PlannedStage] = []
    if needsOpen {
        // Open: insert the receiving sections, with their new rows.
        let inserted = tables.sectionsBeforeMain.indices.filter { tables.sectionsBeforeMain[$0] < 0 }
        stages.append(_PlannedStage(
            update: BatchUpdate(insertedSections: inserted, reloadedRows: refreshInOpen ? reloads : []),
            layout: afterOpen))
    }
    if needsClose || (!refreshInOpen && !refresh.isEmpty) {
        // Close: delete the emitting sections (emptied of the rows that moved).
        let deleted = tables.sectionsAfterMain.indices.filter { tables.sectionsAfterMain[$0] >= 0 }
        stages.append(_PlannedStage(update: update, layout: afterMain))
        stages.append(_PlannedStage(
            update: BatchUpdate(deletedSections: deleted, reloadedRows: refreshInOpen ? [] : reloads), layout: nil))
    } else if !update.isEmpty {
        stages.append(_PlannedStage(update: update, layout: nil))
    }
    return stages
}

/// What a stage is worth in moves: a changeset keeps changed rows in place (so
/// that they can be reloaded in the same batch) rather than add a stage to reload
/// them after they move, unless that costs more than this many extra moves.
let _stageCostInMoves = 2

/// Builds the main batch, from the sections in `tables.sectionsBeforeMain` to those in
/// `tables.sectionsAfterMain`. Receiving sections exist on both sides (their rows arrive);
/// emitting sections too (their rows leave); other deleted sections are deleted
/// here, other inserted sections inserted here.
///
/// Which sections and rows move is decided here: those of a longest increasing
/// subsequence stay, the others move. Paired rows that stay and changed are
/// reloaded; rows that move and changed are returned in `refresh` (old and new
/// flat indices), for another stage to reload. `refreshIsFree` says whether that
/// other stage exists anyway; when it does not, changed rows are kept in place
/// if that costs at most `_stageCostInMoves` more moves.
func _buildTransition(_ tables: _Tables, refreshIsFree: Bool) -> (update: BatchUpdate, refresh: [(Int32, Int32)]) {
    var update = BatchUpdate()
    _planSectionChanges(tables, into: &update)
    var (stays, movement) = _rowsThatStay(tables)
    if !refreshIsFree { _keepChangedRowsInPlaceIfCheap(tables, movement, &stays) }
    let refresh = _planRowChanges(tables, stays, into: &update)
    return (update, refresh)
}

/// Phase 1 of the main batch: sections deleted, inserted, and moved unless on
/// a longest increasing run.
func _planSectionChanges(_ tables: _Tables, into update: inout BatchUpdate) {
    let sections = tables.sections
    var sequence: [Int32] = [], sequenceSection: [Int32] = []
    for (k, ref) in tables.sectionsBeforeMain.enumerated() {
        let b: Int32
        if ref < 0 {
            b = tables.afterMainPlaceOfNew[_Ref.newIndex(ref)]                // receiving
        } else if sections.oldToNew[Int(ref)] >= 0 {
            b = tables.afterMainPlaceOfNew[Int(sections.oldToNew[Int(ref)])]
        } else {
            b = tables.afterMainPlaceOfOld[Int(ref)]                       // emitting, or -1: deleted
        }
        if b < 0 { update.deletedSections.append(k) } else {
            sequence.append(b)
            sequenceSection.append(Int32(k))
        }
    }
    for (k, ref) in tables.sectionsAfterMain.enumerated() where ref < 0 {
        let t = _Ref.newIndex(ref)
        if sections.newToOld[t] < 0 && !tables.receiving[t] { update.insertedSections.append(k) }
    }
    var sectionStays = [Bool](repeating: false, count: tables.sectionsBeforeMain.count)
    sequence.withUnsafeBufferPointer { seq in
        _longestIncreasingSubsequence(seq) { sectionStays[Int(sequenceSection[$0])] = true }
    }
    for (k, b) in zip(sequenceSection, sequence) where !sectionStays[Int(k)] {
        update.movedSections.append(Move(from: Int(k), to: Int(b)))
    }
}

/// How changed rows move, as `_rowsThatStay` found: the sections where a
/// changed row moves within its section, and whether one moves across sections.
struct _ChangedRowMovement {
    var sectionsMovingChanged: [Int] = []
    var changedMovesAcross = false
}

/// Phase 2: the rows that stay. Per A section, the paired rows that stay in
/// the same section are candidates to stay; a longest increasing run of their
/// B positions stays.
func _rowsThatStay(_ tables: _Tables) -> (stays: _BitSet, movement: _ChangedRowMovement) {
    let rows = tables.rows, sections = tables.sections
    let oldStarts = tables.oldStarts, newStarts = tables.newStarts
    let rowAToB = rows.oldToNew
    let changedA: _BitSet? = rows.hasChanges ? rows.changed : nil
    var stays = _BitSet(count: rowAToB.count)
    var sectionsMovingChanged: [Int] = []
    var changedMovesAcross = false
    let previous = UnsafeMutablePointer<Int32>.allocate(capacity: max(rowAToB.count, 1))
    defer { previous.deallocate() }
    var tails: [Int32] = []
    let runs = UnsafeMutablePointer<_Run>.allocate(capacity: max(rowAToB.count, 1))
    defer { runs.deallocate() }
    var scratch = _RunScratch()
    rowAToB.withUnsafeBufferPointer { rowAToB in
            for s in 0..<tables.oldSectionCount {
                let t = sections.oldToNew[s]
                let start = Int(oldStarts[s]), end = Int(oldStarts[s + 1])
                if t < 0 { continue }   // deleted: its rows go with it, or (emitting) all move
                // The new position of a paired row staying in section t, else nil.
                let bStart = newStarts[Int(t)], bEnd = newStarts[Int(t) + 1]
                func candidate(_ i: Int) -> Int32? {
                    let j = rowAToB[i]
                    return j >= bStart && j < bEnd ? j : nil
                }
                // Usually the candidates come in long runs (unchanged stretches):
                // then the longest increasing subsequence is chosen among whole
                // runs; otherwise (reversed, shuffled) row by row.
                var runCount = 0, candidateCount = 0
                for i in start..<end {
                    guard let j = candidate(i) else { continue }
                    candidateCount += 1
                    if runCount > 0, Int(runs[runCount - 1].start + runs[runCount - 1].length) == i,
                        runs[runCount - 1].first + runs[runCount - 1].length == j
                    {
                        runs[runCount - 1].length += 1
                    } else {
                        runs[runCount] = _Run(start: Int32(i), length: 1, first: j)
                        runCount += 1
                    }
                }
                if runCount * 8 <= candidateCount {
                    let runs = UnsafeBufferPointer(start: runs, count: runCount)
                    _heaviestIncreasingRuns(runs, scratch: &scratch) { k in
                        let run = runs[k]
                        for i in Int(run.start)..<Int(run.start + run.length) { stays[i] = true }
                    }
                } else {
                    _longestIncreasingSubsequence(
                        count: end - start, previous: previous + start, tails: &tails,
                        value: { candidate(start + $0) }, keep: { stays[start + $0] = true })
                }
                guard let changedA else { continue }
                var movingChanged = false
                // Changed rows that move; a word at a time, as changed rows are few.
                var word = start >> 6
                while word << 6 < end {
                    var bits = changedA.words[word] & ~stays.words[word]
                    while bits != 0 {
                        let i = word << 6 + bits.trailingZeroBitCount
                        bits &= bits - 1
                        guard i >= start, i < end, rowAToB[i] >= 0 else { continue }
                        if candidate(i) == nil { changedMovesAcross = true } else { movingChanged = true }
                    }
                    word += 1
                }
                if movingChanged { sectionsMovingChanged.append(s) }
            }
    }
    return (stays, _ChangedRowMovement(sectionsMovingChanged: sectionsMovingChanged, changedMovesAcross: changedMovesAcross))
}

/// Phase 3: a row that moves and changes costs a stage (to reload it). When
/// that stage is not already there (the caller checks), and keeping the
/// changed rows in place instead costs at most `_stageCostInMoves` more moves,
/// keep them in place.
func _keepChangedRowsInPlaceIfCheap(_ tables: _Tables, _ movement: _ChangedRowMovement, _ stays: inout _BitSet) {
    let rows = tables.rows, sections = tables.sections
    let oldStarts = tables.oldStarts, newStarts = tables.newStarts
    let rowAToB = rows.oldToNew
    let changedA: _BitSet? = rows.hasChanges ? rows.changed : nil
    guard let changedA, !movement.changedMovesAcross, !movement.sectionsMovingChanged.isEmpty else { return }
    do {
        var alternative: [(rows: [Int], stays: [Int])] = []
        var extraMoves = 0
        for s in movement.sectionsMovingChanged {
            let t = Int(sections.oldToNew[s])
            let rows = (Int(oldStarts[s])..<Int(oldStarts[s + 1])).filter { i in
                let j = rowAToB[i]
                return j >= newStarts[t] && j < newStarts[t + 1]
            }
            let values = rows.map { rowAToB[$0] }
            guard let kept = _longestIncreasingKeeping(values: values[...], isChanged: { changedA[rows[$0]] }) else {
                extraMoves = Int.max   // the changed rows are out of order: one must move
                break
            }
            extraMoves += rows.filter { stays[$0] }.count - kept.count
            alternative.append((rows, kept.map { rows[$0] }))
        }
        if extraMoves <= _stageCostInMoves {
            for (rows, kept) in alternative {
                for i in rows { stays[i] = false }
                for i in kept { stays[i] = true }
            }
        }
    }
}

/// Phase 4: the row changes of the main batch — deleted, reloaded in place,
/// moved, inserted; returns the moved rows that changed (old and new flat
/// indices), for another stage to reload.
func _planRowChanges(_ tables: _Tables, _ stays: _BitSet, into update: inout BatchUpdate) -> [(Int32, Int32)] {
    let rows = tables.rows, sections = tables.sections
    let oldStarts = tables.oldStarts, newStarts = tables.newStarts
    let rowAToB = rows.oldToNew
    let changedA: _BitSet? = rows.hasChanges ? rows.changed : nil
    var refresh: [(Int32, Int32)] = []
    for s in 0..<tables.oldSectionCount where sections.oldToNew[s] >= 0 || tables.emitting[s] {
        let start = Int(oldStarts[s]), end = Int(oldStarts[s + 1])
        let a = Int(tables.beforeMainPlaceOfOld[s])
        let isEmitting = tables.emitting[s]
        var i = start
        while i < end {
            // A whole word of rows that stay, unchanged and paired, needs nothing.
            if i & 63 == 0, i + 64 <= end, stays.words[i >> 6] == ~0, changedA.map({ $0.words[i >> 6] == 0 }) ?? true {
                i += 64
                continue
            }
            defer { i += 1 }
            let from = TablePath(row: i - start, section: a)
            let j = rowAToB[i]
            if j < 0 {
                if !isEmitting { update.deletedRows.append(from) }   // else deleted with its section
                continue
            }
            let changed = changedA?[i] ?? false
            if stays[i] {
                if changed { update.reloadedRows.append(from) }
                continue
            }
            update.movedRows.append(Move(from: from, to: tables.afterMainPath(ofNew: Int(j))))
            if changed { refresh.append((Int32(i), j)) }
        }
    }
    for t in 0..<tables.newSectionCount where sections.newToOld[t] >= 0 {
        let start = Int(newStarts[t]), end = Int(newStarts[t + 1])
        let b = Int(tables.afterMainPlaceOfNew[t])
        for j in start..<end where rows.newToOld[j] < 0 {
            update.insertedRows.append(TablePath(row: j - start, section: b))
        }
    }
    return refresh
}
