import Foundation
import HeadlessTable
@testable import HeadlessTableTool
import TableTestSupport
import Testing

/// `--entity NAME` over model files (`{"model":…,"objects":…}`): seeded
/// random two- and three-entity files queried with key paths through
/// relationships, against an evaluator written here over the generated
/// values; inverses derived from either side; dangling ids and sides that
/// disagree refused, naming them.
@Suite struct ModelFileTests {
    static let diaryModel = #"""
        "model": {"Entry": {"relationships": {"media": {"destination": "Medium", "toMany": true, "inverse": "entry", "deleteRule": "cascade"}}},
                  "Medium": {"parent": null, "relationships": {"entry": {"destination": "Entry", "inverse": "media", "deleteRule": "nullify"}}}}
        """#

    func run(_ text: String, _ arguments: [String], command: String = "query") -> CLIResult {
        let folder = TemporaryFolder()
        return runCLI([command, folder.file("graph.json", text)] + arguments)
    }

    static func ids(_ ids: [Int]) -> String {
        #"{"sections":[{"name":"","indexTitle":null,"ids":["# + ids.map(String.init).joined(separator: ",") + "]}]}\n"
    }

    // MARK: The generated graph and its evaluator

    /// A graph of entries, media and (with three entities) tags, as plain values.
    struct World {
        struct Entry { var id: Int; var text: String; var month: Int }
        struct Medium { var id: Int; var type: String; var bytes: Int; var entry: Int?; var tags: [Int] }
        struct Tag { var id: Int; var name: String }
        var entries: [Entry] = []
        var media: [Medium] = []
        var tags: [Tag] = []
        var threeEntities: Bool

        static let texts = ["Fog", "Rain", "Sun"], types = ["image", "audio", "video"], names = ["red", "green", "blue"]

        init(_ g: inout SeededGenerator, threeEntities: Bool) {
            self.threeEntities = threeEntities
            // Identities overlap between entities: they are unique in an entity only.
            entries = (0..<g.int(0...6)).map { Entry(id: $0 + 1, text: Self.texts[g.int(0..<3)], month: g.int(1...12)) }
            tags = threeEntities ? (0..<g.int(0...4)).map { Tag(id: $0 + 1, name: Self.names[g.int(0..<3)]) } : []
            media = (0..<g.int(0...10)).map { k in
                let entry = entries.isEmpty || g.chance(0.2) ? nil : entries[g.int(0..<entries.count)].id
                let tagIDs = tags.filter { _ in g.chance(0.4) }.map(\.id)
                return Medium(id: k + 1, type: Self.types[g.int(0..<3)], bytes: g.int(0...99), entry: entry, tags: tagIDs)
            }
        }

        func media(of entry: Entry) -> [Medium] { media.filter { $0.entry == entry.id } }
        func media(of tag: Tag) -> [Medium] { media.filter { $0.tags.contains(tag.id) } }
        func entry(of medium: Medium) -> Entry? { entries.first { $0.id == medium.entry } }
        func tags(of medium: Medium) -> [Tag] { tags.filter { medium.tags.contains($0.id) } }

        /// The file, each side of each pair given by some objects (every
        /// link by at least one of its ends), the rest derived.
        func file(_ g: inout SeededGenerator) -> String {
            var givesMedia = entries.map { _ in g.chance(0.5) }, givesEntry = media.map { _ in g.chance(0.5) }
            var givesTags = media.map { _ in g.chance(0.5) }, givesTagMedia = tags.map { _ in g.chance(0.5) }
            for (m, medium) in media.enumerated() {
                if let e = entries.firstIndex(where: { $0.id == medium.entry }), !givesMedia[e], !givesEntry[m] {
                    if g.chance(0.5) { givesMedia[e] = true } else { givesEntry[m] = true }
                }
                for tag in medium.tags {
                    if let t = tags.firstIndex(where: { $0.id == tag }), !givesTagMedia[t], !givesTags[m] {
                        if g.chance(0.5) { givesTagMedia[t] = true } else { givesTags[m] = true }
                    }
                }
            }
            func list(_ ids: [Int], _ g: inout SeededGenerator) -> String { "[" + ids.shuffled(using: &g).map(String.init).joined(separator: ",") + "]" }
            let entryObjects = entries.enumerated().map { e, entry in
                #"{"id":\#(entry.id),"text":"\#(entry.text)","month":\#(entry.month)"#
                    + (givesMedia[e] ? #","media":\#(list(media(of: entry).map(\.id), &g))"# : "") + "}"
            }
            let mediumObjects = media.enumerated().map { m, medium in
                #"{"id":\#(medium.id),"type":"\#(medium.type)","bytes":\#(medium.bytes)"#
                    + (givesEntry[m] ? #","entry":\#(medium.entry.map(String.init) ?? "null")"# : "")
                    + (threeEntities && givesTags[m] ? #","tags":\#(list(medium.tags, &g))"# : "") + "}"
            }
            let tagObjects = tags.enumerated().map { t, tag in
                #"{"id":\#(tag.id),"name":"\#(tag.name)""# + (givesTagMedia[t] ? #","media":\#(list(media(of: tag).map(\.id), &g))"# : "") + "}"
            }
            let tagModel = threeEntities ? #"""
                ,"Tag": {"relationships": {"media": {"destination": "Medium", "toMany": true, "inverse": "tags"}}}
                """# : ""
            let mediumTags = threeEntities ? #", "tags": {"destination": "Tag", "toMany": true, "inverse": "media"}"# : ""
            return #"""
                {"model": {"Entry": {"relationships": {"media": {"destination": "Medium", "toMany": true, "inverse": "entry", "deleteRule": "cascade"}}},
                           "Medium": {"relationships": {"entry": {"destination": "Entry", "inverse": "media"}\#(mediumTags)}}\#(tagModel)},
                 "objects": {"Medium": [\#(mediumObjects.joined(separator: ",\n"))],
                             "Entry": [\#(entryObjects.joined(separator: ",\n"))]\#(threeEntities ? #","Tag": [\#(tagObjects.joined(separator: ","))]"# : "")}}
                """#
        }

        /// A query: the entity, the predicate, and the ids it matches by the evaluator here.
        func query(_ g: inout SeededGenerator) -> (entity: String, predicate: String, expected: [Int]) {
            let n = g.int(0...12), bytes = g.int(0...99), text = Self.texts[g.int(0..<3)], type = Self.types[g.int(0..<3)]
            let name = Self.names[g.int(0..<3)], count = g.int(0...3)
            var choices: [(String, String, [Int])] = [
                ("Medium", "entry.month < \(n)", media.filter { m in entry(of: m).map { $0.month < n } ?? false }.map(\.id)),
                ("Medium", "entry.text == '\(text)'", media.filter { entry(of: $0)?.text == text }.map(\.id)),
                ("Medium", "entry == nil", media.filter { entry(of: $0) == nil }.map(\.id)),
                ("Medium", "entry.month >= \(n) AND bytes < \(bytes)", media.filter { m in (entry(of: m).map { $0.month >= n } ?? false) && m.bytes < bytes }.map(\.id)),
                ("Entry", "ANY media.type == '\(type)'", entries.filter { e in media(of: e).contains { $0.type == type } }.map(\.id)),
                ("Entry", "ALL media.bytes < \(bytes)", entries.filter { e in media(of: e).allSatisfy { $0.bytes < bytes } }.map(\.id)),
                ("Entry", "NONE media.type == '\(type)'", entries.filter { e in !media(of: e).contains { $0.type == type } }.map(\.id)),
                ("Entry", "media.@count > \(count)", entries.filter { media(of: $0).count > count }.map(\.id)),
                ("Entry", "SUBQUERY(media, $m, $m.type == '\(type)' AND $m.bytes > \(bytes)).@count > 0",
                 entries.filter { e in media(of: e).contains { $0.type == type && $0.bytes > bytes } }.map(\.id)),
                ("Entry", "month > \(n) OR ANY media.bytes > \(bytes)", entries.filter { e in e.month > n || media(of: e).contains { $0.bytes > bytes } }.map(\.id)),
            ]
            if threeEntities {
                choices += [
                    ("Medium", "ANY tags.name == '\(name)'", media.filter { m in tags(of: m).contains { $0.name == name } }.map(\.id)),
                    ("Medium", "NONE tags.name == '\(name)' AND entry.text == '\(text)'",
                     media.filter { m in !tags(of: m).contains { $0.name == name } && entry(of: m)?.text == text }.map(\.id)),
                    ("Medium", "tags.@count >= \(count)", media.filter { tags(of: $0).count >= count }.map(\.id)),
                    ("Entry", "ANY media.tags.name == '\(name)'", entries.filter { e in media(of: e).contains { m in tags(of: m).contains { $0.name == name } } }.map(\.id)),
                    ("Tag", "ANY media.entry.month > \(n)", tags.filter { t in media(of: t).contains { m in entry(of: m).map { $0.month > n } ?? false } }.map(\.id)),
                    ("Tag", "ANY media.type == '\(type)'", tags.filter { t in media(of: t).contains { $0.type == type } }.map(\.id)),
                    ("Tag", "media.@count == 0", tags.filter { media(of: $0).isEmpty }.map(\.id)),
                ]
            }
            let choice = choices[g.int(0..<choices.count)]
            return (choice.0, choice.1, choice.2)
        }
    }

    @Test func randomFilesQueriedThroughRelationshipsAgreeWithTheEvaluator() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let folder = TemporaryFolder()
        var nonEmpty = 0
        let rounds = TestScale.cases(50, full: 120)
        for round in 0..<rounds {
            let world = World(&g, threeEntities: round % 2 == 1)
            let path = folder.file("graph-\(round).json", world.file(&g))
            for _ in 0..<4 {
                let (entity, predicate, expected) = world.query(&g)
                let result = runCLI(["query", path, "--entity", entity, "--where", predicate, "--format", "json"])
                #expect(result.status == 0 && result.err == "", "seed \(seed), round \(round): \(result.err)")
                expectEqual(result.out, Self.ids(expected), "seed \(seed), round \(round): \(entity) where \(predicate)")
                if !expected.isEmpty { nonEmpty += 1 }
            }
        }
        // (More than 100 of 480 in the full run.)
        #expect(nonEmpty > rounds * 100 / 120, "the queries match something often enough to check it")
    }

    // MARK: Inverses

    @Test func theInverseIsDerivedFromEitherSide() {
        // Only the media name their entry: the entries' media are derived.
        let fromMedia = #"{\#(Self.diaryModel), "objects": {"Entry": [{"id": 1, "text": "Fog"}, {"id": 2, "text": "Rain"}],"#
            + #""Medium": [{"id": 10, "type": "image", "entry": 1}, {"id": 11, "type": "audio", "entry": 2}, {"id": 12, "type": "audio", "entry": 1}]}}"#
        let entries = run(fromMedia, ["--entity", "Entry"])
        expectEqual(entries.status, 0)
        expectEqual(entries.out, """
            2 objects
              {"id":1,"text":"Fog","media":[10,12]}
              {"id":2,"text":"Rain","media":[11]}

            """)
        expectEqual(run(fromMedia, ["--entity", "Entry", "--where", "ANY media.type == 'image'", "--format", "json"]).out, Self.ids([1]))
        // Only the entries name their media: the media's entry is derived.
        let fromEntries = #"{\#(Self.diaryModel), "objects": {"Entry": [{"id": 1, "text": "Fog", "media": [12, 10]}, {"id": 2, "text": "Rain", "media": [11]}],"#
            + #""Medium": [{"id": 10, "type": "image"}, {"id": 11, "type": "audio"}, {"id": 12, "type": "audio"}, {"id": 13, "type": "video"}]}}"#
        let media = run(fromEntries, ["--entity", "Medium", "--where", "entry.text == 'Fog'"])
        expectEqual(media.out, """
            2 objects where entry.text == "Fog"
              {"id":10,"type":"image","entry":1}
              {"id":12,"type":"audio","entry":1}

            """)
        expectEqual(run(fromEntries, ["--entity", "Medium", "--where", "entry == nil", "--format", "json"]).out, Self.ids([13]))
        // Both sides, agreeing: as given.
        let both = #"{\#(Self.diaryModel), "objects": {"Entry": [{"id": 1, "media": [10]}], "Medium": [{"id": 10, "entry": 1}, {"id": 11, "entry": null}]}}"#
        expectEqual(run(both, ["--entity", "Medium", "--where", "entry.id == 1", "--format", "json"]).out, Self.ids([10]))
    }

    @Test func sortsAndSectionsGoThroughRelationships() {
        let text = #"{\#(Self.diaryModel), "objects": {"Entry": [{"id": 1, "text": "Fog", "month": 5}, {"id": 2, "text": "Rain", "month": 3}],"#
            + #""Medium": [{"id": 10, "type": "image", "entry": 1}, {"id": 11, "type": "audio", "entry": 2}, {"id": 12, "type": "audio", "entry": 1}, {"id": 13, "type": "video"}]}}"#
        expectEqual(run(text, ["--entity", "Medium", "--sort", "entry.month,-id", "--format", "json"]).out, Self.ids([13, 11, 12, 10]))
        let sectioned = run(text, ["--entity", "Medium", "--where", "entry.id > 0", "--sort", "entry.text,type", "--section-key", "entry.text"])
        expectEqual(sectioned.status, 0)
        expectEqual(sectioned.out, """
            3 objects where entry.id > 0, 2 sections by entry.text
            Fog (2)
              {"id":12,"type":"audio","entry":1}
              {"id":10,"type":"image","entry":1}
            Rain (1)
              {"id":11,"type":"audio","entry":2}

            """)
        expectEqual(run(text, ["--entity", "Medium", "--index", "entry.text", "--format", "json"]).out, ##"{"sections":[{"name":"F","indexTitle":"F","ids":[10,12]},{"name":"R","indexTitle":"R","ids":[11]},{"name":"#","indexTitle":"#","ids":[13]}]}"## + "\n")
        expectEqual(run(text, ["--entity", "Entry", "--sort", "media.@count,id", "--limit", "1", "--offset", "1", "--format", "json"]).out, Self.ids([1]))
    }

    // MARK: Refused

    @Test func danglingAndDisagreeingReferencesAreErrorsNamingThem() {
        let cases: [(objects: String, message: String)] = [
            (#"{"Entry": [{"id": 1}], "Medium": [{"id": 10, "entry": 7}]}"#,
             "Medium 10's entry refers to Entry 7, which is not in the file"),
            (#"{"Entry": [{"id": 1, "media": [10, 11]}], "Medium": [{"id": 10}]}"#,
             "Entry 1's media refers to Medium 11, which is not in the file"),
            (#"{"Entry": [{"id": 1, "media": [10]}, {"id": 2}], "Medium": [{"id": 10, "entry": 2}]}"#,
             "Entry 1's media holds Medium 10, but Medium 10's entry (its inverse) holds 2, not 1: the two sides disagree"),
            (#"{"Entry": [{"id": 1, "media": []}], "Medium": [{"id": 10, "entry": 1}]}"#,
             "Medium 10's entry holds Entry 1, but Entry 1's media (its inverse) is empty, not 10: the two sides disagree"),
            (#"{"Entry": [{"id": 1, "media": [10]}, {"id": 2, "media": [10]}], "Medium": [{"id": 10}]}"#,
             "Entry 1 and Entry 2 both hold Medium 10, whose entry is to-one: the two sides disagree"),
            (#"{"Entry": [{"id": 1, "media": 10}], "Medium": [{"id": 10}]}"#,
             "Entry 1's media is 10, but media is to-many: give an array of ids of Medium"),
            (#"{"Entry": [{"id": 1}], "Medium": [{"id": 10, "entry": [1]}]}"#,
             "Medium 10's entry is an array, but entry is to-one: give one id of Entry, or null"),
            (#"{"Entry": [{"id": 1}, {"id": 1.0}]}"#,
             "duplicate id 1 (objects.Entry[0] and objects.Entry[1]); ids must be unique in an entity and its sub-entities"),
            (#"{"Entry": [{"text": "Fog"}]}"#, #"objects.Entry[0] has no "id" to identify it"#),
            (#"{"Entri": []}"#, "objects.Entri: the model has no entity Entri (it has Entry, Medium)"),
        ]
        for (objects, message) in cases {
            let result = run(#"{\#(Self.diaryModel), "objects": \#(objects)}"#, ["--entity", "Entry"])
            #expect(result.status == 1 && result.out == "", "\(objects)")
            #expect(result.err.contains(message), "\(objects): \(result.err)")
        }
    }

    @Test func aWrongModelIsAnErrorNamingThePlace() {
        let cases: [(model: String, message: String)] = [
            (#"{"Entry": {"relationships": {"media": {"destination": "Medum", "toMany": true}}}}"#,
             "the model is wrong: Entry refers to the entity Medum, which the model does not declare"),
            (#"{"Entry": {"relationships": {"media": {"destination": "Entry", "toMany": "yes"}}}}"#,
             "model.Entry.relationships.media.toMany is a string, not true or false"),
            (#"{"Entry": {"relationships": {"media": {"destination": "Entry", "deleteRule": "explode"}}}}"#,
             #"model.Entry.relationships.media.deleteRule is "explode", not one of "nullify", "cascade", "deny", "noAction""#),
            (#"{"Entry": {"relationships": {"media": {"toMany": true}}}}"#,
             #"model.Entry.relationships.media needs "destination", the name of the entity it points to"#),
            (#"{"Entry": {"relationships": {"next": {"destination": "Entry", "inverse": "previous"}}}}"#,
             "the model is wrong: the inverse of Entry.next is wrong: Entry has no relationship previous"),
            (#"{"Entry": {"parent": "Thing"}}"#, "the model is wrong: Entry refers to the entity Thing, which the model does not declare"),
            (#"{"Entry": {"fields": {}}}"#, #"model.Entry has "fields"; an entity has "parent" and "relationships""#),
        ]
        for (model, message) in cases {
            let result = run(#"{"model": \#(model), "objects": {}}"#, ["--entity", "Entry"])
            #expect(result.status == 1 && result.out == "", "\(model)")
            #expect(result.err.contains(message), "\(model): \(result.err)")
        }
        let unknown = run(#"{\#(Self.diaryModel), "objects": {}}"#, ["--entity", "Photo"])
        #expect(unknown.status == 2 && unknown.err.contains("graph.json has no such entity; its entities are Entry, Medium"), "\(unknown.err)")
    }

    @Test func subEntitiesAreFetchedWithTheirParentAndRefusedWhereTheyDoNotFit() {
        let model = #"""
            "model": {"Entry": {"relationships": {"media": {"destination": "Medium", "toMany": true, "inverse": "entry"}, "cover": {"destination": "Photo"}}},
                      "Medium": {"relationships": {"entry": {"destination": "Entry", "inverse": "media"}}},
                      "Photo": {"parent": "Medium", "relationships": {"entry": {"destination": "Entry", "inverse": "media"}}}}
            """#
        let good = #"{\#(model), "objects": {"Entry": [{"id": 1, "cover": 11}], "Medium": [{"id": 10, "entry": 1}], "Photo": [{"id": 11, "entry": 1, "width": 3}]}}"#
        expectEqual(run(good, ["--entity", "Medium", "--format", "json"]).out, Self.ids([10, 11]))
        expectEqual(run(good, ["--entity", "Entry", "--where", "cover.width == 3 AND media.@count == 2", "--format", "json"]).out, Self.ids([1]))
        let bad = #"{\#(model), "objects": {"Entry": [{"id": 1, "cover": 10}], "Medium": [{"id": 10}]}}"#
        #expect(run(bad, ["--entity", "Entry"]).err.contains("Entry 1's cover refers to Photo 10, which is not in the file (Medium 10 is not a kind of Photo)"))
    }

    @Test func plainArraysAndModelFilesAreNotMistaken() {
        let plain = run(#"[{"id": 1}]"#, ["--entity", "Entry"])
        #expect(plain.status == 1 && plain.err.contains(#"graph.json: --entity reads a model file, {"model": {…}, "objects": {…}}; found an array"#))
        let model = run(#"{\#(Self.diaryModel), "objects": {}}"#, [])
        #expect(model.status == 1 && model.err.contains("graph.json: a model file: give --entity NAME to choose the entity (Entry, Medium)"))
    }

    // MARK: render and browse

    @Test func renderDrawsAnEntityThroughItsRelationships() {
        let text = #"{\#(Self.diaryModel), "objects": {"Entry": [{"id": 1, "text": "Fog"}, {"id": 2, "text": "Rain"}],"#
            + #""Medium": [{"id": 10, "type": "image", "entry": 1}, {"id": 11, "type": "audio", "entry": 2}, {"id": 12, "type": "video"}]}}"#
        let result = run(text, ["--entity", "Medium", "--sort", "entry.text,id", "--section-key", "entry.text", "--text", "type", "--width", "20", "--height", "7"], command: "render")
        expectEqual(result.status, 0, "\(result.err)")
        expectEqual(result.out, """
            ── (none) ──────────
             video              
            ── Fog ─────────────
             image              
            ── Rain ────────────
             audio              
                                

            """)
    }

    @Test func browseDeletesThroughTheGraph() throws {
        let folder = TemporaryFolder()
        let path = folder.file("diary.json", #"{\#(Self.diaryModel), "objects": {"Entry": [{"id": 1, "text": "Fog"}, {"id": 2, "text": "Rain"}],"#
            + #""Medium": [{"id": 10, "type": "image", "entry": 1}, {"id": 11, "type": "audio", "entry": 2}, {"id": 12, "type": "video", "entry": 1}]}}"#)
        // The media of entries: deleting one's entry (cascade) takes them away.
        let entries = try BrowseSession(arguments: [path, "--entity", "Entry", "--sort", "text"], objects: [])
        entries.model.resize(columns: 30, lines: 6)
        expectEqual(entries.model.screen().dropFirst().prefix(2).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " ▌")) }, ["Fog", "Rain"])
        _ = entries.model.handle(.character("d"))
        expectEqual(entries.model.screen().dropFirst().prefix(2).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " ▌")) }, ["Rain", ""])
        // Media whose entry has media of several types: a delete can change which match.
        let media = try BrowseSession(arguments: [path, "--entity", "Medium", "--where", "entry.media.@count > 1", "--text", "type"], objects: [])
        media.model.resize(columns: 30, lines: 6)
        expectEqual(media.model.screen().dropFirst().prefix(2).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " ▌")) }, ["image", "video"])
        _ = media.model.handle(.character("d"))
        expectEqual(media.model.screen().dropFirst().prefix(2).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " ▌")) }, ["", ""])
        expectThrows((any Error).self) { try BrowseSession(arguments: [path, "--entity", "Entry", "--write"], objects: []) }
    }
}
