import TableDiff
import TableSnapshotTesting
import TableTestSupport
import Testing

/// A snapshot written the naive way, with arrays and linear searches: what
/// every `TableSnapshot` call must do, and which misuse it must refuse.
private struct SnapshotModel: Equatable {
    typealias Failure = TableSnapshotError<Int, Int>
    var sections: [Int] = []
    var items: [[Int]] = []
    var reloaded: [Int] = []
    var reconfigured: [Int] = []
    var reloadedSections: [Int] = []

    var all: [Int] { items.flatMap { $0 } }
    func position(_ item: Int) -> (section: Int, row: Int)? {
        for (s, rows) in items.enumerated() { if let r = rows.firstIndex(of: item) { return (s, r) } }
        return nil
    }
    func duplicates(_ ids: [Int]) -> [Int] {
        var seen: [Int] = []
        var found: [Int] = []
        for id in ids {
            if all.contains(id) || seen.contains(id) { found.append(id) } else { seen.append(id) }
        }
        return found
    }
    func sectionDuplicates(_ ids: [Int]) -> [Int] {
        var seen: [Int] = []
        var found: [Int] = []
        for id in ids {
            if sections.contains(id) || seen.contains(id) { found.append(id) } else { seen.append(id) }
        }
        return found
    }
    mutating func forget(_ ids: [Int]) {
        reloaded.removeAll { ids.contains($0) }
        reconfigured.removeAll { ids.contains($0) }
    }
    static func mark(_ marks: inout [Int], _ ids: [Int]) {
        for id in ids where !marks.contains(id) { marks.append(id) }
    }
}

/// One random call, applied to the model (returning the error it must throw)
/// and to the snapshot.
private enum Call: CustomStringConvertible {
    case appendSections([Int]), insertSections([Int], Int, after: Bool), deleteSections([Int])
    case moveSection(Int, Int, after: Bool), reloadSections([Int])
    case appendItems([Int], Int?), insertItems([Int], Int, after: Bool), deleteItems([Int])
    case moveItem(Int, Int, after: Bool), reloadItems([Int]), reconfigureItems([Int]), deleteAllItems

    var description: String {
        switch self {
        case .appendSections(let s): "appendSections(\(s))"
        case .insertSections(let s, let t, let after): "insertSections(\(s), \(after ? "after" : "before"): \(t))"
        case .deleteSections(let s): "deleteSections(\(s))"
        case .moveSection(let s, let t, let after): "moveSection(\(s), \(after ? "after" : "before"): \(t))"
        case .reloadSections(let s): "reloadSections(\(s))"
        case .appendItems(let i, let s): "appendItems(\(i), toSection: \(s.map(String.init) ?? "nil"))"
        case .insertItems(let i, let t, let after): "insertItems(\(i), \(after ? "after" : "before"): \(t))"
        case .deleteItems(let i): "deleteItems(\(i))"
        case .moveItem(let i, let t, let after): "moveItem(\(i), \(after ? "after" : "before"): \(t))"
        case .reloadItems(let i): "reloadItems(\(i))"
        case .reconfigureItems(let i): "reconfigureItems(\(i))"
        case .deleteAllItems: "deleteAllItems()"
        }
    }

    static func random(_ g: inout SeededGenerator) -> Call {
        func sections(_ g: inout SeededGenerator) -> [Int] { (0..<g.int(0...3)).map { _ in g.int(0..<8) } }
        func items(_ g: inout SeededGenerator) -> [Int] { (0..<g.int(0...5)).map { _ in g.int(0..<40) } }
        switch g.int(0..<24) {
        case 0..<2: return .appendSections(sections(&g))
        case 2: return .insertSections(sections(&g), g.int(0..<8), after: g.chance(0.5))
        case 3: return .deleteSections(sections(&g))
        case 4: return .moveSection(g.int(0..<8), g.int(0..<8), after: g.chance(0.5))
        case 5: return .reloadSections(sections(&g))
        case 6..<12: return .appendItems(items(&g), g.chance(0.3) ? nil : g.int(0..<8))
        case 12..<15: return .insertItems(items(&g), g.int(0..<40), after: g.chance(0.5))
        case 15..<18: return .deleteItems(items(&g))
        case 18..<21: return .moveItem(g.int(0..<40), g.int(0..<40), after: g.chance(0.5))
        case 21: return .reloadItems(items(&g))
        case 22: return .reconfigureItems(items(&g))
        default: return g.chance(0.2) ? .deleteAllItems : .appendItems(items(&g), nil)
        }
    }

