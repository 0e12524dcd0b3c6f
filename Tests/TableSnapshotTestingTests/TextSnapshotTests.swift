import Foundation
@testable import TableSnapshotTesting
import Testing

@Suite struct TextSnapshotTests {
    func temporaryFolder() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("snapshots-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func equalTextsAreNoFailure() {
        #expect(textSnapshotFailure(actual: "a\nb\n", reference: "a\nb\n") == nil)
    }

    @Test func aMismatchIsAUnifiedDiffOfLines() {
        let reference = (1...10).map { "line \($0)" }.joined(separator: "\n") + "\n"
        let actual = reference.replacingOccurrences(of: "line 5", with: "line five")
        #expect(textSnapshotFailure(actual: actual, reference: reference) == """
            @@ −2,7 +2,7 @@
            \u{2007}line 2
            \u{2007}line 3
            \u{2007}line 4
            −line 5
            +line five
            \u{2007}line 6
            \u{2007}line 7
            \u{2007}line 8
            """)
    }

    @Test func trailingSpacesAreVisibleAndHunksSeparate() {
        let reference = "a \nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
        let actual = "A \nb\nc\nd\ne\nf\ng\nh\ni\nj\nK\n"
        #expect(textSnapshotFailure(actual: actual, reference: reference) == """
            @@ −1,4 +1,4 @@
            −a ¬
            +A ¬
            \u{2007}b
            \u{2007}c
            \u{2007}d
            @@ −8,4 +8,4 @@
            \u{2007}h
            \u{2007}i
            \u{2007}j
            −k
            +K
            """)
    }

    @Test func linesAddedAtTheEndAndToAnEmptyReference() {
        #expect(textSnapshotFailure(actual: "a\nb\n", reference: "a\n") == "@@ −1,1 +1,2 @@\n\u{2007}a\n+b")
        #expect(textSnapshotFailure(actual: "x\n", reference: "") == "@@ −0,0 +1,1 @@\n+x")
    }

    /// Every line of the diff is one of the two texts' lines, marked; applying the
    /// diff's −/+ lines to the reference gives the actual text (on random texts).
    @Test func diffsReconstructTheActualText() {
        var g = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let reference = (0..<Int.random(in: 0...12, using: &g)).map { _ in ["a", "b", "c"].randomElement(using: &g)! }
            var actual = reference
            for _ in 0..<Int.random(in: 0...4, using: &g) {
                if Bool.random(using: &g), !actual.isEmpty { actual.remove(at: Int.random(in: 0..<actual.count, using: &g)) }
                else { actual.insert(["a", "b", "d"].randomElement(using: &g)!, at: Int.random(in: 0...actual.count, using: &g)) }
            }
            let edits = _editScript(reference, actual)
            #expect(edits.filter { $0.kind != .insert }.map(\.line) == reference)
            #expect(edits.filter { $0.kind != .delete }.map(\.line) == actual)
        }
    }

    @Test func aMissingReferenceIsRecordedAndFails() {
        let folder = temporaryFolder()
        let message = verifyTextSnapshot(of: "hello", record: .missing, snapshotDirectory: folder, filePath: "/x/MyTests.swift", function: "greets()")
        #expect(message?.hasPrefix("No reference was found on disk. Automatically recorded snapshot: …") == true)
        #expect(contents(folder + "/greets.1.txt") == "hello\n")
        // The reference now exists: with a name it is found and matches.
        let named = verifyTextSnapshot(of: "hi", named: "n", record: .missing, snapshotDirectory: folder, filePath: "/x/MyTests.swift", function: "greets()")
        #expect(named != nil)
        #expect(verifyTextSnapshot(of: "hi\n", named: "n", record: .never, snapshotDirectory: folder, filePath: "/x/MyTests.swift", function: "greets()") == nil)
    }

    @Test func recordModes() {
        let folder = temporaryFolder()
        func verify(_ text: String, _ mode: SnapshotRecordMode, name: String = "t") -> String? {
            verifyTextSnapshot(of: text, named: name, record: mode, snapshotDirectory: folder, filePath: "/x/T.swift", function: "modes()")
        }
        let file = folder + "/modes.t.txt"
        #expect(verify("one", .never)?.hasPrefix("No reference was found on disk. New snapshot was not recorded") == true)
        #expect(contents(file) == nil)
        #expect(verify("one", .missing) != nil)
        #expect(contents(file) == "one\n")
        #expect(verify("one", .missing) == nil)
        #expect(verify("one", .never) == nil)
        let mismatch = verify("two", .never)
        #expect(mismatch?.hasPrefix("Snapshot \"t\" does not match reference.") == true)
        #expect(mismatch?.contains("−one\n+two") == true)
        #expect(contents(file) == "one\n")
        #expect(verify("two", .failed)?.contains("A new snapshot was automatically recorded.") == true)
        #expect(contents(file) == "two\n")
        #expect(verify("three", .all)?.hasPrefix("Record mode is on.") == true)
        #expect(contents(file) == "three\n")
    }

    @Test func theModeComesFromTheArgumentThenTheScopeThenTheEnvironment() {
        let environment = [SnapshotRecordMode.environmentVariable: "failed"]
        #expect(SnapshotRecordMode.resolved(nil, environment: [:]) == .missing)
        #expect(SnapshotRecordMode.resolved(nil, environment: environment) == .failed)
        #expect(SnapshotRecordMode.resolved(nil, environment: [SnapshotRecordMode.environmentVariable: "bogus"]) == .missing)
        withSnapshotRecording(.never) {
            #expect(SnapshotRecordMode.resolved(nil, environment: environment) == .never)
            #expect(SnapshotRecordMode.resolved(.all, environment: environment) == .all)
        }
    }

    @Test func snapshotsAreNumberedPerTestAndNamesAreSanitized() {
        let folder = temporaryFolder()
        for text in ["a", "b"] {
            _ = verifyTextSnapshot(of: text, record: .missing, snapshotDirectory: folder, filePath: "/x/T.swift", function: "counts()")
        }
        #expect(contents(folder + "/counts.1.txt") == "a\n")
        #expect(contents(folder + "/counts.2.txt") == "b\n")
        #expect(sanitizedPathComponent("test with spaces & (parens)") == "test-with-spaces-parens")
        #expect(sanitizedPathComponent("renders(width:)") == "renders-width")
        #expect(sanitizedPathComponent("counts(_:)") == "counts-_")   // as swift-snapshot-testing's \W+ rule
    }

    @Test func theDefaultFolderSitsNextToTheTestFile() {
        let folder = temporaryFolder()
        let testFile = folder + "/Tests/RendererTests.swift"
        _ = verifyTextSnapshot(of: "x", named: "n", record: .missing, filePath: testFile, function: "draws()")
        #expect(contents(folder + "/Tests/__Snapshots__/RendererTests/draws.n.txt") == "x\n")
    }
}
