import Foundation
import InternalTableUtilities
import PredicateFormat
import Records

extension Notification.Name {
    /// Posted by an ``ObjectContext`` after every save; the object is the
    /// context, `userInfo` holds the objects' ``ObjectID``s under
    /// ``ObjectContext/insertedKey``, ``ObjectContext/updatedKey`` and
    /// ``ObjectContext/deletedKey`` (each an `[AnyHashable]`) and the whole
    /// ``ContextDidSave`` under ``ObjectContext/changesKey``. A store posts it
    /// too, with itself as the object, for each save of another store on the
    /// same file that it picks up (``ContextDidSave/isExternal``).
    public static let objectContextDidSave = Notification.Name("HeadlessTable.ObjectContextDidSave")

    /// Posted by an ``ObjectContext`` at the start of a save that has changes,
    /// before they are processed (Core Data's `NSManagedObjectContextWillSave`):
    /// an observer may still change the context, and the save includes it. The
    /// object is the context; ``ObjectContext/changesKey`` holds a
    /// ``ContextWillSave``.
    public static let objectContextWillSave = Notification.Name("HeadlessTable.ObjectContextWillSave")

    /// Posted by an ``ObjectContext`` each time changes in it are processed
    /// (Core Data's `NSManagedObjectContextObjectsDidChange`): its own changes
    /// by ``ObjectContext/processPendingChanges()`` (which a save does first),
    /// a rollback, a merged save, records a merge policy changed in a save.
    /// The object is the context; `userInfo` holds the objects' ``ObjectID``s
    /// under ``ObjectContext/insertedKey``, ``ObjectContext/updatedKey`` and
    /// ``ObjectContext/deletedKey``, and a ``ContextObjectsDidChange`` under
    /// ``ObjectContext/changesKey``. Posted after the context's fetched results
    /// controllers have been told.
    public static let objectContextObjectsDidChange = Notification.Name("HeadlessTable.ObjectContextObjectsDidChange")
}

/// A scratch pad of changes on an ``ObjectStore``: insert, update and delete
/// objects of any of the model's entities, then ``save()`` them into the
/// store at once, or ``rollback()`` — Core Data's `NSManagedObjectContext`.
///
/// A context belongs to one thread (or actor) at a time; several contexts, on
/// different threads, share one store. What one context saves reaches another
/// when that one merges the save — from the notification, as Core Data apps
/// do, or from the value a save returns:
///
/// ```swift
/// NotificationCenter.default.addObserver(forName: .objectContextDidSave, object: editor, queue: nil) { note in
///     view.mergeChanges(fromContextDidSave: note)
/// }
/// try editor.insert(entry)
/// try editor.save()
/// ```
///
/// A context's view of the objects is the store's, with its own pending
/// changes on top. Fetched results controllers on the context follow its
/// changes when they are processed (``processPendingChanges()``, which
/// ``save()`` does first, or at once with
/// ``automaticallyProcessesPendingChanges``), rolled back, or merged from
/// another context's save.
///
/// **Relationships.** They are properties of the records holding the
/// destinations' identities (see ``Relationship``). The context keeps every
/// inverse consistent the moment either side is set: insert or update a
/// record whose relationship changed and the objects on the other side are
/// updated in the same call (set a medium's entry and the entry's media hold
/// it; move it to another entry and the first one's media lose it). Deleting
/// applies the delete rules through the whole graph at once (cascades,
/// nullifies, and a `deny` refuses it). A change that names an object that
/// does not exist is refused whole, with a typed ``ContextError``: the context
/// is then unchanged. A save checks the model's rules (required
/// relationships, counts, no reference to a deleted object).
///
/// **Conflicts.** A save of a record that changed in the store since this
/// context read it is resolved by the context's ``mergePolicy``; by default it
/// fails with ``StoreError/mergeConflicts(_:)`` and changes nothing.
public final class ObjectContext {
    /// `userInfo` keys of the context's notifications.
    public static var insertedKey: String { _ContextKeys.inserted }
    public static var updatedKey: String { _ContextKeys.updated }
    public static var deletedKey: String { _ContextKeys.deleted }
    public static var changesKey: String { _ContextKeys.changes }

