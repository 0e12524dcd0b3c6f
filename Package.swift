// swift-tools-version: 6.0
//
// HeadlessTable — the data side of a table view, without the view.
// Foundation only: this package declares no package dependency.

import PackageDescription

let package = Package(
    name: "HeadlessTable",
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6), .visionOS(.v1)],
    products: [
        .library(name: "HeadlessTable", targets: ["HeadlessTable"]),
        .library(name: "TableDiff", targets: ["TableDiff"]),
        .library(name: "FetchedResults", targets: ["FetchedResults"]),
        .library(name: "TableSnapshotTesting", targets: ["TableSnapshotTesting"]),
        .executable(name: "headless-table", targets: ["headless-table"]),
        .executable(name: "table-benchmarks", targets: ["table-benchmarks"]),
        .executable(name: "diff-basics", targets: ["DiffBasics"]),
    ],
    targets: [
        // Internals the layers share (a lock that needs no newer OS, a Fenwick tree).
        // Not a product: nothing outside the package imports it.
        .target(name: "InternalTableUtilities"),
        // The command-line parser the tool and the benchmarks share: commands
        // declare their arguments once; parsing, usage and help come from that.
        .target(name: "ToolArguments"),
        // The diff: identities, the linear-time sectioned diff, staged changesets,
        // and UIKit's batch-update rules on a plain value model. Standard library only
        // (and the shared internals).
        .target(name: "TableDiff", dependencies: ["InternalTableUtilities"]),
        // Records, the embedded store, fetch requests and the fetched results controller.
        .target(name: "FetchedResults", dependencies: ["TableDiff", "InternalTableUtilities"]),
        // The table view, reuse, layout and rendering; re-exports the modules above.
        .target(name: "HeadlessTable", dependencies: ["TableDiff", "FetchedResults", "InternalTableUtilities"]),
        // Text snapshots for XCTest and Swift Testing.
        .target(name: "TableSnapshotTesting", dependencies: ["HeadlessTable", "InternalTableUtilities"]),
        // The command-line tool's commands, as a library: tests and benchmarks call them in-process.
        .target(name: "HeadlessTableTool", dependencies: ["HeadlessTable", "PhotoDiary", "InternalTableUtilities", "ToolArguments"]),
        // The command-line tool: a few lines that run HeadlessTableTool.
        .executableTarget(name: "headless-table", dependencies: ["HeadlessTableTool"]),
        // `swift run -c release table-benchmarks`
        .executableTarget(
            name: "table-benchmarks",
            dependencies: ["HeadlessTable", "HeadlessTableTool", "InternalTableUtilities", "ToolArguments"],
            path: "Benchmarks/TableBenchmarks"
        ),
        .executableTarget(name: "DiffBasics", dependencies: ["HeadlessTable"], path: "Examples/DiffBasics"),
        // The seeds' apps. The photo diary's code is a library: the tool's demo plays its story too.
        .target(name: "PhotoDiary", dependencies: ["HeadlessTable"], path: "Examples/PhotoDiary/Diary"),
        .executableTarget(name: "photo-diary", dependencies: ["PhotoDiary"], path: "Examples/PhotoDiary/App"),
        .executableTarget(name: "to-do", dependencies: ["HeadlessTable"], path: "Examples/ToDo"),
        .executableTarget(name: "groceries", dependencies: ["HeadlessTable"], path: "Examples/Groceries"),
        .executableTarget(name: "names", dependencies: ["HeadlessTable"], path: "Examples/Names", resources: [.copy("names.txt")]),
        .executableTarget(name: "contacts", dependencies: ["HeadlessTable"], path: "Examples/Contacts"),
        .target(name: "DirectoryStore", dependencies: ["FetchedResults"], path: "Examples/DirectoryStore/Persistence"),
        .executableTarget(name: "directory-store", dependencies: ["DirectoryStore"], path: "Examples/DirectoryStore/App"),

        // Shared by the test targets: seeded generators and the independent UIKit oracle.
        .target(name: "TableTestSupport", dependencies: ["TableDiff", "FetchedResults", "InternalTableUtilities"], path: "Tests/TableTestSupport"),
        // Saves into a store forever, to be killed mid-save by the crash-safety test.
        .executableTarget(name: "store-crash-writer", dependencies: ["TableTestSupport"], path: "Tests/StoreCrashWriter"),
        .testTarget(
            name: "TableDiffTests",
            dependencies: ["TableDiff", "TableSnapshotTesting", "TableTestSupport"],
            exclude: ["__Snapshots__"]
        ),
        .testTarget(
            name: "FetchedResultsTests",
            dependencies: ["FetchedResults", "TableTestSupport", "TableSnapshotTesting", "InternalTableUtilities", "store-crash-writer"],
            exclude: ["__Snapshots__"]
        ),
        .testTarget(
            name: "HeadlessTableTests",
            dependencies: ["HeadlessTable", "TableTestSupport", "TableSnapshotTesting"],
            exclude: ["__Snapshots__"]
        ),
        .testTarget(
            name: "HeadlessTableCLITests",
            dependencies: ["HeadlessTableTool", "headless-table", "HeadlessTable", "TableSnapshotTesting", "TableTestSupport", "InternalTableUtilities", "ToolArguments"],
            exclude: ["__Snapshots__"]
        ),
        .testTarget(name: "TableSnapshotTestingTests", dependencies: ["TableSnapshotTesting"]),
        .testTarget(
            name: "ExamplesTests",
            dependencies: ["TableSnapshotTesting", "TableTestSupport", "headless-table", "photo-diary", "to-do", "groceries", "names", "contacts", "DiffBasics", "directory-store", "DirectoryStore"],
            exclude: ["__Snapshots__"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
