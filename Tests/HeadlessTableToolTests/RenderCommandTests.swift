import Foundation
import HeadlessTable
@testable import HeadlessTableTool
import TableSnapshotTesting
import TableTestSupport
import Testing

/// `render` and `diff --render`: tables drawn from JSON, reviewed as snapshots,
/// and every misuse refused with a message and nothing on standard output.
@Suite struct RenderCommandTests {
    static let people = #"""
        [{"id":1,"name":"Ada Lovelace","city":"London","age":36},
         {"id":2,"name":"Grace Hopper","city":"New York","age":85},
         {"id":3,"name":"Émilie du Châtelet","city":"Paris","age":42},
         {"id":4,"name":"Alan Turing","city":"London","age":41},
         {"id":5,"name":"東京 花子","city":"Tokyo","age":30},
         {"id":6,"name":"Barbara Liskov","city":"Boston","age":84},
         {"id":7,"title":"Ships by title","city":"Boston","age":1},
         {"id":8,"city":"Oslo","age":2}]
        """#

    func render(_ arguments: [String]) -> CLIResult {
        let folder = TemporaryFolder()
        return runCLI(["render", folder.file("people.json", Self.people)] + arguments)
    }

    @Test func tablesAsTheWindowShowsThem() {
        let runs: [[String]] = [
            ["--width", "44", "--height", "9"],
            ["--sort", "city,name", "--section-key", "city", "--detail", "age", "--width", "40", "--height", "14", "--index"],
            ["--sort", "city,name", "--section-key", "city", "--width", "30", "--height", "5", "--offset", "4", "--ascii"],
            ["--sort", "name", "--row", "0,5", "--height", "3", "--width", "24"],
            ["--sort", "name", "--search", "EMILIE", "--height", "3", "--width", "30"],
            ["--where", "age > %@", "--arg", "40", "--sort", "-age", "--text", "city", "--detail", "name", "--width", "32", "--height", "6"],
        ]
        var out = ""
        for arguments in runs {
            let result = render(arguments)
            #expect(result.status == 0 && result.err == "", "\(arguments): \(result.err)")
            out += "$ render people.json \(arguments.joined(separator: " "))\n" + result.out
        }
        assertTextSnapshot(of: out)
    }

    /// `--style`: plain (a floating header at the top of a scrolled window),
    /// grouped and inset grouped (headers that scroll, a footer line that
    /// sets each group apart), at the same offsets.
    @Test func everyStyle() {
        var out = ""
        for style in ["plain", "grouped", "inset-grouped"] {
            for offset in ["0", "3", "5"] {
                let arguments = ["--sort", "city,name", "--section-key", "city", "--detail", "age", "--width", "36", "--height", "7", "--offset", offset, "--style", style]
                let result = render(arguments)
                #expect(result.status == 0 && result.err == "", "\(arguments): \(result.err)")
                out += "$ render people.json \(arguments.joined(separator: " "))\n" + result.out
            }
        }
        let refused = render(["--style", "fancy"])
        #expect(refused.status != 0 && refused.out == "" && refused.err.contains("--style"), "\(refused.err)")
        assertTextSnapshot(of: out)
    }

    @Test func theOutputHasTheAskedSize() {
        for (width, height, search) in [(10, 1, false), (37, 7, true), (80, 30, false), (1, 2, true)] {
            let result = render(["--sort", "name", "--width", "\(width)", "--height", "\(height)"] + (search ? ["--search", "a"] : []))
            expectEqual(result.status, 0, "\(result.err)")
            let lines = result.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            expectEqual(lines.count, height)
            #expect(lines.allSatisfy { TerminalText.width(of: $0) == width })
        }
    }

    /// A name holding a right-to-left override (or any bidirectional
    /// control) would reorder the rest of its line on the terminal: `render`
    /// shows a space instead, in the rows, the section headers, the index
    /// and the search field.
    @Test func bidirectionalControlsNeverReachTheTerminal() {
        let folder = TemporaryFolder()
        let people = #"""
            [{"id":1,"name":"Ada \u202Eecalevol","city":"Lon\u2067don\u2069"},
             {"id":2,"name":"Grace\u200F Hopper","city":"New York\u061C"},
             {"id":3,"name":"\u202Aplain\u202C","city":"Paris\u200E"}]
            """#
        let file = folder.file("people.json", people)
        let bidirectional: Set<UInt32> = Set(0x202A...0x202E).union(0x2066...0x2069).union([0x200E, 0x200F, 0x061C])
        for arguments in [["--sort", "name"], ["--sort", "city,name", "--section-key", "city", "--index"], ["--sort", "name", "--search", "a\u{202E}"]] {
            let result = runCLI(["render", file, "--width", "40", "--height", "8"] + arguments)
            #expect(result.status == 0 && result.err == "", "\(arguments): \(result.err)")
            #expect(!result.out.unicodeScalars.contains { bidirectional.contains($0.value) }, "\(arguments): \(result.out.debugDescription)")
            #expect(result.out.split(separator: "\n").allSatisfy { TerminalText.width(of: $0) == 40 }, "\(arguments)")
        }
        #expect(runCLI(["render", file, "--sort", "name", "--width", "40", "--height", "8"]).out.contains("Ada  ecalevol"))
    }

    @Test(arguments: [
        (["--width", "0"], "--width takes a whole number from 1 to 10000, not '0'", 2),
        (["--width", "20000"], "--width takes a whole number from 1 to 10000, not '20000'", 2),
        (["--height", "x"], "--height takes a whole number from 1 to 100000, not 'x'", 2),
        (["--height", "1000000"], "--height takes a whole number from 1 to 100000, not '1000000'", 2),
        (["--text", "nosuch"], "--text nosuch: no object has the key \"nosuch\"", 1),
        (["--text", "nmae"], "--text nmae: no object has the key \"nmae\" (did you mean name?)", 1),
        (["--detail", "agee"], "--detail agee: no object has the key \"agee\" (did you mean age?)", 1),
        (["--offset", "-1"], "--offset takes a whole number of at least 0, not '-1'", 2),
        (["--offset", "1", "--row", "0,1"], "--offset and --row go one at a time", 2),
        (["--row", "1"], "--row takes SECTION,ROW, as in --row 0,12, not '1'", 2),
        (["--row", "0,99"], "--row 0,99: invalid index path {0, 99}: section 0 has 8 rows", 1),
        (["--index"], "--index alone shows the sections' index titles: give --section-key too, or --index KEY", 2),
        (["--where", "age >"], "--where: ", 1),
        (["--limit", "2"], "unknown option --limit for render", 2),
    ] as [([String], String, Int32)])
    func misuseIsRefused(arguments: [String], message: String, status: Int32) {
        let result = render(arguments)
        expectEqual(result.status, status)
        expectEqual(result.out, "")
        #expect(result.err.hasPrefix("headless-table: " + message), "\(result.err)")
    }

    @Test func aMissingFileIsAnError() {
        let result = runCLI(["render", "/nonexistent/people.json"])
        #expect(result.status == 1 && result.out == "")
        #expect(result.err.contains("/nonexistent/people.json"))
    }

    // MARK: diff --render

    @Test func diffRendersEachStage() {
        let folder = TemporaryFolder()
        let old = folder.file("old.json", #"""
            {"sections":[{"name":"A","objects":[{"id":1,"title":"one"},{"id":2,"title":"two"},{"id":3,"title":"three"}]},
                         {"name":"B","objects":[{"id":4,"title":"four"}]}]}
            """#)
        let new = folder.file("new.json", #"""
            {"sections":[{"name":"B","objects":[{"id":4,"title":"four"},{"id":2,"title":"two, edited"}]},
                         {"name":"C","objects":[{"id":5,"title":"five"}]}]}
            """#)
        let flat = folder.file("flat.json", #"[{"id":3,"name":"c"},{"id":1,"name":"a"},{"id":9,"name":"new"}]"#)
        let flatOld = folder.file("flat-old.json", #"[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}]"#)
        var out = ""
        for arguments in [[old, new, "--render", "--width", "30"], [flatOld, flat, "--render", "--width", "20", "--ascii"],
                          [flatOld, flatOld, "--render", "--width", "12"]] {
            let result = runCLI(["diff"] + arguments + [])
            #expect(result.status == 0 && result.err == "", "\(result.err)")
            out += "$ diff \(arguments.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: " "))\n" + result.out
        }
        assertTextSnapshot(of: out)
        let json = runCLI(["diff", old, new, "--render", "--format", "json"])
        #expect(json.status == 2 && json.out == "")
        #expect(json.err.hasPrefix("headless-table: --render draws text: it does not go with --format json"))
    }
}
