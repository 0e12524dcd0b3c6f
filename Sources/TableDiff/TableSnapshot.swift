/// The sections and items of a table at one moment, by identifier — UIKit's
/// `NSDiffableDataSourceSnapshot`.
///
/// Build one with the same calls as UIKit's, and give it to a diffable data
/// source (`TableViewDiffableDataSource` in HeadlessTable), which diffs it with
/// the table it shows and applies the difference as checked batch updates:
///
/// ```swift
/// var snapshot = TableSnapshot<String, Int>()
/// try snapshot.appendSections(["Fruit", "Vegetables"])
/// try snapshot.appendItems([1, 2, 3], toSection: "Fruit")
/// try snapshot.appendItems([4, 5])            // into the last section
/// try snapshot.reconfigureItems([2])          // refresh its cell in place
/// ```
///
/// **Misuse throws.** Every call UIKit traps or logs on — an identifier that is
/// already in the snapshot (item or section), appending with no section, an
/// identifier that is not in the snapshot, moving an item or section relative
/// to itself — throws a ``TableSnapshotError`` that names the identifiers, and
/// leaves the snapshot as it was.
///
/// **Reload and reconfigure.** ``reloadItems(_:)`` asks for a new cell for an
/// item when the snapshot is applied; ``reconfigureItems(_:)`` for its existing
/// cell to be configured again, in place. Both are marks on this snapshot only:
/// a data source's current snapshot has none.
///
/// **Cost.** Lookups of an item or section (``indexOfItem(_:)``,
/// ``sectionIdentifier(containingItem:)``, ``indexOfSection(_:)``) are O(1)
/// expected. Appending *k* items to the last section is O(*k*); building a
/// snapshot of a million items from an array is one pass, hashing each
/// identifier once. Inserting, deleting or moving items in the middle of a
/// section costs the rows after the place; a change to the sections costs the
/// number of sections.
public struct TableSnapshot<SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable>: Sendable {
    /// The section identifiers, in order.
    @usableFromInline var _sections: [SectionIdentifierType] = []
    /// The items of each section, in the order of `_sections`.
    @usableFromInline var _items: [[ItemIdentifierType]] = []
    /// The stable slot of each section, in the order of `_sections`. A slot is
    /// given once, so items keep their section's slot when sections move.
    @usableFromInline var _slots: [Int32] = []
    /// The position of each slot's section in `_sections` (-1 for a deleted one).
    @usableFromInline var _slotPositions: [Int32] = []
    /// The position of each section, by identifier.
    @usableFromInline var _sectionPositions: [SectionIdentifierType: Int] = [:]
    /// The flat index of the first item of each section, and the item count last.
    @usableFromInline var _starts: [Int] = [0]
    /// Where every item is (its identifiers compared in `_items`).
    @usableFromInline var _locations = _SnapshotIndex<ItemIdentifierType>()
    @usableFromInline var _reloadedItems = _Marks<ItemIdentifierType>()
    @usableFromInline var _reconfiguredItems = _Marks<ItemIdentifierType>()
    @usableFromInline var _reloadedSections = _Marks<SectionIdentifierType>()

    /// Creates an empty snapshot: no sections, no items.
    @inlinable
    public init() {}
}

/// Identifiers marked for reload or reconfigure, in the order they were marked.
@usableFromInline
struct _Marks<Identifier: Hashable & Sendable>: Sendable, Equatable {
    @usableFromInline var ordered: [Identifier] = []
    @usableFromInline var members: Set<Identifier> = []

    @inlinable
    init() {}

    @inlinable
    mutating func insert(contentsOf identifiers: [Identifier]) {
        for identifier in identifiers where members.insert(identifier).inserted { ordered.append(identifier) }
    }

    /// Forgets marks of identifiers that left the snapshot.
    ///
    /// - Complexity: O(*k*), and O(*m*) more for *m* marks when one of them left.
    @inlinable
    mutating func remove(_ identifiers: some Sequence<Identifier>) {
        guard !members.isEmpty else { return }
        var removedAny = false
        for identifier in identifiers where members.remove(identifier) != nil { removedAny = true }
        if removedAny { ordered.removeAll { !members.contains($0) } }
    }

    @inlinable
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.members == rhs.members }
}

// MARK: - Queries

extension TableSnapshot {
    /// The number of items in all sections.
    @inlinable
    public var numberOfItems: Int { _starts[_starts.count - 1] }

    /// The number of sections.
    @inlinable
    public var numberOfSections: Int { _sections.count }

    /// The section identifiers, in order.
    @inlinable
    public var sectionIdentifiers: [SectionIdentifierType] { _sections }

    /// The item identifiers of all sections, in order.
    ///
    /// - Complexity: O(*n*) for *n* items.
    @inlinable
    public var itemIdentifiers: [ItemIdentifierType] { _items.count == 1 ? _items[0] : Array(_items.joined()) }

    /// The items of every section, in order (for the data sources of this package).
    package var itemIdentifiersBySection: [[ItemIdentifierType]] { _items }

