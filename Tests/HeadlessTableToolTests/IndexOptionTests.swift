import Foundation
import HeadlessTable
@testable import HeadlessTableTool
import TableSnapshotTesting
import TableTestSupport
import Testing
import ToolArguments

/// `--index KEY [--locale L]` on `query`, `render` and `browse`: sections by a
/// locale's index of a key, rows sorted by its collation.
@Suite struct IndexOptionTests {
    static let people = #"""
        [{"id":1,"name":"Özil"},{"id":2,"name":"Abel"},{"id":3,"name":"Äbte"},{"id":4,"name":"Adam"},
         {"id":5,"name":"zoe"},{"id":6,"name":"Åsa"},{"id":7,"name":"Ёлкин"},{"id":8,"name":"Ωmega"},
         {"id":9,"name":"42"},{"id":10,"name":""},{"id":11},{"id":12,"name":"Otto"},{"id":13,"name":"Adam"}]
        """#

    func run(_ command: String, _ arguments: [String]) -> CLIResult {
        let folder = TemporaryFolder()
        return runCLI([command, folder.file("people.json", Self.people)] + arguments)
    }

    @Test func queryJSONSectionsByTheLocalesIndex() {
        let german = run("query", ["--index", "name", "--locale", "de", "--format", "json"])
        #expect(german.status == 0 && german.err == "", "\(german.err)")
        expectEqual(german.out, ##"{"sections":[{"name":"A","indexTitle":"A","ids":[2,3,4,13,6]},{"name":"O","indexTitle":"O","ids":[12,1]},"##
            + ##"{"name":"Z","indexTitle":"Z","ids":[5]},{"name":"#","indexTitle":"#","ids":[10,11,9,8,7]}]}"## + "\n")
        let swedish = run("query", ["--index", "name", "--locale", "sv_SE", "--format", "json"])
        expectEqual(swedish.out, ##"{"sections":[{"name":"A","indexTitle":"A","ids":[2,4,13]},{"name":"O","indexTitle":"O","ids":[12]},"##
            + ##"{"name":"Z","indexTitle":"Z","ids":[5]},{"name":"Å","indexTitle":"Å","ids":[6]},{"name":"Ä","indexTitle":"Ä","ids":[3]},"##
            + ##"{"name":"Ö","indexTitle":"Ö","ids":[1]},{"name":"#","indexTitle":"#","ids":[10,11,9,8,7]}]}"## + "\n")
        let russian = run("query", ["--index", "name", "--locale", "ru", "--format", "json"])
        #expect(russian.out.hasPrefix(#"{"sections":[{"name":"Е","indexTitle":"Е","ids":[7]},{"name":"A","indexTitle":"A","ids":[2,3,4,13,6]}"#))
        // English without --locale; --sort breaks ties (the two Adams), --where narrows.
        let english = run("query", ["--index", "name", "--sort", "-id", "--where", "id < 14", "--format", "json"])
        #expect(english.out.hasPrefix(#"{"sections":[{"name":"A","indexTitle":"A","ids":[2,3,13,4,6]}"#), "\(english.out)")
    }

    @Test func queryTextSaysWhatTheSectionsAreBy() {
        let result = run("query", ["--index", "name", "--locale", "de", "--where", "name BEGINSWITH[cd] 'a' OR name BEGINSWITH 'Ö'"])
        expectEqual(result.out, """
            6 objects where name BEGINSWITH[cd] "a" OR name BEGINSWITH "Ö", 2 sections by name's index (de)
            A (5)
              {"id":2,"name":"Abel"}
              {"id":3,"name":"Äbte"}
              {"id":4,"name":"Adam"}
              {"id":13,"name":"Adam"}
              {"id":6,"name":"Åsa"}
            O (1)
              {"id":1,"name":"Özil"}

            """)
    }

    @Test func renderShowsTheIndex() {
        var out = ""
        for arguments in [["--index", "name", "--locale", "de", "--width", "30", "--height", "19"],
                          ["--index", "name", "--locale", "sv", "--width", "30", "--height", "8", "--ascii"]] {
            let result = run("render", arguments)
            #expect(result.status == 0 && result.err == "", "\(arguments): \(result.err)")
            out += "$ render people.json \(arguments.joined(separator: " "))\n" + result.out
        }
        assertTextSnapshot(of: out)
    }

    @Test func browseSectionsAndSearchesByTheIndex() throws {
        let folder = TemporaryFolder()
        let parsed = try ArgumentParser.parse(["--index", "name", "--locale", "de", folder.file("people.json", Self.people)], command: BrowseCommand.declaration)
        let browser = try BrowseSession(try BrowseCommand.Options.parse(parsed)).model
        expectEqual(browser.indexTitles, ["A", "O", "Z", "#"])
        expectEqual(browser.sectionCounts, [5, 2, 1, 5])
        browser.handle(.character("/"))
        browser.handle(.character("o"))
        expectEqual(browser.indexTitles, ["O", "Z"])
    }

    @Test(arguments: [
        ("query", ["--index"], "--index needs a value: --index KEY"),
        ("query", ["--index", "--format", "json"], "--index needs a value: --index KEY"),
        ("query", ["--locale", "de"], "--locale applies only with --index"),
        ("query", ["--index", "name", "--section-key", "name"], "--section-key and --index go one at a time"),
        ("query", ["--index", "name", "--locale", "de DE"], "--locale takes a locale identifier, as in --locale de or --locale sv_SE, not 'de DE'"),
        ("render", ["--index", "", "--locale", "de"], "--index needs a KEY, not an empty one"),
        ("render", ["--locale", "de", "--index"], "--locale goes with --index KEY: it chooses the index's alphabet"),
    ] as [(String, [String], String)])
    func misuseIsRefused(command: String, arguments: [String], message: String) {
        let result = run(command, arguments)
        expectEqual(result.status, 2)
        expectEqual(result.out, "")
        #expect(result.err.hasPrefix("headless-table: \(message)\n"), "\(result.err)")
    }
}
