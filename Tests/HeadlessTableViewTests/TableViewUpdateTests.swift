import Foundation
import HeadlessTableView
import TableDiff
import TableTestSupport
import Testing

/// Batch updates through a table: they agree with TableDiff's value model
/// (what UIKit shows: moved rows keep their content, reloaded and inserted
/// rows take the data source's), are refused with UIKit's message when they
/// do not add up — the table staying as it was — and selection follows rows.
@Suite struct TableViewUpdateTests {
    static func makeTable(_ sections: Table, viewport: Double) throws -> (TableView, ItemSource) {
        let source = ItemSource(sections)
        let table = TableView(viewportHeight: viewport)
        try table.register(ItemCell.self, forCellReuseIdentifier: "item")
        table.dataSource = source
        table.delegate = source
        try table.reloadData()
        return (table, source)
    }

    /// What a table shows for `expected`, row by row, in the rows of its window.
    static func expectedTexts(_ expected: Table, in table: TableView) -> [TablePath: String] {
        Dictionary(uniqueKeysWithValues: table.indexPathsForVisibleRows.map { p in (p, expected[p.section].rows[p.row].description) })
    }

    @Test func randomBatchesAgreeWithTheValueModel() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        var refused = 0
        for round in 0..<2_000 {
            let c = BatchGenerator.generate(&g)
            let everything = g.chance(0.5)
            let (table, source) = try Self.makeTable(c.displayed, viewport: everything ? 100_000 : Double(g.int(30...200)))
            if !everything { try table.setContentOffset(Double(g.int(0...400))) }
            let selectedIDs = Set(table.indexPathsForVisibleRows.filter { _ in g.chance(0.3) }.map { c.displayed[$0.section].rows[$0.row].id })
            table.allowsMultipleSelection = true
            for p in table.indexPathsForVisibleRows where selectedIDs.contains(c.displayed[p.section].rows[p.row].id) { try table.selectRow(at: p) }
            let context = "seed \(seed), round \(round): \(describe(c.displayed)) with \(c.update.logLines().joined(separator: "; "))"

            var update = c.update
            let corrupt = g.chance(0.25)
            if corrupt { BatchGenerator.corrupt(&update, &g) }
            let before = (texts: table.shownTexts, counts: (0..<table.numberOfSections).map(table.numberOfRows(inSection:)), selected: table.indexPathsForSelectedRows)
            source.sections = c.data
            do {
                try table.performBatchUpdates {
                    try table.deleteSections(update.deletedSections)
                    try table.insertSections(update.insertedSections)
                    for m in update.movedSections { try table.moveSection(m.from, toSection: m.to) }
                    try table.reloadSections(update.reloadedSections)
                    try table.deleteRows(at: update.deletedRows)
                    try table.insertRows(at: update.insertedRows)
                    for m in update.movedRows { try table.moveRow(at: m.from, to: m.to) }
                    try table.reloadRows(at: update.reloadedRows)
                }
            } catch let error as TableViewError {
                // Refused: with the value model's words, and nothing changed.
                guard case .inconsistentUpdate(let inner) = error else { Issue.record("\(error): \(context)"); return }
                #expect(corrupt, "a valid batch refused: \(error): \(context)")
                do {
                    _ = try update.validate(rowCountsBefore: c.displayed.map(\.rows.count), rowCountsAfter: c.data.map(\.rows.count))
                    Issue.record("the value model accepts what the table refused: \(context)")
                } catch {
                    expectEqual(error, inner, "\(context)")
                }
                expectEqual(table.shownTexts, before.texts, "\(context)")
                expectEqual((0..<table.numberOfSections).map(table.numberOfRows(inSection:)), before.counts, "\(context)")
                expectEqual(table.indexPathsForSelectedRows, before.selected, "\(context)")
                table._checkInvariants()
                refused += 1
                continue
            }
            // Accepted: what the value model shows — except that a row coming
            // into the window from outside it gets a fresh cell, with the data's content.
            table._checkInvariants()
            let shown = try update.applying(to: c.displayed, dataSource: c.data)
            expectEqual(table.numberOfSections, shown.count, "\(context)")
            let hadCells = Set(before.texts.keys.map { c.displayed[$0.section].rows[$0.row].id })
            let expected = Dictionary(uniqueKeysWithValues: table.indexPathsForVisibleRows.map { p in
                let row = shown[p.section].rows[p.row]
                return (p, hadCells.contains(row.id) ? row.description : c.data[p.section].rows[p.row].description)
            })
            expectEqual(table.shownTexts, expected, "\(context)")
            if everything { expectEqual(table.indexPathsForVisibleRows.count, shown.reduce(0) { $0 + $1.rows.count }, "\(context)") }
            // Selection followed the rows; reloaded rows (content 1) lost it.
            // (By identity: only when the batch is the one built, not a
            // corrupted one that happens to add up.)
            guard !corrupt else { continue }
            let expectedSelected = shown.indices.flatMap { s in shown[s].rows.indices.compactMap { r -> TablePath? in
                let item = shown[s].rows[r]
                return selectedIDs.contains(item.id) && item.content == 0 ? TablePath(row: r, section: s) : nil
            } }
            expectEqual(table.indexPathsForSelectedRows, expectedSelected, "\(context)")
            for p in table.indexPathsForVisibleRows { expectEqual(table.cellForRow(at: p)?.isSelected, expectedSelected.contains(p), "\(context)") }
        }
        #expect(refused > 200)
    }

    /// A changeset applied stage by stage leaves the table showing the new
    /// table, every row in its place with its new content.
    @Test func changesetsTurnTheOldTableIntoTheNewOne() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for round in 0..<500 {
            let shape = TableGenerator.Shape.allCases[round % TableGenerator.Shape.allCases.count]
            let (old, new) = TableGenerator.pair(shape, &g)
            let changeset = TableChangeset(from: old, to: new)
            guard changeset.duplicateIdentifiers.isEmpty else { continue }
            let (table, source) = try Self.makeTable(old, viewport: 100_000)
            try table.apply(changeset) { stage in
                table._checkInvariants()
                source.sections = stage.sections
            }
            table._checkInvariants()
            expectEqual(table.shownTexts, Self.expectedTexts(new, in: table), "seed \(seed), round \(round)")
            expectEqual(table.indexPathsForVisibleRows.count, new.reduce(0) { $0 + $1.rows.count })
        }
    }

    @Test func nestedBatchesApplyOnceAtTheOutermostEnd() throws {
        let (table, source) = try Self.makeTable(table([("A", [1, 2, 3])]), viewport: 1_000)
        source.sections = TableTestSupport.table([("A", [0, 1, 2, 3, 4])])
        table.beginUpdates()
        try table.insertRows(at: [TablePath(row: 0, section: 0)])
        table.beginUpdates()
        try table.insertRows(at: [TablePath(row: 4, section: 0)])
        try table.endUpdates()
        expectEqual(table.numberOfRows(inSection: 0), 3)   // not yet
        try table.endUpdates()
        expectEqual(table.numberOfRows(inSection: 0), 5)
        expectEqual(table.visibleCells.map(\.text), ["0", "1", "2", "3", "4"])
        try table.endUpdates()   // unbalanced: nothing
    }

    @Test func outsideABatchEachChangeAppliesAtOnce() throws {
        let (table, source) = try Self.makeTable(table([("A", [1, 2])]), viewport: 1_000)
        source.sections = TableTestSupport.table([("A", [2])])
        try table.deleteRows(at: [TablePath(row: 0, section: 0)])
        expectEqual(table.visibleCells.map(\.text), ["2"])
        // A change that does not add up: UIKit's message, the table unchanged.
        do {
            try table.insertRows(at: [TablePath(row: 0, section: 0)])
            Issue.record("accepted")
        } catch {
            expectEqual("\(error)", "Invalid update: invalid number of rows in section 0. The number of rows contained in an existing section after the update (1) must be equal to the number of rows contained in that section before the update (1), plus or minus the number of rows inserted or deleted from that section (1 inserted, 0 deleted) and plus or minus the number of rows moved into or out of that section (0 moved in, 0 moved out).")
        }
        expectEqual(table.visibleCells.map(\.text), ["2"])
    }

    @Test func reloadTakesANewCellReconfigureKeepsIt() throws {
        let (table, source) = try Self.makeTable(table([("A", [1, 2])]), viewport: 1_000)
        let first = try #require(table.cellForRow(at: TablePath(row: 0, section: 0)) as? ItemCell)
        source.sections = [TableSection(name: "A", rows: [Item(id: 1, content: 1), Item(id: 2)])]
        try table.reconfigureRows(at: [TablePath(row: 0, section: 0)])
        #expect(table.cellForRow(at: TablePath(row: 0, section: 0)) === first)
        #expect(first.text == "1'1" && first.prepared == 0)
        source.sections = [TableSection(name: "A", rows: [Item(id: 1, content: 2), Item(id: 2)])]
        try table.reloadRows(at: [TablePath(row: 0, section: 0)])
        let second = try #require(table.cellForRow(at: TablePath(row: 0, section: 0)) as? ItemCell)
        #expect(second !== first && second.text == "1'2")
        expectEqual(table.reusePool.cellStatistics.queued, 1)   // the old cell, queued after the new one was made
        // Inside a batch, reconfigure names rows after it.
        source.sections = [TableSection(name: "A", rows: [Item(id: 0), Item(id: 1, content: 3), Item(id: 2)])]
        try table.performBatchUpdates {
            try table.insertRows(at: [TablePath(row: 0, section: 0)])
            try table.reconfigureRows(at: [TablePath(row: 1, section: 0)])
        }
        #expect(table.cellForRow(at: TablePath(row: 1, section: 0)) === second)
        expectEqual(second.text, "1'3")
    }

    @Test func dataSourceMistakesAreErrors() throws {
        let (table, source) = try Self.makeTable(table([("A", [1, 2, 3])]), viewport: 1_000)
        source.returnNilFor = TablePath(row: 1, section: 0)
        expectThrows(TableViewError.noCell(TablePath(row: 1, section: 0))) { try table.reloadData() }
        source.returnNilFor = nil
        source.dequeueTwiceFor = TablePath(row: 2, section: 0)
        expectThrows(TableViewError.multipleDequeues(TablePath(row: 2, section: 0))) { try table.reloadData() }
        source.dequeueTwiceFor = nil
        source.identifier = "unknown"
        do {
            try table.reloadData()
            Issue.record("accepted")
        } catch {
            expectEqual("\(error)", "unable to dequeue a cell with identifier unknown - must register a nib or a class for the identifier or connect a prototype cell in a storyboard")
        }
        source.identifier = "item"
        try table.reloadData()
        expectEqual(table.visibleCells.count, 3)
        // A failed scroll moves nothing.
        let big = try Self.makeTable(TableTestSupport.table([("A", Array(0..<100))]), viewport: 100)
        big.1.returnNilFor = TablePath(row: 50, section: 0)
        expectThrows(TableViewError.self) { try big.0.setContentOffset(49 * 44) }
        expectEqual(big.0.contentOffset, 0)
        expectEqual(big.0.indexPathsForVisibleRows, [0, 1].map { TablePath(row: $0, section: 0) })   // under a 28-point header
    }

    @Test func tapsAskTheDelegate() throws {
        final class Redirecting: TableViewDelegate {
            var log: [String] = []
            func tableView(_ tableView: TableView, willSelectRowAt indexPath: TablePath) -> TablePath? {
                log.append("will \(indexPath)")
                return indexPath.row == 2 ? nil : (indexPath.row == 1 ? TablePath(row: 0, section: 0) : indexPath)
            }
            func tableView(_ tableView: TableView, didSelectRowAt indexPath: TablePath) { log.append("did \(indexPath)") }
            func tableView(_ tableView: TableView, didDeselectRowAt indexPath: TablePath) { log.append("deselected \(indexPath)") }
        }
        let (table, _) = try Self.makeTable(table([("A", [1, 2, 3, 4])]), viewport: 1_000)
        let delegate = Redirecting()
        table.delegate = delegate
        try table.tapRow(at: TablePath(row: 3, section: 0))
        try table.tapRow(at: TablePath(row: 1, section: 0))   // redirected to row 0
        try table.tapRow(at: TablePath(row: 2, section: 0))   // refused
        expectEqual(delegate.log, ["will {0, 3}", "did {0, 3}", "will {0, 1}", "deselected {0, 3}", "did {0, 0}", "will {0, 2}"])
        expectEqual(table.indexPathsForSelectedRows, [TablePath(row: 0, section: 0)])
        // From code: no delegate calls.
        try table.selectRow(at: TablePath(row: 3, section: 0))
        expectEqual(table.indexPathsForSelectedRows, [TablePath(row: 3, section: 0)])
        expectEqual(delegate.log.count, 6)
        try table.selectRow(at: nil)
        #expect(table.indexPathsForSelectedRows.isEmpty)
        expectThrows(TableViewError.self) { try table.tapRow(at: TablePath(row: 9, section: 0)) }
    }
}