    /// The store the context reads from and saves into.
    public let store: ObjectStore
    /// A name for messages and notifications.
    public var name: String?
    /// How a save resolves records that changed in the store since this
    /// context read them; ``MergePolicy/error`` (refuse the save) by default,
    /// as in Core Data.
    public var mergePolicy: MergePolicy = .error
    /// Whether each change is processed as it is made, so that the context's
    /// fetched results controllers (and `objectContextObjectsDidChange`
    /// observers) see it at once, without a call to ``processPendingChanges()``.
    ///
    /// Core Data processes pending changes at the end of each event of the
    /// main run loop; a headless context has no run loop, so the event is the
    /// call: with this on, each insert, update and delete (with what it does
    /// to related objects) is processed before it returns — one change per
    /// report. Changes made inside ``performChanges(_:)`` are processed once,
    /// together, when the outermost block returns. Off by default: changes
    /// are processed by ``processPendingChanges()`` and by ``save()``.
    public var automaticallyProcessesPendingChanges = false

    /// Each entity's pending changes and reads, in the model's order.
    @usableFromInline let entities: [_AnyEntityPending]
    /// The store versions this context has seen: the store's when it was
    /// created, its own saves, the saves it merged.
    var seen: _SeenVersions
    private var observers: [Int: (_ContextChange) -> Void] = [:]
    /// Whether a controller observes the context: only then does it keep
    /// the records its unprocessed updates replaced (for their changed keys).
    var hasObservers: Bool { !observers.isEmpty }
    private var nextObserver = 0
    /// How deep in `performChanges` blocks the context is.
    private var changeDepth = 0
    private let streams = _Lock(_ContextStreams())

    /// A context on `store`, with no pending changes; `name` appears in its
    /// notifications (``ContextDidSave/contextName``) and messages.
    public init(store: ObjectStore, name: String? = nil) {
        self.store = store
        self.name = name
        entities = store.model.entities.indices.map { store.model.entities[$0].kind.makePending($0) }
        seen = _SeenVersions(through: store.version)
    }

    /// The model of the store's objects.
    public var model: ObjectModel { store.model }

    /// Entity `k`'s part, typed (`R` must be its record type).
    @inlinable
    package func pending<R: Record & Codable>(_ k: Int, _ type: R.Type) -> _EntityPending<R> {
        unsafeDowncast(entities[k], to: _EntityPending<R>.self)
    }

    // MARK: Reading

    /// The record of `R`'s entity (or of `entity`, when several entities have
    /// that record type) with an identity, as this context sees it: its
    /// pending change, or the store's; nil when absent or deleted here. (A
    /// pending update of a record another context deleted is not seen.)
    ///
    /// Reading a record counts as having read its version: a later update of
    /// it conflicts only if the store changes it again before the save.
    ///
    /// - Throws: ``ContextError/unknownEntity(_:)``;
    ///   ``ContextError/unreadable(_:)`` when the store's file is damaged
    ///   where the record is (or elsewhere, once found).
    public func object<R: Record & Codable>(_ type: R.Type, id: R.ID, entity: String? = nil) throws(ContextError) -> R? {
        let k = try model.entityIndex(of: R.self, named: entity)
        for member in model.typedFamily(of: k, R.self) {
            if let found = pending(member, R.self).object(id, in: self) { return found }
        }
        if let damage = store.damage { throw .unreadable(damage) }
        return nil
    }

