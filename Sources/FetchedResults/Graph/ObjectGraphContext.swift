import Foundation
import Records

/// A scratch pad of changes on an ``ObjectGraphStore``: insert, update and
/// delete objects of any of the model's entities, then ``save()`` them at
/// once — Core Data's `NSManagedObjectContext` over a model of several
/// entities.
///
/// Relationships are properties of the records holding the destinations'
/// identities (see ``Relationship``). The context keeps every inverse
/// consistent the moment either side is set: insert or update a record whose
/// relationship changed and the objects on the other side are updated in the
/// same call (set a medium's entry and the entry's media hold it; move it to
/// another entry and the first one's media lose it). Deleting applies the
/// delete rules through the whole graph at once (cascades, nullifies, and a
/// `deny` refuses it). Every change is refused whole, with a typed
/// ``ObjectGraphError``, when it names an object that does not exist: the
/// context is then unchanged.
///
/// A save checks the model's rules (required relationships, counts, no
/// reference to a deleted object) and commits every entity's changes as one
/// save of the store. See <doc:ObjectGraph>.
public final class ObjectGraphContext {
    /// The store the context reads from and saves into.
    public let store: ObjectGraphStore
    /// The context of the store's objects.
    let base: ObjectContext<_GraphObject>
    var model: ObjectModel { store.model }

    /// A context on `store`, with no pending changes.
    public init(store: ObjectGraphStore, name: String? = nil) {
        self.store = store
        base = ObjectContext(store: store.base, name: name)
    }

    /// A name for messages and notifications.
    public var name: String? {
        get { base.name }
        set { base.name = newValue }
    }

    /// How a save resolves objects that changed in the store since this
    /// context read them (see ``MergePolicy``); ``MergePolicy/error`` by default.
    public var mergePolicy: MergePolicy {
        get { base.mergePolicy }
        set { base.mergePolicy = newValue }
    }

    /// Whether the context has changes not yet saved.
    public var hasChanges: Bool { base.hasChanges }

    // MARK: Reading

    /// The identity of the record `id` of `R`'s entity (or `entity`).
    ///
    /// - Throws: ``ObjectGraphError/unknownEntity(_:)``.
    public func objectID<R: Record & Codable>(_ type: R.Type, id: R.ID, entity: String? = nil) throws(ObjectGraphError) -> ObjectID where R.ID: Codable {
        let description = try self.entity(of: type, named: entity)
        return ObjectID(rootEntityName: model.root(of: description.name), key: try _objectKey(id))
    }

    /// The object with an identity as this context sees it; nil when absent
    /// or deleted here.
    ///
    /// - Throws: ``ObjectGraphError/undecodable(object:entity:reason:)`` when
    ///   its record cannot be read as its entity's type.
    public func object(withID id: ObjectID) throws(ObjectGraphError) -> GraphObject? {
        guard let stored = base.object(withID: id) else { return nil }
        return GraphObject(entityName: stored.entity, id: id, record: try stored.record(in: model))
    }

    /// The record `id` of `R`'s entity as this context sees it (nil when
    /// absent, deleted here, or of a sub-entity of another record type).
    public func object<R: Record & Codable>(_ type: R.Type, id: R.ID) throws(ObjectGraphError) -> R? where R.ID: Codable {
        try object(withID: try objectID(type, id: id))?.as(R.self)
    }

    /// The objects a relationship of an object holds, in its order.
    ///
    /// - Throws: ``ObjectGraphError/noSuchObject(_:)``,
    ///   ``ObjectGraphError/unknownEntity(_:)`` when the object's entity has no
    ///   such relationship, and
    ///   ``ObjectGraphError/danglingReference(object:relationship:destination:)``
    ///   for a destination that does not exist (a `noAction` delete not yet
    ///   repaired) — never a silent nil.
    public func destinations(of id: ObjectID, relationship name: String) throws(ObjectGraphError) -> [GraphObject] {
        guard let object = base.object(withID: id) else { throw .noSuchObject(id) }
        guard let r = model.entity(named: object.entity)?.relationship(named: name) else { throw .unknownEntity("\(object.entity).\(name)") }
        let record = try object.record(in: model)
        var result: [GraphObject] = []
        for key in try r.keys(record) ?? [] {
            let destinationID = ObjectID(rootEntityName: model.root(of: r.destinationEntityName), key: key)
            guard let destination = try self.object(withID: destinationID),
                model.entity(destination.entityName, isKindOf: r.destinationEntityName)
            else { throw .danglingReference(object: id, relationship: name, destination: destinationID) }
            result.append(destination)
        }
        return result
    }

