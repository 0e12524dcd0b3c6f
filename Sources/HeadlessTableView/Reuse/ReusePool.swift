import TableDiff
import Foundation

/// Registrations and reuse queues for a table's cells and its header and
/// footer views; tables can share one (a search results table shares its
/// table's).
///
/// Register a class (new views are made with `init(reuseIdentifier:)`) or a
/// ``ViewTemplate`` (new views are decoded from the prototype's archive). A
/// later registration replaces the earlier one, and drops the views queued
/// under it; registering nil unregisters.
///
/// There is one last-in-first-out queue per identifier. As in UIKit, any view
/// with a non-empty reuse identifier that a table gives back is queued under
/// it — one the pool made, or one the app made itself (after a dequeue found
/// nothing) — and handed back by the next dequeue of that identifier,
/// registered or not; only a view of another class than its identifier's
/// registration makes is dropped. A view dequeued from a queue gets
/// `prepareForReuse()` first. The pool counts the views it made, adopted,
/// reused, has handed out and holds in its queues.
public final class ReusePool {
    /// What the pool has done with one kind of view.
    public struct Statistics: Hashable, Sendable, CustomStringConvertible {
        /// Views made (from a class or a template).
        public var created = 0
        /// Views the app made itself, queued when a table gave them back.
        public var adopted = 0
        /// Views handed out again from a queue.
        public var reused = 0
        /// Views handed out and not yet given back.
        public var inUse = 0
        /// Views waiting in the queues.
        public var queued = 0
        /// The most views alive (in use and queued) at once.
        public var maxLive = 0

        public init(created: Int = 0, adopted: Int = 0, reused: Int = 0, inUse: Int = 0, queued: Int = 0, maxLive: Int = 0) {
            self.created = created
            self.adopted = adopted
            self.reused = reused
            self.inUse = inUse
            self.queued = queued
            self.maxLive = maxLive
        }

        /// Views alive now: in use and queued.
        public var live: Int { inUse + queued }

        public var description: String {
            "\(created) created, " + (adopted > 0 ? "\(adopted) adopted, " : "") + "\(reused) reused, \(inUse) in use, \(queued) queued (at most \(maxLive) alive)"
        }
    }

    enum Registration {
        case type(TableReusableView.Type)
        case template(ViewTemplate, preferredHeight: Double?)
    }

    /// One kind of view: cells, or header and footer views.
    final class Registry {
        var registrations: [String: Registration] = [:]
        var queues: [String: [TableReusableView]] = [:]
        var handedOut = Set<ObjectIdentifier>()
        var queued = Set<ObjectIdentifier>()
        var statistics = Statistics()
        var byIdentifier: [String: Statistics] = [:]

        /// Applies a change to the totals and to one identifier's counts.
        func count(_ identifier: String, _ change: (inout Statistics) -> Void) {
            change(&statistics)
            change(&byIdentifier[identifier, default: Statistics()])
        }

        /// The class the registration makes.
        func madeType(_ identifier: String) -> TableReusableView.Type? {
            switch registrations[identifier] {
            case .type(let type)?: type
            case .template(let template, _)?: template.viewType
            case nil: nil
            }
        }

        func register(_ registration: Registration?, for identifier: String) throws(TableViewError) {
            guard !identifier.isEmpty else { throw .emptyReuseIdentifier }
            if let dropped = queues.removeValue(forKey: identifier) {
                for view in dropped { queued.remove(ObjectIdentifier(view)) }
                count(identifier) { $0.queued -= dropped.count }
            }
            registrations[identifier] = registration
        }

        func dequeue(_ identifier: String) -> TableReusableView? {
            let view: TableReusableView
            if var queue = queues[identifier], let last = queue.popLast() {
                queues[identifier] = queue
                queued.remove(ObjectIdentifier(last))
                count(identifier) { $0.queued -= 1; $0.reused += 1 }
                last.prepareForReuse()
                view = last
            } else {
                switch registrations[identifier] {
                case .type(let type)?:
                    view = type.init(reuseIdentifier: identifier)
                case .template(let template, _)?:
                    // The archive decoded when it was registered, and decodes the same way now.
                    guard let made = try? template.make(identifier) else { return nil }
                    view = made
                case nil:
                    return nil
                }
                count(identifier) { $0.created += 1 }
            }
            handedOut.insert(ObjectIdentifier(view))
            count(identifier) {
                $0.inUse += 1
                $0.maxLive = Swift.max($0.maxLive, $0.live)
            }
            return view
        }

        /// Takes a queued view out of its queue again, as handed out (nothing
        /// happens for a view that is not queued).
        func reclaim(_ view: TableReusableView) {
            let id = ObjectIdentifier(view)
            guard queued.remove(id) != nil, let identifier = view.reuseIdentifier else { return }
            queues[identifier]?.removeAll { $0 === view }
            handedOut.insert(id)
            count(identifier) { $0.queued -= 1; $0.inUse += 1 }
        }

