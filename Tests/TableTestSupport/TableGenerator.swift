import TableDiff

/// Random tables and random changes to them, for property tests.
public enum TableGenerator {
    public enum Shape: String, CaseIterable, Sendable {
        case flat, sectioned, shuffledSections, duplicates, empty, unrelated

    }

    public static let sectionNames = ["A", "B", "C", "D", "E", "F", "G", "H"]

    /// A random table of unique identities drawn from `ids`.
    public static func randomTable(_ g: inout SeededGenerator, sections: ClosedRange<Int>, rows: ClosedRange<Int>, ids: inout [Int], duplicateSectionNames: Bool = false) -> Table {
        let count = g.int(sections)
        let names = duplicateSectionNames
            ? (0..<count).map { _ in sectionNames[g.int(0..<3)] }
            : Array(sectionNames.shuffled(using: &g).prefix(count))
        return names.map { name in
            let n = g.int(rows)
            var rowItems: [Item] = []
            for _ in 0..<n where !ids.isEmpty { rowItems.append(Item(id: ids.removeLast(), content: g.int(0...1))) }
            return TableSection(name: name, rows: rowItems)
        }
    }

    /// A pair of tables, old and new, of the given shape.
    public static func pair(_ shape: Shape, _ g: inout SeededGenerator) -> (old: Table, new: Table) {
        switch shape {
        case .empty:
            var ids = Array(0..<40).shuffled(using: &g)
            let other = randomTable(&g, sections: 0...3, rows: 0...4, ids: &ids)
            switch g.int(0..<4) {
            case 0: return ([], other)
            case 1: return (other, [])
            case 2: return ([], [])
            default: return (other.map { TableSection(name: $0.name, rows: []) }, other)
            }
        case .unrelated:
            var ids = Array(0..<30).shuffled(using: &g)
            let old = randomTable(&g, sections: 0...4, rows: 0...6, ids: &ids)
            ids = Array(0..<30).shuffled(using: &g)
            let new = randomTable(&g, sections: 0...4, rows: 0...6, ids: &ids)
            return (old, new)
        case .duplicates:
            let pool = g.int(1...6)
            func randomDuplicated(_ g: inout SeededGenerator) -> Table {
                (0..<g.int(0...3)).map { _ in
                    TableSection(
                        name: sectionNames[g.int(0..<3)],
                        rows: (0..<g.int(0...6)).map { _ in Item(id: g.int(0..<pool), content: g.int(0...1)) })
                }
            }
            let old = randomDuplicated(&g)
            return (old, g.chance(0.5) ? randomDuplicated(&g) : mutate(old, &g, nextID: pool))
        case .flat:
            var ids = Array(0..<60).shuffled(using: &g)
            let old = randomTable(&g, sections: 1...1, rows: 0...20, ids: &ids)
            return (old, mutate(old, &g, nextID: 60, keepSections: true))
        case .sectioned:
            var ids = Array(0..<60).shuffled(using: &g)
            let old = randomTable(&g, sections: 0...5, rows: 0...6, ids: &ids)
            return (old, mutate(old, &g, nextID: 60))
        case .shuffledSections:
            var ids = Array(0..<60).shuffled(using: &g)
            let old = randomTable(&g, sections: 1...6, rows: 0...5, ids: &ids)
            var new = old.shuffled(using: &g)
            if g.chance(0.5) { new = mutate(new, &g, nextID: 60, keepSections: true) }
            return (old, new)
        }
    }

    /// A random change of a table: rows deleted, inserted, moved (within and across
    /// sections), changed; sections deleted, inserted, moved, renamed.
    public static func mutate(_ old: Table, _ g: inout SeededGenerator, nextID: Int, keepSections: Bool = false) -> Table {
        var new = old
        var fresh = nextID + 1000
        let rate = [0.05, 0.2, 0.5][g.int(0..<3)]
        if !keepSections {
            // Delete, rename and insert sections; a deleted section's rows may move elsewhere.
            var orphans: [Item] = []
            new = new.compactMap { section in
                if g.chance(rate) {
                    orphans += section.rows.filter { _ in g.chance(0.5) }
                    return nil
                }
                return section
            }
            let used = Set(new.map(\.name))
            var unused = sectionNames.filter { !used.contains($0) }.shuffled(using: &g)
            for k in new.indices where g.chance(rate / 2) && !unused.isEmpty {
                new[k].name = unused.removeLast()   // a renamed section is a deleted one plus an inserted one
            }
            for _ in 0..<g.int(0...2) where g.chance(rate * 2) && !unused.isEmpty {
                new.insert(TableSection(name: unused.removeLast(), rows: []), at: g.int(0...new.count))
            }
            if g.chance(rate) { new.shuffle(using: &g) }
            for item in orphans where !new.isEmpty {
                let t = g.int(0..<new.count)
                new[t].rows.insert(item, at: g.int(0...new[t].rows.count))
            }
        }
        // Rows.
        var moving: [Item] = []
        for t in new.indices {
            new[t].rows = new[t].rows.compactMap { item in
                if g.chance(rate) { return nil }
                var item = item
                if g.chance(rate) { item.content += 1 }
                if g.chance(rate) { moving.append(item); return nil }
                return item
            }
        }
        for _ in 0..<g.int(0...4) where g.chance(rate * 2) && !new.isEmpty {
            let t = g.int(0..<new.count)
            new[t].rows.insert(Item(id: fresh), at: g.int(0...new[t].rows.count))
            fresh += 1
        }
        for item in moving where !new.isEmpty {
            let t = g.int(0..<new.count)
            new[t].rows.insert(item, at: g.int(0...new[t].rows.count))
        }
        if g.chance(rate / 2), let t = new.indices.randomElement(using: &g) { new[t].rows.shuffle(using: &g) }
        return new
    }
}
