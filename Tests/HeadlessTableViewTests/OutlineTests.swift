import Foundation
import HeadlessTableView
import TableDiff
import TableSnapshotTesting
import TableTestSupport
import Testing

/// An independent model of an outline: parents, children and expansion in
/// dictionaries, walked naively.
struct OutlineModel: Equatable {
    var roots: [Int] = []
    var children: [Int: [Int]] = [:]
    var parent: [Int: Int] = [:]
    var expanded: Set<Int> = []

    var all: Set<Int> { Set(children.keys) }

    mutating func add(_ items: [Int], under parent: Int?, at index: Int? = nil) {
        for item in items {
            children[item] = []
            if let parent { self.parent[item] = parent }
        }
        if let parent {
            children[parent]!.insert(contentsOf: items, at: index ?? children[parent]!.count)
        } else {
            roots.insert(contentsOf: items, at: index ?? roots.count)
        }
    }

    mutating func delete(_ item: Int) {
        guard children[item] != nil else { return }
        if let p = parent[item] { children[p]!.removeAll { $0 == item } } else { roots.removeAll { $0 == item } }
        var stack = [item]
        while let node = stack.popLast() {
            stack += children[node]!
            children[node] = nil
            parent[node] = nil
            expanded.remove(node)
        }
    }

    func walk(_ nodes: [Int], all: Bool) -> [Int] {
        nodes.flatMap { [$0] + (all || expanded.contains($0) ? walk(children[$0]!, all: all) : []) }
    }
    var items: [Int] { walk(roots, all: true) }
    var visible: [Int] { walk(roots, all: false) }
    func level(_ item: Int) -> Int { parent[item].map { level($0) + 1 } ?? 0 }
    func isVisible(_ item: Int) -> Bool { parent[item].map { expanded.contains($0) && isVisible($0) } ?? true }
    func siblings(of item: Int) -> [Int] { parent[item].map { children[$0]! } ?? roots }

    /// The model of a section snapshot (through its public questions only).
    init(_ snapshot: TableSectionSnapshot<Int>) throws {
        for item in snapshot.items {
            try add([item], under: snapshot.parent(of: item))
            if snapshot.isExpanded(item) { expanded.insert(item) }
        }
    }
    init() {}
}

@Suite struct OutlineTests {
    /// Every way a section snapshot differs from the model.
    static func problems(_ snapshot: TableSectionSnapshot<Int>, _ model: OutlineModel) -> [String] {
        var problems: [String] = []
        if snapshot.items != model.items { problems.append("items \(snapshot.items), expected \(model.items)") }
        if snapshot.visibleItems != model.visible { problems.append("visible \(snapshot.visibleItems), expected \(model.visible)") }
        if snapshot.rootItems != model.roots { problems.append("roots \(snapshot.rootItems), expected \(model.roots)") }
        if snapshot.count != model.children.count || snapshot.visibleCount != model.visible.count { problems.append("counts") }
        let items = model.items, visible = model.visible
        for (index, item) in items.enumerated() {
            if snapshot.index(of: item) != index { problems.append("index of \(item)") }
            if (try? snapshot.level(of: item)) != model.level(item) { problems.append("level of \(item)") }
            if (try? snapshot.parent(of: item)) != model.parent[item] { problems.append("parent of \(item)") }
            if (try? snapshot.children(of: item)) != model.children[item] { problems.append("children of \(item)") }
            if snapshot.isExpanded(item) != model.expanded.contains(item) { problems.append("expansion of \(item)") }
            if snapshot.isVisible(item) != model.isVisible(item) { problems.append("visibility of \(item)") }
            if snapshot.visibleIndex(of: item) != visible.firstIndex(of: item) { problems.append("visible index of \(item)") }
        }
        for (index, item) in visible.enumerated() where snapshot.visibleItem(at: index) != item { problems.append("visible item \(index)") }
        if snapshot.visibleItem(at: visible.count) != nil || snapshot.visibleItem(at: -1) != nil { problems.append("a visible item past the end") }
        if snapshot.contains(-5) || snapshot.index(of: -5) != nil || snapshot.isVisible(-5) { problems.append("an unknown item found") }
        return problems
    }