    /// The objects inserted, updated and deleted here and not yet saved.
    public var insertedObjects: [GraphObject] { base.insertedObjects.compactMap(graphObject) }
    public var updatedObjects: [GraphObject] { base.updatedObjects.compactMap(graphObject) }
    public var deletedIDs: Set<ObjectID> { base.deletedIDs }

    private func graphObject(_ stored: _GraphObject) -> GraphObject? {
        (try? stored.record(in: model)).map { GraphObject(entityName: stored.entity, id: stored.id, record: $0) }
    }

    // MARK: Changing

    /// Inserts a record as an object of `R`'s entity (or of `entity`, when
    /// several entities have that record type). Its relationships' inverses
    /// are set at once: each destination now holds it (and a destination's
    /// to-one inverse moves from the object it held before, which loses it).
    ///
    /// - Throws: ``ObjectGraphError/alreadyExists(_:)``,
    ///   ``ObjectGraphError/danglingReference(object:relationship:destination:)``
    ///   for a destination that does not exist, ``ObjectGraphError/unknownEntity(_:)``;
    ///   nothing changes.
    public func insert<R: Record & Codable>(_ record: R, entity name: String? = nil) throws(ObjectGraphError) where R.ID: Codable {
        let entity = try self.entity(of: R.self, named: name)
        let id = ObjectID(rootEntityName: model.root(of: entity.name), key: try _objectKey(record.id))
        guard base.peek(id) == nil else { throw .alreadyExists(id) }
        var edit = _GraphEdit(context: self)
        try edit.set(_GraphObject(id: id, entity: entity.name, record: record), old: nil)
        try commit(edit)
    }

    /// Replaces an object's record with a new version of it (same identity).
    /// Relationships that changed update their inverses at once: destinations
    /// added now hold the object, destinations removed lose it.
    ///
    /// - Throws: ``ObjectGraphError/noSuchObject(_:)``,
    ///   ``ObjectGraphError/danglingReference(object:relationship:destination:)``,
    ///   ``ObjectGraphError/unknownEntity(_:)``; nothing changes.
    public func update<R: Record & Codable>(_ record: R, entity name: String? = nil) throws(ObjectGraphError) where R.ID: Codable {
        let entity = try self.entity(of: R.self, named: name)
        let id = ObjectID(rootEntityName: model.root(of: entity.name), key: try _objectKey(record.id))
        guard let old = base.peek(id) else { throw .noSuchObject(id) }
        guard model.entity(named: old.entity)?.recordTypeID == ObjectIdentifier(R.self) else {
            throw .unknownEntity("\(old.entity) (the object's entity; its record type is not \(R.self))")
        }
        var edit = _GraphEdit(context: self)
        try edit.set(_GraphObject(id: id, entity: old.entity, record: record), old: old)
        try commit(edit)
    }

    /// Deletes an object, and applies the delete rules through the graph:
    /// `cascade` deletes the destinations (by their own rules in turn),
    /// `nullify` takes the deleted objects out of their destinations'
    /// inverses, `deny` refuses the whole delete while a destination outside
    /// it remains, `noAction` leaves the destinations as they are.
    ///
    /// - Throws: ``ObjectGraphError/noSuchObject(_:)``,
    ///   ``ObjectGraphError/deleteDenied(object:relationship:destinations:)``;
    ///   nothing changes.
    public func delete(_ id: ObjectID) throws(ObjectGraphError) {
        guard base.peek(id) != nil else { throw .noSuchObject(id) }
        var edit = _GraphEdit(context: self)
        try edit.delete(id)
        try commit(edit)
    }

    /// Deletes the object `id` of `R`'s entity (see ``delete(_:)``).
    public func delete<R: Record & Codable>(_ type: R.Type, id: R.ID) throws(ObjectGraphError) where R.ID: Codable {
        try delete(try objectID(type, id: id))
    }

