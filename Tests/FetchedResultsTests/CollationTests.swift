import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableTestSupport
import Testing

@Suite struct CollationTests {
    let latin = (UnicodeScalar("A").value...UnicodeScalar("Z").value).map { String(UnicodeScalar($0)!) }

    // MARK: The tables

    @Test func titlesOfEachTable() {
        expectEqual(TableIndexCollation.english.sectionTitles, latin + ["#"])
        expectEqual(TableIndexCollation(localeIdentifier: "de").sectionTitles, latin + ["#"])
        expectEqual(TableIndexCollation(localeIdentifier: "sv_SE").sectionTitles, latin + ["Å", "Ä", "Ö", "#"])
        expectEqual(TableIndexCollation(localeIdentifier: "fi").sectionTitles, latin + ["Å", "Ä", "Ö", "#"])
        expectEqual(TableIndexCollation(localeIdentifier: "nb-NO").sectionTitles, latin + ["Æ", "Ø", "Å", "#"])
        expectEqual(TableIndexCollation(localeIdentifier: "es").sectionTitles.prefix(16).suffix(3), ["N", "Ñ", "O"])
        let russian = "А Б В Г Д Е Ж З И Й К Л М Н О П Р С Т У Ф Х Ц Ч Ш Щ Ы Э Ю Я".split(separator: " ").map(String.init)
        expectEqual(TableIndexCollation(localeIdentifier: "ru_RU").sectionTitles, russian + latin + ["#"])
        let greek = "Α Β Γ Δ Ε Ζ Η Θ Ι Κ Λ Μ Ν Ξ Ο Π Ρ Σ Τ Υ Φ Χ Ψ Ω".split(separator: " ").map(String.init)
        expectEqual(TableIndexCollation(locale: Locale(identifier: "el_GR")).sectionTitles, greek + latin + ["#"])
        for collation in ["en", "de", "sv", "ru", "el", "ja", "zh_Hans_CN", ""].map(TableIndexCollation.init(localeIdentifier:)) {
            expectEqual(collation.sectionIndexTitles, collation.sectionTitles)
            expectEqual(Set(collation.sectionTitles).count, collation.sectionTitles.count)
        }
    }

    @Test func localesWithoutATableUseEnglish() {
        for identifier in ["fr_FR", "ja", "zh-Hans", "", "x", "ar"] {
            expectEqual(TableIndexCollation(localeIdentifier: identifier), .english, "\(identifier)")
        }
        expectEqual(TableIndexCollation(locale: Locale(identifier: "de_AT")).tableIdentifier, "de")
        expectEqual(TableIndexCollation(localeIdentifier: "DE").tableIdentifier, "de")
        #expect(TableIndexCollation(localeIdentifier: "de") != .english)
    }

    func titles(_ identifier: String, _ names: [String]) -> [String] {
        let collation = TableIndexCollation(localeIdentifier: identifier)
        return names.map { collation.sectionTitle(for: $0) }
    }

    @Test func sectionsOfNames() {
        expectEqual(titles("de", ["Ärger", "Özil", "Über", "ßen", "abel", "Ångström", "Æsop", "Łukasz", "Øre", "Ñandú", "É\u{301}", "E\u{301}mile"]), ["A", "O", "U", "S", "A", "A", "A", "L", "O", "N", "E", "E"])
        expectEqual(titles("sv", ["Ärla", "A\u{308}rla", "Åsa", "Örjan", "Anna", "Ünal", "Æsa", "Øre", "Wiktor"]), ["Ä", "Ä", "Å", "Ö", "A", "Y", "Ä", "Ö", "W"])
        expectEqual(titles("da", ["Ærø", "Ødegaard", "Åse", "Ärla", "Östen"]), ["Æ", "Ø", "Å", "Æ", "Ø"])
        expectEqual(titles("es", ["Ñandú", "Núñez", "ñu"]), ["Ñ", "N", "Ñ"])
        expectEqual(titles("ru", ["Ёлкин", "Йода", "йогурт", "Иван", "Щука", "Ъ", "Ыр", "Ьх", "Anna", "Ärger", "王"]), ["Е", "Й", "Й", "И", "Щ", "Щ", "Ы", "Ы", "A", "A", "#"])
        expectEqual(titles("el", ["Άννα", "ωμέγα", "ςx", "Ϊ", "Zoe", "Жанна"]), ["Α", "Ω", "Σ", "Ι", "Z", "#"])
        expectEqual(titles("en", ["", "123", "😀 Smile", "王", "  'anna", "(Bob)", "---", "Жанна", "Ωmega", "\u{301}x"]), ["#", "#", "#", "#", "A", "B", "#", "#", "#", "X"])
    }

