import Foundation
import HeadlessTable

/// A table bound to a fetched results controller: the cost of a save with
/// many sections against few.
enum BindingWorkloads {
    static var all: [Workload] { [saveWithManySections()] }

    /// 100,000 people in `sections` cities, a bound table, and a save of one
    /// changed person: an edit, a move within its city, or a move to another city.
    static func boundTable(sections: Int) -> (save: () -> Void, keepAlive: Any) {
        typealias Person = FetchWorkloads.Person
        let cities = (0..<sections).map { String(format: "City %05d", $0) }
        var g = SplitMix64(seed: 5)
        let store = ObjectStore<Person>()
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
            guard var person = writer.object(withID: Int(g.next() % 100_000)) else { return }
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
}
