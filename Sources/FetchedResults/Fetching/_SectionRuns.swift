import PredicateFormat
import RecordStore
import Records
import TableDiff
/// Sections made from section names in order: consecutive equal names make
/// one run (one section). The one place that knows what a run is, and that
/// a name starting a second run is out of order (the first sort key does not
/// order the sections: Core Data's "out of order section name").
///
/// ```swift
/// var runs = _SectionRuns(checkingOrder: true)
/// for name in ["a", "a", "b", "a"] { runs.append(name) }
/// runs.runs          // a×2, b×1, a×1
/// runs.firstRepeat   // offset 3, name "a"
/// ```
@usableFromInline
package struct _SectionRuns {
    /// A name that starts a run after an earlier run of it.
    @usableFromInline
    package struct Repeat: Equatable, Sendable {
        /// The number of objects before it (its position in the order).
        @usableFromInline package var offset: Int
        /// The section name.
        @usableFromInline package var name: String

        @inlinable
        package init(offset: Int, name: String) {
            self.offset = offset
            self.name = name
        }
    }

    // Written only by `append` (stored and visible so that the inlinable
    // code that builds sections is specialized where it is used).

    /// The runs so far, in order; consecutive runs have different names.
    @usableFromInline package var runs: [_SectionRun] = []
    /// The number of objects appended so far.
    @usableFromInline package var count = 0
    /// The first name that started a second run (checking the order only).
    @usableFromInline package var firstRepeat: Repeat?
    /// The names of the runs so far, when checking the order; nil otherwise
    /// (merging runs then costs no hashing).
    @usableFromInline var seen: Set<String>?

    /// No runs; `checkingOrder` notes the first name that starts a second
    /// run (``firstRepeat``), at the cost of hashing each run's name.
    @inlinable
    package init(checkingOrder: Bool) {
        seen = checkingOrder ? [] : nil
    }

    /// Appends `count` objects named `name`: to the last run when it has the
    /// name, as a new run otherwise. Returns false when the order is checked
    /// and the name starts a second run (the run is appended all the same).
    ///
    /// - Complexity: O(1) amortized (plus hashing the name for a new run,
    ///   when checking).
    @inlinable
    @discardableResult
    package mutating func append(_ name: String, count: Int = 1) -> Bool {
        defer { self.count += count }
        if !runs.isEmpty && runs[runs.count - 1].name == name {
            runs[runs.count - 1].count += count
            return true
        }
        runs.append(_SectionRun(name: name, count: count))
        guard seen?.insert(name).inserted == false else { return true }
        if firstRepeat == nil { firstRepeat = Repeat(offset: self.count, name: name) }
        return false
    }
}
