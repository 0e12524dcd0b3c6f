import Foundation
import HeadlessTable
import TableTestSupport
import Testing

/// The German book's photo diary, its listings written as the book writes
/// them, on the one stack: the fetched results controller of the entries
/// (4.51), the table's data source reading its sections, with the nil
/// dequeue (4.52), the other contexts' saves merged from the did-save
/// notification (4.53), the hand-written delegate of batch updates
/// (4.54/4.55), the cell configured with `mediumForType:` through the
/// relationship (4.56), the swipe that deletes an entry and its media by
/// the cascade rule (4.57), and the search (4.58, section 4.5.9).
@Suite struct BookListingsTests {
    struct DiaryEntry: Record, Codable, Equatable {
        var id: Int
        var text: String
        var creationTime: Double
        var media: [Int] = []
        static let recordKeys: RecordKeys<DiaryEntry> = [
            "id": RecordKey(\.id), "text": RecordKey(\.text), "creationTime": RecordKey(\.creationTime),
            "month": RecordKey { .string("month \(Int($0.creationTime) / 30)") },
        ]
    }

    struct Medium: Record, Codable, Equatable {
        var id: Int
        var type: String
        var diaryEntry: Int?
        static let recordKeys: RecordKeys<Medium> = ["id": RecordKey(\.id), "type": RecordKey(\.type)]
    }

    /// The diary's view controller, as the book writes it.
    final class DiaryViewController: FetchedResultsControllerDelegate, TableViewDataSource {
        typealias Object = DiaryEntry
        let table: TableView
        let context: ObjectContext
        let fetchedResultsController: FetchedResultsController<DiaryEntry>
        var refused: [String] = []
        var observer: (any NSObjectProtocol)?

        init(store: ObjectStore) throws {
            table = TableView(viewportHeight: 1_000_000)
            context = ObjectContext(store: store, name: "view")
            // Listing 4.51: the controller — newest first, a section per month, a batch size, a cache.
            var request = FetchRequest<DiaryEntry>(sortKeys: [SortKey("creationTime", ascending: false)])
            request.fetchBatchSize = 20
            fetchedResultsController = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: "month", cacheName: "diary")
            fetchedResultsController.delegate = self
            try fetchedResultsController.performFetch()
            table.dataSource = self
            try table.reloadData()
            // Listing 4.53: every other context's save merged into this one.
            nonisolated(unsafe) let view = context
            observer = NotificationCenter.default.addObserver(forName: .objectContextDidSave, object: nil, queue: nil) { note in
                view.mergeChanges(fromContextDidSave: note)
            }
        }

        deinit { if let observer { NotificationCenter.default.removeObserver(observer) } }

        /// Listing 4.56: the book's `mediumForType:`, and the cell it configures.
        func medium(forType type: String, of entry: DiaryEntry) throws -> Medium? {
            try context.destinations(of: entry, relationship: "media", as: Medium.self).first { $0.type == type }
        }

        func configure(_ cell: TableViewCell?, with entry: DiaryEntry) {
            let icon = (try? medium(forType: "image", of: entry)) != nil ? "▣" : (try? medium(forType: "audio", of: entry)) != nil ? "♪" : "✎"
            cell?.text = "\(icon) \(entry.text)"
        }

