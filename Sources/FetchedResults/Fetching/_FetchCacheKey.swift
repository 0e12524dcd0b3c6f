import PredicateFormat
import RecordStore
import Records
/// What identifies a request's results in the store's cache (see
/// `FetchedResultsController.cacheName`): the record type, the predicate,
/// the sort keys, the sections, the offset and the limit. The batch size is
/// not part of it (the results are the same).
@usableFromInline
struct _FetchCacheKey: Hashable, Sendable {
    /// A request's predicate, as far as it can be told from another.
    @usableFromInline
    enum Predicate: Hashable, Sendable {
        /// No predicate: every record.
        case all
        /// A predicate with a format (parsed, or combined from ones that have one).
        case format(String)
        /// A closure or a Foundation predicate: it cannot be told from
        /// another such predicate (delete the cache yourself when you change
        /// it, as with Core Data).
        case unidentified
    }

    /// The record type (a store holds one, but a key says what it is for).
    @usableFromInline var recordType: ObjectIdentifier
    @usableFromInline var entity: Int?
    /// The predicate, as far as it can be told.
    @usableFromInline var predicate: Predicate
    /// The sort keys, in order.
    @usableFromInline var sortKeys: [SortKey]
    /// The section key path; nil for one section.
    @usableFromInline var sectionKeyPath: String?
    /// The collation whose sections the section key's values go into, if any.
    @usableFromInline var sectionCollation: TableIndexCollation?
    /// The request's offset.
    @usableFromInline var fetchOffset: Int
    /// The request's limit; nil for none.
    @usableFromInline var fetchLimit: Int?

    /// The key as text that another process makes the same of the same
    /// request (a section cache on disk is checked against it); nil when
    /// the predicate cannot be told from another (a closure, a Foundation
    /// predicate): such results are never kept on disk.
    var persistentDescription: String? {
        let predicate: String
        switch self.predicate {
        case .all: predicate = "*"
        case .format(let format): predicate = format
        case .unidentified: return nil
        }
        let parts: [String] = [
            "entity \(entity.map(String.init) ?? "-")", "where \(predicate)", "sort \(sortKeys.map(\.description).joined(separator: ","))",
            "sections \(sectionKeyPath ?? "-")", "collation \(sectionCollation?.tableIdentifier ?? "-")",
            "offset \(fetchOffset)", "limit \(fetchLimit.map(String.init) ?? "-")",
        ]
        return parts.joined(separator: "\n")
    }

    /// The key of a request's results, in sections by a key path's value
    /// (and a collation's sections of it).
    @inlinable
    init<R: Record>(_ request: FetchRequest<R>, entity: Int?, sectionKeyPath: String?, sectionCollation: TableIndexCollation?) {
        recordType = ObjectIdentifier(R.self)
        self.entity = entity
        if let predicate = request.predicate {
            self.predicate = predicate.fingerprint.map(Predicate.format) ?? .unidentified
        } else {
            self.predicate = .all
        }
        sortKeys = request.sortKeys
        self.sectionKeyPath = sectionKeyPath
        self.sectionCollation = sectionCollation
        fetchOffset = request.fetchOffset
        fetchLimit = request.fetchLimit
    }
}
