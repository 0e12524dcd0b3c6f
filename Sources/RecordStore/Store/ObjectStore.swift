import Foundation
import InternalTableUtilities
import PredicateFormat
import Records

/// The embedded object store: the objects of a model — one entity or many,
/// with their relationships — in memory, kept by a persistence: a journal
/// file, your own database, or nothing. Core Data's persistent store
/// coordinator with its store.
///
/// A store is shared: any number of ``ObjectContext``s — on any threads — read
/// from it and save into it; its state is behind a lock. Every save posts
/// `Notification.Name.objectContextDidSave` and is delivered to every
/// ``didSaveNotifications()`` sequence.
///
/// ```swift
/// let store = try ObjectStore(model: model, fileURL: url)   // or ObjectStore(model: model) in memory
/// let context = ObjectContext(store: store)
/// try context.insert(DiaryEntry(id: 1, text: "Fog"))
/// try context.save()
/// ```
///
/// A store of one record type is a model of one entity:
/// `ObjectStore(records: people)` (in memory, loaded at once) or
/// `ObjectStore(for: Person.self, fileURL: url)`.
///
/// **Files.** ``init(model:fileURL:)`` keeps the store in a
/// ``JournalFilePersistence``: a checksummed snapshot followed by an
/// append-only journal. A save of any number of entities appends one
/// checksummed record of what it changed and flushes it to the disk before it
/// returns, so it costs the change, not the store; the journal is folded into
/// a new snapshot, atomically, in the background. A crash at any moment loses
/// no acknowledged save and applies no partial one; a damaged file is an
/// error that names the offset and leaves the file untouched. Files written
/// by earlier versions (one JSON document) are read and converted. The
/// format is documented in <doc:StoreFileFormat>.
///
/// **Sharing a file.** Several stores may open the same file, in one process
/// or several: a save takes the file's lock, picks up what the others saved
/// since this store last read (delivering it as a save with
/// ``ContextDidSave/isExternal`` set), resolves conflicts by the saving
/// context's ``MergePolicy``, and appends. ``mergeExternalChanges()`` picks
/// them up without saving.
public final class ObjectStore: Sendable {
    /// The model of the store's objects.
    public let model: ObjectModel
    /// The file the store lives in, or nil when its persistence is not a file.
    public let fileURL: URL?
    /// The objects and their bookkeeping, behind the store's lock: the first
    /// lock of a save (`_LockLevel.objectStore`; the order of the store's
    /// locks is in `_LockLevel+Store.swift` and <doc:StoreFileFormat>). A
    /// save holds it while the persistence takes its own locks and writes.
    @usableFromInline package let state: _Lock<_StoreState>
    let persistence: _PersistenceBase

    /// A store of `model`'s objects in memory (its persistence keeps nothing).
    public init(model: ObjectModel) {
        self.model = model
        fileURL = nil
        persistence = _PersistenceBase()
        state = _Lock(_StoreState(model: model), level: .objectStore)
    }

    /// The store of `model`'s objects in the journal file at `fileURL`: read
    /// and checked if it exists (a file of an earlier version is converted),
    /// created otherwise.
    ///
    /// - Throws: ``StoreError/unreadable(path:reason:)`` (a folder, a dangling
    ///   symbolic link, no permission), ``StoreError/corrupt(path:reason:)`` (not
    ///   a store, or a record not of its entity's type),
    ///   ``StoreError/damaged(path:offset:reason:)`` (a checksum fails),
    ///   ``StoreError/unwritable(path:reason:)`` (it cannot be created),
    ///   ``StoreError/unknownEntity(_:)`` (objects of an entity the model does
    ///   not declare), ``StoreError/danglingReference(object:relationship:destination:)``
    ///   and ``StoreError/inverseMismatch(object:relationship:destination:)``
    ///   (relationships that do not hold); the file is not changed.
    /// - Complexity: O(*n* + *r*) for *n* objects in the file and *r* references.
    public convenience init(model: ObjectModel, fileURL: URL) throws(StoreError) {
        let journal = JournalFilePersistence(fileURL: fileURL)
        try self.init(model: model, persistence: _JournalBox(journal, model: model), fileURL: fileURL)
    }

