import InternalTableUtilities
import RecordStore
import Records
import TableDiff

/// What a ``FetchedResultsController`` reports, as a value: a change of its
/// results, or a change it could not follow. The elements of
/// ``FetchedResultsController/changes(includingSnapshots:)``.
public enum FetchedResultsEvent<R: Record>: Sendable {
    /// A change: what the delegate is told between
    /// `controllerWillChangeContent(_:)` and `controllerDidChangeContent(_:)`.
    case changed(FetchedResultsChanges<R>)
    /// A change the controller could not follow: what the delegate is told
    /// by `controller(_:didFailWith:)` (the results stay as they were).
    case failed(FetchError)

    /// The change, for a ``changed(_:)`` event.
    public var changes: FetchedResultsChanges<R>? {
        if case .changed(let changes) = self { changes } else { nil }
    }
}

extension FetchedResultsEvent: Equatable where R: Equatable {}

/// One change of a controller's results as its delegate is told it, as a
/// `Sendable` value: the section changes, then the object changes, each in the
/// order and with the index paths of the delegate's calls — and, when asked,
/// the results after it as a snapshot, and the whole change.
public struct FetchedResultsChanges<R: Record>: Sendable {
    /// A section change: the delegate's `controller(_:didChange:atSectionIndex:for:)`.
    public struct SectionChange: Hashable, Sendable {
        /// The section's name (its `FetchedResultsSectionInfo/name`).
        public var name: String
        /// Its index title.
        public var indexTitle: String?
        /// Its number of objects after the change (0 for a deleted section).
        public var numberOfObjects: Int
        /// Its index: before the change for a delete, after it for an insert.
        public var sectionIndex: Int
        /// `.insert` or `.delete`.
        public var type: FetchedResultsChangeType

        public init(name: String, indexTitle: String?, numberOfObjects: Int, sectionIndex: Int, type: FetchedResultsChangeType) {
            self.name = name
            self.indexTitle = indexTitle
            self.numberOfObjects = numberOfObjects
            self.sectionIndex = sectionIndex
            self.type = type
        }
    }

    /// An object change: the delegate's `controller(_:didChange:at:for:newIndexPath:)`.
    public struct ObjectChange: Sendable {
        /// The object (the record now; a deleted one as it was last seen).
        public var object: R
        /// Its index path before the change (nil for an insert).
        public var indexPath: TablePath?
        public var type: FetchedResultsChangeType
        /// Its index path after the change (nil for a delete).
        public var newIndexPath: TablePath?
        /// For an update or a move, the keys whose values changed; nil for
        /// an insert or a delete, or when not known (see
        /// `FetchedResultsControllerDelegate.controller(_:didChange:at:for:newIndexPath:changedKeys:)`).
        public var changedKeys: Set<String>?

        public init(object: R, indexPath: TablePath?, type: FetchedResultsChangeType, newIndexPath: TablePath?, changedKeys: Set<String>? = nil) {
            self.object = object
            self.indexPath = indexPath
            self.type = type
            self.newIndexPath = newIndexPath
            self.changedKeys = changedKeys
        }
    }

    /// The sections deleted (old indexes, ascending), then those inserted
    /// (new indexes, ascending).
    public var sections: [SectionChange]
    /// The objects deleted, updated, moved and inserted, in that order, each
    /// kind by index path — Core Data's order.
    public var objects: [ObjectChange]
    /// The results after the change, the changed objects marked as the
    /// controller's ``FetchedResultsController/changedObjectsInSnapshots``
    /// says — what a ``FetchedResultsControllerSnapshotDelegate`` is handed.
    /// Nil unless the sequence was asked for snapshots, or when the first
    /// sort key stopped ordering the sections (a name would repeat).
    public var snapshot: TableSnapshot<String, R.ID>?
    /// The sections before and after, when the controller
    /// ``FetchedResultsController/deliversWholeChanges`` (else nil).
    public var wholeChange: FetchedResultsChange<R>?