    /// Applies an edit to the context, as one event.
    func commit(_ edit: _GraphEdit) throws(ObjectGraphError) {
        let result: Result<Void, ObjectGraphError> = base.performChanges {
            for id in edit.order {
                guard let change = edit.changes[id] else { continue }
                do {
                    if let object = change {
                        if base.peek(id) == nil { try base.insert(object) } else { try base.update(object) }
                    } else if base.peek(id) != nil {
                        try base.delete(id)
                    }
                } catch {
                    // Checked before: the context has (or has not) each object.
                    return .failure(.noSuchObject(id))
                }
            }
            return .success(())
        }
        try result.get()
    }

    /// The entity of a record type (or the one named).
    func entity<R: Record & Codable>(of type: R.Type, named name: String?) throws(ObjectGraphError) -> EntityDescription {
        if let name {
            guard let entity = model.entity(named: name), entity.recordTypeID == ObjectIdentifier(R.self) else { throw .unknownEntity(name) }
            return entity
        }
        guard let entity = model.entity(for: R.self) else { throw .unknownEntity("\(R.self)") }
        return entity
    }

    // MARK: Saving

    /// Checks the model's rules on what changed, then saves every entity's
    /// changes into the store as one save.
    ///
    /// - Throws: ``ObjectGraphError/validation(_:)`` for a required
    ///   relationship left empty or a count out of bounds;
    ///   ``ObjectGraphError/danglingReference(object:relationship:destination:)``
    ///   for a reference to an object that does not exist (a `noAction`
    ///   delete not repaired); ``ObjectGraphError/store(_:)`` when the store
    ///   refuses (a merge conflict, the file). Nothing is saved then, and the
    ///   context keeps its changes.
    /// - Complexity: O(*c* · *r*) to check *c* changed objects of *r*
    ///   references each, plus O(*n*) — a scan of every object the context
    ///   sees — when the save deletes an object of an entity that a
    ///   relationship without an inverse points to (nothing else finds what
    ///   holds it), plus the store's save.
    @discardableResult
    public func save() throws(ObjectGraphError) -> GraphDidSave {
        try validate()
        do {
            return GraphDidSave(try base.save(), model: model)
        } catch {
            throw .store(error)
        }
    }

    /// Discards every unsaved change.
    public func rollback() { base.rollback() }

    /// Merges a save of another context on the same store.
    ///
    /// This context's own changes stay on top. An object that both this
    /// context and the save changed gets the save's relationships with this
    /// context's additions and removals on top (a to-one relationship this
    /// context set keeps its value), and the objects on the other side follow,
    /// so that both sides of every relationship still agree; its other
    /// values are this context's. Pending changes of objects the save deleted
    /// are dropped: a reference this context holds to one is refused by its
    /// next save.
    ///
    /// - Returns: the objects whose relationships could not be merged so (a
    ///   record that cannot be read, a destination added here that the save
    ///   deleted), each an error naming it: they stay as this context had them.
    @discardableResult
    public func mergeChanges(fromContextDidSave saved: GraphDidSave) -> [ObjectGraphError] {
        let changedHere = pendingChanges(alsoIn: saved.base)
        _ = base.mergeChanges(fromContextDidSave: saved.base)
        return mergeRelationships(of: changedHere)
    }

