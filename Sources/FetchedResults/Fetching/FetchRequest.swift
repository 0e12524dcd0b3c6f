import Foundation
import PredicateFormat
import RecordStore
import Records
import TableDiff

/// What to fetch: the objects of an entity (`R`'s, or the one named), which
/// of them (a predicate), in what order (sort keys), and how many (limit,
/// offset, batch size) — Core Data's `NSFetchRequest`.
///
/// ```swift
/// var request = FetchRequest<Entry>(sortKeys: [SortKey("created", ascending: false)])
/// request.predicate = RecordPredicate { $0.text.contains("snow") }
/// request.fetchBatchSize = 50
/// ```
///
/// Key paths in a format predicate, the sort keys and a controller's section
/// key go through relationships: `diaryEntry.creationTime < %@` (to-one),
/// `ANY media.type == 'image'`, `ALL media.size < 100`, `NONE media.type ==
/// 'audio'`, `media.@count > 2`, `SUBQUERY(media, $m, $m.type == 'audio').@count
/// > 0` (to-many), and on from a `SUBQUERY` variable (`$m.diaryEntry.text`); a
/// sort key `diaryEntry.text`, or one ending in a collection operator
/// (`media.@count`). A relationship at the end of a path is its destination's
/// record (to-one, nil when empty) or an array of them (to-many); compare
/// identities with `diaryEntry.id == 1`.
public struct FetchRequest<R: Record>: Sendable {
    /// The entity fetched: nil for the one entity whose record type is `R`;
    /// its name when several entities have that record type (dynamic
    /// entities: every one is a `DynamicObject` entity).
    public var entityName: String?
    /// Whether the sub-entities' objects (of `R`'s record type) are fetched
    /// too: true by default, as in Core Data.
    public var includesSubentities = true
    /// Which records; nil for all.
    public var predicate: RecordPredicate<R>?
    /// The order, first key first. A fetched results controller needs at least one.
    public var sortKeys: [SortKey]
    /// At most this many records; nil for no limit.
    public var fetchLimit: Int?
    /// Skip this many records first.
    public var fetchOffset: Int
    /// With a positive batch size, a fetched results controller knows the
    /// identities (and sort keys) of every match, but reads the records
    /// themselves from the store a batch at a time, as rows are accessed.
    public var fetchBatchSize: Int

    /// A request for the objects of `R`'s entity (or of `entityName`).
    public init(
        entityName: String? = nil, predicate: RecordPredicate<R>? = nil, sortKeys: [SortKey] = [],
        fetchLimit: Int? = nil, fetchOffset: Int = 0, fetchBatchSize: Int = 0
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortKeys = sortKeys
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.fetchBatchSize = fetchBatchSize
    }
}

/// Which records a fetch request matches: a format string (Core Data's
/// language), a closure, or a Foundation `Predicate`.
///
/// ```swift
/// try RecordPredicate(format: "text CONTAINS[cd] %@", searchText)
/// RecordPredicate { $0.age >= 18 }
/// RecordPredicate(#Predicate<Person> { $0.age >= 18 })
/// ```
public struct RecordPredicate<R: Record>: Sendable {
    @usableFromInline
    enum Kind: @unchecked Sendable {
        case closure(@Sendable (R) -> Bool)
        /// A test that may throw: a Foundation `Predicate`'s `evaluate`, kept
        /// as a closure so that the type needs no newer OS than the package.
        case throwing(@Sendable (R) throws -> Bool)
        case format(FormatPredicate)
        case all([RecordPredicate<R>])
    }
    @usableFromInline let kind: Kind
    /// A text that identifies the predicate for caches, when it has one.
    @usableFromInline let fingerprint: String?

    /// The records for which `matches` is true.
    public init(_ matches: @escaping @Sendable (R) -> Bool) {
        kind = .closure(matches)
        fingerprint = nil
    }

