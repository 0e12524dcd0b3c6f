import Foundation
import Records

/// One store of several entities: the objects of an ``ObjectModel``, in
/// memory and in one journal file, shared by any number of
/// ``ObjectGraphContext``s — Core Data's persistent store coordinator with
/// its store, for a model of many entities.
///
/// ```swift
/// let store = try ObjectGraphStore(model: model, fileURL: url)   // or ObjectGraphStore(model: model)
/// let context = ObjectGraphContext(store: store)
/// try context.insert(DiaryEntry(id: 1, text: "Fog"))
/// try context.insert(Medium(id: 10, type: "image", diaryEntry: 1))   // entry 1's media now hold 10
/// try context.save()
/// ```
///
/// It is an ``ObjectStore`` underneath, whose records are the graph's
/// objects (each with its entity): a save of any number of entities is one
/// save — one journal record, atomic, durable when it returns — and the file
/// format, journal, sharing between processes and merge policies are the
/// store's (<doc:StoreFileFormat>). Opening a file reads every object back
/// through the model and checks every relationship: a reference to a missing
/// object, or two sides of a pair that disagree, is an error naming them.
/// See <doc:ObjectGraph>.
public final class ObjectGraphStore: Sendable {
    /// The model of the store's objects.
    public let model: ObjectModel
    /// The store of the objects.
    let base: ObjectStore<_GraphObject>

    /// A store in memory.
    public init(model: ObjectModel) {
        self.model = model
        base = ObjectStore()
    }

    /// The store in the journal file at `fileURL`: read and checked if it
    /// exists, created otherwise.
    ///
    /// - Throws: ``ObjectGraphError/store(_:)`` when the file cannot be read
    ///   or is damaged; ``ObjectGraphError/unknownEntity(_:)``,
    ///   ``ObjectGraphError/undecodable(object:entity:reason:)``,
    ///   ``ObjectGraphError/danglingReference(object:relationship:destination:)``
    ///   or ``ObjectGraphError/inverseMismatch(object:relationship:destination:)``
    ///   when an object in it does not fit the model. The file is not changed.
    /// - Complexity: O(*n* + *r*) for *n* objects and *r* references.
    public convenience init(model: ObjectModel, fileURL: URL) throws(ObjectGraphError) {
        let base: ObjectStore<_GraphObject>
        do { base = try ObjectStore<_GraphObject>(fileURL: fileURL) } catch { throw .store(error) }
        try self.init(model: model, base: base)
    }

    /// A store kept by `persistence` (of the graph's own records: see
    /// ``ObjectGraphStore/init(model:fileURL:)``), checked as a file is.
    init(model: ObjectModel, base: ObjectStore<_GraphObject>) throws(ObjectGraphError) {
        self.model = model
        self.base = base
        try readThroughModel()
        try checkReferences()
    }

    /// The store's file, if it has one.
    public var fileURL: URL? { base.fileURL }
    /// The number of objects, of every entity.
    public var count: Int { base.count }
    /// The version of the last save.
    public var version: Int64 { base.version }

    /// The object with an identity, as last saved.
    public func object(withID id: ObjectID) throws(ObjectGraphError) -> GraphObject? {
        guard let stored = base.object(withID: id) else { return nil }
        return GraphObject(entityName: stored.entity, id: id, record: try stored.record(in: model))
    }

    /// Every saved object of an entity (and its sub-entities' unless
    /// `includesSubentities` is false), in the order they were first inserted.
    ///
    /// - Complexity: O(*n* log *n*) for *n* objects of every entity.
    public func objects(ofEntity name: String, includesSubentities: Bool = true) throws(ObjectGraphError) -> [GraphObject] {
        guard model.entity(named: name) != nil else { throw .unknownEntity(name) }
        let names = Set(includesSubentities ? model.entityNames(including: name) : [name])
        var result: [GraphObject] = []
        for stored in base.allObjects() where names.contains(stored.entity) {
            result.append(GraphObject(entityName: stored.entity, id: stored.id, record: try stored.record(in: model)))
        }
        return result
    }