    /// The objects a relationship of a record holds, as this context sees
    /// them, in its order, as `D` (the destination entity's record type).
    ///
    /// - Throws: ``ContextError/unknownEntity(_:)`` when the record's entity
    ///   has no such relationship, or its destinations are not `D`s;
    ///   ``ContextError/danglingReference(object:relationship:destination:)``
    ///   for a destination that does not exist (a `noAction` delete not yet
    ///   repaired) — never a silent nil.
    public func destinations<R: Record & Codable, D: Record & Codable>(
        of record: R, relationship name: String, as type: D.Type = D.self, entity: String? = nil
    ) throws(ContextError) -> [D] {
        let k = try model.entityIndex(of: R.self, named: entity)
        guard let r = model.entities[k].relationship(named: name), let d = model.byName[r.destinationEntityName] else {
            throw .unknownEntity("\(model.entities[k].name).\(name)")
        }
        var result: [D] = []
        for id in r.destinations(record) ?? [] {
            let ref = _Ref(family: model.roots[d], id: id)
            guard let found = peek(ref), model.families[d].contains(found.entity) else {
                throw .danglingReference(object: model.objectID(k, AnyHashable(record.id)), relationship: name, destination: model.objectID(d, id))
            }
            guard let typed = found.record as? D else { throw .unknownEntity("\(model.entities[found.entity].name) (its records are \(model.entities[found.entity].recordType), not \(D.self))") }
            result.append(typed)
        }
        return result
    }

    /// An object as this context sees it, by reference, without counting as
    /// a read: its entity and record.
    package func peek(_ ref: _Ref) -> (entity: Int, record: any Record & Codable)? {
        for member in model.families[ref.family] {
            if let record = entities[member].peekErased(ref.id, in: self) { return (member, record) }
        }
        return nil
    }

    /// The store's version (of its last save).
    package var storeVersion: Int64 { store.state.withLock { $0.version } }

    /// Whether the fetched results controllers following this context show what
    /// a fetch would show now: no change waits to be processed, and every save
    /// in the store was made or merged here. (Narrowing a search relies on it.)
    package var controllersAreCurrent: Bool {
        !entities.contains { $0.hasUnprocessed } && store.state.withLock { seen.contains($0.version) && seen.through >= $0.version }
    }

    /// Whether the context has changes not yet saved.
    public var hasChanges: Bool { entities.contains { $0.hasChanges } }

    /// The objects inserted and updated here and not yet saved, of every entity.
    public var insertedObjects: [ManagedObject] { managedObjects { $0.willSavePart().insertedErased() } }
    public var updatedObjects: [ManagedObject] { managedObjects { $0.willSavePart().updatedErased() } }
    /// The identities deleted here and not yet saved, of every entity.
    public var deletedObjectIDs: Set<ObjectID> {
        Set(entities.flatMap { pending in pending.deletedIDs().map { model.objectID(pending.entity, $0) } })
    }

    /// The records of `R`'s entities inserted, updated and deleted here and not yet saved.
    public func insertedObjects<R: Record & Codable>(_ type: R.Type) -> [R] {
        entities.compactMap { $0 as? _EntityPending<R> }.flatMap { p in p.pending.insertedIDs.compactMap { p.pending.inserted[$0] } }
    }
    public func updatedObjects<R: Record & Codable>(_ type: R.Type) -> [R] {
        entities.compactMap { $0 as? _EntityPending<R> }.flatMap { Array($0.pending.updated.values) }
    }
    public func deletedIDs<R: Record & Codable>(_ type: R.Type) -> Set<R.ID> {
        Set(entities.compactMap { $0 as? _EntityPending<R> }.flatMap { $0.pending.deleted })
    }

    private func managedObjects(_ records: (_AnyEntityPending) -> [any Record & Codable]) -> [ManagedObject] {
        entities.flatMap { pending in
            records(pending).map { record in
                let id = model.entities[pending.entity].kind.id(of: record) ?? AnyHashable(0)
                return ManagedObject(entityName: model.entities[pending.entity].name, id: model.objectID(pending.entity, id), record: record)
            }
        }
    }

    // MARK: Changing

