import TableDiff

extension TableViewDiffableDataSource {
    /// What a tap on a parent row asks before it expands or collapses the row,
    /// and tells — UIKit's `UICollectionViewDiffableDataSource.SectionSnapshotHandlers`.
    ///
    /// Every closure is optional: a nil `should` handler allows, a nil `will`
    /// handler does nothing. They are asked for taps
    /// (``TableView/tapRow(at:)`` on a row with children), not for
    /// ``expand(_:animatingDifferences:)``, ``collapse(_:animatingDifferences:)``
    /// or an applied section snapshot, which are the code's own changes.
    public struct SectionSnapshotHandlers {
        /// Whether a tap may expand an item.
        public var shouldExpandItem: ((ItemIdentifierType) -> Bool)?
        /// A tap is about to expand an item.
        public var willExpandItem: ((ItemIdentifierType) -> Void)?
        /// Whether a tap may collapse an item.
        public var shouldCollapseItem: ((ItemIdentifierType) -> Bool)?
        /// A tap is about to collapse an item.
        public var willCollapseItem: ((ItemIdentifierType) -> Void)?
        /// The children of a parent a tap expands, to load them when they are
        /// first shown: called with the parent and a snapshot of its children
        /// now (`snapshot(of: parent)`), it returns the children to show. When
        /// they differ, they replace the parent's children before it expands.
        public var snapshotForExpandingParent: ((ItemIdentifierType, SectionSnapshot) -> SectionSnapshot)?

        /// Handlers that allow everything and do nothing.
        public init() {}
    }

    /// Shows a section as an outline: the section (appended when it is not in
    /// the snapshot) shows the visible items of `sectionSnapshot`, each row
    /// with its level and disclosure state, and the data source keeps the
    /// outline for ``snapshot(for:)``, ``expand(_:animatingDifferences:)``,
    /// ``collapse(_:animatingDifferences:)`` and taps on parent rows — UIKit's
    /// `apply(_:to:animatingDifferences:completion:)` (a collection view's,
    /// in UIKit).
    ///
    /// The difference from the rows shown is applied as
    /// ``apply(_:animatingDifferences:completion:)`` applies a snapshot's:
    /// checked batches, with rows whose level or disclosure changed
    /// configured again in place.
    ///
    /// - Throws: ``TableViewDiffableDataSourceError/following`` while
    ///   following a fetched results controller; `TableSnapshotError/duplicateItems(_:)`
    ///   when an item of the outline is in another section; what the apply
    ///   throws. The table, the data source and its outlines are then as they were.
    /// - Complexity: O(*n*) for the *n* items of the outline, plus the apply's.
    public final func apply(
        _ sectionSnapshot: SectionSnapshot, to section: SectionIdentifierType, animatingDifferences: Bool = true, completion: (() -> Void)? = nil
    ) throws {
        guard live == nil else {
            completion?()
            throw TableViewDiffableDataSourceError.following
        }
        let shown = current
        var target = shown
        var outline = sectionSnapshot
        outline.prepareOrder()
        let visible = outline.visibleItems
        let before = shown.itemIdentifiersIfPresent(inSection: section) ?? []
        do {
            if target.indexOfSection(section) == nil { try target.appendSections([section]) }
            try target.deleteItems(before)
            try target.appendItems(visible, toSection: section)
            // Rows that stay, and whose level or disclosure changes, are
            // configured again in place.
            let previous = outlines[section]
            let staying = Set(before)
            let changed = visible.filter { item in
                staying.contains(item) && Self.outlineState(of: item, in: previous) != Self.outlineState(of: item, in: outline)
            }
            if !changed.isEmpty { try target.reconfigureItems(changed) }
        } catch {
            completion?()
            throw error
        }
        let previous = outlines[section]
        outlines[section] = outline
        do {
            try apply(target, animatingDifferences: animatingDifferences, completion: completion)
        } catch {
            outlines[section] = previous
            throw error
        }
    }

    /// The outline of a section: the one applied to it, as expanded or
    /// collapsed since; for a section without one, its items as root items;
    /// for a section not in the snapshot, an empty one — UIKit's `snapshot(for:)`.
    ///
    /// - Complexity: O(1) for an outline (a copy on write); O(*r*) for the
    ///   *r* items of a section without one.
    public final func snapshot(for section: SectionIdentifierType) -> SectionSnapshot {
        if live == nil, let outline = outlines[section] { return outline }
        var flat = SectionSnapshot()
        do {
            try flat.append(snapshot().itemIdentifiersIfPresent(inSection: section) ?? [])
        } catch {
            // Not reached: a section's items are unique in a snapshot.
            assertionFailure("the items of section \(section) as root items: \(error)")
        }
        return flat
    }

