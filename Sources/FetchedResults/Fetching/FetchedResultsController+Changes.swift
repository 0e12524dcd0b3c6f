import Foundation
import PredicateFormat
import RecordStore
import Records
import TableDiff

// Following the context: each change in phases — what each identity was and
// is, the order updated, the sections deleted and inserted, the objects
// classified — then the report to the delegate and the observers.

extension FetchedResultsController {
    /// Updates the results for the records with these identities, and reports
    /// the change. O(*k* log *n* + *c* + *s*) for *k* identities, *c* = *n* / 512
    /// chunks and *s* sections. A request with an offset or a limit refetches
    /// (its window moves with every change): O(*n* log *n*).
    ///
    /// A change the controller cannot follow — its predicate fails on a
    /// changed record, where `performFetch()` would throw — changes nothing:
    /// the results stay as they were, as after a failed fetch, and the error
    /// goes to ``lastError`` and to every receiver (`didFail(_:)`).
    func contextDidChange(_ contextChange: _ContextChange) {
        guard let compiled = results.compiled, !receivers.isEmpty || !changeStreams.isEmpty else { return }
        guard let typed = self.typedChange(contextChange, compiled: compiled) else { return }
        let changes: [_Change<R>]
        var placementUnknown = false
        do throws(FetchError) {
            changes = try self.changes(of: typed, compiled: compiled, placementUnknown: &placementUnknown)
        } catch {
            didFail(error)
            return
        }
        let before = deliversWholeChanges ? tableSections : []
        // With an offset or a limit, any change may move the window; in a
        // lean order, a changed object whose place is no longer known.
        if compiled.request.fetchOffset > 0 || compiled.request.fetchLimit != nil || placementUnknown {
            refetchAndReport(changes, before: before)
            return
        }
        guard !changes.isEmpty else { return }
        // The sections the changed objects were in, read before they change.
        let oldSections = _SectionsBefore(results.sectionList, at: changes.lazy.compactMap { $0.old?.path.section })
        let steps = apply(changes, compiled: compiled)
        let (deletedSections, insertedSections) = sectionsDeletedAndInserted(from: oldSections, undoing: steps, by: changes)
        let objects = changes.compactMap { change -> _ObjectPaths<R>? in
            guard let record = change.record else { return nil }
            var new: TablePath?
            if let element = change.new {
                guard let position = results.ordered.position(of: element.id) else { return nil }
                new = path(ofPosition: position)
            }
            return _ObjectPaths(record: record, old: change.old?.path, new: new, changedKeys: change.changedKeys)
        }
        report(
            _ChangeReport(
                deletedSections: deletedSections, insertedSections: insertedSections,
                objects: objects, oldSections: oldSections, newSections: results.sectionList),
            before: before)
    }