    /// Inserts a record as an object of `R`'s entity (or of `entity`, when
    /// several entities have that record type). Its relationships' inverses
    /// are set at once: each destination now holds it (and a destination's
    /// to-one inverse moves from the object it held before, which loses it).
    ///
    /// - Throws: ``ContextError/alreadyExists(_:)`` when the context already
    ///   has an object with its identity (in the entity's hierarchy),
    ///   ``ContextError/danglingReference(object:relationship:destination:)``
    ///   for a destination that does not exist,
    ///   ``ContextError/unknownEntity(_:)``; nothing changes.
    public func insert<R: Record & Codable>(_ record: R, entity name: String? = nil) throws(ContextError) {
        let k = try model.entityIndex(of: R.self, named: name)
        let id = record.id
        let p = pending(k, R.self)
        if model.isRelated(k) {
            let ref = _Ref(family: model.roots[k], id: AnyHashable(id))
            guard peek(ref) == nil else { throw .alreadyExists(model.objectID(k, AnyHashable(id))) }
            var edit = _GraphEdit(context: self)
            try edit.set(k, record, old: nil)
            commit(edit)
            return
        }
        if !p.pending.deleted.contains(id) {
            guard peek(_Ref(family: model.roots[k], id: AnyHashable(id))) == nil else { throw .alreadyExists(model.objectID(k, AnyHashable(id))) }
        }
        p.insert(record, in: self)
        didChange()
    }

    /// Replaces an object's record with a new version of it (same identity).
    /// Relationships that changed update their inverses at once: destinations
    /// added now hold the object, destinations removed lose it.
    ///
    /// - Throws: ``ContextError/noSuchObject(_:)`` when the context has no
    ///   object of the entity with that identity,
    ///   ``ContextError/danglingReference(object:relationship:destination:)``,
    ///   ``ContextError/unknownEntity(_:)``; nothing changes.
    public func update<R: Record & Codable>(_ record: R, entity name: String? = nil) throws(ContextError) {
        let k = try model.entityIndex(of: R.self, named: name)
        let id = record.id
        // The object's own entity: `k`, or a sub-entity of that record type; the record it shows.
        var found: (member: Int, shown: R)?
        for member in model.typedFamily(of: k, R.self) {
            if let shown = pending(member, R.self).peek(id, in: self) { found = (member, shown); break }
        }
        guard let (member, shown) = found else { throw .noSuchObject(model.objectID(k, AnyHashable(id))) }
        if model.isRelated(member) {
            var edit = _GraphEdit(context: self)
            try edit.set(member, record, old: shown)
            commit(edit)
            return
        }
        pending(member, R.self).update(record, shown: shown, in: self)
        didChange()
    }

    /// Deletes the object of `R`'s entity (or of `entity`) with an identity,
    /// and applies the delete rules through the graph: `cascade` deletes the
    /// destinations (by their own rules in turn), `nullify` takes the deleted
    /// objects out of their destinations' inverses, `deny` refuses the whole
    /// delete while a destination outside it remains, `noAction` leaves the
    /// destinations as they are.
    ///
    /// - Throws: ``ContextError/noSuchObject(_:)``,
    ///   ``ContextError/deleteDenied(object:relationship:destinations:)``,
    ///   ``ContextError/unknownEntity(_:)``; nothing changes.
    public func delete<R: Record & Codable>(_ type: R.Type, id: R.ID, entity name: String? = nil) throws(ContextError) {
        let k = try model.entityIndex(of: R.self, named: name)
        guard let member = model.typedFamily(of: k, R.self).first(where: { pending($0, R.self).peek(id, in: self) != nil }) else {
            throw .noSuchObject(model.objectID(k, AnyHashable(id)))
        }
        if model.isRelated(member) {
            var edit = _GraphEdit(context: self)
            try edit.delete(_Ref(family: model.roots[member], id: AnyHashable(id)))
            commit(edit)
            return
        }
        pending(member, R.self).delete(id, in: self)
        didChange()
    }

