import Foundation
import Records

// Relationships in a context: every change of an entity that has
// relationships (or is the destination of one) is made aside as an edit —
// the object's new record, the inverses it moves, the objects a delete rule
// reaches — checked whole, then applied to each entity's pending changes.
// Records stay typed in their entities; here they are handled erased, as
// the relationships' accessors take them.

/// The changes of one operation, made aside and checked before any reaches
/// the context: each object's new record, or nil for a delete.
struct _GraphEdit {
    let context: ObjectContext
    var changes: [_Ref: (entity: Int, record: (any Record & Codable)?)] = [:]
    var order: [_Ref] = []
    var model: ObjectModel { context.model }

    init(context: ObjectContext) { self.context = context }

    /// An object as the edit sees it.
    func current(_ ref: _Ref) -> (entity: Int, record: any Record & Codable)? {
        if let change = changes[ref] { return change.record.map { (change.entity, $0) } }
        return context.peek(ref)
    }

    mutating func put(_ ref: _Ref, _ entity: Int, _ record: (any Record & Codable)?) {
        if changes.updateValue((entity, record), forKey: ref) == nil { order.append(ref) }
    }

    /// The entity index of a relationship's destination.
    func destination(_ r: RelationshipDescription) -> Int { model.byName[r.destinationEntityName] ?? 0 }

    /// The reference of a destination of a relationship.
    func ref(_ r: RelationshipDescription, _ id: AnyHashable) -> _Ref { _Ref(family: model.roots[destination(r)], id: id) }

    /// An object's record with `relationship` changed by `change`.
    func changing(
        _ entity: Int, _ record: any Record & Codable, _ relationship: String,
        _ change: (RelationshipDescription, any Record & Codable) -> (any Record & Codable)?
    ) throws(ContextError) -> any Record & Codable {
        guard let r = model.entities[entity].relationship(named: relationship) else { throw .unknownEntity("\(model.entities[entity].name).\(relationship)") }
        guard let changed = change(r, record) else {
            throw .unknownEntity("\(model.entities[entity].name) (a record of another type, or an identity not of \(r.destinationEntityName)'s type, in \(relationship))")
        }
        return changed
    }

    /// Sets an object of entity `k` to a new record and keeps the inverses of
    /// its relationships that changed.
    mutating func set(_ k: Int, _ given: any Record & Codable, old: (any Record & Codable)?) throws(ContextError) {
        let entity = model.entities[k]
        guard let selfID = entity.kind.id(of: given) else { throw .unknownEntity(entity.name) }
        let selfRef = _Ref(family: model.roots[k], id: selfID)
        // Each destination once in a to-many relationship.
        var record = given
        for r in entity.relationships where r.isToMany {
            let ids = r.destinations(record) ?? []
            if Set(ids).count != ids.count, let deduplicated = r.deduplicating(record) { record = deduplicated }
        }
        put(selfRef, k, record)
        for r in entity.relationships {
            let d = destination(r)
            let newIDs = r.destinations(record) ?? []
            let oldIDs = old.flatMap { r.destinations($0) } ?? []
            let added = newIDs.filter { !oldIDs.contains($0) }
            let removed = oldIDs.filter { !newIDs.contains($0) }
            // Every destination added exists and is of the destination entity.
            for id in added {
                guard let found = current(ref(r, id)), model.families[d].contains(found.entity) else {
                    throw .danglingReference(object: model.objectID(k, selfID), relationship: r.name, destination: model.objectID(d, id))
                }
            }
            guard let inverseName = r.inverseName else { continue }
            for id in removed {
                let destinationRef = ref(r, id)
                guard let found = current(destinationRef) else { continue }   // already gone (a `noAction` delete)
                put(destinationRef, found.entity, try changing(found.entity, found.record, inverseName) { inverse, record in inverse.removing(record, selfID) })
            }
            for id in added {
                let destinationRef = ref(r, id)
                guard let found = current(destinationRef) else { continue }
                guard let inverse = model.entities[found.entity].relationship(named: inverseName) else { continue }
                if !inverse.isToMany {
                    // A to-one inverse moves: the object it held loses the destination.
                    for previous in inverse.destinations(found.record) ?? [] where previous != selfID {
                        let previousRef = _Ref(family: model.roots[k], id: previous)
                        guard let held = current(previousRef) else { continue }
                        put(previousRef, held.entity, try changing(held.entity, held.record, r.name) { own, record in own.removing(record, id) })
                    }
                }
                guard let latest = current(destinationRef) else { continue }
                put(destinationRef, latest.entity, try changing(latest.entity, latest.record, inverseName) { inverse, record in inverse.adding(record, selfID) })
            }
        }
    }

