import Foundation
import HeadlessTable
@testable import HeadlessTableTool
import TableTestSupport
import Testing

@Suite struct QueryCommandTests {
    static let people = #"""
        [{"id":1,"name":"Anna","age":31,"city":"Berlin","tags":["go"]},
         {"id":2,"name":"Björn","age":25,"city":"Århus","tags":["swift","rust"]},
         {"id":3,"name":"Émile","age":42,"city":"Paris","born":{"$date":"1983-04-01T00:00:00Z"}},
         {"id":4,"name":"anne","age":19,"city":"Berlin","tags":[]},
         {"id":5,"name":"Zoë","age":null,"city":"Paris"}]
        """#

    func query(_ arguments: [String]) -> CLIResult {
        let folder = TemporaryFolder()
        return runCLI(["query", folder.file("people.json", Self.people)] + arguments)
    }

    @Test func jsonHasTheDocumentedShape() {
        let result = query(["--where", "name BEGINSWITH[cd] %@ OR age > %@", "--arg", #""a""#, "--arg", "40",
                            "--sort", "city,-age", "--section-key", "city", "--format", "json"])
        #expect(result.status == 0 && result.err == "")
        expectEqual(result.out, #"{"sections":[{"name":"Berlin","indexTitle":"B","ids":[1,4]},{"name":"Paris","indexTitle":"P","ids":[3]}]}"# + "\n")
    }

    @Test func withoutASectionKeyOneSectionNamedEmpty() {
        expectEqual(query(["--format", "json"]).out, #"{"sections":[{"name":"","indexTitle":null,"ids":[1,2,3,4,5]}]}"# + "\n")
        expectEqual(query(["--sort", "-age", "--limit", "2", "--offset", "1", "--format", "json"]).out, #"{"sections":[{"name":"","indexTitle":null,"ids":[1,2]}]}"# + "\n")
        expectEqual(query(["--sort", "name", "--sort", "id", "--format", "json"]).out, #"{"sections":[{"name":"","indexTitle":null,"ids":[1,2,5,4,3]}]}"# + "\n")
    }

    @Test func argumentsVariablesAndDates() {
        expectEqual(query(["--where", "ANY tags IN $LANGS", "--var", #"LANGS=["swift","go"]"#, "--format", "json"]).out, #"{"sections":[{"name":"","indexTitle":null,"ids":[1,2]}]}"# + "\n")
        expectEqual(query(["--where", "born < %@", "--arg", #"{"$date":"2000-01-01T00:00:00Z"}"#, "--format", "json"]).out, #"{"sections":[{"name":"","indexTitle":null,"ids":[3]}]}"# + "\n")
        expectEqual(query(["--where", "age == %@ OR age == %@", "--arg", "25.0", "--arg", "31", "--format", "json"]).out, #"{"sections":[{"name":"","indexTitle":null,"ids":[1,2]}]}"# + "\n")
        expectEqual(query(["--where", "%K == nil", "--arg", #""age""#, "--format", "json"]).out, #"{"sections":[{"name":"","indexTitle":null,"ids":[5]}]}"# + "\n")
    }

    @Test func textForPeople() {
        let result = query(["--where", "city != 'Århus'", "--sort", "city,name", "--section-key", "city"])
        expectEqual(result.status, 0)
        expectEqual(result.out, """
            4 objects where city != "Århus", 2 sections by city
            Berlin (2)
              {"id":1,"name":"Anna","age":31,"city":"Berlin","tags":["go"]}
              {"id":4,"name":"anne","age":19,"city":"Berlin","tags":[]}
            Paris (2)
              {"id":5,"name":"Zoë","age":null,"city":"Paris"}
              {"id":3,"name":"Émile","age":42,"city":"Paris","born":{"$date":"1983-04-01T00:00:00Z"}}

            """)
    }

    @Test func badInputIsAnErrorWithNothingOnStandardOutput() {
        let cases: [([String], Int32, String)] = [
            (["--where", "name =="], 1, """
                headless-table: --where: at offset 7 of "name ==": expected an expression after '==', found the end of the format
                name ==
                       ^

                """),
            (["--where", "name == %@"], 1, """
                headless-table: --where: at offset 8 of "name == %@": expected argument 1 for %@ (no arguments were given), found '%@'
                name == %@
                        ^

