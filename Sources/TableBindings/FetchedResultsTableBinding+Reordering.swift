import FetchedResults
import Foundation
import HeadlessTableView
import Records
import TableDiff

extension FetchedResultsTableBinding {
    /// How a user's move is written into the model: the sort key that orders
    /// the rows (within their sections), and how to write it — and the
    /// section key, for moves across sections.
    ///
    /// ```swift
    /// // FetchRequest<Task>(sortKeys: [SortKey("list"), SortKey("displayOrder")]), sectioned by "list"
    /// binding.ordering = .init(key: "displayOrder", \.displayOrder).sectionKey(\.list)
    /// table.setEditing(true)
    /// try table.moveRowByUser(from: TablePath(row: 4, section: 0), to: TablePath(row: 1, section: 1))
    /// ```
    ///
    /// See ``FetchedResultsTableBinding/ordering``.
    public struct Ordering {
        /// The key path of the sort key, as the request names it (`"displayOrder"`).
        public var key: String
        /// Whether the user may move the row of an object (nil: every row).
        public var canMove: ((R) -> Bool)?
        /// The distance between the values given when the binding numbers
        /// objects anew (and past the first or last row).
        public var spacing: Double
        let read: (R) -> Double
        let write: (inout R, Double) -> Void
        let integral: Bool
        var writeSection: ((inout R, String) -> Void)?

        /// An order kept in a `Double` property: a moved object gets the
        /// midpoint of its new neighbours' values while there is one.
        public init(key: String, _ keyPath: WritableKeyPath<R, Double>, spacing: Double = 1) {
            self.key = key
            self.spacing = spacing.isFinite && spacing > 0 ? spacing : 1
            read = { $0[keyPath: keyPath] }
            write = { $0[keyPath: keyPath] = $1 }
            integral = false
        }

        /// An order kept in an `Int` property: a moved object gets a value
        /// between its new neighbours' while there is one (hence the default
        /// spacing of 1,024).
        public init(key: String, _ keyPath: WritableKeyPath<R, Int>, spacing: Int = 1024) {
            self.key = key
            self.spacing = Double(max(spacing, 1))
            read = { Double($0[keyPath: keyPath]) }
            write = { $0[keyPath: keyPath] = Int(exactly: $1) ?? 0 }
            integral = true
        }

        /// The ordering, with the section key written for a move across
        /// sections: `write` sets the key so that the object's section is the
        /// one named (the controller's section name).
        public func sectionKey(_ write: @escaping (inout R, _ sectionName: String) -> Void) -> Ordering {
            var ordering = self
            ordering.writeSection = write
            return ordering
        }

        /// The ordering, with a `String` section key.
        public func sectionKey(_ keyPath: WritableKeyPath<R, String>) -> Ordering {
            sectionKey { $0[keyPath: keyPath] = $1 }
        }

        /// The ordering, with an optional `String` section key (the section
        /// named "" is nil's, as the controller names it).
        public func sectionKey(_ keyPath: WritableKeyPath<R, String?>) -> Ordering {
            sectionKey { $0[keyPath: keyPath] = $1.isEmpty ? nil : $1 }
        }
    }

    /// Rows can be moved when there is an ``ordering`` (and its
    /// ``Ordering/canMove`` allows the row's object).
    public func tableView(_ tableView: TableView, canMoveRowAt indexPath: TablePath) -> Bool {
        guard let ordering, let object = try? controller.object(at: indexPath) else { return false }
        return ordering.canMove?(object) ?? true
    }

    /// The user moved a row: writes its new place into the model (see
    /// ``ordering``), saves, and shows the controller's report of the save
    /// as the table's one move.
    public func tableView(_ tableView: TableView, moveRowAt sourceIndexPath: TablePath, to destinationIndexPath: TablePath) throws {
        try moveObject(from: sourceIndexPath, to: destinationIndexPath, in: tableView)
    }

