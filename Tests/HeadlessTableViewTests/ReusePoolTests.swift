import Foundation
import HeadlessTableView
import TableDiff
import TableTestSupport
import Testing

/// Reuse: nil versus throwing dequeues, prepareForReuse exactly once per reuse,
/// LIFO queues per identifier, class and template registrations (template
/// cells independent of each other and of the prototype), replacing and
/// removing registrations, header and footer views, the counters.
@Suite struct ReusePoolTests {
    final class EntryCell: TableViewCell {
        var date = ""
        var tags: [String] = []
        var prepared = 0

        override func prepareForReuse() {
            super.prepareForReuse()
            prepared += 1
        }

        enum Keys: String, CodingKey { case date, tags }

        required init(reuseIdentifier: String?) { super.init(reuseIdentifier: reuseIdentifier) }

        required init(from decoder: any Decoder) throws {
            try super.init(from: decoder)
            let container = try decoder.container(keyedBy: Keys.self)
            date = try container.decode(String.self, forKey: .date)
            tags = try container.decode([String].self, forKey: .tags)
        }

        override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(date, forKey: .date)
            try container.encode(tags, forKey: .tags)
        }
    }

    @Test func dequeueWithoutARegistrationIsNilOrAnError() throws {
        let table = TableView()
        #expect(table.dequeueReusableCell(withIdentifier: "cell") == nil)
        expectThrows(TableViewError.unregisteredIdentifier("cell")) { try table.dequeueReusableCell(withIdentifier: "cell", for: TablePath(row: 0, section: 0)) }
        expectThrows(TableViewError.emptyReuseIdentifier) { try table.register(TableViewCell.self, forCellReuseIdentifier: "") }
        expectEqual(TableViewError.emptyReuseIdentifier.description, "must pass a valid reuse identifier to register(_:forCellReuseIdentifier:)")
        try table.register(TableViewCell.self, forCellReuseIdentifier: "cell")
        let cell = try #require(table.dequeueReusableCell(withIdentifier: "cell"))
        expectEqual(cell.reuseIdentifier, "cell")
        #expect(try table.dequeueReusableCell(withIdentifier: "cell", for: TablePath(row: 0, section: 0)) !== cell)
    }

    @Test func queuesAreLastInFirstOutAndPrepareOncePerReuse() throws {
        let pool = ReusePool()
        try pool.register(EntryCell.self, forCellReuseIdentifier: "a")
        try pool.register(EntryCell.self, forCellReuseIdentifier: "b")
        let cells = (0..<3).compactMap { _ in pool.dequeueReusableCell(withIdentifier: "a") as? EntryCell }
        let other = try #require(pool.dequeueReusableCell(withIdentifier: "b") as? EntryCell)
        #expect(cells.count == 3 && cells.allSatisfy { $0.prepared == 0 })
        for cell in cells { pool.enqueue(cell) }
        pool.enqueue(other)
        expectEqual(pool.cellStatistics, ReusePool.Statistics(created: 4, reused: 0, inUse: 0, queued: 4, maxLive: 4))
        // Last in, first out, per identifier.
        #expect(pool.dequeueReusableCell(withIdentifier: "a") === cells[2])
        #expect(pool.dequeueReusableCell(withIdentifier: "a") === cells[1])
        #expect(pool.dequeueReusableCell(withIdentifier: "b") === other)
        #expect(cells.map(\.prepared) == [0, 1, 1] && other.prepared == 1)
        #expect(pool.cellStatistics.reused == 3 && pool.cellStatistics.inUse == 3 && pool.cellStatistics.queued == 1)
        // A cell never changes its identifier; one made outside the pool is not counted.
        pool.enqueue(EntryCell(reuseIdentifier: "a"))
        #expect(pool.cellStatistics.queued == 2 && pool.cellStatistics.inUse == 3)
    }

    @Test func templatesMakeIndependentCopies() throws {
        let prototype = EntryCell(reuseIdentifier: "proto")
        prototype.text = "template text"
        prototype.accessory = .disclosureIndicator
        prototype.preferredHeight = 60
        prototype.date = "2026-11-22"
        prototype.tags = ["a"]
        let pool = ReusePool()
        try pool.register(ViewTemplate(prototype), forCellReuseIdentifier: "entry")
        expectEqual(pool.preferredHeight(forCellReuseIdentifier: "entry"), 60)
        let first = try #require(pool.dequeueReusableCell(withIdentifier: "entry") as? EntryCell)
        let second = try #require(pool.dequeueReusableCell(withIdentifier: "entry") as? EntryCell)
        #expect(first !== second && first !== prototype)
        expectEqual(first.reuseIdentifier, "entry")   // the registration's, not the prototype's
        #expect(first.text == "template text" && first.accessory == .disclosureIndicator && first.date == "2026-11-22" && first.tags == ["a"])
        first.tags.append("b")
        first.text = "changed"
        prototype.date = "changed"
        #expect(second.tags == ["a"] && second.text == "template text" && second.date == "2026-11-22")
        let third = try #require(pool.dequeueReusableCell(withIdentifier: "entry") as? EntryCell)
        expectEqual(third.date, "2026-11-22")   // archived once: later changes to the prototype do not reach it
    }

    @Test func templatesLoadFromFilesLikeNibs() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("templates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("EntryCell.json")
        let prototype = EntryCell(reuseIdentifier: nil)
        prototype.date = "from a file"
        try ViewTemplate(prototype).write(to: url)
        let pool = ReusePool()
        try pool.register(ViewTemplate(contentsOf: url, as: EntryCell.self), forCellReuseIdentifier: "entry")
        expectEqual((pool.dequeueReusableCell(withIdentifier: "entry") as? EntryCell)?.date, "from a file")
        // A hand-written template, and broken ones.
        let written = folder.appendingPathComponent("written.json")
        try Data(#"{"text":"hello","accessory":"checkmark","date":"d","tags":[]}"#.utf8).write(to: written)
        let cell = try ViewTemplate(contentsOf: written, as: EntryCell.self).prototype as? EntryCell
        #expect(cell?.text == "hello" && cell?.accessory == .checkmark)
        let broken = folder.appendingPathComponent("broken.json")
        try Data(#"{"text": 5}"#.utf8).write(to: broken)
        expectThrows(TableViewError.self) { try ViewTemplate(contentsOf: broken, as: EntryCell.self) }
        expectThrows(TableViewError.self) { try ViewTemplate(contentsOf: folder.appendingPathComponent("missing.json"), as: EntryCell.self) }
        // A header template is not a cell template.
        expectThrows(TableViewError.self) { try pool.register(ViewTemplate(TableHeaderFooterView(reuseIdentifier: nil)), forCellReuseIdentifier: "x") }
    }

    @Test func laterRegistrationsReplaceAndNilUnregisters() throws {
        final class OtherCell: TableViewCell {}
        let pool = ReusePool()
        try pool.register(EntryCell.self, forCellReuseIdentifier: "c")
        let old = try #require(pool.dequeueReusableCell(withIdentifier: "c"))
        pool.enqueue(old)
        try pool.register(OtherCell.self, forCellReuseIdentifier: "c")
        expectEqual(pool.cellStatistics.queued, 0)   // the old registration's queue is dropped
        #expect(pool.dequeueReusableCell(withIdentifier: "c") is OtherCell)
        try pool.register(nil as TableViewCell.Type?, forCellReuseIdentifier: "c")
        #expect(pool.dequeueReusableCell(withIdentifier: "c") == nil)
        #expect(!pool.isRegistered(cellReuseIdentifier: "c"))
    }

    @Test func headerAndFooterViewsAreReusedTheSameWay() throws {
        final class Header: TableHeaderFooterView {}
        final class Source: TableViewDataSource, TableViewDelegate {
            func numberOfSections(in tableView: TableView) -> Int { 50 }
            func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 3 }
            func tableView(_ tableView: TableView, cellForRowAt indexPath: TablePath) throws -> TableViewCell? {
                try tableView.dequeueReusableCell(withIdentifier: "cell", for: indexPath)
            }
            func tableView(_ tableView: TableView, heightForHeaderInSection section: Int) -> Double? { 30 }
            func tableView(_ tableView: TableView, viewForHeaderInSection section: Int) -> TableHeaderFooterView? {
                let view = tableView.dequeueReusableHeaderFooterView(withIdentifier: "header")
                view?.text = "Section \(section)"
                return view
            }
        }
        let source = Source()
        let table = TableView(viewportHeight: 200)
        try table.register(TableViewCell.self, forCellReuseIdentifier: "cell")
        #expect(table.dequeueReusableHeaderFooterView(withIdentifier: "header") == nil)
        try table.register(Header.self, forHeaderFooterViewReuseIdentifier: "header")
        table.dataSource = source
        table.delegate = source
        try table.reloadData()
        expectEqual(table.headerView(forSection: 0)?.text, "Section 0")
        for step in 1...60 { try table.setContentOffset(Double(step) * 37) }
        #expect(table.headerView(forSection: 0) == nil)
        let stats = table.reusePool.headerFooterStatistics
        #expect(stats.created <= 3 && stats.reused > 10, "\(stats)")
    }
}
