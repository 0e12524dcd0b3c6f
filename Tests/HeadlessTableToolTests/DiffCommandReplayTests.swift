import Foundation
import HeadlessTable
@testable import HeadlessTableTool
import TableTestSupport
import Testing

/// Random fetch-result pairs through `headless-table diff --format json`, each
/// replayed from the JSON alone by an independent checker under UIKit's rules.
@Suite struct DiffCommandReplayTests {
    @Test(arguments: TableGenerator.Shape.allCases)
    func randomPairsReplayFromTheJSON(shape: TableGenerator.Shape) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ 17 &+ UInt64(TableGenerator.Shape.allCases.firstIndex(of: shape)!))
        let folder = TemporaryFolder()
        var failures = 0
        for k in 0..<TestScale.cases(30, full: 250) {   // × 6 shapes
            let (old, new) = TableGenerator.pair(shape, &g)
            let oldPath = folder.file("old\(k).json", fetchResultJSON(old))
            let newPath = folder.file("new\(k).json", fetchResultJSON(new))
            let result = runCLI(["diff", oldPath, newPath, "--format", "json"])
            // Duplicate ids are refused (exit 1, the ids named), as in every command.
            func duplicated(_ table: Table) -> Bool { let ids = table.flatMap(\.rows).map(\.id); return Set(ids).count < ids.count }
            if duplicated(old) || duplicated(new) {
                if result.status != 1 || result.out != "" || !result.err.contains(": duplicate id") {
                    failures += 1
                    if failures <= 3 { Issue.record("seed \(seed): duplicates not refused: \(result.status) \(result.err)") }
                }
                continue
            }
            let problems = result.status != 0
                ? ["exit status \(result.status): \(result.err)"]
                : JSONReplay.problems(output: try JSON.parse(result.out), old: old, new: new)
            // And the JSON says what the library computes.
            let library = DiffCommand.json(TableChangeset(
                from: try FetchResultFile.read(oldPath, idKey: "id"), to: try FetchResultFile.read(newPath, idKey: "id")))
            if !problems.isEmpty || library + "\n" != result.out {
                failures += 1
                if failures <= 3 {
                    Issue.record("seed \(seed), shape \(shape)\nold: \(describe(old))\nnew: \(describe(new))\n\(result.out)\(problems.joined(separator: "\n"))")
                }
            }
        }
        expectEqual(failures, 0, "seed \(seed) (TABLE_TEST_SEED=\(seed) to replay)")
    }
}

/// Replays the JSON output of `diff` on the old table, knowing only what the
/// JSON says (rows inserted before the last stage are unknown until the end),
/// and checks: every stage passes UIKit's checks, the final table is the new
/// one, every changed row was reloaded, and no row in both tables was deleted
/// or inserted.
enum JSONReplay {
    /// A row as the checker knows it: its identity when it came from the old
    /// table, nil when it was inserted before the last stage.
    struct Row: Equatable {
        var id: Int?
        var reloaded = false
    }

    static func problems(output: RecordValue, old: Table, new: Table) -> [String] {
        guard case .record(let document) = output, case .array(let stages)? = document["stages"],
            case .array(let duplicates)? = document["duplicates"], document.keys == ["stages", "duplicates"]
        else { return ["the output is not {\"stages\":[…],\"duplicates\":[…]}"] }
        var problems: [String] = []
        let oldIDs = old.flatMap(\.rows).map(\.id), newIDs = new.flatMap(\.rows).map(\.id)
        let counts = Dictionary((oldIDs + newIDs).map { ($0, 1) }, uniquingKeysWith: +)
        let oldCount = Dictionary(oldIDs.map { ($0, 1) }, uniquingKeysWith: +), newCount = Dictionary(newIDs.map { ($0, 1) }, uniquingKeysWith: +)
        let paired = Set(oldIDs.filter { oldCount[$0] == 1 && newCount[$0] == 1 })
        let expectedDuplicates = Set(counts.keys.filter { (oldCount[$0] ?? 0) > 1 || (newCount[$0] ?? 0) > 1 })
        let reported = duplicates.compactMap { value -> Int? in if case .int(let i) = value { return i } else { return nil } }
        if Set(reported) != expectedDuplicates || reported.count != expectedDuplicates.count {
            problems.append("duplicates \(reported), expected \(expectedDuplicates.sorted())")
        }

        var shown: [[Row]] = old.map { $0.rows.map { Row(id: $0.id) } }
        var reloadedIDs = Set<Int>()
        for (index, stageValue) in stages.enumerated() {
            guard let stage = stageValue.asRecord, let update = batch(stage),
                case .array(let countValues)? = stage["rowCounts"]
            else { return problems + ["stage \(index + 1) is not in the documented shape"] }
            let rowCounts = countValues.compactMap { if case .int(let i) = $0 { i } else { nil } }
            let isLast = index == stages.count - 1
            if isLast && rowCounts != new.map(\.rows.count) { problems.append("the last stage's rowCounts \(rowCounts) are not the new table's") }
            // UIKit's checks, with placeholder rows of the reported counts.
            let displayed: Table = shown.map { TableSection(name: "", rows: $0.map { Item(id: $0.id ?? -1) }) }
            let data: Table = rowCounts.map { TableSection(name: "", rows: Array(repeating: Item(id: -1), count: $0)) }
            if case .failure(let refusal) = UIKitOracle.replay(update, displayed: displayed, data: data) {
                return problems + ["UIKit refuses stage \(index + 1): \(refusal)"]
            }
            // Rows deleted, alone or with their section, must not be in both tables.
            var removed = update.deletedRows.compactMap { shown[$0.section][$0.row].id }
            for s in update.deletedSections + update.reloadedSections { removed += shown[s].compactMap(\.id) }
            for id in removed where paired.contains(id) { problems.append("stage \(index + 1) deletes row \(id), which is in both tables") }
            for p in update.reloadedRows { if let id = shown[p.section][p.row].id { reloadedIDs.insert(id) } }
            shown = simulate(update, shown: shown, rowCounts: rowCounts)
        }
        // The final table is the new one: known rows in place, unknown rows new.
        if shown.map(\.count) != new.map(\.rows.count) {
            problems.append("the table ends with rows \(shown.map(\.count)), the new table has \(new.map(\.rows.count))")
        } else {
            for (t, section) in new.enumerated() {
                for (r, item) in section.rows.enumerated() {
                    let row = shown[t][r]
                    if let id = row.id, id != item.id { problems.append("{\(t), \(r)} shows row \(id), not \(item.id)") }
                    if row.id == nil && oldCount[item.id] != nil && paired.contains(item.id) {
                        problems.append("row \(item.id) at {\(t), \(r)} was inserted, but it is in both tables")
                    }
                }
            }
        }
        // Every paired row whose content changed was reloaded.
        let oldContent = Dictionary(old.flatMap(\.rows).map { ($0.id, $0.content) }, uniquingKeysWith: { a, _ in a })
        for item in new.flatMap(\.rows) where paired.contains(item.id) && oldContent[item.id] != item.content && !reloadedIDs.contains(item.id) {
            problems.append("row \(item.id) changed and was never reloaded")
        }
        return problems
    }