    /// Random appends, inserts, deletes, grafts, expands and collapses, with
    /// misuses among them: each snapshot agrees with the model after every
    /// step — one that keeps its order (expanding and collapsing through the
    /// counted visible rows), one that does not — and a refused call throws
    /// and changes nothing.
    @Test func sectionSnapshotsAgreeWithATreeModel() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        var steps = 0, refusals = 0, shownOrHidden = 0   // rows shown or hidden by the kept snapshot
        let rounds = TestScale.cases(20, full: 40)
        for round in 0..<rounds {
            var model = OutlineModel()
            var plain = TableSectionSnapshot<Int>()   // the order dropped by every change
            var kept = TableSectionSnapshot<Int>()    // the order kept (rebuilt after each change of the tree)
            var next = 0
            func fresh(_ n: Int) -> [Int] { defer { next += n }; return Array(next..<next + n) }
            for step in 0..<60 {
                let context = "seed \(seed), round \(round), step \(step)"
                let existing = model.items
                let pick = { (g: inout SeededGenerator) -> Int in existing.isEmpty ? -1 : existing[g.int(0..<existing.count)] }
                let before = (plain, kept)
                var refused = false, misuse = false
                func run(_ body: (inout TableSectionSnapshot<Int>) throws -> Void) {
                    do {
                        try body(&plain)
                        try body(&kept)
                    } catch {
                        refused = true
                    }
                }
                switch g.int(0..<10) {
                case 0, 1:
                    let parent: Int? = existing.isEmpty || g.chance(0.3) ? nil : pick(&g)
                    let items = fresh(g.int(1...4))
                    run { try $0.append(items, to: parent) }
                    model.add(items, under: parent)
                case 2 where !existing.isEmpty:
                    let sibling = pick(&g), items = fresh(g.int(1...3)), after = g.chance(0.5)
                    run { after ? try $0.insert(items, after: sibling) : try $0.insert(items, before: sibling) }
                    let index = model.siblings(of: sibling).firstIndex(of: sibling)! + (after ? 1 : 0)
                    model.add(items, under: model.parent[sibling], at: index)
                case 3 where !existing.isEmpty:
                    let doomed = (0..<g.int(1...2)).map { _ in pick(&g) }
                    run { try $0.delete(doomed) }
                    for item in doomed { model.delete(item) }
                case 4 where !existing.isEmpty, 5 where !existing.isEmpty, 6 where !existing.isEmpty:
                    let items = (0..<g.int(1...3)).map { _ in pick(&g) }
                    if g.chance(0.6) {
                        // The kept snapshot says which rows showed.
                        for item in items {
                            let was = model
                            model.expanded.insert(item)
                            let change = kept.setExpanded(item, true)
                            let added = model.visible.count - was.visible.count
                            expectEqual(change.map { [$0.row, $0.count] }, (added > 0 ? [was.visible.firstIndex(of: item)!, added] : nil), "\(context): expanding \(item)")
                            shownOrHidden += added
                        }
                        try plain.expand(items)
                    } else {
                        for item in items {
                            let was = model
                            model.expanded.remove(item)
                            let row = kept.setExpanded(item, false)
                            let removed = was.visible.count - model.visible.count
                            expectEqual(row.map { [$0.row, $0.count] }, (removed > 0 ? [was.visible.firstIndex(of: item)!, removed] : nil), "\(context): collapsing \(item)")
                            shownOrHidden += removed
                        }
                        try plain.collapse(items)
                    }
                case 7 where !existing.isEmpty:
                    // A subtree copied out and grafted back elsewhere under new names.
                    let item = pick(&g), including = g.chance(0.5)
                    let part = try plain.snapshot(of: item, includingParent: including)
                    try expectEqual(OutlineModel(part).items, (including ? [item] : []) + model.walk(model.children[item]!, all: true), "\(context)")
                    var renamed = TableSectionSnapshot<Int>()
                    let offset = next
                    for old in part.items {
                        try renamed.append([old + offset], to: try part.parent(of: old).map { $0 + offset })
                        if part.isExpanded(old) { try renamed.expand([old + offset]) }
                    }
                    let target: Int? = g.chance(0.5) ? pick(&g) : nil
                    run { try $0.append(renamed, to: target) }
                    let graft = try OutlineModel(renamed)
                    model.add(graft.roots, under: target)
                    for (node, kids) in graft.children { model.children[node] = kids }
                    for (node, p) in graft.parent { model.parent[node] = p }
                    model.expanded.formUnion(graft.expanded)
                    next = offset + (part.items.max() ?? 0) + 1
                case 8 where !existing.isEmpty:
                    // The children of an item replaced by new ones.
                    let item = pick(&g)
                    var children = TableSectionSnapshot<Int>()
                    let items = fresh(g.int(0...3))
                    try children.append(items)
                    if let first = items.first, g.chance(0.5) { try children.append(fresh(2), to: first); try children.expand([first]) }
                    run { try $0.replace(childrenOf: item, using: children) }
                    for child in model.children[item]! { model.delete(child) }
                    let graft = try OutlineModel(children)
                    model.add(graft.roots, under: item)
                    for (node, kids) in graft.children { model.children[node] = kids }
                    for (node, p) in graft.parent { model.parent[node] = p }
                    model.expanded.formUnion(graft.expanded)
                default:
                    // A misuse: a duplicate, an unknown item or parent.
                    let known = existing.isEmpty ? nil : pick(&g)
                    let failure: TableSectionSnapshotError<Int>?
                    switch (g.int(0..<6), known) {
                    case (0, let known?): failure = Self.error { try plain.append([next, known]) }
                    case (1, _): failure = Self.error { try plain.append([next], to: -7) }
                    case (2, _): failure = Self.error { try plain.delete([-7] + (known.map { [$0] } ?? [])) }
                    case (3, _): failure = Self.error { try plain.insert([next], before: -7) }
                    case (4, let known?): failure = Self.error { try plain.insert([next, next], after: known) }
                    default: failure = Self.error { try plain.expand([-7]) }
                    }
                    #expect(failure != nil, "\(context): a misuse must throw")
                    refused = true
                    misuse = true
                }
                if refused {
                    if !misuse {
                        Issue.record("\(context): a call that UIKit takes was refused")
                        return
                    }
                    refusals += 1
                    #expect(plain == before.0 && plain.items == before.0.items, "\(context): a refused call changed the snapshot")
                    plain = before.0
                    kept = before.1
                    continue
                }
                kept.prepareOrder()
                let problems = Self.problems(plain, model) + Self.problems(kept, model).map { "order kept: " + $0 }
                #expect(problems.isEmpty, "\(context): \(problems.prefix(4))")
                if !problems.isEmpty { return }
                expectEqual(plain, kept)
                steps += 1
            }
        }
        // (At least 1,500 steps, 100 refusals and 150 rows shown or hidden in 40 rounds.)
        #expect(steps > 1_500 * rounds / 40 && refusals > 100 * rounds / 40 && shownOrHidden > 150 * rounds / 40,
                "\(steps) steps, \(refusals) refusals, \(shownOrHidden) rows shown")
    }

    static func error(_ body: () throws -> Void) -> TableSectionSnapshotError<Int>? {
        do {
            try body()
            return nil
        } catch {
            return error as? TableSectionSnapshotError<Int>
        }
    }

    /// Each misuse names its items in UIKit's words; the snapshot stays.
    @Test func misusesThrowTypedErrorsAndChangeNothing() throws {
        var outline = TableSectionSnapshot<String>()
        try outline.append(["Fruit", "Vegetables"])
        try outline.append(["Apple", "Pear"], to: "Fruit")
        try outline.expand(["Fruit"])
        let before = outline
        let cases: [(TableSectionSnapshotError<String>, String, (inout TableSectionSnapshot<String>) throws -> Void)] = [
            (.duplicateItems(["Apple"]), "Supplied item identifiers are not unique. Duplicate identifiers: Apple", { try $0.append(["Kiwi", "Apple"]) }),
            (.duplicateItems(["Kiwi"]), "Supplied item identifiers are not unique. Duplicate identifiers: Kiwi", { try $0.insert(["Kiwi", "Kiwi"], before: "Pear") }),
            (.parentNotFound("Nuts"), "Invalid parent item identifier specified. Parent item identifier not found in section snapshot: Nuts", { try $0.append(["Kiwi"], to: "Nuts") }),
            (.itemNotFound(["Nuts"]), "Invalid item identifiers: not in the section snapshot: Nuts", { try $0.insert(["Kiwi"], after: "Nuts") }),
            (.itemNotFound(["Nuts", "Figs"]), "Invalid item identifiers: not in the section snapshot: Nuts, Figs", { try $0.delete(["Apple", "Nuts", "Figs"]) }),
            (.itemNotFound(["Nuts"]), "Invalid item identifiers: not in the section snapshot: Nuts", { try $0.expand(["Fruit", "Nuts"]) }),
            (.itemNotFound(["Nuts"]), "Invalid item identifiers: not in the section snapshot: Nuts", { try $0.collapse(["Nuts"]) }),
            (.itemNotFound(["Nuts"]), "Invalid item identifiers: not in the section snapshot: Nuts", { _ = try $0.level(of: "Nuts") }),
            (.itemNotFound(["Nuts"]), "Invalid item identifiers: not in the section snapshot: Nuts", { _ = try $0.snapshot(of: "Nuts") }),
            (.duplicateItems(["Fruit"]), "Supplied item identifiers are not unique. Duplicate identifiers: Fruit", {
                var other = TableSectionSnapshot<String>()
                try other.append(["Fruit"])
                try $0.replace(childrenOf: "Vegetables", using: other)
            }),
        ]
        for (expected, words, body) in cases {
            var copy = outline
            expectThrows(expected) { try body(&copy) }
            expectEqual(expected.description, words)
            #expect(copy == before && copy.description == before.description)
        }
        expectEqual(outline.description, """
            * - Fruit
            *     Apple
            *     Pear
            *   Vegetables
            """)
    }
}

