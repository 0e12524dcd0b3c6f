import Foundation
import HeadlessTable
@testable import HeadlessTableTool
import TableTestSupport
import Testing

/// tmux, if this machine has it.
let tmuxPath: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux", "/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// `headless-table browse` driven through a real terminal: tmux runs a shell,
/// keys go in with `send-keys`, the screen comes out with `capture-pane`.
@Suite(.serialized, .enabled(if: TestScale.isFull, TestScale.integrationNote), .enabled(if: tmuxPath != nil, "tmux is not installed (.ci/run installs it): the terminal browser is not tested"))
struct BrowseTerminalTests {
    /// A tmux server of its own, with one shell in a window of the given size.
    final class Session {
        let socket = "headless-table-test-\(UUID().uuidString.prefix(8))"

        init(columns: Int, lines: Int) throws {
            try tmux(["new-session", "-d", "-s", "t", "-x", "\(columns)", "-y", "\(lines)", "env PS1='$ ' bash --norc --noprofile"])
            // Keys sent before the prompt are echoed by the terminal and then
            // redrawn by readline, so the shell's later output can land on a
            // line that still holds the end of the typed command.
            _ = try wait("the shell's prompt") { $0.first?.hasPrefix("$") == true }
        }

        deinit { _ = try? tmux(["kill-server"]) }

        /// Runs a tmux command and returns what it printed.
        @discardableResult
        func tmux(_ arguments: [String]) throws -> String {
            try ProcessSpawning.run(tmuxPath ?? "tmux", ["-L", socket, "-f", "/dev/null"] + arguments)
        }

        func keys(_ keys: String...) throws { try tmux(["send-keys", "-t", "t"] + keys) }
        func type(_ text: String) throws { try tmux(["send-keys", "-t", "t", "-l", text]) }
        func screen() throws -> [String] { try tmux(["capture-pane", "-p", "-t", "t"]).split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

        /// Waits (up to `seconds`) until the screen satisfies `condition`, and returns it.
        func wait(_ what: String, seconds: Double = 10, _ condition: ([String]) -> Bool) throws -> [String] {
            let deadline = Date().addingTimeInterval(seconds)
            var lines: [String] = []
            while Date() < deadline {
                lines = try screen()
                if condition(lines) { return lines }
                Thread.sleep(forTimeInterval: 0.05)
            }
            Issue.record("waited for \(what); the screen:\n\(lines.joined(separator: "\n"))")
            return lines
        }
    }


