import Foundation
import HeadlessTable

/// `headless-table demo`: a photo diary on the embedded store. A view context
/// shows the entries through a fetched results controller (newest first, one
/// section per month); a second context adds, edits, re-dates and deletes
/// entries and saves; the view context merges the save, and the controller
/// tells its delegate what changed — as Core Data's callbacks, and as the staged
/// batch updates a table view performs.
enum DemoCommand {
    struct Entry: Record, Codable, TableDiffable, Equatable {
        var id: Int
        var text: String
        var date: Date

        static let recordKeys: RecordKeys<Entry> = [
            "text": RecordKey(\.text),
            "date": RecordKey(\.date),
            "month": RecordKey { .string(monthName($0.date)) },
        ]

        /// "2026-11-21": fixed dates, so that the output never depends on the clock.
        init(_ id: Int, _ day: String, _ text: String) {
            self.id = id
            self.text = text
            date = ISO8601.date(from: day + "T12:00:00Z") ?? Date(timeIntervalSince1970: 0)
        }

        var line: String { "#\(id)  \(day)  \(text)" }
        var day: String { String(ISO8601.string(from: date).prefix(10)) }
    }

    /// "November 2026", in English and UTC whatever the machine's settings.
    static func monthName(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month], from: date)
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        return "\(months[((parts.month ?? 1) - 1) % 12]) \(parts.year ?? 0)"
    }

    static let diary = [
        Entry(1, "2026-09-28", "Back from the coast"),
        Entry(2, "2026-10-03", "Harbour at dawn"),
        Entry(3, "2026-10-11", "Rainy walk (audio)"),
        Entry(4, "2026-10-24", "Pumpkins at the market"),
        Entry(5, "2026-11-02", "Museum night"),
        Entry(6, "2026-11-14", "First snow"),
        Entry(7, "2026-11-21", "Lunch by the river"),
    ]

    /// Writes down what the controller tells it.
    final class Log: FetchedResultsControllerDelegate {
        typealias Object = Entry
        var lines: [String] = []
        var change: FetchedResultsChange<Entry>?

        func controllerWillChangeContent(_ controller: FetchedResultsController<Entry>) {
            lines.append("  controllerWillChangeContent")
        }
        func controller(_ controller: FetchedResultsController<Entry>, didChange section: FetchedResultsSectionInfo<Entry>, atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
            lines.append("  didChange section \(section.name.debugDescription) at \(sectionIndex) for \(type)")
        }
        func controller(_ controller: FetchedResultsController<Entry>, didChange object: Entry, at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?) {
            let paths = [indexPath.map { "at \($0)" }, newIndexPath.map { "newIndexPath \($0)" }].compactMap { $0 }.joined(separator: " ")
            lines.append("  didChange object #\(object.id) \(paths) for \(type)")
        }
        func controllerDidChangeContent(_ controller: FetchedResultsController<Entry>) {
            lines.append("  controllerDidChangeContent")
        }
        func controller(_ controller: FetchedResultsController<Entry>, didChangeContentWith change: FetchedResultsChange<Entry>) {
            self.change = change
        }
    }

    static func run(_ arguments: inout ArgumentList, output: CommandOutput) throws {
        try arguments.finish()
        var lines: [String] = []
        func show(_ sections: [TableSection<Entry>]) {
            for section in sections { lines += ["  \(section.name)"] + section.rows.map { "    \($0.line)" } }
        }

        // A store, the diary saved into it, and a view context with a controller.
        let store = ObjectStore<Entry>()
        let view = ObjectContext(store: store, name: "view")
        for entry in diary { try view.insert(entry) }
        _ = try view.save()
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest(sortKeys: [SortKey("date", ascending: false)]),
            context: view, sectionNameKeyPath: "month")
        let log = Log()
        controller.delegate = log
        controller.deliversWholeChanges = true
        try controller.performFetch()
        let before = controller.tableSections

        lines.append("HeadlessTable demo: a photo diary on the embedded store.")
        lines.append("")
        lines.append("A fetched results controller on the view context: newest first, a section per month.")
        show(before)

        // Another context edits and saves; the view context merges the save.
        let editor = ObjectContext(store: store, name: "editor")
        try editor.insert(Entry(8, "2026-11-22", "Fog over the bridge"))
        try editor.update(Entry(6, "2026-11-14", "First snow — the whole street white"))
        try editor.update(Entry(2, "2026-09-30", "Harbour at dawn"))
        try editor.update(Entry(1, "2026-08-28", "Back from the coast"))
        try editor.delete(5)
        let saved = try editor.save()
        view.mergeChanges(fromContextDidSave: saved)

        lines.append("")
        lines.append("A second context adds #8, edits #6, re-dates #2 into September and #1 into August,")
        lines.append("deletes #5, and saves; the view context merges the save. The controller's delegate is told")
        lines.append("(Core Data's index paths: before the change for deletes, updates and a move's source; after it")
        lines.append("for inserts and a move's destination):")
        lines += log.lines
        lines.append("")
        lines.append("After:")
        show(controller.tableSections)

        lines.append("")
        lines.append("The same change as batch updates a table view performs, stage by stage (each valid for UIKit's")
        lines.append("performBatchUpdates):")
        let changeset = log.change?.changeset ?? TableChangeset(from: before, to: controller.tableSections)
        lines += changeset.logLines(from: before) { "#\($0.id) \($0.text)" }
        lines.append("")
        let shown = (try? changeset.apply(to: before)) ?? []
        lines.append(log.change?.sectionsBefore == before && shown == controller.tableSections
            ? "Replayed under UIKit's rules, the stages turn the table before into the table after, every edited row reloaded."
            : "Replaying the stages did not give the table after: this is a bug.")
        output.out(lines.joined(separator: "\n") + "\n")
    }
}
