import Foundation
import HeadlessTable
@testable import HeadlessTableTool
import TableTestSupport
import Testing

@Suite struct ScrollCommandTests {
    struct Stats: Decodable, Equatable {
        var rows: Int, frames: Int, cellsCreated: Int, cellsReused: Int, maxLiveCells: Int, maxVisibleRows: Int
        var prefetched: Int, prefetchCancelled: Int, shownUnannounced: Int
    }

    func stats(_ arguments: [String]) throws -> Stats {
        let result = runCLI(["scroll"] + arguments + ["--format", "json"])
        #expect(result.status == 0 && result.err == "", "\(result.err)")
        // Exactly the documented keys, in order.
        #expect(result.out.hasPrefix("{\"rows\":") && result.out.contains(",\"frames\":") && result.out.hasSuffix("}\n"))
        return try JSONDecoder().decode(Stats.self, from: Data(result.out.utf8))
    }

    @Test func reuseStaysAtTheWindowWhateverTheRows() throws {
        for rows in [10, 1_000] + (TestScale.isFull ? [3_000] : []) {
            let s = try stats(["--rows", "\(rows)", "--height", "600", "--row-height", "44", "--step", "10"])
            let end = max(0, Double(rows) * 44 - 600)
            expectEqual(s.rows, rows)
            expectEqual(s.frames, Int((end / 10).rounded(.up)) + 1)
            // Every row shows once, top to bottom: made once or reused.
            expectEqual(s.cellsCreated + s.cellsReused, rows)
            // A window of 600 meets at most 15 rows of 44; steps under a row add one cell.
            expectEqual(s.maxVisibleRows, min(rows, 15))
            #expect(s.cellsCreated <= s.maxVisibleRows + 1 && s.maxLiveCells == s.cellsCreated)
        }
        // Steps of under a row: every row after the first window was announced
        // before it showed, once, and none was cancelled (the scroll never turns).
        let steady = try stats(["--rows", "2000", "--step", "10"])
        #expect(steady.shownUnannounced == 0 && steady.prefetchCancelled == 0)
        expectEqual(steady.prefetched, 2000 - 14)   // all but the first window (600 / 44 → rows 0 … 13)
        let many = TestScale.cases(2_000, full: 5_000)
        let random = try stats(["--rows", "\(many)", "--random-heights"])
        #expect(random.cellsCreated <= random.maxVisibleRows + 1 && random.cellsCreated + random.cellsReused == many)
        // Jumps of a whole window: two windows at most.
        let jumps = try stats(["--rows", "\(many)", "--jump"])
        #expect(jumps.cellsCreated <= 2 * jumps.maxVisibleRows)
    }

    @Test func dataFilesAndText() {
        let folder = TemporaryFolder()
        let path = folder.file("rows.json", "[" + (0..<50).map { "{\"id\":\($0)}" }.joined(separator: ",") + "]")
        let result = runCLI(["scroll", path, "--height", "200", "--step", "7"])
        expectEqual(result.status, 0)
        let lines = result.out.split(separator: "\n").map(String.init)
        expectEqual(lines.count, 5)
        expectEqual(lines.first?.hasPrefix("scrolled 50 rows top to bottom in 287 frames (viewport 200, step 7)"), true)
        #expect(lines[1].hasPrefix("cells created: "))
        // 200 / 44: rows 0 … 4 show first; the other 45 are announced before they show.
        expectEqual(lines[3], "prefetched: 45 rows, 0 cancelled; shown unannounced: 0")
        #expect(lines[4].hasPrefix("time per frame: "))
    }

    @Test func badArgumentsAreUsageErrors() {
        for (arguments, message) in [
            (["--rows", "-1"], "--rows takes a whole number from 0 to 10000000, not '-1'"),
            (["--rows", "10000001"], "--rows takes a whole number from 0 to 10000000, not '10000001'"),
            (["--height", "0"], "--height takes a number from 1 to 1000000, not '0'"),
            (["--step", "x"], "--step takes a number from 0.01 to 1000000000, not 'x'"),
            (["--rows", "1000000", "--step", "0.01"],
             "--step 0.01 would take 4399940001 frames to scroll 43999400 points; at most 10000000: give a --step of at least 4.4, or --jump"),
            (["--rows=10", "x.json"], "give DATA or --rows, not both"),
            (["--rows", "1000000", "--row-height", "10000", "--height", "1", "--jump"],
             "--jump with a viewport of 1 points would take 10000000000 frames to scroll 9999999999 points; at most 10000000: give a taller --height"),
            (["--row-height", "10", "--random-heights"], "--row-height and --random-heights go one at a time"),
            (["--step", "5", "--jump"], "--step and --jump go one at a time"),
        ] {
            let result = runCLI(["scroll"] + arguments)
            #expect(result.status == 2 && result.out == "")
            expectEqual(result.err, "headless-table: \(message)\nrun 'headless-table scroll --help' for usage\n")
        }
        let missing = runCLI(["scroll", "/nonexistent.json"])
        #expect(missing.status == 1 && missing.err == "headless-table: /nonexistent.json: no such file\n")
    }
}
