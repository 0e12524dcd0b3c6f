import Foundation
import HeadlessTable

/// The diff benchmarks: DifferenceKit's published workload shape at three sizes,
/// with UUID and Int identities; a sectioned table; adversarial inputs.
enum DiffWorkloads {
    static var all: [Workload] {
        [
            flat("5k", count: 5_000, delete: 2_000..<3_000, insert: 3_000..<4_000, shuffle: 0..<200, uuid: true),
            flat("100k", count: 100_000, delete: 20_000..<30_000, insert: 30_000..<40_000, shuffle: 0..<2_000, uuid: true),
            flat("1M", count: 1_000_000, delete: 200_000..<300_000, insert: 300_000..<400_000, shuffle: 0..<20_000, uuid: true),
            flat("5k", count: 5_000, delete: 2_000..<3_000, insert: 3_000..<4_000, shuffle: 0..<200, uuid: false),
            flat("100k", count: 100_000, delete: 20_000..<30_000, insert: 30_000..<40_000, shuffle: 0..<2_000, uuid: false),
            flat("1M", count: 1_000_000, delete: 200_000..<300_000, insert: 300_000..<400_000, shuffle: 0..<20_000, uuid: false),
            sectioned(),
            strided(),
            reversed(),
            shuffled(),
            tinySections(),
            allDuplicates(),
        ]
    }

    /// DifferenceKit's benchmark: delete a range, insert new rows at a range, shuffle a range at the start.
    static func flatPair<ID>(count: Int, delete: Range<Int>, insert: Range<Int>, shuffle: Range<Int>, make: () -> ID) -> ([ID], [ID]) {
        var g = SplitMix64(seed: 42)
        let old = (0..<count).map { _ in make() }
        var new = old
        new.removeSubrange(delete)
        new.insert(contentsOf: insert.map { _ in make() }, at: insert.lowerBound)
        new[shuffle].shuffle(using: &g)
        return (old, new)
    }

    static func flat(_ size: String, count: Int, delete: Range<Int>, insert: Range<Int>, shuffle: Range<Int>, uuid: Bool) -> Workload {
        let name = "diff/flat-\(size)-\(uuid ? "uuid" : "int")"
        let summary = "\(count) rows: delete \(delete.count), insert \(insert.count), shuffle \(shuffle.count) (\(uuid ? "UUID" : "Int") ids)"
        let targets = count >= 100_000 ? [Target(against: "hashFloor", atMost: 3)] : []
        return Workload(name: name, summary: summary, targets: targets) {
            if uuid {
                var g = SplitMix64(seed: 7)
                let (old, new) = flatPair(count: count, delete: delete, insert: insert, shuffle: shuffle) { seededUUID(&g) }
                return prepare(old, new)
            } else {
                var next = 0
                let (old, new) = flatPair(count: count, delete: delete, insert: insert, shuffle: shuffle) { () -> Int in
                    next += 1
                    return next &* 0x9E37_79B9   // spread out, not sorted
                }
                return prepare(old, new)
            }
        }
    }

    /// The subject and both baselines for a flat pair.
    static func prepare<ID: TableDiffable & Hashable>(_ old: [ID], _ new: [ID]) -> Prepared {
        let changeset = TableChangeset(from: old, to: new)
        let stdlib = old.count <= 100_000
        return Prepared(
            subject: { blackHole(TableChangeset(from: old, to: new)) },
            baselines: [
                Baseline(name: "hashFloor", run: { hashFloor(old, new) }),
                Baseline(
                    name: "stdlibDifference",
                    run: stdlib ? { blackHole(new.difference(from: old).inferringMoves()) } : nil,
                    skipped: stdlib ? nil : "does not finish within a minute at this size",
                    maxSamples: 3),
            ],
            counters: counters(changeset))
    }

