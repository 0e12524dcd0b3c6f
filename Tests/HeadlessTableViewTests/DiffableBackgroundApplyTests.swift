import Foundation
import HeadlessTableView
import TableDiff
import TableTestSupport
import Testing

/// A table and its diffable data source, owned by the main actor.
@MainActor private final class MainScreen {
    let table = TableView(viewportHeight: 20)
    let dataSource: TableViewDiffableDataSource<Int, Int>

    init() throws {
        table.rowHeight = 1
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        dataSource = try TableViewDiffableDataSource(tableView: table) { table, path, item in
            let cell = try table.dequeueReusableCell(withIdentifier: "row", for: path)
            cell.text = "\(item)"
            return cell
        }
    }

    func snapshot(_ items: [Int]) -> TableSnapshot<Int, Int> {
        var snapshot = TableSnapshot<Int, Int>()
        try! snapshot.appendSections([0])
        try! snapshot.appendItems(items)
        return snapshot
    }

    /// The table shows `snapshot`: its counts and every visible cell.
    func shows(_ snapshot: TableSnapshot<Int, Int>) -> Bool {
        dataSource.snapshot() == snapshot.withoutMarks && table.numberOfRows(inSection: 0) == snapshot.numberOfItems
            && table.indexPathsForVisibleRows.allSatisfy { table.cellForRow(at: $0)?.text == snapshot.itemIdentifier(at: $0).map { "\($0)" } }
    }
}

/// The snapshots in the order their applies started.
@MainActor private final class StartLog {
    var started: [TableSnapshot<Int, Int>] = []
}

@Suite struct DiffableBackgroundApplyTests {
    /// Random applies diffed off the main actor, several in flight at once,
    /// with synchronous applies among them: the newest wins, older diffs are
    /// dropped, and the table ends showing the last snapshot applied.
    @MainActor @Test func theNewestBackgroundApplyWinsAndOlderDiffsAreDropped() async throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for round in 0..<20 {
            let screen = try MainScreen()
            // The snapshots in the order their applies started: the last one wins.
            let log = StartLog()
            var tasks: [Task<Bool, any Error>] = []
            for _ in 0..<g.int(1...8) {
                let snapshot = screen.snapshot(Array(0..<g.int(0...2_000)).shuffled(using: &g))
                if g.chance(0.2) {
                    log.started.append(snapshot)
                    try await screen.dataSource.apply(snapshot)   // in the caller's isolation, no suspension
                } else {
                    tasks.append(Task { @MainActor in
                        log.started.append(snapshot)   // no suspension before the apply starts
                        return try await screen.dataSource.applyDiffingInBackground(snapshot)
                    })
                }
                if g.chance(0.3) { await Task.yield() }
            }
            var applied = 0
            for task in tasks where try await task.value { applied += 1 }
            #expect(log.started.last.map(screen.shows) ?? true, "seed \(seed), round \(round)")
            #expect(applied <= tasks.count)
        }
    }

    @MainActor @Test func aBackgroundApplyAloneApplies() async throws {
        let screen = try MainScreen()
        let snapshot = screen.snapshot(Array((0..<10_000).reversed()))
        #expect(try await screen.dataSource.applyDiffingInBackground(snapshot))
        #expect(screen.shows(snapshot))
    }
}
