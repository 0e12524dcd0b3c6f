import Foundation
import HeadlessTable

/// The diary's screen, as the book builds it: a table of the entries bound
/// to a fetched results controller — newest first, a section per month — on
/// the view context, which merges every other context's save as it is
/// posted (listing 4.53). The controller reports each change from the
/// changed objects alone and the binding applies it as one batch: nothing is
/// fetched again. A search filters the entries as the user types (section
/// 4.5.9), a swipe deletes an entry (and, by the cascade rule, its media),
/// the star marks a favourite, and a filter fetches with a predicate that
/// goes through the relationship `media`.
public final class DiaryScreen {
    /// The view context: the table's.
    public let context: ObjectContext
    public let table: TableView
    /// The entries, newest first, a section per month.
    public let controller: FetchedResultsController<DiaryEntry>
    public let binding: FetchedResultsTableBinding<DiaryEntry>
    /// The search field's table of results.
    public let search: TableSearch<DiaryEntry>
    /// The listing's observer of the other contexts' saves.
    private var observer: (any NSObjectProtocol)?

    public init(store: ObjectStore, lines: Int) throws {
        let context = ObjectContext(store: store, name: "view")
        self.context = context
        table = TableView(viewportHeight: Double(lines) * 44)
        table.sectionHeaderHeight = 44
        // The prototype cell, archived once: every cell is made from it.
        try table.register(ViewTemplate(EntryCell(reuseIdentifier: "entry")), forCellReuseIdentifier: "entry")

        var request = FetchRequest<DiaryEntry>(sortKeys: [SortKey("creationTime", ascending: false)])
        request.fetchBatchSize = 20
        controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: "month", cacheName: "diary")
        try controller.performFetch()
        var starTapped: (EntryCell) throws -> Void = { _ in }
        binding = try table.bind(to: controller) { table, path, entry in
            let cell = try table.dequeueReusableCell(withIdentifier: "entry", for: path)
            (cell as? EntryCell)?.entry = entry
            (cell as? EntryCell)?.icon = try Self.icon(of: entry, in: context)
            (cell as? EntryCell)?.onStar = { try starTapped($0) }
            return cell
        }
        binding.showsSectionIndex = false
        try table.reloadData()
        binding.onDelete = { entry in
            // Its media go with it, by the cascade rule.
            try context.delete(entry)
            try context.save()
        }
        search = try TableSearch(binding, format: "text CONTAINS[cd] %@", results: .flat)
        starTapped = { [unowned self] cell in try self.toggleFavorite(cell) }

        // Listing 4.53: every other context's save on the store is merged
        // into the view context as it is posted; the controller and the
        // table follow. (The observer runs on the saving thread: here, the
        // one thread the diary uses.)
        nonisolated(unsafe) let view = context
        observer = NotificationCenter.default.addObserver(forName: .objectContextDidSave, object: nil, queue: nil) { note in
            view.mergeChanges(fromContextDidSave: note)
        }
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    /// A cell's icon, by the book's `mediumForType:`: ▣ a photo, ♪ a
    /// recording, ✎ text only.
    static func icon(of entry: DiaryEntry, in context: ObjectContext) throws -> String {
        try entry.medium(forType: "image", in: context) != nil ? "▣" : try entry.medium(forType: "audio", in: context) != nil ? "♪" : "✎"
    }

    /// Shows only the entries `predicate` matches (nil: all of them): a new
    /// request for the controller, the table changed by one batch.
    public func filter(_ predicate: FormatPredicate?) throws {
        var request = controller.fetchRequest
        request.predicate = predicate.map(RecordPredicate.init)
        FetchedResultsController<DiaryEntry>.deleteCache(withName: controller.cacheName, in: context.store)
        _ = try binding.performFetch(with: request)
    }

    /// The star's action: the cell's row gives its entry, which is saved with
    /// the star flipped — a change that reconfigures that one row.
    func toggleFavorite(_ cell: EntryCell) throws {
        guard let path = table.indexPath(for: cell) else { return }
        var entry = try controller.object(at: path)
        entry.favorite.toggle()
        try context.update(entry)
        try context.save()
    }
}