    public init(sections: [SectionChange], objects: [ObjectChange], snapshot: TableSnapshot<String, R.ID>? = nil, wholeChange: FetchedResultsChange<R>? = nil) {
        self.sections = sections
        self.objects = objects
        self.snapshot = snapshot
        self.wholeChange = wholeChange
    }
}

extension FetchedResultsChanges.ObjectChange: Equatable where R: Equatable {}
extension FetchedResultsChanges: Equatable where R: Equatable {}
extension FetchedResultsChange: Equatable where R: Equatable {
    public static func == (a: FetchedResultsChange, b: FetchedResultsChange) -> Bool {
        a.sectionsBefore == b.sectionsBefore && a.sectionsAfter == b.sectionsAfter && a.changedKeys == b.changedKeys
    }
}

/// The sequences of a controller's changes: their continuations, by key.
/// Owned by the controller alone (the sequences' terminations hold it
/// weakly): when the controller goes, every sequence finishes.
final class _ChangeStreams<R: Record>: Sendable {
    struct Subscriber {
        var continuation: AsyncStream<FetchedResultsEvent<R>>.Continuation
        var includesSnapshots: Bool
    }

    struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextKey = 0
    }

    let state = _Lock(State())

    deinit {
        for subscriber in state.withLock({ $0.subscribers.values }) { subscriber.continuation.finish() }
    }

    /// A new sequence, from now on.
    func subscribe(includingSnapshots: Bool) -> AsyncStream<FetchedResultsEvent<R>> {
        let (stream, continuation) = AsyncStream<FetchedResultsEvent<R>>.makeStream(bufferingPolicy: .unbounded)
        let key = state.withLock { state in
            defer { state.nextKey += 1 }
            state.subscribers[state.nextKey] = Subscriber(continuation: continuation, includesSnapshots: includingSnapshots)
            return state.nextKey
        }
        // The consumer stopped (its task cancelled, or the sequence and its iterator released): let go of it.
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: key) } }
        return stream
    }

    /// The subscribers now (the consumers that stopped left).
    var subscribers: [Subscriber] { state.withLock { $0.subscribers.sorted { $0.key < $1.key }.map(\.value) } }

    var isEmpty: Bool { state.withLock { $0.subscribers.isEmpty } }
}

extension FetchedResultsController {
    /// The controller's changes as an `AsyncSequence`, from now on: an event
    /// for each change the delegate is told of — the same section and object
    /// changes, in the same order, with the same index paths — and for each
    /// change it could not follow.
    ///
    /// ```swift
    /// let changes = controller.changes(includingSnapshots: true)
    /// Task { @MainActor in
    ///     for await case .changed(let change) in changes {
    ///         try? dataSource.apply(change.snapshot!)   // what the results were after that change
    ///     }
    /// }
    /// ```
    ///
    /// Each call is one consumer: a sequence of its own, which gets every
    /// change reported after the call (none before it); several consumers
    /// each get every change. A sequence is one consumer's — as any
    /// `AsyncStream`, two loops over the same one share its events. While a
    /// sequence is iterated (or held), the controller follows its context as
    /// it does for a delegate. A consumer that stops — its task cancelled, or
    /// its loop left and the sequence released — is let go at once; when
    /// the controller is released, every sequence finishes (its loop ends).
    ///
    /// **Isolation.** The controller belongs to its context's thread (or
    /// actor); it makes each event there, when it reports the change — after
    /// its delegate and observers are told — and the sequence hands it to the
    /// consumer on the consumer's own isolation, later. Events are `Sendable`
    /// values: records are (`Record` requires it), and so are index paths,
    /// snapshots and errors. By the time a consumer sees an event the
    /// controller may have moved on: read the event's own paths and
    /// snapshot, not the controller. Events wait in the sequence, unbounded,
    /// until the consumer takes them; none is dropped.
    ///
    /// Core Data has no counterpart: its controller tells one delegate.
    ///
    /// - Parameter includingSnapshots: whether each change carries the
    ///   results after it as a snapshot (``FetchedResultsChanges/snapshot``):
    ///   O(*n*) per change for *n* results, built once for every consumer that
    ///   asks. Off, a change costs what the delegate's calls cost.
    public func changes(includingSnapshots: Bool = false) -> AsyncStream<FetchedResultsEvent<R>> {
        let stream = changeStreams.subscribe(includingSnapshots: includingSnapshots)
        updateTracking()
        return stream
    }

