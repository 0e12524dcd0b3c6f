import InternalTableUtilities

/// The items of one section as an outline — items with children, each parent
/// expanded or collapsed — UIKit's `NSDiffableDataSourceSectionSnapshot`.
///
/// Build one with UIKit's calls and apply it to a section of a diffable data
/// source (`TableViewDiffableDataSource.apply(_:to:animatingDifferences:completion:)`
/// in HeadlessTable): the section shows the ``visibleItems``, the items
/// whose ancestors are all expanded, in depth-first order.
///
/// ```swift
/// var outline = TableSectionSnapshot<String>()
/// try outline.append(["Fruit", "Vegetables"])
/// try outline.append(["Apple", "Pear"], to: "Fruit")
/// try outline.append(["Leek"], to: "Vegetables")
/// try outline.expand(["Fruit"])
/// outline.visibleItems   // Fruit, Apple, Pear, Vegetables
/// ```
///
/// **Misuse throws.** Every call UIKit traps on — an item already in the
/// snapshot (or given twice), an item or a parent that is not in it —
/// throws a ``TableSectionSnapshotError`` that names the items, and leaves
/// the snapshot as it was.
///
/// **Expansion.** Any item can be expanded or collapsed, with or without
/// children (an expanded item's later children show at once). A new item
/// is collapsed. Deleting an item deletes its children.
///
/// **Cost.** Item lookups (``contains(_:)``, ``level(of:)``,
/// ``parent(of:)``, ``isExpanded(_:)``) are O(1) expected; ``isVisible(_:)``
/// is O(*d*) for an item *d* levels deep. Appending *k* items is O(*k* +
/// *d*); inserting or deleting costs the siblings after the place too.
/// The snapshot keeps the depth-first order of its items, each item's
/// number of descendants and a tree of the visible rows' counts (a Fenwick
/// tree): ``expand(_:)`` or ``collapse(_:)`` of a visible item costs
/// O(*k* log *n*) for the *k* rows it shows or hides — whatever the size of
/// the subtree under collapsed children, or of the section — and
/// ``index(of:)``, ``visibleIndex(of:)``, ``visibleItem(at:)`` are
/// O(log *n*). A change of the tree (an append, an insert, a delete) drops
/// that order; the first call that needs it again rebuilds it in O(*n*).
public struct TableSectionSnapshot<ItemIdentifierType: Hashable & Sendable>: Sendable {
    /// The item of each node (nil for a free node).
    var _items: [ItemIdentifierType?] = []
    /// The node of each item.
    var _nodes: [ItemIdentifierType: Int32] = [:]
    /// The parent node of each node: -1 for a root, -2 for a free node.
    var _parents: [Int32] = []
    /// The children of each node, in order.
    var _children: [[Int32]] = []
    var _roots: [Int32] = []
    var _levels: [Int32] = []
    var _expanded: [Bool] = []
    /// Free nodes, reused by the next appends.
    var _freeNodes: [Int32] = []
    /// The depth-first order and the visible rows' counts; nil after a change
    /// of the tree, until a call needs it.
    var _order: _OutlineOrder?

    /// Creates an empty section snapshot.
    public init() {}

    public typealias Failure = TableSectionSnapshotError<ItemIdentifierType>
}

/// Why a ``TableSectionSnapshot`` refused a change or a question: the misuses
/// UIKit's `NSDiffableDataSourceSectionSnapshot` traps on, each naming the
/// items. The snapshot is left as it was; ``description`` follows UIKit's words.
public enum TableSectionSnapshotError<ItemIdentifierType: Hashable & Sendable>: Error, Hashable, CustomStringConvertible {
    /// Items that are already in the snapshot, or given twice.
    case duplicateItems([ItemIdentifierType])
    /// Items that are not in the snapshot.
    case itemNotFound([ItemIdentifierType])
    /// The parent given to an append or a replace is not in the snapshot.
    case parentNotFound(ItemIdentifierType)