    static func batch(_ stage: DynamicRecord) -> BatchUpdate? {
        func ints(_ key: String) -> [Int]? {
            guard case .array(let values)? = stage[key] else { return nil }
            let ints = values.compactMap { if case .int(let i) = $0 { i } else { nil } }
            return ints.count == values.count ? ints : nil
        }
        func path(_ value: RecordValue) -> TablePath? {
            guard case .array(let pair) = value, pair.count == 2, case .int(let s) = pair[0], case .int(let r) = pair[1] else { return nil }
            return TablePath(row: r, section: s)
        }
        func paths(_ key: String) -> [TablePath]? {
            guard case .array(let values)? = stage[key] else { return nil }
            let paths = values.compactMap(path)
            return paths.count == values.count ? paths : nil
        }
        guard stage.keys == ["deletedSections", "insertedSections", "movedSections", "reloadedSections", "deletedRows",
                             "insertedRows", "movedRows", "reloadedRows", "rowCounts"],
            let deletedSections = ints("deletedSections"), let insertedSections = ints("insertedSections"),
            let reloadedSections = ints("reloadedSections"), case .array(let sectionMoves)? = stage["movedSections"],
            let deletedRows = paths("deletedRows"), let insertedRows = paths("insertedRows"),
            let reloadedRows = paths("reloadedRows"), case .array(let rowMoves)? = stage["movedRows"]
        else { return nil }
        let movedSections = sectionMoves.compactMap { value -> Move<Int>? in
            guard case .array(let pair) = value, pair.count == 2, case .int(let a) = pair[0], case .int(let b) = pair[1] else { return nil }
            return Move(from: a, to: b)
        }
        let movedRows = rowMoves.compactMap { value -> Move<TablePath>? in
            guard case .array(let pair) = value, pair.count == 2, let a = path(pair[0]), let b = path(pair[1]) else { return nil }
            return Move(from: a, to: b)
        }
        guard movedSections.count == sectionMoves.count, movedRows.count == rowMoves.count else { return nil }
        return BatchUpdate(
            deletedSections: deletedSections, insertedSections: insertedSections, movedSections: movedSections,
            reloadedSections: reloadedSections, deletedRows: deletedRows, insertedRows: insertedRows,
            movedRows: movedRows, reloadedRows: reloadedRows)
    }

    /// UIKit's placement, on rows known by identity: what leaves, leaves; what
    /// arrives is put in, in ascending order of destination.
    static func simulate(_ update: BatchUpdate, shown: [[Row]], rowCounts: [Int]) -> [[Row]] {
        let deletedSections = Set(update.deletedSections), reloadedSections = Set(update.reloadedSections)
        let movedFrom = Dictionary(update.movedSections.map { ($0.from, $0.to) }, uniquingKeysWith: { a, _ in a })
        var order: [Int?] = shown.indices.filter { !deletedSections.contains($0) && movedFrom[$0] == nil }
        for (to, from) in (update.insertedSections.map { ($0, Int?.none) } + update.movedSections.map { ($0.to, Int?.some($0.from)) })
            .sorted(by: { $0.0 < $1.0 })
        {
            order.insert(from, at: to)
        }
        let deleted = Set(update.deletedRows), reloaded = Set(update.reloadedRows)
        let movesFrom = Set(update.movedRows.map(\.from))
        return order.enumerated().map { t, source in
            guard let s = source, !reloadedSections.contains(s) else {
                return Array(repeating: Row(id: nil), count: rowCounts[t])
            }
            var rows: [Row] = shown[s].enumerated().compactMap { r, row in
                let p = TablePath(row: r, section: s)
                if deleted.contains(p) || movesFrom.contains(p) { return nil }
                var row = row
                if reloaded.contains(p) { row.reloaded = true }
                return row
            }
            let arrivals = update.insertedRows.filter { $0.section == t }.map { ($0.row, Row(id: nil)) }
                + update.movedRows.filter { $0.to.section == t }.map { ($0.to.row, shown[$0.from.section][$0.from.row]) }
            for (r, row) in arrivals.sorted(by: { $0.0 < $1.0 }) { rows.insert(row, at: r) }
            return rows
        }
    }
}