    /// Phase 1: what each identity was (its element and index path in the
    /// results) and is (its element, when its record matches), with its
    /// record — the one now, or the last one seen when it left. Identities
    /// neither in the results before nor after are left out. Reads only:
    /// the results are not touched before every change is known.
    ///
    /// - Throws: ``FetchError/predicateFailed(_:)`` (or
    ///   ``FetchError/predicateThrew(_:)``) when the predicate fails on a
    ///   changed record, as `performFetch()` would.
    /// - Complexity: O(*k* log *n*) for *k* identities.
    func changes(of contextChange: _TypedChange<R>, compiled: _CompiledRequest<R>, placementUnknown: inout Bool) throws(FetchError) -> [_Change<R>] {
        var changes: [_Change<R>] = []
        results.ordered.takeMembersIfMade()
        // A lean order placed by records the store no longer knows (it was
        // handed a new snapshot since the fetch): fetched again.
        if let placement = results.ordered.placement, placement.epoch != context.store.state.withLock({ $0.historyEpoch }) { placementUnknown = true }
        let relationships = compiled.relationships
        var reads: [(R.ID, [_Ref])] = []
        for id in contextChange.ids {
            var change = _Change<R>()
            var oldRecord: R?
            if let position = position(of: id, removed: contextChange.removed[id], compiled: compiled) {
                if let element = results.ordered.element(at: position) {
                    change.old = _Change.Old(element: element, path: path(ofPosition: position))
                } else {
                    // A lean order no longer knows where it placed the object: refetch.
                    placementUnknown = true
                    change.old = _Change.Old(element: _Element(id: id, sequence: .max, sortValues: _SortValues(first: .null), sectionName: ""), path: path(ofPosition: position))
                }
                oldRecord = results.ordered.record(at: position)
            } else if let placement = results.ordered.placement, placement.forgot(id, sequence: access.sequence(of: id)) {
                // A lean order that cannot tell whether it holds the object:
                // refetch (the change kept, with its record, for the report).
                placementUnknown = true
            }
            if relationships != nil { relationships?.visits = [] }
            if let record = access.object(withID: id), try compiled.matches?(record) ?? true {
                let sequence = change.old?.element.sequence ?? access.sequence(of: id) ?? Int64.max
                change.new = compiled.element(record, sequence: sequence)
                change.record = record
                // The keys that changed: the record against the one it replaced
                // (kept here, else as the context showed it); not known for an
                // object that changed through an object it reads.
                if change.old != nil, !contextChange.throughRelationships.contains(id),
                    let replaced = oldRecord ?? contextChange.replaced(id)
                {
                    change.changedKeys = R._changedKeys(from: replaced, to: record)
                }
            } else {
                change.record = oldRecord ?? contextChange.removed[id] ?? access.object(withID: id) ?? access.storeObject(withID: id)
            }
            if let relationships {
                reads.append((id, relationships.visits ?? []))
                relationships.visits = nil
                if let failure = relationships.failure {
                    relationships.failure = nil
                    throw failure
                }
                // Changed only through an object it reads, and nothing it shows moved: not a change.
                if !contextChange.own.contains(id), let old = change.old?.element, let new = change.new,
                    compiled.compare(old.sortValues, 0, new.sortValues, 0) == 0, old.sectionName == new.sectionName
                {
                    continue
                }
            }
            // (A lean order to fetch again keeps every change's record for the report.)
            if change.old != nil || change.new != nil || placementUnknown { changes.append(change) }
        }
        // What the changed objects read now (kept only once every change is known).
        for (id, refs) in reads { reverse?.replaceReads(of: id, with: refs) }
        return changes
    }

    /// The change as this controller's entity sees it: its own objects that
    /// changed, and those whose key paths read an object that changed (any
    /// entity's); nil when none.
    func typedChange(_ change: _ContextChange, compiled: _CompiledRequest<R>) -> _TypedChange<R>? {
        var typed = _TypedChange<R>()
        for member in access.members {
            guard let part = change.part(member, R.self) else { continue }
            typed.ids += part.ids
            typed.removed.mergeKeepingFirst(part.removed)
            typed.parts.append(part)
        }
        typed.own = Set(typed.ids)
        if let reverse, !reverse.isEmpty {
            compiled.relationships?.invalidate()
            var added = typed.own
            for ref in change.refs(context.model) {
                for id in reverse.readers(of: ref) {
                    typed.throughRelationships.insert(id)
                    if added.insert(id).inserted { typed.ids.append(id) }
                }
            }
        }
        return typed.ids.isEmpty ? nil : typed
    }

    /// The position of an identity in the results. While the identity index
    /// is being made (right after a fetch), a record the change names — the
    /// one removed, or the store's — finds it by its sort values, without
    /// waiting for the index; otherwise (an identity the results may not
    /// hold: an insert) the index is taken, waiting for it if need be.
    ///
    /// - Complexity: O(log *n*), and O(*n*) the first time without the index
    ///   (the index made then, if it was not being made).
    func position(of id: R.ID, removed: R?, compiled: _CompiledRequest<R>) -> Int? {
        if results.ordered.isIndexingMembers, !results.ordered.isLean {
            let bySortValues = { (a: _Element<R>, b: _Element<R>) in compiled.compare(a.sortValues, 0, b.sortValues, 0) }
            for hint in [removed, access.storeObject(withID: id)] {
                guard let hint, hint.id == id else { continue }
                if let position = results.ordered.position(of: id, orderedAs: compiled.element(hint, sequence: 0), order: bySortValues) { return position }
            }
        }
        return results.ordered.position(of: id)
    }