    /// The records for which a Foundation predicate (`#Predicate<Entry> { … }`)
    /// is true. A predicate that throws while evaluating fails the fetch.
    ///
    /// Foundation's `Predicate` is new in macOS 14, iOS 17, tvOS 17, watchOS 10
    /// and visionOS 1; on older systems use a format predicate or a closure.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    public init(_ predicate: Predicate<R>) {
        kind = .throwing { try predicate.evaluate($0) }
        fingerprint = nil
    }

    /// The records a format predicate matches (`$VARIABLES` must be bound:
    /// see `FormatPredicate/substituting(_:)`).
    public init(_ predicate: FormatPredicate) {
        kind = .format(predicate)
        fingerprint = predicate.predicateFormat
    }

    /// The records matching a format string, its arguments substituted left to right.
    ///
    /// - Throws: `PredicateSyntaxError` for a malformed string or too few arguments.
    public init(format: String, _ arguments: any RecordValueConvertible...) throws(PredicateSyntaxError) {
        self.init(try FormatPredicate(format: format, arguments: arguments.map(\.recordValue)))
    }

    /// The records both predicates match (the first is tested first).
    public func and(_ other: RecordPredicate<R>) -> RecordPredicate<R> {
        RecordPredicate(kind: .all([self, other]), fingerprint: fingerprint.flatMap { a in other.fingerprint.map { b in "(\(a)) AND (\(b))" } })
    }

    init(kind: Kind, fingerprint: String?) {
        self.kind = kind
        self.fingerprint = fingerprint
    }

    /// The test, ready to run: a format predicate compiled for `R` once (its
    /// key paths through relationships read by `relationships`, when given).
    ///
    /// - Throws: ``FetchError/unknownKey(_:)`` for a key `R` does not have.
    @inlinable
    func evaluator(relationships: _FormatCompiler<R>? = nil) throws(FetchError) -> (R) throws(FetchError) -> Bool {
        switch kind {
        case .closure(let matches):
            return { matches($0) }
        case .throwing(let matches):
            return { record throws(FetchError) in
                do {
                    return try matches(record)
                } catch {
                    throw .predicateThrew(FetchError.ThrownError(error))
                }
            }
        case .all(let predicates):
            // Chained closures, not an array of them: an array of typed-throws
            // closures needs the Swift 6 runtime's function type metadata
            // (macOS 15 / iOS 18).
            var all: (R) throws(FetchError) -> Bool = { _ in true }
            for predicate in predicates.reversed() {
                let test = try predicate.evaluator(relationships: relationships)
                let rest = all
                all = { record throws(FetchError) in
                    guard try test(record) else { return false }
                    return try rest(record)
                }
            }
            return all
        case .format(let predicate):
            let compiled: CompiledPredicate<R>
            if let relationships, relationships.reads(predicate) {
                compiled = try relationships.compile(predicate)
            } else {
                do throws(RecordKeyError) { compiled = try predicate.compiled(for: R.self) } catch { throw .unknownKey(error) }
            }
            return { record throws(FetchError) in
                do throws(PredicateEvaluationError) {
                    return try compiled(record)
                } catch {
                    throw .predicateFailed(error)
                }
            }
        }
    }
}

