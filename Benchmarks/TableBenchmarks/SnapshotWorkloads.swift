import Foundation
import HeadlessTable

/// Snapshots: building one of a million items, applying DifferenceKit's 1M
/// workload through a diffable data source, and appending one item at a time.
enum SnapshotWorkloads {
    static var all: [Workload] { [build(), stages(), apply(), appendOneByOne(), followSave()] }

    struct Entry {
        var id: UUID
        var section: Int
    }

    /// A million fetched entries in 1,000 sections, in section order.
    static func entries() -> [Entry] {
        var g = SplitMix64(seed: 11)
        return (0..<1_000_000).map { Entry(id: seededUUID(&g), section: $0 / 1_000) }
    }

    static func build() -> Workload {
        Workload(
            name: "snapshot/build-1M",
            summary: "a snapshot of 1,000,000 entries (UUID ids) in 1,000 sections, against building the [TableSection] of their ids by hand (the issue's goal: at most 1.3 times), and hashing every id once (reported)",
            targets: [Target(against: "sectionsByHand", atMost: 1.3)]
        ) {
            let entries = entries()
            return Prepared(
                subject: {
                    var snapshot = TableSnapshot<Int, UUID>()
                    snapshot.reserveCapacity(entries.count)
                    var start = 0
                    while start < entries.count {
                        let section = entries[start].section
                        var end = start
                        while end < entries.count && entries[end].section == section { end += 1 }
                        try? snapshot.appendSections([section])
                        try? snapshot.appendItems(entries[start..<end].map(\.id))
                        start = end
                    }
                    blackHole(snapshot)
                },
                baselines: [
                    Baseline(name: "sectionsByHand", run: {
                        var sections: [TableSection<UUID>] = []
                        for entry in entries {
                            if sections.last?.name != String(entry.section) { sections.append(TableSection(name: String(entry.section), rows: [])) }
                            sections[sections.count - 1].rows.append(entry.id)
                        }
                        blackHole(sections)
                    }),
                    Baseline(name: "hashFloor", run: {
                        var sum = 0
                        for entry in entries { sum &+= entry.id.hashValue }
                        blackHole(sum)
                    }),
                ],
                maxSamples: 10)
        }
    }

    /// A data source and a table with the rows of a snapshot, the window's cells made.
    final class Screen {
        let table = TableView(viewportHeight: 600)
        let dataSource: TableViewDiffableDataSource<Int, UUID>

        init() {
            try? table.register(TableViewCell.self, forCellReuseIdentifier: "row")
            dataSource = try! TableViewDiffableDataSource(tableView: table) { table, indexPath, id in
                let cell = try table.dequeueReusableCell(withIdentifier: "row", for: indexPath)
                cell.text = id.uuidString
                return cell
            }
        }
    }