    /// Expands items of the sections shown as outlines: the rows of their
    /// children (and of the expanded descendants under them) appear after
    /// theirs, one checked batch of inserts per item, and the item's row is
    /// configured again for its disclosure state. An item that is not
    /// visible, or already expanded, changes no row.
    ///
    /// - Throws: `TableSectionSnapshotError/itemNotFound(_:)` naming the
    ///   items that are in no outline, ``TableViewDiffableDataSourceError/following``,
    ///   or what the table or the cell provider throws; the table and the
    ///   outlines are then as they were.
    /// - Complexity: O(*k* log *n*) for the *k* rows shown in a section of
    ///   *n* items — not the rows under collapsed children, nor the rest of
    ///   the section — plus the table's batch (O(*k* log *n* + *w* log *n*)).
    ///   The first expand or collapse after a change of the outline's tree
    ///   rebuilds its order (O(*n*)).
    public final func expand(_ items: [ItemIdentifierType], animatingDifferences: Bool = true) throws {
        try setExpanded(items, true, animatingDifferences: animatingDifferences)
    }

    /// Collapses items of the sections shown as outlines: the rows of their
    /// descendants go, one checked batch of deletes per item.
    ///
    /// - Throws: as ``expand(_:animatingDifferences:)``.
    /// - Complexity: O(*k* log *n*) for the *k* rows hidden, plus the batch.
    public final func collapse(_ items: [ItemIdentifierType], animatingDifferences: Bool = true) throws {
        try setExpanded(items, false, animatingDifferences: animatingDifferences)
    }

    /// The section whose outline holds an item.
    func outlineSection(of item: ItemIdentifierType) -> SectionIdentifierType? {
        outlines.first { $0.value.contains(item) }?.key
    }

    func setExpanded(_ items: [ItemIdentifierType], _ expanded: Bool, animatingDifferences: Bool) throws {
        guard let tableView else { return }
        guard live == nil else { throw TableViewDiffableDataSourceError.following }
        var located: [(section: SectionIdentifierType, item: ItemIdentifierType)] = []
        var missing: [ItemIdentifierType] = []
        for item in items {
            if let section = outlineSection(of: item) { located.append((section, item)) } else { missing.append(item) }
        }
        guard missing.isEmpty else { throw TableSectionSnapshotError<ItemIdentifierType>.itemNotFound(missing) }
        if tableView.queuesUpdates || pendingApply != nil {
            // The table is showing a batch: the change waits as an apply does.
            for section in Set(located.map(\.section)) {
                var outline = outlines[section]!
                let mine = located.filter { $0.section == section }.map(\.item)
                if expanded { try outline.expand(mine) } else { try outline.collapse(mine) }
                try apply(outline, to: section, animatingDifferences: animatingDifferences)
            }
            return
        }
        let animation: TableView.RowAnimation = animatingDifferences ? defaultRowAnimation : .none
        var done: [(section: SectionIdentifierType, item: ItemIdentifierType)] = []
        try tableView.performStaged {
            for (section, item) in located {
                guard let index = _current.indexOfSection(section), var outline = outlines.removeValue(forKey: section) else { continue }
                let wasExpanded = outline.isExpanded(item)
                let change = outline.setExpanded(item, expanded)
                let row = outline.visibleIndex(of: item)
                outlines[section] = outline
                outlineRows[index] = section
                currentGeneration &+= 1
                guard wasExpanded != expanded else { continue }
                var update = BatchUpdate()
                if let change {
                    let rows = (change.row + 1..<change.row + 1 + change.count).map { TablePath(row: $0, section: index) }
                    if expanded { update.insertRows(at: rows) } else { update.deleteRows(at: rows) }
                }
                // The item's row shows its new disclosure state.
                let reconfigure = row.map { [TablePath(row: $0, section: index)] } ?? []
                do {
                    if !update.isEmpty {
                        try tableView.performBatchUpdates(update, reconfiguring: reconfigure, animations: TableView.RowAnimations(animation))
                    } else if !reconfigure.isEmpty {
                        try tableView.reconfigureRows(at: reconfigure)
                    }
                } catch {
                    // This batch changed nothing; the earlier ones are undone
                    // by reloading the table.
                    revert(section, item, to: wasExpanded)
                    guard !done.isEmpty else { throw error }
                    for (section, item) in done.reversed() { revert(section, item, to: !expanded) }
                    do {
                        try tableView.reloadData()
                    } catch let second {
                        throw TableViewDiffableDataSourceError.restoreFailed(original: error, restoring: second)
                    }
                    throw error
                }
                done.append((section, item))
            }
        }
    }

    /// Puts an item's expansion back after a failed batch.
    private func revert(_ section: SectionIdentifierType, _ item: ItemIdentifierType, to expanded: Bool) {
        guard var outline = outlines.removeValue(forKey: section) else { return }
        _ = outline.setExpanded(item, expanded)
        outlines[section] = outline
        currentGeneration &+= 1
    }