    /// What the model says: the error, or nil and the model changed.
    func apply(to m: inout SnapshotModel) -> SnapshotModel.Failure? {
        switch self {
        case .appendSections(let ids):
            let dups = m.sectionDuplicates(ids)
            if !dups.isEmpty { return .duplicateSections(dups) }
            m.sections += ids
            m.items += ids.map { _ in [] }
        case .insertSections(let ids, let target, let after):
            guard var at = m.sections.firstIndex(of: target) else { return .sectionNotFound([target]) }
            let dups = m.sectionDuplicates(ids)
            if !dups.isEmpty { return .duplicateSections(dups) }
            if after { at += 1 }
            m.sections.insert(contentsOf: ids, at: at)
            m.items.insert(contentsOf: ids.map { _ in [] }, at: at)
        case .deleteSections(let ids):
            let missing = ids.filter { !m.sections.contains($0) }
            if !missing.isEmpty { return .sectionNotFound(missing) }
            for id in Set(ids) {
                let at = m.sections.firstIndex(of: id)!
                m.forget(m.items[at])
                m.sections.remove(at: at)
                m.items.remove(at: at)
            }
            m.reloadedSections.removeAll { ids.contains($0) }
        case .moveSection(let id, let target, let after):
            let missing = [id, target].filter { !m.sections.contains($0) }
            if !missing.isEmpty { return .sectionNotFound(missing) }
            if id == target { return .sectionMovedRelativeToItself(id) }
            let from = m.sections.firstIndex(of: id)!
            let rows = m.items.remove(at: from)
            m.sections.remove(at: from)
            var to = m.sections.firstIndex(of: target)!
            if after { to += 1 }
            m.sections.insert(id, at: to)
            m.items.insert(rows, at: to)
        case .reloadSections(let ids):
            let missing = ids.filter { !m.sections.contains($0) }
            if !missing.isEmpty { return .sectionNotFound(missing) }
            SnapshotModel.mark(&m.reloadedSections, ids)
        case .appendItems(let ids, let section):
            let at: Int
            if let section {
                guard let found = m.sections.firstIndex(of: section) else { return .sectionNotFound([section]) }
                at = found
            } else {
                guard !m.sections.isEmpty else { return .noSections }
                at = m.sections.count - 1
            }
            let dups = m.duplicates(ids)
            if !dups.isEmpty { return .duplicateItems(dups) }
            m.items[at] += ids
        case .insertItems(let ids, let target, let after):
            guard let (s, r) = m.position(target) else { return .itemNotFound([target]) }
            let dups = m.duplicates(ids)
            if !dups.isEmpty { return .duplicateItems(dups) }
            m.items[s].insert(contentsOf: ids, at: after ? r + 1 : r)
        case .deleteItems(let ids):
            let missing = ids.filter { m.position($0) == nil }
            if !missing.isEmpty { return .itemNotFound(missing) }
            for s in m.items.indices { m.items[s].removeAll { ids.contains($0) } }
            m.forget(ids)
        case .moveItem(let id, let target, let after):
            let missing = [id, target].filter { m.position($0) == nil }
            if !missing.isEmpty { return .itemNotFound(missing) }
            if id == target { return .itemMovedRelativeToItself(id) }
            let (s, r) = m.position(id)!
            m.items[s].remove(at: r)
            let (t, q) = m.position(target)!
            m.items[t].insert(id, at: after ? q + 1 : q)
        case .reloadItems(let ids), .reconfigureItems(let ids):
            let missing = ids.filter { m.position($0) == nil }
            if !missing.isEmpty { return .itemNotFound(missing) }
            if case .reloadItems = self { SnapshotModel.mark(&m.reloaded, ids) } else { SnapshotModel.mark(&m.reconfigured, ids) }
        case .deleteAllItems:
            m = SnapshotModel()
        }
        return nil
    }