    /// A store of `model`'s objects kept by `persistence`: everything it
    /// holds is loaded now, and checked as a file is.
    ///
    /// - Throws: what the persistence's ``StorePersistence/load(model:)``
    ///   throws, and what ``init(model:fileURL:)`` throws for objects that do
    ///   not fit the model.
    /// - Complexity: O(*n* + *r*) for *n* objects loaded and *r* references.
    public convenience init<P: StorePersistence>(model: ObjectModel, persistence: P) throws(StoreError) {
        if let journal = persistence as? JournalFilePersistence {
            try self.init(model: model, persistence: _JournalBox(journal, model: model), fileURL: journal.fileURL)
        } else {
            try self.init(model: model, persistence: _PersistenceBox(persistence, model: model), fileURL: nil)
        }
    }

    private init(model: ObjectModel, persistence: _PersistenceBase, fileURL: URL?) throws(StoreError) {
        self.model = model
        self.fileURL = fileURL
        self.persistence = persistence
        let state = try _StoreState(model: model, contents: try persistence.load())
        self.state = _Lock(state, level: .objectStore)
        if model.hasRelationships { try checkReferences() }
    }

    /// A store in memory of a model of one entity, `R`'s.
    @inlinable
    public convenience init<R: Record & Codable>(for type: R.Type) where R.ID: Codable {
        self.init(model: ObjectModel(one: R.self))
    }

    /// The store in the journal file at `fileURL` of a model of one entity, `R`'s.
    ///
    /// - Throws: what ``init(model:fileURL:)`` throws.
    public convenience init<R: Record & Codable>(for type: R.Type, fileURL: URL) throws(StoreError) where R.ID: Codable {
        try self.init(model: ObjectModel(one: R.self), fileURL: fileURL)
    }

    /// A store of a model of one entity, `R`'s, kept by `persistence`.
    ///
    /// - Throws: what ``init(model:persistence:)`` throws.
    public convenience init<R: Record & Codable, P: StorePersistence>(for type: R.Type, persistence: P) throws(StoreError) where R.ID: Codable {
        try self.init(model: ObjectModel(one: R.self), persistence: persistence)
    }

    /// A store in memory of a model of one entity, `R`'s, that starts with
    /// `records`, as if a context had inserted them in this order and saved
    /// them once (the store's version is then 1; nobody is notified): the fast
    /// way to load many records, without a context's bookkeeping per record.
    ///
    /// - Throws: ``StoreError/duplicateIdentity(_:)`` when two records have
    ///   the same identity; no store is made.
    /// - Complexity: O(*n*) for *n* records.
    @inlinable
    public convenience init<R: Record & Codable>(records: [R]) throws(StoreError) where R.ID: Codable {
        self.init(for: R.self)
        try state.withLock { state throws(StoreError) in
            try state.table(0, R.self).load(records, version: records.isEmpty ? 0 : 1, firstSequence: state.nextSequence)
            if !records.isEmpty { state.version = 1 }
            state.nextSequence += Int64(records.count)
        }
    }

    /// The number of objects in the store, of every entity.
    public var count: Int { state.withLock { $0.count } }

    /// The first damage found in the store's file since it opened. Records
    /// are read from the file as they are needed, and each part of it is
    /// checked the first time it is read: damage shows then, as an error of
    /// the call that read it (``ContextError/unreadable(_:)``,
    /// `FetchError.unreadable(_:)`) and here. Nil while none was found.
    public var damage: StoreError? { state.withLock { $0.damage } }

    /// The version of the last save (0 before the first).
    public var version: Int64 { state.withLock { $0.version } }

    /// The object of `R`'s entity (or of `entity`, when several entities have
    /// that record type) with an identity, as last saved; nil when there is
    /// none, or the model has no such entity.
    public func object<R: Record & Codable>(_ type: R.Type, id: R.ID, entity: String? = nil) -> R? {
        guard let k = try? model.entityIndex(of: R.self, named: entity) else { return nil }
        return state.withLock { state in
            for member in model.typedFamily(of: k, R.self) {
                if let found = state.table(member, R.self).lookup(id) { return found.record }
            }
            return nil
        }
    }

    /// Every object of `R`'s entity (or of `entity`) and of its sub-entities
    /// of that record type, as last saved, in the order they were first
    /// inserted; empty when the model has no such entity.
    ///
    /// - Complexity: O(*n* log *n*) for *n* such objects.
    public func objects<R: Record & Codable>(_ type: R.Type, entity: String? = nil) -> [R] {
        guard let k = try? model.entityIndex(of: R.self, named: entity) else { return [] }
        return state.withLock { state in
            var found: [(R, Int64)] = []
            for member in model.typedFamily(of: k, R.self) {
                let table = state.table(member, R.self)
                _ = table.noting { () throws(StoreError) in
                    try table.forEachRecord(damaged: { $0 }) { (record: borrowing R, sequence: Int64, _: Int64) throws(StoreError) in
                        found.append((copy record, sequence))
                    }
                }
            }
            return found.sorted { $0.1 < $1.1 }.map(\.0)
        }
    }

