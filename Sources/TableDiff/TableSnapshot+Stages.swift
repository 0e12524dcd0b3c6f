extension TableSnapshot {
    /// One batch of the change from one snapshot to another, and the table
    /// during it: what a data source reports while the batch is performed.
    public struct Stage: Sendable, Equatable {
        /// The batch to perform.
        public var update: BatchUpdate
        /// The sections after this batch.
        public var sectionIdentifiers: [SectionIdentifierType]
        /// The items of each section after this batch.
        public var itemIdentifiers: [[ItemIdentifierType]]

        /// Creates a stage from its batch and the table after it.
        @inlinable
        public init(update: BatchUpdate, sectionIdentifiers: [SectionIdentifierType], itemIdentifiers: [[ItemIdentifierType]]) {
            self.update = update
            self.sectionIdentifiers = sectionIdentifiers
            self.itemIdentifiers = itemIdentifiers
        }
    }

    /// The batch updates that turn the table this snapshot describes into the
    /// one `new` describes, with the guarantees of ``TableChangeset``: items and
    /// sections are paired by identifier, a paired item is never deleted and
    /// reinserted, moves are as few as possible, and every stage passes UIKit's
    /// checks.
    ///
    /// Items marked in `new` by ``reloadItems(_:)`` that were already here are
    /// reloaded (new cells), at their place in the stage that reloads them, as
    /// a changed row of a changeset is. Sections marked by ``reloadSections(_:)``
    /// that were already here are reloaded in a last stage of their own.
    /// Reconfigured items are not part of the batches: they keep their cells,
    /// which the data source configures again after the last stage
    /// (``reconfiguredItemIdentifiers`` of `new`).
    ///
    /// - Complexity: O(*n* + *s* + *m* log *m*) expected, as ``TableChangeset``;
    ///   every identifier is hashed once.
    @inlinable
    public func stages(to new: TableSnapshot) -> [Stage] {
        let oldRows = _items.count == 1 ? _items[0] : Array(_items.joined())
        let newRows = new._items.count == 1 ? new._items[0] : Array(new._items.joined())
        var rows = _matchIdentities(oldRows, newRows)
        for item in new._reloadedItems.ordered {
            guard let j = new.indexOfItem(item), rows.newToOld[j] >= 0 else { continue }
            rows.changed[Int(rows.newToOld[j])] = true
            rows.hasChanges = true
        }
        let sections = _matchIdentities(_sections, new._sections)
        let planned = _planStages(
            oldRowCounts: _items.map(\.count), newRowCounts: new._items.map(\.count), rows: rows, sections: sections)

        var stages = planned.map { stage in
            guard let layout = stage.layout else {
                return Stage(update: stage.update, sectionIdentifiers: new._sections, itemIdentifiers: new._items)
            }
            var items: [[ItemIdentifierType]] = []
            items.reserveCapacity(layout.sections.count)
            for (ref, refs) in zip(layout.sections, layout.rows) {
                if let refs {
                    items.append(refs.map { _Ref.element($0, old: oldRows, new: newRows) })
                } else {
                    items.append(_Ref.element(ref, old: _items, new: new._items))
                }
            }
            return Stage(update: stage.update, sectionIdentifiers: layout.sections.map { _Ref.element($0, old: _sections, new: new._sections) }, itemIdentifiers: items)
        }
        let reloadedSections = new._reloadedSections.ordered.compactMap { section -> Int? in
            guard _sectionPositions[section] != nil else { return nil }
            return new._sectionPositions[section]
        }
        if !reloadedSections.isEmpty {
            var update = BatchUpdate()
            update.reloadSections(reloadedSections)
            stages.append(Stage(update: update, sectionIdentifiers: new._sections, itemIdentifiers: new._items))
        }
        return stages
    }
}

/// Pairs identifiers: as rows whose content never changes (a snapshot's changes
/// of content are its reload marks), read in place — an identity is a struct
/// of one stored identifier, so the identifiers' memory is read as identities.
@inlinable
func _matchIdentities<ID: Hashable>(_ old: [ID], _ new: [ID]) -> _Matching {
    old.withUnsafeBufferPointer { old in
        new.withUnsafeBufferPointer { new in
            old.withMemoryRebound(to: _Identity<ID>.self) { old in
                new.withMemoryRebound(to: _Identity<ID>.self) { new in _matchIdentities(old: old, new: new) }
            }
        }
    }
}

/// An identifier as a diffable row whose content never changes.
@frozen @usableFromInline
struct _Identity<ID: Hashable>: TableDiffable {
    @usableFromInline let id: ID

    @inlinable
    init(_ id: ID) { self.id = id }

    @inlinable
    var diffIdentifier: ID { id }

    @inlinable
    func isContentEqual(to other: _Identity<ID>) -> Bool { true }
}
