import Foundation
import HeadlessTable

/// The diary's screen: a table of the entries, newest first with a section
/// per month, on the view context of the diary's object graph. After every
/// change — its own, or another context's save merged — the screen fetches
/// the entries (with the filter's predicate, which may go through the
/// relationship `media`) and applies them as a snapshot: the diffable data
/// source works out the batch. A swipe deletes an entry (and, by the
/// cascade rule, its media); the star marks a favourite.
public final class DiaryScreen {
    public let context: ObjectGraphContext
    public let table: TableView
    let dataSource: DiaryDataSource
    /// Which entries the table shows: all of them when nil.
    public private(set) var filter: FormatPredicate?
    /// The entries shown, by identity, and each one's icon.
    private(set) var entries: [Int: (entry: DiaryEntry, icon: String)] = [:]

    public init(store: ObjectGraphStore, lines: Int) throws {
        context = ObjectGraphContext(store: store, name: "view")
        table = TableView(viewportHeight: Double(lines) * 44)
        table.sectionHeaderHeight = 44
        // The prototype cell, archived once: every cell is made from it.
        try table.register(ViewTemplate(EntryCell(reuseIdentifier: "entry")), forCellReuseIdentifier: "entry")
        var starTapped: (EntryCell) -> Void = { _ in }
        var shown: (Int) -> (entry: DiaryEntry, icon: String)? = { _ in nil }
        dataSource = try DiaryDataSource(tableView: table) { table, indexPath, id in
            let cell = try table.dequeueReusableCell(withIdentifier: "entry", for: indexPath)
            (cell as? EntryCell)?.entry = shown(id)?.entry
            (cell as? EntryCell)?.icon = shown(id)?.icon ?? "✎"
            (cell as? EntryCell)?.onStar = { starTapped($0) }
            return cell
        }
        dataSource.headerTitleProvider = { month, _ in month }
        shown = { [unowned self] id in entries[id] }
        starTapped = { [unowned self] cell in try? self.toggleFavorite(cell) }
        dataSource.delete = { [unowned self] id in try self.delete(id) }
        try refresh()
    }

    /// Shows only the entries `predicate` matches (nil: all of them).
    public func filter(_ predicate: FormatPredicate?) throws {
        filter = predicate
        try refresh()
    }

    /// Merges another context's save, and shows the result.
    public func merge(_ saved: GraphDidSave) throws {
        context.mergeChanges(fromContextDidSave: saved)
        try refresh()
    }

    /// Fetches the entries and applies them: changed entries are
    /// reconfigured in place, the rest is the diff of the snapshots.
    func refresh() throws {
        let fetched = try context.fetch(GraphFetchRequest(
            entityName: "DiaryEntry", predicate: filter, sortKeys: [SortKey("creationTime", ascending: false)]))
        var snapshot = TableSnapshot<String, Int>()
        var changed: [Int] = []
        var next: [Int: (entry: DiaryEntry, icon: String)] = [:]
        for object in fetched {
            guard let entry = object.as(DiaryEntry.self) else { continue }
            // The icon by the book's mediumForType:.
            let icon = try entry.medium(forType: "image", in: context) != nil ? "▣"
                : try entry.medium(forType: "audio", in: context) != nil ? "♪" : "✎"
            let month = DiaryEntry.monthName(entry.creationTime)
            if snapshot.indexOfSection(month) == nil { try snapshot.appendSections([month]) }
            try snapshot.appendItems([entry.id], toSection: month)
            if let old = entries[entry.id], old.entry != entry || old.icon != icon { changed.append(entry.id) }
            next[entry.id] = (entry, icon)
        }
        let kept = Set(dataSource.snapshot().itemIdentifiers)
        try snapshot.reconfigureItems(changed.filter(kept.contains))
        entries = next
        try dataSource.apply(snapshot)
    }

    /// The star's action: the cell's row gives its entry, which is saved with
    /// the star flipped — a change that reconfigures that one row.
    func toggleFavorite(_ cell: EntryCell) throws {
        guard let path = table.indexPath(for: cell), let id = dataSource.itemIdentifier(for: path), var entry = entries[id]?.entry else { return }
        entry.favorite.toggle()
        try context.update(entry)
        try context.save()
        try refresh()
    }

    /// Deletes an entry — its media with it, by the cascade rule — and saves.
    func delete(_ id: Int) throws {
        try context.delete(DiaryEntry.self, id: id)
        try context.save()
        try refresh()
    }
}

/// The screen's data source: a row can be swiped away, which deletes its entry.
final class DiaryDataSource: TableViewDiffableDataSource<String, Int> {
    var delete: (Int) throws -> Void = { _ in }

    override func tableView(_ tableView: TableView, canEditRowAt indexPath: TablePath) -> Bool { true }

    override func tableView(_ tableView: TableView, commit editingStyle: TableView.EditingStyle, forRowAt indexPath: TablePath) throws {
        guard editingStyle == .delete, let id = itemIdentifier(for: indexPath) else { return }
        try delete(id)
    }
}
