extension BatchUpdate {
    /// Checks the batch the way UIKit checks `performBatchUpdates`, and returns
    /// where every section and row goes.
    ///
    /// `rowCountsBefore` are the row counts of every section the table showed
    /// before the batch (the counts UIKit cached at its last reload or update);
    /// `rowCountsAfter` are the counts the data source reports after it.
    ///
    /// The checks, in order (the first failure is thrown):
    /// 1. every section and row named exists before (deletes, reloads, move
    ///    sources) or after (inserts, move destinations) the batch;
    /// 2. no section is deleted and reloaded, deleted (or reloaded) and moved,
    ///    moved twice, or inserted where another is moved to;
    /// 3. the number of sections adds up: after = before + inserted − deleted;
    /// 4. no row is moved out of a deleted or reloaded section, or into an
    ///    inserted or reloaded one;
    /// 5. no row is deleted and reloaded, deleted (or reloaded) and moved, moved
    ///    twice, or inserted where another is moved to;
    /// 6. in every section that existed before (followed through moves, and
    ///    neither deleted nor reloaded), in order, the rows add up:
    ///    after = before + inserted − deleted + moved in − moved out, where only
    ///    moves between sections count and a reload nets zero.
    ///
    /// Row changes inside a section that is itself inserted, deleted or reloaded
    /// are ignored, as UIKit ignores them. Repeating the same delete, insert or
    /// reload has no further effect.
    ///
    /// - Throws: ``BatchUpdateError`` with UIKit's message.
    /// - Complexity: O(*s* + *k* log *k*), where *s* is the number of sections and
    ///   *k* the number of changes; not the number of rows.
    public func validate(rowCountsBefore before: [Int], rowCountsAfter after: [Int]) throws(BatchUpdateError) -> BatchMapping {
        // 1. Everything named exists.
        try _checkSectionsExist(before: before.count, after: after.count)
        try _checkRowsExist(before: before, after: after)
        // 2. Section changes do not collide.
        var sections = try _placeChangedSections(before: before.count, after: after.count)
        // 3. The number of sections adds up.
        try sections.checkSectionCount()
        sections.placeStayingSections()
        // 4. Rows do not cross into or out of sections that are replaced wholesale.
        try _checkMovesAvoidReplacedSections(sections)
        // 5. Row changes do not collide. Changes inside replaced sections are ignored.
        let rows = try _normalizedRowChanges(sections)
        // 6. Every section that stays adds up.
        try Self._checkRowCounts(rows, sections, before: before, after: after)
        return BatchMapping(
            newSectionForOld: sections.newForOld, oldSectionForNew: sections.oldForNew,
            oldSectionStates: sections.old, newSectionStates: sections.new,
            deletedRows: rows.deleted, reloadedRows: rows.reloaded, insertedRows: rows.inserted,
            rowMoves: rows.movesBySource, rowMovesByDestination: rows.movesByDestination,
            keepsSections: !sections.changesSections)
    }

    // MARK: The rules, in order

    /// Rule 1 for sections: every section deleted, reloaded or moved from exists
    /// before; every section inserted or moved to exists after.
    private func _checkSectionsExist(before sectionsBefore: Int, after sectionsAfter: Int) throws(BatchUpdateError) {
        for s in deletedSections where !(0..<sectionsBefore).contains(s) {
            throw .deleteSectionOutOfRange(section: s, sectionCount: sectionsBefore)
        }
        for s in reloadedSections where !(0..<sectionsBefore).contains(s) {
            throw .deleteSectionOutOfRange(section: s, sectionCount: sectionsBefore)
        }
        for t in insertedSections where !(0..<sectionsAfter).contains(t) {
            throw .insertSectionOutOfRange(section: t, sectionCount: sectionsAfter)
        }
        for m in movedSections {
            guard (0..<sectionsBefore).contains(m.from) else {
                throw .moveSectionOutOfRange(section: m.from, sectionCount: sectionsBefore)
            }
            guard (0..<sectionsAfter).contains(m.to) else {
                throw .moveSectionDestinationOutOfRange(from: m.from, to: m.to, sectionCount: sectionsAfter)
            }
        }
    }