// MARK: - The data source

/// A table fed by a diffable data source with a flat section and an outline.
private final class OutlineScreen {
    final class Recorder: TableRenderer {
        var updates: [TableUpdate] = []
        func display(_ frame: TableFrame) {}
        func display(_ update: TableUpdate, from old: TableFrame, to new: TableFrame) { updates.append(update) }
    }
    let table: TableView
    let recorder = Recorder()
    var dataSource: TableViewDiffableDataSource<String, Int>!
    var made = 0

    init(viewport: Double) throws {
        table = TableView(viewportHeight: viewport)
        table.rowHeight = 1
        table.sectionHeaderHeight = 1
        table.sectionFooterHeight = 0
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        dataSource = try TableViewDiffableDataSource(tableView: table) { [unowned self] table, indexPath, item in
            made += 1
            let cell = try table.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            cell.text = "Item \(item)"
            return cell
        }
        dataSource.headerTitleProvider = { section, _ in section }
        table.renderer = recorder
    }

    /// What the table shows, as the oracle's table.
    func shown() -> Table {
        (0..<table.numberOfSections).map { s in
            TableSection(name: dataSource.sectionIdentifier(for: s)!, rows: (0..<table.numberOfRows(inSection: s)).map { Item(id: dataSource.itemIdentifier(for: TablePath(row: $0, section: s))!) })
        }
    }
}