/// Why a fetch failed, or a fetched results controller could not answer.
public enum FetchError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A fetched results controller needs at least one sort key (Core Data's words).
    case noSortKeys
    /// A sort key, section key or predicate names a key the record type does not have.
    case unknownKey(RecordKeyError)
    /// The first sort key does not order the sections (Core Data's words).
    case sectionsOutOfOrder(index: Int, sectionName: String)
    /// A format predicate failed while evaluating a record: why, as
    /// evaluating it alone reports it.
    case predicateFailed(PredicateEvaluationError)
    /// A Foundation `Predicate` threw while evaluating a record: what it threw.
    case predicateThrew(ThrownError)
    /// A negative fetch limit, offset or batch size: the setting and its value.
    case negativeSetting(String, Int)
    /// `performFetch()` has not been called (or failed).
    case notFetched
    /// No object at an index path.
    case noObject(at: TablePath, sectionCount: Int, rowCount: Int?)
    /// The fetch request of a controller with a cache name changed, and the
    /// store still holds that cache for another request (Core Data's words):
    /// delete the cache first.
    case cacheMismatch(cacheName: String)
    /// The model has no entity of the request's record type (or several:
    /// name the entity with ``FetchRequest/entityName``), or none of its name.
    case unknownEntity(String)
    /// A key path went through a relationship to an object that does not
    /// exist (a `noAction` delete not yet repaired).
    case danglingReference(object: ObjectID, relationship: String, destination: ObjectID)
    /// An object could not be read from the store's file: the file is
    /// damaged where it is (`StoreError.damaged(path:offset:reason:)`).
    /// Records are read from the file as they are needed, so damage shows
    /// when the damaged part is first read, not when the store opens.
    case unreadable(StoreError)

    public var description: String {
        switch self {
        case .unreadable(let error):
            return "an object could not be read: \(error)"
        case .noSortKeys:
            return "An instance of NSFetchedResultsController requires a fetch request with sort descriptors"
        case .unknownKey(let error):
            return "\(error)"
        case let .sectionsOutOfOrder(index, name):
            return "The fetched object at index \(index) has an out of order section name '\(name)'. Objects must be sorted by section name"
        case .predicateFailed(let error):
            return "the predicate failed: \(error)"
        case .predicateThrew(let thrown):
            return "the predicate failed: \(thrown)"
        case let .negativeSetting(name, value):
            return "\(name) must not be negative (it is \(value)); use 0 for \(name == "fetchLimit" ? "no records, or nil for no limit" : "none")"
        case .notFetched:
            return "the fetched results controller has not fetched yet: call performFetch()"
        case let .noObject(path, sectionCount, rowCount):
            if let rowCount {
                return "no object at index path \(path): section \(path.section) has \(rowCount) objects"
            }
            return "no object at index path \(path): there are \(sectionCount) sections"
        case .cacheMismatch(let name):
            return "FATAL ERROR: The persistent cache of section information does not match the current configuration. "
                + "You have illegally mutated the NSFetchedResultsController's fetch request, its predicate, or its sort descriptor "
                + "without either disabling caching or using +deleteCacheWithName: (cache '\(name)'): call "
                + "FetchedResultsController.deleteCache(withName: \"\(name)\", in: store) before fetching with the changed request, "
                + "or give the controller no cache name"
        case .unknownEntity(let name):
            return "the model has no entity \(name) (or several of that record type: set the request's entityName)"
        case let .danglingReference(object, relationship, destination):
            return "\(object)'s relationship \(relationship) refers to \(destination), which does not exist or is not of its destination entity"
        }
    }
}

extension FetchError {
    /// An error a Foundation `Predicate` threw, kept as it was thrown (its
    /// type is Foundation's, or that of an expression of yours: not one this
    /// package knows, which ``FetchError`` must be to stay `Hashable`).
    ///
    /// Two are equal when their errors are: by `Hashable` when both errors
    /// are `Hashable` (Foundation's `PredicateError` is), otherwise when they
    /// are of one type with the same description.
    public struct ThrownError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What the predicate threw.
        public let error: any Error

        /// Wraps what a predicate threw.
        public init(_ error: any Error) { self.error = error }

        public static func == (a: ThrownError, b: ThrownError) -> Bool {
            if let x = a.error as? AnyHashable, let y = b.error as? AnyHashable { return x == y }
            return type(of: a.error) == type(of: b.error) && "\(a.error)" == "\(b.error)"
        }

        public func hash(into hasher: inout Hasher) {
            if let hashable = error as? AnyHashable {
                hasher.combine(hashable)
            } else {
                hasher.combine(ObjectIdentifier(type(of: error)))
                hasher.combine("\(error)")
            }
        }

        public var description: String { "\(error)" }
    }
}