    /// Rule 1 for rows: every row deleted, reloaded or moved from exists
    /// before; every row inserted or moved to exists after.
    private func _checkRowsExist(before: [Int], after: [Int]) throws(BatchUpdateError) {
        for p in deletedRows { try Self._checkExisting(p, before) }
        for p in reloadedRows { try Self._checkExisting(p, before) }
        for p in insertedRows {
            guard (0..<after.count).contains(p.section) else {
                throw .insertRowSectionOutOfRange(row: p.row, section: p.section, sectionCount: after.count)
            }
            guard (0..<after[p.section]).contains(p.row) else {
                throw .insertRowOutOfRange(row: p.row, section: p.section, rowCount: after[p.section])
            }
        }
        for m in movedRows {
            guard (0..<before.count).contains(m.from.section) else {
                throw .moveRowSectionOutOfRange(m.from, sectionCount: before.count)
            }
            guard (0..<before[m.from.section]).contains(m.from.row) else {
                throw .moveRowOutOfRange(m.from, rowCount: before[m.from.section])
            }
            guard (0..<after.count).contains(m.to.section) else {
                throw .moveRowDestinationSectionOutOfRange(from: m.from, to: m.to, sectionCount: after.count)
            }
            guard (0..<after[m.to.section]).contains(m.to.row) else {
                throw .moveRowDestinationOutOfRange(from: m.from, to: m.to, rowCount: after[m.to.section])
            }
        }
    }

    /// Rule 2: marks every changed section, refusing a section deleted and
    /// reloaded, deleted (or reloaded) and moved, moved twice, or inserted
    /// where another is moved to.
    private func _placeChangedSections(before sectionsBefore: Int, after sectionsAfter: Int) throws(BatchUpdateError) -> _SectionPlan {
        var plan = _SectionPlan(before: sectionsBefore, after: sectionsAfter)
        plan.changesSections = !(deletedSections.isEmpty && reloadedSections.isEmpty && insertedSections.isEmpty && movedSections.isEmpty)
        for s in deletedSections where !plan.old[s].contains(.deleted) {
            plan.old[s].insert(.deleted)
            plan.deletedCount += 1
        }
        for s in reloadedSections {
            if plan.old[s].contains(.deleted) { throw .deleteAndReloadSection(s) }
            plan.old[s].insert(.reloaded)
        }
        for t in insertedSections where !plan.new[t].contains(.inserted) {
            plan.new[t].insert(.inserted)
            plan.insertedCount += 1
        }
        for m in movedSections {
            if !plan.old[m.from].isDisjoint(with: .replaced) { throw .deleteAndMoveSection(m.from) }
            if plan.old[m.from].contains(.moved) {
                throw .moveSectionToBoth(from: m.from, first: Int(plan.newForOld[m.from]), second: m.to)
            }
            if plan.new[m.to].contains(.inserted) { throw .insertAndMoveSection(m.to) }
            if plan.new[m.to].contains(.moveTarget) {
                throw .moveBothSections(first: Int(plan.oldForNew[m.to]), second: m.from, to: m.to)
            }
            plan.old[m.from].insert(.moved)
            plan.new[m.to].insert(.moveTarget)
            plan.newForOld[m.from] = Int32(m.to)
            plan.oldForNew[m.to] = Int32(m.from)
        }
        return plan
    }

    /// Rule 4: no row moves out of a deleted or reloaded section, or into an
    /// inserted or reloaded one.
    private func _checkMovesAvoidReplacedSections(_ sections: _SectionPlan) throws(BatchUpdateError) {
        for m in movedRows {
            if !sections.old[m.from.section].isDisjoint(with: .replaced) { throw .deleteAndMoveSection(m.from.section) }
            if !sections.new[m.to.section].isDisjoint(with: .fresh) { throw .insertAndMoveSection(m.to.section) }
        }
    }

