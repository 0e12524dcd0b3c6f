import Foundation
import HeadlessTable
import TableTestSupport
import Testing

/// Prefetching in a table bound to a controller with a batch size.
@Suite struct BindingPrefetchingTests {
    /// A table bound to a controller with a batch size, scrolled at most the
    /// prefetch distance a step: no step reads a batch on demand — each was
    /// read ahead when its first rows were announced.
    @Test func aBoundTableReadsEachBatchBeforeItsRowsShow() throws {
        let store = ObjectStore(for: Note.self)
        let context = ObjectContext(store: store)
        for id in 0..<2_000 { try context.insert(Note(id: id, group: nil, rank: id)) }
        try context.save()
        var request = FetchRequest<Note>(sortKeys: [SortKey("rank")])
        request.fetchBatchSize = 20
        for prefetching in [true, false] {
            let controller = FetchedResultsController(fetchRequest: request, context: context)
            let table = TableView(viewportHeight: 440)   // 10 rows of 44
            table.isPrefetchingEnabled = prefetching
            try table.register(TableViewCell.self, forCellReuseIdentifier: "note")
            let binding = try table.bind(to: controller) { table, path, note in
                let cell = try table.dequeueReusableCell(withIdentifier: "note", for: path)
                cell.text = "\(note.id)"
                return cell
            }
            var stepsReading = 0
            var offset = 0.0
            while offset < table.contentHeight - 440 {
                offset = min(table.contentHeight - 440, offset + 7 * 44)
                let before = controller.batchReads.onDemand
                try table.setContentOffset(offset)
                if controller.batchReads.onDemand != before { stepsReading += 1 }
                expectEqual(table.visibleCells.map(\.text), table.indexPathsForVisibleRows.map { Optional("\($0.row)") })
            }
            if prefetching {
                expectEqual(stepsReading, 0)
                expectEqual(controller.batchReads.ahead, 99)   // batches 1 … 99; batch 0 showed first
            } else {
                expectEqual(stepsReading, 99)
            }
            withExtendedLifetime(binding) {}
        }
    }
}
