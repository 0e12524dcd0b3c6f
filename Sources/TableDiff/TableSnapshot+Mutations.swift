extension TableSnapshot {
    public typealias Failure = TableSnapshotError<SectionIdentifierType, ItemIdentifierType>

    // MARK: Sections

    /// Adds sections after the last one.
    ///
    /// - Throws: ``TableSnapshotError/duplicateSections(_:)`` when a section is
    ///   already in the snapshot or given twice.
    /// - Complexity: O(*k*) for *k* sections.
    @inlinable
    public mutating func appendSections(_ identifiers: [SectionIdentifierType]) throws(Failure) {
        try _checkNewSections(identifiers)
        for identifier in identifiers {
            _sectionPositions[identifier] = _sections.count
            _slotPositions.append(Int32(_sections.count))
            _slots.append(Int32(_slotPositions.count - 1))
            _sections.append(identifier)
            _items.append([])
            _starts.append(_starts[_starts.count - 1])
        }
    }

    /// Inserts sections before a section.
    ///
    /// - Throws: ``TableSnapshotError/sectionNotFound(_:)`` when `beforeSection`
    ///   is not in the snapshot, ``TableSnapshotError/duplicateSections(_:)`` when
    ///   a section is already in it or given twice.
    /// - Complexity: O(*k* + *s*) for *k* sections inserted among *s*.
    @inlinable
    public mutating func insertSections(_ identifiers: [SectionIdentifierType], beforeSection: SectionIdentifierType) throws(Failure) {
        try _insertSections(identifiers, at: _position(of: beforeSection))
    }

    /// Inserts sections after a section.
    ///
    /// - Throws: as ``insertSections(_:beforeSection:)``.
    /// - Complexity: O(*k* + *s*).
    @inlinable
    public mutating func insertSections(_ identifiers: [SectionIdentifierType], afterSection: SectionIdentifierType) throws(Failure) {
        try _insertSections(identifiers, at: _position(of: afterSection) + 1)
    }

    /// Deletes sections and their items.
    ///
    /// - Throws: ``TableSnapshotError/sectionNotFound(_:)`` naming every section
    ///   that is not in the snapshot.
    /// - Complexity: O(*k* + *s* + the items of the deleted sections).
    @inlinable
    public mutating func deleteSections(_ identifiers: [SectionIdentifierType]) throws(Failure) {
        let missing = identifiers.filter { _sectionPositions[$0] == nil }
        guard missing.isEmpty else { throw .sectionNotFound(missing) }
        let doomed = Set(identifiers.map { _sectionPositions[$0]! })
        for position in doomed {
            for item in _items[position] { _locations.remove(item, in: _items, positions: _slotPositions) }
            _reloadedItems.remove(_items[position])
            _reconfiguredItems.remove(_items[position])
            _slotPositions[Int(_slots[position])] = -1
        }
        _reloadedSections.remove(identifiers)
        var kept = 0
        for position in _sections.indices where !doomed.contains(position) {
            _sections[kept] = _sections[position]
            _items.swapAt(kept, position)
            _slots[kept] = _slots[position]
            kept += 1
        }
        _sections.removeLast(_sections.count - kept)
        _items.removeLast(_items.count - kept)
        _slots.removeLast(_slots.count - kept)
        _reindexSections()
    }

    /// Moves a section before another.
    ///
    /// - Throws: ``TableSnapshotError/sectionMovedRelativeToItself(_:)`` when
    ///   both are the same, ``TableSnapshotError/sectionNotFound(_:)`` when
    ///   either is not in the snapshot.
    /// - Complexity: O(*s*).
    @inlinable
    public mutating func moveSection(_ identifier: SectionIdentifierType, beforeSection: SectionIdentifierType) throws(Failure) {
        try _moveSection(identifier, relativeTo: beforeSection, after: false)
    }

    /// Moves a section after another.
    ///
    /// - Throws: as ``moveSection(_:beforeSection:)``.
    /// - Complexity: O(*s*).
    @inlinable
    public mutating func moveSection(_ identifier: SectionIdentifierType, afterSection: SectionIdentifierType) throws(Failure) {
        try _moveSection(identifier, relativeTo: afterSection, after: true)
    }

    /// Marks sections to be reloaded when the snapshot is applied: each gets
    /// new cells and header and footer.
    ///
    /// - Throws: ``TableSnapshotError/sectionNotFound(_:)`` naming every section
    ///   that is not in the snapshot.
    @inlinable
    public mutating func reloadSections(_ identifiers: [SectionIdentifierType]) throws(Failure) {
        let missing = identifiers.filter { _sectionPositions[$0] == nil }
        guard missing.isEmpty else { throw .sectionNotFound(missing) }
        _reloadedSections.insert(contentsOf: identifiers)
    }

    // MARK: Items

    /// Adds items after the last item of a section (by default the last section).
    ///
    /// - Throws: ``TableSnapshotError/noSections`` when the snapshot has no
    ///   section, ``TableSnapshotError/sectionNotFound(_:)`` when `section` is not
    ///   in it, ``TableSnapshotError/duplicateItems(_:)`` naming every item that
    ///   is already in it or given twice.
    /// - Complexity: O(*k*) for *k* items appended to the last section; O(*k* +
    ///   *s*) for another of *s* sections.
    @inlinable
    public mutating func appendItems(_ identifiers: [ItemIdentifierType], toSection section: SectionIdentifierType? = nil) throws(Failure) {
        let position: Int
        if let section {
            position = try _position(of: section)
        } else {
            guard !_sections.isEmpty else { throw .noSections }
            position = _sections.count - 1
        }
        if identifiers.count == 1 {
            try _appendItem(identifiers[0], toSectionAt: position)
        } else {
            try _insertItems(identifiers, at: TablePath(row: _items[position].count, section: position))
        }
    }

    /// Inserts items before an item, in its section.
    ///
    /// - Throws: ``TableSnapshotError/itemNotFound(_:)`` when `beforeItem` is not
    ///   in the snapshot, ``TableSnapshotError/duplicateItems(_:)`` naming every
    ///   item that is already in it or given twice.
    /// - Complexity: O(*k* + *r* + *s*) for *k* items inserted before *r* rows.
    @inlinable
    public mutating func insertItems(_ identifiers: [ItemIdentifierType], beforeItem: ItemIdentifierType) throws(Failure) {
        try _insertItems(identifiers, at: _path(of: beforeItem))
    }

    /// Inserts items after an item, in its section.
    ///
    /// - Throws: as ``insertItems(_:beforeItem:)``.
    /// - Complexity: O(*k* + *r* + *s*).
    @inlinable
    public mutating func insertItems(_ identifiers: [ItemIdentifierType], afterItem: ItemIdentifierType) throws(Failure) {
        var path = try _path(of: afterItem)
        path.row += 1
        try _insertItems(identifiers, at: path)
    }

    /// Deletes items.
    ///
    /// - Throws: ``TableSnapshotError/itemNotFound(_:)`` naming every item that
    ///   is not in the snapshot.
    /// - Complexity: O(*k* + *s* + the rows after the first deleted one in each
    ///   section deleted from).
    @inlinable
    public mutating func deleteItems(_ identifiers: [ItemIdentifierType]) throws(Failure) {
        var rowsBySection: [Int: [Int]] = [:]
        var missing: [ItemIdentifierType] = []
        for identifier in identifiers {
            if let path = indexPath(ofItem: identifier) { rowsBySection[path.section, default: []].append(path.row) } else { missing.append(identifier) }
        }
        guard missing.isEmpty else { throw .itemNotFound(missing) }
        for identifier in identifiers { _locations.remove(identifier, in: _items, positions: _slotPositions) }
        for (position, rows) in rowsBySection {
            let doomed = Set(rows)
            let first = doomed.min()!
            // The buckets of the rows that stay, found before they move.
            var stay: [Int] = []
            for row in first..<_items[position].count where !doomed.contains(row) {
                stay.append(_bucket(ofRow: row, inSection: position))
            }
            var kept = first
            _items[position].withUnsafeMutableBufferPointer { items in
                for row in first..<items.count where !doomed.contains(row) {
                    items.swapAt(kept, row)
                    kept += 1
                }
            }
            _items[position].removeLast(_items[position].count - kept)
            for (i, bucket) in stay.enumerated() { _locations.buckets[bucket].row = Int32(truncatingIfNeeded: first + i) }
        }
        _recountStarts(from: rowsBySection.keys.min() ?? _sections.count)
        _reloadedItems.remove(identifiers)
        _reconfiguredItems.remove(identifiers)
    }

    /// Makes room for `count` items in all, so that appending up to that many
    /// does not grow the snapshot's index on the way.
    ///
    /// - Complexity: O(*n*) for the *n* items already in the snapshot.
    @inlinable
    public mutating func reserveCapacity(_ count: Int) {
        _locations.reserve(Swift.max(0, count - _locations.count), final: true)
    }

    /// Deletes every section and item.
    @inlinable
    public mutating func deleteAllItems() { self = TableSnapshot() }

    /// Moves an item before another, into that one's section.
    ///
    /// - Throws: ``TableSnapshotError/itemMovedRelativeToItself(_:)`` when both
    ///   are the same, ``TableSnapshotError/itemNotFound(_:)`` when either is not
    ///   in the snapshot.
    /// - Complexity: O(*r* + *s*) for the rows after the two places.
    @inlinable
    public mutating func moveItem(_ identifier: ItemIdentifierType, beforeItem: ItemIdentifierType) throws(Failure) {
        try _moveItem(identifier, relativeTo: beforeItem, after: false)
    }

    /// Moves an item after another, into that one's section.
    ///
    /// - Throws: as ``moveItem(_:beforeItem:)``.
    /// - Complexity: O(*r* + *s*).
    @inlinable
    public mutating func moveItem(_ identifier: ItemIdentifierType, afterItem: ItemIdentifierType) throws(Failure) {
        try _moveItem(identifier, relativeTo: afterItem, after: true)
    }

    /// Marks items to get new cells when the snapshot is applied (UIKit's
    /// `reloadItems`): their cells are replaced, as for a changed row.
    ///
    /// - Throws: ``TableSnapshotError/itemNotFound(_:)`` naming every item that
    ///   is not in the snapshot.
    @inlinable
    public mutating func reloadItems(_ identifiers: [ItemIdentifierType]) throws(Failure) {
        try _checkItemsExist(identifiers)
        _reloadedItems.insert(contentsOf: identifiers)
    }

    /// Marks items to have their existing cells configured again, in place,
    /// when the snapshot is applied (UIKit's `reconfigureItems`): cheaper than a
    /// reload, and the cell keeps its state.
    ///
    /// - Throws: ``TableSnapshotError/itemNotFound(_:)`` naming every item that
    ///   is not in the snapshot.
    @inlinable
    public mutating func reconfigureItems(_ identifiers: [ItemIdentifierType]) throws(Failure) {
        try _checkItemsExist(identifiers)
        _reconfiguredItems.insert(contentsOf: identifiers)
    }

    /// The snapshot without its reload and reconfigure marks: what a table shows
    /// after it is applied.
    @inlinable
    public var withoutMarks: TableSnapshot {
        var copy = self
        copy._reloadedItems = _Marks()
        copy._reconfiguredItems = _Marks()
        copy._reloadedSections = _Marks()
        return copy
    }
}

