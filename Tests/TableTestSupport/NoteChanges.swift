import FetchedResults
import PredicateFormat
import Records

/// A burst of random changes to notes in one context, as the controller,
/// binding and data source property tests make them: inserts, deletes, and
/// edits (a new version, sometimes a new rank or group).
public struct NoteChangeBurst {
    public var groups: [String]
    public var ranks: ClosedRange<Int>
    /// How many changes a burst makes.
    public var changes: ClosedRange<Int>
    /// Of this many equally likely kinds of change, the first inserts, the
    /// second deletes, the others edit.
    public var kinds: Int
    /// The chance that an edit gives a new rank.
    public var newRankChance: Double
    /// The chance that an inserted, or a regrouped, note has no group (0:
    /// never, and nothing is drawn for it).
    public var noGroupOnInsert: Double
    public var noGroupOnEdit: Double

    public init(
        groups: [String], ranks: ClosedRange<Int> = 0...20, changes: ClosedRange<Int> = 1...5, kinds: Int = 4,
        newRankChance: Double = 0.5, noGroupOnInsert: Double = 0.1, noGroupOnEdit: Double = 0.1
    ) {
        self.groups = groups
        self.ranks = ranks
        self.changes = changes
        self.kinds = kinds
        self.newRankChance = newRankChance
        self.noGroupOnInsert = noGroupOnInsert
        self.noGroupOnEdit = noGroupOnEdit
    }

    /// Makes the burst's changes in `context`; `existing` are the identities
    /// in the store, `nextID` the identity of the next insert.
    public func make(in context: ObjectContext, existing: [Int], nextID: inout Int, _ g: inout SeededGenerator) throws {
        func group(_ noGroup: Double) -> String? {
            noGroup > 0 && g.chance(noGroup) ? nil : groups[g.int(0..<groups.count)]
        }
        for _ in 0..<g.int(changes) {
            switch g.int(0..<kinds) {
            case 0:
                try context.insert(Note(id: nextID, group: group(noGroupOnInsert), rank: g.int(ranks)))
                nextID += 1
            case 1 where !existing.isEmpty:
                _ = try? context.delete(Note.self, id: existing[g.int(0..<existing.count)])
            default:
                guard !existing.isEmpty, var note = try context.object(Note.self, id: existing[g.int(0..<existing.count)]) else { continue }
                note.version += 1
                if g.chance(newRankChance) { note.rank = g.int(ranks) }
                if g.chance(0.3) { note.group = group(noGroupOnEdit) }
                try context.update(note)
            }
        }
    }
}

extension ObjectContext {
    /// Saves: the view context itself, or another context merged into the
    /// view; a save that fails (a conflict) is rolled back.
    public func saveOrRollBack(mergingInto view: ObjectContext) {
        if self === view {
            do { try save() } catch { rollback() }
        } else {
            do { view.mergeChanges(fromContextDidSave: try save()) } catch { rollback() }
        }
    }
}
