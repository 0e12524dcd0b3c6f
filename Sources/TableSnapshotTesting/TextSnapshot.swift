import Foundation
import InternalTableUtilities
// Both test frameworks are optional: a toolchain may ship either or both
// (Xcode 16 and Swift 6 toolchains have both). The assertion reports to the
// one that is running the test.
#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif

/// Compares a text with its reference file and records it as the record mode
/// says; returns the failure message, or nil when the snapshot matches.
///
/// The reference lives at
/// `<folder of the test file>/__Snapshots__/<TestFile>/<testName>.<n>.txt`, where
/// `<n>` counts the snapshots of one test from 1, or is `name` when given.
/// (`snapshotDirectory` replaces `<folder>/__Snapshots__/<TestFile>`.) The file
/// holds the text as raw UTF-8 with `\n` line ends and a final newline.
///
/// - Parameters:
///   - text: the text to compare.
///   - name: a name for the snapshot instead of its number.
///   - record: the record mode; nil for the one in effect (``SnapshotRecordMode/resolved(_:environment:)``).
///   - snapshotDirectory: the folder for references, instead of the default one.
///   - filePath: the test file's path (`#filePath`).
///   - function: the test's name (`#function`).
public func verifyTextSnapshot(
    of text: String,
    named name: String? = nil,
    record: SnapshotRecordMode? = nil,
    snapshotDirectory: String? = nil,
    filePath: String,
    function: String
) -> String? {
    let mode = SnapshotRecordMode.resolved(record)
    let testFile = URL(fileURLWithPath: filePath)
    let directory = snapshotDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        ?? testFile.deletingLastPathComponent()
            .appendingPathComponent("__Snapshots__", isDirectory: true)
            .appendingPathComponent(testFile.deletingPathExtension().lastPathComponent, isDirectory: true)
    let testName = sanitizedPathComponent(function)
    let identifier = name.map(sanitizedPathComponent)
        ?? String(_SnapshotCounter.next(for: directory.appendingPathComponent(testName).path))
    let file = directory.appendingPathComponent("\(testName).\(identifier).txt")
    let actual = text.hasSuffix("\n") ? text : text + "\n"
    let displayName = name.map { "Snapshot \"\($0)\"" } ?? "Snapshot"

    func write() -> String? {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: file, options: .atomic)
            return nil
        } catch {
            return "Could not record snapshot at \(file.path): \(error)"
        }
    }

    if mode == .all {
        if let failure = write() { return failure }
        return """
            Record mode is on. Automatically recorded snapshot: …

            open "\(file.path)"

            Turn record mode off and re-run "\(testName)" to assert against the newly-recorded snapshot
            """
    }
    guard let data = FileManager.default.contents(atPath: file.path) else {
        if mode == .never {
            return "No reference was found on disk. New snapshot was not recorded because recording is disabled (\(file.path))"
        }
        if let failure = write() { return failure }
        return """
            No reference was found on disk. Automatically recorded snapshot: …

            open "\(file.path)"

            Re-run "\(testName)" to assert against the newly-recorded snapshot.
            """
    }
    guard let reference = String(data: data, encoding: .utf8) else {
        return "The reference at \(file.path) is not UTF-8 text."
    }
    guard let diff = textSnapshotFailure(actual: actual, reference: reference) else { return nil }
    var message = "\(displayName) does not match reference."
    if mode == .failed {
        if let failure = write() { return failure }
        message += " A new snapshot was automatically recorded."
    }
    return "\(message)\n\n\(file.path)\n\n\(diff)"
}

/// The difference between a text and its reference as a unified diff of lines,
/// or nil when they are equal. A pure function: the core of every snapshot
/// assertion.
public func textSnapshotFailure(actual: String, reference: String) -> String? {
    unifiedLineDiff(from: reference, to: actual)
}

/// Asserts that a text matches its reference snapshot, in a Swift Testing test
/// (records an issue) or an XCTest test (fails the test).
///
/// ```swift
/// @Test func diaryTable() {
///     assertTextSnapshot(of: renderer.render(table))
/// }
/// ```
///
/// See ``verifyTextSnapshot(of:named:record:snapshotDirectory:filePath:function:)``
/// for where references live and how record modes work.
public func assertTextSnapshot(
    of text: String,
    named name: String? = nil,
    record: SnapshotRecordMode? = nil,
    snapshotDirectory: String? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    function: StaticString = #function,
    line: UInt = #line,
    column: UInt = #column
) {
    guard let message = verifyTextSnapshot(
        of: text, named: name, record: record, snapshotDirectory: snapshotDirectory,
        filePath: "\(filePath)", function: "\(function)")
    else { return }
    #if canImport(Testing)
    if Test.current != nil {
        Issue.record(
            Comment(rawValue: message),
            sourceLocation: SourceLocation(
                fileID: "\(fileID)", filePath: "\(filePath)", line: Int(line), column: Int(column)))
        return
    }
    #endif
    #if canImport(XCTest)
    XCTFail(message, file: filePath, line: line)
    #else
    // No test framework to report to: say it where a person will see it.
    FileHandle.standardError.write(Data("\(filePath):\(line): \(message)\n".utf8))
    #endif
}

/// A name made safe for a file: every run of characters other than letters,
/// digits and `_` becomes `-`, without `-` at either end.
public func sanitizedPathComponent(_ string: String) -> String {
    var result = ""
    var pendingDash = false
    for scalar in string.unicodeScalars {
        if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" {
            if pendingDash && !result.isEmpty { result.append("-") }
            pendingDash = false
            result.unicodeScalars.append(scalar)
        } else {
            pendingDash = true
        }
    }
    return result
}

/// Numbers the snapshots of each test from 1.
enum _SnapshotCounter {
    static let counts = _Lock<[String: Int]>([:])

    static func next(for key: String) -> Int {
        counts.withLock { counts in
            counts[key, default: 0] += 1
            return counts[key, default: 0]
        }
    }
}