    /// Rule 5: the row changes of sections that stay, sorted without
    /// duplicates, refusing a row deleted and reloaded, deleted (or reloaded)
    /// and moved, moved twice, or inserted where another is moved to.
    private func _normalizedRowChanges(_ sections: _SectionPlan) throws(BatchUpdateError) -> _RowChanges {
        let deleted = Self._sortedUnique(deletedRows.filter { sections.old[$0.section].isDisjoint(with: .replaced) })
        let reloaded = Self._sortedUnique(reloadedRows.filter { sections.old[$0.section].isDisjoint(with: .replaced) })
        let inserted = Self._sortedUnique(insertedRows.filter { sections.new[$0.section].isDisjoint(with: .fresh) })
        if let both = Self._firstCommon(deleted, reloaded) { throw .deleteAndReloadRow(both) }
        let bySource = Self._stableSorted(movedRows, by: \.from)
        let byDestination = Self._stableSorted(movedRows, by: \.to)
        for (a, b) in zip(bySource, bySource.dropFirst()) where a.from == b.from {
            throw .moveRowToBoth(from: a.from, first: a.to, second: b.to)
        }
        for (a, b) in zip(byDestination, byDestination.dropFirst()) where a.to == b.to {
            throw .moveBothRows(first: a.from, second: b.from, to: a.to)
        }
        let sources = bySource.map(\.from)
        if let both = Self._firstCommon(deleted, sources) { throw .deleteAndMoveRow(both) }
        if let both = Self._firstCommon(reloaded, sources) { throw .deleteAndMoveRow(both) }
        if let both = Self._firstCommon(inserted, byDestination.map(\.to)) { throw .insertAndMoveRow(both) }
        return _RowChanges(
            deleted: deleted, reloaded: reloaded, inserted: inserted, movesBySource: bySource, movesByDestination: byDestination)
    }

    /// Rule 6: in every section that existed before (followed through moves,
    /// neither deleted nor reloaded) the rows add up: after = before +
    /// inserted − deleted + moved in − moved out (moves between sections only).
    ///
    /// Each section's change is one number of a flat array, compared in one
    /// pass; the parts of the first section that does not add up are counted
    /// again for the message.
    private static func _checkRowCounts(_ rows: _RowChanges, _ sections: _SectionPlan, before: [Int], after: [Int]) throws(BatchUpdateError) {
        var delta = [Int](repeating: 0, count: before.count)
        for p in rows.deleted { delta[p.section] -= 1 }
        for p in rows.inserted {
            let s = Int(sections.oldForNew[p.section])
            if s >= 0 { delta[s] += 1 }
        }
        for m in rows.movesBySource where Int(sections.newForOld[m.from.section]) != m.to.section {
            delta[m.from.section] -= 1
            let s = Int(sections.oldForNew[m.to.section])
            if s >= 0 { delta[s] += 1 }
        }
        var failing: Int?
        if !sections.changesSections {
            // Every section stays in its place: one pass over three arrays.
            failing = before.withUnsafeBufferPointer { before in
                after.withUnsafeBufferPointer { after in
                    delta.withUnsafeBufferPointer { delta in
                        before.indices.first { after[$0] != before[$0] &+ delta[$0] }
                    }
                }
            }
        } else {
            for s in 0..<before.count where sections.old[s].isDisjoint(with: .replaced) {
                if after[Int(sections.newForOld[s])] != before[s] + delta[s] {
                    failing = s
                    break
                }
            }
        }
        guard let s = failing else { return }
        var inserted = 0, deleted = 0, movedIn = 0, movedOut = 0
        for p in rows.deleted where p.section == s { deleted += 1 }
        for p in rows.inserted where Int(sections.oldForNew[p.section]) == s { inserted += 1 }
        for m in rows.movesBySource where Int(sections.newForOld[m.from.section]) != m.to.section {
            if m.from.section == s { movedOut += 1 }
            if Int(sections.oldForNew[m.to.section]) == s { movedIn += 1 }
        }
        throw .invalidNumberOfRows(
            section: s, after: after[Int(sections.newForOld[s])], before: before[s], inserted: inserted, deleted: deleted,
            movedIn: movedIn, movedOut: movedOut)
    }

