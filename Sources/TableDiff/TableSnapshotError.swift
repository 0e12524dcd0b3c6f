/// Why a ``TableSnapshot`` refused a change: the misuses UIKit's
/// `NSDiffableDataSourceSnapshot` traps or logs on, each naming the identifiers.
///
/// The snapshot is left as it was. ``description`` follows UIKit's words.
public enum TableSnapshotError<SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable>: Error, Hashable, CustomStringConvertible {
    /// Item identifiers that are already in the snapshot, or given twice.
    case duplicateItems([ItemIdentifierType])
    /// Section identifiers that are already in the snapshot, or given twice.
    case duplicateSections([SectionIdentifierType])
    /// Items were appended to a snapshot without sections.
    case noSections
    /// Item identifiers that are not in the snapshot.
    case itemNotFound([ItemIdentifierType])
    /// Section identifiers that are not in the snapshot.
    case sectionNotFound([SectionIdentifierType])
    /// An item was moved before or after itself.
    case itemMovedRelativeToItself(ItemIdentifierType)
    /// A section was moved before or after itself.
    case sectionMovedRelativeToItself(SectionIdentifierType)

    /// UIKit's message for the misuse, with the identifiers.
    public var description: String {
        func list<T>(_ identifiers: [T]) -> String {
            let shown = identifiers.prefix(10).map { String(describing: $0) }.joined(separator: ", ")
            return identifiers.count > 10 ? "\(shown), … (\(identifiers.count) in all)" : shown
        }
        switch self {
        case .duplicateItems(let items):
            return "Supplied item identifiers are not unique. Duplicate identifiers: \(list(items))"
        case .duplicateSections(let sections):
            return "Supplied section identifiers are not unique. Duplicate identifiers: \(list(sections))"
        case .noSections:
            return "There are currently no sections in the data source. Please add a section first."
        case .itemNotFound(let items):
            return "Invalid item identifiers: not in the snapshot: \(list(items))"
        case .sectionNotFound(let sections):
            return "Invalid section identifiers: not in the snapshot: \(list(sections))"
        case .itemMovedRelativeToItself(let item):
            return "Attempted to move item identifier relative to itself: \(item)"
        case .sectionMovedRelativeToItself(let section):
            return "Attempted to move section identifier relative to itself: \(section)"
        }
    }
}
