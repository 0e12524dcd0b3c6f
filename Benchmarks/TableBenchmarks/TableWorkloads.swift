import Foundation
import HeadlessTable

/// The table view: scrolling costs the window whatever the number of rows;
/// finding the row at an offset on a million rows of varying heights; applying
/// 10,000 changes to a million rows; cells made while scrolling a million rows.
enum TableWorkloads {
    static var all: [Workload] { [scroll(), rowAtOffset(), applyChangeset(), scrollEverything()] }

    /// A section of rows with heights from 20 to 80 points (seeded), cells showing a text.
    final class Rows: TableViewDataSource, TableViewDelegate {
        var ids: [Int]
        let heights: [Double]

        init(count: Int, seed: UInt64 = 5) {
            ids = Array(0..<count)
            var g = SplitMix64(seed: seed)
            heights = (0..<count).map { _ in Double(20 + g.next() % 61) }
        }

        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { ids.count }

        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            let cell = try tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            cell.text = "Row \(ids[indexPath.row])"
            return cell
        }

        func tableView(_ tableView: TableView, heightForRowAt indexPath: TablePath) -> Double? { heights[ids[indexPath.row] % heights.count] }
    }

    static func table(_ rows: Rows, viewport: Double = 600) -> TableView {
        let table = TableView(viewportHeight: viewport)
        try? table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        table.dataSource = rows
        table.delegate = rows
        try? table.reloadData()
        return table
    }

    /// 2,000 frames of 10 points back and forth in the middle of the table.
    static func frames(_ table: TableView) -> () -> Void {
        let middle = table.contentHeight / 2
        var direction = 1.0
        return {
            var offset = middle
            for _ in 0..<2_000 {
                offset += 10 * direction
                // A frame that fails is a broken workload, not a fast one.
                try! table.setContentOffset(offset)
            }
            direction = -direction
        }
    }

    static func scroll() -> Workload {
        Workload(
            name: "table/scroll-frames-1M",
            summary: "2,000 scroll frames of 10 points on 1,000,000 rows of varying heights, against the same on 1,000 rows",
            targets: [Target(against: "sameFramesOn1kRows", atMost: 1.5)]
        ) {
            let large = Rows(count: 1_000_000), small = Rows(count: 1_000)
            let big = table(large), little = table(small)
            let bigFrames = frames(big), littleFrames = frames(little)
            return Prepared(
                // Each closure holds its rows: a table holds its data source and delegate weakly.
                subject: { withExtendedLifetime(large) { bigFrames() } },
                baselines: [Baseline(name: "sameFramesOn1kRows", run: { withExtendedLifetime(small) { littleFrames() } })],
                counters: ["rows": 1_000_000, "framesPerSample": 2_000, "cellsCreated": big.reusePool.cellStatistics.created],
                maxSamples: 15)
        }
    }

    static func rowAtOffset() -> Workload {
        Workload(
            name: "table/row-at-offset-1M",
            summary: "indexPathForRow(at:) for 100,000 random offsets in 1,000,000 rows of varying heights, against a binary search of a prefix-sum array",
            targets: []
        ) {
            let rows = Rows(count: 1_000_000)
            let table = table(rows)
            var prefix = [0.0]
            prefix.reserveCapacity(rows.heights.count + 1)
            for h in rows.heights { prefix.append(prefix[prefix.count - 1] + h) }
            var g = SplitMix64(seed: 11)
            let offsets = (0..<100_000).map { _ in Double(g.next() % UInt64(table.contentHeight)) }
            return Prepared(
                subject: {
                    var total = 0
                    for y in offsets { total &+= table.indexPathForRow(at: y)?.row ?? 0 }
                    blackHole(total)
                },
                baselines: [Baseline(name: "prefixSumBinarySearch", run: {
                    var total = 0
                    for y in offsets {
                        var low = 0, high = prefix.count - 1
                        while low < high - 1 {
                            let mid = (low + high) / 2
                            if prefix[mid] <= y { low = mid } else { high = mid }
                        }
                        total &+= low
                    }
                    blackHole(total)
                })],
                counters: ["rows": 1_000_000, "queries": offsets.count])
        }
    }

    static func applyChangeset() -> Workload {
        Workload(
            name: "table/apply-10k-changes-1M",
            summary: "applying a changeset of about 10,000 changes (4,000 deletes, 4,000 inserts, 2,000 moves) to a 1,000,000-row table, against reloadData",
            targets: []
        ) {
            let rows = Rows(count: 1_000_000)
            let before = [TableSection(name: "", rows: rows.ids)]
            var g = SplitMix64(seed: 3)
            var after = rows.ids
            for _ in 0..<4_000 { after.remove(at: Int(g.next() % UInt64(after.count))) }
            for k in 0..<4_000 { after.insert(1_000_000 + k, at: Int(g.next() % UInt64(after.count))) }
            for _ in 0..<2_000 {
                let item = after.remove(at: Int(g.next() % UInt64(after.count)))
                after.insert(item, at: Int(g.next() % UInt64(after.count)))
            }
            let forward = TableChangeset(from: before, to: [TableSection(name: "", rows: after)])
            let backward = TableChangeset(from: [TableSection(name: "", rows: after)], to: before)
            let table = table(rows)
            try? table.setContentOffset(table.contentHeight / 3)
            var toAfter = true
            let changes = forward.stages.reduce(0) { $0 + $1.update.changeCount }
            return Prepared(
                subject: {
                    // Forth and back, so that every sample starts from the same table.
                    try? table.apply(toAfter ? forward : backward) { stage in rows.ids = stage.sections[0].rows }
                    toAfter.toggle()
                },
                baselines: [Baseline(name: "reloadData", run: { try? table.reloadData() }, maxSamples: 10)],
                counters: ["rows": 1_000_000, "changes": changes, "stages": forward.stages.count],
                maxSamples: 10)
        }
    }

    static func scrollEverything() -> Workload {
        Workload(
            name: "table/scroll-through-1M",
            summary: "scrolling 1,000,000 rows top to bottom a window at a time; see cellsCreated",
            targets: []
        ) {
            let rows = Rows(count: 1_000_000)
            var created = 0, frames = 0
            let subject = {
                let table = table(rows)
                var offset = 0.0
                frames = 0
                while offset < table.contentHeight - table.viewportHeight {
                    offset += table.viewportHeight
                    try? table.setContentOffset(offset)
                    frames += 1
                }
                created = table.reusePool.cellStatistics.created
            }
            subject()
            return Prepared(subject: subject, counters: ["rows": 1_000_000, "frames": frames, "cellsCreated": created], maxSamples: 3)
        }
    }
}
