import Foundation
import HeadlessTable

/// A table bound to a fetched results controller: the cost of a save with
/// many sections against few; a scroll through 1M rows read in batches.
enum BindingWorkloads {
    static var all: [Workload] { [saveWithManySections(), scrollBatched()] }

    /// 100,000 people in `sections` cities, a bound table, and a save of one
    /// changed person: an edit, a move within its city, or a move to another city.
    static func boundTable(sections: Int) -> (save: () -> Void, keepAlive: Any) {
        typealias Person = FetchWorkloads.Person
        let cities = (0..<sections).map { String(format: "City %05d", $0) }
        var g = SplitMix64(seed: 5)
        let store = ObjectStore(for: Person.self)
        let writer = ObjectContext(store: store)
        for id in 0..<100_000 {
            var person = FetchWorkloads.people(1, seed: UInt64(id))[0]
            person.id = id
            person.city = cities[Int(g.next() % UInt64(sections))]
            try? writer.insert(person)
        }
        _ = try? writer.save()
        let view = ObjectContext(store: store)
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<Person>(sortKeys: [SortKey("city"), SortKey("lastName")]), context: view, sectionNameKeyPath: "city")
        let table = TableView(viewportHeight: 600)
        try? table.register(TableViewCell.self, forCellReuseIdentifier: "row")
        let binding = try! table.bind(to: controller) { table, indexPath, person in
            let cell = try table.dequeueReusableCell(withIdentifier: "row", for: indexPath)
            cell.text = person.lastName
            return cell
        }
        var round = 0
        let save = {
            round += 1
            guard var person = try? writer.object(Person.self, id: Int(g.next() % 100_000)) else { return }
            switch round % 3 {
            case 0: person.notes = "edited \(round)"
            case 1: person.lastName = FetchWorkloads.names[Int(g.next() % 20)] + "\(g.next() % 1000)"
            default: person.city = cities[Int(g.next() % UInt64(sections))]
            }
            try? writer.update(person)
            if let saved = try? writer.save() { view.mergeChanges(fromContextDidSave: saved) }
            precondition(binding.lastError == nil)
        }
        return (save, (table, binding, controller))
    }

    static func saveWithManySections() -> Workload {
        Workload(
            name: "binding/save-1-into-10k-sections",
            summary: "a save of 1 changed record (an edit, a move within its section, a move to another section) into a bound table of 100,000 records in 10,000 sections, against the same in 10 sections",
            targets: [Target(against: "10sections", atMost: 2)]
        ) {
            let many = boundTable(sections: 10_000), few = boundTable(sections: 10)
            return Prepared(
                subject: { many.save(); blackHole(many.keepAlive) },
                baselines: [Baseline(name: "10sections", run: { few.save(); blackHole(few.keepAlive) })],
                counters: ["records": 100_000, "sections": 10_000])
        }
    }

    /// A table bound to a controller of 1,000,000 records with a batch size
    /// of 50, scrolled top to bottom 5 rows a frame (under the table's
    /// prefetch distance of 10): the frames whose scroll read a batch on
    /// demand — the rows shown needed a batch not yet read — with prefetching
    /// (the binding reads the next batch when its rows are announced) and
    /// without (`isPrefetchingEnabled = false`, the baseline).
    static func scrollBatched() -> Workload {
        Workload(
            name: "binding/scroll-1M-batch-50",
            summary: "a table bound to a controller of 1,000,000 records with fetchBatchSize 50, scrolled top to bottom 5 rows a frame: prefetching reads each batch before its rows show, against no prefetching; the counters are the frames that read a batch",
            targets: [Target(against: "noPrefetching", atMost: 2)]
        ) {
            typealias Person = FetchWorkloads.Person
            var people = FetchWorkloads.people(1_000_000)
            for i in people.indices { people[i].age = 30 }   // every record matches
            let context = FetchWorkloads.store(people)
            var request = FetchWorkloads.request
            request.fetchBatchSize = 50
            /// A scroll from the top, and the frames that read a batch on demand.
            func scroll(prefetching: Bool) -> (frames: Int, framesReadingABatch: Int, batchesReadAhead: Int) {
                let controller = FetchedResultsController(fetchRequest: request, context: context)
                let table = TableView(viewportHeight: 600)
                table.isPrefetchingEnabled = prefetching
                try? table.register(TableViewCell.self, forCellReuseIdentifier: "row")
                let binding = try! table.bind(to: controller) { table, indexPath, person in
                    let cell = try table.dequeueReusableCell(withIdentifier: "row", for: indexPath)
                    cell.text = person.lastName
                    return cell
                }
                var frames = 0, reading = 0
                let end = table.contentHeight - 600
                var offset = 0.0
                while offset < end {
                    offset = min(end, offset + 5 * 44)
                    let before = controller.batchReads.onDemand
                    try? table.setContentOffset(offset)
                    frames += 1
                    if controller.batchReads.onDemand != before { reading += 1 }
                }
                withExtendedLifetime(binding) {}
                return (frames, reading, controller.batchReads.ahead)
            }
            let with = scroll(prefetching: true), without = scroll(prefetching: false)
            return Prepared(
                subject: { blackHole(scroll(prefetching: true)) },
                baselines: [Baseline(name: "noPrefetching", run: { blackHole(scroll(prefetching: false)) }, maxSamples: 3)],
                counters: [
                    "records": 1_000_000, "frames": with.frames,
                    "framesReadingABatch": with.framesReadingABatch, "batchesReadAhead": with.batchesReadAhead,
                    "framesReadingABatch-noPrefetching": without.framesReadingABatch,
                ],
                maxSamples: 3)
        }
    }
}
