import Foundation
import HeadlessTableView
import TableDiff
import TableTestSupport
import Testing

/// Heights the delegate, a cell or a template gives are checked as the
/// settings are: a NaN, infinite or negative one is refused with a typed error
/// naming where it came from, and the operation leaves the table as it was.
@Suite struct TableGeometryPropertyTests {
    /// Where a table of the test takes its heights from — and where a bad one is injected.
    enum Origin: CaseIterable {
        case rowHeight, estimatedRowHeight, headerHeight, footerHeight, cellPreferredHeight, templatePreferredHeight
    }

    /// A data source and delegate giving valid heights (0 among them) from one
    /// origin, and one bad value for one row (by item id) or section.
    final class HeightSource: TableViewDataSource, TableViewDelegate {
        let origin: Origin
        var sections: Table
        /// The bad value and whom it is for: an item id (row origins) or a section.
        var fault: (key: Int, value: Double)?
        /// Whether the bad value was given to the table.
        var faultServed = false

        init(_ origin: Origin, _ sections: Table) {
            self.origin = origin
            self.sections = sections
        }

        static func rowHeight(id: Int) -> Double { [0, 12, 20, 33][id % 4] }
        static func sectionHeight(_ s: Int) -> Double { [0, 8, 15][s % 3] }

        func rowValue(_ path: TablePath) -> Double {
            let id = sections[path.section].rows[path.row].id
            if let fault, fault.key == id {
                faultServed = true
                return fault.value
            }
            return Self.rowHeight(id: id)
        }

        func sectionValue(_ s: Int) -> Double {
            if let fault, fault.key == s {
                faultServed = true
                return fault.value
            }
            return Self.sectionHeight(s)
        }

        func numberOfSections(in tableView: TableView) -> Int { sections.count }
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { sections[section].rows.count }
        func tableView(_ tableView: TableView, titleForHeaderInSection section: Int) -> String? {
            sections[section].name.isEmpty ? nil : sections[section].name
        }

        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            let item = sections[indexPath.section].rows[indexPath.row]
            // With templates, every third item's cells come from template "bad" (valid but when a fault is injected).
            let bad = origin == .templatePreferredHeight && item.id % 3 == 0
            let cell = try tableView.dequeueReusableCell(withIdentifier: bad ? "bad" : "item", for: indexPath)
            cell.text = item.description
            switch origin {
            case .cellPreferredHeight: cell.preferredHeight = rowValue(indexPath)
            case .templatePreferredHeight:
                cell.preferredHeight = nil   // the table asks the template
                if bad && fault != nil { faultServed = true }
            default: break
            }
            return cell
        }

        func tableView(_ tableView: TableView, heightForRowAt indexPath: TablePath) -> Double? {
            origin == .rowHeight ? rowValue(indexPath) : nil
        }
        func tableView(_ tableView: TableView, estimatedHeightForRowAt indexPath: TablePath) -> Double? {
            origin == .estimatedRowHeight ? rowValue(indexPath) : nil
        }
        func tableView(_ tableView: TableView, heightForHeaderInSection section: Int) -> Double? {
            origin == .headerHeight ? sectionValue(section) : nil
        }
        func tableView(_ tableView: TableView, heightForFooterInSection section: Int) -> Double? {
            origin == .footerHeight ? sectionValue(section) : nil
        }

        /// Where the item is now.
        func path(ofItem id: Int) -> TablePath? {
            for (s, section) in sections.enumerated() {
                if let r = section.rows.firstIndex(where: { $0.id == id }) { return TablePath(row: r, section: s) }
            }
            return nil
        }

