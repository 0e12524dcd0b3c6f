import TableDiff

/// Random batch updates for tests, built by simulating UIKit forward: what a
/// table displays, what its data source reports, a batch that is valid between
/// them, and what UIKit shows afterwards (moved rows keep their old content).
public enum BatchGenerator {
    public struct Generated {
        public var displayed: Table
        public var data: Table
        public var update: BatchUpdate
        /// What UIKit shows afterwards.
        public var expected: Table
    }

    public static func generate(_ g: inout SeededGenerator) -> Generated {
        var ids = Array(0..<200).shuffled(using: &g)
        var fresh = 1000
        let displayed = TableGenerator.randomTable(&g, sections: 0...4, rows: 0...5, ids: &ids).map {
            TableSection(name: $0.name, rows: $0.rows.map { Item(id: $0.id) })
        }
        var update = BatchUpdate()
        enum Source { case old(Int), inserted }
        let oldCount = displayed.count
        let deleted = Set((0..<oldCount).filter { _ in g.chance(0.2) })
        let reloaded = Set((0..<oldCount).filter { !deleted.contains($0) && g.chance(0.15) })
        let moved = Set((0..<oldCount).filter { !deleted.contains($0) && !reloaded.contains($0) && g.chance(0.25) })
        var order: [Source] = (0..<oldCount).filter { !deleted.contains($0) && !moved.contains($0) }.map { .old($0) }
        var arrivals: [Source] = moved.sorted().map { .old($0) }
        for _ in 0..<g.int(0...2) { arrivals.append(.inserted) }
        for source in arrivals.shuffled(using: &g) { order.insert(source, at: g.int(0...order.count)) }
        for (t, source) in order.enumerated() {
            switch source {
            case .inserted: update.insertedSections.append(t)
            case .old(let s) where moved.contains(s): update.movedSections.append(Move(from: s, to: t))
            default: break
            }
        }
        update.deletedSections = deleted.sorted()
        update.reloadedSections = reloaded.sorted()

        // Rows: leave (deleted, moved out), stay (some reloaded), arrive.
        let live = { (s: Int) in !deleted.contains(s) && !reloaded.contains(s) }
        var leaving: [(Item, TablePath)] = []
        var staying: [Int: [(item: Item, reloaded: Bool)]] = [:]
        for s in 0..<oldCount where live(s) {
            for (r, item) in displayed[s].rows.enumerated() {
                let p = TablePath(row: r, section: s)
                if g.chance(0.15) { update.deletedRows.append(p) }
                else if g.chance(0.2) { leaving.append((item, p)) }
                else if g.chance(0.15) { update.reloadedRows.append(p); staying[s, default: []].append((item, true)) }
                else { staying[s, default: []].append((item, false)) }
            }
        }
        var data: Table = []
        var expected: Table = []
        var targets = (0..<order.count).filter { if case .old(let s) = order[$0] { return live(s) } else { return false } }
        if targets.isEmpty {   // nowhere to go: deleted instead
            update.deletedRows += leaving.map(\.1)
            leaving.removeAll()
        }
        var arrivingRows: [Int: [(item: Item, from: TablePath?)]] = [:]
        for (item, p) in leaving { arrivingRows[targets.randomElement(using: &g)!, default: []].append((item, p)) }
        for t in targets where g.chance(0.4) {
            for _ in 0..<g.int(1...2) { arrivingRows[t, default: []].append((Item(id: fresh), nil)); fresh += 1 }
        }
        targets.removeAll()
        for (t, source) in order.enumerated() {
            guard case .old(let s) = source, live(s) else {
                // Inserted or reloaded sections come from the data source.
                let rows = (0..<g.int(0...3)).map { _ in defer { fresh += 1 }; return Item(id: fresh, content: 7) }
                let name: String = if case .old(let s) = source { displayed[s].name } else { "N\(t)" }
                data.append(TableSection(name: name, rows: rows))
                expected.append(TableSection(name: name, rows: rows))
                continue
            }
            var dataRows = (staying[s] ?? []).map { $0.reloaded ? Item(id: $0.item.id, content: 1) : $0.item }
            var shownRows = (staying[s] ?? []).map { $0.reloaded ? Item(id: $0.item.id, content: 1) : $0.item }
            for (item, from) in (arrivingRows[t] ?? []).shuffled(using: &g) {
                let r = g.int(0...dataRows.count)
                // A moved row's data changed, but a move does not refresh it: UIKit still shows the old content.
                dataRows.insert(from == nil ? item : Item(id: item.id, content: 5), at: r)
                shownRows.insert(item, at: r)
            }
            for (r, row) in dataRows.enumerated() {
                if let arrival = arrivingRows[t]?.first(where: { $0.item.id == row.id }) {
                    if let from = arrival.from { update.movedRows.append(Move(from: from, to: TablePath(row: r, section: t))) }
                    else { update.insertedRows.append(TablePath(row: r, section: t)) }
                }
            }
            data.append(TableSection(name: displayed[s].name, rows: dataRows))
            expected.append(TableSection(name: displayed[s].name, rows: shownRows))
        }
        return Generated(displayed: displayed, data: data, update: update, expected: expected)
    }

    /// One small corruption: drop a change, shift an index, or add a conflicting change.
    public static func corrupt(_ u: inout BatchUpdate, _ g: inout SeededGenerator) {
        switch g.int(0..<9) {
        case 0 where !u.deletedRows.isEmpty: u.deletedRows.removeLast()
        case 1 where !u.insertedRows.isEmpty: u.insertedRows[0].row += g.chance(0.5) ? 1 : -1
        case 2 where !u.movedRows.isEmpty: u.reloadedRows.append(u.movedRows[0].from)
        case 3 where !u.movedRows.isEmpty: u.movedRows.append(Move(from: u.movedRows[0].from, to: TablePath(row: 0, section: u.movedRows[0].to.section)))
        case 4 where !u.insertedSections.isEmpty: u.insertedSections.removeLast()
        case 5 where !u.deletedSections.isEmpty: u.reloadedSections.append(u.deletedSections[0])
        case 6 where !u.movedSections.isEmpty: u.movedSections[0].to += 1
        case 7: u.insertedRows.append(TablePath(row: g.int(0...3), section: g.int(0...3)))
        default: u.deletedSections.append(g.int(0...4))
        }
    }

}