// MARK: - Internals

extension TableSnapshot {
    @inlinable
    func _path(of item: ItemIdentifierType) throws(Failure) -> TablePath {
        guard let path = indexPath(ofItem: item) else { throw .itemNotFound([item]) }
        return path
    }

    @inlinable
    func _checkItemsExist(_ identifiers: [ItemIdentifierType]) throws(Failure) {
        let missing = identifiers.filter { _location(of: $0) == nil }
        guard missing.isEmpty else { throw .itemNotFound(missing) }
    }

    @inlinable
    func _checkNewSections(_ identifiers: [SectionIdentifierType]) throws(Failure) {
        var seen = Set<SectionIdentifierType>(minimumCapacity: identifiers.count)
        var duplicates: [SectionIdentifierType] = []
        for identifier in identifiers where _sectionPositions[identifier] != nil || !seen.insert(identifier).inserted {
            duplicates.append(identifier)
        }
        guard duplicates.isEmpty else { throw .duplicateSections(duplicates) }
    }

    @inlinable
    mutating func _insertSections(_ identifiers: [SectionIdentifierType], at position: Int) throws(Failure) {
        try _checkNewSections(identifiers)
        let firstSlot = _slotPositions.count
        _slotPositions.append(contentsOf: repeatElement(-1, count: identifiers.count))
        _sections.insert(contentsOf: identifiers, at: position)
        _items.insert(contentsOf: repeatElement([], count: identifiers.count), at: position)
        _slots.insert(contentsOf: (firstSlot..<firstSlot + identifiers.count).map { Int32($0) }, at: position)
        _reindexSections()
    }

