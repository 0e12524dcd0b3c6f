import Foundation
import HeadlessTable

/// A diary entry of the benchmark's model of two entities: its media are
/// the to-many relationship `media` (inverse `entry`, cascade).
public struct DiaryNote: Record, Codable, Sendable {
    public var id: Int
    public var text: String
    /// Seconds since 1970.
    public var time: Double
    public var media: [Int] = []

    public static let recordKeys: RecordKeys<DiaryNote> = [
        "text": RecordKey(\.text), "time": RecordKey(\.time),
        "month": RecordKey { .string("month \(Int($0.time) / 2_592_000)") },
    ]
}

/// A medium of the benchmark's diary: the to-one relationship `entry`.
public struct DiaryMedium: Record, Codable, Sendable {
    public var id: Int
    public var type: String
    public var entry: Int?

    public static let recordKeys: RecordKeys<DiaryMedium> = ["type": RecordKey(\.type)]
}

/// The benchmark's diary, written as an embedder writes the book's: a model
/// of two entities, a store, a view context that merges every other
/// context's save from its notification, a controller of the entries newest
/// first (a section per month, a batch size of 20) and a table of 24 lines
/// bound to it, drawn as text. The same screen over a store of one entity
/// (the entries alone, `media` a plain field) is the baseline of its saves.
public final class DiaryScreen {
    public let context: ObjectContext
    public let controller: FetchedResultsController<DiaryNote>
    public let table: TableView
    public let binding: FetchedResultsTableBinding<DiaryNote>
    let renderer: TextRenderer
    private var observer: (any NSObjectProtocol)?
    /// The last screen drawn.
    public private(set) var screen = ""

    public init(store: ObjectStore) throws {
        let context = ObjectContext(store: store, name: "view")
        self.context = context
        var request = FetchRequest<DiaryNote>(sortKeys: [SortKey("time", ascending: false)])
        request.fetchBatchSize = 20
        controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: "month")
        try controller.performFetch()
        table = TableView(viewportHeight: 24)
        table.rowHeight = 1
        table.sectionHeaderHeight = 1
        try table.register(TableViewCell.self, forCellReuseIdentifier: "entry")
        binding = try table.bind(to: controller) { table, path, entry in
            let cell = try table.dequeueReusableCell(withIdentifier: "entry", for: path)
            cell.text = entry.text
            cell.detailText = "\(entry.media.count)"
            return cell
        }
        binding.showsSectionIndex = false
        binding.onDelete = { entry in
            try context.delete(entry)   // its media with it, by the cascade rule
            try context.save()
        }
        renderer = try TextRenderer(width: 80, pointsPerLine: 1)
        nonisolated(unsafe) let view = context
        observer = NotificationCenter.default.addObserver(forName: .objectContextDidSave, object: nil, queue: nil) { note in
            view.mergeChanges(fromContextDidSave: note)
        }
        try table.reloadData()
        draw()
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    public func draw() { screen = renderer.text(for: table.currentFrame) }

    /// Swipe-to-delete on the first entry that has two media or more, its
    /// row scrolled into view first (not timed: `prepareDelete()`).
    public func deleteAnEntryWithMedia() throws {
        guard let path = nextDelete else { return }
        nextDelete = nil
        try table.commit(.delete, forRowAt: path)
        draw()
    }

    /// Finds the next entry with media from the top and shows its row.
    public func prepareDelete() throws {
        var position = 0
        for (s, count) in controller.numberOfObjectsInSections.enumerated() {
            for row in 0..<count {
                position += 1
                guard position < 10_000 else { return }
                let path = TablePath(row: row, section: s)
                if try controller.object(at: path).media.count >= 2 {
                    try table.scrollToRow(at: path, at: .top)
                    nextDelete = path
                    return
                }
            }
        }
    }

    private var nextDelete: TablePath?
}

/// The diary's objects, the same in every run: `entries` entries, entry `k`
/// with `k % 5` media (two on average: a million objects for 333,334 entries).
public enum Diary {
    public static func model() throws -> ObjectModel {
        try ObjectModel(
            .entity(DiaryNote.self, relationships: [.toMany("media", \.media, to: DiaryMedium.self, inverse: "entry", deleteRule: .cascade)]),
            .entity(DiaryMedium.self, relationships: [.toOne("entry", \.entry, to: DiaryNote.self, inverse: "media")]))
    }

    public static func make(entries count: Int) -> (entries: [DiaryNote], media: [DiaryMedium]) {
        var entries: [DiaryNote] = [], media: [DiaryMedium] = []
        entries.reserveCapacity(count)
        media.reserveCapacity(count * 2)
        for k in 0..<count {
            var entry = DiaryNote(id: k, text: "Entry \(k): \(People.first[k % People.first.count]) by the \(People.last[k % People.last.count])", time: 1_700_000_000 + Double(k) * 97)
            for m in 0..<(k % 5) {
                let id = 10_000_000 + 5 * k + m
                media.append(DiaryMedium(id: id, type: m % 2 == 0 ? "image" : "audio", entry: k))
                entry.media.append(id)
            }
            entries.append(entry)
        }
        return (entries, media)
    }

