import Foundation
import HeadlessTable

/// The photo diary's story, step by step, as a person would see it: what the
/// table shows after each step, and the batch each change arrived as.
public enum DiaryStory {
    /// The diary as it starts.
    static let entries = [
        Entry(1, "2026-10-03 06:55", "Harbour at dawn", .image),
        Entry(2, "2026-10-11 17:20", "Rainy walk", .audio),
        Entry(3, "2026-10-24 10:05", "Pumpkins at the market", .image),
        Entry(4, "2026-11-02 21:40", "Museum night"),
        Entry(5, "2026-11-14 08:15", "First snow", .image),
        Entry(6, "2026-11-21 12:30", "Lunch by the river", .image),
    ]

    /// A renderer that writes down each batch its table applies (a long one
    /// shortened).
    final class Transcript: TableRenderer {
        let text: TextRenderer
        var batches: [[String]] = []

        init(width: Int) throws { text = try TextRenderer(width: width, pointsPerLine: 44) }

        func display(_ frame: TableFrame) {}
        func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame) {
            let lines = text.log(of: update).split(separator: "\n").map(String.init)
            batches.append(lines.count <= 8 ? lines : lines.prefix(6) + ["… and \(lines.count - 6) more changes"])
        }

        /// The batches since the last call, then the table as it is.
        func report(_ table: TableView) -> String {
            var out = batches.enumerated().map { k, lines in
                (batches.count > 1 ? "Batch \(k + 1) of \(batches.count):\n" : "Batch:\n") + lines.map { $0 + "\n" }.joined()
            }.joined()
            batches = []
            out += text.text(for: table.currentFrame)
            return out
        }
    }

    /// Plays the story on `store` (which should be empty), writing what
    /// happens to `write`.
    public static func run(store: ObjectStore<Entry>, width: Int = 52, write: (String) -> Void) throws {
        let seed = ObjectContext(store: store, name: "seed")
        for entry in entries { try seed.insert(entry) }
        _ = try seed.save()

        let screen = try DiaryScreen(store: store, lines: 9)
        let main = try Transcript(width: width), results = try Transcript(width: width)
        screen.table.renderer = main
        screen.search.resultsTable.renderer = results
        func show(_ title: String, searching: Bool = false) {
            write("\n== \(title)\n" + (searching ? results.report(screen.search.resultsTable) : main.report(screen.table)))
        }

        show("The diary, newest first: a section per month, each entry's cell from a template (icon, text, star, date)")

        // Another context — a phone syncing, say — adds an entry, edits one and saves.
        let phone = ObjectContext(store: store, name: "phone")
        try phone.insert(Entry(7, "2026-11-22 07:45", "Fog over the bridge", .image))
        if var snow = phone.object(withID: 5) {
            snow.text = "First snow — the whole street white"
            try phone.update(snow)
        }
        let saved = try phone.save()
        screen.context.mergeChanges(fromContextDidSave: saved)
        show("A second context adds #7 and edits #5, and saves; the view context merges the save")

        // The star in the second row's cell.
        if let cell = screen.table.cellForRow(at: TablePath(row: 1, section: 0)) as? EntryCell { cell.tapStar() }
        show("The star in \"Lunch by the river\"'s cell: its entry is saved as a favourite, one row reloads")

        try screen.table.commit(.delete, forRowAt: TablePath(row: 0, section: 1))
        show("A swipe deletes \"Pumpkins at the market\"")

        try screen.search.update(text: "RIVER")
        show("A search: text CONTAINS[cd] \"RIVER\"", searching: true)
        try screen.search.update(text: "i")
        show("The search text is now \"i\"", searching: true)
        try screen.search.resultsTable.commit(.delete, forRowAt: TablePath(row: 1, section: 0))
        show("Deleting \"Lunch by the river\" from the results: the results table…", searching: true)
        show("…and the diary behind it both follow")
        screen.search.cancel()

        // A long diary: scrolled top to bottom, a screenful of cells serves every row.
        let importer = ObjectContext(store: store, name: "import")
        let start = entries[0].created.timeIntervalSince1970
        for k in 0..<500 {
            let time = Date(timeIntervalSince1970: start - Double(k + 1) * 7 * 3_600)
            var entry = Entry(100 + k, "2026-01-01 00:00", "Old entry \(500 - k)", [.text, .image, .audio][k % 3])
            entry.created = time
            try importer.insert(entry)
        }
        screen.context.mergeChanges(fromContextDidSave: try importer.save())
        show("500 older entries imported and merged")
        let before = screen.table.reusePool.cellStatistics
        var frames = 0
        let end = screen.table.contentHeight - screen.table.viewportHeight
        while screen.table.contentOffset < end {
            try screen.table.setContentOffset(screen.table.contentOffset + 22)
            frames += 1
        }
        let after = screen.table.reusePool.cellStatistics
        let rows = (0..<screen.table.numberOfSections).reduce(0) { $0 + screen.table.numberOfRows(inSection: $1) }
        show("Scrolled to the bottom, half a row a frame")
        write("""

            Scrolling \(rows) rows in \(frames) frames made \(after.created - before.created) new cells and reused cells \(after.reused - before.reused) times;
            cells made in all: \(after.created), most alive at once: \(after.maxLive) (the window shows 9 lines).

            """)
    }
}