    @inlinable
    mutating func _moveSection(_ identifier: SectionIdentifierType, relativeTo target: SectionIdentifierType, after: Bool) throws(Failure) {
        let missing = [identifier, target].filter { _sectionPositions[$0] == nil }
        guard missing.isEmpty else { throw .sectionNotFound(missing) }
        guard identifier != target else { throw .sectionMovedRelativeToItself(identifier) }
        let from = _sectionPositions[identifier]!
        let section = _sections.remove(at: from), items = _items.remove(at: from), slot = _slots.remove(at: from)
        var to = _sections.firstIndex(of: target)!
        if after { to += 1 }
        _sections.insert(section, at: to)
        _items.insert(items, at: to)
        _slots.insert(slot, at: to)
        _reindexSections()
    }

    /// Adds items at a place, after checking that none is in the snapshot or
    /// given twice (all or nothing).
    @inlinable
    mutating func _insertItems(_ identifiers: [ItemIdentifierType], at path: TablePath) throws(Failure) {
        guard !identifiers.isEmpty else { return }
        let slot = _slots[path.section]
        let row = path.row
        if row == _items[path.section].count {
            // Appending: the index checks and adds in one pass.
            let duplicates = _locations.append(contentsOf: identifiers, slot: slot, row: row, in: _items, positions: _slotPositions)
            guard duplicates.isEmpty else { throw .duplicateItems(duplicates) }
            if _items[path.section].isEmpty {
                _items[path.section] = identifiers   // shares the caller's storage: no copy
            } else {
                _items[path.section].append(contentsOf: identifiers)
            }
        } else {
            // Inserting before rows: check first, then move the rows' buckets.
            var seen = Set<ItemIdentifierType>(minimumCapacity: identifiers.count)
            var duplicates: [ItemIdentifierType] = []
            for identifier in identifiers where _location(of: identifier) != nil || !seen.insert(identifier).inserted {
                duplicates.append(identifier)
            }
            guard duplicates.isEmpty else { throw .duplicateItems(duplicates) }
            _locations.reserve(identifiers.count)
            let moved = _buckets(ofRows: row..<_items[path.section].count, inSection: path.section)
            _locations.insertUnique(identifiers, slot: slot, row: row)
            _items[path.section].insert(contentsOf: identifiers, at: row)
            for (i, bucket) in moved.enumerated() {
                _locations.buckets[bucket].row = Int32(truncatingIfNeeded: row + identifiers.count + i)
            }
        }
        _recountStarts(from: path.section)
    }