extension OutlineTests {
    /// Random expands, collapses (by the data source and by taps) and applied
    /// outlines: each batch the table shows is replayed by the UIKit oracle
    /// onto the rows before it and gives the rows after; the rows are the
    /// model's visible items, and the cells in the window show their level
    /// and disclosure state.
    @Test func expandingAndCollapsingSendBatchesUIKitAccepts() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        var batches = 0
        for round in 0..<12 {
            let screen = try OutlineScreen(viewport: Double(g.int(5...40)))
            let dataSource = screen.dataSource!
            var flat = TableSnapshot<String, Int>()
            try flat.appendSections(["flat"])
            try flat.appendItems(Array(10_000..<10_000 + g.int(0...5)))
            try dataSource.apply(flat)
            // A random tree of up to 60 items, some expanded.
            var model = OutlineModel()
            var outline = TableSectionSnapshot<Int>()
            for id in 0..<g.int(1...60) {
                let parent: Int? = id == 0 || g.chance(0.3) ? nil : g.int(0..<id)
                try outline.append([id], to: parent)
                model.add([id], under: parent)
                if g.chance(0.4) { try outline.expand([id]); model.expanded.insert(id) }
            }
            let handlers = Handlers()
            dataSource.sectionSnapshotHandlers.willExpandItem = { handlers.events.append("will expand \($0)") }
            dataSource.sectionSnapshotHandlers.shouldCollapseItem = { !handlers.locked.contains($0) }
            try dataSource.apply(outline, to: "tree")
            for step in 0..<25 {
                let context = "seed \(seed), round \(round), step \(step)"
                let old = screen.shown()
                screen.recorder.updates = []
                let items = model.items
                let item = items[g.int(0..<items.count)]
                switch g.int(0..<5) {
                case 0:
                    try dataSource.expand([item], animatingDifferences: g.chance(0.5))
                    model.expanded.insert(item)
                case 1:
                    try dataSource.collapse([item])
                    model.expanded.remove(item)
                case 2, 3:
                    // A tap on a visible row: a parent toggles (unless locked), a leaf is selected.
                    guard let path = dataSource.indexPath(for: item) else { continue }
                    if g.chance(0.2) { handlers.locked.insert(item) }
                    handlers.events = []
                    let wasSelected = screen.table.indexPathsForSelectedRows.contains(path)
                    try screen.table.tapRow(at: path)
                    let isParent = !model.children[item]!.isEmpty
                    if isParent {
                        expectEqual(screen.table.indexPathsForSelectedRows.contains(path), wasSelected, "\(context): a parent's tap does not select it")
                    }
                    if isParent, model.expanded.contains(item) {
                        if !handlers.locked.contains(item) { model.expanded.remove(item) }
                    } else if isParent {
                        model.expanded.insert(item)
                        expectEqual(handlers.events, ["will expand \(item)"], "\(context)")
                    } else {
                        expectEqual(screen.table.indexPathForSelectedRow, path, "\(context): a leaf's tap selects it")
                    }
                default:
                    // An outline applied: a changed tree, diffed.
                    var changed = dataSource.snapshot(for: "tree")
                    let fresh = 1_000 + round * 100 + step
                    try changed.append([fresh], to: g.chance(0.5) ? item : nil)
                    model = try OutlineModel(changed)
                    try dataSource.apply(changed, to: "tree", animatingDifferences: true)
                }
                let new = screen.shown()
                expectEqual(new.map(\.name), ["flat", "tree"], "\(context)")
                expectEqual(new.last!.rows.map(\.id), model.visible, "\(context): the rows are the visible items")
                var replayed = old
                for update in screen.recorder.updates {
                    switch UIKitOracle.replay(update.batch, displayed: replayed, data: new) {
                    case .failure(let refusal):
                        Issue.record("\(context): UIKit refuses \(update.batch.logLines().joined(separator: "; ")): \(refusal)")
                        return
                    case .success(let result):
                        replayed = result
                    }
                    batches += 1
                }
                expectEqual(replayed, new, "\(context): the batches lead to the rows shown")
                for path in screen.table.indexPathsForVisibleRows {
                    let item = try #require(dataSource.itemIdentifier(for: path))
                    expectEqual(dataSource.indexPath(for: item), path, "\(context)")
                    let outline = screen.table.currentFrame.elements.first { $0.kind == .row(path) }?.cell?.outline
                    if path.section == 0 {
                        #expect(outline == nil, "\(context)")
                        continue
                    }
                    let disclosure: TableFrame.Outline.Disclosure =
                        model.children[item]!.isEmpty ? .none : model.expanded.contains(item) ? .expanded : .collapsed
                    expectEqual(outline, TableFrame.Outline(level: model.level(item), disclosure: disclosure), "\(context): row \(path)")
                }
                try expectEqual(OutlineModel(dataSource.snapshot(for: "tree")), model, "\(context)")
            }
            // Reading the snapshot writes the outline's rows back.
            try expectEqual(dataSource.snapshot().itemIdentifiers(inSection: "tree"), model.visible)
        }
        #expect(batches > 50, "\(batches) batches")
    }

    final class Handlers {
        var events: [String] = []
        var locked: Set<Int> = []
    }

    /// A tap expanding a parent loads its children through
    /// `snapshotForExpandingParent`; an item of another section is refused.
    @Test func childrenLoadWhenTheirParentFirstExpands() throws {
        let screen = try OutlineScreen(viewport: 20)
        let dataSource = screen.dataSource!
        var outline = TableSectionSnapshot<Int>()
        try outline.append([1, 2])
        try outline.append([-1], to: 1)   // a placeholder: the row shows a disclosure
        try dataSource.apply(outline, to: "tree")
        var asked: [Int] = []
        dataSource.sectionSnapshotHandlers.snapshotForExpandingParent = { parent, children in
            asked.append(parent)
            var loaded = TableSectionSnapshot<Int>()
            try? loaded.append([10, 11])
            return children.items == [-1] ? loaded : children
        }
        try screen.table.tapRow(at: TablePath(row: 0, section: 0))
        expectEqual(asked, [1])
        expectEqual(screen.shown().first!.rows.map(\.id), [1, 10, 11, 2])
        try screen.table.tapRow(at: TablePath(row: 0, section: 0))
        try screen.table.tapRow(at: TablePath(row: 0, section: 0))
        #expect(asked == [1, 1] && screen.shown().first!.rows.map(\.id) == [1, 10, 11, 2])
        // Children that are rows of another section are refused.
        var flat = dataSource.snapshot()
        try flat.appendSections(["flat"])
        try flat.appendItems([99], toSection: "flat")
        try dataSource.apply(flat)
        dataSource.sectionSnapshotHandlers.snapshotForExpandingParent = { _, _ in
            var loaded = TableSectionSnapshot<Int>()
            try? loaded.append([99])
            return loaded
        }
        try screen.table.tapRow(at: TablePath(row: 0, section: 0))   // collapses
        expectThrows(TableSnapshotError<String, Int>.duplicateItems([99])) { try screen.table.tapRow(at: TablePath(row: 0, section: 0)) }
        expectEqual(screen.shown().map { $0.rows.map(\.id) }, [[1, 2], [99]])
        expectThrows(TableSectionSnapshotError<Int>.itemNotFound([99])) { try dataSource.expand([99]) }
    }

    /// An outline drawn: levels indented, parents with `▸`/`▾`, leaves lined up.
    @Test func anOutlineRendered() throws {
        var outline = TableSectionSnapshot<String>()
        try outline.append(["Documents", "Music", "notes.txt"])
        try outline.append(["Taxes", "letter.pdf"], to: "Documents")
        try outline.append(["2025.pdf", "2026.pdf"], to: "Taxes")
        try outline.append(["Bach", "Satie"], to: "Music")
        try outline.expand(["Documents", "Taxes"])
        let names = outline.items
        let table = TableView(viewportHeight: 12)
        table.rowHeight = 1
        table.sectionHeaderHeight = 1
        try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        let strings = try TableViewDiffableDataSource<String, String>(tableView: table) { table, indexPath, item in
            let cell = try table.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            cell.text = item
            return cell
        }
        strings.headerTitleProvider = { section, _ in section }
        try strings.apply(outline, to: "Files")
        var out = "Documents and Taxes expanded:\n" + (try TextRenderer(width: 30, pointsPerLine: 1).text(for: table.currentFrame))
        try strings.collapse(["Documents"])
        try strings.expand(["Music"])
        out += "Documents collapsed, Music expanded:\n" + (try TextRenderer(width: 30, pointsPerLine: 1).text(for: table.currentFrame))
        out += "ASCII:\n" + (try TextRenderer(width: 30, style: .ascii, pointsPerLine: 1).text(for: table.currentFrame))
        expectEqual(names.count, 9)
        assertTextSnapshot(of: out)
    }
}
