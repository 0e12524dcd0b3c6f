import Foundation
import Testing
import HeadlessTable
import TableTestSupport

/// A search over a store that reads its records from its file (a compacted
/// store, opened again): the index the search keeps is made of the file's
/// records, and its answers are the predicate's.
@Suite struct TableSearchFileStoreTests {
    @Test(arguments: [false, true])
    func aSearchOfAFileStoresRecordsIsThePredicates(sectioned: Bool) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ (sectioned ? 1 : 0))
        let folder = TemporaryFolder()
        let groups = ["Äpfel", "birnen", nil, "Kirschen"]
        let titles = ["Müller", "muller", "Straße", "strasse", "Zoë", "ka", "Kal", "e", "É"]
        // More than the rows from which the index is made on a thread of its own.
        let notes = (0..<3_000).map { id in
            Note(id: id, group: groups[g.int(0..<groups.count)], rank: g.int(0..<50),
                 title: (0..<g.int(1...3)).map { _ in titles[g.int(0..<titles.count)] }.joined(separator: " "))
        }
        let store = try Note.compactedStore(notes, model: Note.indexedModel, at: folder.url("notes.htstore"))
        let context = ObjectContext(store: store)
        // A save after the compaction: some rows in memory, the rest in the file.
        for id in 0..<20 { try context.update(Note(id: id * 7, group: "Äpfel", rank: id, title: "Müller neu")) }
        try context.save()
        let request = FetchRequest<Note>(sortKeys: (sectioned ? [SortKey("group")] : []) + [SortKey("rank"), SortKey("id")])
        let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: sectioned ? "group" : nil)
        let table = TableView(viewportHeight: 200)
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        let binding = try table.bind(to: controller) { table, path, _ in try table.dequeueReusableCell(withIdentifier: "row", for: path) }
        let format = "title CONTAINS[cd] %@"
        let search = try TableSearch(binding, format: format, results: sectioned ? .sectioned : .flat)
        #expect(search.waitForSearchIndex(timeout: 60), "the search index was not made within a minute")
        for text in ["mul", "müller", "STRASSE", "zoe", "ka", "é", "neu", "x"] {
            try search.update(text: text)
            while try !search.showFoundResults(waiting: true) {}
            let predicate = try FormatPredicate(format: format, arguments: [.string(text)])
            let expected = try (controller.fetchedObjects ?? []).filter { try predicate.evaluate(with: $0) }.map(\.id)
            let shown = try (0..<search.resultsTable.numberOfSections).flatMap { section in
                try (0..<search.resultsTable.numberOfRows(inSection: section)).map { try search.object(at: TablePath(row: $0, section: section)).id }
            }
            expectEqual(shown, expected, "seed \(seed): \"\(text)\" by \(String(describing: search.lastUpdateMethod))")
            #expect(!expected.isEmpty || text == "x", "seed \(seed): \"\(text)\" finds rows")
        }
    }
}