    public var description: String {
        func list(_ items: [ItemIdentifierType]) -> String {
            let shown = items.prefix(10).map { String(describing: $0) }.joined(separator: ", ")
            return items.count > 10 ? "\(shown), … (\(items.count) in all)" : shown
        }
        switch self {
        case .duplicateItems(let items):
            return "Supplied item identifiers are not unique. Duplicate identifiers: \(list(items))"
        case .itemNotFound(let items):
            return "Invalid item identifiers: not in the section snapshot: \(list(items))"
        case .parentNotFound(let parent):
            return "Invalid parent item identifier specified. Parent item identifier not found in section snapshot: \(parent)"
        }
    }
}

/// A section snapshot's depth-first order, with what expanding and
/// collapsing need: each node's place and number of descendants, and which
/// places are visible, counted by a Fenwick tree.
struct _OutlineOrder: Sendable {
    /// The nodes, depth first.
    var order: [Int32]
    /// The place of each node in `order` (-1 for a free node).
    var places: [Int32]
    /// The number of descendants of each node.
    var descendants: [Int32]
    /// Whether each node is visible (all its ancestors expanded).
    var visible: [Bool]
    /// 1 at each visible place.
    var counts: _Fenwick<Int32>
    var visibleCount: Int
}

// MARK: - Questions

extension TableSectionSnapshot {
    /// Every item, depth first (UIKit's `items`).
    ///
    /// - Complexity: O(*n*).
    public var items: [ItemIdentifierType] {
        if let order = _order { return order.order.map { _items[Int($0)]! } }
        var result: [ItemIdentifierType] = []
        result.reserveCapacity(_nodes.count)
        _walk(_roots, all: true) { result.append(_items[Int($0)]!) }
        return result
    }

    /// The items with no parent, in order.
    public var rootItems: [ItemIdentifierType] { _roots.map { _items[Int($0)]! } }

    /// The items whose ancestors are all expanded, depth first: the rows the
    /// section shows.
    ///
    /// - Complexity: O(*n*).
    public var visibleItems: [ItemIdentifierType] {
        var result: [ItemIdentifierType] = []
        if let order = _order {
            result.reserveCapacity(order.visibleCount)
            for node in order.order where order.visible[Int(node)] { result.append(_items[Int(node)]!) }
            return result
        }
        _walk(_roots, all: false) { result.append(_items[Int($0)]!) }
        return result
    }

    /// The number of items.
    public var count: Int { _nodes.count }

    /// The number of visible items.
    ///
    /// - Complexity: O(1) with the order kept (see the type's cost), else O(*n*).
    public var visibleCount: Int {
        if let order = _order { return order.visibleCount }
        var count = 0
        _walk(_roots, all: false) { _ in count += 1 }
        return count
    }

    /// Whether the snapshot holds an item.
    public func contains(_ item: ItemIdentifierType) -> Bool { _nodes[item] != nil }

    /// The index of an item in ``items``, or nil when it is not in the snapshot.
    ///
    /// - Complexity: O(1) with the order kept, else O(*n*).
    public func index(of item: ItemIdentifierType) -> Int? {
        guard let node = _nodes[item] else { return nil }
        if let order = _order { return Int(order.places[Int(node)]) }
        var index = 0, found: Int?
        _walk(_roots, all: true) { if found == nil { if $0 == node { found = index }; index += 1 } }
        return found
    }

    /// The index of an item in ``visibleItems`` — its row in the section —
    /// or nil when it is not in the snapshot or not visible.
    ///
    /// - Complexity: O(log *n*) with the order kept, else O(*n*).
    public func visibleIndex(of item: ItemIdentifierType) -> Int? {
        guard let node = _nodes[item] else { return nil }
        if let order = _order {
            guard order.visible[Int(node)] else { return nil }
            return Int(order.counts.prefix(Int(order.places[Int(node)])))
        }
        var index = 0, found: Int?
        _walk(_roots, all: false) { if found == nil { if $0 == node { found = index }; index += 1 } }
        return found
    }

