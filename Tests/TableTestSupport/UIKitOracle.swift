import TableDiff

/// An independent model of what UIKit does with a batch update, written
/// naively and separately from the library (by simulation: take out what
/// leaves, then put in, in ascending order of destination, what arrives), to
/// check the library's diff and its own batch engine against.
public enum UIKitOracle {
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
    }

    /// Replays `update` on `displayed` with `data` as the data source, as UIKit
    /// would. Returns what the table shows afterwards, or why UIKit refuses.
    public static func replay(_ update: BatchUpdate, displayed: Table, data: Table) -> Result<Table, Refusal> {
        func refuse(_ text: String) -> Result<Table, Refusal> { .failure(Refusal(description: text)) }
        let before = displayed.map(\.rows.count), after = data.map(\.rows.count)

        // Sections named must exist.
        for s in update.deletedSections + update.reloadedSections where !(0..<before.count).contains(s) {
            return refuse("section \(s) out of range before")
        }
        for t in update.insertedSections where !(0..<after.count).contains(t) { return refuse("inserted section \(t) out of range") }
        for m in update.movedSections {
            if !(0..<before.count).contains(m.from) || !(0..<after.count).contains(m.to) { return refuse("moved section out of range") }
        }
        let deletedSections = Set(update.deletedSections), reloadedSections = Set(update.reloadedSections)
        let insertedSections = Set(update.insertedSections)
        if !deletedSections.isDisjoint(with: reloadedSections) { return refuse("section deleted and reloaded") }
        var sectionMoveFrom: [Int: Int] = [:], sectionMoveTo: [Int: Int] = [:]
        for m in update.movedSections {
            if deletedSections.contains(m.from) || reloadedSections.contains(m.from) { return refuse("section deleted and moved") }
            if sectionMoveFrom[m.from] != nil { return refuse("section moved twice") }
            if insertedSections.contains(m.to) { return refuse("section inserted and moved to") }
            if sectionMoveTo[m.to] != nil { return refuse("two sections moved to one") }
            sectionMoveFrom[m.from] = m.to
            sectionMoveTo[m.to] = m.from
        }
        if after.count != before.count + insertedSections.count - deletedSections.count {
            return refuse("invalid number of sections")
        }

        // Where old sections go: simulate.
        enum Slot: Equatable { case old(Int), inserted }
        var order: [Slot] = (0..<before.count)
            .filter { !deletedSections.contains($0) && sectionMoveFrom[$0] == nil }
            .map { .old($0) }
        let arrivals = (update.insertedSections.map { ($0, Slot.inserted) } + update.movedSections.map { ($0.to, Slot.old($0.from)) })
        var seenInserted = Set<Int>()
        for (destination, slot) in arrivals.sorted(by: { $0.0 < $1.0 }) {
            if slot == .inserted { if !seenInserted.insert(destination).inserted { continue } }
            order.insert(slot, at: destination)
        }
        var newSectionOfOld: [Int: Int] = [:]
        for (t, slot) in order.enumerated() { if case .old(let s) = slot { newSectionOfOld[s] = t } }
        func gone(_ s: Int) -> Bool { deletedSections.contains(s) || reloadedSections.contains(s) }
        func fresh(_ t: Int) -> Bool {
            if case .old(let s) = order[t] { return reloadedSections.contains(s) }
            return true
        }

        // Rows named must exist.
        for p in update.deletedRows + update.reloadedRows {
            if !(0..<before.count).contains(p.section) || !(0..<before[p.section]).contains(p.row) { return refuse("row \(p) out of range before") }
        }
        for p in update.insertedRows {
            if !(0..<after.count).contains(p.section) || !(0..<after[p.section]).contains(p.row) { return refuse("inserted row \(p) out of range") }
        }
        for m in update.movedRows {
            if !(0..<before.count).contains(m.from.section) || !(0..<before[m.from.section]).contains(m.from.row) { return refuse("moved row out of range") }
            if !(0..<after.count).contains(m.to.section) || !(0..<after[m.to.section]).contains(m.to.row) { return refuse("move destination out of range") }
        }
        for m in update.movedRows {
            if gone(m.from.section) { return refuse("row moved out of a deleted section") }
            if fresh(m.to.section) { return refuse("row moved into an inserted section") }
        }
        let deletedRows = Set(update.deletedRows.filter { !gone($0.section) })
        let reloadedRows = Set(update.reloadedRows.filter { !gone($0.section) })
        let insertedRows = Set(update.insertedRows.filter { !fresh($0.section) })
        if !deletedRows.isDisjoint(with: reloadedRows) { return refuse("row deleted and reloaded") }
        var moveFrom: [TablePath: TablePath] = [:], moveTo: [TablePath: TablePath] = [:]
        for m in update.movedRows {
            if moveFrom[m.from] != nil { return refuse("row moved twice") }
            if moveTo[m.to] != nil { return refuse("two rows moved to one place") }
            moveFrom[m.from] = m.to
            moveTo[m.to] = m.from
        }
        if !Set(moveFrom.keys).isDisjoint(with: deletedRows.union(reloadedRows)) { return refuse("row deleted and moved") }
        if !Set(moveTo.keys).isDisjoint(with: insertedRows) { return refuse("row inserted and moved to") }

        // Counts of every section that stays.
        for s in 0..<before.count where !gone(s) {
            let t = newSectionOfOld[s]!
            let inserted = insertedRows.filter { $0.section == t }.count
            let deleted = deletedRows.filter { $0.section == s }.count
            let movedIn = update.movedRows.filter { $0.to.section == t && newSectionOfOld[$0.from.section] != t }.count
            let movedOut = update.movedRows.filter { $0.from.section == s && $0.to.section != t }.count
            if after[t] != before[s] + inserted - deleted + movedIn - movedOut { return refuse("invalid number of rows in section \(s)") }
        }

        // Build what is shown: stationary rows, then arrivals in ascending order.
        var result: Table = []
        for (t, slot) in order.enumerated() {
            guard case .old(let s) = slot, !reloadedSections.contains(s) else {
                result.append(data[t])
                continue
            }
            enum RowSlot { case stays(Int), arrives(Item) }
            var rows: [RowSlot] = (0..<before[s])
                .filter { r in
                    let p = TablePath(row: r, section: s)
                    return !deletedRows.contains(p) && moveFrom[p] == nil
                }
                .map { .stays($0) }
            let rowArrivals = insertedRows.filter { $0.section == t }.map { ($0.row, data[t].rows[$0.row]) }
                + update.movedRows.filter { $0.to.section == t }.map { ($0.to.row, displayed[$0.from.section].rows[$0.from.row]) }
            for (destination, item) in rowArrivals.sorted(by: { $0.0 < $1.0 }) {
                rows.insert(.arrives(item), at: destination)
            }
            let items = rows.enumerated().map { x, slot -> Item in
                switch slot {
                case .arrives(let item): return item
                case .stays(let r):
                    return reloadedRows.contains(TablePath(row: r, section: s)) ? data[t].rows[x] : displayed[s].rows[r]
                }
            }
            result.append(TableSection(name: displayed[s].name, rows: items))
        }
        return .success(result)
    }

    /// Checks a changeset from `old` to `new` against UIKit's rules and the
    /// promises of `TableChangeset`; returns every problem found.
    public static func problems(of changeset: TableChangeset<Item>, from old: Table, to new: Table) -> [String] {
        var problems: [String] = []
        let oldIDs = old.flatMap(\.rows).map(\.id), newIDs = new.flatMap(\.rows).map(\.id)
        let oldCounts = Dictionary(oldIDs.map { ($0, 1) }, uniquingKeysWith: +)
        let newCounts = Dictionary(newIDs.map { ($0, 1) }, uniquingKeysWith: +)
        // Identities that are unique on both sides and present in both.
        let paired = Set(oldIDs.filter { oldCounts[$0] == 1 && newCounts[$0] == 1 })

        var shown = old
        for (index, stage) in changeset.stages.enumerated() {
            let update = stage.update
            // Nothing paired is deleted or inserted, alone or with its section.
            var removed = update.deletedRows.compactMap { p in shown.indices.contains(p.section) && shown[p.section].rows.indices.contains(p.row) ? shown[p.section].rows[p.row].id : nil }
            for s in update.deletedSections + update.reloadedSections where shown.indices.contains(s) {
                removed += shown[s].rows.map(\.id)
            }
            var added = update.insertedRows.compactMap { p in stage.sections.indices.contains(p.section) && stage.sections[p.section].rows.indices.contains(p.row) ? stage.sections[p.section].rows[p.row].id : nil }
            for t in update.insertedSections where stage.sections.indices.contains(t) { added += stage.sections[t].rows.map(\.id) }
            for id in removed where paired.contains(id) { problems.append("stage \(index + 1) deletes row \(id), which is in both tables") }
            for id in added where paired.contains(id) { problems.append("stage \(index + 1) inserts row \(id), which is in both tables") }
            if update.isEmpty { problems.append("stage \(index + 1) is empty") }

            switch replay(update, displayed: shown, data: stage.sections) {
            case .failure(let refusal):
                problems.append("UIKit refuses stage \(index + 1): \(refusal)\n  \(update.logLines().joined(separator: "; "))")
                return problems
            case .success(let next):
                // The library's own engine agrees with the oracle.
                do {
                    let engine = try update.applying(to: shown, dataSource: stage.sections)
                    if engine != next { problems.append("the library applies stage \(index + 1) differently from the oracle") }
                } catch {
                    problems.append("the library refuses stage \(index + 1), the oracle accepts: \(error)")
                }
                shown = next
            }
        }
        if shown != new {
            problems.append("after all stages the table shows \(describe(shown)), not \(describe(new))")
        }
        if changeset.stages.count > 3 { problems.append("\(changeset.stages.count) stages") }
        if old == new && !changeset.isEmpty { problems.append("equal tables give a non-empty changeset") }

        // Stages: one when nothing forces more.
        let oldNames = Set(old.map(\.name)), newNames = Set(new.map(\.name))
        let oldSectionOf = Dictionary(old.flatMap { s in s.rows.map { ($0.id, s.name) } }, uniquingKeysWith: { a, _ in a })
        let newSectionOf = Dictionary(new.flatMap { s in s.rows.map { ($0.id, s.name) } }, uniquingKeysWith: { a, _ in a })
        let oldContent = Dictionary(old.flatMap(\.rows).map { ($0.id, $0.content) }, uniquingKeysWith: { a, _ in a })
        let uniqueSections = old.count == oldNames.count && new.count == newNames.count
        if uniqueSections && paired.count == Set(oldIDs).count && paired.count == Set(newIDs).count {
            let crossesIn = paired.contains { !oldNames.contains(newSectionOf[$0]!) }
            let crossesOut = paired.contains { !newNames.contains(oldSectionOf[$0]!) }
            let anyChanged = new.flatMap(\.rows).contains { oldContent[$0.id] != $0.content }
            let bound = 1 + (crossesIn ? 1 : 0) + (crossesOut ? 1 : 0) + (anyChanged && !crossesIn ? 1 : 0)
            if old != new && changeset.stages.count > bound {
                problems.append("\(changeset.stages.count) stages where \(bound) suffice")
            }
            if !crossesIn && !crossesOut && !anyChanged && old != new && changeset.stages.count != 1 {
                problems.append("\(changeset.stages.count) stages where 1 suffices")
            }
        }

        // Duplicates: exactly the identities that occur more than once.
        let expectedDuplicates = Set(oldCounts.filter { $0.value > 1 }.keys).union(newCounts.filter { $0.value > 1 }.keys)
        if Set(changeset.duplicateIdentifiers) != expectedDuplicates || changeset.duplicateIdentifiers.count != expectedDuplicates.count {
            problems.append("duplicates reported \(changeset.duplicateIdentifiers), expected \(expectedDuplicates.sorted())")
        }
        return problems
    }
}