    /// Appends one item (items appended one call at a time): one probe of the
    /// index, which both checks the item and finds its bucket, then the item
    /// and the starts of the sections after it.
    @inlinable
    mutating func _appendItem(_ identifier: ItemIdentifierType, toSectionAt position: Int) throws(Failure) {
        _locations.reserve(1)
        let probe = _locations.probe(identifier, in: _items, positions: _slotPositions)
        guard !probe.found else { throw .duplicateItems([identifier]) }
        let row = _items[position].count
        _locations.add(at: probe.bucket, tag: probe.tag, location: _ItemLocation(slot: _slots[position], row: Int32(truncatingIfNeeded: row)))
        _items[position].append(identifier)
        for p in position + 1..<_starts.count { _starts[p] += 1 }
    }

    @inlinable
    mutating func _moveItem(_ identifier: ItemIdentifierType, relativeTo target: ItemIdentifierType, after: Bool) throws(Failure) {
        let missing = [identifier, target].filter { _location(of: $0) == nil }
        guard missing.isEmpty else { throw .itemNotFound(missing) }
        guard identifier != target else { throw .itemMovedRelativeToItself(identifier) }
        let from = indexPath(ofItem: identifier)!
        // The target's place once the item is out of its section.
        var to = indexPath(ofItem: target)!
        if to.section == from.section && to.row > from.row { to.row -= 1 }
        if after { to.row += 1 }
        // The buckets of the rows that move, found before they move, then
        // moved as the rows are.
        if from.section == to.section {
            let low = Swift.min(from.row, to.row), high = Swift.max(from.row, to.row)
            var moved = _buckets(ofRows: low..<high + 1, inSection: from.section)
            _items[from.section].remove(at: from.row)
            _items[from.section].insert(identifier, at: to.row)
            moved.insert(moved.remove(at: from.row - low), at: to.row - low)
            for (i, bucket) in moved.enumerated() { _locations.buckets[bucket].row = Int32(truncatingIfNeeded: low + i) }
        } else {
            var left = _buckets(ofRows: from.row..<_items[from.section].count, inSection: from.section)
            var right = _buckets(ofRows: to.row..<_items[to.section].count, inSection: to.section)
            _items[from.section].remove(at: from.row)
            _items[to.section].insert(identifier, at: to.row)
            right.insert(left.removeFirst(), at: 0)
            for (i, bucket) in left.enumerated() { _locations.buckets[bucket].row = Int32(truncatingIfNeeded: from.row + i) }
            let slot = _slots[to.section]
            for (i, bucket) in right.enumerated() {
                _locations.setLocation(_ItemLocation(slot: slot, row: Int32(truncatingIfNeeded: to.row + i)), at: bucket)
            }
        }
        _recountStarts(from: Swift.min(from.section, to.section))
    }

    /// The index bucket of the item at a row (the index and the sections must
    /// agree).
    @inlinable
    func _bucket(ofRow row: Int, inSection position: Int) -> Int {
        _locations.position(of: _items[position][row], in: _items, positions: _slotPositions)!
    }

    /// The index buckets of the items at some rows of a section, in row order.
    @inlinable
    func _buckets(ofRows rows: Range<Int>, inSection position: Int) -> [Int] {
        rows.map { _bucket(ofRow: $0, inSection: position) }
    }

    /// Recomputes the flat starts of the sections from `position` on.
    @inlinable
    mutating func _recountStarts(from position: Int) {
        guard position < _sections.count else { return }
        for p in position..<_sections.count { _starts[p + 1] = _starts[p] + _items[p].count }
    }

    /// Recomputes every section's position after the sections changed.
    @inlinable
    mutating func _reindexSections() {
        _sectionPositions.removeAll(keepingCapacity: true)
        _starts = [0]
        _starts.reserveCapacity(_sections.count + 1)
        for (position, section) in _sections.enumerated() {
            _sectionPositions[section] = position
            _slotPositions[Int(_slots[position])] = Int32(position)
            _starts.append(_starts[position] + _items[position].count)
        }
    }
}