    /// The item at an index of ``visibleItems``, or nil when there is none.
    ///
    /// - Complexity: O(log *n*) with the order kept, else O(*n*).
    public func visibleItem(at index: Int) -> ItemIdentifierType? {
        guard index >= 0 else { return nil }
        if let order = _order {
            guard index < order.visibleCount else { return nil }
            return _items[Int(order.order[order.counts.find(Int32(index)).index])]
        }
        var at = 0, found: Int32?
        _walk(_roots, all: false) { if found == nil { if at == index { found = $0 }; at += 1 } }
        return found.map { _items[Int($0)]! }
    }

    /// How deep an item is: 0 for a root item, 1 for its children, and so on.
    ///
    /// - Throws: ``TableSectionSnapshotError/itemNotFound(_:)``.
    public func level(of item: ItemIdentifierType) throws(Failure) -> Int { Int(_levels[Int(try _node(item))]) }

    /// An item's parent; nil for a root item.
    ///
    /// - Throws: ``TableSectionSnapshotError/itemNotFound(_:)``.
    public func parent(of item: ItemIdentifierType) throws(Failure) -> ItemIdentifierType? {
        let parent = _parents[Int(try _node(item))]
        return parent < 0 ? nil : _items[Int(parent)]
    }

    /// An item's children, in order.
    ///
    /// - Throws: ``TableSectionSnapshotError/itemNotFound(_:)``.
    public func children(of item: ItemIdentifierType) throws(Failure) -> [ItemIdentifierType] {
        _children[Int(try _node(item))].map { _items[Int($0)]! }
    }

    /// Whether an item is expanded (false for an item not in the snapshot).
    public func isExpanded(_ item: ItemIdentifierType) -> Bool { _nodes[item].map { _expanded[Int($0)] } ?? false }

    /// Whether an item shows: every ancestor expanded (false for an item not
    /// in the snapshot).
    ///
    /// - Complexity: O(*d*) for an item *d* levels deep.
    public func isVisible(_ item: ItemIdentifierType) -> Bool {
        guard let node = _nodes[item] else { return false }
        if let order = _order { return order.visible[Int(node)] }
        var parent = _parents[Int(node)]
        while parent >= 0 {
            guard _expanded[Int(parent)] else { return false }
            parent = _parents[Int(parent)]
        }
        return true
    }

    /// A snapshot of an item's descendants: its children become the root
    /// items (with the parent itself as the only root when `includingParent`),
    /// expanded as they are here.
    ///
    /// - Throws: ``TableSectionSnapshotError/itemNotFound(_:)``.
    /// - Complexity: O(*m*) for the *m* items copied.
    public func snapshot(of parent: ItemIdentifierType, includingParent: Bool = false) throws(Failure) -> TableSectionSnapshot {
        let node = try _node(parent)
        var result = TableSectionSnapshot()
        result._graft(includingParent ? [node] : _children[Int(node)], from: self, under: -1)
        return result
    }

    /// The node of an item, or `itemNotFound`.
    func _node(_ item: ItemIdentifierType) throws(Failure) -> Int32 {
        guard let node = _nodes[item] else { throw .itemNotFound([item]) }
        return node
    }

    /// Calls `body` with the nodes under `nodes` (them included), depth
    /// first: all of them, or the visible ones (those under expanded nodes).
    func _walk(_ nodes: [Int32], all: Bool, _ body: (Int32) -> Void) {
        var stack: [(nodes: [Int32], next: Int)] = [(nodes, 0)]
        while let top = stack.last {
            guard top.next < top.nodes.count else {
                stack.removeLast()
                continue
            }
            let node = top.nodes[top.next]
            stack[stack.count - 1].next += 1
            body(node)
            let children = _children[Int(node)]
            if !children.isEmpty, all || _expanded[Int(node)] { stack.append((children, 0)) }
        }
    }
}

// MARK: - Changes

