import Foundation
import HeadlessTable

/// The text and HTML renderers: drawing a window, or a patch to the next one,
/// costs the window, whatever the table's size.
enum RenderWorkloads {
    static var all: [Workload] { [frame(), htmlScroll()] }

    /// Sections of rows, a line each, with titled headers, an index and details.
    final class Sections: TableViewDataSource {
        let sections: Int, rows: Int

        init(sections: Int, rows: Int) {
            self.sections = sections
            self.rows = rows
        }

        func numberOfSections(in tableView: TableView) -> Int { sections }
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { rows }
        func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? { "Section \(section)" }
        func sectionIndexTitles(for tableView: TableView) -> [String]? { (0..<26).map { String(UnicodeScalar(65 + $0)!) } }

        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            let cell = try tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            cell.text = "Row \(indexPath.row) of section \(indexPath.section) — 東京"
            cell.detailText = "\(indexPath.row * 7 % 1000)"
            cell.accessory = indexPath.row % 3 == 0 ? .checkmark : .disclosureIndicator
            return cell
        }
    }

    /// A 50-line window in the middle of the table, drawn 100 times a sample.
    static func draw(_ source: Sections) -> () -> Void {
        let table = TableView(viewportHeight: 50)
        table.rowHeight = 1
        table.sectionHeaderHeight = 1
        try? table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        table.dataSource = source
        try? table.reloadData()
        try? table.setContentOffset(table.contentHeight / 2)
        guard let renderer = try? TextRenderer(width: 80, pointsPerLine: 1) else { return {} }
        return {
            withExtendedLifetime(source) {
                for _ in 0..<100 { blackHole(renderer.text(for: table.currentFrame)) }
            }
        }
    }

    static func frame() -> Workload {
        Workload(
            name: "render/frame-50-rows-1M",
            summary: "a 50-line window of 1,000 sections x 1,000 rows drawn as text (frame + renderer), against the same window of 10 x 100 rows",
            targets: [Target(against: "sameFrameOf1kRows", atMost: 1.5)]
        ) {
            let big = Sections(sections: 1_000, rows: 1_000), small = Sections(sections: 10, rows: 100)
            return Prepared(
                subject: draw(big),
                baselines: [Baseline(name: "sameFrameOf1kRows", run: draw(small))],
                counters: ["rows": 1_000_000, "framesPerSample": 100, "linesPerFrame": 50],
                maxSamples: 20)
        }
    }

    /// A 50-row window scrolled a row at a time, 100 steps a sample, each
    /// step the frame and the HTML renderer's patch (a recycled row).
    static func scrollHTML(_ source: Sections) -> () -> Void {
        let table = TableView(viewportHeight: 50)
        table.rowHeight = 1
        table.sectionHeaderHeight = 1
        try? table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        table.dataSource = source
        try? table.reloadData()
        let middle = (table.contentHeight / 2).rounded()
        try? table.setContentOffset(middle)
        guard let renderer = try? HTMLRenderer(pixelsPerPoint: 24, rowIdentifier: { "\($0.section)-\($0.row)" }) else { return {} }
        _ = renderer.render(table.currentFrame)
        var step = 0.0
        return {
            withExtendedLifetime(source) {
                for _ in 0..<100 {
                    step = step >= 200 ? 0 : step + 1
                    try? table.setContentOffset(middle + step)
                    blackHole(renderer.render(table.currentFrame))
                }
            }
        }
    }

    static func htmlScroll() -> Workload {
        Workload(
            name: "render/html-scroll-1M",
            summary: "a 50-row window of 1,000 sections x 1,000 rows scrolled a row at a time, each step's frame and HTML patch, against the same of 10 x 100 rows",
            targets: [Target(against: "sameScrollOf1kRows", atMost: 1.5)]
        ) {
            let big = Sections(sections: 1_000, rows: 1_000), small = Sections(sections: 10, rows: 100)
            return Prepared(
                subject: scrollHTML(big),
                baselines: [Baseline(name: "sameScrollOf1kRows", run: scrollHTML(small))],
                counters: ["rows": 1_000_000, "stepsPerSample": 100, "rowsPerWindow": 50],
                maxSamples: 20)
        }
    }
}