    /// Phase 2: out with the old elements, in with the new, the sections
    /// following each; the batches read are dropped. Returns the steps the
    /// sections took (to undo them, for the sections before).
    ///
    /// - Complexity: O(*k* (log *n* + *s*)), the *s* a shift of integers.
    @discardableResult
    func apply(_ changes: [_Change<R>], compiled: _CompiledRequest<R>) -> [_SectionStep] {
        // With a section key path, the sections follow each object out and
        // in (`_RunList`), and the steps are kept; without, there is one.
        let following = sectionNameKeyPath != nil
        var steps: [_SectionStep] = []
        // While the identity index is being made, elements leave by their sort
        // values and sequence (the old element knows them): no waiting.
        let order = { (a: _Element<R>, b: _Element<R>) in compiled.compare(a.sortValues, a.sequence, b.sortValues, b.sequence) }
        for change in changes {
            guard let old = change.old,
                let removed = results.ordered.isIndexingMembers || results.ordered.isLean
                    ? results.ordered.remove(old.element, order: order) : results.ordered.remove(old.element.id)
            else { continue }
            for index in searchIndexes { index.remove(at: removed.position) }
            if following {
                results.sectionsRemove(at: removed.position)
                steps.append(_SectionStep(arrived: false, position: removed.position, name: removed.element.sectionName))
            }
        }
        let isBefore = { (a: _Element<R>, b: _Element<R>) in compiled.compare(a.sortValues, a.sequence, b.sortValues, b.sequence) < 0 }
        for change in changes {
            if let element = change.new, let record = change.record {
                let position = results.ordered.insert(element, record: record, isBefore: isBefore)
                for index in searchIndexes { index.insert(record, at: position) }
                if following {
                    results.sectionsInsert(element.sectionName, at: position)
                    steps.append(_SectionStep(arrived: true, position: position, name: element.sectionName))
                }
            }
        }
        results.batchCache.removeAll()
        if !following { rebuildSections() }
        return steps
    }

    /// A change of a request with an offset or a limit: fetch again, and report
    /// the changed records, and those the window let in or out.
    func refetchAndReport(_ changes: [_Change<R>], before: [TableSection<R>]) {
        let oldSections = results.sectionList
        var oldPaths: [R.ID: (path: TablePath, record: R?)] = [:]
        for position in 0..<results.ordered.count {
            oldPaths[results.ordered.id(at: position)] = (path(ofPosition: position), results.ordered.record(at: position))
        }
        do throws(FetchError) {
            try performFetch()
        } catch {
            didFail(error)
            return
        }
        var newPaths: [R.ID: TablePath] = [:]
        for position in 0..<results.ordered.count { newPaths[results.ordered.id(at: position)] = path(ofPosition: position) }
        let changedRecords = Dictionary(changes.compactMap { c in c.record.map { ($0.id, $0) } }, uniquingKeysWith: { a, _ in a })
        let changedKeys = Dictionary(changes.compactMap { c in c.record.flatMap { record in c.changedKeys.map { (record.id, $0) } } }, uniquingKeysWith: { a, _ in a })
        // The changed objects, and those the window let in or out (unchanged
        // objects that stay are not reported).
        var objects: [_ObjectPaths<R>] = []
        for (id, old) in oldPaths {
            let newPath = newPaths[id]
            let record = newPath == nil ? changedRecords[id] ?? old.record ?? access.object(withID: id) : changedRecords[id]
            if let record { objects.append(_ObjectPaths(record: record, old: old.path, new: newPath, changedKeys: changedKeys[id])) }
        }
        for (id, newPath) in newPaths where oldPaths[id] == nil {
            if let record = changedRecords[id] ?? access.object(withID: id) { objects.append(_ObjectPaths(record: record, old: nil, new: newPath, changedKeys: nil)) }
        }
        let (deletedSections, insertedSections) = Self.sectionsByName(from: oldSections, to: results.sectionList)
        let change = _ChangeReport(
            deletedSections: deletedSections, insertedSections: insertedSections,
            objects: objects, oldSections: _SectionsBefore(all: oldSections), newSections: results.sectionList)
        if change.isEmpty { return }
        report(change, before: before)
    }

    /// A change the controller could not follow: the results stay as they
    /// were (as after a failed `performFetch()`), ``lastError`` keeps the
    /// error until the next successful fetch, and the delegate and the
    /// observers are told
    /// (``FetchedResultsControllerDelegate/controller(_:didFailWith:)``).
    func didFail(_ error: FetchError) {
        results.lastError = error
        for receiver in receivers { receiver.controller(self, didFailWith: error) }
        yieldFailureToStreams(error)
    }

    /// Tells the delegate and the observers, in Core Data's order.
    func report(_ change: _ChangeReport<R>, before: [TableSection<R>]) {
        let after = deliversWholeChanges ? tableSections : []
        for delegate in receivers {
            if let receiver = delegate as? any FetchedResultsControllerSnapshotDelegate {
                let shownKeys = receiver.shownKeys
                let changed = (change.updates + change.moves).filter { _showsChange($0.changedKeys, shownKeys: shownKeys) }
                deliverSnapshot(to: receiver, changed: changed.map { $0.record.id })
                continue
            }
            tell(delegate, change)
            if deliversWholeChanges {
                delegate.controller(self, didChangeContentWith: FetchedResultsChange(sectionsBefore: before, sectionsAfter: after, changedKeys: change.changedKeys))
            }
        }
        yieldToStreams(change, before: before, after: after)
    }