    /// Writes the rows of the sections expanded or collapsed since the last
    /// full change back into `_current` and `reported`.
    ///
    /// - Complexity: O(*n*) for those sections' items.
    func settleOutlines() {
        let rows = outlineRows
        outlineRows = [:]
        for (index, section) in rows {
            guard let outline = outlines[section] else { continue }
            let visible = outline.visibleItems
            if let items = _current.itemIdentifiersIfPresent(inSection: section) {
                // The rows shown are the visible items already (an expansion
                // checks that none is in another section): the snapshot
                // follows, all or nothing.
                var settled = _current
                do {
                    try settled.deleteItems(items)
                    try settled.appendItems(visible, toSection: section)
                    _current = settled
                } catch {
                    assertionFailure("the rows of section \(section) written back: \(error)")
                }
            }
            if reported.items.indices.contains(index) { reported.items[index] = visible }
        }
    }

    /// Forgets the outlines of sections whose rows no longer are their
    /// visible items (after a full apply, a reload or a user's move).
    ///
    /// - Complexity: O(*n*) for the items of sections with outlines.
    func keepMatchingOutlines() {
        guard !outlines.isEmpty else { return }
        for (section, outline) in outlines {
            guard let items = _current.itemIdentifiersIfPresent(inSection: section), items == outline.visibleItems else {
                outlines[section] = nil
                continue
            }
        }
    }

    /// Sets a cell's outline state (and its indentation level, as UIKit's
    /// list cells take it from the section snapshot) for the row of `item`.
    func showOutline(of item: ItemIdentifierType, inSection index: Int, on cell: TableViewCell) {
        var state: TableFrame.Outline?
        if live == nil, !outlines.isEmpty, let section = sectionIdentifier(for: index) {
            state = Self.outlineState(of: item, in: outlines[section])
        }
        if let state {
            cell.outline = state
            cell.indentationLevel = state.level
        } else if cell.outline != nil {
            cell.outline = nil
            cell.indentationLevel = 0
        }
    }

    /// An item's level and disclosure state in an outline; nil without one.
    static func outlineState(of item: ItemIdentifierType, in outline: SectionSnapshot?) -> TableFrame.Outline? {
        // An item the outline does not hold (the one error `level(of:)` has) has no state.
        guard let outline, outline.contains(item), let level = try? outline.level(of: item) else { return nil }
        let disclosure: TableFrame.Outline.Disclosure =
            !outline.hasChildren(item) ? .none : outline.isExpanded(item) ? .expanded : .collapsed
        return TableFrame.Outline(level: level, disclosure: disclosure)
    }

    /// Whether an item is in a section other than `section`.
    func isElsewhere(_ item: ItemIdentifierType, than section: SectionIdentifierType) -> Bool {
        if let other = _current.sectionIdentifier(containingItem: item), other != section { return true }
        return outlines.contains { $0.key != section && $0.value.contains(item) }
    }
}

extension TableViewDiffableDataSource: _OutlineTapHandling {
    /// A tap on a row of an outline with children expands or collapses it,
    /// as the handlers allow; true when the row is such a parent.
    func tableView(_ tableView: TableView, toggleOutlineAt path: TablePath) throws -> Bool {
        guard live == nil, !outlines.isEmpty, let section = sectionIdentifier(for: path.section), outlines[section] != nil,
            let item = itemIdentifier(for: path), outlines[section]!.hasChildren(item)
        else { return false }
        let handlers = sectionSnapshotHandlers
        if outlines[section]!.isExpanded(item) {
            if handlers.shouldCollapseItem?(item) == false { return true }
            handlers.willCollapseItem?(item)
            try setExpanded([item], false, animatingDifferences: true)
            return true
        }
        if handlers.shouldExpandItem?(item) == false { return true }
        handlers.willExpandItem?(item)
        if let provide = handlers.snapshotForExpandingParent {
            let children = try outlines[section]!.snapshot(of: item)
            let given = provide(item, children)
            if given != children {
                let elsewhere = given.items.filter { isElsewhere($0, than: section) }
                guard elsewhere.isEmpty else { throw Snapshot.Failure.duplicateItems(elsewhere) }
                // The parent is collapsed: its children do not show, and
                // replacing them changes no row.
                var outline = outlines.removeValue(forKey: section)!
                defer { outlines[section] = outline }
                try outline.replace(childrenOf: item, using: given)
            }
        }
        try setExpanded([item], true, animatingDifferences: true)
        return true
    }
}

/// A data source whose rows can be expanded and collapsed by a tap.
protocol _OutlineTapHandling: AnyObject {
    /// Expands or collapses the row when it is a parent in an outline; false
    /// for any other row (the tap then selects it).
    func tableView(_ tableView: TableView, toggleOutlineAt path: TablePath) throws -> Bool
}