    /// Deletes the object a record is the version of (see ``delete(_:id:entity:)``).
    public func delete<R: Record & Codable>(_ record: R, entity name: String? = nil) throws(ContextError) {
        try delete(R.self, id: record.id, entity: name)
    }

    /// Applies a relationship edit to the context, as one change: processed
    /// as one with ``automaticallyProcessesPendingChanges``.
    func commit(_ edit: _GraphEdit) {
        for ref in edit.order {
            guard let change = edit.changes[ref] else { continue }
            entities[change.entity].putErased(ref.id, change.record, in: self)
        }
        didChange()
    }

    private func didChange() {
        if automaticallyProcessesPendingChanges && changeDepth == 0 { processPendingChanges() }
    }

    /// Makes changes as one event: they are processed together when the
    /// outermost such block returns (or throws), in one report to the
    /// context's controllers and one `objectContextObjectsDidChange`.
    ///
    /// ```swift
    /// context.automaticallyProcessesPendingChanges = true
    /// try context.performChanges {
    ///     for entry in imported { try context.insert(entry) }
    /// }   // the controllers report every insert at once, here
    /// ```
    public func performChanges<T>(_ changes: () throws -> T) rethrows -> T {
        changeDepth += 1
        defer {
            changeDepth -= 1
            if changeDepth == 0 { processPendingChanges() }
        }
        return try changes()
    }

    /// Tells the fetched results controllers on this context about the changes
    /// made since the last call, then posts
    /// `Notification.Name.objectContextObjectsDidChange`. ``save()``
    /// calls it first.
    public func processPendingChanges() {
        var change = _ContextChange(), notice = _ContextNotice()
        for pending in entities { pending.takeUnprocessed(into: &change, &notice) }
        guard !change.isEmpty else { return }
        _checkInvariants()
        notify(change, notice)
    }

    // MARK: Saving

    /// Saves the pending changes of every entity into the store at once, then
    /// posts `Notification.Name.objectContextDidSave` and returns what was
    /// saved.
    ///
    /// First it posts `Notification.Name.objectContextWillSave` and processes
    /// pending changes; then it checks the model's rules on what changed.
    /// Records that changed in the store since this context read them are
    /// resolved by ``mergePolicy``. Without changes it posts nothing and
    /// returns an empty save.
    ///
    /// - Throws: ``StoreError`` (``StoreError/mergeConflicts(_:)`` under the
    ///   default policy, ``StoreError/duplicateIdentity(_:)`` for an identity
    ///   inserted elsewhere meanwhile, ``StoreError/validation(_:)`` for a
    ///   required relationship left empty or a count out of bounds,
    ///   ``StoreError/danglingReference(object:relationship:destination:)``
    ///   for a reference to an object that does not exist, a file that cannot
    ///   be written); the store is unchanged and the changes stay pending.
    /// - Complexity: O(*k*) for *k* changed records (plus what other stores on
    ///   the same file saved meanwhile); with relationships, O(*k* · *r*) to
    ///   check *r* references each, plus a scan of every object when the save
    ///   deletes an object of an entity that a relationship without an
    ///   inverse points to (nothing else finds what holds it).
    @discardableResult
    public func save() throws(StoreError) -> ContextDidSave {
        guard hasChanges else {
            processPendingChanges()
            return ContextDidSave(model: model, parts: [], storeVersion: store.version, contextName: name, firstStoreVersion: .max)
        }
        postWillSave()
        processPendingChanges()
        guard hasChanges else {
            return ContextDidSave(model: model, parts: [], storeVersion: store.version, contextName: name, firstStoreVersion: .max)
        }
        if model.hasRelationships { try validate() }
        let request = _SaveRequest(parts: entities.compactMap { $0.saveRequest(in: self) }, policy: mergePolicy, contextName: name)
        let outcome = try store.commit(request)
        let saved = outcome.saved
        for pending in entities { pending.didSave() }
        if saved.firstStoreVersion <= saved.storeVersion { seen.insert(saved.firstStoreVersion...saved.storeVersion) }
        NotificationCenter.default.post(name: .objectContextDidSave, object: self, userInfo: saved.userInfo)
        if !outcome.resolvedIDs.isEmpty {
            // The policy saved something else than what the controllers show.
            var change = _ContextChange(), notice = _ContextNotice()
            for (k, ids) in outcome.resolvedIDs.sorted(by: { $0.key < $1.key }) {
                entities[k].noteResolved(ids, in: self, change: &change, notice: &notice)
            }
            notify(change, notice)
        }
        _checkInvariants()
        return saved
    }

