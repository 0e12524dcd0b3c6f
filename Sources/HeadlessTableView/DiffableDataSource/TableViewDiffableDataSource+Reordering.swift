import TableDiff

extension TableViewDiffableDataSource {
    /// What the user may move, and what the data source tells before and
    /// after each move — UIKit's `UICollectionViewDiffableDataSource.ReorderingHandlers`,
    /// on the table's data source.
    ///
    /// ```swift
    /// dataSource.reorderingHandlers.canReorderItem = { _ in true }
    /// dataSource.reorderingHandlers.didReorder = { transaction in
    ///     todoOrder = transaction.finalSnapshot.itemIdentifiers
    /// }
    /// table.setEditing(true)
    /// try table.moveRowByUser(from: TablePath(row: 0, section: 0), to: TablePath(row: 2, section: 0))
    /// ```
    ///
    /// A move is a user's drop (``TableView/moveRowByUser(from:to:)``): the
    /// data source asks ``canReorderItem`` (through its
    /// ``TableViewDiffableDataSource/tableView(_:canMoveRowAt:)``, unless a
    /// subclass decides there), then calls ``willReorder`` with the
    /// transaction, takes the final snapshot as its own, shows the move in
    /// the table (one batch of one move), and calls ``didReorder``. The data
    /// source's snapshot is then the final one, so an `apply` made in
    /// ``didReorder`` — or any later one — diffs against what the table shows.
    ///
    /// **Differs from UIKit:** UIKit has reordering handlers on the collection
    /// view's diffable data source only; the table's data source has them
    /// here. Without ``canReorderItem`` no row can be moved (UIKit's table
    /// data source: unless a subclass allows it), as before.
    public struct ReorderingHandlers {
        /// Whether the user may move the row of an item; nil: no row can move.
        public var canReorderItem: ((ItemIdentifierType) -> Bool)?
        /// Called with the transaction before the data source and the table change.
        public var willReorder: ((DiffableDataSourceTransaction<SectionIdentifierType, ItemIdentifierType>) -> Void)?
        /// Called with the transaction once the data source's snapshot is the
        /// final one and the table shows the move: update your model here.
        public var didReorder: ((DiffableDataSourceTransaction<SectionIdentifierType, ItemIdentifierType>) -> Void)?

        public init(
            canReorderItem: ((ItemIdentifierType) -> Bool)? = nil,
            willReorder: ((DiffableDataSourceTransaction<SectionIdentifierType, ItemIdentifierType>) -> Void)? = nil,
            didReorder: ((DiffableDataSourceTransaction<SectionIdentifierType, ItemIdentifierType>) -> Void)? = nil
        ) {
            self.canReorderItem = canReorderItem
            self.willReorder = willReorder
            self.didReorder = didReorder
        }
    }

    /// What ``ReorderingHandlers/canReorderItem`` says of the item at a row.
    func canReorder(at indexPath: TablePath) -> Bool {
        guard let canReorderItem = reorderingHandlers.canReorderItem, live == nil, let item = itemIdentifier(for: indexPath) else { return false }
        return canReorderItem(item)
    }

    /// A user's move: the snapshot with the item moved becomes the data
    /// source's, the table shows the move, and the handlers hear of it. When
    /// the table refuses the move, the snapshot is put back and the error
    /// thrown (``ReorderingHandlers/didReorder`` is not called).
    func reorder(from source: TablePath, to destination: TablePath, in tableView: TableView) throws {
        guard live == nil else { throw TableViewDiffableDataSourceError.following }
        let initial = current
        guard let item = initial.itemIdentifier(at: source) else { throw Snapshot.Failure.itemNotFound([]) }
        guard let section = sectionIdentifier(for: destination.section) else { throw Snapshot.Failure.sectionNotFound([]) }
        var moved = initial
        try moved.deleteItems([item])
        let rows = try moved.itemIdentifiers(inSection: section)
        guard destination.row >= 0, destination.row <= rows.count else {
            throw TableViewError.invalidIndexPath(destination, sectionCount: initial.numberOfSections, rowCount: rows.count + 1)
        }
        if destination.row < rows.count {
            try moved.insertItems([item], beforeItem: rows[destination.row])
        } else {
            try moved.appendItems([item], toSection: section)
        }
        let transaction = DiffableDataSourceTransaction(initialSnapshot: initial, finalSnapshot: moved, moving: item)
        reorderingHandlers.willReorder?(transaction)
        show(moved)
        if source != destination {
            do {
                try tableView.moveRow(at: source, to: destination)
            } catch {
                show(initial)
                throw error
            }
        }
        reorderingHandlers.didReorder?(transaction)
    }
}