    func moveObject(from source: TablePath, to destination: TablePath, in tableView: TableView) throws {
        guard let ordering else { throw BindingMoveError.noOrdering }
        let request = controller.fetchRequest
        let sectioned = controller.sectionNameKeyPath != nil
        let orderIndex = sectioned ? 1 : 0
        guard request.sortKeys.indices.contains(orderIndex), request.sortKeys[orderIndex].keyPath == ordering.key,
            !sectioned || request.sortKeys[0].keyPath == controller.sectionNameKeyPath
        else {
            throw BindingMoveError.notOrderedBy(ordering.key, sortKeys: request.sortKeys.map(\.description), sectionKey: controller.sectionNameKeyPath)
        }
        let counts = controller.numberOfObjectsInSections
        guard counts.indices.contains(source.section), (0..<counts[source.section]).contains(source.row) else {
            throw TableViewError.invalidIndexPath(source, sectionCount: counts.count, rowCount: counts.indices.contains(source.section) ? counts[source.section] : nil)
        }
        let rowsThere = counts.indices.contains(destination.section) ? counts[destination.section] - (destination.section == source.section ? 1 : 0) : nil
        guard let rowsThere, (0...rowsThere).contains(destination.row) else {
            throw TableViewError.invalidIndexPath(destination, sectionCount: counts.count, rowCount: rowsThere.map { $0 + 1 })
        }
        guard source != destination else { return }
        var moved = try controller.object(at: source)
        if source.section != destination.section {
            guard let writeSection = ordering.writeSection else {
                throw BindingMoveError.sectionKeyNotWritable(from: controller.name(ofSection: source.section) ?? "", to: controller.name(ofSection: destination.section) ?? "")
            }
            writeSection(&moved, controller.name(ofSection: destination.section) ?? "")
        }

        // The destination section's objects without the moved one, read as needed.
        func path(_ index: Int) -> TablePath {
            TablePath(row: destination.section == source.section && index >= source.row ? index + 1 : index, section: destination.section)
        }
        let ascending = request.sortKeys[orderIndex].ascending
        var read: [Int: R] = [:]
        func object(_ index: Int) throws -> R {
            if let object = read[index] { return object }
            let object = try controller.object(at: path(index))
            read[index] = object
            return object
        }
        var readError: (any Error)?
        let plan = _OrderPlan.place(count: rowsThere, at: destination.row, integral: ordering.integral, spacing: ordering.spacing) { index in
            do {
                let value = ordering.read(try object(index))
                return ascending ? value : -value
            } catch {
                readError = error
                return .nan
            }
        }
        if let readError { throw readError }

        // The objects whose values change: the moved one, and the renumbered neighbours.
        var changed: [R] = [], originals: [R] = [try controller.object(at: source)]
        for (offset, position) in plan.values.enumerated() {
            let value = ascending ? position : -position
            let index = plan.first + offset
            if index == destination.row {
                ordering.write(&moved, value)
                changed.append(moved)
            } else {
                var neighbour = try object(index > destination.row ? index - 1 : index)
                guard ordering.read(neighbour) != value else { continue }
                originals.append(neighbour)
                ordering.write(&neighbour, value)
                changed.append(neighbour)
            }
        }
        let context = controller.context
        userMove = (source, destination)
        defer { userMove = nil }
        do {
            try context.performChanges {
                for object in changed { try context.update(object) }
            }
            try context.save()
        } catch {
            // The store is unchanged: the objects get their values back (the
            // controller reports it, and the table follows).
            userMove = nil
            try? context.performChanges {
                for object in originals { try context.update(object) }
            }
            throw error
        }
    }
}

