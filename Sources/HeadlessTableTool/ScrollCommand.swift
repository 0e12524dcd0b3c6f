import Foundation
import HeadlessTable
import ToolArguments

/// `headless-table scroll [DATA] [--rows N] [--height H] [--row-height h|--random-heights]
/// [--step S|--jump] [--style plain|grouped|inset-grouped] [--format text|json]`
///
/// Builds a table — of DATA's objects (a JSON array), or of N generated rows —
/// scrolls it top to bottom, and prints what reuse did: frames, cells created
/// and reused, the most cells alive and the most rows visible at once, what
/// prefetching announced, and the time per frame.
enum ScrollCommand {
    /// A table of rows whose cells show a text each; heights fixed or from a seeded generator.
    final class Rows: TableViewDataSource, TableViewDelegate, TableViewDataSourcePrefetching {
        let texts: (Int) -> String
        let count: Int
        let heights: [Double]?
        /// Rows announced and neither shown nor cancelled since.
        var announced: Set<TablePath> = []
        /// Whether cells are being made for a scroll (not the first window).
        var isScrolling = false
        var prefetched = 0, cancelled = 0, shownUnannounced = 0

        init(count: Int, heights: [Double]?, texts: @escaping (Int) -> String) {
            self.count = count
            self.heights = heights
            self.texts = texts
        }

        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { count }

        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            let cell = try tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            cell.text = texts(indexPath.row)
            if announced.remove(indexPath) == nil, isScrolling { shownUnannounced += 1 }
            return cell
        }

        func tableView(_ tableView: TableView, prefetchRowsAt indexPaths: [TablePath]) {
            prefetched += indexPaths.count
            announced.formUnion(indexPaths)
        }

        func tableView(_ tableView: TableView, cancelPrefetchingForRowsAt indexPaths: [TablePath]) {
            cancelled += indexPaths.count
            announced.subtract(indexPaths)
        }

