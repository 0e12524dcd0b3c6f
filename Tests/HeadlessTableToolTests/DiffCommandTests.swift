import Foundation
import HeadlessTable
@testable import HeadlessTableTool
import TableSnapshotTesting
import TableTestSupport
import Testing

@Suite struct DiffCommandTests {
    // MARK: Output

    @Test func jsonHasExactlyTheDocumentedShape() {
        let folder = TemporaryFolder()
        let old = folder.file("old.json", #"{"sections":[{"name":"A","objects":[{"id":1,"t":"a"},{"id":2,"t":"b"}]},{"name":"B","objects":[{"id":3}]}]}"#)
        let new = folder.file("new.json", #"{"sections":[{"name":"A","objects":[{"id":2,"t":"b!"},{"id":4}]},{"name":"B","objects":[{"id":3},{"id":1,"t":"a"}]}]}"#)
        let result = runCLI(["diff", old, new, "--format", "json"])
        expectEqual(result.status, 0)
        expectEqual(result.err, "")
        expectEqual(result.out, """
            {"stages":[{"deletedSections":[],"insertedSections":[],"movedSections":[],"reloadedSections":[],\
            "deletedRows":[],"insertedRows":[[0,1]],"movedRows":[[[0,0],[1,1]]],"reloadedRows":[[0,1]],\
            "rowCounts":[2,2]}],"duplicates":[]}

            """)
    }

    @Test func plainArraysAndAnotherIdentityKey() {
        let folder = TemporaryFolder()
        let old = folder.file("old.json", #"[{"key":"a","n":1},{"key":"b","n":2},{"key":"d","n":3}]"#)
        let new = folder.file("new.json", #"[{"key":"b","n":2},{"key":"c","n":1}]"#)
        let result = runCLI(["diff", "--id", "key", old, new, "--format", "json"])
        expectEqual(result.status, 0)
        expectEqual(result.out, """
            {"stages":[{"deletedSections":[],"insertedSections":[],"movedSections":[],"reloadedSections":[],\
            "deletedRows":[[0,0],[0,2]],"insertedRows":[[0,1]],"movedRows":[],"reloadedRows":[],\
            "rowCounts":[2]}],"duplicates":[]}

            """)
        // Duplicate ids are an error in diff as in every command (the JSON's duplicates stays []).
        let twice = folder.file("twice.json", #"[{"key":"a","n":1},{"key":"b","n":2},{"key":"a","n":3}]"#)
        let duplicates = runCLI(["diff", "--id=key", twice, new])
        #expect(duplicates.status == 1 && duplicates.out == "")
        expectEqual(duplicates.err, "headless-table: \(twice): duplicate id \"a\" (object 0 and object 2); ids must be unique\n")
    }

    @Test func textForPeople() {
        let folder = TemporaryFolder()
        let old = folder.file("old.json", fetchResultJSON(table([("Fruit", [1, 2, 3]), ("Nuts", [4, 5])])))
        let new = folder.file("new.json", fetchResultJSON(table([("Fruit", [3, 1, 6]), ("Berries", [2]), ("Nuts", [5])])))
        let result = runCLI(["diff", old, new])
        #expect(result.status == 0 && result.err == "")
        assertTextSnapshot(of: result.out)
    }

    @Test func unchangedTablesHaveNoStages() {
        let folder = TemporaryFolder()
        let file = folder.file("same.json", #"[{"id":1},{"id":2}]"#)
        expectEqual(runCLI(["diff", file, file]).out, "no changes\n")
        expectEqual(runCLI(["diff", file, file, "--format", "json"]).out, "{\"stages\":[],\"duplicates\":[]}\n")
    }

    // MARK: Errors

    struct BadInput: CustomTestStringConvertible, Sendable {
        var name: String
        var old: String?
        var new: String?
        var arguments: [String]
        var status: Int32
        var message: String
        var testDescription: String { name }
    }

    static let badInputs: [BadInput] = [
        BadInput(name: "missing file", old: "[]", new: nil, arguments: [], status: 1,
                 message: "headless-table: NEW: no such file\n"),
        BadInput(name: "malformed JSON", old: "[]", new: "[{\"id\": 1,}]", arguments: [], status: 1,
                 message: "headless-table: NEW: malformed JSON at line 1, column 11: expected a string key in an object, found '}'\n"),
        BadInput(name: "unterminated string", old: "[]", new: "[{\"id\": \"a]", arguments: [], status: 1,
                 message: "headless-table: NEW: malformed JSON at line 1, column 9: a string is not closed: expected '\"', found the end of the text\n"),
        BadInput(name: "empty file", old: "[]", new: "", arguments: [], status: 1,
                 message: "headless-table: NEW: malformed JSON at line 1, column 1: expected a JSON value, found an empty text\n"),
        BadInput(name: "trailing text", old: "[]", new: "[] []", arguments: [], status: 1,
                 message: "headless-table: NEW: malformed JSON at line 1, column 4: expected the end of the text after the value, found '['\n"),
        BadInput(name: "object without the id key", old: "[{\"id\":1},{\"name\":\"x\"}]", new: "[]", arguments: [], status: 1,
                 message: "headless-table: OLD: object 1 has no \"id\" to identify it (an id is any JSON value but null; --id names another key)\n"),
        BadInput(name: "a null id", old: "[{\"id\":1}]", new: "[{\"id\":null}]", arguments: [], status: 1,
                 message: "headless-table: NEW: object 0 has no \"id\" to identify it (an id is any JSON value but null; --id names another key)\n"),
        BadInput(name: "duplicate ids", old: "[{\"id\":1},{\"id\":2},{\"id\":1},{\"id\":2},{\"id\":1}]", new: "[]", arguments: [], status: 1,
                 message: "headless-table: OLD: duplicate ids 1 (object 0 and object 2), 2 (object 1 and object 3), 1 (object 0 and object 4); ids must be unique\n"),
        BadInput(name: "duplicate ids across sections", old: "[]",
                 new: "{\"sections\":[{\"name\":\"A\",\"objects\":[{\"id\":\"x\"}]},{\"name\":\"B\",\"objects\":[{\"id\":\"x\"}]}]}",
                 arguments: [], status: 1,
                 message: "headless-table: NEW: duplicate id \"x\" (section 0 (\"A\"), object 0 and section 1 (\"B\"), object 0); ids must be unique\n"),
        BadInput(name: "object without the --id key", old: "[{\"id\":1}]", new: "[]", arguments: ["--id", "uuid"], status: 1,
                 message: "headless-table: OLD: object 0 has no \"uuid\" to identify it (an id is any JSON value but null; --id names another key)\n"),
        BadInput(name: "objects is not an array", old: "{\"sections\":[{\"name\":\"A\",\"objects\":{}}]}", new: "[]", arguments: [], status: 1,
                 message: "headless-table: OLD: section 0 (\"A\"): \"objects\" is an object, not an array\n"),
        BadInput(name: "section without objects", old: "{\"sections\":[{\"name\":\"A\"}]}", new: "[]", arguments: [], status: 1,
                 message: "headless-table: OLD: section 0 (\"A\") has no \"objects\" array\n"),
        BadInput(name: "sections is not an array", old: "{\"sections\":3}", new: "[]", arguments: [], status: 1,
                 message: "headless-table: OLD: \"sections\" is a number, not an array\n"),
        BadInput(name: "a section that is not an object", old: "{\"sections\":[[1]]}", new: "[]", arguments: [], status: 1,
                 message: "headless-table: OLD: section 0 is an array, not an object with \"name\" and \"objects\"\n"),
        BadInput(name: "a name that is not a string", old: "{\"sections\":[{\"name\":7,\"objects\":[]}]}", new: "[]", arguments: [], status: 1,
                 message: "headless-table: OLD: section 0's \"name\" is a number, not a string\n"),
        BadInput(name: "an object without sections", old: "{\"rows\":[]}", new: "[]", arguments: [], status: 1,
                 message: "headless-table: OLD: expected an array of objects or {\"sections\":[…]}, found an object without \"sections\"\n"),
        BadInput(name: "a row that is not an object", old: "[1, 2]", new: "[]", arguments: [], status: 1,
                 message: "headless-table: OLD: object 0 is a number, not an object\n"),
        BadInput(name: "a string document", old: "\"rows\"", new: "[]", arguments: [], status: 1,
                 message: "headless-table: OLD: expected an array of objects or {\"sections\":[…]}, found a string\n"),
        BadInput(name: "unknown format", old: "[]", new: "[]", arguments: ["--format", "xml"], status: 2,
                 message: "headless-table: --format takes text or json, not 'xml'\nrun 'headless-table diff --help' for usage\n"),
        BadInput(name: "unknown option", old: "[]", new: "[]", arguments: ["--fast"], status: 2,
                 message: "headless-table: unknown option --fast for diff\nrun 'headless-table diff --help' for usage\n"),
        BadInput(name: "option without value", old: "[]", new: "[]", arguments: ["--id"], status: 2,
                 message: "headless-table: --id needs a value: --id KEY\nrun 'headless-table diff --help' for usage\n"),
    ]

    @Test(arguments: badInputs)
    func badInputIsAClearErrorAndNothingOnStandardOutput(_ bad: BadInput) {
        let folder = TemporaryFolder()
        let old = bad.old.map { folder.file("old.json", $0) } ?? folder.url.appendingPathComponent("missing-old.json").path
        let new = bad.new.map { folder.file("new.json", $0) } ?? folder.url.appendingPathComponent("missing-new.json").path
        let result = runCLI(["diff", old, new] + bad.arguments)
        expectEqual(result.status, bad.status)
        expectEqual(result.out, "")
        let expected = bad.message.replacingOccurrences(of: "OLD", with: old).replacingOccurrences(of: "NEW", with: new)
        expectEqual(result.err, expected)
    }

    @Test func missingArgumentsAndUnknownCommands() {
        let one = runCLI(["diff", "only-one.json"])
        #expect(one.status == 2 && one.out == "")
        expectEqual(one.err, "headless-table: missing NEW: the fetch result after, as JSON (- for standard input)\nrun 'headless-table diff --help' for usage\n")
        let unknown = runCLI(["difff"])
        #expect(unknown.status == 2 && unknown.err.hasPrefix("headless-table: unknown command 'difff'"))
        let none = runCLI([])
        #expect(none.status == 2 && none.err.hasPrefix("usage: headless-table"))
        let directory = runCLI(["diff", "/", "/"])
        #expect(directory.status == 1 && directory.err == "headless-table: /: cannot be read (it is a directory)\n")
    }
}
