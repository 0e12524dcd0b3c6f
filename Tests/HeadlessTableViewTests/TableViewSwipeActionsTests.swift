import Foundation
import HeadlessTableView
import TableDiff
import TableSnapshotTesting
import TableTestSupport
import Testing

/// Swipe actions: a user's swipes through `TableView`'s calls, the delegate's
/// configurations (and the default Delete), the handlers and their
/// completions, and the swiped row following the table's changes — checked
/// against models of their own, and drawn by `TextRenderer`.
@Suite struct TableViewSwipeActionsTests {
    /// A table of items in sections, one line per row and header; the
    /// delegate gives each row its actions by the item's id: `leading` and
    /// `trailing` (nil: the default), each action a recorded handler that
    /// completes at once (true), at once (false), or later.
    final class Source: TableViewDataSource, TableViewDelegate {
        enum Completion { case now(Bool), later }
        struct ActionSpec {
            var title: String
            var style: ContextualAction.Style = .normal
            var completion: Completion = .now(true)
            /// Deletes the row's item (and the row) before completing.
            var deletesItem = false
        }

        var sections: Table
        var leading: [Int: [ActionSpec]] = [:]
        var trailing: [Int: [ActionSpec]] = [:]
        var fullSwipe: [Int: Bool] = [:]
        var notEditable: Set<Int> = []
        /// Handler calls: (item id, action title).
        var handled: [(Int, String)] = []
        /// Completions not yet called, oldest first: the item's id, the
        /// perform's serial (the handler calls before it), the completion.
        var pending: [(id: Int, serial: Int, completion: (Bool) -> Void)] = []
        var commits: [Int] = []
        var began: [TablePath] = []
        var ended: [TablePath?] = []
        weak var table: TableView?

        init(_ sections: Table) { self.sections = sections }

        func item(at path: TablePath) -> Item { sections[path.section].rows[path.row] }
        func path(of id: Int) -> TablePath? {
            for (s, section) in sections.enumerated() {
                if let r = section.rows.firstIndex(where: { $0.id == id }) { return TablePath(row: r, section: s) }
            }
            return nil
        }

        func makeTable(lines: Int) throws -> TableView {
            let table = TableView(viewportHeight: Double(lines))
            table.rowHeight = 1
            table.sectionHeaderHeight = 1
            table.sectionFooterHeight = 0
            try table.register(TableViewCell.self, forCellReuseIdentifier: "row")
            table.dataSource = self
            table.delegate = self
            self.table = table
            try table.reloadData()
            return table
        }

        func numberOfSections(in tableView: TableView) -> Int { sections.count }
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { sections[section].rows.count }
        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            let cell = try tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            cell.text = "Item \(item(at: indexPath))"
            return cell
        }
        func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? { sections[section].name }
        func tableView(_ tableView: TableView, canEditRowAt indexPath: TablePath) -> Bool { !notEditable.contains(item(at: indexPath).id) }
        func tableView(_ tableView: TableView, commit editingStyle: TableView.EditingStyle, forRowAt indexPath: TablePath) throws {
            commits.append(item(at: indexPath).id)
            sections[indexPath.section].rows.remove(at: indexPath.row)
            try tableView.deleteRows(at: [indexPath])
        }

