import Foundation
import HeadlessTable

/// The photo diary's story, step by step, as a person would see it: what the
/// table shows after each step, and the batch each change arrived as.
public enum DiaryStory {
    /// The diary as it starts: entries, and the photos and recordings of some.
    static let entries = [
        DiaryEntry(1, "2026-10-03 06:55", "Harbour at dawn"),
        DiaryEntry(2, "2026-10-11 17:20", "Rainy walk"),
        DiaryEntry(3, "2026-10-24 10:05", "Pumpkins at the market"),
        DiaryEntry(4, "2026-11-02 21:40", "Museum night"),
        DiaryEntry(5, "2026-11-14 08:15", "First snow"),
        DiaryEntry(6, "2026-11-21 12:30", "Lunch by the river"),
    ]
    static let media = [
        Medium(10, "image", of: 1), Medium(20, "audio", of: 2), Medium(30, "image", of: 3),
        Medium(31, "audio", of: 3), Medium(50, "image", of: 5), Medium(60, "audio", of: 6), Medium(61, "image", of: 6),
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
    public static func run(store: ObjectStore, width: Int = 52, write: (String) -> Void) throws {
        let seed = ObjectContext(store: store, name: "seed")
        for entry in entries { try seed.insert(entry) }
        // Each medium names its entry; the context adds it to the entry's media.
        for medium in media { try seed.insert(medium) }
        try seed.save()

        let screen = try DiaryScreen(store: store, lines: 9)
        let main = try Transcript(width: width)
        screen.table.renderer = main
        func show(_ title: String) { write("\n== \(title)\n" + main.report(screen.table)) }
        /// Media, each with its type and its entry (read through `diaryEntry`).
        func list(_ media: [Medium]) throws -> String {
            try media.map { medium in
                let entry = try medium.diaryEntry.flatMap { id throws(ContextError) in try screen.context.object(DiaryEntry.self, id: id) }
                return "  Medium \(medium.id) (\(medium.type)) of " + (entry.map { "#\($0.id) \"\($0.text)\"" } ?? "no entry") + "\n"
            }.joined()
        }

        show("The diary, newest first: a section per month; each cell's icon from entry.medium(forType:) (▣ a photo, ♪ a recording, ✎ text only)")

        // Another context — a phone syncing, say — adds an entry with a photo, edits one and saves.
        let phone = ObjectContext(store: store, name: "phone")
        try phone.insert(DiaryEntry(7, "2026-11-22 07:45", "Fog over the bridge"))
        try phone.insert(Medium(70, "image", of: 7))
        if var snow = try phone.object(DiaryEntry.self, id: 5) {
            snow.text = "First snow — the whole street white"
            try phone.update(snow)
        }
        try phone.save()
        show("A second context adds #7 and its photo, edits #5, and saves; the view context merges the save it posts (listing 4.53)")

        // The star in the second row's cell.
        if let cell = screen.table.cellForRow(at: TablePath(row: 1, section: 0)) as? EntryCell { try cell.tapStar() }
        show("The star in \"Lunch by the river\"'s cell: its entry is saved as a favourite, its one row reloaded")

        // The book's predicates, through the relationship pair.
        try screen.filter(try FormatPredicate("ANY media.type == 'image'"))
        show("Entries with a photo: ANY media.type == 'image'")
        try screen.filter(nil)
        show("All entries again")

        // The search field (section 4.5.9): a second table of the matches.
        try screen.search.update(text: "SNOW")
        let results = try TextRenderer(width: width, pointsPerLine: 44)
        write("\n== Searching \"SNOW\": text CONTAINS[cd] %@, the results in a table of their own\n" + results.text(for: screen.search.resultsTable.currentFrame))
        screen.search.cancel()

        let november = DiaryEntry.date("2026-11-01 00:00")
        let older = try screen.context.fetch(FetchRequest<Medium>(
            predicate: try RecordPredicate(format: "diaryEntry.creationTime < %@", november), sortKeys: [SortKey("id")]))
        write("\n== The media of entries written before November, from a medium: diaryEntry.creationTime < %@ (2026-11-01)\n" + (try list(older)))
        // The media in sections of their entries' months, sorted and sectioned through the relationship.
        let byEntry = FetchedResultsController(
            fetchRequest: FetchRequest<Medium>(sortKeys: [SortKey("diaryEntry.creationTime", ascending: false), SortKey("id")]),
            context: screen.context, sectionNameKeyPath: "diaryEntry.month")
        try byEntry.performFetch()
        write("\n== The media by their entry's month: sort key diaryEntry.creationTime, section key diaryEntry.month\n")
        for section in byEntry.sections ?? [] { write("  \(section.name): media \(section.objects.map { "\($0.id)" }.joined(separator: ", "))\n") }
        if let entry = try screen.context.object(DiaryEntry.self, id: 6) {
            write("\n== \"Lunch by the river\".medium(forType: \"audio\"): medium "
                + "\(try entry.medium(forType: "audio", in: screen.context).map { "\($0.id) (\($0.type))" } ?? "none")\n")
        }

        let mediaBefore = try screen.context.count(for: FetchRequest<Medium>())
        try screen.table.commit(.delete, forRowAt: TablePath(row: 0, section: 1))
        let mediaAfter = try screen.context.fetch(FetchRequest<Medium>(sortKeys: [SortKey("id")]))
        show("A swipe deletes \"Pumpkins at the market\": its photo and recording go with it (cascade)")
        write("Media: \(mediaBefore) before the delete, \(mediaAfter.count) after:\n" + (try list(mediaAfter)))

        // A medium deleted: nullify takes it out of its entry's media, and the icon follows.
        try screen.context.delete(Medium.self, id: 61)
        try screen.context.save()
        show("Deleting \"Lunch by the river\"'s photo (nullify): the entry stays, its icon is its recording's")

        // A long diary: scrolled top to bottom, a screenful of cells serves every row.
        let importer = ObjectContext(store: store, name: "import")
        let start = entries[0].creationTime.timeIntervalSince1970
        for k in 0..<500 {
            var entry = DiaryEntry(100 + k, "2026-01-01 00:00", "Old entry \(500 - k)")
            entry.creationTime = Date(timeIntervalSince1970: start - Double(k + 1) * 7 * 3_600)
            try importer.insert(entry)
            if k % 3 > 0 { try importer.insert(Medium(1_000 + k, k % 3 == 1 ? "image" : "audio", of: entry.id)) }
        }
        try importer.save()
        show("500 older entries imported with their media in another context, and merged")
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