    /// Discards the pending changes; controllers on the context see the saved
    /// records again.
    public func rollback() {
        var change = _ContextChange(), notice = _ContextNotice()
        for pending in entities { pending.rollback(into: &change, &notice) }
        _checkInvariants()
        notify(change, notice)
    }

    /// Brings another context's save into this one: controllers on this context
    /// update for the objects it inserted, updated and deleted.
    ///
    /// This context's own pending changes stay on top, merged property by
    /// property (its own changes win, the save's changes to other properties
    /// are kept), and count as based on the merged save; pending changes of
    /// records the save deleted are dropped. An object that both this context
    /// and the save changed gets the save's relationships with this context's
    /// additions and removals on top (a to-one relationship this context set
    /// keeps its value), and the objects on the other side follow, so that
    /// both sides of every relationship still agree.
    ///
    /// - Returns: the pending updates that could not be merged property by
    ///   property and stay whole (the save's changes to them are not in
    ///   them), and those whose relationships could not be merged; see
    ///   ``PropertyMergeFallback``.
    @discardableResult
    public func mergeChanges(fromContextDidSave saved: ContextDidSave) -> [PropertyMergeFallback] {
        let changedHere = model.hasRelationships ? pendingRelationshipChanges(alsoIn: saved) : []
        var fallbacks: [PropertyMergeFallback] = []
        var change = _ContextChange(), notice = _ContextNotice()
        for part in saved.parts where part.entity < entities.count {
            entities[part.entity].merge(part, saved: saved, in: self, fallbacks: &fallbacks, change: &change, notice: &notice)
        }
        if saved.firstStoreVersion <= saved.storeVersion { seen.insert(saved.firstStoreVersion...saved.storeVersion) }
        _checkInvariants()
        notify(change, notice)
        if !changedHere.isEmpty { fallbacks += mergeRelationships(of: changedHere) }
        return fallbacks
    }

    /// Merges the save a `Notification.Name.objectContextDidSave`
    /// notification carries (Core Data's listing:
    /// `context.mergeChanges(fromContextDidSave: notification)`): a save of
    /// another context on this context's store, or one the store picked up
    /// from another store on its file. Ignores every other notification —
    /// this context's own saves, and saves into other stores — so one
    /// observer of every did-save notification may call it for each.
    ///
    /// - Returns: what merging the save it carries returns; empty for a
    ///   notification it ignores.
    @discardableResult
    public func mergeChanges(fromContextDidSave notification: Notification) -> [PropertyMergeFallback] {
        let sender = notification.object as AnyObject?
        guard sender !== self, (sender as? ObjectContext)?.store === store || sender === store,
            let saved = notification.userInfo?[Self.changesKey] as? ContextDidSave
        else { return [] }
        return mergeChanges(fromContextDidSave: saved)
    }

    // MARK: Notifications

    /// A sequence of the context's `Notification.Name.objectContextObjectsDidChange`
    /// notifications, from now on.
    public func objectsDidChangeNotifications() -> AsyncStream<ContextObjectsDidChange> {
        let (stream, continuation) = AsyncStream<ContextObjectsDidChange>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        let streams = self.streams
        streams.withLock { $0.objectsDidChange[key] = continuation }
        continuation.onTermination = { _ in _ = streams.withLock { $0.objectsDidChange.removeValue(forKey: key) } }
        return stream
    }

