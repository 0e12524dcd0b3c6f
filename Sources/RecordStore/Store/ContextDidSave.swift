import Foundation
import Records

/// What one save changed, of every entity: posted as
/// `Notification.Name.objectContextDidSave`, delivered by
/// ``ObjectStore/didSaveNotifications()``, returned by
/// ``ObjectContext/save()``, and merged into other contexts with
/// ``ObjectContext/mergeChanges(fromContextDidSave:)-(ContextDidSave)``.
///
/// Read an entity's records typed (`saved.insertedObjects(DiaryEntry.self)`),
/// or every object erased (``insertedObjects``).
public struct ContextDidSave: Sendable {
    let model: ObjectModel
    /// Each entity's records, typed.
    let parts: [_AnyEntityPart]
    /// The store's version after the save.
    public var storeVersion: Int64
    /// The saving context's name, if it has one.
    public var contextName: String?
    /// Whether another store on the same file (or database) made the save,
    /// and this store picked it up.
    public var isExternal = false
    /// The conflicting records the saving context's merge-by-property policy
    /// saved whole, not merged property by property (see
    /// ``PropertyMergeFallback``); empty under the other policies and when
    /// every conflict merged.
    public var propertyMergeFallbacks: [PropertyMergeFallback] = []
    /// The first store version the save covers (the save covers
    /// `firstStoreVersion...storeVersion`; more than one when picked up from
    /// a compacted file, none when nothing was written).
    var firstStoreVersion: Int64

    init(model: ObjectModel, parts: [_AnyEntityPart], storeVersion: Int64, contextName: String?, isExternal: Bool = false, firstStoreVersion: Int64? = nil) {
        self.model = model
        self.parts = parts.filter { !$0.isEmpty }
        self.storeVersion = storeVersion
        self.contextName = contextName
        self.isExternal = isExternal
        self.firstStoreVersion = firstStoreVersion ?? storeVersion
    }

    /// Whether the save changed nothing.
    public var isEmpty: Bool { parts.isEmpty }

    /// The records of `R`'s entities the save inserted, as saved.
    public func insertedObjects<R: Record & Codable>(_ type: R.Type) -> [R] { parts.flatMap { $0.typed(R.self)?.inserted ?? [] } }
    /// The records of `R`'s entities the save updated, as saved (including
    /// those whose relationships the context changed to keep inverses, and
    /// nullified by deletes).
    public func updatedObjects<R: Record & Codable>(_ type: R.Type) -> [R] { parts.flatMap { $0.typed(R.self)?.updated ?? [] } }
    /// The records of `R`'s entities the save deleted, as they were
    /// (including cascaded deletes).
    public func deletedObjects<R: Record & Codable>(_ type: R.Type) -> [R] { parts.flatMap { $0.typed(R.self)?.deleted ?? [] } }

    /// The objects inserted, of every entity, as saved.
    public var insertedObjects: [ManagedObject] { objects { $0.insertedErased() } }
    /// The objects updated, of every entity, as saved.
    public var updatedObjects: [ManagedObject] { objects { $0.updatedErased() } }
    /// The objects deleted, of every entity, as they were.
    public var deletedObjects: [ManagedObject] { objects { $0.deletedErased() } }

    /// The identities inserted, updated and deleted.
    public var insertedIDs: [ObjectID] { ids { $0.insertedIDs() } }
    public var updatedIDs: [ObjectID] { ids { $0.updatedIDs() } }
    public var deletedIDs: [ObjectID] { ids { $0.deletedIDs() } }

    private func objects(_ records: (_AnyEntityPart) -> [any Record & Codable]) -> [ManagedObject] {
        parts.flatMap { part in
            records(part).map { record in
                let id = model.entities[part.entity].kind.id(of: record) ?? AnyHashable(0)
                return ManagedObject(entityName: model.entities[part.entity].name, id: model.objectID(part.entity, id), record: record)
            }
        }
    }

    private func ids(_ ids: (_AnyEntityPart) -> [AnyHashable]) -> [ObjectID] {
        parts.flatMap { part in ids(part).map { model.objectID(part.entity, $0) } }
    }

    /// The notification's `userInfo`.
    var userInfo: [AnyHashable: Any] {
        [
            _ContextKeys.inserted: insertedIDs.map(AnyHashable.init),
            _ContextKeys.updated: updatedIDs.map(AnyHashable.init),
            _ContextKeys.deleted: deletedIDs.map(AnyHashable.init),
            _ContextKeys.changes: self,
        ]
    }
}

/// The `userInfo` keys of the context's notifications.
enum _ContextKeys {
    static let inserted = "inserted"
    static let updated = "updated"
    static let deleted = "deleted"
    static let changes = "changes"
}
