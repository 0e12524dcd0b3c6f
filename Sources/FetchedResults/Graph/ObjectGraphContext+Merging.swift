import Foundation
import Records

// Merging another context's save into a context with changes of its own.
// The store's context merges whole records (this context's version of an
// object wins); for a graph that would break inverses — a note this context
// moved out of a folder, into which the save added another note, would leave
// the folder without the other note while that note names the folder. So,
// for each object both changed: the save's relationships with this
// context's additions and removals on top, then the inverses of what that
// changes, as `_GraphEdit.set` keeps them for any update.

extension ObjectGraphContext {
    /// This context's pending updates of objects `saved` also changed, with
    /// what the context read of each (nil when unknown), in first-insertion
    /// order.
    func pendingChanges(alsoIn saved: ContextDidSave<_GraphObject>) -> [(mine: _GraphObject, read: _GraphObject?)] {
        let touched = Set(saved.updatedObjects.map(\.id))
        return base.pending.updated.values
            .filter { touched.contains($0.id) }
            .map { (mine: $0, read: base.pending.bases[$0.id]?.record) }
            .sorted { (base.sequence(of: $0.mine.id) ?? .max, "\($0.mine.id)") < (base.sequence(of: $1.mine.id) ?? .max, "\($1.mine.id)") }
    }

    /// After the store's merge: each object of `changed` gets the merged
    /// relationships, and the objects on their other side follow.
    func mergeRelationships(of changed: [(mine: _GraphObject, read: _GraphObject?)]) -> [ObjectGraphError] {
        guard !changed.isEmpty else { return [] }
        var errors: [ObjectGraphError] = []
        var edit = _GraphEdit(context: self)
        for (mine, read) in changed {
            var trial = edit
            do throws(ObjectGraphError) {
                // Gone (the save deleted it), or not this context's change any more.
                guard let saved = store.base.object(withID: mine.id), let current = trial.current(mine.id) else { continue }
                let merged = try mergedRelationships(current, saved: saved, read: read, edit: trial)
                try trial.set(merged, old: saved)
                edit = trial
            } catch {
                errors.append(error)
            }
        }
        do throws(ObjectGraphError) {
            try commit(edit)
        } catch {
            errors.append(error)
        }
        return errors
    }

    /// `current` (this context's version of an object) with each
    /// relationship as `saved` has it, less what this context removed since
    /// it read `read`, plus what it added, less what no longer exists; a
    /// to-one relationship this context set keeps its value. Without
    /// `read`, `current` whole.
    private func mergedRelationships(
        _ current: _GraphObject, saved: _GraphObject, read: _GraphObject?, edit: _GraphEdit
    ) throws(ObjectGraphError) -> _GraphObject {
        guard let read, let entity = model.entity(named: current.entity) else { return current }
        var record = try current.record(in: model)
        let savedRecord = try saved.record(in: model), readRecord = try read.record(in: model)
        for r in entity.relationships {
            let savedKeys = try r.keys(savedRecord) ?? [], readKeys = try r.keys(readRecord) ?? []
            let mineKeys = try r.keys(record) ?? []
            let added = mineKeys.filter { !readKeys.contains($0) }, removed = readKeys.filter { !mineKeys.contains($0) }
            if !r.isToMany && !(added.isEmpty && removed.isEmpty) { continue }
            // Less the destinations the save deleted.
            let target = (savedKeys.filter { !removed.contains($0) } + added.filter { !savedKeys.contains($0) })
                .filter { edit.current(edit.destinationID(r, $0)) != nil }
            for key in mineKeys where !target.contains(key) {
                guard let changed = try r.removing(record, key) else { throw .undecodable(object: current.id, entity: current.entity, reason: "its record is not of the entity's type") }
                record = changed
            }
            for key in target {
                if try (r.keys(record) ?? []).contains(key) { continue }
                guard let destination = edit.current(edit.destinationID(r, key)), let destinationEntity = model.entity(named: destination.entity),
                    let typed = try destinationEntity.key(try destination.record(in: model))?.id
                else { continue }
                guard let changed = try r.adding(record, typed) else { throw .undecodable(object: current.id, entity: current.entity, reason: "its record is not of the entity's type") }
                record = changed
            }
        }
        var merged = current
        merged.payload = .typed(record)
        return merged
    }
}