    /// A sequence of the context's `Notification.Name.objectContextWillSave`
    /// notifications, from now on.
    public func willSaveNotifications() -> AsyncStream<ContextWillSave> {
        let (stream, continuation) = AsyncStream<ContextWillSave>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        let streams = self.streams
        streams.withLock { $0.willSave[key] = continuation }
        continuation.onTermination = { _ in _ = streams.withLock { $0.willSave.removeValue(forKey: key) } }
        return stream
    }

    private func postWillSave() {
        let willSave = ContextWillSave(
            model: model, parts: entities.map { $0.willSavePart() }.filter { !$0.isEmpty },
            deletedObjectIDs: Array(deletedObjectIDs), contextName: name)
        NotificationCenter.default.post(name: .objectContextWillSave, object: self, userInfo: [Self.changesKey: willSave])
        for continuation in streams.withLock({ Array($0.willSave.values) }) { continuation.yield(willSave) }
    }

    // MARK: Observers

    /// Calls `observer` with the identities whose records may have changed, each
    /// time changes are processed, rolled back or merged. Keep the token: the
    /// observation ends when it is released.
    package func addObserver(_ observer: @escaping (_ContextChange) -> Void) -> _ObservationToken {
        let key = nextObserver
        nextObserver += 1
        observers[key] = observer
        return _ObservationToken { [weak self] in self?.observers.removeValue(forKey: key) }
    }

    /// Tells the observers (the controllers), then posts objects-did-change.
    private func notify(_ change: _ContextChange, _ notice: _ContextNotice) {
        guard !change.isEmpty else { return }
        for key in observers.keys.sorted() { observers[key]?(change) }

        let parts = notice.parts.keys.sorted().compactMap { notice.parts[$0] }
        let didChange = ContextObjectsDidChange(model: model, parts: parts.map { $0.part(in: self) }, contextName: name)
        var inserted: [AnyHashable] = [], updated: [AnyHashable] = [], deleted: [AnyHashable] = []
        for part in parts {
            let ids = part.ids()
            inserted += ids.inserted.map { AnyHashable(model.objectID(part.entity, $0)) }
            updated += ids.updated.map { AnyHashable(model.objectID(part.entity, $0)) }
            deleted += ids.deleted.map { AnyHashable(model.objectID(part.entity, $0)) }
        }
        NotificationCenter.default.post(
            name: .objectContextObjectsDidChange, object: self,
            userInfo: [Self.insertedKey: inserted, Self.updatedKey: updated, Self.deletedKey: deleted, Self.changesKey: didChange])
        for continuation in streams.withLock({ Array($0.objectsDidChange.values) }) { continuation.yield(didChange) }
    }

    /// Every entity checks itself (debug builds).
    package func _checkInvariants() {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        for pending in entities { pending._checkInvariants(seen: seen) }
        precondition(seen.above.allSatisfy { $0 > seen.through + 1 }, "versions seen above \(seen.through): \(seen.above.sorted())")
        #endif
    }
}

extension ContextDidSave {
    /// Whether the save was made in (or picked up by) `store`: its model's
    /// entities are the store's.
    func isFrom(_ store: ObjectStore) -> Bool {
        model.entities.count == store.model.entities.count
            && zip(model.entities, store.model.entities).allSatisfy { $0.name == $1.name && $0.recordTypeID == $1.recordTypeID }
    }
}

extension ObjectModel {
    /// Whether entity `k` has relationships, or is the destination of one:
    /// its changes go through the relationship code.
    func isRelated(_ k: Int) -> Bool { !entities[k].relationships.isEmpty || !incoming[k].isEmpty }
}