        /// The identifier a view is reused under: its own, when not empty —
        /// unless the identifier's registration makes views of another class
        /// (a view of a replaced registration is not reused).
        func reuseIdentifier(of view: TableReusableView) -> String? {
            guard let identifier = view.reuseIdentifier, !identifier.isEmpty else { return nil }
            if let type = madeType(identifier), Swift.type(of: view) != type { return nil }
            return identifier
        }

        /// Queues a view for reuse under its identifier — once, and only when
        /// it can be reused (see ``reuseIdentifier(of:)``). A view the pool did
        /// not hand out is adopted.
        func enqueue(_ view: TableReusableView) {
            let id = ObjectIdentifier(view)
            guard !queued.contains(id), let identifier = view.reuseIdentifier, !identifier.isEmpty else { return }
            let handedOutHere = handedOut.remove(id) != nil
            if handedOutHere { count(identifier) { $0.inUse -= 1 } }
            guard reuseIdentifier(of: view) != nil else { return }
            queues[identifier, default: []].append(view)
            queued.insert(id)
            count(identifier) {
                $0.queued += 1
                if !handedOutHere {
                    $0.adopted += 1
                    $0.maxLive = Swift.max($0.maxLive, $0.live)
                }
            }
        }
    }

    let cells = Registry()
    let headerFooterViews = Registry()

    public init() {}

    // MARK: Cells

    /// Registers a cell class: new cells are `cellClass.init(reuseIdentifier:)`.
    /// Nil unregisters.
    ///
    /// - Throws: ``TableViewError/emptyReuseIdentifier``.
    public func register(_ cellClass: TableViewCell.Type?, forCellReuseIdentifier identifier: String) throws(TableViewError) {
        try cells.register(cellClass.map { .type($0) }, for: identifier)
    }

    /// Registers a cell template: new cells are decoded from its archive. Nil unregisters.
    ///
    /// - Throws: ``TableViewError/emptyReuseIdentifier``, or
    ///   ``TableViewError/unreadableTemplate(_:)`` when the template does not make cells.
    public func register(_ template: ViewTemplate?, forCellReuseIdentifier identifier: String) throws(TableViewError) {
        guard let template else { return try cells.register(nil, for: identifier) }
        guard template.viewType is TableViewCell.Type, let prototype = template.prototype as? TableViewCell else {
            throw .unreadableTemplate("\(template.viewType) is not a TableViewCell")
        }
        try cells.register(.template(template, preferredHeight: prototype.preferredHeight), for: identifier)
    }

    /// A queued cell (after `prepareForReuse()`), else a new one from the
    /// registration, else nil when nothing is registered.
    public func dequeueReusableCell(withIdentifier identifier: String) -> TableViewCell? {
        cells.dequeue(identifier) as? TableViewCell
    }

    /// Whether something is registered for cells with this identifier.
    public func isRegistered(cellReuseIdentifier identifier: String) -> Bool { cells.registrations[identifier] != nil }

    /// The height a template's prototype prefers, for cells with this identifier.
    public func preferredHeight(forCellReuseIdentifier identifier: String) -> Double? {
        if case .template(_, let height)? = cells.registrations[identifier] { return height }
        return nil
    }

    /// Gives a cell back for reuse (a table does this as rows leave its window).
    public func enqueue(_ cell: TableViewCell) { cells.enqueue(cell) }

    public var cellStatistics: Statistics { cells.statistics }

    /// What the pool has done with the cells of one identifier.
    public func cellStatistics(forReuseIdentifier identifier: String) -> Statistics {
        cells.byIdentifier[identifier] ?? Statistics()
    }

    // MARK: Header and footer views

    public func register(_ viewClass: TableHeaderFooterView.Type?, forHeaderFooterViewReuseIdentifier identifier: String) throws(TableViewError) {
        try headerFooterViews.register(viewClass.map { .type($0) }, for: identifier)
    }

    public func register(_ template: ViewTemplate?, forHeaderFooterViewReuseIdentifier identifier: String) throws(TableViewError) {
        guard let template else { return try headerFooterViews.register(nil, for: identifier) }
        guard template.viewType is TableHeaderFooterView.Type else {
            throw .unreadableTemplate("\(template.viewType) is not a TableHeaderFooterView")
        }
        try headerFooterViews.register(.template(template, preferredHeight: nil), for: identifier)
    }

    /// A queued view, else a new one from the registration, else nil.
    public func dequeueReusableHeaderFooterView(withIdentifier identifier: String) -> TableHeaderFooterView? {
        headerFooterViews.dequeue(identifier) as? TableHeaderFooterView
    }

    public func enqueue(_ view: TableHeaderFooterView) { headerFooterViews.enqueue(view) }

    public var headerFooterStatistics: Statistics { headerFooterViews.statistics }
}