    static let people = #"""
        [{"id":1,"name":"Ada","age":36},{"id":2,"name":"Alan","age":41},{"id":3,"name":"Barbara","age":84},
         {"id":4,"name":"Dana","age":30},{"id":5,"name":"Grace","age":85},{"id":6,"name":"Hanna","age":29},
         {"id":7,"name":"Ian","age":50},{"id":8,"name":"Joan","age":60},{"id":9,"name":"Karl","age":45},
         {"id":10,"name":"Lena","age":33},{"id":11,"name":"Mara","age":27},{"id":12,"name":"Nina","age":39}]
        """#

    /// Starts the browser in the session's shell; after it ends, the shell
    /// prints its exit status and whether the terminal is back in canonical mode.
    /// (The commands type `DO''NE`: the shell prints DONE, and the typed line,
    /// wrapped at the pane's width, can never show DONE alone on a line.)
    func start(_ session: Session, _ file: String, _ arguments: String = "") throws -> [String] {
        try session.type("\(try BuiltExecutable.url("headless-table").path) browse \(file) --sort name --detail age \(arguments); echo EXIT=$?; stty -a | grep -o -- '-\\?icanon'; echo DO''NE")
        try session.keys("Enter")
        return try session.wait("the browser") { $0.first?.contains("people.json — 12 objects") == true }
    }

    func row(_ lines: [String], _ text: String) -> String? { lines.first { $0.dropFirst().hasPrefix(text) } }

    /// Runs `browse ARGUMENTS` in the session's shell, then prints its exit
    /// status and DONE; waits until the title says `title`.
    func browse(_ session: Session, _ arguments: String, title: String, seconds: Double = 10) throws -> [String] {
        try session.type("\(try BuiltExecutable.url("headless-table").path) browse \(arguments); echo EXIT=$?; echo DO''NE")
        try session.keys("Enter")
        return try session.wait("the browser", seconds: seconds) { $0.first?.contains(title) == true }
    }

    /// The exit status the shell printed: `EXIT=n` at the start of a line
    /// (the rest of that line can still hold what the terminal left there).
    func exitStatus(_ screen: [String]) -> Int? {
        screen.lazy.compactMap { $0.hasPrefix("EXIT=") ? Int($0.dropFirst(5).prefix(while: \.isNumber)) : nil }.first
    }

    /// Quits the browser and waits for the shell.
    func quit(_ session: Session) throws -> [String] {
        try session.keys("q")
        return try session.wait("the shell") { $0.contains { $0.hasPrefix("DONE") } }
    }

    /// A large generated file: `count` people named `n000000`… (as many
    /// digits as `count - 1` has, at least six) in a shuffled order, each with
    /// an age; written byte by byte (a million rows in a few seconds, even
    /// in a debug build).
    static func largeFile(_ folder: TemporaryFolder, count: Int) throws -> (path: String, name: (Int) -> String) {
        let width = max(6, String(max(0, count - 1)).count)
        func name(_ n: Int) -> String { "n" + String(repeating: "0", count: width - String(n).count) + String(n) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * (34 + width))
        func append(_ text: StaticString) {
            text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }
        func append(_ number: Int, width: Int = 0) {
            var digits: [UInt8] = []
            var n = number
            repeat {
                digits.append(UInt8(ascii: "0") + UInt8(n % 10))
                n /= 10
            } while n > 0
            if digits.count < width { bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - digits.count)) }
            bytes.append(contentsOf: digits.reversed())
        }
        append("[")
        for k in 0..<count {
            let n = (k &* 7919) % count   // 7919 is prime: a permutation when count is not its multiple
            append(k == 0 ? "{\"id\":" : ",\n{\"id\":")
            append(k)
            append(",\"name\":\"n")
            append(n, width: width)
            append("\",\"age\":")
            append(k % 90)
            append("}")
        }
        append("]\n")
        let path = folder.url.appendingPathComponent("big.json").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, name)
    }

    /// The tool for the large file: the one `HEADLESS_TABLE_BROWSE_BINARY`
    /// names; else a release build beside the tests' (debug) build when it
    /// is at least as new as theirs; else the tests' own.
    static func largeFileTool() throws -> (path: String, isRelease: Bool) {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["HEADLESS_TABLE_BROWSE_BINARY"], !path.isEmpty {
            return (path, !path.contains("/debug/"))
        }
        let debug = try BuiltExecutable.url("headless-table")
        let folder = BuiltExecutable.productsFolder
        if folder.lastPathComponent == "debug" {
            let release = folder.deletingLastPathComponent().appendingPathComponent("release/headless-table")
            func modified(_ url: URL) -> Date? { (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date }
            if let releaseDate = modified(release), let debugDate = modified(debug), releaseDate >= debugDate {
                return (release.path, true)
            }
        }
        return (debug.path, false)
    }

    @Test func aLargeFileShowsItsFirstScreenAndAnswersKeys() throws {
        // A million rows with a release build of the tool (~30 s with the file's
        // generation, in a debug build of the tests); 50k with a debug one
        // (~4 s; CI runs the million with the release build). HEADLESS_TABLE_BROWSE_ROWS
        // sets another count.
        let tool = try Self.largeFileTool()
        let count = ProcessInfo.processInfo.environment["HEADLESS_TABLE_BROWSE_ROWS"].flatMap { Int($0) }.map { min(max($0, 100), 10_000_000) }
            ?? (tool.isRelease ? 1_000_000 : 50_000)
        let folder = TemporaryFolder()
        let generated = Date()
        let (file, name) = try Self.largeFile(folder, count: count)
        print("browse: \(count) rows generated in \(Int(Date().timeIntervalSince(generated) * 1000)) ms")
        let session = try Session(columns: 80, lines: 12)
        let start = Date()
        try session.type("\(tool.path) browse \(file) --sort name --detail age; echo EXIT=$?; echo DO''NE")
        try session.keys("Enter")
        var screen = try session.wait("the browser", seconds: 120) { $0.first?.contains("big.json — \(count) objects") == true }
        let firstScreen = Date().timeIntervalSince(start)
        expectEqual(row(screen, name(0))?.hasPrefix("▌"), true, "\(screen)")
        #expect(row(screen, name(1)) != nil && row(screen, name(9)) != nil, "the window's rows in order: \(screen)")
        #expect(screen.contains { $0.contains("d delete (not saved)") })
        let build = tool.isRelease ? "release" : "debug"
        print("browse: the first screen of \(count) rows after \(Int(firstScreen * 1000)) ms (\(build) build, reading included)")

        let keys = Date()
        try session.keys("Down", "Down")
        screen = try session.wait("two rows down") { row($0, name(2))?.hasPrefix("▌") == true }
        try session.keys("End")
        screen = try session.wait("the last row") { row($0, name(count - 1))?.hasPrefix("▌") == true }
        #expect(row(screen, name(0)) == nil)
        try session.keys("Home", "Down", "Down", "PageDown")
        screen = try session.wait("a page down") { row($0, name(11))?.hasPrefix("▌") == true }
        // A search typed letter by letter: the last letters narrow to the
        // names that start n…99 (ten), a backspace widens to n…9 (a hundred).
        let ten = String(name(990).dropLast())
        try session.keys("/")
        try session.type(ten)
        // Typed while the search index may still be being made (a few
        // seconds at a million rows on a loaded machine): the predicate tests
        // rows until the index takes over.
        screen = try session.wait("the search results", seconds: 60) { $0.first?.contains("10 found") == true }
        expectEqual(row(screen, name(990))?.hasPrefix("▌"), true)
        #expect(row(screen, name(991)) != nil && row(screen, name(989)) == nil, "\(screen)")
        try session.keys("BSpace")
        screen = try session.wait("the wider results", seconds: 60) { $0.first?.contains("100 found") == true }
        try session.keys("Escape")
        screen = try session.wait("the whole table") { $0.first?.contains("found") == false && row($0, name(11))?.hasPrefix("▌") == true }
        // A letter every row holds: the first rows at once, the rest found
        // on a thread of the search's own and counted once shown.
        try session.keys("/")
        try session.type("n")
        screen = try session.wait("every row found", seconds: 60) { $0.first?.contains(", \(count) found") == true }
        expectEqual(row(screen, name(0))?.hasPrefix("▌"), true, "\(screen)")
        try session.keys("End")
        screen = try session.wait("the last of the results") { row($0, name(count - 1))?.hasPrefix("▌") == true }
        try session.keys("Escape")
        screen = try session.wait("the whole table again") { $0.first?.contains("found") == false }
        print("browse: moves, End, Home, a page, a search of \(ten.count) letters, a backspace, Esc, a search of every row and Esc on \(count) rows in \(Int(Date().timeIntervalSince(keys) * 1000)) ms, through tmux")
        screen = try quit(session)
        expectEqual(exitStatus(screen), 0)
    }

    @Test func writeMakesADeleteLast() throws {
        let folder = TemporaryFolder()
        let file = folder.file("people.json", Self.people)
        let session = try Session(columns: 60, lines: 10)
        var screen = try browse(session, "\(file) --sort name --write", title: "people.json — 12 objects")
        #expect(screen.contains { $0.contains("· d delete · q quit") })
        try session.keys("d")
        screen = try session.wait("the delete") { $0.first?.contains("11 objects") == true }
        #expect(!screen.contains { $0.contains("not saved") })
        screen = try quit(session)
        expectEqual(exitStatus(screen), 0)
        let written = try JSON.parse(Data(contentsOf: URL(fileURLWithPath: file)))
        guard case .array(let objects) = written else { Issue.record("not an array: \(written)"); return }
        expectEqual(objects.count, 11)
        #expect(!objects.contains { if case .record(let r) = $0 { r["name"] == .string("Ada") } else { false } })
        expectEqual(objects.first.flatMap { if case .record(let r) = $0 { r["name"] } else { nil } }, .string("Alan"), "in the file's order")

        try session.keys("C-l")
        screen = try browse(session, "\(file) --sort name", title: "people.json — 11 objects")
        #expect(row(screen, "Alan")?.hasPrefix("▌") == true && row(screen, "Ada") == nil)
        _ = try quit(session)
    }

    @Test func storeMakesADeleteLast() throws {
        let folder = TemporaryFolder()
        let file = folder.file("people.json", Self.people)
        let store = folder.url.appendingPathComponent("people.store").path
        let session = try Session(columns: 60, lines: 10)
        var screen = try browse(session, "\(file) --sort name --store \(store)", title: "people.json — 12 objects")
        try session.keys("Down", "d")
        screen = try session.wait("the delete") { $0.first?.contains("11 objects") == true }
        #expect(screen.contains { $0.contains("deleted Alan: - delete {0, 1}") } && !screen.contains { $0.contains("not saved") })
        screen = try quit(session)
        expectEqual(exitStatus(screen), 0)

        // Again, from the store alone: the delete is there.
        try session.keys("C-l")
        screen = try browse(session, "--store \(store) --sort name", title: "people.store — 11 objects")
        #expect(row(screen, "Ada")?.hasPrefix("▌") == true && row(screen, "Alan") == nil)
        _ = try quit(session)
        // With DATA again the store is not overwritten: browse says so.
        let result = runCLI(["browse", file, "--store", store])
        #expect(result.status == 2 || result.err.contains("draws on a terminal"), "\(result.err)")
    }

    @Test func keysMoveSearchDeleteAndQuit() throws {
        let folder = TemporaryFolder()
        let file = folder.file("people.json", Self.people)
        let session = try Session(columns: 40, lines: 10)
        var screen = try start(session, file)
        // The window: a title, 8 rows, a status line — each 40 columns.
        #expect(screen.count >= 10)
        expectEqual(row(screen, "Ada")?.hasPrefix("▌Ada"), true)
        #expect(screen[1...8].allSatisfy { TerminalText.width(of: $0) <= 40 })
        #expect(screen[9].contains("/ search"))

        try session.keys("Down", "Down")
        screen = try session.wait("the selection on Barbara") { row($0, "Barbara")?.hasPrefix("▌") == true }
        try session.keys("End")
        screen = try session.wait("the last row, scrolled into view") { row($0, "Nina")?.hasPrefix("▌") == true }
        #expect(row(screen, "Ada") == nil)
        try session.keys("Home")
        screen = try session.wait("the first row again") { row($0, "Ada")?.hasPrefix("▌") == true }
        try session.keys("PageDown")
        screen = try session.wait("a page down") { $0.contains { $0.hasPrefix("▌") && !$0.hasPrefix("▌Ada") } }

        // A search filters as it is typed; Esc gives the whole table back.
        try session.keys("/")
        try session.type("an")
        screen = try session.wait("the search results") { $0.first?.contains("found") == true && $0.contains { $0.hasPrefix("Search: an") } }
        expectEqual(Set(screen.compactMap { line in ["Alan", "Dana", "Hanna", "Ian", "Joan"].first { line.dropFirst().hasPrefix($0) } }), ["Alan", "Dana", "Hanna", "Ian", "Joan"])
        #expect(row(screen, "Ada") == nil)
        // (The table keeps its selection, Joan, in view: the search field
        // took a line, so the window may start a row lower than before.)
        try session.keys("Escape")
        screen = try session.wait("the whole table") { $0.first?.contains("found") == false && row($0, "Joan")?.hasPrefix("▌") == true }

        // d deletes the selected row through the store; the batch is shown.
        try session.keys("Home", "d")
        screen = try session.wait("the delete") { $0.first?.contains("11 objects") == true }
        #expect(row(screen, "Ada") == nil)
        #expect(screen.contains { $0.contains("deleted Ada: - delete {0, 0}") })
        expectEqual(row(screen, "Alan")?.hasPrefix("▌"), true)

        // Deleting from search results: both tables follow.
        try session.keys("/")
        try session.type("ar")
        screen = try session.wait("the results for ar") { $0.contains { $0.hasPrefix("Search: ar") } && row($0, "Barbara") != nil }
        try session.keys("Enter", "d")
        screen = try session.wait("the delete in the results") { $0.first?.contains("10 objects") == true }
        try session.keys("Escape")
        screen = try session.wait("the whole table") { $0.first?.contains("found") == false }
        #expect(row(screen, "Barbara") == nil && row(screen, "Alan") != nil)

        try session.keys("q")
        screen = try session.wait("the shell") { $0.contains { $0.hasPrefix("DONE") } }
        expectEqual(exitStatus(screen), 0)
        #expect(screen.contains { $0.hasPrefix("icanon") && !$0.hasPrefix("icanon'") }, "the terminal is back in canonical mode (grep printed icanon, not -icanon)")
        #expect(!screen.contains { $0.contains("/ search") }, "the browser's screen is gone")
    }

    @Test func redrawsOnResizeAndRestoresTheTerminalOnCtrlC() throws {
        let folder = TemporaryFolder()
        let file = folder.file("people.json", Self.people)
        let session = try Session(columns: 50, lines: 12)
        _ = try start(session, file)
        try session.tmux(["resize-window", "-t", "t", "-x", "30", "-y", "6"])
        var screen = try session.wait("a redraw at 30 columns") { lines in
            lines.count >= 6 && row(lines, "Ada").map { TerminalText.width(of: $0) == 30 && $0.dropLast().hasSuffix("36") } == true
        }
        expectEqual(screen.prefix(6).last?.contains("PgUp"), true, "the status line is the sixth line")
        try session.keys("C-c")
        screen = try session.wait("the shell") { $0.contains { $0.hasPrefix("DONE") } }
        #expect(screen.contains { $0.hasPrefix("icanon") && !$0.hasPrefix("icanon'") }, "the terminal is back in canonical mode (grep printed icanon, not -icanon)")
    }

    @Test func withoutATerminalItSaysToUseRender() {
        let result = runCLI(["browse", "/dev/null"])
        #expect(result.status == 1 && result.out == "")
        #expect(result.err.contains("browse draws on a terminal"))
    }
}