    /// A sequence of every save into this store, from any context, naming
    /// each object's entity.
    public func didSaveNotifications() -> AsyncStream<GraphDidSave> {
        let model = model
        let (stream, continuation) = AsyncStream<GraphDidSave>.makeStream(bufferingPolicy: .unbounded)
        let saves = base.didSaveNotifications()   // subscribed now: no save between this call and the task is missed
        let task = Task {
            var iterator = saves.makeAsyncIterator()
            while let saved = await iterator.next() {   // next(): next(isolation:) needs macOS 15
                continuation.yield(GraphDidSave(saved, model: model))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Picks up what other stores on the same file saved since this one last
    /// read it (see ``ObjectStore/mergeExternalChanges()``).
    @discardableResult
    public func mergeExternalChanges() throws(ObjectGraphError) -> [GraphDidSave] {
        do { return try base.mergeExternalChanges().map { GraphDidSave($0, model: model) } } catch { throw .store(error) }
    }

    /// Rewrites the file in its most compact form.
    public func compact() throws(ObjectGraphError) {
        do { try base.compact() } catch { throw .store(error) }
    }

    // MARK: Opening

    /// Reads every object that is still bytes through the model, in place
    /// (their versions and order unchanged).
    private func readThroughModel() throws(ObjectGraphError) {
        let model = model
        let result: Result<Void, ObjectGraphError> = base.state.withLock { state in
            for k in state.records.indices {
                guard case .bytes = state.records[k].payload else { continue }
                let stored = state.records[k]
                guard let entity = model.entity(named: stored.entity) else { return .failure(.unknownEntity(stored.entity)) }
                guard model.root(of: entity.name) == stored.id.rootEntityName else {
                    return .failure(.undecodable(object: stored.id, entity: entity.name, reason: "its identity is of \(stored.id.rootEntityName), not of \(entity.name)'s hierarchy"))
                }
                do throws(ObjectGraphError) {
                    state.records[k].payload = .typed(try stored.record(in: model))
                } catch {
                    return .failure(error)
                }
            }
            return .success(())
        }
        try result.get()
    }

    /// Every relationship of every object refers to an existing object of its
    /// destination, and the inverse of each holds the object back.
    private func checkReferences() throws(ObjectGraphError) {
        let model = model
        let result: Result<Void, ObjectGraphError> = base.state.withLock { state in
            let records = state.records
            func find(_ id: ObjectID) -> _GraphObject? { state.position(of: id).map { records[$0] } }
            for object in records {
                guard let entity = model.entity(named: object.entity), case .typed(let record) = object.payload else { continue }
                for r in entity.relationships {
                    let keys: [RecordValue]
                    do throws(ObjectGraphError) { keys = try r.keys(record) ?? [] } catch { return .failure(error) }
                    for key in keys {
                        let destinationID = ObjectID(rootEntityName: model.root(of: r.destinationEntityName), key: key)
                        guard let destination = find(destinationID), model.entity(destination.entity, isKindOf: r.destinationEntityName),
                            case .typed(let destinationRecord) = destination.payload
                        else {
                            return .failure(.danglingReference(object: object.id, relationship: r.name, destination: destinationID))
                        }
                        guard let inverseName = r.inverseName else { continue }
                        let inverse = model.entity(named: destination.entity)?.relationship(named: inverseName)
                        let back: [RecordValue]?
                        do throws(ObjectGraphError) { back = try inverse?.keys(destinationRecord) } catch { return .failure(error) }
                        guard let back, back.contains(object.id.key) else {
                            return .failure(.inverseMismatch(object: object.id, relationship: r.name, destination: destinationID))
                        }
                    }
                }
            }
            return .success(())
        }
        try result.get()
    }
}

/// What one save changed, naming each object's entity: delivered by
/// ``ObjectGraphStore/didSaveNotifications()`` and returned by
/// ``ObjectGraphContext/save()``; merge it into another context with
/// ``ObjectGraphContext/mergeChanges(fromContextDidSave:)``.
public struct GraphDidSave: Sendable {
    /// The objects inserted, as saved.
    public var insertedObjects: [GraphObject]
    /// The objects updated, as saved (including those whose relationships
    /// the context changed to keep inverses, and nullified by deletes).
    public var updatedObjects: [GraphObject]
    /// The objects deleted, as they were (including cascaded deletes).
    public var deletedObjects: [GraphObject]
    /// The store's version after the save.
    public var storeVersion: Int64
    /// The saving context's name.
    public var contextName: String?
    /// Whether another store on the same file made the save.
    public var isExternal: Bool
    /// The objects of the save that this model cannot read — saved by a store
    /// of the same file with another model (an entity this one does not
    /// declare, a record of another shape) — each an error naming the object:
    /// they are in none of the lists above. Always empty for a save made with
    /// this model.
    public var undecodableObjects: [ObjectGraphError]
    /// The save as the store made it.
    let base: ContextDidSave<_GraphObject>

    init(_ saved: ContextDidSave<_GraphObject>, model: ObjectModel) {
        var undecodable: [ObjectGraphError] = []
        func objects(_ stored: [_GraphObject]) -> [GraphObject] {
            stored.compactMap { object in
                do throws(ObjectGraphError) {
                    return GraphObject(entityName: object.entity, id: object.id, record: try object.record(in: model))
                } catch {
                    undecodable.append(error)
                    return nil
                }
            }
        }
        insertedObjects = objects(saved.insertedObjects)
        updatedObjects = objects(saved.updatedObjects)
        deletedObjects = objects(saved.deletedObjects)
        undecodableObjects = undecodable
        storeVersion = saved.storeVersion
        contextName = saved.contextName
        isExternal = saved.isExternal
        base = saved
    }

    /// The identities inserted, updated and deleted, by entity name.
    public var changedIDsByEntity: [String: (inserted: [ObjectID], updated: [ObjectID], deleted: [ObjectID])] {
        var result: [String: (inserted: [ObjectID], updated: [ObjectID], deleted: [ObjectID])] = [:]
        for object in insertedObjects { result[object.entityName, default: ([], [], [])].inserted.append(object.id) }
        for object in updatedObjects { result[object.entityName, default: ([], [], [])].updated.append(object.id) }
        for object in deletedObjects { result[object.entityName, default: ([], [], [])].deleted.append(object.id) }
        return result
    }
}
