import Foundation
import TableTestSupport
import Testing

/// Chromium and chromedriver, when they and Python's Selenium are here (for ServeBrowserTests).
let serveBrowserTools: (chromium: String, chromedriver: String, python: String)? = {
    let manager = FileManager.default
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/opt/homebrew/bin/chromium",
                    "/Applications/Chromium.app/Contents/MacOS/Chromium"].first(where: manager.isExecutableFile)
    let driver = ["/usr/bin/chromedriver", "/usr/local/bin/chromedriver", "/opt/homebrew/bin/chromedriver"].first(where: manager.isExecutableFile)
    guard let chromium, let driver, let python = serveBrowserPython else { return nil }
    // Selenium importable by that Python?
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = ["-c", "import selenium"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    process.waitUntilExit()
    return process.terminationStatus == 0 ? (chromium, driver, python) : nil
}()

/// The first `python3` on the PATH (the one `pip install selenium` installed into), else a usual place.
let serveBrowserPython: String? = {
    let path = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map { "\($0)/python3" } ?? []
    return (path + ["/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3"]).first(where: FileManager.default.isExecutableFile)
}()

/// `headless-table serve` in headless Chromium, driven by Selenium: the
/// script `serve-browser-test.py` (beside this file) generates a file of
/// people, serves it from a store file in two processes and checks the page
/// (the first paint after the data is read, its goal of 1 s a figure;
/// rows against `query`, the keys, a search, escaping, a delete seen by the
/// other process, the DOM's size and memory while scrolling, key-to-paint
/// latency, hostile requests). Skipped, saying so, where Chromium,
/// chromedriver or Selenium is missing: `.ci/run` installs them and runs it
/// on a million rows with the release build (`HEADLESS_TABLE_SERVE_BINARY`,
/// `HEADLESS_TABLE_SERVE_ROWS`); otherwise, with HEADLESS_TABLE_FULL_TESTS=1,
/// on 20,000 rows.
@Suite(.serialized, .enabled(if: TestScale.isFull, TestScale.integrationNote), .enabled(if: serveBrowserTools != nil, "Chromium, chromedriver or Selenium is not installed (.ci/run installs them): serve is not tested in a browser"))
struct ServeBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("serve-browser-test.py")

    @Test func aGeneratedFileServedAndDrivenInChromium() throws {
        let browser = try #require(serveBrowserTools)
        let environment = ProcessInfo.processInfo.environment
        let tool = try environment["HEADLESS_TABLE_SERVE_BINARY"].map { URL(fileURLWithPath: $0) } ?? BuiltExecutable.url("headless-table")
        let rows = environment["HEADLESS_TABLE_SERVE_ROWS"].flatMap { Int($0) }.map { min(max($0, 1_000), 10_000_000) } ?? 20_000
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser.python)
        process.arguments = [Self.script.path, "--tool", tool.path, "--rows", "\(rows)", "--folder", folder.path,
                             "--chromium", browser.chromium, "--chromedriver", browser.chromedriver]
            + (tool.path.contains("/debug/") ? [] : ["--release"])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = text.components(separatedBy: "\n")
        print("serve in Chromium, \(rows) rows:\n" + lines.filter { $0.hasPrefix("FIGURE ") || $0.hasPrefix("serve: ") }.joined(separator: "\n"))
        for failure in lines where failure.hasPrefix("FAIL: ") { Issue.record(Comment(rawValue: String(failure.dropFirst(6)))) }
        expectEqual(process.terminationStatus, 0, "the browser test exited \(process.terminationStatus):\n\(text)")
        #expect(lines.contains("checks failed: 0"), "the browser test did not finish:\n\(text)")
    }
}
