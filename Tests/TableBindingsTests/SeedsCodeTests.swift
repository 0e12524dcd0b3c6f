import Foundation
import HeadlessTable
import TableTestSupport
import Testing

/// The table code the seeds teach, written as they write it, against the
/// library: the hand-written fetched results delegate (Listings 4.54/4.55 of
/// the German book, the Tuts+ "Done" app) and the nil-dequeue pattern.
@Suite struct SeedsCodeTests {
    /// The seeds' delegate and data source: `beginUpdates` in will-change,
    /// section inserts and deletes, `insertRows(newIndexPath)`,
    /// `deleteRows(indexPath)`, a move as a delete and an insert, an update as
    /// configuring `cellForRow(at: indexPath)` with the object, `endUpdates`
    /// in did-change.
    final class SeedsTableCode: FetchedResultsControllerDelegate, TableViewDataSource {
        typealias Object = Note
        let table: TableView
        let controller: FetchedResultsController<Note>
        /// Batches the table refused.
        var refused: [String] = []

        init(table: TableView, controller: FetchedResultsController<Note>) {
            self.table = table
            self.controller = controller
        }

        static func configure(_ cell: TableViewCell?, with note: Note) { cell?.text = "\(note.id) \(note.group ?? "-") \(note.rank) v\(note.version)" }

        func numberOfSections(in tableView: TableView) -> Int { controller.sections?.count ?? 0 }
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
            controller.sections?[section].numberOfObjects ?? 0
        }
        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            let cell = try tableView.dequeueReusableCell(withIdentifier: "Cell", for: indexPath)
            Self.configure(cell, with: try controller.object(at: indexPath))
            return cell
        }

        func controllerWillChangeContent(_ controller: FetchedResultsController<Note>) { table.beginUpdates() }

        func controller(_ controller: FetchedResultsController<Note>, didChange section: FetchedResultsSectionInfo<Note>, atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
            switch type {
            case .insert: try? table.insertSections([sectionIndex], with: .fade)
            case .delete: try? table.deleteSections([sectionIndex], with: .fade)
            default: break
            }
        }

        func controller(_ controller: FetchedResultsController<Note>, didChange object: Note, at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?) {
            switch type {
            case .insert: try? table.insertRows(at: [newIndexPath!], with: .fade)
            case .delete: try? table.deleteRows(at: [indexPath!], with: .fade)
            case .update: Self.configure(table.cellForRow(at: indexPath!), with: object)
            case .move:
                try? table.deleteRows(at: [indexPath!], with: .fade)
                try? table.insertRows(at: [newIndexPath!], with: .fade)
            }
        }

        func controllerDidChangeContent(_ controller: FetchedResultsController<Note>) {
            do {
                try table.endUpdates()
            } catch {
                refused.append("\(error)")
                try? table.reloadData()
            }
        }
    }

    /// Random multi-object saves from several contexts, sectioned and not:
    /// every batch is accepted, and every row shows its object, in place.
    @Test(arguments: [false, true])
    func theSeedsDelegateKeepsEveryRowInPlace(sectioned: Bool) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ (sectioned ? 7 : 0))
        let groups = ["a", "b", "c", "d", "e"]
        var nextID = 0, saves = 0, misplaced: [String] = []
        let burst = NoteChangeBurst(groups: groups, ranks: 0...12, changes: 1...6, kinds: 5, newRankChance: 0.6)
        for round in 0..<TestScale.cases(5, full: 25) {
            let store = ObjectStore(for: Note.self)
            let view = ObjectContext(store: store, name: "view")
            let writers = [ObjectContext(store: store, name: "w1"), ObjectContext(store: store, name: "w2")]
            for _ in 0..<g.int(0...30) {
                try view.insert(Note(id: nextID, group: groups[g.int(0..<3)], rank: g.int(0...12)))
                nextID += 1
            }
            try view.save()
            let request = FetchRequest<Note>(sortKeys: sectioned ? [SortKey("group"), SortKey("rank")] : [SortKey("rank")])
            let controller = FetchedResultsController(fetchRequest: request, context: view, sectionNameKeyPath: sectioned ? "group" : nil)
            try controller.performFetch()
            let table = TableView(viewportHeight: 1_000_000)
            try table.register(TableViewCell.self, forCellReuseIdentifier: "Cell")
            let code = SeedsTableCode(table: table, controller: controller)
            controller.delegate = code
            table.dataSource = code
            try table.reloadData()

            for step in 0..<100 {
                let context = g.chance(0.3) ? view : writers[g.int(0..<2)]
                try burst.make(in: context, existing: store.objects(Note.self).map(\.id), nextID: &nextID, &g)
                context.saveOrRollBack(mergingInto: view)
                saves += 1
                // The table against the results: counts, and every cell (all rows are in the window).
                let where_ = "seed \(seed), round \(round), step \(step)"
                expectEqual(table.numberOfSections, controller.numberOfSections, "\(where_)")
                for s in 0..<controller.numberOfSections {
                    expectEqual(table.numberOfRows(inSection: s), controller.numberOfObjects(inSection: s), "\(where_)")
                    for r in 0..<controller.numberOfObjects(inSection: s) {
                        let path = TablePath(row: r, section: s), expected = TableViewCell(reuseIdentifier: nil)
                        SeedsTableCode.configure(expected, with: try controller.object(at: path))
                        if table.cellForRow(at: path)?.text != expected.text {
                            misplaced.append("\(where_), \(path): shows \(table.cellForRow(at: path)?.text ?? "nothing"), should show \(expected.text ?? "")")
                        }
                    }
                }
            }
            #expect(code.refused.isEmpty, "seed \(seed), round \(round): \(code.refused.prefix(3))")
            if !code.refused.isEmpty { break }
        }
        #expect(saves >= TestScale.cases(500, full: 2_500))
        #expect(misplaced.isEmpty, "\(misplaced.count) rows misplaced or stale, e.g. \(misplaced.prefix(3))")
    }
}
