import Foundation
import HeadlessTableView
import TableDiff
import TableTestSupport
import Testing

/// A renderer that animates: each batch stays outstanding until the test
/// finishes it (or, when `finishesAtOnce`, it calls back before returning).
private final class SlowRenderer: AcknowledgingTableRenderer {
    var pending: [(Bool) -> Void] = []
    var updates: [TableUpdate] = []
    var finishesAtOnce = false
    /// The frame the renderer was last handed: what is shown.
    var shown: TableFrame?

    func display(_ frame: TableFrame) { shown = frame }
    func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame, completion: @escaping (Bool) -> Void) {
        updates.append(update)
        shown = new
        if finishesAtOnce { completion(true) } else { pending.append(completion) }
    }

    /// Ends the oldest outstanding batch (true: ran to its end).
    func finishOne(_ finished: Bool = true) {
        guard !pending.isEmpty else { return }
        let completion = pending.removeFirst()
        completion(finished)
        completion(finished)   // a second call is ignored
    }

    func finishAll() { while !pending.isEmpty { finishOne() } }
}

@Suite struct TableViewCompletionsTests {
    final class Items: TableViewDataSource {
        var items: [Int]
        init(_ items: [Int]) { self.items = items }
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { items.count }
        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            let cell = try tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            cell.text = "\(items[indexPath.row])"
            return cell
        }
    }

    static func table(_ items: Items) throws -> TableView {
        let table = TableView(viewportHeight: 10)
        table.rowHeight = 1
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        table.dataSource = items
        try table.reloadData()
        return table
    }

    @Test func withoutAnAcknowledgingRendererTheCompletionRunsAtOnce() throws {
        let items = Items([1, 2, 3])
        let table = try Self.table(items)
        var calls: [Bool] = []
        try table.performBatchUpdates({
            items.items.insert(0, at: 0)
            try table.insertRows(at: [TablePath(row: 0, section: 0)])
        }, completion: { calls.append($0) })
        expectEqual(calls, [true])
        // A batch that does not add up: the completion gets false, the error is thrown.
        expectThrows(TableViewError.self) {
            try table.performBatchUpdates({ try table.insertRows(at: [TablePath(row: 0, section: 0)]) }, completion: { calls.append($0) })
        }
        expectEqual(calls, [true, false])
        expectEqual(table.numberOfRows(inSection: 0), 4)
        // A completion nested in a batch whose block throws gets false, once.
        struct Refused: Error {}
        expectThrows(Refused.self) {
            try table.performBatchUpdates {
                try table.performBatchUpdates({}, completion: { calls.append($0) })
                throw Refused()
            }
        }
        expectEqual(calls, [true, false, false])
        try table.performBatchUpdates({}, completion: { calls.append($0) })
        expectEqual(calls, [true, false, false, true])
    }

    @Test func updatesWhileABatchShowsAreQueuedAndTheTableAnswersForWhatIsShown() throws {
        let items = Items([1, 2, 3])
        let table = try Self.table(items)
        let renderer = SlowRenderer()
        table.renderer = renderer
        var calls: [String] = []
        try table.performBatchUpdates({
            items.items.append(4)
            try table.insertRows(at: [TablePath(row: 3, section: 0)])
        }, completion: { calls.append("first \($0)") })
        #expect(table.isAnimatingUpdates && calls.isEmpty)
        var ran = false
        try table.performBatchUpdates({
            ran = true
            items.items.remove(at: 0)
            try table.deleteRows(at: [TablePath(row: 0, section: 0)])
        }, completion: { calls.append("second \($0)") })
        // Queued: the block has not run, the table shows the first batch's result.
        #expect(!ran && table.numberOfRows(inSection: 0) == 4 && table.cellForRow(at: TablePath(row: 0, section: 0))?.text == "1")
        expectEqual(renderer.updates.count, 1)
        renderer.finishOne()
        #expect(calls == ["first true"] && ran && renderer.updates.count == 2)
        #expect(table.numberOfRows(inSection: 0) == 3 && table.cellForRow(at: TablePath(row: 0, section: 0))?.text == "2")
        // A queued block that throws: dropped, its completion gets false.
        struct Refused: Error {}
        try table.performBatchUpdates({ throw Refused() }, completion: { calls.append("third \($0)") })
        renderer.finishOne(false)
        expectEqual(calls, ["first true", "second false", "third false"])
        #expect(table.lastDeferredUpdateError is Refused)
        #expect(!table.isAnimatingUpdates && table.numberOfRows(inSection: 0) == 3)
    }

    /// Random applies, with and without completions, overlapping batches the
    /// renderer finishes at random times (at once, later, interrupted): at
    /// every moment the table shows the data source's snapshot; in the end it
    /// shows the last snapshot applied, and every completion was called
    /// exactly once — after the renderer finished the batch that showed it.
    @Test func overlappingAppliesEndShowingTheLastSnapshotWithEachCompletionCalledOnce() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for round in 0..<40 {
            let table = TableView(viewportHeight: Double(g.int(1...20)))
            table.rowHeight = 1
            table.sectionHeaderHeight = 1
            table.sectionFooterHeight = 0
            try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
            let dataSource = try TableViewDiffableDataSource<Int, Int>(tableView: table) { table, path, item in
                let cell = try table.dequeueReusableCell(withIdentifier: "row", for: path)
                cell.text = "\(item)"
                return cell
            }
            dataSource.headerTitleProvider = { section, _ in "S\(section)" }
            let renderer = SlowRenderer()
            table.renderer = renderer
            var calls: [Int: Int] = [:]
            var last = dataSource.snapshot()
            var completionsGiven = 0
            for step in 0..<60 {
                let context = "seed \(seed), round \(round), step \(step)"
                switch g.int(0..<10) {
                case 0..<5:
                    var snapshot = TableSnapshot<Int, Int>()
                    let sections = Array(0..<g.int(0...4)).shuffled(using: &g)
                    try snapshot.appendSections(sections)
                    var pool = Array(0..<30).shuffled(using: &g)
                    for section in sections {
                        let n = g.int(0...min(8, pool.count))
                        try snapshot.appendItems(Array(pool.prefix(n)), toSection: section)
                        pool.removeFirst(n)
                    }
                    renderer.finishesAtOnce = g.chance(0.2)
                    if g.chance(0.8) {
                        let id = completionsGiven
                        completionsGiven += 1
                        try dataSource.apply(snapshot, animatingDifferences: g.chance(0.8)) {
                            calls[id, default: 0] += 1
                        }
                    } else {
                        try dataSource.apply(snapshot)
                    }
                    last = snapshot
                case 5..<8: renderer.finishOne(g.chance(0.8))
                case 8: renderer.finishAll()
                default: try table.setContentOffset(Double(g.int(0...Int(max(0, table.contentHeight - table.viewportHeight)))))
                }
                // The table, the data source and the renderer agree on what is shown.
                let shown = dataSource.snapshot()
                expectEqual(table.numberOfSections, shown.numberOfSections, "\(context)")
                for path in table.indexPathsForVisibleRows {
                    expectEqual(table.cellForRow(at: path)?.text, shown.itemIdentifier(at: path).map { "\($0)" }, "\(context): \(path)")
                }
                if let frame = renderer.shown {
                    expectEqual(frame.numberOfSections, table.numberOfSections, "\(context)")
                }
                #expect(calls.values.allSatisfy { $0 == 1 }, "\(context): \(calls)")
            }
            renderer.finishesAtOnce = false
            while table.isAnimatingUpdates { renderer.finishAll() }
            expectEqual(dataSource.snapshot(), last.withoutMarks, "seed \(seed), round \(round)")
            #expect(calls.count == completionsGiven && calls.values.allSatisfy { $0 == 1 }, "seed \(seed), round \(round): \(calls)")
            #expect(dataSource.lastDeferredApplyError == nil)
        }
    }
}
