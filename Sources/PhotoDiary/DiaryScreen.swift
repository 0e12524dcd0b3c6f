import Foundation
import HeadlessTable

/// The diary's screen: a table of the entries, newest first with a section per
/// month, bound to a fetched results controller on the view context; a swipe
/// deletes, the star marks a favourite, and a search filters by text.
public final class DiaryScreen {
    public let context: ObjectContext<Entry>
    public let table: TableView
    public let binding: FetchedResultsTableBinding<Entry>
    public let search: TableSearch<Entry>

    public init(store: ObjectStore<Entry>, lines: Int) throws {
        context = ObjectContext(store: store, name: "view")
        table = TableView(viewportHeight: Double(lines) * 44)
        table.sectionHeaderHeight = 44
        // The prototype cell, archived once: every cell is made from it.
        try table.register(ViewTemplate(EntryCell(reuseIdentifier: "entry")), forCellReuseIdentifier: "entry")
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest(sortKeys: [SortKey("created", ascending: false)]),
            context: context, sectionNameKeyPath: "month")
        try controller.performFetch()
        var starTapped: (EntryCell) -> Void = { _ in }
        binding = try table.bind(to: controller) { table, indexPath, entry in
            let cell = try table.dequeueReusableCell(withIdentifier: "entry", for: indexPath)
            (cell as? EntryCell)?.entry = entry
            (cell as? EntryCell)?.onStar = { starTapped($0) }
            return cell
        }
        let context = context
        binding.onDelete = { entry in
            try context.delete(entry.id)
            _ = try context.save()
        }
        search = try TableSearch(binding, format: "text CONTAINS[cd] %@")
        starTapped = { [unowned self] cell in try? self.toggleFavorite(cell) }
    }

    /// The star's action: the cell's row gives its entry, which is saved with
    /// the star flipped — an update that reloads that one row.
    func toggleFavorite(_ cell: EntryCell) throws {
        let table = search.isActive ? search.resultsTable : table
        guard let path = table.indexPath(for: cell) else { return }
        let entry = try search.isActive ? search.object(at: path) : binding.controller.object(at: path)
        var starred = entry
        starred.favorite.toggle()
        try context.update(starred)
        _ = try context.save()
    }
}
