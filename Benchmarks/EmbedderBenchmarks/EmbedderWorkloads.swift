import Foundation
import HeadlessTable

/// One benchmark of an embedder: each sample times one action of one kind
/// on a ``PeopleScreen`` (`table-benchmarks --filter embed/` runs them).
public struct EmbedderWorkload {
    /// `embed/KIND-SIZE`.
    public var name: String
    public var summary: String
    /// The same kind at 10k, for a 1M workload (its median must stay within 2×).
    public var smallerCounterpart: String?
    /// Other workloads of the same run its median must stay within a
    /// factor of (`embed/diary-save-1M` against the same save in a store of
    /// one entity).
    public var targets: [(against: String, atMost: Double)] = []
    /// Samples at most.
    public var maxSamples: Int
    /// Builds the store and the screen (not timed) and returns what to time.
    public var prepare: () -> EmbedderSamples

    init(name: String, summary: String, smallerCounterpart: String?, maxSamples: Int, prepare: @escaping () -> EmbedderSamples) {
        self.name = name
        self.summary = summary
        self.smallerCounterpart = smallerCounterpart
        self.maxSamples = maxSamples
        self.prepare = prepare
    }
}

/// What a workload times: `setUp` before each sample (not timed), then `action`.
public struct EmbedderSamples {
    public var setUp: (() -> Void)?
    public var action: () -> Void
    public var counters: [String: Int]
}

/// The actions of an embedder's table of people, each kind at 1M and 10k people.
public enum EmbedderWorkloads {
    /// The search typed: each text is one keystroke's field.
    public static let script = ["m", "mü", "mün", "müna", "mün", "mü", "m", "", "ka", "kal"]
    /// Which keystrokes of the script each search kind times.
    static let searchKinds: [(kind: String, keys: [Int], summary: String)] = [
        ("search-type", [0, 1, 2, 3, 8, 9], "a search keystroke that types on (m, mü, mün, müna; a new word ka, kal)"),
        ("search-backspace", [4, 5, 6], "backspace in the search field (müna → mün → mü → m)"),
        ("search-erase", [7], "the search field erased (m → \"\": every row matches)"),
        ("search-scoped", [0, 1, 2, 3, 7, 8, 9], "a search keystroke in the scope \"40 and over\" (m, mü, mün, müna; erased; ka, kal)"),
    ]

    public static var all: [EmbedderWorkload] {
        [1_000_000, 10_000].flatMap { count in
            [firstScreen(count), moves(count)] + searchKinds.map { search(count, $0) }
                + [firstKey(count), firstKeyNewField(count), firstDelete(count), deleteAfterPause(count), laterDeletes(count), selectAll(count), restore(count)]
                + [heightsReload(count)]
        } + [restOfResults(1_000_000)] + diary + ServedLaunch.workloads
    }

    static func size(_ count: Int) -> String { count >= 1_000_000 ? "\(count / 1_000_000)M" : "\(count / 1000)k" }

    static func workload(_ kind: String, _ count: Int, _ summary: String, samples: Int, prepare: @escaping () -> EmbedderSamples) -> EmbedderWorkload {
        EmbedderWorkload(
            name: "embed/\(kind)-\(size(count))", summary: summary + " — \(count) people, public API only",
            smallerCounterpart: count >= 1_000_000 ? "embed/\(kind)-10k" : nil, maxSamples: samples, prepare: prepare)
    }

    static func context(_ count: Int) -> ObjectContext {
        do { return try People.store(count) } catch { fatalError("the benchmark's store: \(error)") }
    }

    static func screen(_ context: ObjectContext) -> PeopleScreen {
        do { return try PeopleScreen(context: context) } catch { fatalError("the benchmark's screen: \(error)") }
    }

    /// Waits (up to a minute) until the screen's search index is made, when
    /// the index answers its search.
    static func waitForSearchIndex(_ screen: PeopleScreen) {
        screen.search.waitForSearchIndex(timeout: 60)
    }

    static func run(_ body: () throws -> Void) {
        do { try body() } catch { fatalError("a benchmark action failed: \(error)") }
    }