        func tableView(_ tableView: TableView, heightForRowAt indexPath: TablePath) -> Double? { heights?[indexPath.row] }
    }

    struct Statistics: Equatable {
        var rows = 0, frames = 0, cellsCreated = 0, cellsReused = 0, maxLiveCells = 0, maxVisibleRows = 0
        /// Rows announced to the prefetch data source, announcements cancelled,
        /// and rows shown while scrolling that were not announced.
        var prefetched = 0, prefetchCancelled = 0, shownUnannounced = 0
        var frameTimes: [Double] = []

        var json: String {
            "{\"rows\":\(rows),\"frames\":\(frames),\"cellsCreated\":\(cellsCreated),\"cellsReused\":\(cellsReused),\"maxLiveCells\":\(maxLiveCells),\"maxVisibleRows\":\(maxVisibleRows),"
                + "\"prefetched\":\(prefetched),\"prefetchCancelled\":\(prefetchCancelled),\"shownUnannounced\":\(shownUnannounced)}"
        }
    }

    /// The most frames a scroll may take: a smaller `--step` is refused.
    static let maximumFrames = 10_000_000

    static let declaration = CommandDeclaration(
        "scroll",
        summary: "scrolls a table (DATA's objects, or N rows) top to bottom and prints what reuse did: frames, cells created and reused, most cells alive, time per frame",
        positionals: [PositionalDeclaration("DATA", help: "a JSON array of objects (- for standard input); without it, --rows", isOptional: true)],
        options: [
            OptionDeclaration("rows", .integer("N", 0...10_000_000), help: "generated rows, when there is no DATA", default: "1000"),
            OptionDeclaration("height", .number("H", 1...1_000_000), help: "the viewport's height in points", default: "600"),
            OptionDeclaration("row-height", .number("h", 0.1...10_000), help: "every row's height in points", default: "44"),
            .flag("random-heights", help: "rows of seeded random heights from 20 to 80 points"),
            OptionDeclaration("step", .number("S", 0.01...1_000_000_000), help: "points scrolled a frame", default: "10"),
            .flag("jump", help: "scrolls a viewport a frame"),
            TableStyleOption.option,
            OutputFormat.option,
            ReadProgress.quietOption,
        ],
        exclusive: [["row-height", "random-heights"], ["step", "jump"]],
        discussion: """
            A scroll takes at most \(maximumFrames) frames: a --step that would need more is \
            refused. The text's last line, the time per frame (median and maximum), varies \
            from run to run; --format json leaves it out.
            """)

    static func run(_ parsed: ParsedArguments, output: CommandOutput) throws {
        let format = OutputFormat(parsed)
        let height = parsed.number("height") ?? 600
        let rowHeight = parsed.number("row-height") ?? 44
        let randomHeights = parsed.flag("random-heights")
        let jump = parsed.flag("jump")
        let path = parsed.positional("DATA")
        if path != nil && parsed.isGiven("rows") { throw CommandError.usage("give DATA or --rows, not both") }

        let count: Int
        let texts: (Int) -> String
        if let path {
            let objects = try InputRules.objects(path, quiet: parsed.flag("quiet"))
            count = objects.count
            texts = { JSON.string(.record(objects[$0].fields)) }
        } else {
            count = parsed.integer("rows") ?? 1_000
            texts = { "Row \($0 + 1)" }
        }
        var generator = SeededHeights(seed: 42)
        let heights = randomHeights ? (0..<count).map { _ in generator.next() } : nil
        // By default, 10 points a frame: a finger's slow scroll.
        let stepSize = jump ? height : (parsed.number("step") ?? 10)
        let rows = Rows(count: count, heights: heights, texts: texts)
        let style = TableStyleOption.style(parsed)
        let statistics = try withExtendedLifetime(rows) {
            try scroll(rows, viewport: height, rowHeight: rowHeight, step: stepSize, jump: jump, style: style)
        }
        switch format {
        case .json:
            output.out(statistics.json + "\n")
        case .text:
            let sorted = statistics.frameTimes.sorted()
            func duration(_ seconds: Double) -> String {
                seconds < 1e-3 ? String(format: "%.1f µs", seconds * 1e6) : String(format: "%.2f ms", seconds * 1e3)
            }
            let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
            output.out("""
                scrolled \(statistics.rows) rows top to bottom in \(statistics.frames) frames (viewport \(points(height)), step \(points(stepSize)))
                cells created: \(statistics.cellsCreated), reused: \(statistics.cellsReused)
                most cells alive: \(statistics.maxLiveCells); most rows visible: \(statistics.maxVisibleRows)
                prefetched: \(statistics.prefetched) rows, \(statistics.prefetchCancelled) cancelled; shown unannounced: \(statistics.shownUnannounced)
                time per frame: \(duration(median)) median, \(duration(sorted.last ?? 0)) at most

                """)
        }
    }

    static func points(_ x: Double) -> String { x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : String(x) }

    /// Scrolls a table of `rows` from top to bottom in steps, frame by frame.
    static func scroll(_ rows: Rows, viewport: Double, rowHeight: Double, step: Double, jump: Bool = false, style: TableView.Style = .plain) throws -> Statistics {
        let table = TableView(viewportHeight: viewport, style: style)
        table.rowHeight = rowHeight
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        table.dataSource = rows
        table.delegate = rows
        table.prefetchDataSource = rows
        try table.reloadData()
        rows.isScrolling = true
        var statistics = Statistics(rows: rows.count, frames: 1, maxVisibleRows: table.indexPathsForVisibleRows.count)
        let end = max(0, table.contentHeight - viewport)
        let frames = (end / step).rounded(.up) + 1
        if frames > Double(maximumFrames) {
            let count = frames < 1e15 ? String(Int64(frames)) : String(frames)
            if jump {
                throw CommandError.usage(
                    "--jump with a viewport of \(points(viewport)) points would take \(count) frames to scroll \(points(end)) points;"
                        + " at most \(maximumFrames): give a taller --height")
            }
            throw CommandError.usage(
                "--step \(points(step)) would take \(count) frames to scroll \(points(end)) points;"
                    + " at most \(maximumFrames): give a --step of at least \(points((end / Double(maximumFrames - 1) * 100).rounded(.up) / 100)), or --jump")
        }
        var offset = 0.0
        while offset < end {
            offset = min(end, offset + step)
            // DispatchTime: monotonic on every platform, no newer OS needed (Clock needs macOS 13).
            let start = DispatchTime.now().uptimeNanoseconds
            try table.setContentOffset(offset)
            statistics.frameTimes.append(Double(DispatchTime.now().uptimeNanoseconds &- start) / 1e9)
            statistics.frames += 1
            statistics.maxVisibleRows = max(statistics.maxVisibleRows, table.indexPathsForVisibleRows.count)
        }
        let pool = table.reusePool.cellStatistics
        statistics.cellsCreated = pool.created
        statistics.cellsReused = pool.reused
        statistics.maxLiveCells = pool.maxLive
        (statistics.prefetched, statistics.prefetchCancelled, statistics.shownUnannounced) = (rows.prefetched, rows.cancelled, rows.shownUnannounced)
        return statistics
    }
}

/// Row heights from 20 to 80 points, the same for every run (SplitMix64).
struct SeededHeights {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double(20 + (z ^ (z >> 31)) % 61)
    }
}