extension TableSectionSnapshot {
    /// Adds items after the last child of `parent`, or after the last root
    /// item when `parent` is nil.
    ///
    /// - Throws: ``TableSectionSnapshotError/parentNotFound(_:)`` when
    ///   `parent` is not in the snapshot, ``TableSectionSnapshotError/duplicateItems(_:)``
    ///   naming every item already in it or given twice.
    /// - Complexity: O(*k*) for *k* items.
    public mutating func append(_ items: [ItemIdentifierType], to parent: ItemIdentifierType? = nil) throws(Failure) {
        var parentNode: Int32 = -1
        if let parent {
            guard let node = _nodes[parent] else { throw .parentNotFound(parent) }
            parentNode = node
        }
        try _checkNew(items)
        let nodes = _add(items, under: parentNode)
        _attach(nodes, under: parentNode, at: nil)
    }

    /// Inserts items before an item, as its siblings.
    ///
    /// - Throws: ``TableSectionSnapshotError/itemNotFound(_:)`` when
    ///   `beforeItem` is not in the snapshot, ``TableSectionSnapshotError/duplicateItems(_:)``.
    /// - Complexity: O(*k* + the siblings).
    public mutating func insert(_ items: [ItemIdentifierType], before beforeItem: ItemIdentifierType) throws(Failure) {
        try _insert(items, next: beforeItem, after: false)
    }

    /// Inserts items after an item, as its siblings.
    ///
    /// - Throws: as `insert(_:before:)`.
    public mutating func insert(_ items: [ItemIdentifierType], after afterItem: ItemIdentifierType) throws(Failure) {
        try _insert(items, next: afterItem, after: true)
    }

    /// Adds the items of another section snapshot, with their children and
    /// expansion, after the last child of `parent` (or the last root item).
    ///
    /// - Throws: as `append(_:to:)`.
    /// - Complexity: O(*m*) for the *m* items of `snapshot`.
    public mutating func append(_ snapshot: TableSectionSnapshot, to parent: ItemIdentifierType? = nil) throws(Failure) {
        var parentNode: Int32 = -1
        if let parent {
            guard let node = _nodes[parent] else { throw .parentNotFound(parent) }
            parentNode = node
        }
        try _checkNew(snapshot.items)
        let nodes = _graft(snapshot._roots, from: snapshot, under: parentNode, attach: false)
        _attach(nodes, under: parentNode, at: nil)
    }

    /// Inserts the items of another section snapshot before an item, as its
    /// siblings, with their children and expansion.
    ///
    /// - Throws: as `insert(_:before:)`.
    public mutating func insert(_ snapshot: TableSectionSnapshot, before beforeItem: ItemIdentifierType) throws(Failure) {
        try _insert(snapshot, next: beforeItem, after: false)
    }

    /// Inserts the items of another section snapshot after an item.
    ///
    /// - Throws: as `insert(_:before:)`.
    public mutating func insert(_ snapshot: TableSectionSnapshot, after afterItem: ItemIdentifierType) throws(Failure) {
        try _insert(snapshot, next: afterItem, after: true)
    }

    /// Replaces the children of `parent` (and their descendants) with the
    /// items of another snapshot; `parent` keeps its expansion.
    ///
    /// - Throws: ``TableSectionSnapshotError/parentNotFound(_:)``,
    ///   ``TableSectionSnapshotError/duplicateItems(_:)`` naming the items of
    ///   `snapshot` that are in this one outside the replaced children.
    public mutating func replace(childrenOf parent: ItemIdentifierType, using snapshot: TableSectionSnapshot) throws(Failure) {
        guard let node = _nodes[parent] else { throw .parentNotFound(parent) }
        var replaced = Set<Int32>()
        _walk(_children[Int(node)], all: true) { replaced.insert($0) }
        let clashes = snapshot.items.filter { item in _nodes[item].map { !replaced.contains($0) } ?? false }
        guard clashes.isEmpty else { throw .duplicateItems(clashes) }
        _free(_children[Int(node)])
        _children[Int(node)] = []
        let nodes = _graft(snapshot._roots, from: snapshot, under: node, attach: false)
        _attach(nodes, under: node, at: nil)
    }