    /// A store of the model of two entities holding the diary, saved once
    /// through a context (the entries, then the media: the context sets
    /// each entry's side of the pair).
    public static func store(entries count: Int) throws -> ObjectStore {
        let (entries, media) = make(entries: count)
        let store = ObjectStore(model: try model())
        let context = ObjectContext(store: store, name: "import")
        try context.performChanges {
            for var entry in entries {
                entry.media = []
                try context.insert(entry)
            }
            for medium in media { try context.insert(medium) }
        }
        try context.save()
        return store
    }

    /// A store of one entity holding the same entries (`media` a plain field).
    public static func oneEntityStore(entries count: Int) throws -> ObjectStore {
        try ObjectStore(records: make(entries: count).entries)
    }
}

extension EmbedderWorkloads {
    /// The diary's workloads: a model of two entities at a million objects.
    static var diary: [EmbedderWorkload] {
        let entries = 333_334
        return [
            diaryFirstScreen(entries),
            diarySave("diary-save", entries, oneEntity: false),
            diarySave("diary-save-one-entity", entries, oneEntity: true),
            diaryDelete(entries),
        ]
    }

    static func diaryStore(_ entries: Int, oneEntity: Bool = false) -> ObjectStore {
        do { return oneEntity ? try Diary.oneEntityStore(entries: entries) : try Diary.store(entries: entries) } catch { fatalError("the diary's store: \(error)") }
    }

    static func diaryScreen(_ store: ObjectStore) -> DiaryScreen {
        do { return try DiaryScreen(store: store) } catch { fatalError("the diary's screen: \(error)") }
    }

    static func diaryWorkload(_ kind: String, _ summary: String, samples: Int, prepare: @escaping () -> EmbedderSamples) -> EmbedderWorkload {
        EmbedderWorkload(name: "embed/\(kind)-1M", summary: summary + " — 333,334 entries and 666,666 media, public API only", smallerCounterpart: nil, maxSamples: samples, prepare: prepare)
    }

    /// The diary's first screen: performFetch, bind, first frame (goal ≤ 1 s).
    static func diaryFirstScreen(_ entries: Int) -> EmbedderWorkload {
        diaryWorkload("diary-first-screen", "the diary's first screen: performFetch of the entries, bind, first frame drawn (goal: ≤ 1 s)", samples: 6) {
            let store = diaryStore(entries)
            var screens: [DiaryScreen] = []
            return EmbedderSamples(
                setUp: {
                    screens.removeAll()
                    usleep(300_000)
                },
                action: { screens.append(diaryScreen(store)) },
                counters: ["objects": store.count])
        }
    }

    /// One entry's text edited in another context and saved; the screen's
    /// view context merges the save from its notification, the bound
    /// controller reports the one row, the table reconfigures it, drawn.
    static func diarySave(_ kind: String, _ entries: Int, oneEntity: Bool) -> EmbedderWorkload {
        var made = diaryWorkload(
            kind, "an entry edited and saved in another context, merged into the bound controller from the did-save notification, drawn"
                + (oneEntity ? " — a store of one entity holding the entries alone" : ""),
            samples: 60
        ) {
            let store = diaryStore(entries, oneEntity: oneEntity)
            let screen = diaryScreen(store)
            let editor = ObjectContext(store: store, name: "editor")
            var k = 0
            return EmbedderSamples(
                setUp: nil,
                action: {
                    run {
                        // An entry in the first screen, so that its row is redrawn.
                        let id = entries - 1 - (k % 20)
                        k += 1
                        guard var entry = try editor.object(DiaryNote.self, id: id) else { return }
                        entry.text = "Edited \(k)"
                        try editor.update(entry)
                        try editor.save()
                        screen.draw()
                    }
                },
                counters: ["objects": store.count])
        }
        if !oneEntity { made.targets = [(against: "embed/diary-save-one-entity-1M", atMost: 2)] }
        return made
    }

    /// Swipe-to-delete of an entry with media: the cascade deletes them, the
    /// save, the row out of the table, drawn (goal: ≤ 16 ms).
    static func diaryDelete(_ entries: Int) -> EmbedderWorkload {
        diaryWorkload("diary-delete", "swipe-to-delete of an entry with its media (cascade), saved, drawn (goal: ≤ 16 ms)", samples: 60) {
            let store = diaryStore(entries)
            let screen = diaryScreen(store)
            return EmbedderSamples(
                setUp: { run { try screen.prepareDelete() } },
                action: { run { try screen.deleteAnEntryWithMedia() } },
                counters: ["objects": store.count])
        }
    }
}
