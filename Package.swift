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
        .library(name: "Records", targets: ["Records"]),
        .library(name: "PredicateFormat", targets: ["PredicateFormat"]),
        .library(name: "RecordStore", targets: ["RecordStore"]),
        .library(name: "FetchedResults", targets: ["FetchedResults"]),
        .library(name: "HeadlessTableView", targets: ["HeadlessTableView"]),
        .library(name: "TableBindings", targets: ["TableBindings"]),
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
        // UIKit's batch-update rules on a plain value model, and snapshots.
        .target(name: "TableDiff", dependencies: ["InternalTableUtilities"]),
        // Records: `Record`, `RecordValue`, `DynamicObject`, JSON (and its streaming
        // reader) and the binary form the store's journal writes.
        .target(name: "Records", dependencies: ["InternalTableUtilities"]),
        // The predicate format language over records (as NSPredicate lives in Foundation).
        .target(name: "PredicateFormat", dependencies: ["Records", "InternalTableUtilities"]),
        // The store: the model, the store and its journal file (indexes kept in
        // it, records read as they are needed), contexts, merge policies,
        // relationships, and sorting (the store keeps its indexes in order).
        .target(name: "RecordStore", dependencies: ["Records", "PredicateFormat", "TableDiff", "InternalTableUtilities"]),
        // The query over the store: fetch requests, a context's fetches, the
        // fetched results controller and the search index. Re-exports RecordStore.
        .target(name: "FetchedResults", dependencies: ["RecordStore", "Records", "PredicateFormat", "TableDiff", "InternalTableUtilities"]),
        // The table without the store: the table view, reuse, layout, rendering and
        // the diffable data source.
        .target(name: "HeadlessTableView", dependencies: ["TableDiff", "InternalTableUtilities"]),
        // Tables bound to fetched results controllers, and search.
        .target(name: "TableBindings", dependencies: ["HeadlessTableView", "FetchedResults", "Records", "PredicateFormat", "TableDiff", "InternalTableUtilities"]),
        // The umbrella: `import HeadlessTable` re-exports every module above.
        .target(name: "HeadlessTable", dependencies: ["TableDiff", "Records", "PredicateFormat", "RecordStore", "FetchedResults", "HeadlessTableView", "TableBindings"]),
        // Text snapshots for XCTest and Swift Testing.
        .target(name: "TableSnapshotTesting", dependencies: ["InternalTableUtilities"]),
        // The seeds' photo diary: the tool's demo plays its story, and so does the photo-diary example.
        .target(name: "PhotoDiary", dependencies: ["HeadlessTable"]),
        // The command-line tool's commands, as a library: tests and benchmarks call them in-process.
        .target(name: "HeadlessTableTool", dependencies: ["HeadlessTable", "PhotoDiary", "ToolArguments"], packageAccess: false),
        // The command-line tool: a few lines that run HeadlessTableTool.
        .executableTarget(name: "headless-table", dependencies: ["HeadlessTableTool"]),
        // An embedder's workloads, written from the README and the docs: the
        // HeadlessTable product only, compiled without `package` access (as a
        // program outside the package is). table-benchmarks runs them.
        .target(name: "EmbedderBenchmarks", dependencies: ["HeadlessTable"], path: "Benchmarks/EmbedderBenchmarks", packageAccess: false),
        // `swift run -c release table-benchmarks`
        .executableTarget(
            name: "table-benchmarks",
            dependencies: ["HeadlessTable", "HeadlessTableTool", "InternalTableUtilities", "ToolArguments", "EmbedderBenchmarks"],
            path: "Benchmarks/TableBenchmarks"
        ),
        .executableTarget(name: "DiffBasics", dependencies: ["HeadlessTable"], path: "Examples/DiffBasics"),
        // The seeds' apps.
        .executableTarget(name: "photo-diary", dependencies: ["PhotoDiary"], path: "Examples/PhotoDiary/App"),
        .executableTarget(name: "to-do", dependencies: ["HeadlessTable"], path: "Examples/ToDo"),
        .executableTarget(name: "groceries", dependencies: ["HeadlessTable"], path: "Examples/Groceries"),
        .executableTarget(name: "names", dependencies: ["HeadlessTable"], path: "Examples/Names", resources: [.copy("names.txt")]),
        .executableTarget(name: "contacts", dependencies: ["HeadlessTable"], path: "Examples/Contacts"),
        .target(name: "DirectoryStore", dependencies: ["RecordStore", "Records"], path: "Examples/DirectoryStore/Persistence"),
        .executableTarget(name: "directory-store", dependencies: ["DirectoryStore", "FetchedResults", "Records", "TableDiff"], path: "Examples/DirectoryStore/App"),

        // The one test-support module: seeded generators, the independent UIKit
        // oracle, the records the tests share, fixtures and temporary folders.
        .target(
            name: "TableTestSupport",
            dependencies: ["TableDiff", "Records", "PredicateFormat", "FetchedResults", "HeadlessTableView", "InternalTableUtilities"],
            path: "Tests/TableTestSupport"),
        // Saves into a store forever, to be killed mid-save by the crash-safety test.
        .executableTarget(name: "store-crash-writer", dependencies: ["TableTestSupport"], path: "Tests/StoreCrashWriter"),

        // A test target per module: `swift test` runs them (unit and property
        // tests; property tests run their full case counts with
        // HEADLESS_TABLE_FULL_TESTS=1, as CI does).
        .testTarget(name: "InternalTableUtilitiesTests", dependencies: ["InternalTableUtilities", "TableTestSupport"]),
        .testTarget(
            name: "TableDiffTests",
            dependencies: ["TableDiff", "TableSnapshotTesting", "TableTestSupport"],
            exclude: ["__Snapshots__"]),
        .testTarget(name: "RecordsTests", dependencies: ["Records", "TableTestSupport"]),
        .testTarget(
            name: "PredicateFormatTests",
            dependencies: ["PredicateFormat", "Records", "InternalTableUtilities", "TableSnapshotTesting", "TableTestSupport"],
            exclude: ["__Snapshots__"]),
        .testTarget(
            name: "RecordStoreTests",
            dependencies: ["RecordStore", "FetchedResults", "Records", "PredicateFormat", "TableDiff", "InternalTableUtilities", "TableTestSupport"]),
        .testTarget(
            name: "FetchedResultsTests",
            dependencies: ["FetchedResults", "RecordStore", "Records", "PredicateFormat", "TableDiff", "InternalTableUtilities", "TableTestSupport", "TableSnapshotTesting"]),
        .testTarget(
            name: "HeadlessTableViewTests",
            dependencies: ["HeadlessTableView", "TableDiff", "TableTestSupport", "TableSnapshotTesting"],
            exclude: ["__Snapshots__"]),
        .testTarget(
            name: "TableBindingsTests",
            dependencies: ["TableBindings", "HeadlessTable", "TableTestSupport", "TableSnapshotTesting"],
            exclude: ["__Snapshots__"]),
        .testTarget(name: "TableSnapshotTestingTests", dependencies: ["TableSnapshotTesting"]),
        .testTarget(
            name: "HeadlessTableToolTests",
            dependencies: ["HeadlessTableTool", "HeadlessTable", "InternalTableUtilities", "TableSnapshotTesting", "TableTestSupport", "ToolArguments"],
            exclude: ["__Snapshots__"]),
        .testTarget(name: "ExamplesTests", dependencies: ["DirectoryStore", "FetchedResults", "Records", "TableDiff", "TableTestSupport"]),
        // Process-level and long tests — processes killed mid-save, two
        // processes on one file, the terminal through tmux, generated files of
        // a million rows, every example and the demo run as processes — as
        // swift-nio keeps its crash tester apart: skipped by a plain `swift
        // test`, run by `.ci/run` (HEADLESS_TABLE_FULL_TESTS=1).
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "HeadlessTableTool", "HeadlessTable", "TableTestSupport", "TableSnapshotTesting", "ToolArguments", "InternalTableUtilities",
                "headless-table", "store-crash-writer", "photo-diary", "to-do", "groceries", "names", "contacts", "DiffBasics", "directory-store",
            ],
            exclude: ["__Snapshots__", "serve-browser-test.py"]),
    ],
    swiftLanguageModes: [.v6]
)