    /// Deletes items, with all their descendants.
    ///
    /// - Throws: ``TableSectionSnapshotError/itemNotFound(_:)`` naming every
    ///   item that is not in the snapshot.
    /// - Complexity: O(*k* + the deleted descendants + the siblings of each).
    public mutating func delete(_ items: [ItemIdentifierType]) throws(Failure) {
        let missing = items.filter { _nodes[$0] == nil }
        guard missing.isEmpty else { throw .itemNotFound(missing) }
        for item in items {
            // An item under one deleted before is gone already.
            guard let node = _nodes[item] else { continue }
            let parent = _parents[Int(node)]
            if parent >= 0 {
                _children[Int(parent)].removeAll { $0 == node }
            } else {
                _roots.removeAll { $0 == node }
            }
            _free([node])
        }
        _order = nil
    }

    /// Deletes every item.
    public mutating func deleteAll() { self = TableSectionSnapshot() }

    /// Expands items: their children show when they do.
    ///
    /// - Throws: ``TableSectionSnapshotError/itemNotFound(_:)`` naming every
    ///   item that is not in the snapshot.
    /// - Complexity: O(*k* log *n*) for the *k* rows shown, with the order
    ///   kept (see the type's cost).
    public mutating func expand(_ items: [ItemIdentifierType]) throws(Failure) {
        let missing = items.filter { _nodes[$0] == nil }
        guard missing.isEmpty else { throw .itemNotFound(missing) }
        for item in items { _ = _setExpanded(_nodes[item]!, true) }
    }

    /// Collapses items: their descendants no longer show.
    ///
    /// - Throws: as ``expand(_:)``.
    /// - Complexity: O(*k* log *n*) for the *k* rows hidden, with the order kept.
    public mutating func collapse(_ items: [ItemIdentifierType]) throws(Failure) {
        let missing = items.filter { _nodes[$0] == nil }
        guard missing.isEmpty else { throw .itemNotFound(missing) }
        for item in items { _ = _setExpanded(_nodes[item]!, false) }
    }
}

// MARK: - For data sources

extension TableSectionSnapshot {
    /// Builds the depth-first order if it was dropped, so that expanding,
    /// collapsing and row lookups cost what the type's documentation says.
    ///
    /// - Complexity: O(*n*) when it builds, else O(1).
    package mutating func prepareOrder() {
        guard _order == nil else { return }
        var order: [Int32] = []
        order.reserveCapacity(_nodes.count)
        var places = [Int32](repeating: -1, count: _items.count)
        var descendants = [Int32](repeating: 0, count: _items.count)
        var visible = [Bool](repeating: false, count: _items.count)
        var flags: [Int32] = []
        flags.reserveCapacity(_nodes.count)
        var visibleCount = 0
        _walk(_roots, all: true) { node in
            places[Int(node)] = Int32(order.count)
            order.append(node)
            let parent = _parents[Int(node)]
            let shows = parent < 0 || (visible[Int(parent)] && _expanded[Int(parent)])
            visible[Int(node)] = shows
            flags.append(shows ? 1 : 0)
            if shows { visibleCount += 1 }
        }
        // Descendants, children before parents: backwards through the order.
        for node in order.reversed() {
            let parent = _parents[Int(node)]
            if parent >= 0 { descendants[Int(parent)] += descendants[Int(node)] + 1 }
        }
        _order = _OutlineOrder(
            order: order, places: places, descendants: descendants, visible: visible, counts: _Fenwick(flags), visibleCount: visibleCount)
    }

    /// Whether an item has children (false for an item not in the snapshot).
    package func hasChildren(_ item: ItemIdentifierType) -> Bool { _nodes[item].map { !_children[Int($0)].isEmpty } ?? false }