    /// The items of a section, in order; nil when the section is not in the
    /// snapshot (for the data sources of this package, where a missing
    /// section means no items rather than a mistake).
    @inlinable
    package func itemIdentifiersIfPresent(inSection identifier: SectionIdentifierType) -> [ItemIdentifierType]? {
        indexOfSection(identifier).map { _items[$0] }
    }

    /// The number of items in a section.
    ///
    /// - Throws: ``TableSnapshotError/sectionNotFound(_:)`` when the section is
    ///   not in the snapshot.
    @inlinable
    public func numberOfItems(inSection identifier: SectionIdentifierType) throws(TableSnapshotError<SectionIdentifierType, ItemIdentifierType>) -> Int {
        try _items[_position(of: identifier)].count
    }

    /// The item identifiers of a section, in order.
    ///
    /// - Throws: ``TableSnapshotError/sectionNotFound(_:)`` when the section is
    ///   not in the snapshot.
    @inlinable
    public func itemIdentifiers(inSection identifier: SectionIdentifierType) throws(TableSnapshotError<SectionIdentifierType, ItemIdentifierType>) -> [ItemIdentifierType] {
        try _items[_position(of: identifier)]
    }

    /// The section that holds an item, or nil when the item is not in the snapshot.
    @inlinable
    public func sectionIdentifier(containingItem identifier: ItemIdentifierType) -> SectionIdentifierType? {
        guard let location = _location(of: identifier) else { return nil }
        return _sections[Int(_slotPositions[Int(location.slot)])]
    }

    /// The index of an item among all items (as in ``itemIdentifiers``), or nil
    /// when it is not in the snapshot.
    @inlinable
    public func indexOfItem(_ identifier: ItemIdentifierType) -> Int? {
        guard let location = _location(of: identifier) else { return nil }
        return _starts[Int(_slotPositions[Int(location.slot)])] + Int(location.row)
    }

    /// The index of a section, or nil when it is not in the snapshot.
    @inlinable
    public func indexOfSection(_ identifier: SectionIdentifierType) -> Int? { _sectionPositions[identifier] }

    /// The place of an item in the table the snapshot describes, or nil when it
    /// is not in the snapshot.
    @inlinable
    public func indexPath(ofItem identifier: ItemIdentifierType) -> TablePath? {
        guard let location = _location(of: identifier) else { return nil }
        return TablePath(row: Int(location.row), section: Int(_slotPositions[Int(location.slot)]))
    }

    /// The item at a place in the table the snapshot describes, or nil when
    /// there is no such row.
    @inlinable
    public func itemIdentifier(at indexPath: TablePath) -> ItemIdentifierType? {
        guard _items.indices.contains(indexPath.section), _items[indexPath.section].indices.contains(indexPath.row) else { return nil }
        return _items[indexPath.section][indexPath.row]
    }

    /// The items marked by ``reloadItems(_:)``, in the order they were marked.
    @inlinable
    public var reloadedItemIdentifiers: [ItemIdentifierType] { _reloadedItems.ordered }

    /// The items marked by ``reconfigureItems(_:)``, in the order they were marked.
    @inlinable
    public var reconfiguredItemIdentifiers: [ItemIdentifierType] { _reconfiguredItems.ordered }

    /// The sections marked by ``reloadSections(_:)``, in the order they were marked.
    @inlinable
    public var reloadedSectionIdentifiers: [SectionIdentifierType] { _reloadedSections.ordered }

    /// Where an item is, or nil when it is not in the snapshot.
    @inlinable
    func _location(of item: ItemIdentifierType) -> _ItemLocation? {
        _locations.location(of: item, in: _items, positions: _slotPositions)
    }

    @inlinable
    func _position(of section: SectionIdentifierType) throws(TableSnapshotError<SectionIdentifierType, ItemIdentifierType>) -> Int {
        guard let position = _sectionPositions[section] else { throw .sectionNotFound([section]) }
        return position
    }
}

extension TableSnapshot: Equatable {
    /// Whether two snapshots have the same sections and items in the same order,
    /// and the same items and sections marked for reload and reconfigure.
    ///
    /// - Complexity: O(*n* + *s*).
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs._sections == rhs._sections && lhs._items == rhs._items && lhs._reloadedItems == rhs._reloadedItems
            && lhs._reconfiguredItems == rhs._reconfiguredItems && lhs._reloadedSections == rhs._reloadedSections
    }
}

extension TableSnapshot: CustomStringConvertible {
    /// The sections and their items, one section per line, with the marks.
    public var description: String {
        var lines = zip(_sections, _items).map { "\(String(describing: $0)): \($1.map { String(describing: $0) }.joined(separator: ", "))" }
        if !_reloadedSections.ordered.isEmpty { lines.append("reloaded sections: \(_reloadedSections.ordered)") }
        if !_reloadedItems.ordered.isEmpty { lines.append("reloaded items: \(_reloadedItems.ordered)") }
        if !_reconfiguredItems.ordered.isEmpty { lines.append("reconfigured items: \(_reconfiguredItems.ordered)") }
        return lines.isEmpty ? "(empty snapshot)" : lines.joined(separator: "\n")
    }
}
