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

/// A table state within a changeset, by reference into the old and new tables.
@usableFromInline
struct _Layout: Sendable {
    /// For every section: an old section `s` (≥ 0) or a new section `t` as `-(t + 1)`.
    @usableFromInline var sections: [Int32]
    /// Where each section's rows start in `rows`, plus the end.
    @usableFromInline var starts: [Int32]
    /// For every row: an old row `i` (≥ 0) or a new row `j` as `-(j + 1)`, by flat index.
    @usableFromInline var rows: [Int32]
    /// For every section: whether it is exactly its old (or new) section, rows
    /// and all — then its data is that section's, shared, not rebuilt.
    @usableFromInline var verbatim: [Bool]

    /// The section that holds the row at flat index `flat`.
    func section(ofRow flat: Int) -> Int { _sectionOf(flat, starts) }

    func path(ofRow flat: Int) -> TablePath {
        let k = section(ofRow: flat)
        return TablePath(row: flat - Int(starts[k]), section: k)
    }
}

@usableFromInline
struct _PlannedStage: Sendable {
    @usableFromInline var update: BatchUpdate
    /// The table after the stage; nil when it is the new table itself.
    @usableFromInline var layout: _Layout?
}

/// The section (by `starts`, one more than the sections) holding flat row `flat`.
func _sectionOf(_ flat: Int, _ starts: [Int32]) -> Int {
    // The last section whose start is ≤ flat and that is not empty at flat.
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

/// Plans the stages of a changeset.
///
/// - Complexity: O(*n* + *s* + *m* log *m*), where *n* is the number of rows, *s*
///   the number of sections and *m* the number of paired rows not in order
///   (see `_longestIncreasingSubsequence`).
@usableFromInline
func _planStages(oldRowCounts: [Int], newRowCounts: [Int], rows: _Matching, sections: _Matching) -> [_PlannedStage] {
    let clock = ContinuousClock(); var t0 = clock.now
    func lap(_ s: String) { if _profilePhases { print("  ", s, clock.now - t0) }; t0 = clock.now }
    let oldStarts = _prefixStarts(oldRowCounts), newStarts = _prefixStarts(newRowCounts)
    let oldSectionCount = oldRowCounts.count, newSectionCount = newRowCounts.count
    let oldCount = rows.oldToNew.count, newCount = rows.newToOld.count

    // Deleted sections that still hold a row of the new table ("emitting"), and
    // inserted sections that receive a row of the old one ("receiving").
    var emitting = [Bool](repeating: false, count: oldSectionCount)
    var receiving = [Bool](repeating: false, count: newSectionCount)
    var needsClose = false, needsOpen = false
    for s in 0..<oldSectionCount where sections.oldToNew[s] < 0 {
        for i in Int(oldStarts[s])..<Int(oldStarts[s + 1]) where rows.oldToNew[i] >= 0 {
            emitting[s] = true
            needsClose = true
            break
        }
    }
    for t in 0..<newSectionCount where sections.newToOld[t] < 0 {
        for j in Int(newStarts[t])..<Int(newStarts[t + 1]) where rows.newToOld[j] >= 0 {
            receiving[t] = true
            needsOpen = true
            break
        }
    }

    let identityLayout = {
        _Layout(
            sections: (0..<newSectionCount).map { Int32(-($0 + 1)) },
            starts: newStarts,
            rows: (0..<newCount).map { Int32(-($0 + 1)) },
            verbatim: [Bool](repeating: true, count: newSectionCount))
    }

    if !needsOpen && !needsClose {
        // The common case: old → new in one batch, plus a stage that reloads rows
        // that moved and changed, if any.
        let (update, refresh) = _buildTransition(
            aStarts: oldStarts, bStarts: newStarts,
            sectionAToB: sections.oldToNew, sectionBToA: sections.newToOld,
            rowAToB: rows.oldToNew, rowBToA: rows.newToOld,
            changedA: rows.hasChanges ? rows.changed : nil, refreshIsFree: false)
        if refresh.isEmpty { return update.isEmpty ? [] : [_PlannedStage(update: update, layout: nil)] }
        var shown = identityLayout()
        var close = BatchUpdate()
        for (a, b) in refresh {
            shown.rows[Int(b)] = a   // still shows the old content until reloaded
            let path = shown.path(ofRow: Int(b))
            shown.verbatim[path.section] = false
            close.reloadedRows.append(path)
        }
        close.reloadedRows.sort()
        return [_PlannedStage(update: update, layout: shown), _PlannedStage(update: close, layout: nil)]
    }

    lap("classify")
    // A: the table before the main stage (after the open stage, if any).
    // Receiving sections are inserted after the old section that comes before
    // them in the new table, holding only their new rows.
    var a = _Layout(sections: [], starts: [0], rows: [], verbatim: [])
    var insertedInOpen: [Int] = []
    do {
        var anchored = [[Int]](repeating: [], count: oldSectionCount + 1)   // by old section + 1
        var lastOld = -1
        for t in 0..<newSectionCount {
            let s = Int(sections.newToOld[t])
            if s >= 0 { lastOld = s } else if receiving[t] { anchored[lastOld + 1].append(t) }
        }
        a.rows.reserveCapacity(oldCount)
        func appendReceiving(_ list: [Int]) {
            for t in list {
                insertedInOpen.append(a.sections.count)
                a.sections.append(Int32(-(t + 1)))
                a.verbatim.append(false)
                for j in Int(newStarts[t])..<Int(newStarts[t + 1]) where rows.newToOld[j] < 0 {
                    a.rows.append(Int32(-(j + 1)))
                }
                a.starts.append(Int32(a.rows.count))
            }
        }
        appendReceiving(anchored[0])
        for s in 0..<oldSectionCount {
            a.sections.append(Int32(s))
            a.verbatim.append(true)
            for i in Int(oldStarts[s])..<Int(oldStarts[s + 1]) { a.rows.append(Int32(i)) }
            a.starts.append(Int32(a.rows.count))
            appendReceiving(anchored[s + 1])
        }
    }

    // B: the table after the main stage (before the close stage, if any).
    // Emitting sections stay, after the new section that comes after the old one
    // before them, holding only their deleted rows.
    var b = _Layout(sections: [], starts: [0], rows: [], verbatim: [])
    var deletedInClose: [Int] = []
    do {
        var anchored = [[Int]](repeating: [], count: newSectionCount + 1)   // by new section + 1
        var lastNew = -1
        for s in 0..<oldSectionCount {
            let t = Int(sections.oldToNew[s])
            if t >= 0 { lastNew = t } else if emitting[s] { anchored[lastNew + 1].append(s) }
        }
        b.rows.reserveCapacity(newCount)
        func appendEmitting(_ list: [Int]) {
            for s in list {
                deletedInClose.append(b.sections.count)
                b.sections.append(Int32(s))
                b.verbatim.append(false)
                for i in Int(oldStarts[s])..<Int(oldStarts[s + 1]) where rows.oldToNew[i] < 0 {
                    b.rows.append(Int32(i))
                }
                b.starts.append(Int32(b.rows.count))
            }
        }
        appendEmitting(anchored[0])
        for t in 0..<newSectionCount {
            b.sections.append(Int32(-(t + 1)))
            b.verbatim.append(true)
            for j in Int(newStarts[t])..<Int(newStarts[t + 1]) { b.rows.append(Int32(-(j + 1))) }
            b.starts.append(Int32(b.rows.count))
            appendEmitting(anchored[t + 1])
        }
    }

    lap("layouts")
    // Pair A and B by identity: a row's key is its old index, or the old count
    // plus its new index when it is new; a section's likewise.
    func rowKey(_ ref: Int32) -> Int {
        if ref >= 0 { return Int(ref) }
        let j = Int(-(ref + 1))
        let i = rows.newToOld[j]
        return i >= 0 ? Int(i) : oldCount + j
    }
    func sectionKey(_ ref: Int32) -> Int {
        if ref >= 0 { return Int(ref) }
        let t = Int(-(ref + 1))
        let s = sections.newToOld[t]
        return s >= 0 ? Int(s) : oldSectionCount + t
    }
    func pair(_ from: [Int32], _ to: [Int32], keyCount: Int, key: (Int32) -> Int) -> (forward: [Int32], backward: [Int32]) {
        var position = [Int32](repeating: -1, count: keyCount)
        for (index, ref) in to.enumerated() { position[key(ref)] = Int32(index) }
        var forward = [Int32](repeating: -1, count: from.count)
        var backward = [Int32](repeating: -1, count: to.count)
        for (index, ref) in from.enumerated() {
            let target = position[key(ref)]
            forward[index] = target
            if target >= 0 { backward[Int(target)] = Int32(index) }
        }
        return (forward, backward)
    }
    let rowPairs = pair(a.rows, b.rows, keyCount: oldCount + newCount, key: rowKey)
    let sectionPairs = pair(a.sections, b.sections, keyCount: oldSectionCount + newSectionCount, key: sectionKey)
    var changedA: _BitSet? = nil
    if rows.hasChanges {
        var changed = _BitSet(count: a.rows.count)
        for (index, ref) in a.rows.enumerated() where ref >= 0 && rows.changed[Int(ref)] { changed[index] = true }
        changedA = changed
    }
    lap("pairing")
    let (update, refresh) = _buildTransition(
        aStarts: a.starts, bStarts: b.starts,
        sectionAToB: sectionPairs.forward, sectionBToA: sectionPairs.backward,
        rowAToB: rowPairs.forward, rowBToA: rowPairs.backward,
        changedA: changedA, refreshIsFree: true)

    lap("transition")
    var stages: [_PlannedStage] = []
    let refreshInOpen = needsOpen
    if needsOpen {
        // Open: insert the receiving sections; reload moved-and-changed rows in
        // their old places (A's old sections hold exactly the old rows).
        var open = BatchUpdate(insertedSections: insertedInOpen)
        var shown = a
        for (rowA, _) in refresh {
            let path = a.path(ofRow: Int(rowA))
            open.reloadedRows.append(TablePath(row: path.row, section: Int(a.sections[path.section])))
            shown.rows[Int(rowA)] = -(rows.oldToNew[Int(a.rows[Int(rowA)])] + 1)
            shown.verbatim[path.section] = false
        }
        open.reloadedRows.sort()
        stages.append(_PlannedStage(update: open, layout: shown))
    }
    let needsCloseStage = needsClose || (!refreshInOpen && !refresh.isEmpty)
    if needsCloseStage {
        var close = BatchUpdate(deletedSections: deletedInClose)
        var shown = b
        if !refreshInOpen {
            for (rowA, rowB) in refresh {
                let path = b.path(ofRow: Int(rowB))
                close.reloadedRows.append(path)
                shown.rows[Int(rowB)] = a.rows[Int(rowA)]   // the old content, until reloaded
                shown.verbatim[path.section] = false
            }
            close.reloadedRows.sort()
        }
        stages.append(_PlannedStage(update: update, layout: shown))
        stages.append(_PlannedStage(update: close, layout: nil))
    } else {
        stages.append(_PlannedStage(update: update, layout: nil))
    }
    return stages
}

/// What a stage is worth in moves: a changeset keeps changed rows in place (so
/// that they can be reloaded in the same batch) rather than add a stage to reload
/// them after they move, unless that costs more than this many extra moves.
let _stageCostInMoves = 2

/// Builds one batch from table A to table B, given how their sections and rows
/// pair. Rows of deleted sections and of inserted sections must be unpaired.
///
/// Which sections and rows move is decided here: those of a longest increasing
/// subsequence stay, the others move. Paired rows that stay and changed are
/// reloaded; rows that move and changed are returned in `refresh` (A and B flat
/// indices), for another stage to reload. `refreshIsFree` says whether that
/// other stage exists anyway; when it does not, changed rows are kept in place
/// if that costs at most `_stageCostInMoves` more moves.
func _buildTransition(
    aStarts: [Int32], bStarts: [Int32],
    sectionAToB: [Int32], sectionBToA: [Int32],
    rowAToB: [Int32], rowBToA: [Int32],
    changedA: _BitSet?,
    refreshIsFree: Bool
) -> (update: BatchUpdate, refresh: [(Int32, Int32)]) {
    let aSections = aStarts.count - 1, bSections = bStarts.count - 1
    var update = BatchUpdate()
    var refresh: [(Int32, Int32)] = []

    // Sections: deleted, inserted, and moved unless on a longest increasing run.
    var sequence: [Int32] = [], sequenceSection: [Int32] = []
    for s in 0..<aSections {
        let t = sectionAToB[s]
        if t < 0 { update.deletedSections.append(s) } else {
            sequence.append(t)
            sequenceSection.append(Int32(s))
        }
    }
    for t in 0..<bSections where sectionBToA[t] < 0 { update.insertedSections.append(t) }
    var sectionStays = [Bool](repeating: false, count: aSections)
    sequence.withUnsafeBufferPointer { seq in
        _longestIncreasingSubsequence(seq) { sectionStays[Int(sequenceSection[$0])] = true }
    }
    for s in 0..<aSections where sectionAToB[s] >= 0 && !sectionStays[s] {
        update.movedSections.append(Move(from: s, to: Int(sectionAToB[s])))
    }

    // Rows: per A section, the paired rows that stay in the same section are
    // candidates to stay; a longest increasing run of their B positions stays.
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
            for s in 0..<aSections {
                let t = sectionAToB[s]
                let start = Int(aStarts[s]), end = Int(aStarts[s + 1])
                if t < 0 {
                    assert((start..<end).allSatisfy { rowAToB[$0] < 0 }, "a row leaves a deleted section")
                    continue
                }
                // The B position of a paired row staying in section t, else nil.
                let bStart = bStarts[Int(t)], bEnd = bStarts[Int(t) + 1]
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

    // A row that moves and changes costs a stage (to reload it). When that stage
    // is not already there, and keeping the changed rows in place instead costs
    // at most `_stageCostInMoves` more moves, keep them in place.
    if let changedA, !refreshIsFree, !changedMovesAcross, !sectionsMovingChanged.isEmpty {
        var alternative: [(rows: [Int], stays: [Int])] = []
        var extraMoves = 0
        for s in sectionsMovingChanged {
            let t = Int(sectionAToB[s])
            let rows = (Int(aStarts[s])..<Int(aStarts[s + 1])).filter { i in
                let j = rowAToB[i]
                return j >= bStarts[t] && j < bStarts[t + 1]
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

    for s in 0..<aSections where sectionAToB[s] >= 0 {
        let start = Int(aStarts[s]), end = Int(aStarts[s + 1])
        var i = start
        while i < end {
            // A whole word of rows that stay, unchanged and paired, needs nothing.
            if i & 63 == 0, i + 64 <= end, stays.words[i >> 6] == ~0, changedA.map({ $0.words[i >> 6] == 0 }) ?? true {
                i += 64
                continue
            }
            defer { i += 1 }
            let from = TablePath(row: i - start, section: s)
            let j = rowAToB[i]
            if j < 0 {
                update.deletedRows.append(from)
                continue
            }
            let changed = changedA?[i] ?? false
            if stays[i] {
                if changed { update.reloadedRows.append(from) }
                continue
            }
            let tj = bSections == 1 ? 0 : _sectionOf(Int(j), bStarts)
            update.movedRows.append(Move(from: from, to: TablePath(row: Int(j) - Int(bStarts[tj]), section: tj)))
            if changed { refresh.append((Int32(i), j)) }
        }
    }
    for t in 0..<bSections {
        let start = Int(bStarts[t]), end = Int(bStarts[t + 1])
        if sectionBToA[t] < 0 {
            assert((start..<end).allSatisfy { rowBToA[$0] < 0 }, "a row enters an inserted section")
            continue
        }
        for j in start..<end where rowBToA[j] < 0 {
            update.insertedRows.append(TablePath(row: j - start, section: t))
        }
    }
    return (update, refresh)
}

public nonisolated(unsafe) var _profilePhases = false