    /// Applies the call to a snapshot whose items are `item(i)` for the model's `i`.
    func apply<Item>(to s: inout TableSnapshot<Int, Item>, item: (Int) -> Item) throws(TableSnapshotError<Int, Item>) {
        func items(_ ids: [Int]) -> [Item] { ids.map(item) }
        switch self {
        case .appendSections(let ids): try s.appendSections(ids)
        case .insertSections(let ids, let t, let after):
            if after { try s.insertSections(ids, afterSection: t) } else { try s.insertSections(ids, beforeSection: t) }
        case .deleteSections(let ids): try s.deleteSections(ids)
        case .moveSection(let id, let t, let after):
            if after { try s.moveSection(id, afterSection: t) } else { try s.moveSection(id, beforeSection: t) }
        case .reloadSections(let ids): try s.reloadSections(ids)
        case .appendItems(let ids, let section): try s.appendItems(items(ids), toSection: section)
        case .insertItems(let ids, let t, let after):
            if after { try s.insertItems(items(ids), afterItem: item(t)) } else { try s.insertItems(items(ids), beforeItem: item(t)) }
        case .deleteItems(let ids): try s.deleteItems(items(ids))
        case .moveItem(let id, let t, let after):
            if after { try s.moveItem(item(id), afterItem: item(t)) } else { try s.moveItem(item(id), beforeItem: item(t)) }
        case .reloadItems(let ids): try s.reloadItems(items(ids))
        case .reconfigureItems(let ids): try s.reconfigureItems(items(ids))
        case .deleteAllItems: s.deleteAllItems()
        }
    }
}

/// An item identifier whose hash is the same for every value: every lookup in
/// a snapshot's index compares identifiers along one long probe.
private struct Colliding: Hashable, Sendable, CustomStringConvertible {
    var value: Int
    /// False: hashed as its value, as any identifier.
    var colliding = true
    func hash(into hasher: inout Hasher) { if !colliding { hasher.combine(value) } }
    var description: String { "\(value)" }
}

extension TableSnapshotError where SectionIdentifierType == Int, ItemIdentifierType == Int {
    /// The same error with items `item(i)`.
    fileprivate func mapItems<Item>(_ item: (Int) -> Item) -> TableSnapshotError<Int, Item> {
        switch self {
        case .duplicateItems(let ids): .duplicateItems(ids.map(item))
        case .duplicateSections(let ids): .duplicateSections(ids)
        case .noSections: .noSections
        case .itemNotFound(let ids): .itemNotFound(ids.map(item))
        case .sectionNotFound(let ids): .sectionNotFound(ids)
        case .itemMovedRelativeToItself(let id): .itemMovedRelativeToItself(item(id))
        case .sectionMovedRelativeToItself(let id): .sectionMovedRelativeToItself(id)
        }
    }
}

/// Every difference between a snapshot and the model, through every query.
private func differences<Item: Hashable & Sendable>(_ s: TableSnapshot<Int, Item>, _ m: SnapshotModel, item: (Int) -> Item) -> [String] {
    var found: [String] = []
    func check<T: Equatable>(_ what: String, _ got: T, _ expected: T) {
        if got != expected { found.append("\(what): \(got), expected \(expected)") }
    }
    check("sectionIdentifiers", s.sectionIdentifiers, m.sections)
    check("numberOfSections", s.numberOfSections, m.sections.count)
    check("itemIdentifiers", s.itemIdentifiers, m.all.map(item))
    check("numberOfItems", s.numberOfItems, m.all.count)
    for (section, rows) in zip(m.sections, m.items) {
        check("itemIdentifiers(inSection: \(section))", try? s.itemIdentifiers(inSection: section), rows.map(item))
        check("numberOfItems(inSection: \(section))", try? s.numberOfItems(inSection: section), rows.count)
    }
    for section in 0..<8 {
        check("indexOfSection(\(section))", s.indexOfSection(section), m.sections.firstIndex(of: section))
    }
    let all = m.all
    for i in 0..<40 {
        let place = m.position(i), id = item(i)
        check("indexOfItem(\(i))", s.indexOfItem(id), all.firstIndex(of: i))
        check("sectionIdentifier(containingItem: \(i))", s.sectionIdentifier(containingItem: id), place.map { m.sections[$0.section] })
        check("indexPath(ofItem: \(i))", s.indexPath(ofItem: id), place.map { TablePath(row: $0.row, section: $0.section) })
        if let place { check("itemIdentifier(at:)", s.itemIdentifier(at: TablePath(row: place.row, section: place.section)), id) }
    }
    check("reloadedItemIdentifiers", s.reloadedItemIdentifiers, m.reloaded.map(item))
    check("reconfiguredItemIdentifiers", s.reconfiguredItemIdentifiers, m.reconfigured.map(item))
    check("reloadedSectionIdentifiers", s.reloadedSectionIdentifiers, m.reloadedSections)
    return found
}

