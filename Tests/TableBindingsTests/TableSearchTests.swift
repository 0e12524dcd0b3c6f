import Foundation
import HeadlessTable
import TableSnapshotTesting
import TableTestSupport
import Testing

/// Searches as `UISearchController` does them: scopes, flat or sectioned
/// results, the search field on both tables, and typing on that filters the
/// previous results — always what filtering by hand gives.
@Suite struct TableSearchTests {
    final class NoteCell: TableViewCell {}

    static let words = ["Jo", "Josef", "José", "Jonas", "Müller", "Mueller", "MÜLLER", "Anna", "Anne", "Äbte", "Abel", "fog", "Foggy", "Zoë"]
    static let letters = ["j", "o", "s", "e", "m", "ü", "u", "l", "a", "n", "ä", "b", "f", "g", "z", "ë", "É", "J"]

    static func cell(_ table: TableView, _ path: TablePath, _ note: Note) throws -> TableViewCell {
        let cell = try table.dequeueReusableCell(withIdentifier: "note", for: path)
        cell.text = note.title
        return cell
    }

    /// The hand-made test of `title CONTAINS[cd] text`: Foundation's folding.
    static func handMatches(_ title: String, _ text: String) -> Bool {
        let fold = { (s: String) in s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
        return text.isEmpty || fold(title).contains(fold(text))
    }

    static let scopes: [TableSearch<Note>.Scope] = [
        .init("All"),
        .init("Low", predicate: try! RecordPredicate(format: "rank < 10")),
        .init("Group a", predicate: RecordPredicate { $0.group == "a" }),
    ]
    static let handScopes: [@Sendable (Note) -> Bool] = [{ _ in true }, { $0.rank < 10 }, { $0.group == "a" }]

    /// A search, its binding, both tables and the controller are freed when
    /// the caller lets go of them: no retain cycle through the search's
    /// updates (what the address sanitizer's leak report was taken for).
    @Test func nothingIsKeptAliveAfterASearch() throws {
        weak var table: TableView?, results: TableView?, binding: FetchedResultsTableBinding<Note>?
        weak var search: TableSearch<Note>?, controller: FetchedResultsController<Note>?
        do {
            let store = ObjectStore(for: Note.self)
            let view = ObjectContext(store: store)
            for id in 0..<30 { try view.insert(Note(id: id, group: ["a", "b"][id % 2], rank: id, title: Self.words[id % Self.words.count])) }
            try view.save()
            let strongController = FetchedResultsController(
                fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("group"), SortKey("title")]), context: view, sectionNameKeyPath: "group")
            let strongTable = TableView(viewportHeight: 300)
            try strongTable.register(NoteCell.self, forCellReuseIdentifier: "note")
            let strongBinding = try strongTable.bind(to: strongController, cell: Self.cell)
            let strongSearch = try TableSearch(strongBinding, format: "title CONTAINS[cd] %@")
            try strongSearch.update(text: "jo")
            try strongSearch.update(text: "j")
            #expect(strongSearch.resultsTable.numberOfSections > 0)
            try view.delete(Note.self, id: 0)
            try view.save()
            strongSearch.cancel()
            (table, results, binding, search, controller) = (strongTable, strongSearch.resultsTable, strongBinding, strongSearch, strongController)
        }
        #expect(table == nil && results == nil && binding == nil && search == nil && controller == nil,
                "kept alive: table \(table != nil), results \(results != nil), binding \(binding != nil), search \(search != nil), controller \(controller != nil)")
    }

    @Test(arguments: [TableSearch<Note>.ResultsLayout.flat, .sectioned])
    func searchesEqualFilteringByHand(layout: TableSearch<Note>.ResultsLayout) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ (layout == .flat ? 21 : 22))
        var narrowed = 0, fetched = 0, checks = 0
        var nextID = 0
        for round in 0..<12 {
            let store = ObjectStore(for: Note.self)
            let view = ObjectContext(store: store, name: "view")
            let writer = ObjectContext(store: store, name: "writer")
            func randomNote() -> Note {
                defer { nextID += 1 }
                return Note(id: nextID, group: ["a", "b", "c"][g.int(0..<3)], rank: g.int(0...20),
                            title: Self.words[g.int(0..<Self.words.count)] + (g.chance(0.5) ? " " + Self.words[g.int(0..<Self.words.count)] : ""))
            }
            for _ in 0..<g.int(0...80) { try view.insert(randomNote()) }
            try view.save()
            let sectioned = g.chance(0.5)
            var request = FetchRequest<Note>(sortKeys: sectioned ? [SortKey("group"), SortKey("rank"), SortKey("title")] : [SortKey("rank", ascending: false), SortKey("title")])
            let baseFilter: (Note) -> Bool
            if g.chance(0.5) {
                request.predicate = try RecordPredicate(format: "rank != 7")
                baseFilter = { $0.rank != 7 }
            } else {
                baseFilter = { _ in true }
            }
            let controller = FetchedResultsController(fetchRequest: request, context: view, sectionNameKeyPath: sectioned ? "group" : nil)
            let table = TableView(viewportHeight: 100_000)
            try table.register(NoteCell.self, forCellReuseIdentifier: "note")
            let binding = try table.bind(to: controller, cell: Self.cell)
            let search = try TableSearch(binding, format: "title CONTAINS[cd] %@", results: layout, scopes: Self.scopes)
            var text = ""
            for step in 0..<25 {
                let context = "seed \(seed), round \(round), step \(step)"
                table._checkInvariants()
                search.resultsTable._checkInvariants()
                switch g.int(0..<10) {
                case 0...4: text += Self.letters[g.int(0..<Self.letters.count)]   // typing on
                case 5: text = String(text.dropLast())
                case 6: text = String(Self.words[g.int(0..<Self.words.count)].prefix(g.int(0...3)))
                case 7:
                    let index = g.int(-1...3)
                    let before = search.selectedSearchScopeIndex
                    if (0..<3).contains(index) {
                        try search.selectScope(at: index)
                    } else {
                        expectThrows(TableSearchError.scopeOutOfRange(index: index, scopeCount: 3)) { try search.selectScope(at: index) }
                        expectEqual(search.selectedSearchScopeIndex, before)
                    }
                default:
                    // A save: in the view context, or another one (merged, or not yet).
                    let writing = g.chance(0.5) ? view : writer
                    let ids = store.objects(Note.self).map(\.id)
                    for _ in 0..<g.int(1...4) {
                        if g.chance(0.4) || ids.isEmpty {
                            try writing.insert(randomNote())
                        } else if g.chance(0.3) {
                            _ = try? writing.delete(Note.self, id: ids[g.int(0..<ids.count)])
                        } else if var note = try writing.object(Note.self, id: ids[g.int(0..<ids.count)]) {
                            note.title = Self.words[g.int(0..<Self.words.count)]
                            note.rank = g.int(0...20)
                            try writing.update(note)
                        }
                    }
                    if writing === view {
                        do { try view.save() } catch { view.rollback() }
                    } else {
                        do {
                            let saved = try writer.save()
                            if g.chance(0.5) { view.mergeChanges(fromContextDidSave: saved) }
                        } catch {
                            writer.rollback()
                        }
                    }
                }
                // After a save not merged the results may be stale until the next search: search now.
                try search.update(text: text)
                if search.lastUpdateNarrowed { narrowed += 1 } else { fetched += 1 }

                // By hand: the main table's rows (every record the view context
                // has merged), in its order, filtered.
                let scope = Self.handScopes[search.selectedSearchScopeIndex]
                let all = controller.fetchedObjects ?? []
                #expect(all.allSatisfy(baseFilter), "\(context)")
                let expected = all.filter { scope($0) && Self.handMatches($0.title, text) }
                expectEqual(search.fetchedObjects?.map(\.id), expected.map(\.id), "\(context): \"\(text)\" in scope \(search.selectedSearchScopeIndex), by \(String(describing: search.lastUpdateMethod))")
                let expectedSections: [String]
                if layout == .flat || !sectioned {
                    expectedSections = [""]
                } else {
                    expectedSections = expected.reduce(into: [String]()) { names, note in if names.last != note.group { names.append(note.group ?? "") } }
                }
                let results = search.resultsTable
                let names = (0..<results.numberOfSections).map { results.dataSource?.tableView(results, titleForHeaderInSection: $0) ?? "" }
                expectEqual(names, expectedSections, "\(context)")
                expectEqual(results.numberOfSections, expectedSections.count, "\(context)")
                expectEqual((0..<results.numberOfSections).reduce(0) { $0 + results.numberOfRows(inSection: $1) }, expected.count, "\(context)")
                let expectedTitles = expectedSections.reduce(into: [String]()) { titles, name in
                    if let title = controller.sectionIndexTitle(forSectionName: name), !title.isEmpty, title != titles.last { titles.append(title) }
                }
                expectEqual(results.sectionIndexTitles, (layout == .flat || !sectioned ? nil : expectedTitles), "\(context)")
                #expect(table.searchFieldText == text && search.resultsTable.searchFieldText == text)
                #expect(table.searchScopeTitles == ["All", "Low", "Group a"] && table.selectedSearchScopeIndex == search.selectedSearchScopeIndex)
                checks += 1
            }
            search.cancel()
            #expect(table.searchFieldText == nil && table.searchScopeTitles == nil)
        }
        expectEqual(checks, 300)
        #expect(narrowed > 20, "narrowed \(narrowed), fetched \(fetched)")
        // How many searches start from every row depends on the seed's
        // steps (17 and 20 of 300 in one run): the check is that such searches are
        // among those compared above.
        #expect(fetched > 5, "narrowed \(narrowed), fetched \(fetched)")
    }

    @Test func closureSearchesNarrowOnlyWhenTheyOptIn() throws {
        let context = ObjectContext(store: ObjectStore(for: Note.self))
        for (id, title) in Self.words.enumerated() { try context.insert(Note(id: id, group: nil, rank: id, title: title)) }
        try context.save()
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("rank")]), context: context)
        let table = TableView(viewportHeight: 1_000)
        try table.register(NoteCell.self, forCellReuseIdentifier: "note")
        let binding = try table.bind(to: controller, cell: Self.cell)
        let plain = TableSearch(binding) { text in RecordPredicate { $0.title.lowercased().hasPrefix(text.lowercased()) } }
        try plain.update(text: "jo")
        try plain.update(text: "jos")
        #expect(!plain.lastUpdateNarrowed)
        expectEqual(plain.resultsTable.visibleCells.map(\.text), ["Josef", "José"])
        let optedIn = TableSearch(binding, predicate: { text in RecordPredicate { $0.title.lowercased().hasPrefix(text.lowercased()) } },
                                  narrows: { new, old in new.lowercased().hasPrefix(old.lowercased()) })
        try optedIn.update(text: "jo")
        #expect(!optedIn.lastUpdateNarrowed)
        try optedIn.update(text: "jos")
        #expect(optedIn.lastUpdateNarrowed)
        expectEqual(optedIn.resultsTable.visibleCells.map(\.text), ["Josef", "José"])
        try optedIn.update(text: "j")   // wider: fetched
        #expect(!optedIn.lastUpdateNarrowed)
        expectEqual(optedIn.resultsTable.visibleCells.map(\.text), ["Jo", "Josef", "José", "Jonas"])
        // A format search on a collection key never narrows (CONTAINS is membership there).
        let tags = try TableSearch(binding, format: "tags CONTAINS %@")
        try tags.update(text: "a")
        try tags.update(text: "ab")
        #expect(!tags.lastUpdateNarrowed)
    }

    @Test func scopesFlatResultsAndTheSearchFieldAsDrawn() throws {
        let context = ObjectContext(store: ObjectStore(for: Note.self))
        let people = [("Jo Abel", "a", 3), ("Josef Müller", "b", 12), ("José Anne", "a", 15), ("Anna Jonas", "c", 5), ("Zoë", "b", 1)]
        for (id, person) in people.enumerated() { try context.insert(Note(id: id, group: person.1, rank: person.2, title: person.0)) }
        try context.save()
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("group"), SortKey("title")]), context: context, sectionNameKeyPath: "group")
        let table = TableView(viewportHeight: 8 * 44)
        table.rowHeight = 44
        table.sectionHeaderHeight = 44
        try table.register(NoteCell.self, forCellReuseIdentifier: "note")
        let binding = try table.bind(to: controller, cell: Self.cell)
        let search = try TableSearch(binding, format: "title CONTAINS[cd] %@", results: .flat, scopes: Self.scopes)
        expectEqual(search.searchScopeTitles, ["All", "Low", "Group a"])
        // Selecting before searching only selects.
        try search.selectScope(at: 1)
        #expect(!search.isActive && table.searchScopeTitles == nil)
        expectThrows(TableSearchError.scopeOutOfRange(index: 3, scopeCount: 3)) { try search.selectScope(at: 3) }
        expectEqual("\(TableSearchError.scopeOutOfRange(index: 3, scopeCount: 3))", "no scope at index 3: the search has 3 scopes (0...2)")
        try search.update(text: "jo")
        expectEqual(search.resultsTable.visibleCells.map(\.text), ["Jo Abel", "Anna Jonas"])
        try search.selectScope(at: 0)
        expectEqual(search.resultsTable.visibleCells.map(\.text), ["Jo Abel", "José Anne", "Josef Müller", "Anna Jonas"])
        #expect(search.resultsTable.numberOfSections == 1 && search.resultsTable.sectionIndexTitles == nil)
        try search.update(text: "jos")
        #expect(search.lastUpdateNarrowed)
        expectEqual(search.resultsTable.visibleCells.map(\.text), ["José Anne", "Josef Müller"])
        try search.selectScope(at: 2)
        expectEqual(search.resultsTable.visibleCells.map(\.text), ["José Anne"])

        let renderer = try TextRenderer(width: 36, pointsPerLine: 44)
        var out = "Main table while searching:\n" + renderer.text(for: table.currentFrame)
        out += "\nResults table:\n" + renderer.text(for: search.resultsTable.currentFrame)
        search.cancel()
        out += "\nMain table after cancel:\n" + renderer.text(for: table.currentFrame)
        assertTextSnapshot(of: out)

        // A sectioned search keeps the sections and the index.
        let sectioned = try TableSearch(binding, format: "title CONTAINS[cd] %@", results: .sectioned)
        try sectioned.update(text: "jo")
        expectEqual(sectioned.resultsTable.numberOfSections, 3)
        expectEqual(sectioned.resultsTable.sectionIndexTitles, ["A", "B", "C"])
        expectThrows(TableSearchError.scopeOutOfRange(index: 0, scopeCount: 0)) { try sectioned.selectScope(at: 0) }
    }
}
