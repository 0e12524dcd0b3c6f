import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableDiff
import TableTestSupport
import Testing

/// The getting-started article's store and controller (part 3), as written
/// there (a temporary file for the store): it compiles, and does what the
/// article says.
@Suite struct GettingStartedTests {
    static let article = "Sources/HeadlessTable/HeadlessTable.docc/GettingStarted.md"

    struct Entry: Record, Codable, TableDiffable, Equatable {
        var id: UUID
        var text: String
        var created: Date
        var month: String

        static let recordKeys: RecordKeys<Entry> = [
            "text": RecordKey(\.text), "created": RecordKey(\.created), "month": RecordKey(\.month),
        ]
    }

    final class DiaryScreen: FetchedResultsControllerDelegate {
        var changes: [String] = []
        var stages = 0
        func controller(_ controller: FetchedResultsController<Entry>, didChange object: Entry,
                        at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?) {
            changes.append("\(type) \(object.text) \(indexPath.map(String.init(describing:)) ?? "-") \(newIndexPath.map(String.init(describing:)) ?? "-")")
        }
        func controller(_ controller: FetchedResultsController<Entry>, didChangeContentWith change: FetchedResultsChange<Entry>) {
            stages += change.changeset.stages.count
        }
    }

    @Test func theTourRuns() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("getting-started-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let store = try ObjectStore(for: Entry.self, fileURL: folder.appendingPathComponent("diary.json"))
        let view = ObjectContext(store: store, name: "view")
        let editor = ObjectContext(store: store, name: "editor")

        var request = FetchRequest<Entry>(
            predicate: RecordPredicate { !$0.text.isEmpty },
            sortKeys: [SortKey("created", ascending: false)])
        request.fetchBatchSize = 50
        let screen = DiaryScreen()
        let controller = FetchedResultsController(fetchRequest: request, context: view, sectionNameKeyPath: "month")
        controller.delegate = screen
        controller.deliversWholeChanges = true
        try controller.performFetch()
        expectEqual(controller.sections?.isEmpty, true)

        try editor.insert(Entry(id: UUID(), text: "Fog over the bridge", created: Date(), month: "November 2026"))
        let saved = try editor.save()
        view.mergeChanges(fromContextDidSave: saved)

        expectEqual(controller.sections?.map(\.name), ["November 2026"])
        let first = try controller.object(at: TablePath(row: 0, section: 0))
        expectEqual(first.text, "Fog over the bridge")
        expectEqual(controller.indexPath(for: first), TablePath(row: 0, section: 0))
        expectThrows(FetchError.self) { try controller.object(at: TablePath(row: 1, section: 0)) }
        expectEqual(screen.changes, ["insert Fog over the bridge - {0, 0}"])
        expectEqual(screen.stages, 1)
        // The save is in the file.
        try expectEqual(ObjectStore(for: Entry.self, fileURL: folder.appendingPathComponent("diary.json")).objects(Entry.self), [first])
    }

    /// The code above that the article shows, line for line (the test's own
    /// additions — the temporary folder, the expectations — left out).
    static let shownCode = #"""
        struct Entry: Record, Codable, TableDiffable, Equatable {
            var id: UUID
            var text: String
            var created: Date
            var month: String
            static let recordKeys: RecordKeys<Entry> = [
                "text": RecordKey(\.text), "created": RecordKey(\.created), "month": RecordKey(\.month),
            ]
        }
        let view = ObjectContext(store: store, name: "view")
        let editor = ObjectContext(store: store, name: "editor")
        try editor.insert(Entry(id: UUID(), text: "Fog over the bridge", created: Date(), month: "November 2026"))
        let saved = try editor.save()
        view.mergeChanges(fromContextDidSave: saved)
        var request = FetchRequest<Entry>(
            predicate: RecordPredicate { !$0.text.isEmpty },
            sortKeys: [SortKey("created", ascending: false)])
        request.fetchBatchSize = 50
        let controller = FetchedResultsController(fetchRequest: request, context: view, sectionNameKeyPath: "month")
        controller.delegate = screen
        try controller.performFetch()
        let first = try controller.object(at: TablePath(row: 0, section: 0))
        controller.indexPath(for: first)
        func controller(_ controller: FetchedResultsController<Entry>, didChange object: Entry,
                        at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?) {
        func controller(_ controller: FetchedResultsController<Entry>, didChangeContentWith change: FetchedResultsChange<Entry>) {
        """#

    @Test func theArticleShowsThisCode() throws {
        try expectEqual(DocumentedCode.linesMissing(from: Self.article, Self.shownCode), [])
    }
}