/// A change of a diffable data source's snapshot: the snapshots before and
/// after it, and their difference — UIKit's `NSDiffableDataSourceTransaction`.
/// A reordering handler gets one for each move by the user.
///
/// ```swift
/// dataSource.reorderingHandlers.didReorder = { transaction in
///     if let order = todos.order.applying(transaction.difference) { todos.order = order }
/// }
/// ```
public struct DiffableDataSourceTransaction<SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable>: Sendable {
    /// The data source's snapshot before the change.
    public let initialSnapshot: TableSnapshot<SectionIdentifierType, ItemIdentifierType>
    /// Its snapshot after the change.
    public let finalSnapshot: TableSnapshot<SectionIdentifierType, ItemIdentifierType>
    /// The change of all the items, in order (`itemIdentifiers`, across
    /// sections): `initialSnapshot.itemIdentifiers.applying(difference)` is
    /// `finalSnapshot.itemIdentifiers`. A move is a removal and an insertion
    /// associated with each other.
    public let difference: CollectionDifference<ItemIdentifierType>
    /// The moved item, and where it was and is (nil: a transaction without a move).
    let move: (item: ItemIdentifierType, from: TablePath, to: TablePath)?

    /// The transaction of a move of one item (from where it is in `initial`
    /// to where it is in `final`).
    init(initialSnapshot initial: TableSnapshot<SectionIdentifierType, ItemIdentifierType>, finalSnapshot final: TableSnapshot<SectionIdentifierType, ItemIdentifierType>, moving item: ItemIdentifierType) {
        initialSnapshot = initial
        finalSnapshot = final
        difference = Self.move(item, from: initial.indexOfItem(item) ?? 0, to: final.indexOfItem(item) ?? 0)
        move = initial.indexPath(ofItem: item).flatMap { from in final.indexPath(ofItem: item).map { (item, from, $0) } }
    }

    /// The difference of a move of one element from one offset to another
    /// (none when they are the same).
    static func move<Element>(_ element: Element, from: Int, to: Int) -> CollectionDifference<Element> {
        guard from != to else { return CollectionDifference<Element>([])! }
        return CollectionDifference([
            .remove(offset: from, element: element, associatedWith: to),
            .insert(offset: to, element: element, associatedWith: from),
        ])!
    }

    /// The change of each section whose items changed, in the final order of
    /// the sections — UIKit's `sectionTransactions`: one for a move within a
    /// section, two for a move across sections (a removal from one, an
    /// insertion into the other).
    ///
    /// - Complexity: O(*r*) for the rows of those sections.
    public var sectionTransactions: [DiffableDataSourceSectionTransaction<SectionIdentifierType, ItemIdentifierType>] {
        guard let move, move.from != move.to else { return [] }
        func transaction(_ index: Int, _ changes: [CollectionDifference<ItemIdentifierType>.Change]) -> DiffableDataSourceSectionTransaction<SectionIdentifierType, ItemIdentifierType> {
            let section = finalSnapshot.sectionIdentifiers[index]
            return DiffableDataSourceSectionTransaction(
                sectionIdentifier: section,
                initialItems: (try? initialSnapshot.itemIdentifiers(inSection: section)) ?? [],
                finalItems: (try? finalSnapshot.itemIdentifiers(inSection: section)) ?? [],
                difference: CollectionDifference(changes) ?? CollectionDifference([])!)
        }
        if move.from.section == move.to.section {
            return [transaction(move.to.section, Array(Self.move(move.item, from: move.from.row, to: move.to.row)))]
        }
        let removal = transaction(move.from.section, [.remove(offset: move.from.row, element: move.item, associatedWith: nil)])
        let insertion = transaction(move.to.section, [.insert(offset: move.to.row, element: move.item, associatedWith: nil)])
        return move.from.section < move.to.section ? [removal, insertion] : [insertion, removal]
    }
}

/// The change of one section's items in a ``DiffableDataSourceTransaction``
/// — UIKit's `NSDiffableDataSourceSectionTransaction`.
///
/// **Differs from UIKit:** the items before and after are arrays (UIKit's are
/// section snapshots).
public struct DiffableDataSourceSectionTransaction<SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable>: Sendable {
    /// The section.
    public let sectionIdentifier: SectionIdentifierType
    /// Its items before the change, in order.
    public let initialItems: [ItemIdentifierType]
    /// Its items after the change, in order.
    public let finalItems: [ItemIdentifierType]
    /// The change of its items: `initialItems.applying(difference)` is
    /// `finalItems` (a move within the section is a removal and an insertion
    /// associated with each other).
    public let difference: CollectionDifference<ItemIdentifierType>
}
