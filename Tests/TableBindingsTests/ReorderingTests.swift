import Foundation
import HeadlessTable
@testable import TableBindings
import TableTestSupport
import Testing

/// Moves by the user: through a diffable data source with
/// reordering handlers, against an array model; through a table bound to a
/// fetched results controller, against the store, the controller and an
/// array model, with no move echoed; the delegate's target index path; and
/// refused moves that leave everything as it was.
@Suite struct ReorderingTests {
    /// Counts the batches a table shows.
    final class BatchCounter: TableRenderer {
        var updates: [TableUpdate] = []
        func display(_ frame: TableFrame) {}
        func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame) { updates.append(update) }
    }

    /// Redirects some proposed destinations: the row goes to the first row of
    /// the proposed section instead, when `redirecting` says so.
    final class Redirector: TableViewDelegate {
        var redirecting: (TablePath, TablePath) -> Bool = { _, _ in false }
        var asked = 0
        func tableView(_ tableView: TableView, targetIndexPathForMoveFromRowAt sourceIndexPath: TablePath, toProposedIndexPath proposed: TablePath) -> TablePath {
            asked += 1
            return redirecting(sourceIndexPath, proposed) ? TablePath(row: 0, section: proposed.section) : proposed
        }
    }

    /// The model's move: the item at `source` removed, inserted at `destination`.
    static func move<T>(_ model: inout [[T]], from source: TablePath, to destination: TablePath) {
        let item = model[source.section].remove(at: source.row)
        model[destination.section].insert(item, at: destination.row)
    }

    /// A random drop: any row, to any place of any section (row counted
    /// without the moved one); nil when the table is empty.
    static func randomMove(_ counts: [Int], _ g: inout SeededGenerator) -> (TablePath, TablePath)? {
        let filled = counts.indices.filter { counts[$0] > 0 }
        guard !filled.isEmpty else { return nil }
        let s = filled[g.int(0..<filled.count)]
        let source = TablePath(row: g.int(0..<counts[s]), section: s)
        let d = g.int(0..<counts.count)
        let rows = counts[d] - (d == s ? 1 : 0)
        return (source, TablePath(row: g.int(0...rows), section: d))
    }

    // MARK: Diffable data source

    @Test func randomMovesThroughADiffableDataSource() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for round in 0..<6 {
            let table = TableView(viewportHeight: g.chance(0.5) ? 100_000 : Double(g.int(60...400)))
            try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
            let counter = BatchCounter()
            table.renderer = counter
            let redirector = Redirector()
            table.delegate = redirector
            let dataSource = try TableViewDiffableDataSource<String, Int>(tableView: table) { table, path, item in
                let cell = try table.dequeueReusableCell(withIdentifier: "row", for: path)
                cell.text = "\(item)"
                return cell
            }
            var model: [[Int]] = (0..<g.int(1...4)).map { _ in [] }
            var next = 0
            for s in model.indices {
                for _ in 0..<g.int(0...12) { model[s].append(next); next += 1 }
            }
            let sections = model.indices.map { "S\($0)" }
            func snapshot(_ model: [[Int]]) throws -> TableSnapshot<String, Int> {
                var snapshot = TableSnapshot<String, Int>()
                try snapshot.appendSections(sections)
                for (s, items) in model.enumerated() { try snapshot.appendItems(items, toSection: sections[s]) }
                return snapshot
            }
            try dataSource.apply(try snapshot(model))
            let fixed = Set(model.joined().filter { _ in g.chance(0.1) })   // rows that cannot move
            var will: [DiffableDataSourceTransaction<String, Int>] = [], did: [DiffableDataSourceTransaction<String, Int>] = []
            dataSource.reorderingHandlers = .init(
                canReorderItem: { !fixed.contains($0) },
                willReorder: { will.append($0) },
                didReorder: { did.append($0) })
            let redirectEvery = g.int(2...5)
            redirector.redirecting = { source, proposed in (source.row + proposed.row) % redirectEvery == 0 }
            table.setEditing(true)
            for step in 0..<25 {
                let context = "seed \(seed), round \(round), step \(step)"
                guard let (source, proposed) = Self.randomMove(model.map(\.count), &g) else { break }
                let before = dataSource.snapshot()
                let batchesBefore = counter.updates.count
                let askedBefore = redirector.asked
                let didBefore = did.count
                let item = model[source.section][source.row]
                if fixed.contains(item) {
                    expectThrows(TableViewError.notMovable(source), "\(context)") { try table.moveRowByUser(from: source, to: proposed) }
                    #expect(dataSource.snapshot() == before && counter.updates.count == batchesBefore, "\(context)")
                    continue
                }
                try table.moveRowByUser(from: source, to: proposed)
                expectEqual(redirector.asked, askedBefore + 1, "\(context)")
                let destination = redirector.redirecting(source, proposed) ? TablePath(row: 0, section: proposed.section) : proposed
                Self.move(&model, from: source, to: destination)
                let after = dataSource.snapshot()
                expectEqual(after, (try snapshot(model)), "\(context): \(source) -> \(destination)")
                if source == destination {
                    // Dropped where it was: nothing to show, nothing to tell.
                    #expect(counter.updates.count == batchesBefore && did.count == didBefore, "\(context)")
                    continue
                }
                // One batch of one move; each handler called once with the transaction.
                expectEqual(counter.updates.count, batchesBefore + 1, "\(context)")
                expectEqual(counter.updates.last?.batch, {
                    var batch = BatchUpdate()
                    batch.moveRow(at: source, to: destination)
                    return batch
                }(), "\(context)")
                #expect(will.count == did.count && did.count == didBefore + 1, "\(context)")
                let transaction = try #require(did.last)
                #expect(transaction.initialSnapshot == before && transaction.finalSnapshot == after, "\(context)")
                expectEqual(before.itemIdentifiers.applying(transaction.difference), after.itemIdentifiers, "\(context)")
                // A move that keeps the item's place among all items (the last of a
                // section to the top of the next) is no difference of the items.
                let flatMove = before.indexOfItem(item) != after.indexOfItem(item)
                expectEqual(transaction.difference.count, (flatMove ? 2 : 0), "\(context)")
                let sectionTransactions = transaction.sectionTransactions
                expectEqual(sectionTransactions.count, (source.section == destination.section ? 1 : 2), "\(context)")
                for section in sectionTransactions {
                    expectEqual(section.initialItems.applying(section.difference), section.finalItems, "\(context)")
                    expectEqual(section.initialItems, (try before.itemIdentifiers(inSection: section.sectionIdentifier)), "\(context)")
                    expectEqual(section.finalItems, (try after.itemIdentifiers(inSection: section.sectionIdentifier)), "\(context)")
                }
                for path in table.indexPathsForVisibleRows {
                    expectEqual(table.cellForRow(at: path)?.text, "\(model[path.section][path.row])", "\(context): \(path)")
                }
                table._checkInvariants()
            }
            expectEqual(will.count, did.count)
            // An apply after the moves diffs against what the table shows: one insert.
            let batchesBefore = counter.updates.count
            model[0].append(next)
            try dataSource.apply(try snapshot(model))
            var insert = BatchUpdate()
            insert.insertRows(at: [TablePath(row: model[0].count - 1, section: 0)])
            #expect(counter.updates.count == batchesBefore + 1 && counter.updates.last?.batch == insert, "seed \(seed), round \(round)")
        }
    }

    @Test func refusedMovesChangeNothing() throws {
        let table = TableView(viewportHeight: 1_000)
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        let counter = BatchCounter()
        table.renderer = counter
        let dataSource = try TableViewDiffableDataSource<String, String>(tableView: table) { table, path, item in
            let cell = try table.dequeueReusableCell(withIdentifier: "row", for: path)
            cell.text = item
            return cell
        }
        var snapshot = TableSnapshot<String, String>()
        try snapshot.appendSections(["A", "B"])
        try snapshot.appendItems(["a1", "a2", "a3"], toSection: "A")
        try snapshot.appendItems(["b1"], toSection: "B")
        try dataSource.apply(snapshot)
        table.setEditing(true)
        let first = TablePath(row: 0, section: 0)
        // Without a handler, no row moves.
        expectThrows(TableViewError.notMovable(first)) { try table.moveRowByUser(from: first, to: TablePath(row: 1, section: 0)) }
        var didReorder = 0
        dataSource.reorderingHandlers.canReorderItem = { _ in true }
        dataSource.reorderingHandlers.didReorder = { _ in didReorder += 1 }
        let batches = counter.updates.count
        // Bad sources and destinations: UIKit's words, nothing changed.
        expectThrows(TableViewError.invalidIndexPath(TablePath(row: 3, section: 0), sectionCount: 2, rowCount: 3)) {
            try table.moveRowByUser(from: TablePath(row: 3, section: 0), to: first)
        }
        expectThrows(TableViewError.invalidIndexPath(TablePath(row: 3, section: 0), sectionCount: 2, rowCount: 3)) {
            try table.moveRowByUser(from: first, to: TablePath(row: 3, section: 0))   // 2 rows stay: 0...2
        }
        expectThrows(TableViewError.invalidIndexPath(TablePath(row: 0, section: 2), sectionCount: 2, rowCount: nil)) {
            try table.moveRowByUser(from: first, to: TablePath(row: 0, section: 2))
        }
        expectThrows(TableViewError.invalidIndexPath(TablePath(row: -1, section: 1), sectionCount: 2, rowCount: 2)) {
            try table.moveRowByUser(from: first, to: TablePath(row: -1, section: 1))
        }
        // A delegate's target outside the table is refused too.
        let redirector = Redirector()
        redirector.redirecting = { _, _ in true }
        final class Outside: TableViewDelegate {
            func tableView(_ tableView: TableView, targetIndexPathForMoveFromRowAt sourceIndexPath: TablePath, toProposedIndexPath proposed: TablePath) -> TablePath {
                TablePath(row: 9, section: 1)
            }
        }
        let outside = Outside()
        table.delegate = outside
        expectThrows(TableViewError.invalidIndexPath(TablePath(row: 9, section: 1), sectionCount: 2, rowCount: 2)) {
            try table.moveRowByUser(from: first, to: TablePath(row: 1, section: 0))
        }
        // Inside a batch.
        table.delegate = redirector
        expectThrows(TableViewError.userMoveInsideBatch) {
            try table.performBatchUpdates { try table.moveRowByUser(from: first, to: TablePath(row: 1, section: 0)) }
        }
        #expect(dataSource.snapshot() == snapshot && counter.updates.count == batches && didReorder == 0)
        expectEqual(table.visibleCells.map(\.text), ["a1", "a2", "a3", "b1"])
        // Redirected to the first row of the proposed section: a1 to B's top.
        try table.moveRowByUser(from: first, to: TablePath(row: 1, section: 1))
        expectEqual(table.visibleCells.map(\.text), ["a2", "a3", "a1", "b1"])
        try expectEqual(dataSource.snapshot().itemIdentifiers(inSection: "B"), ["a1", "b1"])
        #expect(didReorder == 1 && counter.updates.count == batches + 1)
        // Outside editing mode.
        table.setEditing(false)
        expectThrows(TableViewError.notEditing) { try table.moveRowByUser(from: first, to: TablePath(row: 1, section: 0)) }
    }

    // MARK: Fetched results binding

    static func text(_ note: Note) -> String { "\(note.id) \(note.group ?? "-") \(note.rank)" }

    /// Random user moves through a bound table: after each, the store (a
    /// fresh fetch), the controller, the table and an array model have the
    /// same order; the table showed one batch of exactly the user's move
    /// (the controller's report of the save not applied a second time), and
    /// every shown cell its record's current rank.
    @Test(arguments: [false, true])
    func randomMovesThroughABoundTable(sectioned: Bool) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ (sectioned ? 7 : 0))
        let groups = ["a", "b", "c"]
        var renumbered = 0
        for round in 0..<5 {
            let store = ObjectStore(for: Note.self)
            let context = ObjectContext(store: store, name: "view")
            // Distinct ranks, dense or spaced: dense ones leave no room between
            // neighbours, so that moves renumber.
            let dense = round == 0 || g.chance(0.5)
            var rank = 0
            for id in 0..<g.int(round == 0 ? 12...40 : 0...40) {
                rank += dense ? 1 : g.int(1...3_000)
                try context.insert(Note(id: id, group: sectioned ? groups[g.int(0..<groups.count)] : nil, rank: rank))
            }
            try context.save()
            let request = FetchRequest<Note>(sortKeys: sectioned ? [SortKey("group"), SortKey("rank")] : [SortKey("rank")])
            let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: sectioned ? "group" : nil)
            let table = TableView(viewportHeight: 100_000)
            try table.register(TableViewCell.self, forCellReuseIdentifier: "note")
            let counter = BatchCounter()
            table.renderer = counter
            let redirector = Redirector()
            let redirectEvery = g.int(3...6)
            redirector.redirecting = { source, proposed in (source.row * 3 + proposed.row) % redirectEvery == 0 }
            table.delegate = redirector
            let binding = try table.bind(to: controller) { table, path, note in
                let cell = try table.dequeueReusableCell(withIdentifier: "note", for: path)
                cell.text = Self.text(note)
                return cell
            }
            binding.ordering = FetchedResultsTableBinding<Note>.Ordering(key: "rank", \.rank, spacing: g.chance(0.5) ? 1 : 1_024).sectionKey(\.group)
            table.setEditing(true)
            var model: [[Int]] = (controller.sections ?? []).map { $0.objects.map(\.id) }
            for step in 0..<20 {
                let context = "seed \(seed), round \(round), step \(step)"
                guard let (source, proposed) = Self.randomMove(model.map(\.count), &g) else { break }
                let batchesBefore = counter.updates.count
                let notesBefore = Dictionary(uniqueKeysWithValues: store.objects(Note.self).map { ($0.id, $0) })
                try table.moveRowByUser(from: source, to: proposed)
                let destination = redirector.redirecting(source, proposed) ? TablePath(row: 0, section: proposed.section) : proposed
                let movedID = model[source.section][source.row]
                // The objects written: the moved one (even when its values come out the same), and the renumbered ones.
                let changed = store.objects(Note.self).filter { notesBefore[$0.id] != $0 || $0.id == movedID }.count
                if changed > 1 { renumbered += 1 }
                Self.move(&model, from: source, to: destination)
                // A controller has no empty sections: a section the move empties goes.
                let emptied = sectioned && model[source.section].isEmpty
                if emptied { model.remove(at: source.section) }
                // The same order everywhere.
                let shown = (controller.sections ?? []).map { $0.objects.map(\.id) }
                expectEqual(shown, model, "\(context): \(source) -> \(destination)")
                let fresh = FetchedResultsController(fetchRequest: request, context: ObjectContext(store: store), sectionNameKeyPath: sectioned ? "group" : nil)
                try fresh.performFetch()
                expectEqual((fresh.sections ?? []).map { $0.objects.map(\.id) }, model, "\(context)")
                expectEqual(table.numberOfSections, model.count, "\(context)")
                for (s, ids) in model.enumerated() {
                    expectEqual(table.numberOfRows(inSection: s), ids.count, "\(context)")
                    for (r, id) in ids.enumerated() {
                        let path = TablePath(row: r, section: s)
                        let note = store.object(Note.self, id: id)
                        expectEqual(table.cellForRow(at: path)?.text, note.map(Self.text), "\(context): \(path)")
                    }
                }
                // The move, once: no echo of the controller's report.
                if source == destination {
                    expectEqual(counter.updates.count, batchesBefore, "\(context)")
                } else if emptied {
                    // The controller's report: the section deleted, the row deleted and inserted — one batch.
                    expectEqual(counter.updates.count, batchesBefore + 1, "\(context)")
                    expectEqual(counter.updates.last?.batch.deletedSections, [source.section], "\(context)")
                } else {
                    expectEqual(counter.updates.count, batchesBefore + 1, "\(context)")
                    let batch = counter.updates.last?.batch
                    #expect(batch?.movedRows.count == 1 && batch?.changeCount == 1, "\(context): \(String(describing: batch))")
                    expectEqual(batch?.movedRows.first.map { [$0.from, $0.to] }, [source, destination], "\(context)")
                    // Every object written (the moved one, renumbered neighbours) shows its new values.
                    expectEqual(counter.updates.last?.reconfiguredRows.count, changed, "\(context)")
                }
                #expect(binding.lastError == nil, "\(context)")
                table._checkInvariants()
                controller._checkInvariants()
            }
        }
        #expect(renumbered > 0, "seed \(seed): no move had to renumber")
    }

    @Test func boundMovesThatCannotBeWritten() throws {
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store)
        for id in 0..<6 { try context.insert(Note(id: id, group: id < 3 ? "a" : "b", rank: id)) }
        try context.save()
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("group"), SortKey("rank")]), context: context, sectionNameKeyPath: "group")
        let table = TableView(viewportHeight: 1_000)
        try table.register(TableViewCell.self, forCellReuseIdentifier: "note")
        let binding = try table.bind(to: controller) { table, path, note in
            let cell = try table.dequeueReusableCell(withIdentifier: "note", for: path)
            cell.text = Self.text(note)
            return cell
        }
        table.setEditing(true)
        let texts = table.visibleCells.map(\.text)
        let first = TablePath(row: 0, section: 0)
        // No ordering: no move.
        expectThrows(TableViewError.notMovable(first)) { try table.moveRowByUser(from: first, to: TablePath(row: 1, section: 0)) }
        expectThrows(BindingMoveError.noOrdering) { try binding.tableView(table, moveRowAt: first, to: TablePath(row: 1, section: 0)) }
        // An ordering by a key the request does not sort by.
        binding.ordering = .init(key: "version", \.version)
        expectThrows(BindingMoveError.notOrderedBy("version", sortKeys: ["group", "rank"], sectionKey: "group")) {
            try table.moveRowByUser(from: first, to: TablePath(row: 1, section: 0))
        }
        // Across sections without a section key.
        binding.ordering = .init(key: "rank", \.rank)
        expectThrows(BindingMoveError.sectionKeyNotWritable(from: "a", to: "b")) {
            try table.moveRowByUser(from: first, to: TablePath(row: 1, section: 1))
        }
        // Bad index paths, asked of the binding directly.
        expectThrows(TableViewError.invalidIndexPath(TablePath(row: 5, section: 0), sectionCount: 2, rowCount: 3)) {
            try binding.tableView(table, moveRowAt: TablePath(row: 5, section: 0), to: first)
        }
        expectThrows(TableViewError.invalidIndexPath(TablePath(row: 4, section: 1), sectionCount: 2, rowCount: 4)) {
            try binding.tableView(table, moveRowAt: first, to: TablePath(row: 4, section: 1))
        }
        expectEqual(table.visibleCells.map(\.text), texts)
        expectEqual(store.objects(Note.self).sorted { $0.id < $1.id }.map(\.rank), Array(0..<6))
        #expect(!context.hasChanges)
        // A row that may not move.
        binding.ordering?.canMove = { $0.id != 0 }
        expectThrows(TableViewError.notMovable(first)) { try table.moveRowByUser(from: first, to: TablePath(row: 1, section: 0)) }
        // Within a section, the move lands once: 1 between 2 and... ranks 0 1 2 -> 0 2 1.
        try table.moveRowByUser(from: TablePath(row: 1, section: 0), to: TablePath(row: 2, section: 0))
        expectEqual(table.visibleCells.map(\.text), ["0 a 0", "2 a 2", "1 a 1026", "3 b 3", "4 b 4", "5 b 5"])
    }

    /// A `Double` order: midpoints while there is room.
    struct Task: Record, Codable, Hashable {
        var id: Int
        var list: String
        var displayOrder: Double
        static let recordKeys: RecordKeys<Task> = ["list": RecordKey(\.list), "displayOrder": RecordKey(\.displayOrder)]
    }

    @Test func doubleOrdersTakeMidpoints() throws {
        let store = ObjectStore(for: Task.self)
        let context = ObjectContext(store: store)
        for id in 0..<4 { try context.insert(Task(id: id, list: id < 2 ? "home" : "work", displayOrder: Double(id))) }
        try context.save()
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<Task>(sortKeys: [SortKey("list"), SortKey("displayOrder", ascending: false)]), context: context, sectionNameKeyPath: "list")
        let table = TableView(viewportHeight: 1_000)
        try table.register(TableViewCell.self, forCellReuseIdentifier: "task")
        let binding = try table.bind(to: controller) { table, path, task in
            let cell = try table.dequeueReusableCell(withIdentifier: "task", for: path)
            cell.text = "\(task.id)"
            return cell
        }
        binding.ordering = .init(key: "displayOrder", \.displayOrder).sectionKey(\.list)
        table.setEditing(true)
        // As the bindings catalog shows it.
        let shown = #"""
            binding.ordering = .init(key: "displayOrder", \.displayOrder).sectionKey(\.list)
            table.setEditing(true)
            """#
        try expectEqual(DocumentedCode.linesMissing(from: "Sources/TableBindings/TableBindings.docc/TableBindings.md", shown), [])
        expectEqual(table.visibleCells.map(\.text), ["1", "0", "3", "2"])   // descending
        // 0 from home to the middle of work: the midpoint 2.5, one object written.
        try table.moveRowByUser(from: TablePath(row: 1, section: 0), to: TablePath(row: 1, section: 1))
        expectEqual(table.visibleCells.map(\.text), ["1", "3", "0", "2"])
        expectEqual(store.object(Task.self, id: 0), Task(id: 0, list: "work", displayOrder: 2.5))
        expectEqual(store.objects(Task.self).filter { $0.id != 0 }.map(\.displayOrder).sorted(), [1, 2, 3])
        // To the top of work: past the largest (descending: spacing above it).
        try table.moveRowByUser(from: TablePath(row: 2, section: 1), to: TablePath(row: 0, section: 1))
        expectEqual(table.visibleCells.map(\.text), ["1", "2", "3", "0"])
        expectEqual(store.object(Task.self, id: 2)?.displayOrder, 4)
    }

    // MARK: The plan

    @Test func ordersRenumberAsFewObjectsAsNeeded() {
        // Room between the neighbours: the moved object alone.
        var plan = _OrderPlan.place(count: 3, at: 1, integral: true, spacing: 1_024) { [0, 100, 200][$0] }
        #expect(plan.first == 1 && plan.values == [50])
        // Dense integers: a window around the place, up to an end.
        plan = _OrderPlan.place(count: 6, at: 3, integral: true, spacing: 1_024) { [0, 1, 2, 3, 4, 5][$0] }
        #expect(plan.values.count < 7)
        // Property: random non-decreasing values; the plan puts the window in strict order between its neighbours.
        var g = SeededGenerator(seed: SeededGenerator.runSeed())
        for _ in 0..<300 {
            let count = g.int(0...30)
            var values: [Double] = []
            var v = Double(g.int(-50...50))
            for _ in 0..<count { v += Double(g.int(0...3)); values.append(v) }
            let integral = g.chance(0.5)
            let at = g.int(0...count)
            let plan = _OrderPlan.place(count: count, at: at, integral: integral, spacing: 8) { values[$0] }
            var all = values
            all.insert(.nan, at: at)
            for (i, value) in plan.values.enumerated() { all[plan.first + i] = value }
            #expect(zip(all, all.dropFirst()).allSatisfy { $0 <= $1 }, "\(values) at \(at): \(plan)")
            #expect(plan.first <= at && at < plan.first + plan.values.count)
            let window = plan.first..<(plan.first + plan.values.count)
            #expect(zip(all[window], all[window].dropFirst()).allSatisfy { $0 < $1 })
            if plan.first > 0 { #expect(all[plan.first - 1] < all[plan.first]) }
            if window.upperBound < all.count { #expect(all[window.upperBound - 1] < all[window.upperBound]) }
            if integral { #expect(plan.values.allSatisfy { $0 == $0.rounded() }) }
        }
    }
}