    /// The model's rules on every object inserted or updated, and no
    /// reference left to a deleted one.
    ///
    /// - Complexity: O(*c* · *r*) for *c* changed objects of *r* references
    ///   each; O(*n*) more when an object is deleted that a relationship
    ///   without an inverse may point to.
    func validate() throws(ObjectGraphError) {
        var failures: [ValidationFailure] = []
        let changed = base.insertedObjects + base.updatedObjects
        for object in changed {
            guard let entity = model.entity(named: object.entity) else { throw .unknownEntity(object.entity) }
            let record = try object.record(in: model)
            for r in entity.relationships {
                let keys = try r.keys(record) ?? []
                if keys.isEmpty && !r.isOptional {
                    failures.append(ValidationFailure(code: .missingMandatoryProperty, object: object.id, key: r.name))
                } else if r.isToMany && keys.count < r.minCount {
                    failures.append(ValidationFailure(code: .relationshipLacksMinimumCount, object: object.id, key: r.name))
                } else if r.isToMany, let max = r.maxCount, keys.count > max {
                    failures.append(ValidationFailure(code: .relationshipExceedsMaximumCount, object: object.id, key: r.name))
                }
                for key in keys {
                    let destination = ObjectID(rootEntityName: model.root(of: r.destinationEntityName), key: key)
                    guard let found = base.peek(destination), model.entity(found.entity, isKindOf: r.destinationEntityName) else {
                        throw .danglingReference(object: object.id, relationship: r.name, destination: destination)
                    }
                }
            }
        }
        // References to deleted objects from objects this save does not change.
        let deleted = base.deletedIDs
        if !deleted.isEmpty {
            let changedIDs = Set(changed.map(\.id))
            var deletedEntities = Set<String>()
            for id in deleted {
                guard let stored = store.base.object(withID: id), let entity = model.entity(named: stored.entity) else { continue }
                deletedEntities.insert(entity.name)
                let record = try stored.record(in: model)
                for r in entity.relationships {
                    guard let inverseName = r.inverseName else { continue }
                    for key in try r.keys(record) ?? [] {
                        let other = ObjectID(rootEntityName: model.root(of: r.destinationEntityName), key: key)
                        guard !changedIDs.contains(other), let holder = base.peek(other),
                            let inverse = model.entity(named: holder.entity)?.relationship(named: inverseName)
                        else { continue }
                        if (try inverse.keys(try holder.record(in: model)) ?? []).contains(id.key) {
                            throw .danglingReference(object: other, relationship: inverseName, destination: id)
                        }
                    }
                }
            }
            // Relationships without an inverse that may point to a deleted object: a scan.
            let oneWay = model.entities.flatMap { entity in
                entity.relationships.filter { r in
                    r.inverseName == nil && deletedEntities.contains { model.entity($0, isKindOf: r.destinationEntityName) }
                }.map { (entity.name, $0) }
            }
            if !oneWay.isEmpty {
                var found: ObjectGraphError?
                do throws(FetchError) {
                    try base.forEachRecord { borrowed, _ throws(FetchError) in
                        let object = copy borrowed
                        guard found == nil, !changedIDs.contains(object.id), oneWay.contains(where: { $0.0 == object.entity }) else { return }
                        // Read through the model if still bytes (merged from another store of the file).
                        let record: any Record & Codable
                        do throws(ObjectGraphError) { record = try object.record(in: model) } catch {
                            found = error
                            return
                        }
                        for (entityName, r) in oneWay where entityName == object.entity {
                            let keys: [RecordValue]
                            do throws(ObjectGraphError) { keys = try r.keys(record) ?? [] } catch {
                                found = error
                                return
                            }
                            for key in keys {
                                let destination = ObjectID(rootEntityName: model.root(of: r.destinationEntityName), key: key)
                                if deleted.contains(destination) {
                                    found = .danglingReference(object: object.id, relationship: r.name, destination: destination)
                                    return
                                }
                            }
                        }
                    }
                } catch {}
                if let found { throw found }
            }
        }
        if !failures.isEmpty { throw .validation(failures) }
    }
}

/// The changes of one operation, made aside and checked before any reaches
/// the context: an object's new version, or nil for a delete.
struct _GraphEdit {
    let context: ObjectGraphContext
    var changes: [ObjectID: _GraphObject?] = [:]
    var order: [ObjectID] = []
    var model: ObjectModel { context.model }

    init(context: ObjectGraphContext) { self.context = context }

    /// An object as the edit sees it.
    func current(_ id: ObjectID) -> _GraphObject? {
        if let change = changes[id] { return change }
        return context.base.peek(id)
    }

    mutating func put(_ id: ObjectID, _ object: _GraphObject?) {
        if changes.updateValue(object, forKey: id) == nil { order.append(id) }
    }

    /// The identity of a key of a relationship's destination.
    func destinationID(_ r: RelationshipDescription, _ key: RecordValue) -> ObjectID {
        ObjectID(rootEntityName: model.root(of: r.destinationEntityName), key: key)
    }

    /// `object`'s record with `relationship` changed by `change` (or the error).
    func changing(
        _ object: _GraphObject, _ relationship: String,
        _ change: (RelationshipDescription, any Record & Codable) throws(ObjectGraphError) -> (any Record & Codable)?
    ) throws(ObjectGraphError) -> _GraphObject {
        guard let r = model.entity(named: object.entity)?.relationship(named: relationship) else { throw .unknownEntity("\(object.entity).\(relationship)") }
        guard let record = try change(r, try object.record(in: model)) else {
            throw .undecodable(object: object.id, entity: object.entity, reason: "its record is not of the entity's type")
        }
        var changed = object
        changed.payload = .typed(record)
        return changed
    }

