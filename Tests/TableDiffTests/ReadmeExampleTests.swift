import Foundation
import TableDiff
import Testing

/// The README's example, run as written there: the code between the two
/// marks below is the README's (after its `import HeadlessTable`), and what it
/// prints is the output the README shows under it.
@Suite struct ReadmeExampleTests {
    @Test func theReadmeExamplePrintsWhatTheReadmeShows() throws {
        var printed = ""
        func print(_ item: Any) { printed += "\(item)\n" }

        // The README's example, from here…
        struct Item: Identifiable, Equatable, TableDiffable {
            var id: Int
            var name: String
        }

        let before = [TableSection(name: "To buy", rows: [Item(id: 1, name: "Apples"), Item(id: 2, name: "Bread")]),
                      TableSection(name: "In the basket", rows: [Item(id: 3, name: "Milk")])]
        let after = [TableSection(name: "To buy", rows: [Item(id: 2, name: "Bread"), Item(id: 4, name: "Pears")]),
                     TableSection(name: "In the basket", rows: [Item(id: 3, name: "Milk, 2 l"), Item(id: 1, name: "Apples")])]

        print(TableChangeset(from: before, to: after))
        // …to here.

        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8).components(separatedBy: "\n")
        let start = try #require(source.firstIndex { $0.hasSuffix("// The README's example, from here…") })
        let end = try #require(source.firstIndex { $0.hasSuffix("// …to here.") })
        let code = source[(start + 1)..<end].map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : $0 }
        let readme = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let shown = "```swift\nimport HeadlessTable\n\n" + code.joined(separator: "\n") + "\n```\n\n```text\n" + printed + "```\n"
        #expect(readme.contains(shown), "the README should show this example and its output:\n\(shown)")
    }
}