    /// Every object of the entity named `name` and of its sub-entities (of
    /// any record type), as last saved, in the order they were first inserted.
    ///
    /// - Throws: ``ContextError/unknownEntity(_:)``.
    /// - Complexity: O(*n* log *n*) for *n* such objects.
    public func objects(ofEntity name: String) throws(ContextError) -> [ManagedObject] {
        guard let k = model.byName[name] else { throw .unknownEntity(name) }
        let model = model
        let result: Result<[ManagedObject], ContextError> = state.withLock { state in
            var found: [(ManagedObject, Int64)] = []
            do {
                for member in model.families[k] {
                    try state.tables[member].forEachErased { record, sequence in
                        let id = model.entities[member].kind.id(of: record) ?? AnyHashable(0)
                        found.append((ManagedObject(entityName: model.entities[member].name, id: model.objectID(member, id), record: record), sequence))
                    }
                }
            } catch let damage as StoreError {
                return .failure(.unreadable(damage))
            } catch {
                return .failure(.unreadable(.corrupt(path: "the store", reason: "\(error)")))
            }
            return .success(found.sorted { $0.1 < $1.1 }.map(\.0))
        }
        return try result.get()
    }

    /// Damage the persistence repaired since the store opened: saves whose
    /// writer died while writing them (never acknowledged), dropped.
    public var recoveries: [StoreRecovery] { state.withLock { $0.recoveries } }