/// Why a fetched-results binding refused a user's move; the model, the
/// controller and the table are as they were.
public enum BindingMoveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The binding has no ``FetchedResultsTableBinding/ordering``.
    case noOrdering
    /// The controller's request is not ordered by the ordering's key first
    /// (after the section key, in a sectioned controller): a value written
    /// there would not put the row where the user dropped it.
    case notOrderedBy(String, sortKeys: [String], sectionKey: String?)
    /// A move across sections with no section key to write (see
    /// `FetchedResultsTableBinding.Ordering.sectionKey(_:)`).
    case sectionKeyNotWritable(from: String, to: String)

    public var description: String {
        switch self {
        case .noOrdering:
            return "the binding has no ordering: set binding.ordering to let the user move rows"
        case let .notOrderedBy(key, sortKeys, sectionKey):
            let sorted = sortKeys.isEmpty ? "no sort keys" : "sort keys \(sortKeys.joined(separator: ", "))"
            return "the fetch request must sort by \(sectionKey.map { "the section key \($0), then " } ?? "")\(key) for the user to move rows (it has \(sorted))"
        case let .sectionKeyNotWritable(from, to):
            return "a row cannot move from section '\(from)' to section '\(to)': the ordering writes no section key (Ordering.sectionKey)"
        }
    }
}

/// Where a moved object goes in the order of its new section, renumbering as
/// few objects as it can.
enum _OrderPlan {
    /// The values, as ascending positions, of the objects `first..<first + values.count`
    /// of the section with the moved object inserted at its index: the moved
    /// object's alone when there is room between its neighbours (a midpoint),
    /// else a window around it, the smallest that has room (up to the whole
    /// section, numbered from 0 by `spacing`).
    ///
    /// `value(i)` is the position of the `i`th of `count` objects, without
    /// the moved one (non-decreasing along the section). Integral values stay
    /// integers, within ±2^53.
    ///
    /// - Complexity: O(*k* log *n*) reads for a window of *k* objects.
    static func place(count: Int, at index: Int, integral: Bool, spacing: Double, value: (Int) -> Double) -> (first: Int, values: [Double]) {
        var windows: [(low: Int, high: Int)] = [(index, index)]
        var radius = 1
        while radius < 2 * max(count, 1) {
            windows.append((max(0, index - radius), min(count, index + radius)))
            radius *= 2
        }
        windows.append((0, index))
        windows.append((index, count))
        windows.sort { $0.high - $0.low < $1.high - $1.low }
        for window in windows {
            if let values = fill(window, count: count, integral: integral, spacing: spacing, value: value) {
                return (window.low, values)
            }
        }
        return (0, (0..<count + 1).map { Double($0) })
    }

    /// Values for the objects of a window and the moved one, strictly between
    /// the values of the objects around the window; nil when there is no room.
    static func fill(_ window: (low: Int, high: Int), count: Int, integral: Bool, spacing: Double, value: (Int) -> Double) -> [Double]? {
        let k = window.high - window.low + 1
        let lower = window.low > 0 ? value(window.low - 1) : nil
        let upper = window.high < count ? value(window.high) : nil
        var values: [Double]
        switch (lower, upper) {
        case let (l?, u?):
            guard l < u else { return nil }
            if integral {
                guard let li = Int(exactly: l), let ui = Int(exactly: u), ui - li > k else { return nil }
                let gap = ui - li
                values = (1...k).map { Double(li + $0 * gap / (k + 1)) }
            } else {
                let step = (u - l) / Double(k + 1)
                values = (1...k).map { l + step * Double($0) }
            }
        case let (l?, nil):
            values = (1...k).map { l + spacing * Double($0) }
        case let (nil, u?):
            values = (1...k).map { u - spacing * Double(k + 1 - $0) }
        case (nil, nil):
            values = (0..<k).map { spacing * Double($0) }
        }
        let limit = 9_007_199_254_740_992.0   // 2^53: integers stay exact
        for (i, v) in values.enumerated() {
            guard v.isFinite, !integral || (abs(v) < limit && v == v.rounded()) else { return nil }
            if i > 0, !(values[i - 1] < v) { return nil }
        }
        if let lower, !(lower < values[0]) { return nil }
        if let upper, !(values[k - 1] < upper) { return nil }
        return values
    }
}
