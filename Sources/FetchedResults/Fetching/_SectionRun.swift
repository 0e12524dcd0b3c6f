import RecordStore
import Records
import TableDiff
/// A section of a controller's results, or a run of consecutive elements
/// with one section name: the name and how many objects it holds.
@usableFromInline
package struct _SectionRun: Equatable, Sendable {
    /// The section name ("" for a nil value, and for the one section of a
    /// controller without a section key path).
    @usableFromInline package var name: String
    /// The number of objects; 0 only for the one section of an empty
    /// controller without a section key path.
    @usableFromInline package var count: Int

    @inlinable
    package init(name: String, count: Int) {
        self.name = name
        self.count = count
    }
}