    /// `performFetch` + `bind(to:)` + the first frame drawn. Its goal is a
    /// time (≤ 1 s at 1M), not a ratio to 10k: the fetch sorts every row.
    static func firstScreen(_ count: Int) -> EmbedderWorkload {
        var made = workload("first-screen", count, "the first screen: performFetch, bind, first frame drawn (goal at 1M: ≤ 1 s)", samples: 6) {
            let context = context(count)
            var screens: [PeopleScreen] = []
            return EmbedderSamples(
                setUp: {
                    // The last screen's background work (the indexes its
                    // fetch makes) done, then the screen let go: the next
                    // first screen competes with no earlier one, as a user's
                    // first does not.
                    for screen in screens { waitForSearchIndex(screen) }
                    screens.removeAll()
                    usleep(500_000)
                },
                action: { screens.append(Self.screen(context)) },
                counters: ["people": count])
        }
        made.smallerCounterpart = nil
        return made
    }

    /// The selection down a row, a page, End, Home — each drawn.
    static func moves(_ count: Int) -> EmbedderWorkload {
        workload("moves", count, "a selection move: down a row, down a page, End, Home (drawn), once the search index is made", samples: 200) {
            let screen = screen(context(count))
            // As a user reads the first screen: the moves are not timed
            // beside the threads making the search index (on two cores,
            // whether they shared one was luck, and the figure bimodal).
            waitForSearchIndex(screen)
            let moves: [(PeopleScreen) throws -> Void] = [
                { try $0.moveSelection(by: 1) }, { try $0.moveSelection(by: 23) }, { try $0.moveSelection(toEnd: true) },
                { try $0.moveSelection(by: -1) }, { try $0.moveSelection(toEnd: false) },
            ]
            var k = 0
            return EmbedderSamples(setUp: nil, action: {
                run { try moves[k % moves.count](screen) }
                k += 1
            }, counters: ["people": count])
        }
    }

    /// One kind of search keystroke, typed after the script's keys before it
    /// in a new search field (those not timed); the index is made (the
    /// screen waits for it once, as a user reads the first screen).
    static func search(_ count: Int, _ kind: (kind: String, keys: [Int], summary: String)) -> EmbedderWorkload {
        workload(kind.kind, count, kind.summary + ", drawn", samples: 30) {
            let screen = screen(context(count))
            waitForSearchIndex(screen)
            let scope = kind.kind == "search-scoped" ? 1 : 0
            var sample = 0
            var key = 0
            var results: [String: Int] = [:]
            run { try screen.selectScope(scope) }
            for (k, text) in script.enumerated() {
                run {
                    try screen.type(text)
                    results["first results \(k) \"\(text)\""] = screen.rowCount
                    try screen.idle(waiting: true)
                }
                results["results \(k) \"\(text)\""] = screen.rowCount
            }
            return EmbedderSamples(
                setUp: {
                    key = kind.keys[sample % kind.keys.count]
                    sample += 1
                    run {
                        try screen.newSearch()
                        try screen.selectScope(scope)
                        // Typed at a person's pace: the rest of each keystroke's results shown before the next.
                        for text in script[..<key] {
                            try screen.type(text)
                            try screen.idle(waiting: true)
                        }
                    }
                },
                action: { run { try screen.type(script[key]) } },
                counters: results.merging(["people": count, "indexReady": screen.search.isSearchIndexReady ? 1 : 0]) { a, _ in a })
        }
    }

    /// The rest of a search's results shown once they are found: the field
    /// erased (every row matches), the thread given time to find them, then
    /// the screen's idle turn adds them to the results table and draws.
    static func restOfResults(_ count: Int) -> EmbedderWorkload {
        var made = workload("search-rest", count, "the rest of an erased field's results (every row) added to the results table once found, drawn", samples: 20) {
            let screen = screen(context(count))
            waitForSearchIndex(screen)
            return EmbedderSamples(
                setUp: {
                    run {
                        try screen.newSearch()
                        try screen.type("m")
                        try screen.idle(waiting: true)
                        try screen.type("")
                    }
                    usleep(200_000)
                },
                action: { run { try screen.idle() } },
                counters: ["people": count])
        }
        made.smallerCounterpart = nil
        return made
    }

    /// One action right after the first screen, on a new screen each sample
    /// (made in the set-up, then `before` on it; the last screen let go
    /// first, once its background work is done when `settling`).
    static func onNewScreen(
        _ kind: String, _ count: Int, _ summary: String, settling: Bool,
        before: @escaping (PeopleScreen) throws -> Void = { _ in }, action: @escaping (PeopleScreen) throws -> Void
    ) -> EmbedderWorkload {
        workload(kind, count, summary + " (a new screen each sample)", samples: 6) {
            let context = context(count)
            var screen: PeopleScreen?
            return EmbedderSamples(
                setUp: {
                    if settling, let screen { waitForSearchIndex(screen) }
                    screen = nil
                    let made = Self.screen(context)
                    screen = made
                    run { try before(made) }
                },
                action: { run { if let screen { try action(screen) } } },
                counters: ["people": count])
        }
    }

