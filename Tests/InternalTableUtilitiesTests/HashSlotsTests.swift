import InternalTableUtilities
import TableTestSupport
import Testing

/// The one open-addressing table (`_HashSlots`) against a plain list of its
/// entries: random inserts, removals and rewrites with few hashes (long probe
/// runs that wrap around the end), every entry found after every change, the
/// invariants checked.
@Suite struct HashSlotsTests {
    struct Entry: Equatable {
        var hash: UInt32
        var value: Int
    }

    @Test(arguments: [3, 40, 1_000])
    func agreesWithAListOfItsEntries(hashes: Int) {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed &+ UInt64(hashes))
        var table = _HashSlots(capacity: g.int(0...40))
        var oracle: [Entry] = []
        for step in 0..<TestScale.cases(1_000, full: 6_000) {   // each step checks the whole table: quadratic
            // High hash bits vary too: the home slot is the hash masked.
            let hash = UInt32(g.int(0..<hashes)) &* 0x9E37_79B1 | UInt32(g.int(0..<4)) << 30
            let value = g.int(0..<200)
            switch g.int(0..<10) {
            case 0...3:
                table.insert(hash, value: value)
                oracle.append(Entry(hash: hash, value: value))
            case 4:
                let existing = table.insertIfAbsent(hash, value: value) { $0 == value }
                let known = oracle.contains(Entry(hash: hash, value: value))
                expectEqual(existing, (known ? value : nil), "seed \(seed), step \(step)")
                if !known { oracle.append(Entry(hash: hash, value: value)) }
            case 5...7:
                let victim = oracle.isEmpty ? Entry(hash: hash, value: value) : oracle[g.int(0..<oracle.count)]
                let removed = table.remove(victim.hash) { $0 == victim.value }
                let known = oracle.firstIndex(of: victim)
                expectEqual(removed, known.map { _ in victim.value }, "seed \(seed), step \(step)")
                if let known { oracle.remove(at: known) }
            default:
                let victim = oracle.isEmpty ? Entry(hash: hash, value: value) : oracle[g.int(0..<oracle.count)]
                let replaced = table.replaceValue(victim.hash, with: value) { $0 == victim.value }
                let known = oracle.firstIndex(of: victim)
                expectEqual(replaced, (known != nil), "seed \(seed), step \(step)")
                if let known { oracle[known].value = value }
            }
            table._checkInvariants()
            expectEqual(table.count, oracle.count, "seed \(seed), step \(step)")
            if step % 100 == 0 || oracle.count < 20 {
                // Every hash's probe run offers exactly its entries.
                let byHash = Dictionary(grouping: oracle, by: \.hash)
                for (hash, entries) in byHash {
                    var seen: [Int] = []
                    _ = table.value(hash) { seen.append($0); return false }
                    expectEqual(seen.sorted(), entries.map(\.value).sorted(), "seed \(seed), step \(step): the entries of hash \(hash)")
                }
            }
        }
    }

    @Test func anEmptyTableFindsNothing() {
        var table = _HashSlots()
        #expect(table.value(7, where: { _ in true }) == nil)
        let removed = table.remove(7, where: { _ in true })
        let replaced = table.replaceValue(7, with: 1, where: { _ in true })
        let existing = table.insertIfAbsent(7, value: 3, where: { _ in false })
        #expect(removed == nil && !replaced && existing == nil)
        #expect(table.count == 1 && table.value(7, where: { $0 == 3 }) == 3)
    }
}