    @Test func sortingWithinAndAcrossSections() {
        let german = TableIndexCollation(localeIdentifier: "de")
        expectEqual(german.sortedArray(from: ["Zoe", "Ärger", "Abel", "Adam", "Äbte", "adam"]), ["Abel", "Äbte", "Adam", "adam", "Ärger", "Zoe"])
        expectEqual(german.sortedArray(from: ["Müller", "Muller", "Mueller", "Mulle"]), ["Mueller", "Mulle", "Muller", "Müller"])
        expectEqual(german.sortedArray(from: ["Strauss", "Strauß", "Straus"]), ["Straus", "Strauss", "Strauß"])
        let swedish = TableIndexCollation(localeIdentifier: "sv")
        expectEqual(swedish.sortedArray(from: ["Örjan", "Åsa", "Anna", "Ärla", "Zara", "Håkan", "Hans", "Hörberg"]), ["Anna", "Hans", "Håkan", "Hörberg", "Zara", "Åsa", "Ärla", "Örjan"])
        // Digits, symbols and the unknown go last, into #.
        expectEqual(german.sortedArray(from: ["7 Zwerge", "Bob", "王", "😀", ""]), ["Bob", "", "😀", "7 Zwerge", "王"])
        expectEqual(german.compare("Anna", "anna"), .orderedAscending)
        expectEqual(german.compare("é", "e\u{301}"), .orderedSame)
        expectEqual(german.compare("b", "Ä"), .orderedDescending)
        // Elements keep their order when their strings are the same.
        let pairs = [(1, "b"), (2, "a"), (3, "b"), (4, "a")]
        expectEqual(german.sortedArray(from: pairs) { $0.1 }.map(\.0), [2, 4, 1, 3])
    }

    @Test func indexTitlesJump() {
        let swedish = TableIndexCollation(localeIdentifier: "sv")
        expectEqual(swedish.section(forSectionIndexTitle: "Å"), 26)
        expectEqual(swedish.section(forSectionIndexTitle: "#"), 29)
        #expect(swedish.section(forSectionIndexTitle: "Ü") == nil)
        expectEqual(swedish.section(forSectionIndexTitleAt: 3), 3)
        #expect(swedish.section(forSectionIndexTitleAt: 30) == nil)
        #expect(swedish.section(forSectionIndexTitleAt: -1) == nil)
    }

    // MARK: Fetching

    func makeContext(_ names: [String?]) throws -> ObjectContext {
        let context = ObjectContext(store: ObjectStore(for: Note.self))
        for (k, name) in names.enumerated() { try context.insert(Note(id: k, group: name, rank: k)) }
        try context.save()
        return context
    }