        func configuration(_ specs: [ActionSpec]?, id: Int) -> SwipeActionsConfiguration? {
            guard let specs else { return nil }
            var configuration = SwipeActionsConfiguration(actions: specs.map { spec in
                ContextualAction(style: spec.style, title: spec.title) { [unowned self] action, completion in
                    expectEqual(action.title, spec.title)
                    let serial = self.handled.count
                    self.handled.append((id, spec.title))
                    if spec.deletesItem, let path = self.path(of: id), let table = self.table {
                        self.sections[path.section].rows.remove(at: path.row)
                        try? table.deleteRows(at: [path])
                    }
                    switch spec.completion {
                    case .now(let performed): completion(performed)
                    case .later: self.pending.append((id, serial, completion))
                    }
                }
            })
            configuration.performsFirstActionWithFullSwipe = fullSwipe[id] ?? true
            return configuration
        }
        func tableView(_ tableView: TableView, leadingSwipeActionsConfigurationForRowAt indexPath: TablePath) -> SwipeActionsConfiguration? {
            let id = item(at: indexPath).id
            return configuration(leading[id], id: id)
        }
        func tableView(_ tableView: TableView, trailingSwipeActionsConfigurationForRowAt indexPath: TablePath) -> SwipeActionsConfiguration? {
            let id = item(at: indexPath).id
            return configuration(trailing[id], id: id)
        }
        func tableView(_ tableView: TableView, willBeginEditingRowAt indexPath: TablePath) { began.append(indexPath) }
        func tableView(_ tableView: TableView, didEndEditingRowAt indexPath: TablePath?) { ended.append(indexPath) }
    }

    static func p(_ row: Int, _ section: Int = 0) -> TablePath { TablePath(row: row, section: section) }

    static func source(_ ids: [Int]) -> Source {
        Source([TableSection(name: "Inbox", rows: ids.map { Item(id: $0) })])
    }

    // MARK: The default Delete, and the delegate's actions

    @Test func withoutAConfigurationTheTrailingEdgeDeletesThroughCommit() throws {
        let source = Self.source([1, 2, 3])
        source.notEditable = [3]
        let table = try source.makeTable(lines: 10)
        try expectEqual(table.openSwipeActions(.leading, forRowAt: Self.p(0)), false)   // no leading default
        #expect(table.swipedRow == nil)
        try expectEqual(table.openSwipeActions(.trailing, forRowAt: Self.p(2)), false)  // the data source cannot edit it
        #expect(try table.openSwipeActions(.trailing, forRowAt: Self.p(1)))
        expectEqual(table.swipedRow, TableView.SwipedRow(indexPath: Self.p(1), edge: .trailing, actions: [.init(title: "Delete", style: .destructive)]))
        expectEqual(table.currentFrame.swipedRow, table.swipedRow)
        try table.performSwipeAction(at: 0)
        expectEqual(source.commits, [2])                 // commit(.delete) — the data source's path, as before
        #expect(table.swipedRow == nil)
        expectEqual(source.began, [Self.p(1)])
        expectEqual(source.ended, [nil])                 // the row is gone: its path names nothing
        expectEqual(table.numberOfRows(inSection: 0), 2)
        table._checkInvariants()
    }

    @Test func anEmptyConfigurationTurnsTheEdgeOffAndEditingModeSwipesNothing() throws {
        let source = Self.source([1, 2])
        source.trailing[1] = []
        let table = try source.makeTable(lines: 10)
        try expectEqual(table.openSwipeActions(.trailing, forRowAt: Self.p(0)), false)
        table.setEditing(true)
        try expectEqual(table.openSwipeActions(.trailing, forRowAt: Self.p(1)), false)
        table.setEditing(false)
        #expect(try table.openSwipeActions(.trailing, forRowAt: Self.p(1)))
        table.setEditing(true)                         // editing mode closes the swiped row
        #expect(table.swipedRow == nil)
        expectEqual(source.ended, [Self.p(1)])
    }

    @Test func completionFalseKeepsTheRowOpenAndTrueClosesIt() throws {
        let source = Self.source([1, 2, 3])
        source.trailing[2] = [
            .init(title: "Delete", style: .destructive, completion: .later),
            .init(title: "Archive", completion: .now(false)),
        ]
        let table = try source.makeTable(lines: 10)
        try table.openSwipeActions(.trailing, forRowAt: Self.p(1))
        let open = table.swipedRow
        expectEqual(open?.actions.map(\.title), ["Delete", "Archive"])
        try table.performSwipeAction(at: 1)
        expectEqual(table.swipedRow, open)               // not performed: still open, nothing pending
        try table.performSwipeAction(at: 0)
        expectEqual(table.swipedRow?.performingActionIndex, 0)
        // While the handler has not completed, no action can be performed; nothing changes.
        expectThrows(TableViewError.invalidSwipeAction(.actionInProgress(index: 0, row: Self.p(1)))) { try table.performSwipeAction(at: 1) }
        expectThrows(TableViewError.invalidSwipeAction(.actionInProgress(index: 0, row: Self.p(1)))) {
            try table.performFullSwipe(.trailing, forRowAt: Self.p(1))
        }
        expectEqual(source.handled.map(\.1), ["Archive", "Delete"])
        let completion = source.pending.removeFirst().completion
        completion(false)
        expectEqual(table.swipedRow, open)
        try table.performSwipeAction(at: 0)
        let again = source.pending.removeFirst().completion
        again(true)
        again(true)                                    // a second call is ignored
        completion(true)                               // so is a call of an earlier perform
        #expect(table.swipedRow == nil)
        expectEqual(source.ended, [Self.p(1)])
        expectEqual(source.handled.map(\.1), ["Archive", "Delete", "Delete"])
    }

    @Test func aFullSwipePerformsTheFirstActionWhenTheConfigurationAllows() throws {
        let source = Self.source([1, 2])
        source.leading[1] = [.init(title: "Read"), .init(title: "Pin")]
        source.leading[2] = [.init(title: "Read"), .init(title: "Pin")]
        source.fullSwipe[2] = false
        let table = try source.makeTable(lines: 10)
        #expect(try table.performFullSwipe(.leading, forRowAt: Self.p(0)))
        expectEqual(source.handled.map(\.1), ["Read"])
        #expect(table.swipedRow == nil)                // completed: closed
        try expectEqual(table.performFullSwipe(.leading, forRowAt: Self.p(1)), false)
        expectEqual(source.handled.count, 1)
        expectEqual(table.swipedRow?.indexPath, Self.p(1))   // it only opened
        #expect(try table.performFullSwipe(.trailing, forRowAt: Self.p(0)))   // the default Delete
        expectEqual(source.commits, [1])
        expectEqual(source.ended, [Self.p(0), Self.p(1), nil])
    }

    @Test func misuseThrowsTypedErrorsAndChangesNothing() throws {
        let source = Self.source(Array(0..<20))
        source.trailing[1] = [.init(title: "Flag")]
        let table = try source.makeTable(lines: 6)     // the header and rows 0…4
        expectThrows(TableViewError.invalidIndexPath(Self.p(20), sectionCount: 1, rowCount: 20)) {
            try table.openSwipeActions(.trailing, forRowAt: Self.p(20))
        }
        expectThrows(TableViewError.invalidSwipeAction(.rowNotVisible(Self.p(10)))) { try table.openSwipeActions(.trailing, forRowAt: Self.p(10)) }
        expectThrows(TableViewError.invalidSwipeAction(.noSwipedRow)) { try table.performSwipeAction(at: 0) }
        expectThrows(TableViewError.invalidIndexPath(Self.p(0, 3), sectionCount: 1, rowCount: nil)) {
            try table.performFullSwipe(.leading, forRowAt: Self.p(0, 3))
        }
        #expect(table.swipedRow == nil && source.began.isEmpty && source.handled.isEmpty)
        try table.openSwipeActions(.trailing, forRowAt: Self.p(1))
        let frame = table.currentFrame
        expectThrows(TableViewError.invalidSwipeAction(.noSuchAction(index: 1, count: 1, row: Self.p(1)))) { try table.performSwipeAction(at: 1) }
        expectThrows(TableViewError.invalidSwipeAction(.noSuchAction(index: -1, count: 1, row: Self.p(1)))) { try table.performSwipeAction(at: -1) }
        expectThrows(TableViewError.invalidSwipeAction(.rowNotVisible(Self.p(12)))) { try table.openSwipeActions(.leading, forRowAt: Self.p(12)) }
        expectEqual(table.currentFrame, frame)
        #expect(source.handled.isEmpty && source.ended.isEmpty)
        expectEqual("\(TableViewError.invalidSwipeAction(.noSuchAction(index: 1, count: 1, row: Self.p(1))))", "no swipe action at index 1: the row at {0, 1} shows 1 action")
    }

    @Test func oneRowAtATimeAndTapsScrollsAndReloadsCloseIt() throws {
        let source = Self.source(Array(0..<30))
        let table = try source.makeTable(lines: 8)
        try table.openSwipeActions(.trailing, forRowAt: Self.p(1))
        try table.openSwipeActions(.trailing, forRowAt: Self.p(3))   // the first closes
        expectEqual(source.began, [Self.p(1), Self.p(3)])
        expectEqual(source.ended, [Self.p(1)])
        #expect(try table.openSwipeActions(.trailing, forRowAt: Self.p(3)))   // the same: nothing happens
        expectEqual(source.began.count, 2)
        try table.tapRow(at: Self.p(5))               // a tap closes it, and selects nothing
        #expect(table.swipedRow == nil && table.indexPathForSelectedRow == nil)
        try table.tapRow(at: Self.p(5))
        expectEqual(table.indexPathForSelectedRow, Self.p(5))
        try table.openSwipeActions(.trailing, forRowAt: Self.p(2))
        try table.setContentOffset(table.contentOffset)   // not a scroll
        #expect(table.swipedRow != nil)
        try table.setContentOffset(3)
        #expect(table.swipedRow == nil)
        expectEqual(source.ended.last, Self.p(2))
        try expectEqual(table.openSwipeActions(.leading, forRowAt: Self.p(4)), false)
        try table.openSwipeActions(.trailing, forRowAt: Self.p(4))
        try table.reloadData()
        #expect(table.swipedRow == nil)
        expectEqual(source.ended.last, .some(nil))
        try table.openSwipeActions(.trailing, forRowAt: Self.p(9))
        try table.setViewportHeight(3)                // rows 3…4 left: row 9 is off screen
        #expect(table.swipedRow == nil)
        expectEqual(source.ended.last, Self.p(9))
        table._checkInvariants()
    }

    // MARK: Following the table's changes

    /// Random batches (with UIKit's answer, `BatchGenerator`): the swiped row
    /// is the row of the same item afterwards — where the batch put it — when
    /// it is neither deleted nor reloaded and stays in the window; otherwise it
    /// closed, and the delegate heard its path (nil for a row gone).
    @Test func theSwipedRowFollowsItsItemThroughRandomBatches() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        var followed = 0, closedGone = 0, closedOffScreen = 0
        for _ in 0..<400 {
            let generated = BatchGenerator.generate(&g)
            let source = Source(generated.displayed)
            let table = try source.makeTable(lines: g.int(2...14))
            let visible = table.indexPathsForVisibleRows
            guard let open = visible.randomElement(using: &g) else { continue }
            let edge: TableView.SwipeActionsEdge = g.chance(0.5) ? .leading : .trailing
            let id = source.item(at: open).id
            if edge == .leading { source.leading[id] = [.init(title: "Pin")] }
            #expect(try table.openSwipeActions(edge, forRowAt: open), "seed \(seed)")
            source.sections = generated.data
            try table.performBatchUpdates(generated.update)
            table._checkInvariants()
            let gone = generated.update.deletedRows.contains(open) || generated.update.reloadedRows.contains(open)
                || generated.update.deletedSections.contains(open.section) || generated.update.reloadedSections.contains(open.section)
            var expectedPath: TablePath?
            if !gone {
                for (s, section) in generated.expected.enumerated() {
                    if let r = section.rows.firstIndex(where: { $0.id == id }) { expectedPath = TablePath(row: r, section: s) }
                }
                #expect(expectedPath != nil, "seed \(seed): an item that stays is in UIKit's table")
            }
            if let expectedPath, table.indexPathsForVisibleRows.contains(expectedPath) {
                expectEqual(table.swipedRow?.indexPath, expectedPath, "seed \(seed)")
                expectEqual(table.swipedRow?.edge, edge)
                #expect(source.ended.isEmpty)
                expectEqual(table.currentFrame.swipedRow?.indexPath, expectedPath)
                followed += 1
            } else {
                #expect(table.swipedRow == nil, "seed \(seed)")
                expectEqual(source.ended, [expectedPath], "seed \(seed)")
                if expectedPath == nil { closedGone += 1 } else { closedOffScreen += 1 }
            }
        }
        // Each outcome happened (the generator's mix makes all three common).
        #expect(followed > 20 && closedGone > 20 && closedOffScreen > 5, "followed \(followed), gone \(closedGone), off screen \(closedOffScreen)")
    }

    /// A user's random swipes, taps, scrolls and actions, and random model
    /// changes applied as staged changesets, against a model of the swipe:
    /// at most one row open, always the row of its item, in the window; every
    /// perform calls its handler once; a completion closes the row (true) or
    /// keeps it (false) only for the current perform; the delegate's begins
    /// and ends pair up.
    @Test func randomSwipesActionsAndChangesKeepTheirPromises() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ 7)
        for _ in 0..<12 {
            var ids = Array(0..<60).shuffled(using: &g)
            let source = Source(TableGenerator.randomTable(&g, sections: 1...3, rows: 0...8, ids: &ids))
            let table = try source.makeTable(lines: g.int(3...12))
            var nextID = 1000
            func assign(_ id: Int) {
                // Leading: none, or actions; trailing: the default, none, or actions (one deletes its item).
                let completions: [Source.Completion] = [.now(true), .now(false), .later]
                if g.chance(0.6) {
                    source.leading[id] = (0..<g.int(1...2)).map { k in .init(title: "L\(k)", completion: completions[g.int(0..<3)]) }
                }
                switch g.int(0..<4) {
                case 0: break
                case 1: source.trailing[id] = []
                default:
                    source.trailing[id] = (0..<g.int(1...3)).map { k in
                        .init(title: "T\(k)", style: k == 0 ? .destructive : .normal, completion: completions[g.int(0..<3)], deletesItem: k == 0 && g.chance(0.5))
                    }
                }
                source.fullSwipe[id] = g.chance(0.7)
            }
            for section in source.sections { for item in section.rows { assign(item.id) } }
            var performs = 0
            // The swipe as the model sees it: the item whose row is open, and
            // the action pending with its perform's serial.
            struct Model {
                var id: Int
                var edge: TableView.SwipeActionsEdge
                var performing: Int? = nil
                var serial: Int? = nil
            }
            var model: Model?
            for _ in 0..<150 {
                let visible = table.indexPathsForVisibleRows
                let before = table.swipedRow
                switch g.int(0..<10) {
                case 0, 1:   // open, sometimes a row off screen or outside the table
                    let edge: TableView.SwipeActionsEdge = g.chance(0.5) ? .leading : .trailing
                    guard let path = g.chance(0.85) ? visible.randomElement(using: &g) : TablePath(row: g.int(0...12), section: g.int(0...3)) else { continue }
                    do {
                        let opened = try table.openSwipeActions(edge, forRowAt: path)
                        let id = source.item(at: path).id
                        if let m = model, m.id == id, m.edge == edge {
                            #expect(opened, "seed \(seed)")
                        } else {
                            model = opened ? Model(id: id, edge: edge) : nil
                        }
                    } catch {
                        expectEqual(table.swipedRow, before, "seed \(seed): \(error)")
                    }
                case 2, 3:   // perform, sometimes an action that is not there
                    let count = before?.actions.count ?? 1
                    let index = g.chance(0.9) ? g.int(0..<count) : count
                    let handled = source.handled.count, commits = source.commits.count
                    do {
                        try table.performSwipeAction(at: index)
                        performs += 1
                        guard let m = model else { Issue.record("seed \(seed): performed with no row open"); continue }
                        #expect(m.performing == nil && index < count)
                        expectEqual(source.handled.count + source.commits.count, handled + commits + 1, "seed \(seed): one handler call")
                        if source.commits.count > commits || source.path(of: m.id) == nil {
                            model = nil   // deleted: closed
                        } else if let last = source.handled.last, last.0 == m.id {
                            let spec = (m.edge == .leading ? source.leading : source.trailing)[m.id]![index]
                            switch spec.completion {
                            case .now(true): model = nil
                            case .now(false): break
                            case .later:
                                model?.performing = index
                                model?.serial = source.pending.last?.serial
                            }
                        }
                    } catch let error as TableViewError {
                        expectEqual(table.swipedRow, before, "seed \(seed)")
                        #expect(source.handled.count == handled && source.commits.count == commits)
                        let expected: SwipeActionError? =
                            if let m = model {
                                if let performing = m.performing {
                                    .actionInProgress(index: performing, row: before?.indexPath ?? TablePath(row: -1, section: -1))
                                } else {
                                    .noSuchAction(index: index, count: count, row: before?.indexPath ?? TablePath(row: -1, section: -1))
                                }
                            } else {
                                .noSwipedRow
                            }
                        expectEqual(error, .invalidSwipeAction(expected!), "seed \(seed)")
                    }
                case 4:   // a pending completion, current or stale, sometimes twice
                    guard !source.pending.isEmpty else { continue }
                    let entry = source.pending.remove(at: g.int(0..<source.pending.count))
                    let performed = g.chance(0.5)
                    let current = model?.serial == entry.serial && model?.performing != nil
                    entry.completion(performed)
                    if g.chance(0.3) { entry.completion(!performed) }
                    if current {
                        if performed { model = nil } else { model?.performing = nil; model?.serial = nil }
                    } else {
                        expectEqual(table.swipedRow, before, "seed \(seed): a stale completion changed the table")
                    }
                case 5:   // close, tap, scroll
                    switch g.int(0..<3) {
                    case 0: table.closeSwipeActions()
                    case 1: if let path = visible.randomElement(using: &g) { try table.tapRow(at: path) }
                    default:
                        let old = table.contentOffset
                        try table.setContentOffset(Double(g.int(0...Int(table.contentHeight))))
                        if table.contentOffset == old { continue }
                    }
                    model = nil
                    #expect(table.swipedRow == nil, "seed \(seed)")
                case 6:   // a full swipe
                    guard let path = visible.randomElement(using: &g) else { continue }
                    let edge: TableView.SwipeActionsEdge = g.chance(0.5) ? .leading : .trailing
                    let handled = source.handled.count + source.commits.count
                    let id = source.item(at: path).id
                    do {
                        let performed = try table.performFullSwipe(edge, forRowAt: path)
                        expectEqual(source.handled.count + source.commits.count, handled + (performed ? 1 : 0), "seed \(seed)")
                        if performed { performs += 1 }
                        if let open = table.swipedRow {
                            #expect(source.item(at: open.indexPath).id == id && open.edge == edge, "seed \(seed)")
                            model = Model(id: id, edge: edge, performing: open.performingActionIndex)
                            if open.performingActionIndex != nil { model?.serial = source.pending.last?.serial }
                        } else {
                            model = nil
                        }
                    } catch let error as TableViewError {
                        guard case .invalidSwipeAction(.actionInProgress) = error else { Issue.record("seed \(seed): \(error)"); continue }
                        #expect(model?.performing != nil && table.swipedRow == before)
                    }
                default:   // the model changes: a staged changeset
                    let old = source.sections
                    let new = TableGenerator.mutate(old, &g, nextID: nextID)
                    nextID += 2000
                    for section in new { for item in section.rows where source.leading[item.id] == nil && source.trailing[item.id] == nil { assign(item.id) } }
                    let changeset = TableChangeset(from: old, to: new)
                    let ended = source.ended.count
                    try table.apply(changeset) { stage in source.sections = stage.sections }
                    if let m = model {
                        let path = source.path(of: m.id)
                        let oldItem = old.flatMap(\.rows).first(where: { $0.id == m.id })
                        let sameContent = path.map { source.item(at: $0) } == oldItem
                        if let open = table.swipedRow {
                            #expect(path == open.indexPath && sameContent, "seed \(seed): the swiped row is its item's")
                            expectEqual(source.ended.count, ended)
                        } else {
                            expectEqual(source.ended.count, ended + 1, "seed \(seed)")
                            // Closed only for a reason: gone, changed, or off screen (in a stage, or at the end).
                            if let path, sameContent, changeset.stages.count == 1 {
                                #expect(!table.indexPathsForVisibleRows.contains(path), "seed \(seed): closed, yet its row stays on screen")
                            }
                            model = nil
                        }
                    }
                }
                table._checkInvariants()
                if let m = model {
                    let open = try #require(table.swipedRow, "seed \(seed)")
                    #expect(source.item(at: open.indexPath).id == m.id && open.edge == m.edge, "seed \(seed)")
                    expectEqual(open.performingActionIndex, m.performing, "seed \(seed)")
                    #expect(table.indexPathsForVisibleRows.contains(open.indexPath))
                } else {
                    #expect(table.swipedRow == nil, "seed \(seed)")
                }
                expectEqual(source.began.count - source.ended.count, (table.swipedRow == nil ? 0 : 1), "seed \(seed): begins and ends pair up")
            }
            expectEqual(source.handled.count + source.commits.count, performs, "seed \(seed): one handler call per perform")
        }
    }

    // MARK: Drawing

    @Test func openActionsAsDrawn() throws {
        let source = Source([
            TableSection(name: "Inbox", rows: [1, 2, 3].map { Item(id: $0) }),
            TableSection(name: "Later", rows: [4, 5].map { Item(id: $0) }),
        ])
        source.trailing[2] = [.init(title: "Delete", style: .destructive), .init(title: "Archive")]
        source.leading[4] = [.init(title: "Unread"), .init(title: "Pin")]
        source.trailing[5] = [.init(title: "A long action title"), .init(title: "Another one")]
        let table = try source.makeTable(lines: 7)
        var out = ""
        func draw(_ caption: String, width: Int = 36, style: TextRenderer.Style = .box) throws {
            out += caption + "\n" + (try TextRenderer(width: width, style: style, pointsPerLine: 1).text(for: table.currentFrame)) + "\n"
        }
        try table.openSwipeActions(.trailing, forRowAt: Self.p(1))
        try draw("Trailing: the first action (Delete) at the right edge")
        try table.openSwipeActions(.leading, forRowAt: Self.p(0, 1))
        try draw("Leading: the first action (Unread) at the left edge", style: .ascii)
        try table.openSwipeActions(.trailing, forRowAt: Self.p(0))
        try draw("The default: Delete")
        try table.openSwipeActions(.trailing, forRowAt: Self.p(1, 1))
        try draw("Too wide for the row: the buttons take the line", width: 30)
        table.closeSwipeActions()
        try draw("Closed")
        assertTextSnapshot(of: out)
    }
}
