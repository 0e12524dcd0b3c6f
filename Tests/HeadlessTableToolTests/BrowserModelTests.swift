import Foundation
import HeadlessTable
@testable import HeadlessTableTool
@testable import TableBindings
import TableTestSupport
import Testing
import ToolArguments

/// The browser's model driven headless by random key sequences, against an
/// oracle: the fetch's order (a plain context fetch), searches by the
/// predicate itself over every live object, the selection and the window
/// kept by hand — as a table keeps them: the selection stays on its row when
/// other rows go (the row below takes a deleted selection's place), the
/// window keeps its offset within the content, and the selection is
/// scrolled into view after every key.
@Suite struct BrowserModelTests {
    static let syllables = ["an", "be", "jo", "sé", "ma", "RI", "el", "Ö", "x", "ka", "각", "e\u{301}s", "ß"]

    /// Seeded people: most with ASCII names, some with accents (composed
    /// or not), capitals, `ß` or Hangul (a syllable of several scalars),
    /// some whose name is a number (the predicate decides those), some
    /// with a title as well (searched too) or a CR in the name.
    static func people(_ count: Int, seed: UInt64) -> [DynamicObject] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { k in
            let parts = (0..<(1 + Int(random.next() % 3))).map { _ in syllables[Int(random.next() % UInt64(syllables.count))] }
            var fields: [(String, RecordValue)] = [("id", .int(k))]
            switch random.next() % 20 {
            case 0: fields.append(("name", .int(Int(random.next() % 1000))))
            case 1: fields.append(("name", .string(parts.joined() + "\r\nan")))
            case 2: fields.append(("title", .string("Dr " + parts.joined())))
            default: fields.append(("name", .string(parts.joined() + " \(k)")))
            }
            fields.append(("age", .int(Int(random.next() % 90))))
            return DynamicObject(fields: DynamicRecord(fields: fields))
        }
    }

    /// What the model should show, kept by hand.
    struct Oracle {
        var base: [DynamicObject]
        var deleted = Set<RecordValue>()
        var typing = false
        var text = ""
        var results: [DynamicObject]?
        var main = (selected: 0, top: 0)
        var found = (selected: 0, top: 0)
        let lines: Int

        var live: [DynamicObject] { base.filter { !deleted.contains($0.id) } }
        var list: [DynamicObject] { results ?? live }
        var height: Int { max(1, lines - 2 - (results != nil || typing ? 1 : 0)) }
        var place: (selected: Int, top: Int) {
            get { results == nil ? main : found }
            set { if results == nil { main = newValue } else { found = newValue } }
        }

        func matching(_ text: String) -> [DynamicObject] {
            let predicate = try? RecordTable.matching(text, textKey: nil)
            return live.filter { (try? predicate?.evaluate(with: $0)) == true }
        }

        mutating func select(_ position: Int) {
            let count = list.count
            var place = self.place
            place.selected = min(max(0, count - 1), max(0, position))
            if place.selected < place.top { place.top = place.selected } else if place.selected >= place.top + height { place.top = place.selected - height + 1 }
            place.top = max(0, min(place.top, count - height))
            self.place = place
        }

        mutating func search(_ text: String) {
            self.text = text
            if text.isEmpty {
                results = nil
                return
            }
            results = matching(text)
            found = (0, 0)
            select(0)
        }

        mutating func cancel() {
            typing = false
            text = ""
            results = nil
        }

        mutating func move(_ key: Key) {
            guard !list.isEmpty else { return }
            let from = place.selected
            let page = max(1, height - 1)
            switch key {
            case .up: select(from - 1)
            case .down: select(from + 1)
            case .pageUp: select(from - page)
            case .pageDown: select(from + page)
            case .home: select(0)
            case .end: select(list.count - 1)
            default: break
            }
        }

        /// After every key: each table's window within its content, and its
        /// selection in view.
        mutating func fitTablesToScreen() {
            let shownResults = results
            for table in [false, true] where !table || shownResults != nil {
                results = table ? shownResults : nil
                let count = list.count
                place.selected = min(max(0, count - 1), place.selected)
                place.top = max(0, min(place.top, count - height))
                select(place.selected)
            }
            results = shownResults
        }

        mutating func handle(_ key: Key) {
            defer { fitTablesToScreen() }
            if typing {
                switch key {
                case .character(let c): search(text + String(c))
                case .backspace: search(String(text.dropLast()))
                case .enter: typing = false
                case .escape: cancel()
                default: move(key)
                }
                return
            }
            switch key {
            case .character("/"):
                typing = true
                search(text)
            case .escape: if results != nil { cancel() }
            case .character("d"):
                let list = self.list
                guard list.indices.contains(place.selected) else { return }
                let object = list[place.selected]
                // The whole table's selection stays on its row, unless that
                // row goes: then the row below takes its place.
                let before = live
                let mainSelected: RecordValue? = before.indices.contains(main.selected) ? before[main.selected].id : nil
                deleted.insert(object.id)
                if results != nil { results?.removeAll { $0.id == object.id } }
                if results != nil, let mainSelected, mainSelected != object.id {
                    main.selected = live.firstIndex { $0.id == mainSelected } ?? main.selected
                }
                select(place.selected)
            case .character("j"): move(.down)
            case .character("k"): move(.up)
            default: move(key)
            }
        }
    }

    static let keys: [Key] = [.up, .down, .pageUp, .pageDown, .home, .end, .enter, .escape, .backspace, .character("/"), .character("d"), .character("j"), .character("k")]
        + "anbejosémaRIÖxk é가s".map { Key.character($0) }

    @Test(arguments: (1...UInt64(TestScale.cases(1, full: 6))).map { $0 })
    func randomKeysAgainstTheOracle(seed: UInt64) throws {
        let objects = Self.people(300, seed: seed)
        let session = try BrowseSession(arguments: ["--sort", "name,id", "--detail", "age", "people.json"], objects: objects)
        let model = session.model
        model.resize(columns: 40, lines: 12)
        // The fetch's order, independently: a context's fetch with the same sort.
        let context = ObjectContext(store: ObjectStore(for: DynamicObject.self))
        for object in objects { try context.insert(object) }
        _ = try context.save()
        let base = try context.fetch(FetchRequest<DynamicObject>(sortKeys: [SortKey("name"), SortKey("id")]))
        var oracle = Oracle(base: base, lines: 12)
        _ = model.screen()
        expectEqual(model.listedObjects.map(\.id), base.map(\.id))

        var random = SeededGenerator(seed: seed)
        var history: [Key] = []
        for step in 0..<TestScale.cases(250, full: 400) {
            // Searches more likely than not: runs of letters.
            let key = Self.keys[Int(random.next() % UInt64(Self.keys.count))]
            history.append(key)
            model.handle(key)
            oracle.handle(key)
            let status = model.status
            let screen = model.screen()
            let top = oracle.place.top
            let context = "seed \(seed), step \(step), keys \(history.suffix(12)), status \(status)"
            #expect(model.typing == oracle.typing && model.searchText == oracle.text, "\(context)")
            expectEqual(model.listedObjects.map(\.id), oracle.list.map(\.id), "\(context)")
            let selected: DynamicObject? = oracle.list.indices.contains(oracle.place.selected) ? oracle.list[oracle.place.selected] : nil
            expectEqual(model.selectedObject?.id, selected?.id, "\(context)")
            expectEqual(screen.count, 12, "\(context)")
            // The window: the oracle's rows from its top, the selected one marked.
            let bodyStart = 1 + (oracle.results != nil || oracle.typing ? 1 : 0)
            let body = screen[bodyStart..<(screen.count - 1)]
            let expected = oracle.list.dropFirst(top).prefix(oracle.height)
            for (line, object) in zip(body, expected) {
                let text = RecordTable.text(of: object.fields, textKey: nil)
                let cut = String(TerminalText.fitting(text, into: 20).prefix { $0 != "…" }.prefix(8))
                #expect(line.dropFirst().hasPrefix(cut), "\(context): \(line) should show \(text)")
                expectEqual(line.hasPrefix("▌"), (object.id == oracle.list[oracle.place.selected].id), "\(context): \(line)")
            }
            expectEqual(body.count, oracle.height, "\(context)")
            if expected.count < oracle.height {
                #expect(body.dropFirst(expected.count).allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty || $0.contains("┃") || $0.contains("│") }, "\(context)")
            }
        }
        expectEqual(model.deletedIDs.count, oracle.deleted.count)
    }

    @Test(arguments: [true, false])
    func typingNarrowsFromRememberedResultsAndBackspaceFindsThemAgain(numbers: Bool) throws {
        // With names that are numbers, the search's predicate fails on them:
        // the browser goes on with a search where they do not match.
        let objects = Self.people(500, seed: 9).filter { numbers || $0.fields["name"].map { if case .int = $0 { false } else { true } } ?? true }
        let model = try BrowseSession(arguments: ["--sort", "name,id", "people.json"], objects: objects).model
        model.waitForSearchIndex()
        func found(_ text: String) -> [RecordValue] {
            let predicate = try? RecordTable.matching(text, textKey: nil)
            return objects.filter { (try? predicate?.evaluate(with: $0)) == true }.map(\.id)
        }
        /// Where the last search started: "remembered", an earlier text, or every row ("").
        func base() -> String? {
            switch model.lastSearchMethod {
            case .remembered?: "remembered"
            case .index(let from)?, .predicate(let from)?: from ?? ""
            case nil: nil
            }
        }
        func check(_ text: String, from: String, _ comment: Comment) {
            #expect(model.searchText == text && model.status == "", "\(model.status)")
            expectEqual(base(), from, comment)
            expectEqual(Set(model.listedObjects.map(\.id)), Set(found(text)), comment)
        }
        model.handle(.character("/"))
        model.handle(.character("a"))
        check("a", from: "", "the first letter scans every row")
        model.handle(.character("n"))
        check("an", from: "a", "an filters a's results")
        model.handle(.backspace)
        check("a", from: "remembered", "backspace finds a's results again")
        model.handle(.character("x"))
        check("ax", from: "a", "ax filters a's results")
        model.handle(.character("é"))
        check("axé", from: "ax", "a non-ASCII text narrows too: axé folds to axe")
    }

    /// In a big table the search's rows are tested a slice at a time between
    /// keys: a name that is a number, found in a later slice, makes the
    /// search leave out such rows there too, and the first result is selected.
    @Test func aNumberFoundBetweenKeysMakesTheSearchTolerant() throws {
        let objects = (0..<5_000).map { k in
            DynamicObject(fields: DynamicRecord(fields: [("id", .int(k)), ("name", k == 4_500 ? .int(7) : .string("an \(k)"))]))
        }
        let model = try BrowseSession(arguments: ["--sort", "id", "people.json"], objects: objects).model
        model.waitForSearchIndex()
        model.search.slices.slice = _TestSlice(rows: 1_000, nanoseconds: nil)
        model.handle(.character("/"))
        model.handle(.character("a"))
        #expect(model.isBusy && !model.leavesOutUnsearchableRows, "the first slice found the first rows; row 4,500 is tested later")
        var turns = 0
        while model.isBusy && turns < 10_000 {
            model.idle()
            turns += 1
        }
        #expect(model.leavesOutUnsearchableRows && !model.isBusy && model.status == "", "\(model.status)")
        expectEqual(model.listedObjects.map(\.id), objects.filter { $0.id != .int(4_500) }.map(\.id))
        expectEqual(model.selectedObject?.id, .int(0))
    }

    /// `browse` shows a bidirectional control as a space, as it does a
    /// control character: in the rows, the section headers, the search
    /// field and the status line.
    @Test func bidirectionalControlsNeverReachTheTerminal() throws {
        let text = #"[{"id":1,"name":"Ada \u202Eecalevol","city":"Os\u2066lo"},{"id":2,"name":"Bo\u200F","city":"Rome\u061C"}]"#
        let folder = TemporaryFolder()
        let parsed = try ArgumentParser.parse(["--section-key", "city", "--sort", "city,name", folder.file("people.json", text)], command: BrowseCommand.declaration)
        let model = try BrowseSession(try BrowseCommand.Options.parse(parsed)).model
        model.resize(columns: 60, lines: 8)
        let bidirectional: Set<UInt32> = Set(0x202A...0x202E).union(0x2066...0x2069).union([0x200E, 0x200F, 0x061C])
        func check(_ comment: Comment) {
            let screen = model.screen()
            #expect(!screen.joined().unicodeScalars.contains { bidirectional.contains($0.value) }, comment)
            #expect(screen.allSatisfy { TerminalText.width(of: $0) == 60 }, comment)
        }
        check("the table")
        #expect(model.screen()[2].hasPrefix("▌Ada  ecalevol"))
        model.handle(.character("/"))
        model.handle(.character("a"))
        model.handle(.character("\u{202E}"))
        check("the search field")
        model.handle(.escape)
        model.handle(.character("d"))
        check("the status line after a delete")
    }

    @Test func sectionsHeadersAndDeletesThatEmptyASection() throws {
        let text = #"[{"id":1,"name":"Ada","city":"Oslo"},{"id":2,"name":"Bo","city":"Rome"},{"id":3,"name":"Cy","city":"Rome"}]"#
        let folder = TemporaryFolder()
        let parsed = try ArgumentParser.parse(["--section-key", "city", "--sort", "city,name", folder.file("people.json", text)], command: BrowseCommand.declaration)
        let model = try BrowseSession(try BrowseCommand.Options.parse(parsed)).model
        model.resize(columns: 80, lines: 8)
        var screen = model.screen()
        #expect(screen[0].hasPrefix(" people.json — 3 objects"))
        #expect(screen[1].hasPrefix("── Oslo ─") && screen[2].hasPrefix("▌Ada") && screen[3].hasPrefix("── Rome ─") && screen[4].hasPrefix(" Bo"))
        expectEqual(screen.last?.contains("d delete (not saved)"), true, "\(screen)")
        expectEqual(model.indexTitles, ["O", "R"], "the section index at the side")
        model.handle(.character("d"))
        screen = model.screen()
        // The batch the table was given: the section goes (with its row, as the binding reports it).
        expectEqual(screen.last.map { $0.hasPrefix(" deleted Ada: ") && $0.contains("- delete section 0") && $0.contains("· not saved") }, true, "\(screen)")
        #expect(screen[1].hasPrefix("── Rome ─") && screen[2].hasPrefix("▌Bo"))
        model.handle(.end)
        model.handle(.character("d"))
        screen = model.screen()
        expectEqual(screen.last?.hasPrefix(" deleted Cy: - delete {0, 1}"), true, "\(screen)")
        #expect(screen[2].hasPrefix("▌Bo"))
    }

    /// `--style`: a plain browse floats the header of the section at the top
    /// (the selection stays below it); a grouped one gives each section a
    /// blank footer line and draws its header as the title alone.
    @Test func stylesFloatTheTopHeaderOrSetGroupsApart() throws {
        let text = #"[{"id":1,"name":"Ada","city":"Oslo"},{"id":2,"name":"Bo","city":"Oslo"},{"id":3,"name":"Cy","city":"Oslo"},{"id":4,"name":"Di","city":"Rome"},{"id":5,"name":"Ed","city":"Rome"}]"#
        let folder = TemporaryFolder()
        func model(_ style: String) throws -> BrowserModel {
            let arguments = ["--section-key", "city", "--sort", "city,name", "--style", style, folder.file("people.json", text)]
            let model = try BrowseSession(try BrowseCommand.Options.parse(try ArgumentParser.parse(arguments, command: BrowseCommand.declaration))).model
            model.resize(columns: 40, lines: 6)   // a title, 4 lines of table, a status line
            return model
        }
        let plain = try model("plain")
        plain.handle(.end)
        var screen = plain.screen()
        #expect(screen[1].hasPrefix("── Oslo ─") && screen[2].hasPrefix("── Rome ─") && screen[4].hasPrefix("▌Ed"), "\(screen)")
        plain.handle(.up)
        plain.handle(.up)
        screen = plain.screen()
        #expect(screen[1].hasPrefix("── Oslo ─") && screen[2].hasPrefix("▌Cy"), "Cy below the floating header: \(screen)")
        let grouped = try model("grouped")
        screen = grouped.screen()
        #expect(screen[1].hasPrefix(" Oslo ") && screen[2].hasPrefix("▌Ada") && screen[4].hasPrefix(" Cy"), "\(screen)")
        grouped.handle(.end)
        screen = grouped.screen()
        #expect(screen[1].hasPrefix("    ") && screen[2].hasPrefix(" Rome ") && screen[4].hasPrefix("▌Ed"), "a blank footer line between groups: \(screen)")
    }
}
