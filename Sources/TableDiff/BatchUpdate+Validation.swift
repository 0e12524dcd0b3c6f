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
        let sectionsBefore = before.count, sectionsAfter = after.count

        // 1. Everything named exists.
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
        for p in deletedRows { try Self._checkExisting(p, before) }
        for p in reloadedRows { try Self._checkExisting(p, before) }
        for p in insertedRows {
            guard (0..<sectionsAfter).contains(p.section) else {
                throw .insertRowSectionOutOfRange(row: p.row, section: p.section, sectionCount: sectionsAfter)
            }
            guard (0..<after[p.section]).contains(p.row) else {
                throw .insertRowOutOfRange(row: p.row, section: p.section, rowCount: after[p.section])
            }
        }
        for m in movedRows {
            guard (0..<sectionsBefore).contains(m.from.section) else {
                throw .moveRowSectionOutOfRange(m.from, sectionCount: sectionsBefore)
            }
            guard (0..<before[m.from.section]).contains(m.from.row) else {
                throw .moveRowOutOfRange(m.from, rowCount: before[m.from.section])
            }
            guard (0..<sectionsAfter).contains(m.to.section) else {
                throw .moveRowDestinationSectionOutOfRange(from: m.from, to: m.to, sectionCount: sectionsAfter)
            }
            guard (0..<after[m.to.section]).contains(m.to.row) else {
                throw .moveRowDestinationOutOfRange(from: m.from, to: m.to, rowCount: after[m.to.section])
            }
        }

        // 2. Section changes do not collide.
        var oldFlags = [UInt8](repeating: 0, count: sectionsBefore)
        var newFlags = [UInt8](repeating: 0, count: sectionsAfter)
        var newForOld = [Int32](repeating: -1, count: sectionsBefore)
        var oldForNew = [Int32](repeating: -1, count: sectionsAfter)
        var deletedCount = 0, insertedCount = 0
        for s in deletedSections where oldFlags[s] & BatchMapping.deletedFlag == 0 {
            oldFlags[s] |= BatchMapping.deletedFlag
            deletedCount += 1
        }
        for s in reloadedSections {
            if oldFlags[s] & BatchMapping.deletedFlag != 0 { throw .deleteAndReloadSection(s) }
            oldFlags[s] |= BatchMapping.reloadedFlag
        }
        for t in insertedSections where newFlags[t] & BatchMapping.insertedFlag == 0 {
            newFlags[t] |= BatchMapping.insertedFlag
            insertedCount += 1
        }
        for m in movedSections {
            if oldFlags[m.from] & (BatchMapping.deletedFlag | BatchMapping.reloadedFlag) != 0 {
                throw .deleteAndMoveSection(m.from)
            }
            if oldFlags[m.from] & BatchMapping.movedFlag != 0 {
                throw .moveSectionToBoth(from: m.from, first: Int(newForOld[m.from]), second: m.to)
            }
            if newFlags[m.to] & BatchMapping.insertedFlag != 0 { throw .insertAndMoveSection(m.to) }
            if newFlags[m.to] & BatchMapping.moveTargetFlag != 0 {
                throw .moveBothSections(first: Int(oldForNew[m.to]), second: m.from, to: m.to)
            }
            oldFlags[m.from] |= BatchMapping.movedFlag
            newFlags[m.to] |= BatchMapping.moveTargetFlag
            newForOld[m.from] = Int32(m.to)
            oldForNew[m.to] = Int32(m.from)
        }

        // 3. The number of sections adds up.
        guard sectionsAfter == sectionsBefore + insertedCount - deletedCount else {
            throw .invalidNumberOfSections(
                after: sectionsAfter, before: sectionsBefore, inserted: insertedCount, deleted: deletedCount)
        }

        // Sections that neither go nor move fill the free places in order; the
        // count check above guarantees there are exactly enough.
        var t = 0
        for s in 0..<sectionsBefore where oldFlags[s] & (BatchMapping.deletedFlag | BatchMapping.movedFlag) == 0 {
            while newFlags[t] & (BatchMapping.insertedFlag | BatchMapping.moveTargetFlag) != 0 { t += 1 }
            newForOld[s] = Int32(t)
            oldForNew[t] = Int32(s)
            if oldFlags[s] & BatchMapping.reloadedFlag != 0 { newFlags[t] |= BatchMapping.reloadTargetFlag }
            t += 1
        }

        // 4. Rows do not cross into or out of sections that are replaced wholesale.
        let goneOld = BatchMapping.deletedFlag | BatchMapping.reloadedFlag
        let freshNew = BatchMapping.insertedFlag | BatchMapping.reloadTargetFlag
        for m in movedRows {
            if oldFlags[m.from.section] & goneOld != 0 { throw .deleteAndMoveSection(m.from.section) }
            if newFlags[m.to.section] & freshNew != 0 { throw .insertAndMoveSection(m.to.section) }
        }

        // 5. Row changes do not collide. Changes inside replaced sections are ignored.
        let deleted = Self._sortedUnique(deletedRows.filter { oldFlags[$0.section] & goneOld == 0 })
        let reloaded = Self._sortedUnique(reloadedRows.filter { oldFlags[$0.section] & goneOld == 0 })
        let inserted = Self._sortedUnique(insertedRows.filter { newFlags[$0.section] & freshNew == 0 })
        if let both = Self._firstCommon(deleted, reloaded) { throw .deleteAndReloadRow(both) }
        let byFrom = Self._stableSorted(movedRows, by: \.from)
        let byTo = Self._stableSorted(movedRows, by: \.to)
        for (a, b) in zip(byFrom, byFrom.dropFirst()) where a.from == b.from {
            throw .moveRowToBoth(from: a.from, first: a.to, second: b.to)
        }
        for (a, b) in zip(byTo, byTo.dropFirst()) where a.to == b.to {
            throw .moveBothRows(first: a.from, second: b.from, to: a.to)
        }
        let sources = byFrom.map(\.from)
        if let both = Self._firstCommon(deleted, sources) { throw .deleteAndMoveRow(both) }
        if let both = Self._firstCommon(reloaded, sources) { throw .deleteAndMoveRow(both) }
        if let both = Self._firstCommon(inserted, byTo.map(\.to)) { throw .insertAndMoveRow(both) }

        // 6. Every section that stays adds up.
        var counts = [(inserted: Int, deleted: Int, movedIn: Int, movedOut: Int)](
            repeating: (0, 0, 0, 0), count: sectionsBefore)
        for p in deleted { counts[p.section].deleted += 1 }
        for p in inserted {
            let s = Int(oldForNew[p.section])
            if s >= 0 { counts[s].inserted += 1 }
        }
        for m in movedRows where Int(newForOld[m.from.section]) != m.to.section {
            counts[m.from.section].movedOut += 1
            let s = Int(oldForNew[m.to.section])
            if s >= 0 { counts[s].movedIn += 1 }
        }
        for s in 0..<sectionsBefore where oldFlags[s] & goneOld == 0 {
            let c = counts[s]
            let afterCount = after[Int(newForOld[s])]
            if afterCount != before[s] + c.inserted - c.deleted + c.movedIn - c.movedOut {
                throw .invalidNumberOfRows(
                    section: s, after: afterCount, before: before[s], inserted: c.inserted, deleted: c.deleted,
                    movedIn: c.movedIn, movedOut: c.movedOut)
            }
        }

        return BatchMapping(
            newSectionForOld: newForOld, oldSectionForNew: oldForNew,
            oldSectionFlags: oldFlags, newSectionFlags: newFlags,
            deletedRows: deleted, reloadedRows: reloaded, insertedRows: inserted,
            movesByFrom: byFrom, movesByTo: byTo)
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
