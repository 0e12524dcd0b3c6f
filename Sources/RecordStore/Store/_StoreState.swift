import Foundation
import Records

/// The state behind a store's lock: each entity's table, the version of the
/// last save, the next first-insertion order, the subscribers to its saves
/// and the fetch caches.
@usableFromInline
package struct _StoreState {
    /// One table per entity, in the model's order.
    @usableFromInline package var tables: [_AnyEntityTable]
    @usableFromInline package var nextSequence: Int64 = 1
    /// The version of the last save.
    @usableFromInline package var version: Int64 = 0
    var subscribers: [UUID: AsyncStream<ContextDidSave>.Continuation] = [:]
    /// Cached fetch results, by cache name (see `FetchedResultsController`).
    @usableFromInline package var fetchCaches: [String: _FetchCacheEntry] = [:]
    /// Damage the persistence repaired.
    var recoveries: [StoreRecovery] = []
    /// How many times the state was replaced whole (another store's
    /// compaction handed a new snapshot): the versions recent saves
    /// replaced, which a lean order places its rows by, are forgotten then.
    package var historyEpoch = 0

    /// An empty state: a table for each entity of `model`.
    init(model: ObjectModel) {
        tables = model.entities.indices.map { model.entities[$0].kind.makeTable($0) }
    }

    /// The state a persistence loaded, its saves applied.
    ///
    /// - Complexity: O(*n*).
    init(model: ObjectModel, contents: _Contents) throws(StoreError) {
        self.init(model: model)
        var maxSequence: Int64 = 0
        if let snapshot = contents.snapshot {
            for name in snapshot.keys where model.byName[name] == nil { throw .unknownEntity(name) }
            for (k, entity) in model.entities.enumerated() { tables[k].attach(snapshot[entity.name]) }
        }
        for part in contents.parts {
            try tables[part.entity].load(part)
        }
        for table in tables { maxSequence = max(maxSequence, table.maxSequence) }
        version = contents.version
        nextSequence = max(contents.nextSequence, maxSequence + 1)
        recoveries = contents.recoveries
        for changeSet in contents.changeSets { _ = try applyChecked(changeSet) }
        _checkInvariants()
    }

    /// Entity `k`'s table, typed (`R` must be its record type).
    @inlinable
    package func table<R: Record & Codable>(_ k: Int, _ type: R.Type) -> _EntityTable<R> {
        unsafeDowncast(tables[k], to: _EntityTable<R>.self)
    }

    /// The number of objects of every entity.
    var count: Int { tables.reduce(0) { $0 + $1.count } }

    /// The first damage met reading records from the file, in any entity.
    package var damage: StoreError? { tables.lazy.compactMap(\.damage).first }

    // MARK: Applying saves

    /// Applies a save: each entity's deletes, then inserts and updates.
    ///
    /// - Complexity: O(*k*) for *k* records in the change set.
    @discardableResult
    mutating func apply(_ changeSet: _ChangeSet) -> [_AnyEntityPart] {
        let applied = changeSet.parts.map { tables[$0.entity].apply($0) }
        version = changeSet.version
        nextSequence = max(nextSequence, changeSet.nextSequence)
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        for part in changeSet.parts { tables[part.entity]._checkInvariants(of: part, version: version, nextSequence: nextSequence) }
        #endif
        return applied
    }

    /// Applies a save read from a persistence: it must follow the last.
    mutating func applyChecked(_ changeSet: _ChangeSet) throws(StoreError) -> [_AnyEntityPart] {
        guard changeSet.version == version + 1 else {
            throw .corrupt(path: "the persistence", reason: "save \(changeSet.version) follows save \(version)")
        }
        return apply(changeSet)
    }

    /// Applies what other stores saved, and returns it as saves to deliver.
    ///
    /// - Complexity: O(*k*) for *k* changed records; O(*n*) for a replacement.
    mutating func applyExternal(_ changes: _External, model: ObjectModel) throws(StoreError) -> [ContextDidSave] {
        recoveries += changes.recoveries
        var saves: [ContextDidSave] = []
        if let replacement = changes.replacement {
            if let saved = try replace(with: replacement, model: model) { saves.append(saved) }
        }
        for changeSet in changes.changeSets where changeSet.version > version {
            let applied = try applyChecked(changeSet)
            saves.append(ContextDidSave(model: model, parts: applied, storeVersion: version, contextName: nil, isExternal: true))
        }
        if !saves.isEmpty { fetchCaches.removeAll() }
        return saves
    }

    /// Replaces everything with what a persistence read again, and returns
    /// the difference as one save (nil when nothing changed).
    private mutating func replace(with contents: _Contents, model: ObjectModel) throws(StoreError) -> ContextDidSave? {
        var fresh = try _StoreState(model: model, contents: contents)
        var parts: [_AnyEntityPart] = []
        for k in tables.indices {
            let part = try tables[k].difference(to: fresh.tables[k])
            if !part.isEmpty { parts.append(part) }
        }
        let first = version + 1
        fresh.subscribers = subscribers
        fresh.recoveries = recoveries
        fresh.historyEpoch = historyEpoch + 1
        fresh.nextSequence = max(fresh.nextSequence, nextSequence)
        self = fresh
        _checkInvariants()
        guard !parts.isEmpty || version >= first else { return nil }
        return ContextDidSave(model: model, parts: parts, storeVersion: version, contextName: nil, isExternal: true, firstStoreVersion: first)
    }

    /// Every table checks itself (debug builds).
    func _checkInvariants() {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        for table in tables { table._checkInvariants(version: version, nextSequence: nextSequence) }
        for (name, cache) in fetchCaches {
            precondition(cache.storeVersion <= version, "cache \(name) of version \(cache.storeVersion), the store at \(version)")
        }
        #endif
    }
}