        // Listing 4.52: the data source, the cell made when none is queued.
        func numberOfSections(in tableView: TableView) -> Int { fetchedResultsController.sections?.count ?? 0 }
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
            fetchedResultsController.sections?[section].numberOfObjects ?? 0
        }
        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            var cell = tableView.dequeueReusableCell(withIdentifier: "DiaryCell")
            if cell == nil { cell = TableViewCell(style: .subtitle, reuseIdentifier: "DiaryCell") }
            configure(cell, with: try fetchedResultsController.object(at: indexPath))
            return cell
        }
        func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? { fetchedResultsController.sections?[section].name }

        // Listing 4.57: a swipe deletes the entry; the cascade rule deletes its media.
        func tableView(_ tableView: TableView, commit editingStyle: TableView.EditingStyle, forRowAt indexPath: TablePath) throws {
            guard editingStyle == .delete else { return }
            try context.delete(try fetchedResultsController.object(at: indexPath))
            try context.save()
        }

        // Listings 4.54 and 4.55: the delegate, batch by batch.
        func controllerWillChangeContent(_ controller: FetchedResultsController<DiaryEntry>) { table.beginUpdates() }
        func controller(_ controller: FetchedResultsController<DiaryEntry>, didChange section: FetchedResultsSectionInfo<DiaryEntry>, atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
            switch type {
            case .insert: record { try table.insertSections([sectionIndex], with: .fade) }
            case .delete: record { try table.deleteSections([sectionIndex], with: .fade) }
            default: break
            }
        }
        func controller(_ controller: FetchedResultsController<DiaryEntry>, didChange object: DiaryEntry, at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?) {
            switch type {
            case .insert: record { try table.insertRows(at: [newIndexPath!], with: .fade) }
            case .delete: record { try table.deleteRows(at: [indexPath!], with: .fade) }
            case .update: configure(table.cellForRow(at: indexPath!), with: object)
            case .move:
                record { try table.deleteRows(at: [indexPath!], with: .fade) }
                record { try table.insertRows(at: [newIndexPath!], with: .fade) }
            }
        }
        func controllerDidChangeContent(_ controller: FetchedResultsController<DiaryEntry>) { record { try table.endUpdates() } }

        func record(_ call: () throws -> Void) {
            do { try call() } catch { refused.append("\(error)") }
        }
    }

    static func model() throws -> ObjectModel {
        try ObjectModel(
            .entity(DiaryEntry.self, relationships: [.toMany("media", \.media, to: Medium.self, inverse: "diaryEntry", deleteRule: .cascade)]),
            .entity(Medium.self, relationships: [.toOne("diaryEntry", \.diaryEntry, to: DiaryEntry.self, inverse: "media")]))
    }

    /// Random changes saved by a second context (a phone syncing) and swipes
    /// in the diary's own: after each, every row of the table shows its entry
    /// where the controller has it, with the icon its media give; no batch is
    /// refused; the search (4.58) finds what the text holds.
    @Test func theBooksListingsKeepTheDiaryInPlace() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let store = ObjectStore(model: try Self.model())
        let diary = try DiaryViewController(store: store)
        let phone = ObjectContext(store: store, name: "phone")
        // Listing 4.58: the search of section 4.5.9, a table of its own beside the diary's.
        let searched = TableView(viewportHeight: 1_000_000)
        try searched.register(TableViewCell.self, forCellReuseIdentifier: "DiaryCell")
        let binding = try searched.bind(to: diary.fetchedResultsController) { table, path, entry in
            let cell = try table.dequeueReusableCell(withIdentifier: "DiaryCell", for: path)
            cell.text = entry.text
            return cell
        }
        let search = try TableSearch(binding, format: "text CONTAINS[cd] %@", results: .flat)
        let words = ["fog", "snow", "market", "river"]
        var nextEntry = 0, nextMedium = 1_000, swipes = 0, misplaced: [String] = []
        for step in 0..<TestScale.cases(80, full: 300) {
            let where_ = "seed \(seed), step \(step)"
            let entries = store.objects(DiaryEntry.self), media = store.objects(Medium.self)
            switch g.int(0..<6) {
            case 0, 1:
                try phone.insert(DiaryEntry(id: nextEntry, text: "\(words[g.int(0..<4)]) \(nextEntry)", creationTime: Double(g.int(0...300))))
                nextEntry += 1
            case 2 where !entries.isEmpty:
                try phone.insert(Medium(id: nextMedium, type: g.chance(0.5) ? "image" : "audio", diaryEntry: entries[g.int(0..<entries.count)].id))
                nextMedium += 1
            case 3 where !entries.isEmpty:
                guard var entry = try phone.object(DiaryEntry.self, id: entries[g.int(0..<entries.count)].id) else { continue }
                if g.chance(0.5) { entry.text = "\(words[g.int(0..<4)]) edited \(step)" } else { entry.creationTime = Double(g.int(0...300)) }
                try phone.update(entry)
            case 4 where !media.isEmpty:
                try phone.delete(Medium.self, id: media[g.int(0..<media.count)].id)
            case 5 where diary.table.numberOfSections > 0:
                // A swipe in the diary: its own save, its media with it.
                let section = g.int(0..<diary.table.numberOfSections)
                if diary.table.numberOfRows(inSection: section) > 0 {
                    try diary.table.commit(.delete, forRowAt: TablePath(row: 0, section: section))
                    swipes += 1
                }
                continue
            default:
                continue
            }
            try phone.save()   // posted: the diary merges it (4.53)

            let controller = diary.fetchedResultsController
            expectEqual(diary.table.numberOfSections, controller.numberOfSections, "\(where_)")
            for s in 0..<controller.numberOfSections {
                expectEqual(diary.table.numberOfRows(inSection: s), controller.numberOfObjects(inSection: s), "\(where_)")
                for r in 0..<controller.numberOfObjects(inSection: s) {
                    let path = TablePath(row: r, section: s), expected = TableViewCell(reuseIdentifier: nil)
                    diary.configure(expected, with: try controller.object(at: path))
                    if diary.table.cellForRow(at: path)?.text != expected.text {
                        misplaced.append("\(where_), \(path): \(diary.table.cellForRow(at: path)?.text ?? "nothing") ≠ \(expected.text ?? "")")
                    }
                }
            }
            let word = words[g.int(0..<4)]
            try search.update(text: word)
            let order = controller.fetchedObjects ?? []
            expectEqual(search.fetchedObjects?.map(\.id), order.filter { $0.text.contains(word) }.map(\.id), "\(where_): searching \(word)")
            search.cancel()
        }
        #expect(diary.refused.isEmpty, "seed \(seed): \(diary.refused.prefix(3))")
        #expect(misplaced.isEmpty, "seed \(seed): \(misplaced.count) rows misplaced or stale, e.g. \(misplaced.prefix(3))")
        #expect(swipes > 0 && store.objects(Medium.self).allSatisfy { medium in medium.diaryEntry.map { store.object(DiaryEntry.self, id: $0) != nil } ?? true },
                "seed \(seed): a medium left to a deleted entry")
    }
}