    /// Tells one receiver a change, in Core Data's order: sections deleted,
    /// sections inserted, then objects deleted, updated, moved and inserted,
    /// each by index path.
    func tell(_ delegate: any FetchedResultsControllerDelegate<R>, _ change: _ChangeReport<R>) {
        delegate.controllerWillChangeContent(self)
        for deleted in change.deletedSections {
            let name = deleted.section.name
            delegate.controller(
                self, didChange: FetchedResultsSectionInfo(name: name, indexTitle: sectionIndexTitle(forSectionName: name), numberOfObjects: 0, load: { [] }),
                atSectionIndex: deleted.index, for: .delete)
        }
        for inserted in change.insertedSections {
            delegate.controller(
                self, didChange: sectionInfo(inserted.index, name: inserted.section.name, count: inserted.section.count),
                atSectionIndex: inserted.index, for: .insert)
        }
        for object in change.deletes.sorted(by: { $0.path < $1.path }) {
            delegate.controller(self, didChange: object.record, at: object.path, for: .delete, newIndexPath: nil, changedKeys: nil)
        }
        for object in change.updates.sorted(by: { $0.old < $1.old }) {
            delegate.controller(self, didChange: object.record, at: object.old, for: .update, newIndexPath: object.new, changedKeys: object.changedKeys)
        }
        for object in change.moves.sorted(by: { $0.old < $1.old }) {
            delegate.controller(self, didChange: object.record, at: object.old, for: .move, newIndexPath: object.new, changedKeys: object.changedKeys)
        }
        for object in change.inserts.sorted(by: { $0.path < $1.path }) {
            delegate.controller(self, didChange: object.record, at: nil, for: .insert, newIndexPath: object.path, changedKeys: nil)
        }
        delegate.controllerDidChangeContent(self)
    }

    /// Hands a snapshot delegate the results, with the changed objects marked.
    private func deliverSnapshot<D: FetchedResultsControllerSnapshotDelegate>(to receiver: D, changed: [R.ID]) {
        guard let controller = self as? FetchedResultsController<D.Object>, let changed = changed as? [D.Object.ID] else { return }
        guard var snapshot = try? controller.snapshot() else { return }   // sections out of order: lastError says so
        let present = changed.filter { snapshot.indexOfItem($0) != nil }   // so marking cannot fail
        switch changedObjectsInSnapshots {
        case .reconfigure: try? snapshot.reconfigureItems(present)
        case .reload: try? snapshot.reloadItems(present)
        }
        receiver.controller(controller, didChangeContentWith: snapshot)
    }

    /// Sections from the order: its runs of one section name. O(*c* + *s*).
    func rebuildSections() {
        results.rebuildSections(keyed: sectionNameKeyPath != nil)
    }

    /// Phase 3: the sections a change deleted (old indexes) and inserted (new ones).
    ///
    /// Only the sections of the changed objects can come or go: a section is
    /// gone when its objects before, less those that left it, plus those
    /// that came, are none — and new when the same holds the other way.
    /// That is O(*k* log *n*) without looking at the other sections. When the
    /// count of sections does not add up, or a new section's name is also
    /// another section's, the first sort key stopped ordering the sections
    /// (a name in two runs): the sections are compared by name, O(*s*), and
    /// ``lastError`` says so (the runs stay separate sections, as the objects
    /// are ordered).
    func sectionsDeletedAndInserted(
        from oldSections: _SectionsBefore, undoing steps: [_SectionStep], by changes: [_Change<R>]
    ) -> (deleted: [_SectionChange], inserted: [_SectionChange]) {
        guard sectionNameKeyPath != nil else { return ([], []) }
        var delta: [String: Int] = [:], oldIndex: [String: Int] = [:], newIndex: [String: Int] = [:]
        for change in changes {
            if let old = change.old {
                let name = oldSections[old.path.section].name
                delta[name, default: 0] -= 1
                oldIndex[name] = old.path.section
            }
            if let new = change.new, let position = results.ordered.position(of: new.id) {
                let section = path(ofPosition: position).section, name = results.sectionList[section].name
                delta[name, default: 0] += 1
                newIndex[name] = section
            }
        }
        let deleted = oldIndex.filter { oldSections[$0.value].count + delta[$0.key, default: 0] == 0 }.map(\.value).sorted()
        let inserted = newIndex.filter { results.sectionList[$0.value].count - delta[$0.key, default: 0] == 0 }.map(\.value).sorted()
        let consistent = !results.sectionsRepeatNames && results.sectionList.count == oldSections.count - deleted.count + inserted.count
            && inserted.allSatisfy { t in !results.sectionList.indices.contains { $0 != t && results.sectionList[$0].name == results.sectionList[t].name } }
        if consistent {
            if !deleted.isEmpty || !inserted.isEmpty { results.cachedIndexTitles = nil }
            return (
                deleted.map { _SectionChange(index: $0, section: oldSections[$0]) },
                inserted.map { _SectionChange(index: $0, section: results.sectionList[$0]) }
            )
        }
        // By name, over all sections.
        results.cachedIndexTitles = nil
        checkSectionOrder()
        return Self.sectionsByName(from: sections(undoing: steps), to: results.sectionList)
    }