    /// Sets an object to a new version and keeps the inverses of its
    /// relationships that changed.
    mutating func set(_ given: _GraphObject, old: _GraphObject?) throws(ObjectGraphError) {
        guard let entity = model.entity(named: given.entity) else { throw .unknownEntity(given.entity) }
        // Each destination once in a to-many relationship.
        var new = given
        var newRecord = try given.record(in: model)
        for r in entity.relationships where r.isToMany {
            let keys = try r.keys(newRecord) ?? []
            if Set(keys).count != keys.count, let deduplicated = try r.deduplicating(newRecord) { newRecord = deduplicated }
        }
        new.payload = .typed(newRecord)
        let oldRecord = try old?.record(in: model)
        guard let selfID = try entity.key(newRecord)?.id else { throw .unknownEntity(new.entity) }
        put(new.id, new)
        for r in entity.relationships {
            let newKeys = try r.keys(newRecord) ?? []
            var oldKeys: [RecordValue] = []
            if let oldRecord { oldKeys = try r.keys(oldRecord) ?? [] }
            let added = newKeys.filter { !oldKeys.contains($0) }
            let removed = oldKeys.filter { !newKeys.contains($0) }
            // Every destination added exists and is of the destination entity.
            for key in added {
                let id = destinationID(r, key)
                guard let destination = current(id), model.entity(destination.entity, isKindOf: r.destinationEntityName) else {
                    throw .danglingReference(object: new.id, relationship: r.name, destination: id)
                }
            }
            guard let inverseName = r.inverseName else { continue }
            for key in removed {
                let id = destinationID(r, key)
                guard let destination = current(id) else { continue }   // already gone (a `noAction` delete)
                put(id, try changing(destination, inverseName) { inverse, record throws(ObjectGraphError) in try inverse.removing(record, new.id.key) })
            }
            for key in added {
                let id = destinationID(r, key)
                guard let destination = current(id) else { continue }
                guard let inverse = model.entity(named: destination.entity)?.relationship(named: inverseName) else { continue }
                if !inverse.isToMany {
                    // A to-one inverse moves: the object it held loses the destination.
                    for previousKey in try inverse.keys(try destination.record(in: model)) ?? [] where previousKey != new.id.key {
                        let previousID = destinationID(inverse, previousKey)
                        guard let previous = current(previousID) else { continue }
                        put(previousID, try changing(previous, r.name) { own, record throws(ObjectGraphError) in try own.removing(record, key) })
                    }
                }
                guard let latest = current(id) else { continue }
                put(id, try changing(latest, inverseName) { inverse, record throws(ObjectGraphError) in try inverse.adding(record, selfID) })
            }
        }
    }

    /// Deletes an object and applies the delete rules.
    mutating func delete(_ root: ObjectID) throws(ObjectGraphError) {
        // The objects deleted: the object and what cascades from it.
        var deleting: [ObjectID] = [root]
        var isDeleting: Set<ObjectID> = [root]
        var next = 0
        while next < deleting.count {
            let id = deleting[next]
            next += 1
            guard let object = current(id), let entity = model.entity(named: object.entity) else { continue }
            let record = try object.record(in: model)
            for r in entity.relationships where r.deleteRule == .cascade {
                for key in try r.keys(record) ?? [] {
                    let destination = destinationID(r, key)
                    if current(destination) != nil, isDeleting.insert(destination).inserted { deleting.append(destination) }
                }
            }
        }
        // Deny, then nullify what remains.
        for id in deleting {
            guard let object = current(id), let entity = model.entity(named: object.entity) else { continue }
            let record = try object.record(in: model)
            for r in entity.relationships {
                let remaining = (try r.keys(record) ?? []).map { destinationID(r, $0) }.filter { !isDeleting.contains($0) && current($0) != nil }
                if remaining.isEmpty { continue }
                switch r.deleteRule {
                case .deny:
                    throw .deleteDenied(object: id, relationship: r.name, destinations: remaining)
                case .nullify:
                    guard let inverseName = r.inverseName else { continue }
                    for destination in remaining {
                        guard let holder = current(destination) else { continue }
                        put(destination, try changing(holder, inverseName) { inverse, record throws(ObjectGraphError) in try inverse.removing(record, id.key) })
                    }
                case .cascade, .noAction:
                    continue
                }
            }
        }
        for id in deleting { put(id, nil) }
    }
}
