extension HTMLRenderer {
    /// The operations that turn the page's `old` table into `new`.
    ///
    /// In this order, each step seeing the page as the steps before left it:
    /// 1. the parts around the grid that changed (search field, scope buttons,
    ///    index);
    /// 2. the elements gone that no new element recycles, removed;
    /// 3. recycled nodes — an element gone, given to a new one of its kind
    ///    (rows for rows, headers and footers for each other), in order —
    ///    and the elements kept whose markup changed, replaced;
    /// 4. from the last new element to the first: a new element without a
    ///    recycled node inserted, and a node not on a longest run of nodes
    ///    already in the new order moved — each before the element after it,
    ///    which is in its final place by then;
    /// 5. the spacers and the grid's attributes, when they changed.
    ///
    /// A change of style replaces the whole table (`reset`).
    ///
    /// - Complexity: O(*w* log *w*) for *w* elements in the two tables.
    static func operations(from old: _HTMLDocument, to new: _HTMLDocument) -> [HTMLOperation] {
        guard old.style == new.style, old.label == new.label else { return [.reset(html: new.html)] }
        var operations: [HTMLOperation] = []
        if old.searchField != new.searchField { operations.append(.setSearchField(html: new.searchField)) }
        if old.scopes != new.scopes { operations.append(.setScopes(html: new.scopes)) }
        if old.index != new.index { operations.append(.setIndex(html: new.index)) }

        var newPlace: [String: Int] = [:]
        newPlace.reserveCapacity(new.elements.count)
        for (j, element) in new.elements.enumerated() { newPlace[element.key] = j }
        var oldHTML: [String: String] = [:]
        oldHTML.reserveCapacity(old.elements.count)
        for element in old.elements { oldHTML[element.key] = element.html }

        // Nodes free for recycling, by kind, in the page's order.
        var freeRows: [String] = [], freeOthers: [String] = []
        for element in old.elements where newPlace[element.key] == nil {
            if element.isRow { freeRows.append(element.key) } else { freeOthers.append(element.key) }
        }
        var recycled: [String: String] = [:]   // a node's key in `old` → its key in `new`
        var replacements: [HTMLOperation] = []
        var inserted = Set<Int>()
        var (nextRow, nextOther) = (0, 0)
        for (j, element) in new.elements.enumerated() {
            if let html = oldHTML[element.key] {
                if html != element.html { replacements.append(.replace(key: element.key, html: element.html)) }
            } else if element.isRow, nextRow < freeRows.count {
                recycled[freeRows[nextRow]] = element.key
                replacements.append(.replace(key: freeRows[nextRow], html: element.html))
                nextRow += 1
            } else if !element.isRow, nextOther < freeOthers.count {
                recycled[freeOthers[nextOther]] = element.key
                replacements.append(.replace(key: freeOthers[nextOther], html: element.html))
                nextOther += 1
            } else {
                inserted.insert(j)
            }
        }
        for key in freeRows[nextRow...] { operations.append(.remove(key: key)) }
        for key in freeOthers[nextOther...] { operations.append(.remove(key: key)) }
        operations += replacements

        // The nodes left, in the page's order, by their places in `new`; those
        // on a longest increasing run stay where they are.
        let places = old.elements.compactMap { element in newPlace[recycled[element.key] ?? element.key] }
        let staying = Self.longestIncreasingRun(places)
        var before: String?
        for j in new.elements.indices.reversed() {
            let key = new.elements[j].key
            if inserted.contains(j) {
                operations.append(.insert(html: new.elements[j].html, before: before))
            } else if !staying.contains(j) {
                operations.append(.move(key: key, before: before))
            }
            before = key
        }

        if old.topSpacer != new.topSpacer || old.bottomSpacer != new.bottomSpacer {
            operations.append(.setSpacers(top: new.topSpacer, bottom: new.bottomSpacer))
        }
        if old.rowCount != new.rowCount || old.scrollTop != new.scrollTop {
            operations.append(.setGrid(rowCount: new.rowCount, scrollTop: new.scrollTop))
        }
        return operations
    }

    /// The values of one longest strictly increasing subsequence of `values`
    /// (distinct), by patience sorting.
    ///
    /// - Complexity: O(*m* log *m*).
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []            // offsets into `values`: the top of each pile
        var previous = Array(repeating: -1, count: values.count)
        for (k, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            previous[k] = low > 0 ? tails[low - 1] : -1
            if low == tails.count { tails.append(k) } else { tails[low] = k }
        }
        var result = Set<Int>()
        var k = tails.last ?? -1
        while k >= 0 {
            result.insert(values[k])
            k = previous[k]
        }
        return result
    }
}