                """),
            (["--where", "name > 5"], 1, "headless-table: --where: > cannot take a string and an int (evaluating name > 5)\n"),
            (["--where", "age > $MIN"], 1, "headless-table: --where needs $MIN: bind it with --var MIN=JSON\n"),
            (["--where", "age > %@", "--arg", "thirty"], 1,
             #"headless-table: --arg 1: "thirty" is not JSON (line 1, column 1: expected 'true', found 't'); a string needs quotes: '"Anna"'"# + "\n"),
            (["--where", "age > $X", "--var", "X"], 2, "headless-table: --var takes NAME=JSON, as in --var MIN=18, not 'X'\nrun 'headless-table query --help' for usage\n"),
            (["--arg", "1"], 2, "headless-table: --arg applies only with --where\nrun 'headless-table query --help' for usage\n"),
            (["--limit", "-1"], 2, "headless-table: --limit takes a whole number of at least 0, not '-1'\nrun 'headless-table query --help' for usage\n"),
            (["--sort", "a,,b"], 2, "headless-table: --sort takes key paths separated by commas, - before a descending one; '' is empty\nrun 'headless-table query --help' for usage\n"),
            (["--section-key", "city"], 2,
             "headless-table: --section-key city needs --sort city,…: the first sort key orders the sections\nrun 'headless-table query --help' for usage\n"),
            (["--section-key", "city", "--sort", "age"], 2,
             "headless-table: --section-key city needs --sort city,…: the first sort key orders the sections (the first sort key is age)\n"
                + "run 'headless-table query --help' for usage\n"),
        ]
        for (arguments, status, err) in cases {
            let result = query(arguments)
            expectEqual(result.status, status, "\(arguments)")
            expectEqual(result.out, "", "\(arguments)")
            expectEqual(result.err, err, "\(arguments)")
        }
        let folder = TemporaryFolder()
        for (data, err) in [
            (#"{"id":1}"#, "expected an array of objects, found an object"),
            (#"[{"id":1},3]"#, "object 1 is a number, not an object"),
            (#"[{"id":1},{"name":"x"}]"#, "object 1 has no \"id\" to identify it (an id is any JSON value but null)"),
            (#"[{"id":1},{"id":null}]"#, "object 1 has no \"id\" to identify it (an id is any JSON value but null)"),
            (#"[{"id":1},{"id":2},{"id":1.0}]"#, "duplicate id 1.0 (object 0 and object 2); ids must be unique"),
        ] {
            let path = folder.file("data.json", data)
            let result = runCLI(["query", path])
            #expect(result.status == 1 && result.out == "")
            expectEqual(result.err, "headless-table: \(path): \(err)\n")
        }
    }

    /// Random people, random predicates from templates, random sorts: the ids
    /// `query` prints are those an independent filter-and-sort gives.
    @Test func agreesWithAnIndependentFilterAndSort() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let names = ["Anna", "anne", "Björn", "Bjorn", "Émile", "emil", "Zoë", "zoe", "Ærø", "Straße"]
        let folder = TemporaryFolder()
        for round in 0..<40 {
            struct Person { var id: Int; var name: String; var age: Int?; var tags: [String] }
            let people = (0..<g.int(0...30)).map { id in
                Person(id: id, name: names[g.int(0..<names.count)], age: g.chance(0.1) ? nil : g.int(0...60),
                       tags: (0..<g.int(0...2)).map { _ in ["go", "swift", "rust"][g.int(0..<3)] })
            }
            let data = "[" + people.map { p in
                "{\"id\":\(p.id),\"name\":\(JSON.string(.string(p.name))),\"age\":\(p.age.map(String.init) ?? "null"),\"tags\":[\(p.tags.map { "\"\($0)\"" }.joined(separator: ","))]}"
            }.joined(separator: ",") + "]"
            let path = folder.file("people-\(round).json", data)
            let low = g.int(0...40), text = ["a", "b", "e", "z"][g.int(0..<4)], tag = ["go", "swift"][g.int(0..<2)]
            func fold(_ s: String) -> String { s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
            let templates: [(String, [String], (Person) -> Bool)] = [
                ("age >= %@", ["\(low)"], { ($0.age ?? -1) >= low && $0.age != nil }),
                ("name BEGINSWITH[cd] %@", ["\"\(text)\""], { fold($0.name).hasPrefix(text) }),
                ("name CONTAINS[c] %@ AND age < %@", ["\"\(text)\"", "\(low)"], { $0.name.lowercased().contains(text) && ($0.age.map { $0 < low } ?? false) }),
                ("ANY tags == %@ OR age == nil", ["\"\(tag)\""], { $0.tags.contains(tag) || $0.age == nil }),
                ("NOT (age BETWEEN {%@, 50})", ["\(low)"], { !($0.age.map { low <= $0 && $0 <= 50 } ?? false) }),
            ]
            let (format, args, matches) = templates[g.int(0..<templates.count)]
            let descending = g.chance(0.5)
            let result = runCLI(["query", path, "--where", format] + args.flatMap { ["--arg", $0] }
                + ["--sort", (descending ? "-age" : "age") + ",id", "--format", "json"])
            // nil sorts first ascending, last descending; ties by id.
            let expected = people.filter(matches).sorted { a, b in
                let (x, y) = (a.age.map { $0 + 1 } ?? 0, b.age.map { $0 + 1 } ?? 0)
                return x != y ? (descending ? x > y : x < y) : a.id < b.id
            }.map(\.id)
            let ids = expected.map(String.init).joined(separator: ",")
            expectEqual(result.out, #"{"sections":[{"name":"","indexTitle":null,"ids":["# + ids + "]}]}\n", "seed \(seed), round \(round): \(format) \(args)")
        }
    }
}