/// The changes a context processed, of every entity: posted as
/// `Notification.Name.objectContextObjectsDidChange` and delivered by
/// ``ObjectContext/objectsDidChangeNotifications()``.
public struct ContextObjectsDidChange: Sendable {
    let model: ObjectModel
    let parts: [_AnyEntityPart]
    /// The context's name, if it has one.
    public var contextName: String?

    init(model: ObjectModel, parts: [_AnyEntityPart], contextName: String?) {
        self.model = model
        self.parts = parts
        self.contextName = contextName
    }

    /// The records of `R`'s entities that appeared in the context (inserted,
    /// or brought back by a rollback), as it now sees them.
    public func insertedObjects<R: Record & Codable>(_ type: R.Type) -> [R] { parts.flatMap { $0.typed(R.self)?.inserted ?? [] } }
    /// The records of `R`'s entities that changed, as the context now sees them.
    public func updatedObjects<R: Record & Codable>(_ type: R.Type) -> [R] { parts.flatMap { $0.typed(R.self)?.updated ?? [] } }
    /// The records of `R`'s entities that left the context, as they were.
    public func deletedObjects<R: Record & Codable>(_ type: R.Type) -> [R] { parts.flatMap { $0.typed(R.self)?.deleted ?? [] } }

    /// The identities that appeared, changed and left, of every entity.
    public var insertedIDs: [ObjectID] { parts.flatMap { part in part.insertedIDs().map { model.objectID(part.entity, $0) } } }
    public var updatedIDs: [ObjectID] { parts.flatMap { part in part.updatedIDs().map { model.objectID(part.entity, $0) } } }
    public var deletedIDs: [ObjectID] { parts.flatMap { part in part.deletedIDs().map { model.objectID(part.entity, $0) } } }
}

/// A save about to start: posted as `Notification.Name.objectContextWillSave`
/// and delivered by ``ObjectContext/willSaveNotifications()``.
public struct ContextWillSave: Sendable {
    let model: ObjectModel
    let parts: [_AnyEntityPart]
    /// The identities of the pending deletes, of every entity.
    public var deletedObjectIDs: [ObjectID]
    /// The context's name, if it has one.
    public var contextName: String?

    /// The pending inserts of `R`'s entities.
    public func insertedObjects<R: Record & Codable>(_ type: R.Type) -> [R] { parts.flatMap { $0.typed(R.self)?.inserted ?? [] } }
    /// The pending updates of `R`'s entities.
    public func updatedObjects<R: Record & Codable>(_ type: R.Type) -> [R] { parts.flatMap { $0.typed(R.self)?.updated ?? [] } }
    /// The identities of the pending inserts and updates, of every entity.
    public var insertedIDs: [ObjectID] { parts.flatMap { part in part.insertedIDs().map { model.objectID(part.entity, $0) } } }
    public var updatedIDs: [ObjectID] { parts.flatMap { part in part.updatedIDs().map { model.objectID(part.entity, $0) } } }
}

/// The store versions a context has seen: every version up to `through`,
/// and some above it.
struct _SeenVersions {
    var through: Int64
    var above: Set<Int64> = []

    func contains(_ version: Int64) -> Bool { version <= through || above.contains(version) }

    mutating func insert(_ versions: ClosedRange<Int64>) {
        if versions.lowerBound <= through + 1 {
            through = max(through, versions.upperBound)
        } else {
            for version in versions { above.insert(version) }
        }
        while above.remove(through + 1) != nil { through += 1 }
        if !above.isEmpty { above = above.filter { $0 > through } }
    }
}

/// The continuations of a context's notification streams.
struct _ContextStreams {
    var objectsDidChange: [UUID: AsyncStream<ContextObjectsDidChange>.Continuation] = [:]
    var willSave: [UUID: AsyncStream<ContextWillSave>.Continuation] = [:]
}

/// Ends an observation when released.
package final class _ObservationToken {
    private let cancel: () -> Void
    init(_ cancel: @escaping () -> Void) { self.cancel = cancel }
    deinit { cancel() }
}