    /// Deletes an object and applies the delete rules.
    mutating func delete(_ root: _Ref) throws(ContextError) {
        // The objects deleted: the object and what cascades from it.
        var deleting: [_Ref] = [root]
        var isDeleting: Set<_Ref> = [root]
        var next = 0
        while next < deleting.count {
            let ref = deleting[next]
            next += 1
            guard let found = current(ref) else { continue }
            for r in model.entities[found.entity].relationships where r.deleteRule == .cascade {
                for id in r.destinations(found.record) ?? [] {
                    let destination = self.ref(r, id)
                    if current(destination) != nil, isDeleting.insert(destination).inserted { deleting.append(destination) }
                }
            }
        }
        // Deny, then nullify what remains.
        var entities: [_Ref: Int] = [:]
        for ref in deleting {
            guard let found = current(ref) else { continue }
            entities[ref] = found.entity
            for r in model.entities[found.entity].relationships {
                let remaining = (r.destinations(found.record) ?? []).filter { id in
                    let destination = self.ref(r, id)
                    return !isDeleting.contains(destination) && current(destination) != nil
                }
                if remaining.isEmpty { continue }
                switch r.deleteRule {
                case .deny:
                    throw .deleteDenied(
                        object: model.objectID(found.entity, ref.id), relationship: r.name,
                        destinations: remaining.map { model.objectID(destination(r), $0) })
                case .nullify:
                    guard let inverseName = r.inverseName else { continue }
                    for id in remaining {
                        let destination = self.ref(r, id)
                        guard let holder = current(destination) else { continue }
                        put(destination, holder.entity, try changing(holder.entity, holder.record, inverseName) { inverse, record in inverse.removing(record, ref.id) })
                    }
                case .cascade, .noAction:
                    continue
                }
            }
        }
        for ref in deleting { if let entity = entities[ref] { put(ref, entity, nil) } }
    }
}

extension ObjectContext {
    // MARK: Saving