    /// Rows of one section for a table by hand.
    final class Rows: TableViewDataSource {
        var rows: [UUID] = []
        func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { rows.count }
        func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
            let cell = try tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            cell.text = rows[indexPath.row].uuidString
            return cell
        }
    }

    static func snapshot(_ ids: [UUID]) -> TableSnapshot<Int, UUID> {
        var snapshot = TableSnapshot<Int, UUID>()
        try! snapshot.appendSections([0])
        try! snapshot.appendItems(ids)
        return snapshot
    }

    static func stages() -> Workload {
        Workload(
            name: "snapshot/stages-1M",
            summary: "the staged batches between two snapshots of DifferenceKit's 1M workload, against TableChangeset of the same ids",
            targets: [Target(against: "changeset", atMost: 1.2)]
        ) {
            var g = SplitMix64(seed: 7)
            let (old, new) = DiffWorkloads.flatPair(count: 1_000_000, delete: 200_000..<300_000, insert: 300_000..<400_000, shuffle: 0..<20_000) { seededUUID(&g) }
            let oldSnapshot = snapshot(old), newSnapshot = snapshot(new)
            return Prepared(
                subject: { blackHole(oldSnapshot.stages(to: newSnapshot)) },
                baselines: [Baseline(name: "changeset", run: { blackHole(TableChangeset(from: old, to: new)) })],
                maxSamples: 10)
        }
    }

    static func apply() -> Workload {
        Workload(
            name: "snapshot/apply-1M",
            summary: "apply DifferenceKit's 1M workload (delete 100k, insert 100k, shuffle 20k) and back through a diffable data source, against TableChangeset + TableView.apply by hand",
            targets: [Target(against: "changesetByHand", atMost: 1.2)]
        ) {
            var g = SplitMix64(seed: 7)
            let (old, new) = DiffWorkloads.flatPair(count: 1_000_000, delete: 200_000..<300_000, insert: 300_000..<400_000, shuffle: 0..<20_000) { seededUUID(&g) }
            let oldSnapshot = snapshot(old), newSnapshot = snapshot(new)
            let screen = Screen()
            try! screen.dataSource.applySnapshotUsingReloadData(oldSnapshot)

            let rows = Rows()
            rows.rows = old
            let table = TableView(viewportHeight: 600)
            try? table.register(TableViewCell.self, forCellReuseIdentifier: "row")
            table.dataSource = rows
            try? table.reloadData()
            return Prepared(
                subject: {
                    try! screen.dataSource.apply(newSnapshot)
                    try! screen.dataSource.apply(oldSnapshot)
                },
                baselines: [
                    Baseline(name: "changesetByHand", run: {
                        try! table.apply(TableChangeset(from: old, to: new)) { stage in rows.rows = stage.sections[0].rows }
                        try! table.apply(TableChangeset(from: new, to: old)) { stage in rows.rows = stage.sections[0].rows }
                    }, maxSamples: 10),
                ],
                counters: ["stages": oldSnapshot.stages(to: newSnapshot).count],
                maxSamples: 10)
        }
    }

    static func appendOneByOne() -> Workload {
        Workload(
            name: "snapshot/append-10k-one-by-one",
            summary: "10,000 appendItems of one item each to a snapshot of 100,000 items in 100 sections, against one appendItems of 10,000",
            targets: [Target(against: "oneAppend", atMost: 3)]
        ) {
            var base = TableSnapshot<Int, Int>()
            for s in 0..<100 {
                try! base.appendSections([s])
                try! base.appendItems(Array(s * 1_000..<(s + 1) * 1_000))
            }
            let added = Array(1_000_000..<1_010_000)
            return Prepared(
                subject: {
                    var snapshot = base
                    for item in added { try! snapshot.appendItems([item]) }
                    blackHole(snapshot)
                },
                baselines: [
                    Baseline(name: "oneAppend", run: {
                        var snapshot = base
                        try! snapshot.appendItems(added)
                        blackHole(snapshot)
                    }),
                ])
        }
    }

    /// A snapshot delegate that applies every snapshot to a data source.
    final class WholeSnapshots: FetchedResultsControllerSnapshotDelegate {
        typealias Object = FetchWorkloads.Person
        let dataSource: TableViewDiffableDataSource<String, Int>
        init(_ dataSource: TableViewDiffableDataSource<String, Int>) { self.dataSource = dataSource }
        func controller(_ controller: FetchedResultsController<FetchWorkloads.Person>, didChangeContentWith snapshot: TableSnapshot<String, Int>) {
            try? dataSource.apply(snapshot)
        }
    }

    static func followSave() -> Workload {
        Workload(
            name: "snapshot/follow-save-1-into-1M",
            summary: "a save of 1 changed record (an edit, a move, or out of the results) into a controller over 1,000,000 records (~460k results, 100 sections) followed by a diffable data source on a table, against the same with FetchedResultsTableBinding, and with a snapshot delegate applying whole snapshots",
            targets: [Target(against: "binding", atMost: 2)]
        ) {
            typealias Person = FetchWorkloads.Person
            let everyone = FetchWorkloads.people(1_000_000)
            let followed = FetchWorkloads.store(everyone)
            let store = followed.store
            let writer = ObjectContext(store: store)
            func table() -> TableView {
                let table = TableView(viewportHeight: 600)
                try? table.register(TableViewCell.self, forCellReuseIdentifier: "row")
                return table
            }
            func controller(_ context: ObjectContext) -> FetchedResultsController<Person> {
                let controller = FetchedResultsController(fetchRequest: FetchWorkloads.request, context: context, sectionNameKeyPath: "city")
                try? controller.performFetch()
                _ = controller.indexPath(forObjectWithID: 0)   // the identity index, built once
                return controller
            }
            let cell: TableViewDiffableDataSource<String, Int>.CellProvider = { table, indexPath, id in
                let cell = try table.dequeueReusableCell(withIdentifier: "row", for: indexPath)
                cell.text = "\(id)"
                return cell
            }
            // The subject: a data source following a controller.
            let followingTable = table()
            let following = try! TableViewDiffableDataSource<String, Int>(tableView: followingTable, cellProvider: cell)
            let followedController = controller(followed)
            try! following.follow(followedController)
            // Baselines: the binding, and whole snapshots applied.
            let bound = ObjectContext(store: store)
            let bindingTable = table()
            let binding = try! bindingTable.bind(to: controller(bound)) { table, indexPath, person in try cell(table, indexPath, person.id)! }
            let wholes = ObjectContext(store: store)
            let wholeTable = table()
            let wholeDataSource = try! TableViewDiffableDataSource<String, Int>(tableView: wholeTable, cellProvider: cell)
            let wholeController = controller(wholes)
            try! wholeDataSource.apply(wholeController.snapshot())
            let receiver = WholeSnapshots(wholeDataSource)
            wholeController.delegate = receiver

            // Every save changes a record in the results: an edit, a move
            // within its section, or (a third of the time) an age that takes it
            // out of the results.
            let shown = followedController.fetchedObjects?.map(\.id) ?? []
            // Each body its own rounds (the harness runs the bodies in turn:
            // shared rounds would give each body one kind of change).
            func saver(into context: ObjectContext, seed: UInt64) -> () -> Void {
                var g = SplitMix64(seed: seed)
                var round = 0
                return {
                    round += 1
                    let id = shown[Int(g.next() % UInt64(shown.count))]
                    guard var person = try? writer.object(Person.self, id: id) else { return }
                    switch round % 3 {
                    case 0: person.notes = "edited \(round)"
                    case 1: person.lastName = FetchWorkloads.names[Int(g.next() % 20)] + "\(g.next() % 1000)"
                    default: person.age = person.age < 40 ? 70 : 30
                    }
                    try? writer.update(person)
                    if let saved = try? writer.save() { context.mergeChanges(fromContextDidSave: saved) }
                }
            }
            let saveFollowed = saver(into: followed, seed: 97), saveBound = saver(into: bound, seed: 98), saveWholes = saver(into: wholes, seed: 99)
            return Prepared(
                // (Each closure holds its table, data source and controller: a
                // table holds its data source weakly, a controller its delegate.)
                subject: { saveFollowed(); blackHole((followingTable, following, followedController)) },
                baselines: [
                    Baseline(name: "binding", run: { saveBound(); blackHole((bindingTable, binding)) }),
                    Baseline(name: "wholeSnapshots", run: { saveWholes(); blackHole((wholeTable, wholeDataSource, wholeController, receiver)) }, maxSamples: 5),
                ],
                counters: ["results": followedController.fetchedObjects?.count ?? 0])
        }
    }
}
