import Foundation
import HeadlessTable

/// Outlines: expanding and collapsing a node with 100,100 descendants in a
/// section of 200,101 items through a diffable data source, against the same
/// rows inserted and deleted by hand in a table of the same size.
enum OutlineWorkloads {
    static var all: [Workload] { [expandChildren(), expandEverything()] }

    /// A data source showing one outline: a root `0` with 100 children of
    /// 1,000 children each (the children collapsed, or all expanded), then
    /// 100,000 root items.
    final class Screen {
        let table = TableView(viewportHeight: 600)
        let dataSource: TableViewDiffableDataSource<Int, Int>

        init(childrenExpanded: Bool) {
            try? table.register(TableViewCell.self, forCellReuseIdentifier: "row")
            dataSource = try! TableViewDiffableDataSource(tableView: table) { table, indexPath, id in
                let cell = try table.dequeueReusableCell(withIdentifier: "row", for: indexPath)
                cell.text = String(id)
                return cell
            }
            var outline = TableSectionSnapshot<Int>()
            try! outline.append([0])
            let children = Array(1...100)
            try! outline.append(children, to: 0)
            for child in children { try! outline.append(Array(child * 1_000_000..<child * 1_000_000 + 1_000), to: child) }
            if childrenExpanded { try! outline.expand(children) }
            try! outline.append(Array(200_000_000..<200_100_000))
            try! dataSource.apply(outline, to: 0, animatingDifferences: false)
        }
    }

    /// A table of `count` rows by hand, and a batch inserting `shown` rows after
    /// the first and one deleting them.
    final class ByHand: TableViewDataSource {
        var rows: [Int]
        let table = TableView(viewportHeight: 600)
        init(count: Int) {
            rows = Array(0..<count)
            try? table.register(TableViewCell.self, forCellReuseIdentifier: "row")
            table.dataSource = self
            try? table.reloadData()
        }
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { rows.count }
        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            let cell = try tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            cell.text = String(rows[indexPath.row])
            return cell
        }
        func insertAndDelete(_ shown: Int) {
            let paths = (1...shown).map { TablePath(row: $0, section: 0) }
            rows.insert(contentsOf: 1_000_000_000..<1_000_000_000 + shown, at: 1)
            try! table.performBatchUpdates(BatchUpdate(insertedRows: paths), animations: .init(.none))
            rows.removeSubrange(1...shown)
            try! table.performBatchUpdates(BatchUpdate(deletedRows: paths), animations: .init(.none))
        }
    }

    static func expandChildren() -> Workload {
        Workload(
            name: "outline/expand-collapse-100-of-100k",
            summary: "expand then collapse a node with 100,100 descendants (100 collapsed children shown and hidden) in a section of 100,001 rows (200,101 items) through a diffable data source, against inserting and deleting 100 rows by hand in a table of 100,001 rows (the goal: the rows shown, at most 3 times)",
            targets: [Target(against: "batchByHand", atMost: 3)]
        ) {
            let screen = Screen(childrenExpanded: false)
            let byHand = ByHand(count: 100_001)
            return Prepared(
                subject: {
                    try! screen.dataSource.expand([0], animatingDifferences: false)
                    try! screen.dataSource.collapse([0], animatingDifferences: false)
                },
                baselines: [Baseline(name: "batchByHand", run: { byHand.insertAndDelete(100) })],
                counters: ["rows": screen.table.numberOfRows(inSection: 0)])
        }
    }

    static func expandEverything() -> Workload {
        Workload(
            name: "outline/expand-collapse-100k-of-100k",
            summary: "expand then collapse a node whose 100,100 descendants all show, in a section of 100,001 rows collapsed (200,101 items) through a diffable data source, against inserting and deleting 100,100 rows by hand in a table of 100,001 rows (the goal: at most 3 times)",
            targets: [Target(against: "batchByHand", atMost: 3)]
        ) {
            let screen = Screen(childrenExpanded: true)
            let byHand = ByHand(count: 100_001)
            return Prepared(
                subject: {
                    try! screen.dataSource.expand([0], animatingDifferences: false)
                    try! screen.dataSource.collapse([0], animatingDifferences: false)
                },
                baselines: [Baseline(name: "batchByHand", run: { byHand.insertAndDelete(100_100) }, maxSamples: 10)],
                counters: ["rows": screen.table.numberOfRows(inSection: 0)],
                maxSamples: 10)
        }
    }
}
