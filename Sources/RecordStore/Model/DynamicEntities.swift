import Foundation
import Records

// Entities whose records are `DynamicObject`s — a model read at run time (a
// JSON file, a schema from elsewhere): each relationship is a field of the
// object holding the destination's identity (to-one) or an array of them
// (to-many), and destinations and parents are named, not typed.

extension Relationship where Source == DynamicObject {
    /// A relationship of dynamic objects to at most one object of the entity
    /// named `destination`, held in the field `name`: the destination's
    /// identity, or null (or no field) for none. Required (`optional: false`)
    /// means the save refuses it empty.
    ///
    /// ```swift
    /// .toOne("entry", to: "Entry", inverse: "media")
    /// ```
    public static func toOne(
        _ name: String, to destination: String, inverse: String? = nil,
        deleteRule: DeleteRule = .nullify, optional: Bool = true
    ) -> Relationship {
        Relationship(description: RelationshipDescription(
            name: name, destinationEntityName: destination, inverseName: inverse, deleteRule: deleteRule,
            isToMany: false, isOrdered: false, isOptional: optional, minCount: optional ? 0 : 1, maxCount: 1,
            destinationType: ObjectIdentifier(DynamicObject.self), destinationTypeName: destination,
            destinations: { record in
                guard let object = record as? DynamicObject else { return nil }
                return _dynamicKeys(object.fields[name], toMany: false).map(AnyHashable.init)
            },
            removing: { record, id in
                guard var object = record as? DynamicObject else { return nil }
                if let held = object.fields[name], AnyHashable(held) == id { object.fields[name] = .null }
                return object
            },
            adding: { record, id in
                guard var object = record as? DynamicObject, let key = _dynamicIdentity(id) else { return nil }
                object.fields[name] = key
                return object
            },
            deduplicating: { $0 }))
    }

    /// A relationship of dynamic objects to any number of objects of the
    /// entity named `destination`, held in the field `name`: an array of
    /// their identities (null, no field or `[]` for none; a single identity
    /// not in an array is read as one destination). `ordered` keeps the order
    /// you set; `minCount` and `maxCount` bound what a save accepts.
    ///
    /// ```swift
    /// .toMany("media", to: "Medium", inverse: "entry", deleteRule: .cascade)
    /// ```
    public static func toMany(
        _ name: String, to destination: String, inverse: String? = nil,
        deleteRule: DeleteRule = .nullify, ordered: Bool = false, optional: Bool = true,
        minCount: Int = 0, maxCount: Int? = nil
    ) -> Relationship {
        Relationship(description: RelationshipDescription(
            name: name, destinationEntityName: destination, inverseName: inverse, deleteRule: deleteRule,
            isToMany: true, isOrdered: ordered, isOptional: optional && minCount <= 0,
            minCount: max(minCount, optional ? 0 : 1), maxCount: maxCount,
            destinationType: ObjectIdentifier(DynamicObject.self), destinationTypeName: destination,
            destinations: { record in
                guard let object = record as? DynamicObject else { return nil }
                return _dynamicKeys(object.fields[name], toMany: true).map(AnyHashable.init)
            },
            removing: { record, id in
                guard var object = record as? DynamicObject else { return nil }
                let keys = _dynamicKeys(object.fields[name], toMany: true)
                if keys.contains(where: { AnyHashable($0) == id }) { object.fields[name] = .array(keys.filter { AnyHashable($0) != id }) }
                return object
            },
            adding: { record, id in
                guard var object = record as? DynamicObject, let key = _dynamicIdentity(id) else { return nil }
                let keys = _dynamicKeys(object.fields[name], toMany: true)
                if !keys.contains(key) { object.fields[name] = .array(keys + [key]) }
                return object
            },
            deduplicating: { record in
                guard var object = record as? DynamicObject else { return nil }
                var seen = Set<RecordValue>()
                object.fields[name] = .array(_dynamicKeys(object.fields[name], toMany: true).filter { seen.insert($0).inserted })
                return object
            }))
    }
}

extension EntityDescription {
    /// An entity of `DynamicObject` records named `name`, a sub-entity of
    /// the entity named `parent` if given, with relationships held in fields
    /// of the objects (see ``Relationship/toOne(_:to:inverse:deleteRule:optional:)``
    /// and ``Relationship/toMany(_:to:inverse:deleteRule:ordered:optional:minCount:maxCount:)``).
    /// Several entities of one model can be dynamic: name the entity when
    /// inserting (`context.insert(object, entity: "Medium")`).
    ///
    /// ```swift
    /// let model = try ObjectModel(
    ///     .entity(named: "Entry", relationships: [
    ///         .toMany("media", to: "Medium", inverse: "entry", deleteRule: .cascade),
    ///     ]),
    ///     .entity(named: "Medium", relationships: [
    ///         .toOne("entry", to: "Entry", inverse: "media"),
    ///     ]))
    /// ```
    ///
    /// A sub-entity declares again the relationships it inherits, as its
    /// parent does: the model checks that they agree.
    public static func entity(named name: String, parent: String? = nil, relationships: [Relationship<DynamicObject>] = []) -> EntityDescription {
        var entity = EntityDescription.entity(DynamicObject.self, name: name, relationships: relationships)
        entity.parentName = parent
        return entity
    }
}

/// The identities a dynamic relationship's field holds.
func _dynamicKeys(_ value: RecordValue?, toMany: Bool) -> [RecordValue] {
    switch value {
    case nil, .null?: return []
    case .array(let elements)? where toMany: return elements.filter { $0 != .null }
    case let value?: return [value]
    }
}

/// An identity, of any entity's type, as a field's value (nil when it
/// cannot be one: the change is then refused).
func _dynamicIdentity(_ id: AnyHashable) -> RecordValue? {
    if let value = id.base as? RecordValue { return value }
    if let convertible = id.base as? any RecordValueConvertible { return convertible.recordValue }
    if let encodable = id.base as? any Encodable { return try? RecordValueEncoder().encode(encodable) }
    return nil
}