    /// The first search keystroke right after the first screen, before the
    /// search index is made: the predicate, a slice of rows at a time.
    static func firstKey(_ count: Int) -> EmbedderWorkload {
        onNewScreen(
            "search-first-key", count, "the first search keystroke (m) right after the first screen, before the search index is made",
            settling: true, action: { try $0.type("m") })
    }

    /// The first search keystroke right after the first screen, the search
    /// made at that keystroke (as an app makes its search controller when
    /// the user first taps the field): before the index is made, and with
    /// records read a batch of 50 at a time. The counters: in three
    /// untimed trials, the rows the results table showed when
    /// `update(text:)` returned, the rows matching, and the trials that
    /// showed fewer than two screens (48 rows) while more matched.
    static func firstKeyNewField(_ count: Int) -> EmbedderWorkload {
        var made = onNewScreen(
            "search-first-key-new-field", count,
            "the first search keystroke (m) right after the first screen, the search made at that keystroke (before its index is made)",
            settling: true, action: { screen in
                try screen.newSearch()
                try screen.type("m")
            })
        let prepare = made.prepare
        made.prepare = {
            var counters: [String: Int] = [:]
            var short = 0
            let people = context(count)
            // "m" (a third of the names), and "yusuf" (a first name: rows near the end only).
            for (trial, text) in ["m", "m", "yusuf", "yusuf"].enumerated() {
                let screen = screen(people)
                run {
                    try screen.newSearch()
                    let start = DispatchTime.now().uptimeNanoseconds
                    try screen.type(text)
                    let shown = screen.rowCount
                    counters["trial \(trial) \(text) µs"] = Int((DispatchTime.now().uptimeNanoseconds - start) / 1000)
                    try screen.idle(waiting: true)
                    let matching = screen.rowCount
                    counters["trial \(trial) \(text) shown"] = shown
                    counters["trial \(trial) \(text) matching"] = matching
                    if shown < min(48, matching) { short += 1 }
                }
                waitForSearchIndex(screen)
            }
            do {
                let screen = screen(people)
                run { try screen.newSearch() }
                let start = DispatchTime.now().uptimeNanoseconds
                waitForSearchIndex(screen)
                counters["index made, ms"] = Int((DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
            }
            counters["trials short of two screens"] = short
            var samples = prepare()
            samples.counters.merge(counters) { a, _ in a }
            return samples
        }
        return made
    }

    /// Selecting every row, its count and a membership test, then
    /// deselecting every row — each drawn (a selection of all but some:
    /// O(1) and the window).
    static func selectAll(_ count: Int) -> EmbedderWorkload {
        workload("select-all", count, "select every row, count it, test a row, deselect every row (drawn)", samples: 200) {
            let screen = screen(context(count))
            screen.table.allowsMultipleSelection = true
            return EmbedderSamples(setUp: nil, action: {
                run {
                    try screen.binding.selectAllObjects()
                    let selected = screen.binding.numberOfSelectedObjects
                    if selected != count || !screen.binding.isObjectSelected(withID: count / 2) { fatalError("select-all: \(selected) of \(count)") }
                    screen.draw()
                    screen.binding.deselectAllObjects()
                    screen.draw()
                }
            }, counters: ["people": count])
        }
    }

    /// A reader's place restored in a later launch: a state taken from a
    /// screen scrolled to the middle with 5 rows selected, encoded as JSON,
    /// decoded and restored on a new screen over the same data (made in
    /// the set-up) and drawn.
    static func restore(_ count: Int) -> EmbedderWorkload {
        workload("restore", count, "a saved place (the middle, 5 rows selected) restored from JSON on a new screen over the same data, drawn", samples: 6) {
            let people = context(count)
            var saved = Data()
            do {
                let first = screen(people)
                first.table.allowsMultipleSelection = true
                run {
                    try first.table.setContentOffset(Double(count / 2))
                    for k in 0..<5 { try first.binding.selectObject(withID: (k * 7_919) % count) }
                    saved = try JSONEncoder().encode(first.binding.restorableState)
                }
            }
            var later: PeopleScreen?
            return EmbedderSamples(
                setUp: {
                    later = nil
                    let made = screen(people)
                    made.table.allowsMultipleSelection = true
                    later = made
                },
                action: {
                    run {
                        guard let screen = later else { return }
                        try screen.binding.restore(try JSONDecoder().decode(FetchedResultsTableBinding<Person>.RestorableState.self, from: saved))
                        screen.draw()
                    }
                },
                counters: ["people": count, "stateBytes": saved.count])
        }
    }

    /// Gives each row's height from its person (one line, or two for a name
    /// of an odd length), counting the calls.
    final class PersonHeights: TableViewDelegate {
        let controller: FetchedResultsController<Person>
        var asked = 0
        init(_ controller: FetchedResultsController<Person>) { self.controller = controller }
        func tableView(_ tableView: TableView, heightForRowAt indexPath: TablePath) -> Double? {
            asked += 1
            guard let person = try? controller.object(at: indexPath) else { return nil }
            return person.name.count % 2 == 0 ? 1 : 2
        }
    }

    /// Heights by identity: `reloadData()` of a screen whose delegate gives
    /// each row's height (automatic dimensions, an estimated row height: the
    /// rows are asked as they are shown), scrolled to the middle, then drawn
    /// — a sample fails if a reload asks any height again. The counters: the
    /// delegate's calls for the first frames (the top, then the middle), a
    /// reload, `invalidateRowHeights()` (the window's), and the reloads after
    /// it (the first asks the rows that come into the window with the
    /// estimates of the rows above it, which the invalidation let go).
    static func heightsReload(_ count: Int) -> EmbedderWorkload {
        workload("heights-reload", count, "reloadData() of a table whose delegate gives each row's height, scrolled to the middle, drawn", samples: 50) {
            let screen = screen(context(count))
            let heights = PersonHeights(screen.controller)
            var counters = ["people": count]
            run {
                screen.table.delegate = heights
                screen.table.rowHeight = TableView.automaticDimension
                screen.table.estimatedRowHeight = 1.5
                try screen.table.reloadData()
                try screen.table.setContentOffset(screen.table.contentHeight / 2)
                screen.draw()
                counters["asked: the first frames"] = heights.asked
                heights.asked = 0
                try screen.table.reloadData()
                screen.draw()
                counters["asked: reload 1"] = heights.asked
                heights.asked = 0
                try screen.table.invalidateRowHeights()
                screen.draw()
                counters["asked: invalidateRowHeights()"] = heights.asked
                heights.asked = 0
            }
            for k in 1...3 {
                run {
                    try screen.table.reloadData()
                    screen.draw()
                }
                counters["asked: reload \(k + 1)"] = heights.asked
                heights.asked = 0
            }
            return EmbedderSamples(
                setUp: nil,
                action: {
                    run {
                        try screen.table.reloadData()
                        screen.draw()
                        if heights.asked > 0 { fatalError("heights-reload: a reload asked \(heights.asked) heights again") }
                    }
                },
                counters: counters)
        }
    }

    /// The first swipe-to-delete after the fetch.
    static func firstDelete(_ count: Int) -> EmbedderWorkload {
        onNewScreen(
            "first-delete", count, "the first swipe-to-delete right after the first screen", settling: false,
            before: { try $0.moveSelection(by: 3) }, action: { try $0.deleteSelected() })
    }

    /// The first swipe-to-delete 1.5 s after the first screen (the user
    /// reads it first), the background work of the fetch still running or
    /// just done.
    static func deleteAfterPause(_ count: Int) -> EmbedderWorkload {
        onNewScreen(
            "delete-after-pause", count, "the first swipe-to-delete 1.5 s after the first screen", settling: false,
            before: { screen in
                try screen.moveSelection(by: 3)
                usleep(1_500_000)
            }, action: { try $0.deleteSelected() })
    }

    /// Swipe-to-delete after the first one, once the screen's background
    /// work is done (the first delete, timed by ``firstDelete(_:)``, runs
    /// beside it).
    static func laterDeletes(_ count: Int) -> EmbedderWorkload {
        workload("later-deletes", count, "a swipe-to-delete after the first one", samples: 100) {
            let screen = screen(context(count))
            waitForSearchIndex(screen)
            run {
                try screen.moveSelection(by: 100)
                try screen.deleteSelected()
            }
            return EmbedderSamples(setUp: nil, action: { run { try screen.deleteSelected() } }, counters: ["people": count])
        }
    }
}