    static func counters<Row>(_ changeset: TableChangeset<Row>) -> [String: Int] {
        [
            "stages": changeset.stages.count,
            "changes": changeset.changeCount,
            "movedRows": changeset.stages.reduce(0) { $0 + $1.update.movedRows.count },
            "duplicates": changeset.duplicateIdentifiers.count,
        ]
    }

    /// Work no diff can skip: the hash of every old and new identity, once.
    @inline(never)
    static func hashFloor<ID: Hashable>(_ old: [ID], _ new: [ID]) {
        var sum = 0
        for id in old { sum &+= id.hashValue }
        for id in new { sum &+= id.hashValue }
        blackHole(sum)
    }

    struct Entry: TableDiffable, Hashable {
        var id: UUID
        var version: Int
        var diffIdentifier: UUID { id }
        func isContentEqual(to other: Entry) -> Bool { version == other.version }
    }

    /// A sectioned table and its change: of the rows, 2.5 % each deleted,
    /// updated, and moved to a random place in another section; `inserted` new
    /// rows per section; then `sectionChanges` sections each deleted, inserted
    /// (with `newSectionRows` rows) and moved.
    static func sectionedPair(
        sections: Int, rows: Int, inserted: Int, sectionChanges: Int, newSectionRows: Int, seed: UInt64
    ) -> (old: [TableSection<Entry>], new: [TableSection<Entry>]) {
        var g = SplitMix64(seed: seed)
        let old = (0..<sections).map { s in
            TableSection(name: "S\(s)", rows: (0..<rows).map { _ in Entry(id: seededUUID(&g), version: 0) })
        }
        var new = old
        var moving: [Entry] = []
        for s in new.indices {
            new[s].rows = new[s].rows.compactMap { entry in
                switch Int.random(in: 0..<40, using: &g) {   // 1 in 40 = 2.5 % each
                case 0: return nil                                  // deleted
                case 1: moving.append(entry); return nil            // moved across sections
                case 2: return Entry(id: entry.id, version: 1)      // updated
                default: return entry
                }
            }
            for _ in 0..<inserted {
                new[s].rows.insert(Entry(id: seededUUID(&g), version: 0), at: Int.random(in: 0...new[s].rows.count, using: &g))
            }
        }
        for _ in 0..<sectionChanges { new.remove(at: Int.random(in: 0..<new.count, using: &g)) }
        for k in 0..<sectionChanges {
            let rows = (0..<newSectionRows).map { _ in Entry(id: seededUUID(&g), version: 0) }
            new.insert(TableSection(name: "N\(k)", rows: rows), at: Int.random(in: 0...new.count, using: &g))
        }
        for _ in 0..<sectionChanges {
            let section = new.remove(at: Int.random(in: 0..<new.count, using: &g))
            new.insert(section, at: Int.random(in: 0...new.count, using: &g))
        }
        for entry in moving {
            let t = Int.random(in: 0..<new.count, using: &g)
            new[t].rows.insert(entry, at: Int.random(in: 0...new[t].rows.count, using: &g))
        }
        return (old, new)
    }

    /// The subject and hash floor of a sectioned pair, and more baselines.
    static func prepare(_ old: [TableSection<Entry>], _ new: [TableSection<Entry>], baselines: [Baseline] = []) -> Prepared {
        let oldIDs = old.flatMap { $0.rows.map(\.id) }, newIDs = new.flatMap { $0.rows.map(\.id) }
        return Prepared(
            subject: { blackHole(TableChangeset(from: old, to: new)) },
            baselines: [Baseline(name: "hashFloor", run: { hashFloor(oldIDs, newIDs) })] + baselines,
            counters: counters(TableChangeset(from: old, to: new)))
    }