@Suite struct TableSnapshotTests {
    /// Random calls, misuse included: every call does what the naive model does,
    /// every misuse throws the model's error and leaves the snapshot as it was.
    @Test func randomCallsMatchTheModel() {
        randomCalls { $0 }
    }

    /// The same with identifiers whose hashes all collide: the snapshot's
    /// index compares identifiers through its sections, which must agree with
    /// it after every insertion, deletion and move (of rows and of sections).
    @Test func randomCallsMatchTheModelWhenEveryHashCollides() {
        randomCalls { Colliding(value: $0) }
    }

    func randomCalls<Item: Hashable & Sendable>(_ item: (Int) -> Item) {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        var refusals = 0, calls = 0
        for run in 0..<TestScale.cases(8, full: 60) {
            var snapshot = TableSnapshot<Int, Item>()
            var model = SnapshotModel()
            var history: [String] = []
            for _ in 0..<250 {
                let call = Call.random(&g)
                history.append(call.description)
                let before = snapshot
                let expected = call.apply(to: &model)?.mapItems(item)
                calls += 1
                do throws(TableSnapshotError<Int, Item>) {
                    try call.apply(to: &snapshot, item: item)
                    if let expected { Issue.record("seed \(seed) run \(run): \(call) should throw \(expected)\n\(history.joined(separator: "\n"))"); return }
                } catch {
                    refusals += 1
                    if error != expected { Issue.record("seed \(seed) run \(run): \(call) threw \(error), expected \(String(describing: expected))"); return }
                    if snapshot != before { Issue.record("seed \(seed) run \(run): \(call) threw but changed the snapshot"); return }
                }
                snapshot._checkInvariants()   // the derived indexes against the sections, after every call
                let problems = differences(snapshot, model, item: item)
                if !problems.isEmpty {
                    Issue.record("seed \(seed) run \(run) after \(history.joined(separator: "; ")):\n\(problems.prefix(5).joined(separator: "\n"))")
                    return
                }
            }
        }
        // The generator does produce misuse (a test that never throws proves little).
        #expect(refusals > calls / 10)
    }

