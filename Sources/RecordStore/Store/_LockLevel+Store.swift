import InternalTableUtilities

// The order of the store's locks. A thread takes them only in this order
// (each only while holding none at or above its level), and debug builds
// trap on the first taken out of order (`_LockOrder` in
// InternalTableUtilities); the store's design article has the same list
// (<doc:StoreFileFormat>, "Locks").
//
//   10  ObjectStore.state              a save, a lookup, picking up others' saves
//   20  JournalFilePersistence.compactionGate
//                                      a whole compaction, one at a time
//   30  JournalFilePersistence.state   the file's bookkeeping
//   40  the journal file's flock       shared to read, exclusive to write
//   50  JournalFilePersistence.backgroundCompactionQueued
//                                      a flag, taken last (after a save)
//
// A save: ObjectContext.save → ObjectStore.commit takes the store's state
// (10) → JournalFilePersistence.commit takes the journal's state (30) →
// lockCurrent takes the file's flock (40), exclusively → the store's
// `prepare` closure runs under all three, with the store's state it was
// given (it takes no lock) → released in reverse; then, still under the
// store's state, the journal checks whether to compact (30 again, then 50).
// A compaction: the gate (20) → the journal's state (30) → the flock (40);
// it never takes the store's state. Picking up other stores' saves
// (mergeExternalChanges, and a save's first step): 10 → 30 → 40 (shared).
// Other locks (a context's notification streams, the predicate folding
// cache, counters) never nest and have no level.

extension _LockLevel {
    /// `ObjectStore.state`: the records, taken first.
    package static let objectStore = _LockLevel(rank: 10, name: "ObjectStore.state")
    /// `JournalFilePersistence.compactionGate`: held for a whole compaction.
    package static let compactionGate = _LockLevel(rank: 20, name: "JournalFilePersistence.compactionGate")
    /// `JournalFilePersistence.state`: the journal file's bookkeeping.
    package static let journalState = _LockLevel(rank: 30, name: "JournalFilePersistence.state")
    /// The journal file's `flock` (shared to read, exclusive to write).
    package static let journalFile = _LockLevel(rank: 40, name: "the journal file's flock")
    /// `JournalFilePersistence.backgroundCompactionQueued`: a flag, taken last.
    package static let compactionQueued = _LockLevel(rank: 50, name: "JournalFilePersistence.backgroundCompactionQueued")
}