/// Editing: swipe-to-delete and user moves go through the data source and the
/// normal update path; a data source that forgets to tell the table is caught.
@Suite struct TableViewEditingTests {
    final class EditableSource: ItemSourceWrapper {}
    class ItemSourceWrapper: TableViewDataSource {
        var sections: Table
        var forgetToUpdateTable = false
        weak var table: TableView?
        init(_ sections: Table) { self.sections = sections }
        func numberOfSections(in tableView: TableView) -> Int { sections.count }
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { sections[section].rows.count }
        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            let cell = try tableView.dequeueReusableCell(withIdentifier: "item", for: indexPath)
            cell.text = sections[indexPath.section].rows[indexPath.row].description
            return cell
        }
        func tableView(_ tableView: TableView, canEditRowAt indexPath: TablePath) -> Bool { indexPath.row != 0 }
        func tableView(_ tableView: TableView, commit editingStyle: TableView.EditingStyle, forRowAt indexPath: TablePath) throws {
            guard editingStyle == .delete else { return }
            sections[indexPath.section].rows.remove(at: indexPath.row)
            if !forgetToUpdateTable { try tableView.deleteRows(at: [indexPath]) }
        }
        func tableView(_ tableView: TableView, canMoveRowAt indexPath: TablePath) -> Bool { true }
        func tableView(_ tableView: TableView, moveRowAt source: TablePath, to destination: TablePath) throws {
            let item = sections[source.section].rows.remove(at: source.row)
            sections[destination.section].rows.insert(item, at: destination.row)
        }
    }

    @Test func swipeToDeleteAndUserMoves() throws {
        let source = EditableSource(TableTestSupport.table([("A", [1, 2, 3]), ("B", [4])]))
        let table = TableView(viewportHeight: 1_000)
        try table.register(ItemCell.self, forCellReuseIdentifier: "item")
        table.dataSource = source
        try table.reloadData()
        table.setEditing(true)
        #expect(table.visibleCells.allSatisfy { $0.isEditing })
        expectThrows(TableViewError.notEditable(TablePath(row: 0, section: 0))) { try table.commit(.delete, forRowAt: TablePath(row: 0, section: 0)) }
        try table.commit(.delete, forRowAt: TablePath(row: 1, section: 0))
        expectEqual(table.visibleCells.map(\.text), ["1", "3", "4"])
        // The user drags row {0, 1} into section 1: the model follows, the cell is kept.
        let dragged = table.cellForRow(at: TablePath(row: 1, section: 0))
        try table.moveRowByUser(from: TablePath(row: 1, section: 0), to: TablePath(row: 1, section: 1))
        #expect(table.cellForRow(at: TablePath(row: 1, section: 1)) === dragged)
        expectEqual(source.sections.map { $0.rows.map(\.id) }, [[1], [4, 3]])
        #expect(table.numberOfRows(inSection: 0) == 1 && table.numberOfRows(inSection: 1) == 2)
        expectThrows(TableViewError.self) { try table.moveRowByUser(from: TablePath(row: 0, section: 0), to: TablePath(row: 5, section: 1)) }
        // A data source that changes its model without telling the table.
        source.forgetToUpdateTable = true
        do {
            try table.commit(.delete, forRowAt: TablePath(row: 1, section: 1))
            Issue.record("accepted")
        } catch {
            #expect("\(error)".hasPrefix("Invalid update: invalid number of rows in section 1. The number of rows contained in an existing section after the update (1) must be equal to the number of rows contained in that section before the update (2)"))
        }
    }
}