    /// Expands or collapses an item, and tells which rows that showed or hid:
    /// the item's row and the number of rows after it that appeared
    /// (expanding) or went (collapsing); nil when no row changed (the item
    /// not visible, or already so). The item must be in the snapshot.
    ///
    /// - Complexity: O(*k* log *n*) for *k* rows, once the order is built.
    package mutating func setExpanded(_ item: ItemIdentifierType, _ expanded: Bool) -> (row: Int, count: Int)? {
        guard let node = _nodes[item] else { return nil }
        prepareOrder()
        return _setExpanded(node, expanded)
    }

    mutating func _setExpanded(_ node: Int32, _ expanded: Bool) -> (row: Int, count: Int)? {
        guard _expanded[Int(node)] != expanded else { return nil }
        _expanded[Int(node)] = expanded
        guard var order = _order else { return nil }
        _order = nil   // no copy while it changes
        defer { _order = order }
        guard order.visible[Int(node)] else { return nil }
        let place = Int(order.places[Int(node)])
        let end = place + Int(order.descendants[Int(node)]) + 1
        var at = place + 1, count = 0
        let delta: Int32 = expanded ? 1 : -1
        // The descendants under expanded nodes only: a collapsed child's
        // subtree is skipped whole.
        while at < end {
            let child = order.order[at]
            order.visible[Int(child)] = expanded
            order.counts.add(delta, at: at)
            count += 1
            at += _expanded[Int(child)] ? 1 : Int(order.descendants[Int(child)]) + 1
        }
        order.visibleCount += expanded ? count : -count
        guard count > 0 else { return nil }
        return (Int(order.counts.prefix(place)), count)
    }

    /// Throws when an item is in the snapshot or given twice.
    func _checkNew(_ items: [ItemIdentifierType]) throws(Failure) {
        var seen = Set<ItemIdentifierType>(minimumCapacity: items.count)
        var duplicates: [ItemIdentifierType] = []
        for item in items where _nodes[item] != nil || !seen.insert(item).inserted { duplicates.append(item) }
        guard duplicates.isEmpty else { throw .duplicateItems(duplicates) }
    }

    /// New nodes for items (checked new), at the level under `parent`.
    mutating func _add(_ items: [ItemIdentifierType], under parent: Int32) -> [Int32] {
        let level = parent < 0 ? 0 : _levels[Int(parent)] + 1
        return items.map { _node(for: $0, parent: parent, level: level, expanded: false) }
    }

    mutating func _node(for item: ItemIdentifierType, parent: Int32, level: Int32, expanded: Bool) -> Int32 {
        let node: Int32
        if let free = _freeNodes.popLast() {
            node = free
            _items[Int(node)] = item
            _parents[Int(node)] = parent
            _children[Int(node)] = []
            _levels[Int(node)] = level
            _expanded[Int(node)] = expanded
        } else {
            node = Int32(_items.count)
            _items.append(item)
            _parents.append(parent)
            _children.append([])
            _levels.append(level)
            _expanded.append(expanded)
        }
        _nodes[item] = node
        return node
    }

    /// Puts nodes among the children of `parent` (the roots for -1), at an
    /// index or at the end.
    mutating func _attach(_ nodes: [Int32], under parent: Int32, at index: Int?) {
        if parent < 0 {
            _roots.insert(contentsOf: nodes, at: index ?? _roots.count)
        } else {
            _children[Int(parent)].insert(contentsOf: nodes, at: index ?? _children[Int(parent)].count)
        }
        _order = nil
    }