    /// A sequence of every save into this store, from now on, from any
    /// context, and of the saves other stores on the same file made, as this
    /// store picks them up.
    public func didSaveNotifications() -> AsyncStream<ContextDidSave> {
        let (stream, continuation) = AsyncStream<ContextDidSave>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        state.withLock { $0.subscribers[key] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: key) }
        }
        return stream
    }

    /// Picks up the saves other stores on the same file (or database) made
    /// since this store last read it, and delivers each as a save with
    /// ``ContextDidSave/isExternal`` set: to ``didSaveNotifications()`` and
    /// as `Notification.Name.objectContextDidSave` with the store
    /// as its object. A save does this first on its own.
    ///
    /// - Returns: the saves picked up, oldest first.
    /// - Throws: ``StoreError`` when the file cannot be read or is damaged;
    ///   the store is unchanged.
    /// - Complexity: O(*k*) for *k* records changed, O(*n*) when another
    ///   store compacted the file meanwhile.
    @discardableResult
    public func mergeExternalChanges() throws(StoreError) -> [ContextDidSave] {
        let model = model
        let (saves, subscribers) = try state.withLock { state throws(StoreError) in
            let changes = try persistence.changesSinceLastRead()
            return (try state.applyExternal(changes, model: model), Array(state.subscribers.values))
        }
        deliver(saves, to: subscribers)
        return saves
    }

    /// Rewrites the persistence in its most compact form (the journal file
    /// folds its journal into a new snapshot; it also does this by itself, in
    /// the background, when the journal outgrows half the snapshot).
    ///
    /// - Complexity: O(*n*).
    public func compact() throws(StoreError) {
        try persistence.compact()
    }

    /// Reserves the first-insertion order of a record a context inserts, so that
    /// its place among equal sort keys is final before it is saved.
    func reserveSequence() -> Int64 {
        state.withLock { state in
            defer { state.nextSequence += 1 }
            return state.nextSequence
        }
    }

    /// Commits a context's changes: picks up other stores' saves, resolves
    /// conflicts by the request's policy, writes, and applies. On any error
    /// nothing of the request changes, in memory or in the persistence (other
    /// stores' saves picked up on the way stay picked up, and are delivered).
    ///
    /// Locks, in order (`_LockLevel+Store.swift`): the store's state, held
    /// throughout; inside it the persistence takes its own (the journal's
    /// state, then the file's flock) and calls back with the state held here.
    func commit(_ request: _SaveRequest) throws(StoreError) -> _SaveOutcome {
        var external: [ContextDidSave] = []
        var subscribers: [AsyncStream<ContextDidSave>.Continuation] = []
        let model = model
        let result: Result<_SaveOutcome, StoreError> = state.withLock { state in
            subscribers = Array(state.subscribers.values)
            var resolution: _Resolution?
            do throws(StoreError) {
                try persistence.commit { changes throws(StoreError) -> _ChangeSet? in
                    external += try state.applyExternal(changes, model: model)
                    let resolved = try _Resolution(request, in: state, model: model)
                    resolution = resolved
                    return resolved.changeSet
                }
            } catch {
                return .failure(error)
            }
            guard let resolution else { return .failure(.unwritable(path: fileURL?.path ?? "memory", reason: "the persistence did not commit")) }
            var saved = ContextDidSave(model: model, parts: [], storeVersion: state.version, contextName: request.contextName)
            saved.firstStoreVersion = state.version + 1
            if let changeSet = resolution.changeSet {
                let applied = state.apply(changeSet)
                saved = ContextDidSave(model: model, parts: applied, storeVersion: state.version, contextName: request.contextName)
                state.fetchCaches.removeAll()
            }
            saved.propertyMergeFallbacks = resolution.fallbacks
            return .success(_SaveOutcome(saved: saved, resolvedIDs: resolution.resolvedIDs))
        }
        deliver(external, to: subscribers)
        let outcome = try result.get()
        if outcome.saved.firstStoreVersion <= outcome.saved.storeVersion {
            for subscriber in subscribers { subscriber.yield(outcome.saved) }
        }
        return outcome
    }

    /// Delivers saves picked up from the persistence.
    private func deliver(_ saves: [ContextDidSave], to subscribers: [AsyncStream<ContextDidSave>.Continuation]) {
        for saved in saves {
            for subscriber in subscribers { subscriber.yield(saved) }
            NotificationCenter.default.post(name: .objectContextDidSave, object: self, userInfo: saved.userInfo)
        }
    }

    /// For tests: how many records of the file's snapshot an entity's cache
    /// holds — the records read from the file and kept since it opened (0
    /// for an entity the model does not have).
    package func _cachedRecordCount(entity name: String) -> Int {
        guard let k = model.byName[name] else { return 0 }
        return state.withLock { $0.tables[k].cachedRecordCount }
    }

    /// The store checks itself whole (debug builds; the store tests call it after their saves).
    package func _checkInvariants() {
        state.withLock { $0._checkInvariants() }
    }

    // MARK: Opening

    /// Every relationship of every object refers to an existing object of its
    /// destination, and the inverse of each holds the object back.
    ///
    /// - Complexity: O(*n* + *r*) for *n* objects and *r* references.
    private func checkReferences() throws(StoreError) {
        let model = model
        let result: Result<Void, StoreError> = state.withLock { state in
            func find(_ k: Int, _ id: AnyHashable) -> (entity: Int, record: any Record & Codable)? {
                for member in model.families[model.roots[k]] {
                    if let record = state.tables[member].erasedRecord(id) { return (member, record) }
                }
                return nil
            }
            for (k, entity) in model.entities.enumerated() where !entity.relationships.isEmpty {
                var failure: StoreError?
                do {
                    try state.tables[k].forEachErased { record, _ in
                        guard failure == nil, let id = entity.kind.id(of: record) else { return }
                        for r in entity.relationships {
                            guard let d = model.byName[r.destinationEntityName] else { continue }
                            for destination in r.destinations(record) ?? [] {
                                guard let found = find(d, destination), model.families[d].contains(found.entity) else {
                                    failure = .danglingReference(object: model.objectID(k, id), relationship: r.name, destination: model.objectID(d, destination))
                                    return
                                }
                                guard let inverseName = r.inverseName else { continue }
                                let back = model.entities[found.entity].relationship(named: inverseName)?.destinations(found.record) ?? []
                                guard back.contains(id) else {
                                    failure = .inverseMismatch(object: model.objectID(k, id), relationship: r.name, destination: model.objectID(d, destination))
                                    return
                                }
                            }
                        }
                    }
                } catch {
                    return .failure(error as? StoreError ?? .corrupt(path: "the store", reason: "\(error)"))
                }
                // Damage met while reading (a record missing from what was
                // read) explains a reference that seems to dangle: it comes first.
                if let damage = state.damage { return .failure(damage) }
                if let failure { return .failure(failure) }
            }
            return .success(())
        }
        try result.get()
    }
}

extension ObjectModel {
    /// A model of one entity, `R`'s (it cannot fail: one entity, no relationships).
    @usableFromInline
    init<R: Record & Codable>(one type: R.Type) where R.ID: Codable {
        let entity = EntityDescription.entity(R.self)
        entities = [entity]
        byName = [entity.name: 0]
        byType = [ObjectIdentifier(R.self): 0]
        roots = [0]
        families = [[0]]
        incoming = [[]]
        hasRelationships = false
    }
}
