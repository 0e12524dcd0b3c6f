import RecordStore
import Records
import TableDiff

/// A change of a controller's results as its delegate is told it: the
/// sections deleted and inserted, and the objects deleted, updated, moved and
/// inserted, with Core Data's index paths.
///
/// Made once from the objects a change concerns (`init(deletedSections:insertedSections:objects:oldSections:newSections:)`),
/// whether the controller followed the change record by record or fetched
/// again (a request with an offset or a limit).
struct _ChangeReport<R: Record> {
    /// Sections deleted, at their old indexes (ascending).
    var deletedSections: [_SectionChange]
    /// Sections inserted, at their new indexes (ascending).
    var insertedSections: [_SectionChange]
    /// Objects that left the results, at their old index paths.
    var deletes: [_PlacedObject<R>]
    /// Objects that stay, unmoved among the objects around them (see `updatesAndMoves`).
    var updates: [_MovedObject<R>]
    /// Objects that stay and moved.
    var moves: [_MovedObject<R>]
    /// Objects that came into the results, at their new index paths.
    var inserts: [_PlacedObject<R>]

    /// Classifies the objects a change concerns: one with only an old index
    /// path was deleted, one with only a new one inserted, and one with both
    /// is an update or a move (see `updatesAndMoves`), its section the same
    /// when the sections before and after have one name at its index paths.
    ///
    /// - Complexity: O(*k* log *k*) for *k* objects.
    init(
        deletedSections: [_SectionChange], insertedSections: [_SectionChange],
        objects: [_ObjectPaths<R>], oldSections: _SectionsBefore, newSections: [_SectionRun]
    ) {
        self.deletedSections = deletedSections
        self.insertedSections = insertedSections
        var deletes: [_PlacedObject<R>] = [], inserts: [_PlacedObject<R>] = [], kept: [_Kept<R>] = []
        for object in objects {
            switch (object.old, object.new) {
            case let (old?, nil):
                deletes.append(_PlacedObject(record: object.record, path: old))
            case let (nil, new?):
                inserts.append(_PlacedObject(record: object.record, path: new))
            case let (old?, new?):
                let sameSection = oldSections[old.section].name == newSections[new.section].name
                kept.append(_Kept(record: object.record, old: old, new: new, sameSection: sameSection, changedKeys: object.changedKeys))
            case (nil, nil):
                break
            }
        }
        (updates, moves) = Self.updatesAndMoves(kept, deletes: deletes, inserts: inserts)
        self.deletes = deletes
        self.inserts = inserts
    }

    /// The changed keys of each updated or moved object whose keys are known.
    var changedKeys: [R.ID: Set<String>] {
        var keys: [R.ID: Set<String>] = [:]
        for object in updates + moves { if let changed = object.changedKeys { keys[object.record.id] = changed } }
        return keys
    }

    /// Whether the change reports nothing: no section and no object.
    var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && deletes.isEmpty && updates.isEmpty && moves.isEmpty && inserts.isEmpty
    }
}

/// An object a change concerns, with its index paths before and after (nil:
/// not in the results then).
struct _ObjectPaths<R: Record> {
    /// The object as it is told (the record now, or the last one seen).
    var record: R
    /// Its index path before the change; nil when it was not in the results.
    var old: TablePath?
    /// Its index path after the change; nil when it is not in the results.
    var new: TablePath?
    /// For an object in the results before and after: the keys whose values
    /// changed; nil when not known.
    var changedKeys: Set<String>?
}

/// An object at one index path: a deleted object at its old one, an inserted
/// object at its new one.
struct _PlacedObject<R: Record> {
    /// The object.
    var record: R
    /// Its index path: before the change for a delete, after it for an insert.
    var path: TablePath
}

/// An object that stays in the results: its index paths before and after.
struct _MovedObject<R: Record> {
    /// The object after the change.
    var record: R
    /// Its index path before the change.
    var old: TablePath
    /// Its index path after the change.
    var new: TablePath
    /// The keys whose values changed; nil when not known.
    var changedKeys: Set<String>?
}

/// A section a change deleted (at its old index) or inserted (at its new index).
struct _SectionChange {
    /// The section's index: before the change for a delete, after it for an insert.
    var index: Int
    /// Its name, and its number of objects (before or after).
    var section: _SectionRun
}