    /// Copies the subtrees of `nodes` of `other` under `parent` (new to this
    /// snapshot: checked), keeping their expansion; returns the new nodes of
    /// `nodes`, attached at the end unless `attach` is false.
    @discardableResult
    mutating func _graft(_ nodes: [Int32], from other: TableSectionSnapshot, under parent: Int32, attach: Bool = true) -> [Int32] {
        let level = parent < 0 ? 0 : _levels[Int(parent)] + 1
        var tops: [Int32] = []
        var stack: [(theirs: Int32, parent: Int32)] = nodes.reversed().map { ($0, parent) }
        while let (theirs, mine) = stack.popLast() {
            let depth = other._levels[Int(theirs)] - (other._levels[Int(nodes.first ?? theirs)]) + level
            let node = _node(for: other._items[Int(theirs)]!, parent: mine, level: depth, expanded: other._expanded[Int(theirs)])
            if mine == parent { tops.append(node) } else { _children[Int(mine)].append(node) }
            for child in other._children[Int(theirs)].reversed() { stack.append((child, node)) }
        }
        if attach { _attach(tops, under: parent, at: nil) }
        _order = nil
        return tops
    }

    mutating func _insert(_ items: [ItemIdentifierType], next: ItemIdentifierType, after: Bool) throws(Failure) {
        let sibling = try _node(next)
        try _checkNew(items)
        let parent = _parents[Int(sibling)]
        let nodes = _add(items, under: parent)
        _attach(nodes, under: parent, at: _siblingIndex(sibling) + (after ? 1 : 0))
    }

    mutating func _insert(_ snapshot: TableSectionSnapshot, next: ItemIdentifierType, after: Bool) throws(Failure) {
        let sibling = try _node(next)
        try _checkNew(snapshot.items)
        let parent = _parents[Int(sibling)]
        let nodes = _graft(snapshot._roots, from: snapshot, under: parent, attach: false)
        _attach(nodes, under: parent, at: _siblingIndex(sibling) + (after ? 1 : 0))
    }

    func _siblingIndex(_ node: Int32) -> Int {
        let parent = _parents[Int(node)]
        return (parent < 0 ? _roots : _children[Int(parent)]).firstIndex(of: node)!
    }

    /// Frees the subtrees of `nodes` (already detached from their parents).
    mutating func _free(_ nodes: [Int32]) {
        var freed: [Int32] = []
        _walk(nodes, all: true) { freed.append($0) }
        for node in freed {
            _nodes[_items[Int(node)]!] = nil
            _items[Int(node)] = nil
            _parents[Int(node)] = -2
            _children[Int(node)] = []
            _freeNodes.append(node)
        }
        _order = nil
    }
}

// MARK: - Equality and description

extension TableSectionSnapshot: Equatable {
    /// Whether two snapshots hold the same items in the same tree, expanded alike.
    ///
    /// - Complexity: O(*n*).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var left: [(ItemIdentifierType, Int32, Bool)] = [], right: [(ItemIdentifierType, Int32, Bool)] = []
        lhs._walk(lhs._roots, all: true) { left.append((lhs._items[Int($0)]!, lhs._levels[Int($0)], lhs._expanded[Int($0)])) }
        rhs._walk(rhs._roots, all: true) { right.append((rhs._items[Int($0)]!, rhs._levels[Int($0)], rhs._expanded[Int($0)])) }
        return left.elementsEqual(right) { $0.0 == $1.0 && $0.1 == $1.1 && $0.2 == $1.2 }
    }
}

extension TableSectionSnapshot: CustomStringConvertible {
    /// The outline, an item a line, indented by level, with `+` before a
    /// collapsed parent, `-` before an expanded one, and `*` before each
    /// visible item (UIKit's `visualDescription()`).
    public var description: String {
        guard !_roots.isEmpty else { return "(empty section snapshot)" }
        var lines: [String] = []
        _walk(_roots, all: true) { node in
            let mark = _children[Int(node)].isEmpty ? " " : (_expanded[Int(node)] ? "-" : "+")
            let shown = isVisible(_items[Int(node)]!) ? "*" : " "
            lines.append(shown + " " + String(repeating: "  ", count: Int(_levels[Int(node)])) + mark + " " + String(describing: _items[Int(node)]!))
        }
        return lines.joined(separator: "\n")
    }
}