    /// Random pairs of tables as snapshots (unique identifiers), some items
    /// marked for reload: every staged change passes the UIKit oracle and the
    /// changeset's promises, and the reloaded items are the changed rows.
    @Test(arguments: [TableGenerator.Shape.flat, .sectioned, .shuffledSections, .empty, .unrelated])
    func stagesReplayUnderUIKitRules(shape: TableGenerator.Shape) {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ UInt64(shape.rawValue.count))
        var failures = 0
        for _ in 0..<TestScale.cases(300, full: 1_500) {
            let (generatedOld, generated) = TableGenerator.pair(shape, &g)
            let old = generatedOld.map { TableSection(name: $0.name, rows: $0.rows.map { Item(id: $0.id) }) }
            let oldIDs = Set(old.flatMap(\.rows).map(\.id))
            // Content changes become reload marks (and only those).
            let new = generated.map { section in
                TableSection(name: section.name, rows: section.rows.map { Item(id: $0.id, content: oldIDs.contains($0.id) && g.chance(0.2) ? 1 : 0) })
            }
            let from = snapshot(old), to = snapshot(new, reloading: new.flatMap(\.rows).filter { $0.content == 1 }.map(\.id))
            let stages = from.stages(to: to)
            let changeset = TableChangeset<Item>(stages: stages.map { stage in
                TableChangeset.Stage(update: stage.update, sections: zip(stage.sectionIdentifiers, stage.itemIdentifiers).map { name, ids in
                    TableSection(name: name, rows: ids.map { Item(id: $0, content: content(of: $0, in: new)) })
                })
            })
            let problems = UIKitOracle.problems(of: changeset, from: old, to: new)
            if !problems.isEmpty {
                failures += 1
                if failures <= 3 { Issue.record("seed \(seed): \(describe(old)) → \(describe(new))\n\(problems.joined(separator: "\n"))") }
            }
        }
        expectEqual(failures, 0, "seed \(seed)")
    }

    /// Reloaded sections come last, in a stage of their own, at their new
    /// index; a section that is new is not reloaded.
    @Test func reloadedSectionsGetAStageOfTheirOwn() throws {
        var old = TableSnapshot<String, Int>()
        try old.appendSections(["A", "B"])
        try old.appendItems([1, 2], toSection: "A")
        try old.appendItems([3], toSection: "B")
        var new = old.withoutMarks
        try new.moveSection("B", beforeSection: "A")
        try new.insertSections(["C"], afterSection: "A")
        try new.reloadSections(["A", "C"])
        let stages = old.stages(to: new)
        expectEqual(stages.count, 2)
        expectEqual(stages.last?.update, { var u = BatchUpdate(); u.reloadSections([1]); return u }())
        expectEqual(stages.last?.sectionIdentifiers, ["B", "A", "C"])
        #expect(old.stages(to: old).isEmpty)
    }

    /// A duplicate anywhere in a call is refused whole: none of its items is added.
    @Test func aRefusedAppendAddsNothing() throws {
        var snapshot = TableSnapshot<String, String>()
        try snapshot.appendSections(["S"])
        try snapshot.appendItems(["a", "b"])
        let before = snapshot
        expectThrows(TableSnapshotError<String, String>.duplicateItems(["x", "b"])) {
            try snapshot.appendItems(["w", "x", "x", "b", "y"])
        }
        expectEqual(snapshot, before)
        #expect(snapshot.indexOfItem("w") == nil && snapshot.indexOfItem("x") == nil && snapshot.indexOfItem("y") == nil)
        expectThrows(TableSnapshotError<String, String>.duplicateItems(["a"])) { try snapshot.insertItems(["a"], beforeItem: "a") }
        expectEqual(snapshot.indexPath(ofItem: "a"), TablePath(row: 0, section: 0))
    }

    /// A million items from an array: one call, every lookup right.
    @Test func aMillionItemsInOnePass() throws {
        var snapshot = TableSnapshot<Int, Int>()
        try snapshot.appendSections([0])
        try snapshot.appendItems(Array(0..<1_000_000))
        expectEqual(snapshot.numberOfItems, 1_000_000)
        for item in stride(from: 0, to: 1_000_000, by: 9_973) { expectEqual(snapshot.indexOfItem(item), item) }
    }

    /// Identifiers hashed as their bytes (`_BitwiseHashable`, as `UUID` is):
    /// random batches with duplicates inside a batch and against earlier ones,
    /// deletes and lookups, against a dictionary of where each one is.
    @Test func bitwiseHashedIdentifiersAgainstADictionary() throws {
        struct Pair: _BitwiseHashable { var high: UInt64, low: UInt64 }
        #expect(MemoryLayout<Pair>.size == 16)
        var g = SeededGenerator(seed: SeededGenerator.runSeed())
        // Few distinct highs and lows: pairs that share a word must stay apart.
        func pair() -> Pair { Pair(high: UInt64(g.int(0..<60)), low: UInt64(g.int(0..<60))) }
        var snapshot = TableSnapshot<Int, Pair>()
        var model: [Pair] = []   // one section, in order
        try snapshot.appendSections([0])
        for round in 0..<300 {
            if round % 7 == 6, !model.isEmpty {
                let gone = Array(Set((0..<g.int(1...5)).map { _ in model[g.int(0..<model.count)] }))
                try snapshot.deleteItems(gone)
                model.removeAll { gone.contains($0) }
            } else {
                let batch = (0..<g.int(1...40)).map { _ in pair() }
                var seen = Set(model), duplicates: [Pair] = []
                for p in batch where !seen.insert(p).inserted { duplicates.append(p) }
                do {
                    try snapshot.appendItems(batch)
                    #expect(duplicates.isEmpty, "a batch with duplicates was taken")
                    model += batch
                } catch {
                    #expect(!duplicates.isEmpty, "a batch without duplicates was refused: \(error)")
                }
            }
            snapshot._checkInvariants()
            expectEqual(snapshot.itemIdentifiers, model)
            for (k, p) in model.enumerated() where k % 5 == round % 5 { expectEqual(snapshot.indexOfItem(p), k) }
            let absent = pair()
            expectEqual(snapshot.indexOfItem(absent), model.firstIndex(of: absent))
        }
    }

    /// Items appended one call at a time (a path of its own), into random
    /// sections, through several growths of the index and with deletes
    /// between: a duplicate throws and changes nothing, and every item is
    /// where the model says, with the flat index right across sections.
    @Test(arguments: [false, true])
    func oneItemAppendsAgainstAModel(colliding: Bool) throws {
        var g = SeededGenerator(seed: SeededGenerator.runSeed())
        var snapshot = TableSnapshot<Int, Colliding>()
        var model: [[Int]] = Array(repeating: [], count: 5)
        try snapshot.appendSections(Array(0..<5))
        // Colliding hashes make every probe walk every item: fewer of them.
        let rounds = colliding ? 300 : 6_000
        var refused = 0
        for round in 0..<rounds {
            let value = g.int(0..<(rounds * 2)), section = g.chance(0.5) ? nil : g.int(0..<5)
            let item = Colliding(value: value, colliding: colliding)
            let before = snapshot
            let present = model.contains { $0.contains(value) }
            do {
                try snapshot.appendItems([item], toSection: section)
                #expect(!present, "round \(round): \(value) appended twice")
                model[section ?? 4].append(value)
            } catch {
                #expect(present && error == .duplicateItems([item]), "round \(round): \(error)")
                expectEqual(snapshot, before)
                refused += 1
            }
            if round % 97 == 96 {
                let gone = model.joined().filter { _ in g.chance(0.1) }
                try snapshot.deleteItems(gone.map { Colliding(value: $0, colliding: colliding) })
                for s in model.indices { model[s].removeAll { gone.contains($0) } }
                snapshot._checkInvariants()   // every 97 rounds: the check is O(n)
            }
        }
        snapshot._checkInvariants()
        #expect(refused > 0)
        expectEqual(snapshot.itemIdentifiers.map(\.value), Array(model.joined()))
        var flat = 0
        for (s, rows) in model.enumerated() {
            for (r, value) in rows.enumerated() {
                let item = Colliding(value: value, colliding: colliding)
                expectEqual(snapshot.indexPath(ofItem: item), TablePath(row: r, section: s))
                expectEqual(snapshot.indexOfItem(item), flat)
                flat += 1
            }
        }
    }

    /// The messages name the identifiers, in UIKit's words.
    @Test func errorMessages() {
        typealias E = TableSnapshotError<String, Int>
        let errors: [E] = [
            .duplicateItems([1, 2]), .duplicateSections(["A"]), .noSections, .itemNotFound(Array(1...12)),
            .sectionNotFound(["Z"]), .itemMovedRelativeToItself(7), .sectionMovedRelativeToItself("A"),
        ]
        assertTextSnapshot(of: errors.map(\.description).joined(separator: "\n"))
    }
}

private func snapshot(_ table: Table, reloading: [Int] = []) -> TableSnapshot<String, Int> {
    var snapshot = TableSnapshot<String, Int>()
    for section in table {
        try! snapshot.appendSections([section.name])
        try! snapshot.appendItems(section.rows.map(\.id), toSection: section.name)
    }
    try! snapshot.reloadItems(reloading)
    snapshot._checkInvariants()
    return snapshot
}

private func content(of id: Int, in table: Table) -> Int {
    table.lazy.flatMap(\.rows).first { $0.id == id }?.content ?? 0
}
