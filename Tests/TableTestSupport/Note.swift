import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableDiff

/// A test record: a note in a group, with a rank, a title and a content version.
public struct Note: Record, Codable, Hashable, TableDiffable {
    public var id: Int
    public var group: String?
    public var rank: Int
    public var title: String
    public var version: Int
    public var created: Date
    public var tags: [String]

    public init(id: Int, group: String?, rank: Int, title: String = "", version: Int = 0, created: Date = Date(timeIntervalSince1970: 0), tags: [String] = []) {
        self.id = id
        self.group = group
        self.rank = rank
        self.title = title
        self.version = version
        self.created = created
        self.tags = tags
    }

    public static let recordKeys: RecordKeys<Note> = [
        "group": RecordKey(\.group),
        "rank": RecordKey(\.rank),
        "title": RecordKey(\.title),
        "version": RecordKey(\.version),
        "created": RecordKey(\.created),
        "tags": RecordKey(\.tags),
    ]

    /// The note as a test row: identity and content version.
    public var item: Item { Item(id: id, content: version) }
}

/// A record for the crash-safety test: every save gives all rows one version.
public struct VersionedRow: Record, Codable, Hashable {
    public var id: Int
    public var version: Int
    public var text: String

    public init(id: Int, version: Int, text: String) {
        self.id = id
        self.version = version
        self.text = text
    }
}

extension Note {
    /// A model of notes whose indexes cover the sorts the binding tests fetch
    /// by (rank, and group then rank; ties by id): their results, read from a
    /// compacted file, keep identities only.
    public static let indexedModel = try! ObjectModel(.entity(Note.self, indexes: [["rank", "id"], ["group", "rank", "id"]]))

    /// A file store of `notes` at `url` under `model`, saved, compacted and
    /// opened again: it reads its records from the file (format 2) as they
    /// are needed, and its indexed fetches from the file's indexes.
    public static func compactedStore(_ notes: [Note], model: ObjectModel, at url: URL) throws -> ObjectStore {
        do {
            let writing = try ObjectStore(model: model, fileURL: url)
            let context = ObjectContext(store: writing)
            for note in notes { try context.insert(note) }
            try context.save()
            try writing.compact()
        }
        return try ObjectStore(model: model, fileURL: url)
    }
}
