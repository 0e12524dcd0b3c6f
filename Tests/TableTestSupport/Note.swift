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