    /// How many consumers of ``changes(includingSnapshots:)`` are still there.
    package var _changeConsumerCount: Int { changeStreams.subscribers.count }

    /// Hands a change to the sequences' consumers, as the delegate is told it.
    func yieldToStreams(_ change: _ChangeReport<R>, before: [TableSection<R>], after: [TableSection<R>]) {
        let subscribers = changeStreams.subscribers
        guard !subscribers.isEmpty else { return }
        var sections: [FetchedResultsChanges<R>.SectionChange] = []
        for deleted in change.deletedSections {
            let name = deleted.section.name
            sections.append(.init(name: name, indexTitle: sectionIndexTitle(forSectionName: name), numberOfObjects: 0, sectionIndex: deleted.index, type: .delete))
        }
        for inserted in change.insertedSections {
            let name = inserted.section.name
            sections.append(.init(
                name: name, indexTitle: sectionIndexTitle(forSectionName: name), numberOfObjects: inserted.section.count,
                sectionIndex: inserted.index, type: .insert))
        }
        var objects: [FetchedResultsChanges<R>.ObjectChange] = []
        for object in change.deletes.sorted(by: { $0.path < $1.path }) {
            objects.append(.init(object: object.record, indexPath: object.path, type: .delete, newIndexPath: nil))
        }
        for object in change.updates.sorted(by: { $0.old < $1.old }) {
            objects.append(.init(object: object.record, indexPath: object.old, type: .update, newIndexPath: object.new, changedKeys: object.changedKeys))
        }
        for object in change.moves.sorted(by: { $0.old < $1.old }) {
            objects.append(.init(object: object.record, indexPath: object.old, type: .move, newIndexPath: object.new, changedKeys: object.changedKeys))
        }
        for object in change.inserts.sorted(by: { $0.path < $1.path }) {
            objects.append(.init(object: object.record, indexPath: nil, type: .insert, newIndexPath: object.path))
        }
        let whole = deliversWholeChanges ? FetchedResultsChange(sectionsBefore: before, sectionsAfter: after, changedKeys: change.changedKeys) : nil
        let plain = FetchedResultsEvent.changed(FetchedResultsChanges(sections: sections, objects: objects, wholeChange: whole))
        var withSnapshot: FetchedResultsEvent<R>?
        if subscribers.contains(where: \.includesSnapshots) {
            var snapshot = try? self.snapshot()
            if snapshot != nil {
                let changed = (change.updates.map { $0.record.id } + change.moves.map { $0.record.id }).filter { snapshot?.indexOfItem($0) != nil }
                switch changedObjectsInSnapshots {
                case .reconfigure: try? snapshot?.reconfigureItems(changed)
                case .reload: try? snapshot?.reloadItems(changed)
                }
            }
            withSnapshot = .changed(FetchedResultsChanges(sections: sections, objects: objects, snapshot: snapshot, wholeChange: whole))
        }
        for subscriber in subscribers { subscriber.continuation.yield(subscriber.includesSnapshots ? withSnapshot ?? plain : plain) }
    }

    /// Hands a change the controller could not follow to the sequences' consumers.
    func yieldFailureToStreams(_ error: FetchError) {
        for subscriber in changeStreams.subscribers { subscriber.continuation.yield(.failed(error)) }
    }
}
