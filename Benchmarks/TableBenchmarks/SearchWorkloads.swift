import Foundation
import HeadlessTable

/// Search-as-you-type: typing on narrows the search, which filters the previous
/// results instead of the store.
enum SearchWorkloads {
    static var all: [Workload] { [narrowing()] }

    typealias Person = FetchWorkloads.Person

    /// "mü" → "mül" over 1M people (last names `Müller…` and `Nakamura…`
    /// contain "mu" folded, ~100k; `Müller…` contain "mul", ~50k): the format
    /// search filters its "mü" results, against the same search fetching
    /// from the whole store (a closure search, which never narrows). Both
    /// reload the results table.
    static func narrowing() -> Workload {
        Workload(
            name: "search/narrow-mü-to-mül-1M",
            summary: "a search's text going from \"mü\" to \"mül\" (lastName CONTAINS[cd]) over 1,000,000 records: filtering the ~100k previous results against fetching from the store",
            targets: [Target(against: "fullRefetch", atMost: 0.5)]
        ) {
            let context = FetchWorkloads.store(FetchWorkloads.people(1_000_000))
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<Person>(sortKeys: [SortKey("lastName")]), context: context)
            let table = TableView(viewportHeight: 20 * 44)
            try? table.register(TableViewCell.self, forCellReuseIdentifier: "person")
            let cell: FetchedResultsTableBinding<Person>.CellProvider = { table, path, person in
                let cell = try table.dequeueReusableCell(withIdentifier: "person", for: path)
                cell.text = person.lastName
                return cell
            }
            guard let binding = try? table.bind(to: controller, cell: cell) else { fatalError("the benchmark's table could not be bound") }
            let format = "lastName CONTAINS[cd] %@"
            // One search per sample (and the cold run), each at "mü": narrowing cannot be undone.
            let samples = 10
            var searches: [TableSearch<Person>] = (0...samples + 1).compactMap { _ in
                let search = try? TableSearch(binding, format: format, results: .flat)
                try? search?.update(text: "mü")
                return search
            }
            let previous = searches.first?.resultsTable.numberOfRows(inSection: 0) ?? 0
            // One more, to check that the subject narrows and how many it finds.
            let check = searches.removeLast()
            try? check.update(text: "mül")
            let fetching = TableSearch(binding, results: .flat) { text in try RecordPredicate(format: format, text) }
            return Prepared(
                subject: {
                    guard !searches.isEmpty else { return }
                    let search = searches.removeLast()
                    try? search.update(text: "mül")
                    blackHole(search.resultsTable.numberOfRows(inSection: 0))
                },
                baselines: [Baseline(name: "fullRefetch", run: {
                    try? fetching.update(text: "mül")
                    blackHole(fetching.resultsTable.numberOfRows(inSection: 0))
                }, maxSamples: samples)],
                counters: [
                    "records": 1_000_000, "previousResults": previous,
                    "results": check.resultsTable.numberOfRows(inSection: 0), "narrowed": check.lastUpdateNarrowed ? 1 : 0,
                ],
                maxSamples: samples)
        }
    }
}