    /// The model's rules on every object inserted or updated, and no
    /// reference left to a deleted one.
    ///
    /// - Throws: ``StoreError/validation(_:)``,
    ///   ``StoreError/danglingReference(object:relationship:destination:)``,
    ///   ``StoreError/inverseMismatch(object:relationship:destination:)``
    ///   (the two sides of a pair disagree: what the context never lets
    ///   happen, checked before anything is written).
    /// - Complexity: O(*c* · *r*) for *c* changed objects of *r* references
    ///   each; O(*n*) more when an object is deleted that a relationship
    ///   without an inverse may point to.
    func validate() throws(StoreError) {
        var failures: [ValidationFailure] = []
        var changedRefs = Set<_Ref>()
        for pending in entities where pending.hasChanges {
            let k = pending.entity
            let entity = model.entities[k]
            for (id, record) in pending.changedRecords() {
                changedRefs.insert(_Ref(family: model.roots[k], id: id))
                for r in entity.relationships {
                    let ids = r.destinations(record) ?? []
                    let objectID = model.objectID(k, id)
                    if ids.isEmpty && !r.isOptional {
                        failures.append(ValidationFailure(code: .missingMandatoryProperty, object: objectID, key: r.name))
                    } else if r.isToMany && ids.count < r.minCount {
                        failures.append(ValidationFailure(code: .relationshipLacksMinimumCount, object: objectID, key: r.name))
                    } else if r.isToMany, let max = r.maxCount, ids.count > max {
                        failures.append(ValidationFailure(code: .relationshipExceedsMaximumCount, object: objectID, key: r.name))
                    }
                    let d = model.byName[r.destinationEntityName] ?? 0
                    for destination in ids {
                        guard let found = peek(_Ref(family: model.roots[d], id: destination)), model.families[d].contains(found.entity) else {
                            throw .danglingReference(object: objectID, relationship: r.name, destination: model.objectID(d, destination))
                        }
                        // Both sides agree: what the context keeps at every change, checked before it is written.
                        if let inverseName = r.inverseName,
                            let inverse = model.entities[found.entity].relationship(named: inverseName),
                            !(inverse.destinations(found.record) ?? []).contains(id)
                        {
                            throw .inverseMismatch(object: objectID, relationship: r.name, destination: model.objectID(d, destination))
                        }
                    }
                    // A destination it no longer holds does not hold it either.
                    guard let inverseName = r.inverseName, let stored = store.state.withLock({ $0.tables[k].erasedRecord(id) }) else { continue }
                    for destination in r.destinations(stored) ?? [] where !ids.contains(destination) {
                        guard let found = peek(_Ref(family: model.roots[d], id: destination)),
                            let inverse = model.entities[found.entity].relationship(named: inverseName),
                            (inverse.destinations(found.record) ?? []).contains(id)
                        else { continue }
                        throw .inverseMismatch(object: model.objectID(found.entity, destination), relationship: inverseName, destination: objectID)
                    }
                }
            }
        }
        // References to deleted objects from objects this save does not change.
        var deletedRefs = Set<_Ref>()
        var deletedEntities = Set<Int>()
        for pending in entities {
            for id in pending.deletedIDs() {
                deletedRefs.insert(_Ref(family: model.roots[pending.entity], id: id))
                deletedEntities.insert(pending.entity)
            }
        }
        if !deletedRefs.isEmpty {
            for pending in entities {
                let k = pending.entity
                for id in pending.deletedIDs() {
                    guard let stored = store.state.withLock({ $0.tables[k].erasedRecord(id) }) else { continue }
                    for r in model.entities[k].relationships {
                        guard let inverseName = r.inverseName else { continue }
                        let d = model.byName[r.destinationEntityName] ?? 0
                        for destination in r.destinations(stored) ?? [] {
                            let other = _Ref(family: model.roots[d], id: destination)
                            guard !changedRefs.contains(other), let holder = peek(other),
                                let inverse = model.entities[holder.entity].relationship(named: inverseName)
                            else { continue }
                            if (inverse.destinations(holder.record) ?? []).contains(id) {
                                throw .danglingReference(object: model.objectID(holder.entity, destination), relationship: inverseName, destination: model.objectID(k, id))
                            }
                        }
                    }
                }
            }
            // Relationships without an inverse that may point to a deleted object: a scan.
            for (k, entity) in model.entities.enumerated() {
                let oneWay = entity.relationships.filter { r in
                    guard r.inverseName == nil, let d = model.byName[r.destinationEntityName] else { return false }
                    return deletedEntities.contains { model.families[d].contains($0) }
                }
                guard !oneWay.isEmpty else { continue }
                var found: StoreError?
                do {
                    try entities[k].forEachErased(in: self) { record in
                        guard found == nil, let id = entity.kind.id(of: record), !changedRefs.contains(_Ref(family: model.roots[k], id: id)) else { return }
                        for r in oneWay {
                            let d = model.byName[r.destinationEntityName] ?? 0
                            for destination in r.destinations(record) ?? [] where deletedRefs.contains(_Ref(family: model.roots[d], id: destination)) {
                                found = .danglingReference(object: model.objectID(k, id), relationship: r.name, destination: model.objectID(d, destination))
                                return
                            }
                        }
                    }
                } catch {
                    throw error as? StoreError ?? .corrupt(path: "the store", reason: "\(error)")
                }
                if let found { throw found }
            }
        }
        if !failures.isEmpty { throw .validation(failures) }
    }

    // MARK: Merging