    /// 1,000 sections × 1,000 rows; 10 % of rows change (2.5 % each: deleted,
    /// inserted, updated, moved to another section); 5 sections deleted, 5
    /// inserted, 5 moved.
    static func sectioned() -> Workload {
        Workload(
            name: "diff/sectioned-1000x1000",
            summary: "1,000 sections × 1,000 rows: 10 % of rows deleted, inserted, updated or moved across sections; 5 sections deleted, 5 inserted, 5 moved",
            targets: [Target(against: "flatDiff", atMost: 1.5), Target(against: "hashFloor", atMost: 3)]
        ) {
            let (old, new) = sectionedPair(sections: 1_000, rows: 1_000, inserted: 25, sectionChanges: 5, newSectionRows: 1_000, seed: 11)
            // The flat diff of as many rows (DifferenceKit's shape), measured in the same rounds.
            var h = SplitMix64(seed: 7)
            let (flatOld, flatNew) = flatPair(
                count: 1_000_000, delete: 200_000..<300_000, insert: 300_000..<400_000, shuffle: 0..<20_000
            ) { seededUUID(&h) }
            return prepare(old, new, baselines: [
                Baseline(name: "flatDiff", run: { blackHole(TableChangeset(from: flatOld, to: flatNew)) }),
                Baseline(name: "stdlibDifference", run: nil, skipped: "does not finish within a minute at 1M rows"),
            ])
        }
    }

    /// Integer identities that are all multiples of 2^32: a hash that kept low
    /// bits would put them all in one slot.
    static func strided() -> Workload {
        Workload(
            name: "diff/strided-1M-int",
            summary: "1,000,000 rows with identities i × 2^32, DifferenceKit's change shape",
            targets: [Target(against: "hashFloor", atMost: 3)]
        ) {
            var next = 0
            let (old, new) = flatPair(count: 1_000_000, delete: 200_000..<300_000, insert: 300_000..<400_000, shuffle: 0..<20_000) { () -> Int in
                next += 1
                return next << 32
            }
            return prepare(old, new)
        }
    }

    static func reversed() -> Workload {
        Workload(
            name: "diff/reversed-1M-uuid",
            summary: "1,000,000 rows reversed: every row but one moves",
            targets: [Target(against: "hashFloor", atMost: 10)]
        ) {
            var g = SplitMix64(seed: 3)
            let old = (0..<1_000_000).map { _ in seededUUID(&g) }
            return prepare(old, old.reversed())
        }
    }

    static func shuffled() -> Workload {
        Workload(
            name: "diff/shuffled-1M-uuid",
            summary: "1,000,000 rows in random order: almost every row moves",
            targets: [Target(against: "hashFloor", atMost: 10)]
        ) {
            var g = SplitMix64(seed: 13)
            let old = (0..<1_000_000).map { _ in seededUUID(&g) }
            return prepare(old, old.shuffled(using: &g))
        }
    }

    /// 100,000 sections of 10 rows: 10 % of rows changed as in the sectioned
    /// workload, 1 % of sections inserted, deleted or moved.
    static func tinySections() -> Workload {
        Workload(
            name: "diff/tiny-sections-100000x10",
            summary: "100,000 sections × 10 rows: 10 % of rows deleted, inserted, updated or moved across sections; 1 % of sections inserted, deleted, moved",
            targets: [Target(against: "hashFloor", atMost: 10)]
        ) {
            let (old, new) = sectionedPair(sections: 100_000, rows: 10, inserted: 0, sectionChanges: 1_000, newSectionRows: 1, seed: 17)
            return prepare(old, new)
        }
    }

    static func allDuplicates() -> Workload {
        Workload(
            name: "diff/all-duplicates-100k",
            summary: "100,000 rows, all with the same identity, against 100,000 others the same",
            targets: [Target(against: "hashFloor", atMost: 10)]
        ) {
            var g = SplitMix64(seed: 5)
            let id = seededUUID(&g)
            let old = [UUID](repeating: id, count: 100_000)
            let new = [UUID](repeating: id, count: 99_000) + (0..<1_000).map { _ in seededUUID(&g) }
            return prepare(old, new)
        }
    }
}