    /// Notes whether a section name occurs in two runs (the first sort key
    /// stopped ordering the sections): ``lastError`` then names the first.
    ///
    /// - Complexity: O(*s*).
    func checkSectionOrder() {
        var runs = _SectionRuns(checkingOrder: true)
        for section in results.sectionList { runs.append(section.name, count: section.count) }
        results.sectionsRepeatNames = runs.firstRepeat != nil
        if let out = runs.firstRepeat { results.lastError = .sectionsOutOfOrder(index: out.offset, sectionName: out.name) }
    }

    /// The sections deleted (old indexes) and inserted (new ones), by name:
    /// those whose name the other side does not have.
    ///
    /// - Complexity: O(*s*) for *s* sections before and after.
    static func sectionsByName(from oldSections: [_SectionRun], to newSections: [_SectionRun]) -> (deleted: [_SectionChange], inserted: [_SectionChange]) {
        let oldNames = Set(oldSections.map(\.name)), newNames = Set(newSections.map(\.name))
        return (
            oldSections.indices.filter { !newNames.contains(oldSections[$0].name) }.map { _SectionChange(index: $0, section: oldSections[$0]) },
            newSections.indices.filter { !oldNames.contains(newSections[$0].name) }.map { _SectionChange(index: $0, section: newSections[$0]) }
        )
    }
}

/// What one identity was and is, in a change.
struct _Change<R: Record> {
    /// An element in the results before the change, and its index path.
    struct Old {
        var element: _Element<R>
        var path: TablePath
    }

    /// The identity's place before the change; nil when it was not in the results.
    var old: Old?
    /// Its element after the change; nil when its record does not match (or is gone).
    var new: _Element<R>?
    /// Its record: the one now, or the last one seen when it left.
    var record: R?
    /// For an object in the results before and after: the keys whose values
    /// changed; nil when not known.
    var changedKeys: Set<String>?
}

/// A context's change as one controller's entity sees it: the identities
/// (each once, in order), the records of those that left, and which of them
/// changed themselves (the others read an object that changed).
struct _TypedChange<R: Record & Codable> {
    var ids: [R.ID] = []
    var removed: [R.ID: R] = [:]
    var own: Set<R.ID> = []
    /// The parts of the context's change it was made of.
    var parts: [_ContextChangePart<R>] = []
    /// The identities that read (through relationships) an object that changed.
    var throughRelationships: Set<R.ID> = []

    /// The record an updated identity replaced, as the context showed it (where known).
    func replaced(_ id: R.ID) -> R? {
        for part in parts { if let record = part.replaced(id) { return record } }
        return nil
    }
}

/// What each object of a controller's results read through relationships,
/// both ways: an object read → the results' objects that read it.
@usableFromInline
final class _ReverseMap<R: Record & Codable> {
    private var readersOf: [_Ref: Set<R.ID>] = [:]
    private var reads: [R.ID: [_Ref]] = [:]

    @usableFromInline init() {}

    var isEmpty: Bool { readersOf.isEmpty }

    /// The objects whose key paths read `ref`.
    func readers(of ref: _Ref) -> Set<R.ID> { readersOf[ref] ?? [] }

    /// Keeps what an object's key paths read, in both maps.
    ///
    /// - Complexity: O(*p*) for *p* objects read, before and now.
    @usableFromInline
    func replaceReads(of id: R.ID, with new: [_Ref]) {
        for old in reads[id] ?? [] {
            readersOf[old]?.remove(id)
            if readersOf[old]?.isEmpty == true { readersOf[old] = nil }
        }
        if new.isEmpty {
            reads[id] = nil
        } else {
            reads[id] = new
            for destination in new { readersOf[destination, default: []].insert(id) }
        }
    }
}