    // The per-entity merge merges records property by property (this
    // context's changes win); for relationships that would break inverses —
    // an entry this context moved a medium out of, into which the save added
    // another medium, would lose the other one while it names the entry. So,
    // for each object both changed: the save's relationships with this
    // context's additions and removals on top, then the inverses of what
    // that changes, as `_GraphEdit.set` keeps them for any update.

    /// This context's pending updates of related objects `saved` also
    /// updated, with what the context read of each (nil when unknown).
    func pendingRelationshipChanges(alsoIn saved: ContextDidSave) -> [(entity: Int, ref: _Ref, read: (any Record & Codable)?)] {
        var result: [(entity: Int, ref: _Ref, read: (any Record & Codable)?)] = []
        for part in saved.parts where part.entity < entities.count && !model.entities[part.entity].relationships.isEmpty {
            let touched = Set(part.updatedIDs())
            for id in entities[part.entity].updatedIDs().sorted(by: { "\($0)" < "\($1)" }) where touched.contains(id) {
                result.append((part.entity, _Ref(family: model.roots[part.entity], id: id), entities[part.entity].readRecord(id)))
            }
        }
        return result
    }

    /// After the per-entity merge: each object of `changed` gets the merged
    /// relationships, and the objects on their other side follow.
    func mergeRelationships(of changed: [(entity: Int, ref: _Ref, read: (any Record & Codable)?)]) -> [PropertyMergeFallback] {
        var fallbacks: [PropertyMergeFallback] = []
        var edit = _GraphEdit(context: self)
        for (k, ref, read) in changed {
            var trial = edit
            do throws(ContextError) {
                // Gone (the save deleted it), or not this context's change any more.
                guard let saved = store.state.withLock({ $0.tables[k].erasedRecord(ref.id) }), let current = trial.current(ref) else { continue }
                let merged = mergedRelationships(k, current.record, saved: saved, read: read, edit: trial)
                try trial.set(k, merged, old: saved)
                edit = trial
            } catch {
                fallbacks.append(PropertyMergeFallback(objectID: "\(model.objectID(k, ref.id))", reason: .relationshipsNotMerged(error.description), keptContextRecord: true))
            }
        }
        commit(edit)
        return fallbacks
    }

    /// `current` (this context's version of an object) with each
    /// relationship as `saved` has it, less what this context removed since
    /// it read `read`, plus what it added, less what no longer exists; a
    /// to-one relationship this context set keeps its value, so a to-many
    /// relationship whose inverse is to-one holds only the destinations
    /// whose inverse (as the edit has it) holds the object. Without `read`,
    /// `current` whole.
    private func mergedRelationships(
        _ k: Int, _ current: any Record & Codable, saved: any Record & Codable, read: (any Record & Codable)?, edit: _GraphEdit
    ) -> any Record & Codable {
        guard let read, let selfID = model.entities[k].kind.id(of: current) else { return current }
        var record = current
        for r in model.entities[k].relationships {
            let savedIDs = r.destinations(saved) ?? [], readIDs = r.destinations(read) ?? []
            let mine = r.destinations(record) ?? []
            let added = mine.filter { !readIDs.contains($0) }, removed = readIDs.filter { !mine.contains($0) }
            if !r.isToMany && !(added.isEmpty && removed.isEmpty) { continue }
            // Less the destinations the save deleted, and those whose to-one
            // inverse holds another object: that side decides (this context's
            // choice when it set it, merged before this one or as this
            // context's change of the property), else the save would be
            // merged back into a to-many relationship the object has left.
            let target = (savedIDs.filter { !removed.contains($0) } + added.filter { !savedIDs.contains($0) })
                .filter { id in
                    guard let found = edit.current(edit.ref(r, id)) else { return false }
                    guard r.isToMany, let inverseName = r.inverseName,
                        let inverse = model.entities[found.entity].relationship(named: inverseName), !inverse.isToMany
                    else { return true }
                    return inverse.destinations(found.record) == [selfID]
                }
            for id in mine where !target.contains(id) { record = r.removing(record, id) ?? record }
            for id in target where !(r.destinations(record) ?? []).contains(id) { record = r.adding(record, id) ?? record }
        }
        return record
    }
}