    @Test func umlautsNoLongerBreakTheIndex() throws {
        // The issue's case: with .localizedStandard and first-letter sections this failed.
        let german = TableIndexCollation(localeIdentifier: "de")
        let context = try makeContext(["Abel", "Äbte", "Adam", "zoe", "Özil", "Otto", "Über", "ulla", nil, "42"])
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("group", collation: german)]),
            context: context, sectionNameKeyPath: "group", sectionCollation: german)
        try controller.performFetch()
        expectEqual(controller.sections?.map(\.name), ["A", "O", "U", "Z", "#"])
        expectEqual(controller.sections?.map { $0.objects.map { $0.group ?? "nil" } }, [["Abel", "Äbte", "Adam"], ["Otto", "Özil"], ["Über", "ulla"], ["zoe"], ["nil", "42"]])
        expectEqual(controller.sections?.map(\.indexTitle), ["A", "O", "U", "Z", "#"])
        expectEqual(controller.sectionIndexTitles, ["A", "O", "U", "Z", "#"])
        expectEqual(controller.section(forSectionIndexTitle: "U", at: 2), 2)
        #expect(controller.section(forSectionIndexTitle: "B", at: 1) == nil)
        controller.showsEveryCollationIndexTitle = true
        expectEqual(controller.sectionIndexTitles, german.sectionIndexTitles)
        expectEqual(controller.section(forSectionIndexTitle: "B", at: 1), 1)   // the next section: O
        expectEqual(controller.section(forSectionIndexTitle: "A", at: 0), 0)
        #expect(controller.section(forSectionIndexTitle: "Ö", at: 0) == nil)
        expectEqual("\(SortKey("group", ascending: false, collation: german))", "-@de:group")
    }

    @Test func descendingCollationSections() throws {
        let swedish = TableIndexCollation(localeIdentifier: "sv")
        let context = try makeContext(["Åsa", "Anna", "Örjan", "Zara", "ärla", "9"])
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<Note>(sortKeys: [SortKey("group", ascending: false, collation: swedish)]),
            context: context, sectionNameKeyPath: "group", sectionCollation: swedish)
        try controller.performFetch()
        expectEqual(controller.sections?.map(\.name), ["#", "Ö", "Ä", "Å", "Z", "A"])
        controller.showsEveryCollationIndexTitle = true
        expectEqual(controller.sectionIndexTitles.first, "#")
        expectEqual(controller.section(forSectionIndexTitle: "B", at: 28), 5)   // after B, in this order: A
    }

    /// First letters, each with the section title every table files it under.
    struct Initial {
        var text: String
        var titles: [String: String]
        var otherwise: String

        func title(_ table: String) -> String { titles[table] ?? otherwise }
    }

    static let initials: [Initial] = {
        var initials: [Initial] = []
        func add(_ text: String, _ otherwise: String, _ titles: [String: String] = [:]) { initials.append(Initial(text: text, titles: titles, otherwise: otherwise)) }
        for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" {
            add(String(letter), String(letter))
            add(String(letter).lowercased(), String(letter))
        }
        let nordic = ["sv": "Ä", "da": "Æ"]
        add("Ä", "A", nordic); add("ä", "A", nordic); add("A\u{308}", "A", nordic)
        add("Å", "A", ["sv": "Å", "da": "Å"]); add("a\u{30A}", "A", ["sv": "Å", "da": "Å"])
        add("Ö", "O", ["sv": "Ö", "da": "Ø"]); add("ö", "O", ["sv": "Ö", "da": "Ø"])
        add("Ü", "U", ["sv": "Y", "da": "Y"]); add("u\u{308}", "U", ["sv": "Y", "da": "Y"])
        add("É", "E"); add("è", "E"); add("Ç", "C"); add("Ł", "L"); add("ß", "S"); add("Ş", "S"); add("Ž", "Z")
        add("Ñ", "N", ["es": "Ñ"]); add("n\u{303}", "N", ["es": "Ñ"])
        add("Æ", "A", ["sv": "Ä", "da": "Æ"]); add("ø", "O", ["sv": "Ö", "da": "Ø"])
        let notRussian = "#"
        add("Ж", notRussian, ["ru": "Ж"]); add("ж", notRussian, ["ru": "Ж"]); add("Ё", notRussian, ["ru": "Е"])
        add("е\u{308}", notRussian, ["ru": "Е"]); add("й", notRussian, ["ru": "Й"]); add("Ь", notRussian, ["ru": "Ы"]); add("Я", notRussian, ["ru": "Я"])
        add("Ά", "#", ["el": "Α"]); add("ω", "#", ["el": "Ω"]); add("ς", "#", ["el": "Σ"]); add("Θ", "#", ["el": "Θ"]); add("ΰ", "#", ["el": "Υ"])
        for other in ["王", "李", "한", "あ", "😀", "👩‍👩‍👧", "7", "0", "٣", "€", "+", "א", "ب"] { add(other, "#") }
        return initials
    }()

    /// What may follow an initial: anything above, spaces and punctuation.
    static let tails = initials.map(\.text) + [" ", "-", "'", ".", "\u{301}", "\u{308}"]
    static let prefixes = ["", "", "", "", " ", "'", "(", "  "]

    /// A random name and the title its first letter files it under, by table.
    static func name(_ g: inout SeededGenerator) -> (String?, Initial?) {
        if g.chance(0.03) { return (nil, nil) }
        if g.chance(0.03) { return ("", nil) }
        let initial = initials[g.int(0..<initials.count)]
        let start = prefixes[g.int(0..<prefixes.count)] + initial.text
        var name = start
        for _ in 0..<g.int(0...8) {
            let tail = tails[g.int(0..<tails.count)]
            // A mark right after the initial would make it another letter (A + ¨ = Ä).
            if name.unicodeScalars.count == start.unicodeScalars.count
                && tail.unicodeScalars.first.map({ $0.properties.generalCategory == .nonspacingMark }) == true { continue }
            name += tail
        }
        return (name, initial)
    }

    @Test(arguments: ["en", "de", "sv", "ru", "el", "es", "da"])
    func collationFetchesNeverFailAndFileEveryName(locale: String) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ UInt64(locale.unicodeScalars.reduce(0) { $0 &* 31 &+ Int($1.value) }))
        let collation = TableIndexCollation(localeIdentifier: locale)
        for round in 0..<TestScale.cases(3, full: 20) {
            let generated = (0..<g.int(0...300)).map { _ in Self.name(&g) }
            let context = try makeContext(generated.map(\.0))
            let ascending = g.chance(0.7)
            var sortKeys = [SortKey("group", ascending: ascending, collation: collation)]
            if g.chance(0.5) { sortKeys.append(SortKey("rank", ascending: g.chance(0.5))) }
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<Note>(sortKeys: sortKeys, fetchBatchSize: g.chance(0.3) ? 16 : 0),
                context: context, sectionNameKeyPath: "group", sectionCollation: collation)
            let where_ = "seed \(seed) (TABLE_TEST_SEED=\(seed)), \(locale), round \(round)"
            try controller.performFetch()
            try check(controller, generated, ascending: ascending, sortKeys: sortKeys, where_)

            // And as it follows changes: inserts, renames and deletes.
            let recorder = Recorder()
            controller.delegate = recorder
            var current = Dictionary(uniqueKeysWithValues: generated.enumerated().map { ($0.offset, $0.element) })
            for _ in 0..<g.int(1...5) {
                for _ in 0..<g.int(1...10) {
                    let id = g.int(0..<(generated.count + 20))
                    if current[id] != nil && g.chance(0.3) {
                        try context.delete(Note.self, id: id)
                        current[id] = nil
                    } else {
                        let named = Self.name(&g)
                        if current[id] != nil { try context.update(Note(id: id, group: named.0, rank: id)) } else { try context.insert(Note(id: id, group: named.0, rank: id)) }
                        current[id] = named
                    }
                }
                try context.save()
                #expect(controller.lastError == nil, "\(where_)")
                try check(controller, Array(current.values), ascending: ascending, sortKeys: sortKeys, where_)
            }
        }

        func check(_ controller: FetchedResultsController<Note>, _ names: [(String?, Initial?)], ascending: Bool, sortKeys: [SortKey], _ where_: String) throws {
            let sections = try #require(controller.sections, "\(where_)")
            // Sections: non-empty, in the collation's order (reversed when descending), each once.
            let places = sections.map { collation.section(forSectionIndexTitle: $0.name) ?? -1 }
            #expect(!places.contains(-1), "\(where_): \(sections.map(\.name))")
            #expect(zip(places, places.dropFirst()).allSatisfy { ascending ? $0 < $1 : $0 > $1 }, "\(where_): \(sections.map(\.name))")
            #expect(sections.allSatisfy { $0.numberOfObjects > 0 }, "\(where_)")
            expectEqual(sections.reduce(0) { $0 + $1.numberOfObjects }, names.count, "\(where_)")
            // Every name in the section its first letter says (the independent oracle), and section(for:) agrees.
            let expected = Dictionary(names.map { ($0.0 ?? "", $0.1?.title(collation.tableIdentifier) ?? "#") }, uniquingKeysWith: { a, _ in a })
            for section in sections {
                let objects = section.objects
                for note in objects {
                    expectEqual(section.name, expected[note.group ?? ""], "\(where_): \(String(reflecting: note.group)) in \(section.name)")
                    expectEqual(section.name, collation.sectionTitle(for: note.group ?? ""), "\(where_)")
                }
                // Rows in the collation's order.
                for (a, b) in zip(objects, objects.dropFirst()) {
                    let order = collation.compare(a.group ?? "", b.group ?? "")
                    #expect(order != (ascending ? .orderedDescending : .orderedAscending), "\(where_): \(String(reflecting: a.group)) before \(String(reflecting: b.group))")
                    if order == .orderedSame, sortKeys.count > 1 {
                        #expect(sortKeys[1].ascending ? a.rank < b.rank : a.rank > b.rank, "\(where_)")
                    }
                }
            }
        }
    }

    /// A fetch sorts a whole column at once (radix keys, then comparisons);
    /// a controller following changes inserts one record at a time by
    /// comparing values. Both must give the same order, for every string comparison.
    @Test(arguments: [SortKey.StringComparison.localizedStandard, .collation(TableIndexCollation(localeIdentifier: "sv")), .plain])
    func wholeFetchesAndInsertsAgree(comparison: SortKey.StringComparison) throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        for round in 0..<TestScale.cases(2, full: 10) {
            var names = (0..<g.int(0...400)).map { _ in Self.name(&g).0 ?? "" }
            // Long shared prefixes and runs of digits, as in real lists.
            names += (0..<g.int(0...50)).map { _ in "Anna Berg " + String(g.int(0...10_000)) + (g.chance(0.5) ? "ä" : "") }
            let sortKeys = [SortKey("group", ascending: g.chance(0.5), comparison: comparison)] + (g.chance(0.5) ? [SortKey("rank", ascending: g.chance(0.5))] : [])
            let request = FetchRequest<Note>(sortKeys: sortKeys)
            let whole = FetchedResultsController(fetchRequest: request, context: try makeContext(names), sectionNameKeyPath: nil)
            try whole.performFetch()
            let context = try makeContext([])
            let following = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: nil)
            try following.performFetch()
            let recorder = Recorder()
            following.delegate = recorder
            for (k, name) in names.enumerated() { try context.insert(Note(id: k, group: name, rank: k)) }
            try context.save()
            expectEqual(whole.fetchedObjects?.map(\.id), following.fetchedObjects?.map(\.id), "seed \(seed) (TABLE_TEST_SEED=\(seed)), round \(round), \(sortKeys)")
        }
    }
}
