import Foundation
import HeadlessTable

/// `headless-table demo`: a photo diary's entries, grouped by month, newest
/// first — before and after a save that adds, edits, moves and deletes entries —
/// and the batch updates that take a table from one to the other.
enum DemoCommand {
    struct Entry: TableDiffable, Equatable {
        var id: Int
        var text: String
        var date: String   // fixed dates: the output never depends on the clock

        var diffIdentifier: Int { id }
    }

    static let before: [TableSection<Entry>] = [
        TableSection(name: "November 2026", rows: [
            Entry(id: 7, text: "Lunch by the river", date: "2026-11-21"),
            Entry(id: 6, text: "First snow", date: "2026-11-14"),
            Entry(id: 5, text: "Museum night", date: "2026-11-02"),
        ]),
        TableSection(name: "October 2026", rows: [
            Entry(id: 4, text: "Pumpkins at the market", date: "2026-10-24"),
            Entry(id: 3, text: "Rainy walk (audio)", date: "2026-10-11"),
            Entry(id: 2, text: "Harbour at dawn", date: "2026-10-03"),
        ]),
        TableSection(name: "September 2026", rows: [
            Entry(id: 1, text: "Back from the coast", date: "2026-09-28"),
        ]),
    ]

    /// After a second context saves: entry 8 added, 6 edited, 2 re-dated into
    /// September (it moves between sections), 5 deleted, and 1 re-dated into
    /// August (a new section; September keeps entry 2).
    static let after: [TableSection<Entry>] = [
        TableSection(name: "November 2026", rows: [
            Entry(id: 8, text: "Fog over the bridge", date: "2026-11-22"),
            Entry(id: 7, text: "Lunch by the river", date: "2026-11-21"),
            Entry(id: 6, text: "First snow — the whole street white", date: "2026-11-14"),
        ]),
        TableSection(name: "October 2026", rows: [
            Entry(id: 4, text: "Pumpkins at the market", date: "2026-10-24"),
            Entry(id: 3, text: "Rainy walk (audio)", date: "2026-10-11"),
        ]),
        TableSection(name: "September 2026", rows: [
            Entry(id: 2, text: "Harbour at dawn", date: "2026-09-30"),
        ]),
        TableSection(name: "August 2026", rows: [
            Entry(id: 1, text: "Back from the coast", date: "2026-08-28"),
        ]),
    ]

    static func run(_ arguments: inout ArgumentList, output: CommandOutput) throws {
        try arguments.finish()
        let changeset = TableChangeset(from: before, to: after)
        var lines: [String] = []
        lines.append("HeadlessTable demo: a photo diary, before and after a save.")
        lines.append("")
        lines.append("Before:")
        lines += describe(before)
        lines.append("")
        lines.append("After (8 added, 6 edited, 2 and 1 re-dated into other months, 5 deleted):")
        lines += describe(after)
        lines.append("")
        lines.append("The batch updates a table view performs, stage by stage (each valid for UIKit's performBatchUpdates):")
        lines += changeset.logLines(from: before) { "#\($0.id) \($0.text)" }
        lines.append("")
        let shown = (try? changeset.apply(to: before)) ?? before
        lines.append(shown == after
            ? "Replayed under UIKit's rules, the stages turn the table before into the table after, every edited row reloaded."
            : "Replaying the stages did not give the table after: this is a bug.")
        output.out(lines.joined(separator: "\n") + "\n")
    }

    static func describe(_ sections: [TableSection<Entry>]) -> [String] {
        sections.flatMap { section in
            ["  \(section.name)"] + section.rows.map { "    #\($0.id)  \($0.date)  \($0.text)" }
        }
    }
}