        /// What the table must name for the bad value.
        func expectedQuantity() -> String? {
            guard let fault else { return nil }
            switch origin {
            case .headerHeight: return "the delegate's header height for section \(fault.key)"
            case .footerHeight: return "the delegate's footer height for section \(fault.key)"
            case .templatePreferredHeight: return "the preferred height of template \"bad\" for row "   // (a prefix: the first row made)
            default: break
            }
            guard let path = path(ofItem: fault.key) else { return nil }
            switch origin {
            case .rowHeight: return "the delegate's height for row \(path)"
            case .estimatedRowHeight: return "the delegate's estimated height for row \(path)"
            case .cellPreferredHeight: return "the preferred height of the cell for row \(path)"
            case .headerHeight, .footerHeight, .templatePreferredHeight: return nil
            }
        }
    }

    /// Everything a caller can see of the table's geometry and window.
    struct Observed: Equatable, CustomStringConvertible {
        var counts: [Int]
        var contentHeight: Double
        var offset: Double
        var viewport: Double
        var visible: [TablePath]
        var cells: [ObjectIdentifier]
        var texts: [String?]
        var selected: [TablePath]
        var rects: [TableView.VerticalSpan?]

        init(_ table: TableView) {
            let counts = (0..<table.numberOfSections).map(table.numberOfRows(inSection:))
            self.counts = counts
            contentHeight = table.contentHeight
            offset = table.contentOffset
            viewport = table.viewportHeight
            visible = table.indexPathsForVisibleRows
            cells = table.visibleCells.map(ObjectIdentifier.init)
            texts = table.visibleCells.map(\.text)
            selected = table.indexPathsForSelectedRows
            rects = counts.indices.flatMap { s in
                [table.rect(forSection: s), table.rectForHeader(inSection: s), table.rectForFooter(inSection: s)]
                    + (0..<counts[s]).map { table.rectForRow(at: TablePath(row: $0, section: s)) }
            }
        }

        var description: String { "counts \(counts), height \(contentHeight), offset \(offset), viewport \(viewport), window \(visible), texts \(texts), selected \(selected)" }
    }

    static let badValues: [Double] = [.nan, .infinity, -.infinity, -1, -0.5, -Double.greatestFiniteMagnitude]
    /// A template is archived as JSON, which holds no NaN or infinity.
    static let badTemplateValues: [Double] = [-1, -0.5, -1e300]

    static func randomSections(_ g: inout SeededGenerator, fresh: inout Int) -> Table {
        (0..<g.int(0...4)).map { s in
            TableSection(name: g.chance(0.6) ? "S\(s)" : "", rows: (0..<g.int(0...12)).map { _ in
                fresh += 1
                return Item(id: fresh)
            })
        }
    }

    /// A random valid batch on `old`: a section deleted or inserted, or rows
    /// deleted and inserted in one section.
    static func randomBatch(_ old: Table, _ g: inout SeededGenerator, fresh: inout Int) -> (Table, BatchUpdate) {
        var update = BatchUpdate()
        var new = old
        if g.chance(0.15), !old.isEmpty {
            let s = g.int(0..<old.count)
            new.remove(at: s)
            update.deleteSections([s])
            return (new, update)
        }
        if g.chance(0.2) || old.isEmpty {
            let t = g.int(0...old.count)
            new.insert(TableSection(name: g.chance(0.5) ? "N\(fresh)" : "", rows: (0..<g.int(0...6)).map { _ in
                fresh += 1
                return Item(id: fresh)
            }), at: t)
            update.insertSections([t])
            return (new, update)
        }
        let s = g.int(0..<old.count)
        var rows = old[s].rows
        let deletes = rows.indices.filter { _ in g.chance(0.2) }
        for i in deletes.reversed() { rows.remove(at: i) }
        let finalCount = rows.count + g.int(0...3)
        let inserts = Array((0..<finalCount).shuffled(using: &g).prefix(finalCount - rows.count)).sorted()
        for i in inserts {
            fresh += 1
            rows.insert(Item(id: fresh), at: i)
        }
        new[s].rows = rows
        update.deleteRows(at: deletes.map { TablePath(row: $0, section: s) })
        update.insertRows(at: inserts.map { TablePath(row: $0, section: s) })
        return (new, update)
    }

    static func makeTable(_ origin: Origin, _ sections: Table, viewport: Double) throws -> (TableView, HeightSource) {
        let source = HeightSource(origin, sections)
        let table = TableView(viewportHeight: viewport)
        table.allowsMultipleSelection = true
        switch origin {
        case .rowHeight, .headerHeight, .footerHeight:
            table.rowHeight = 20
            try table.register(TableViewCell.self, forCellReuseIdentifier: "item")
        case .estimatedRowHeight, .cellPreferredHeight:
            table.rowHeight = TableView.automaticDimension
            try table.register(TableViewCell.self, forCellReuseIdentifier: "item")
        case .templatePreferredHeight:
            table.rowHeight = TableView.automaticDimension
            try registerTemplate(table, "item", preferredHeight: 20)
            try registerTemplate(table, "bad", preferredHeight: 20)
        }
        table.dataSource = source
        table.delegate = source
        try table.reloadData()
        return (table, source)
    }

    static func registerTemplate(_ table: TableView, _ identifier: String, preferredHeight: Double) throws {
        let prototype = TableViewCell(reuseIdentifier: nil)
        prototype.preferredHeight = preferredHeight
        try table.register(ViewTemplate(prototype), forCellReuseIdentifier: identifier)
    }

    /// Valid heights — 0 among them — are laid out as given.
    static func expectValidHeights(_ table: TableView, _ source: HeightSource, _ context: String) {
        for (s, section) in source.sections.enumerated() where s < table.numberOfSections {
            switch source.origin {
            case .rowHeight, .estimatedRowHeight:
                for (r, item) in section.rows.enumerated() {
                    expectEqual(table.rectForRow(at: TablePath(row: r, section: s))?.height, HeightSource.rowHeight(id: item.id), "\(context)")
                }
            case .headerHeight:
                expectEqual(table.rectForHeader(inSection: s)?.height, HeightSource.sectionHeight(s), "\(context)")
            case .footerHeight:
                expectEqual(table.rectForFooter(inSection: s)?.height, HeightSource.sectionHeight(s), "\(context)")
            case .cellPreferredHeight:
                for p in table.indexPathsForVisibleRows where p.section == s {
                    expectEqual(table.rectForRow(at: p)?.height, HeightSource.rowHeight(id: section.rows[p.row].id), "\(context)")
                }
            case .templatePreferredHeight:
                for p in table.indexPathsForVisibleRows where p.section == s {
                    expectEqual(table.rectForRow(at: p)?.height, 20, "\(context)")
                }
            }
        }
    }

    enum Operation: CaseIterable { case reload, batch, batchReconfiguring, scroll, viewport, reconfigure, badOffset, badViewport }

    @Test func badHeightsFromEverySourceAreRefusedAndChangeNothing() throws {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        var refusals: [Origin: Int] = [:]
        var fresh = 0
        for round in 0..<TestScale.cases(150, full: 300) {
            let origin = Origin.allCases[g.int(0..<Origin.allCases.count)]
            let (table, source) = try Self.makeTable(origin, Self.randomSections(&g, fresh: &fresh), viewport: Double(g.int(0...160)))
            for step in 0..<20 {
                // Maybe a bad value, for a random row or section (one that may not be read).
                if origin == .templatePreferredHeight { try Self.registerTemplate(table, "bad", preferredHeight: 20) }
                source.fault = nil
                source.faultServed = false
                if g.chance(0.6) {
                    let value: Double
                    if origin == .templatePreferredHeight {
                        value = Self.badTemplateValues[g.int(0..<Self.badTemplateValues.count)]
                        try Self.registerTemplate(table, "bad", preferredHeight: value)
                    } else {
                        value = Self.badValues[g.int(0..<Self.badValues.count)]
                    }
                    switch origin {
                    case .headerHeight, .footerHeight: source.fault = (g.int(0...4), value)
                    case .templatePreferredHeight: source.fault = (-1, value)
                    default:
                        let ids = source.sections.flatMap { $0.rows.map(\.id) }
                        source.fault = (ids.isEmpty || g.chance(0.1) ? fresh + 1 + g.int(0...2) : ids[g.int(0..<ids.count)], value)
                    }
                }
                let operation = Operation.allCases[g.int(0..<Operation.allCases.count)]
                let before = Observed(table)
                let oldData = source.sections
                let context = "seed \(seed), round \(round), step \(step): \(origin), \(operation), fault \(String(describing: source.fault)) on \(describe(oldData)); before: \(before)"
                var expectedQuantity: String?
                do {
                    switch operation {
                    case .reload:
                        if g.chance(0.5) { source.sections = Self.randomSections(&g, fresh: &fresh) }
                        expectedQuantity = source.expectedQuantity()
                        try table.reloadData()
                        for p in table.indexPathsForVisibleRows where g.chance(0.3) { try table.selectRow(at: p) }
                    case .batch:
                        let (data, update) = Self.randomBatch(oldData, &g, fresh: &fresh)
                        source.sections = data
                        expectedQuantity = source.expectedQuantity()
                        try table.performBatchUpdates(update)
                    case .batchReconfiguring:
                        // Rows reconfigured in the batch are measured again:
                        // a refused height refuses the batch too.
                        let (data, update) = Self.randomBatch(oldData, &g, fresh: &fresh)
                        source.sections = data
                        expectedQuantity = source.expectedQuantity()
                        let rows = data.indices.flatMap { s in data[s].rows.indices.map { TablePath(row: $0, section: s) } }
                        try table.performBatchUpdates(update, reconfiguring: rows.filter { _ in g.chance(0.4) })
                    case .scroll:
                        expectedQuantity = source.expectedQuantity()
                        try table.setContentOffset(Double(g.int(0...Int(table.contentHeight + 20))))
                    case .viewport:
                        expectedQuantity = source.expectedQuantity()
                        try table.setViewportHeight(Double(g.int(0...200)))
                    case .reconfigure:
                        expectedQuantity = source.expectedQuantity()
                        try table.reconfigureRows(at: table.indexPathsForVisibleRows.filter { _ in g.chance(0.5) })
                    case .badOffset:
                        source.fault = nil
                        expectedQuantity = "the content offset"
                        try table.setContentOffset(Self.badValues[g.int(0..<Self.badValues.count)])
                    case .badViewport:
                        source.fault = nil
                        expectedQuantity = "the viewport height"
                        try table.setViewportHeight(Self.badValues[g.int(0..<Self.badValues.count)])
                    }
                    // Accepted: the bad value was not read, and valid heights are laid out as given.
                    #expect(!source.faultServed, "a bad height accepted: \(context)")
                    #expect(operation != .badOffset && operation != .badViewport, "a bad argument accepted: \(context)")
                    Self.expectValidHeights(table, source, context)
                } catch let TableViewError.invalidGeometry(error) {
                    refusals[origin, default: 0] += 1
                    if origin == .templatePreferredHeight && source.fault != nil {
                        #expect(error.quantity.hasPrefix(expectedQuantity ?? "-"), "\(error): \(context)")
                    } else {
                        expectEqual(error.quantity, expectedQuantity, "\(error): \(context)")
                    }
                    if let fault = source.fault {
                        expectEqual(error.value.bitPattern, fault.value.bitPattern, "\(error): \(context)")
                        #expect(source.faultServed, "\(error): \(context)")
                    }
                    let after = Observed(table)
                    if operation == .reload && (origin == .cellPreferredHeight || origin == .templatePreferredHeight) {
                        // A reload whose window cannot be filled: the new counts, an empty window (as when a cell fails).
                        expectEqual(after.counts, source.sections.map(\.rows.count), "\(context)")
                        #expect(after.visible.isEmpty, "\(context); after: \(after)")
                    } else {
                        expectEqual(after, before, "\(error): \(context); after: \(after)")
                        source.sections = oldData   // the table still shows the old data
                    }
                } catch {
                    Issue.record("\(error): \(context)")
                    return
                }
                table._checkInvariants()
            }
        }
        // Every origin was refused somewhere.
        for origin in Origin.allCases { #expect(refusals[origin, default: 0] > 0, "seed \(seed): no refusal from \(origin)") }
    }

    @Test func aBadViewportGivenToInitIsRefusedAtTheFirstLayout() throws {
        for value in TableGeometryTests.bad {
            let source = HeightSource(.rowHeight, TableTestSupport.table([("A", [1, 2, 3])]))
            let table = TableView(viewportHeight: value)
            try table.register(TableViewCell.self, forCellReuseIdentifier: "item")
            table.dataSource = source
            table.delegate = source
            expectEqual(table.viewportHeight.bitPattern, value.bitPattern)   // kept as given, as a bad rowHeight is
            let refused = TableViewError.invalidGeometry(TableGeometryError(quantity: "the viewport height", value: value))
            func expectRefused(_ body: () throws -> Void) {
                do {
                    try body()
                    Issue.record("viewport \(value) accepted")
                } catch let error as TableViewError {
                    expectEqual("\(error)", "\(refused)")
                } catch {
                    Issue.record("\(error)")
                }
                #expect(table.numberOfSections == 0 && table.indexPathsForVisibleRows.isEmpty)
                table._checkInvariants()
            }
            expectRefused { try table.reloadData() }
            expectRefused { try table.setContentOffset(10) }
            expectRefused { try table.performBatchUpdates { try table.insertSections([0]) } }
            expectRefused { try table.reconfigureRows(at: []) }
            // A valid height set replaces it.
            try table.setViewportHeight(100)
            try table.reloadData()
            expectEqual(table.indexPathsForVisibleRows.count, 3)
            table._checkInvariants()
        }
        // 0 is a height: an empty window.
        let table = TableView(viewportHeight: 0)
        let source = HeightSource(.rowHeight, TableTestSupport.table([("A", [1, 2, 3])]))
        try table.register(TableViewCell.self, forCellReuseIdentifier: "item")
        table.dataSource = source
        try table.reloadData()
        #expect(table.numberOfSections == 1 && table.indexPathsForVisibleRows.isEmpty)
    }

    @Test func theErrorNamesTheSourceAndTheRow() throws {
        let (table, source) = try Self.makeTable(.rowHeight, TableTestSupport.table([("A", [1, 2, 3, 4])]), viewport: 100)
        source.fault = (3, .nan)
        expectThrows(TableViewError.self) { try table.reloadData() }
        do { try table.reloadData() } catch {
            expectEqual("\(error)", "the delegate's height for row {0, 2} must be a finite number of points, at least 0, not nan")
        }
    }
}