/// Every consistency error UIKit reports, through a table: the same words, and
/// the table as it was.
@Suite struct TableViewConsistencyErrorTests {
    @Test(arguments: BatchUpdateErrorCases.all)
    func refusedWithUIKitsMessage(_ c: BatchUpdateErrorCases.Case) throws {
        let before: Table = c.before.enumerated().map { s, n in TableSection(name: "", rows: (0..<n).map { Item(id: s * 100 + $0) }) }
        let after: Table = c.after.enumerated().map { s, n in TableSection(name: "", rows: (0..<n).map { Item(id: 1_000 + s * 100 + $0) }) }
        let (table, source) = try TableViewUpdateTests.makeTable(before, viewport: 10_000)
        let shown = table.shownTexts
        source.sections = after
        do {
            try table.performBatchUpdates {
                let u = c.update
                try table.deleteSections(u.deletedSections)
                try table.insertSections(u.insertedSections)
                for m in u.movedSections { try table.moveSection(m.from, toSection: m.to) }
                try table.reloadSections(u.reloadedSections)
                try table.deleteRows(at: u.deletedRows)
                try table.insertRows(at: u.insertedRows)
                for m in u.movedRows { try table.moveRow(at: m.from, to: m.to) }
                try table.reloadRows(at: u.reloadedRows)
            }
            Issue.record("accepted: \(c.message)")
        } catch {
            expectEqual("\(error)", c.message)
        }
        expectEqual(table.shownTexts, shown)
        expectEqual((0..<table.numberOfSections).map(table.numberOfRows(inSection:)), c.before)
    }
}