    private static func _checkExisting(_ p: TablePath, _ before: [Int]) throws(BatchUpdateError) {
        guard (0..<before.count).contains(p.section) else {
            throw .deleteRowSectionOutOfRange(row: p.row, section: p.section, sectionCount: before.count)
        }
        guard (0..<before[p.section]).contains(p.row) else {
            throw .deleteRowOutOfRange(row: p.row, section: p.section, rowCount: before[p.section])
        }
    }

    private static func _sortedUnique(_ paths: [TablePath]) -> [TablePath] {
        var sorted = paths.sorted()
        var write = 0
        for read in sorted.indices where read == 0 || sorted[read] != sorted[write - 1] {
            sorted[write] = sorted[read]
            write += 1
        }
        sorted.removeLast(sorted.count - write)
        return sorted
    }

    private static func _stableSorted(_ moves: [Move<TablePath>], by key: KeyPath<Move<TablePath>, TablePath>) -> [Move<TablePath>] {
        moves.enumerated()
            .sorted { a, b in
                let ka = a.element[keyPath: key], kb = b.element[keyPath: key]
                return ka != kb ? ka < kb : a.offset < b.offset
            }
            .map(\.element)
    }

    /// The smallest path in both sorted arrays, if any.
    private static func _firstCommon(_ a: [TablePath], _ b: [TablePath]) -> TablePath? {
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if a[i] == b[j] { return a[i] }
            if a[i] < b[j] { i += 1 } else { j += 1 }
        }
        return nil
    }
}

/// Where sections go while a batch is checked: each old and new section's
/// state, and the section maps (-1 for none).
struct _SectionPlan {
    var old: [_OldSectionState]
    var new: [_NewSectionState]
    var newForOld: [Int32]
    var oldForNew: [Int32]
    var deletedCount = 0, insertedCount = 0
    /// Whether the batch inserts, deletes, moves or reloads a section.
    var changesSections = false

    init(before: Int, after: Int) {
        old = Array(repeating: [], count: before)
        new = Array(repeating: [], count: after)
        newForOld = Array(repeating: -1, count: before)
        oldForNew = Array(repeating: -1, count: after)
    }

    /// Rule 3: after = before + inserted − deleted.
    func checkSectionCount() throws(BatchUpdateError) {
        guard new.count == old.count + insertedCount - deletedCount else {
            throw .invalidNumberOfSections(after: new.count, before: old.count, inserted: insertedCount, deleted: deletedCount)
        }
    }

    /// Sections that neither go nor move fill the free places in order; the
    /// section count (rule 3) guarantees there are exactly enough.
    mutating func placeStayingSections() {
        guard changesSections else {
            // Every section keeps its place.
            newForOld = Array(0..<Int32(old.count))
            oldForNew = newForOld
            return
        }
        var t = 0
        for s in old.indices where old[s].isDisjoint(with: [.deleted, .moved]) {
            while !new[t].isDisjoint(with: [.inserted, .moveTarget]) { t += 1 }
            newForOld[s] = Int32(t)
            oldForNew[t] = Int32(s)
            if old[s].contains(.reloaded) { new[t].insert(.reloadTarget) }
            t += 1
        }
    }
}

/// The row changes of a checked batch in sections that stay, sorted, without duplicates.
struct _RowChanges {
    var deleted: [TablePath], reloaded: [TablePath], inserted: [TablePath]
    var movesBySource: [Move<TablePath>], movesByDestination: [Move<TablePath>]
}
