import Foundation
import InternalTableUtilities
import PredicateFormat
import Records

/// The store's file: a checksummed snapshot followed by an append-only
/// journal, shared safely between stores and processes.
///
/// What ``ObjectStore/init(model:fileURL:)`` uses; create one yourself to
/// choose when the journal is compacted, and pass it to
/// ``ObjectStore/init(model:persistence:)``.
///
/// - A save appends one frame — a length, a checksum, and the records it
///   inserted, updated and deleted — and flushes it to the disk
///   (`F_FULLFSYNC` on Apple platforms, `fsync` elsewhere) before it returns:
///   O(*k*) bytes for *k* changed records, whatever the size of the store.
/// - When the journal outgrows `compactionRatio` of the snapshot (and
///   `minimumJournalBytes`), the file is compacted in the background: a new
///   snapshot is written next to it, the saves made meanwhile are copied
///   after it, and it is renamed over the file. Saves go on meanwhile; none
///   is lost.
/// - Every part is checksummed (CRC-32C). Opening a damaged file throws
///   ``StoreError/damaged(path:offset:reason:)`` naming the byte offset; no
///   record is ever read altered. The one exception is the journal's tail: a
///   save whose writer died mid-append was never acknowledged, and is
///   dropped and reported (``ObjectStore/recoveries``).
/// - Writers take an exclusive `flock` lock on the file and readers a shared
///   one, so stores on the same file — in one process or several — never
///   overwrite each other: a save first reads what the others appended.
/// - A file written by an earlier version of the package (one JSON document)
///   is read and converted on opening.
///
/// The format is documented in <doc:StoreFileFormat>.
public final class JournalFilePersistence: StorePersistence {
    /// The file, as given.
    public let fileURL: URL
    /// How large the journal may grow, as a fraction of the snapshot, before
    /// the file is compacted.
    public let compactionRatio: Double
    /// The journal is never compacted below this many bytes.
    public let minimumJournalBytes: Int

    // The locks, in the order a thread may take them (with the store's own,
    // first: `_LockLevel+Store.swift`; debug builds check it):
    // compactionGate, then state, then the file's flock, then
    // backgroundCompactionQueued. A save comes in holding the store's lock.

    /// The file's bookkeeping (`_LockLevel.journalState`): taken by a save
    /// (under the store's lock), a read of others' saves, and a compaction
    /// (under `compactionGate`); the file's flock is taken inside it.
    private let state = _Lock(_JournalState(), level: .journalState)
    /// Held for the whole of a compaction: one at a time, and an explicit
    /// ``compact()`` waits for one running in the background, then runs
    /// (`_LockLevel.compactionGate`: before `state`; never under the store's lock).
    private let compactionGate = _Lock((), level: .compactionGate)
    /// Whether a background compaction is queued or running (so that saves
    /// meanwhile do not queue more); taken last, alone or under the store's
    /// lock (`_LockLevel.compactionQueued`).
    private let backgroundCompactionQueued = _Lock(false, level: .compactionQueued)

    /// The persistence for the file at `fileURL` (read by ``load(model:)``).
    public init(fileURL: URL, compactionRatio: Double = 0.5, minimumJournalBytes: Int = 1 << 20) {
        self.fileURL = fileURL
        self.compactionRatio = max(0, compactionRatio)
        self.minimumJournalBytes = max(0, minimumJournalBytes)
    }

    private var displayPath: String { fileURL.path }

    /// The file's store identifier (kept by compactions), once loaded.
    var storeIdentifier: UInt64? { state.withLock { $0.codec == nil ? nil : $0.storeID } }

    // MARK: Loading

    /// Opens the file (creating it when there is none) and reads it, with
    /// the model of its objects.
    ///
    /// - Complexity: O(*n*) in the size of the file.
    public func load(model: ObjectModel) throws(StoreError) -> StoreContents {
        try StoreContents(try load(model), model: model)
    }

    /// Opens the file and reads it, each entity's records typed.
    func load(_ model: ObjectModel) throws(StoreError) -> _Contents {
        let contents = try state.withLock { state throws(StoreError) -> _Contents in
            state.path = try resolvedPath()
            removeStaleTemporaryFiles(of: state.path)
            for _ in 0..<64 {
                if case .failure(let failure) = _FileSystem.linkStatus(state.path), failure.isMissing {
                    try createEmptyFile(at: state.path, codec: _JournalCodec(model: model, tagged: model.entities.count > 1))
                }
                let file: _File
                switch _File.openExisting(state.path) {
                case .success(let opened): file = opened
                case .failure(let failure) where failure.isMissing: continue   // replaced meanwhile: again
                case .failure(let failure): throw .unreadable(path: displayPath, reason: failure.text)
                }
                if let failure = file.lock(exclusive: false) { throw .unreadable(path: displayPath, reason: failure.text) }
                guard isCurrent(file, path: state.path) else {
                    file.unlock()
                    continue
                }
                let size: Int, first: [UInt8]
                switch file.status().flatMap({ status in file.read(at: 0, count: min(status.size, 128)).map { (status.size, $0) } }) {
                case .success(let read): (size, first) = read
                case .failure(let failure):
                    file.unlock()
                    throw .unreadable(path: displayPath, reason: failure.text)
                }
                if _LegacyStoreFile.isJSON(first) {
                    let bytes: [UInt8]
                    switch file.read(at: 0, count: size) {
                    case .success(let read): bytes = read
                    case .failure(let failure):
                        file.unlock()
                        throw .unreadable(path: displayPath, reason: failure.text)
                    }
                    file.unlock()
                    let codec = _JournalCodec(model: model, tagged: false)
                    let contents = try _LegacyStoreFile.read(bytes, path: displayPath, model: model)
                    state.codec = codec
                    try convert(contents, from: file, state: &state)
                    return contents
                }
                let read: _JournalRead
                let codec: _JournalCodec
                do throws(StoreError) {
                    codec = try _withBytes(first) { raw throws(StoreError) in try _JournalCodec(model: model, header: raw, path: displayPath) }
                    read = try readStore(file, size: size, codec: codec)
                } catch {
                    file.unlock()
                    throw error
                }
                file.unlock()
                state.codec = codec
                state.file = file
                state.accept(read)
                var recoveries: [StoreRecovery] = []
                if let torn = read.torn {
                    state.reportedTorn.insert(torn.offset)
                    recoveries.append(StoreRecovery(path: displayPath, offset: torn.offset, length: size - torn.offset, reason: torn.reason))
                }
                return _Contents(
                    snapshot: read.snapshot?.entities, parts: read.parts, version: read.snapshotVersion, nextSequence: read.nextSequence,
                    changeSets: read.changeSets, recoveries: recoveries)
            }
            throw .unreadable(path: displayPath, reason: "the file kept being replaced while it was read")
        }
        compactInBackgroundIfNeeded()
        return contents
    }

    /// The path to write: the file itself, or what a symbolic link points to.
    private func resolvedPath() throws(StoreError) -> String {
        let path = fileURL.path
        switch _FileSystem.linkStatus(path) {
        case .failure(let failure) where failure.isMissing:
            return path
        case .failure(let failure):
            throw .unreadable(path: path, reason: failure.text)
        case .success(let status) where status.isSymbolicLink:
            guard let resolved = _FileSystem.resolved(path) else {
                let target = _FileSystem.linkTarget(path) ?? "?"
                throw .unreadable(path: path, reason: "it is a symbolic link to \(target), which does not exist")
            }
            if case .success(let target) = _FileSystem.status(resolved), target.isDirectory {
                throw .unreadable(path: path, reason: "it is a folder")
            }
            return resolved
        case .success(let status):
            if status.isDirectory { throw .unreadable(path: path, reason: "it is a folder") }
            return path
        }
    }

    /// Reads a store file of either format as far as `size` bytes: a file
    /// of format 1 whole (every record decoded); one of format 2 by its
    /// snapshot's head, catalog and directories (mapped: its records are read
    /// as they are needed) and its journal. With `known`, saves up to that
    /// version are read but not decoded.
    ///
    /// - Complexity: O(*n*) for a file of format 1; O(*e* + *c* + *j*) for one
    ///   of format 2, *e* entities, *c* chunks and *j* bytes of journal.
    func readStore(_ file: _File, size: Int, codec: _JournalCodec, decodeAbove known: Int64? = nil) throws(StoreError) -> _JournalRead {
        let first: [UInt8]
        switch file.read(at: 0, count: min(size, 128)) {
        case .success(let read): first = read
        case .failure(let failure): throw .unreadable(path: displayPath, reason: failure.text)
        }
        let path = displayPath
        let format = first.withUnsafeBytes { raw in _JournalReader(bytes: raw, baseOffset: 0, path: path, codec: nil).formatVersion() }
        guard format == _JournalFormat.indexedFormatVersion else {
            // Format 1 (or damage, which its reader reports): the whole file.
            let bytes: [UInt8]
            switch file.read(at: 0, count: size) {
            case .success(let read): bytes = read
            case .failure(let failure): throw .unreadable(path: displayPath, reason: failure.text)
            }
            return try _withBytes(bytes) { raw throws(StoreError) in
                try _JournalReader(bytes: raw, baseOffset: 0, path: path, codec: codec).readFile(decodeAbove: known)
            }
        }
        let head = try _withBytes(first) { raw throws(StoreError) in try _JournalReader(bytes: raw, baseOffset: 0, path: path, codec: nil).indexedHead() }
        guard head.end <= size else {
            throw .damaged(path: displayPath, offset: size, reason: "the file ends inside its snapshot, which ends at \(head.end)")
        }
        let mapped: _MappedBytes
        switch _MappedBytes.map(file, count: head.end) {
        case .success(let bytes): mapped = bytes
        case .failure(let failure): throw .unreadable(path: displayPath, reason: failure.text)
        }
        var read = _JournalRead()
        read.snapshot = try _FileSnapshot(bytes: mapped, path: displayPath)
        read.storeID = head.storeID
        read.flags = head.flags
        read.snapshotVersion = head.version
        read.nextSequence = head.nextSequence
        read.snapshotEnd = head.end
        read.version = head.version
        read.end = head.end
        let tail: [UInt8]
        switch file.read(at: head.end, count: size - head.end) {
        case .success(let bytes): tail = bytes
        case .failure(let failure): throw .unreadable(path: displayPath, reason: failure.text)
        }
        var saves = _JournalRead()
        saves.version = head.version
        try _withBytes(tail) { raw throws(StoreError) in
            try _JournalReader(bytes: raw, baseOffset: head.end, path: path, codec: codec).readSaves(from: 0, into: &saves, decodeAbove: known ?? head.version)
        }
        read.changeSets = saves.changeSets
        read.version = saves.version
        read.end = head.end + saves.end
        if let torn = saves.torn { read.torn = (head.end + torn.offset, torn.reason) }
        return read
    }

    /// The store identifier and snapshot version of a file's first bytes,
    /// when its header and head are whole.
    private func head(of first: [UInt8]) -> (storeID: UInt64, snapshotVersion: Int64)? {
        let path = displayPath
        return first.withUnsafeBytes { raw in
            let reader = _JournalReader(bytes: raw, baseOffset: 0, path: path, codec: nil)
            if reader.formatVersion() == _JournalFormat.indexedFormatVersion {
                guard let head = try? reader.indexedHead() else { return nil }
                return (head.storeID, head.version)
            }
            return reader.head()
        }
    }

    /// A snapshot of a store's state, in format 2.
    static func snapshot(of state: _StoreState, model: ObjectModel, storeID: UInt64, codec: _JournalCodec) throws(StoreError) -> [UInt8] {
        var writer = _SnapshotWriter(storeID: storeID, flags: codec.tagged ? _JournalFormat.taggedFlag : 0)
        for (k, table) in state.tables.enumerated() {
            try table.write(into: &writer, name: model.entities[k].name, indexes: model.entities[k].indexes)
        }
        return try writer.finish(version: state.version, nextSequence: state.nextSequence)
    }

    /// Whether `path` still names the open `file` (a compaction replaces it).
    private func isCurrent(_ file: _File, path: String) -> Bool {
        guard case .success(let open) = file.status() else { return false }
        switch _FileSystem.status(path) {
        case .success(let named): return named.isSameFile(as: open)
        case .failure: return false
        }
    }

    /// Creates an empty store file atomically: written aside, then linked
    /// into place (if another process created it first, theirs stays).
    private func createEmptyFile(at path: String, codec: _JournalCodec) throws(StoreError) {
        let bytes = try Self.snapshot(of: _StoreState(model: codec.model), model: codec.model, storeID: UInt64.random(in: 1...UInt64.max), codec: codec)
        let temporary = try writeTemporary(bytes, next: path)
        defer { _FileSystem.remove(temporary) }
        if let failure = _FileSystem.link(temporary, to: path), !failure.alreadyExists {
            throw .unwritable(path: displayPath, reason: failure.text)
        }
        _FileSystem.flushFolder(folder(of: path))
    }

    /// Writes a temporary file next to `path`, flushed to the disk; returns its path.
    private func writeTemporary(_ bytes: [UInt8], next path: String) throws(StoreError) -> String {
        let temporary = "\(folder(of: path))/.\(name(of: path)).\(_FileSystem.processIdentifier).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let file: _File
        switch _File.create(temporary) {
        case .success(let created): file = created
        case .failure(let failure): throw .unwritable(path: displayPath, reason: failure.text)
        }
        if let failure = file.write(bytes, at: 0) ?? file.flush() {
            _FileSystem.remove(temporary)
            throw .unwritable(path: displayPath, reason: failure.text)
        }
        return temporary
    }

    private func folder(of path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    private func name(of path: String) -> String { (path as NSString).lastPathComponent }

    /// Removes temporary files left next to the store by writers that died
    /// mid-write (their process is gone).
    private func removeStaleTemporaryFiles(of path: String) {
        let prefix = ".\(name(of: path))."
        for entry in _FileSystem.names(in: folder(of: path)) where entry.hasPrefix(prefix) && entry.hasSuffix(".tmp") {
            let parts = entry.dropFirst(prefix.count).split(separator: ".")
            guard parts.count == 3, let pid = Int32(parts[0]) else { continue }
            if pid != _FileSystem.processIdentifier && _FileSystem.processIsGone(pid) {
                _FileSystem.remove("\(folder(of: path))/\(entry)")
            }
        }
    }

    /// Converts a file of the earlier JSON format, in place (atomically, under
    /// the lock). When it cannot be written, the store opens read-only.
    private func convert(_ contents: _Contents, from legacy: _File, state: inout _JournalState) throws(StoreError) {
        state.file = legacy
        if let failure = legacy.lock(exclusive: true) {
            state.readOnlyReason = "the file is in an earlier format and cannot be locked to convert it: \(failure.text)"
            return
        }
        defer { legacy.unlock() }
        guard isCurrent(legacy, path: state.path) else {
            state.readOnlyReason = "the file was replaced while it was converted; open it again"
            return
        }
        do throws(StoreError) {
            let storeID = UInt64.random(in: 1...UInt64.max)
            guard let codec = state.codec else { throw StoreError.unwritable(path: displayPath, reason: "the store was not loaded") }
            let bytes = try Self.snapshot(of: _StoreState(model: codec.model, contents: contents), model: codec.model, storeID: storeID, codec: codec)
            let temporary = try writeTemporary(bytes, next: state.path)
            if let failure = _FileSystem.rename(temporary, to: state.path) {
                _FileSystem.remove(temporary)
                throw StoreError.unwritable(path: displayPath, reason: failure.text)
            }
            _FileSystem.flushFolder(folder(of: state.path))
            guard case .success(let converted) = _File.openExisting(state.path) else {
                throw StoreError.unwritable(path: displayPath, reason: "the converted file cannot be opened")
            }
            state.file = converted
            state.storeID = storeID
            state.end = bytes.count
            state.version = 0
            state.snapshotBytes = bytes.count
            state.journalBytes = 0
        } catch {
            state.readOnlyReason = "the file is in an earlier format and could not be converted (\(error))"
        }
    }

    // MARK: Reading what others saved

    /// The saves other stores appended since this one last read or wrote.
    ///
    /// - Complexity: O(*k*) in the size of those saves; O(*n*) when another
    ///   store compacted the file meanwhile.
    public func changesSinceLastRead() throws(StoreError) -> ExternalChanges {
        let model = try state.withLock { state throws(StoreError) in try codec(state).model }
        return try ExternalChanges(try changes(), model: model)
    }

    /// The saves other stores appended, each entity's records typed.
    func changes() throws(StoreError) -> _External {
        let changes = try state.withLock { state throws(StoreError) -> _External in
            guard state.readOnlyReason == nil else { return .none }
            let (file, replaced) = try lockCurrent(&state, exclusive: false)
            defer { file.unlock() }
            var changes = replaced
            try readAppended(&state, file: file, exclusive: false, into: &changes)
            return changes
        }
        compactInBackgroundIfNeeded()
        return changes
    }

    /// Locks the file the path names now; when another store replaced it (a
    /// compaction), switches to the new one and reads it. The caller holds
    /// `state`; the flock (`_LockLevel.journalFile`) is the last lock of a
    /// save, and is held on return.
    private func lockCurrent(_ state: inout _JournalState, exclusive: Bool) throws(StoreError) -> (_File, _External) {
        let fail = { (reason: String) -> StoreError in
            exclusive ? .unwritable(path: self.displayPath, reason: reason) : .unreadable(path: self.displayPath, reason: reason)
        }
        guard var file = state.file, let codec = state.codec else { throw fail("the store was not loaded") }
        var changes = _External.none
        for _ in 0..<64 {
            if let failure = file.lock(exclusive: exclusive) { throw fail(failure.text) }
            switch _FileSystem.status(state.path) {
            case .failure(let failure) where failure.isMissing:
                file.unlock()
                throw fail("the file was removed")
            case .failure(let failure):
                file.unlock()
                throw fail(failure.text)
            case .success(let named):
                guard case .success(let open) = file.status() else {
                    file.unlock()
                    throw fail("the open file cannot be read")
                }
                if named.isSameFile(as: open) { return (file, changes) }
            }
            // Replaced: read the new file under its own lock.
            file.unlock()
            guard case .success(let replacement) = _File.openExisting(state.path) else { continue }
            if let failure = replacement.lock(exclusive: exclusive) { throw fail(failure.text) }
            guard isCurrent(replacement, path: state.path) else {
                replacement.unlock()
                continue
            }
            defer { replacement.unlock() }
            let size: Int, first: [UInt8]
            switch replacement.status().flatMap({ status in replacement.read(at: 0, count: min(status.size, 128)).map { (status.size, $0) } }) {
            case .success(let read): (size, first) = read
            case .failure(let failure): throw fail(failure.text)
            }
            let known = state.version, knownStore = state.storeID
            var read: _JournalRead?
            // The same store, with a snapshot this one has already seen: only the newer saves.
            if let head = head(of: first), head.storeID == knownStore, head.snapshotVersion <= known {
                let newer = try readStore(replacement, size: size, codec: codec, decodeAbove: known)
                if newer.version >= known {
                    changes.changeSets += newer.changeSets
                    read = newer
                }
            }
            if read == nil {
                let whole = try readStore(replacement, size: size, codec: codec)
                changes.replacement = _Contents(
                    snapshot: whole.snapshot?.entities, parts: whole.parts, version: whole.snapshotVersion, nextSequence: whole.nextSequence, changeSets: whole.changeSets)
                changes.changeSets = []
                read = whole
            }
            guard let read else { continue }
            state.file = replacement
            state.accept(read)
            if let torn = read.torn, state.reportedTorn.insert(torn.offset).inserted {
                changes.recoveries.append(StoreRecovery(path: displayPath, offset: torn.offset, length: size - torn.offset, reason: torn.reason))
            }
            file = replacement
        }
        throw fail("the file kept being replaced while it was read")
    }

    /// Reads the saves appended after `state.end`. Holding the lock
    /// exclusively, cuts a torn tail off (a writer died mid-append).
    private func readAppended(_ state: inout _JournalState, file: _File, exclusive: Bool, into changes: inout _External) throws(StoreError) {
        let size: Int
        switch file.status() {
        case .success(let status): size = status.size
        case .failure(let failure): throw .unreadable(path: displayPath, reason: failure.text)
        }
        guard size >= state.end else {
            throw .damaged(path: displayPath, offset: size, reason: "the file is shorter than what this store has read (\(state.end) bytes): it was cut")
        }
        guard size > state.end else { return }
        let bytes: [UInt8]
        switch file.read(at: state.end, count: size - state.end) {
        case .success(let read): bytes = read
        case .failure(let failure): throw .unreadable(path: displayPath, reason: failure.text)
        }
        let start = state.end
        var read = _JournalRead()
        read.version = state.version
        let codec = try codec(state)
        try _withBytes(bytes) { raw throws(StoreError) in
            try _JournalReader(bytes: raw, baseOffset: start, path: displayPath, codec: codec).readSaves(from: 0, into: &read, decodeAbove: state.version)
        }
        changes.changeSets += read.changeSets
        state.end = start + read.end
        state.journalBytes += read.end
        state.version = read.version
        if let torn = read.torn {
            let offset = start + torn.offset
            if exclusive {
                if let failure = file.truncate(to: offset) ?? file.flush() {
                    throw .unwritable(path: displayPath, reason: "cannot drop a torn save at offset \(offset): \(failure.text)")
                }
            }
            if state.reportedTorn.insert(offset).inserted {
                changes.recoveries.append(StoreRecovery(path: displayPath, offset: offset, length: size - offset, reason: torn.reason))
            }
        }
    }

    // MARK: Writing

    /// Appends one save, after reading what others appended, holding the
    /// file's lock exclusively throughout; flushes it before returning.
    ///
    /// - Complexity: O(*k*) in the size of the save (and of others' saves read).
    public func commit(_ prepare: (ExternalChanges) throws(StoreError) -> StoreChangeSet?) throws(StoreError) {
        let model = try state.withLock { state throws(StoreError) in try codec(state).model }
        try commit { changes throws(StoreError) in
            try prepare(try ExternalChanges(changes, model: model)).map { changeSet throws(StoreError) in try _ChangeSet(changeSet, model: model) }
        }
    }

    /// Appends one save, each entity's records typed.
    func commit(_ prepare: (_External) throws(StoreError) -> _ChangeSet?) throws(StoreError) {
        try state.withLock { state throws(StoreError) in
            if let reason = state.readOnlyReason { throw .unwritable(path: displayPath, reason: reason) }
            let (file, replaced) = try lockCurrent(&state, exclusive: true)
            defer { file.unlock() }
            var changes = replaced
            try readAppended(&state, file: file, exclusive: true, into: &changes)
            guard let changeSet = try prepare(changes) else { return }
            guard changeSet.version == state.version + 1 else {
                throw .unwritable(path: displayPath, reason: "save \(changeSet.version) does not follow the file's last save \(state.version)")
            }
            let frame = try _JournalFormat.saveFrame(changeSet, codec: try codec(state))
            if let failure = file.write(frame, at: state.end) ?? file.flush() {
                _ = file.truncate(to: state.end)
                throw .unwritable(path: displayPath, reason: failure.text)
            }
            state.end += frame.count
            state.journalBytes += frame.count
            state.version = changeSet.version
        }
        compactInBackgroundIfNeeded()
    }

    // MARK: Compacting

    /// Folds the journal into a new snapshot: written next to the file,
    /// completed with the saves appended meanwhile, renamed over it.
    ///
    /// When it returns, every save this store made before the call is in the
    /// new snapshot; a compaction already running (in the background) is
    /// waited for first.
    ///
    /// - Complexity: O(*n*); the file's lock is held only to copy the saves
    ///   made meanwhile and rename.
    public func compact() throws(StoreError) {
        try compactionGate.withLock { _ throws(StoreError) in try foldJournalIntoSnapshot() }
    }

    /// The compaction itself (the caller holds `compactionGate`).
    private func foldJournalIntoSnapshot() throws(StoreError) {
        let captured = state.withLock { state in
            state.readOnlyReason == nil ? state.file.flatMap { file in state.codec.map { (file, state.end, state.path, $0) } } : nil
        }
        guard let (file, end, path, codec) = captured else { return }
        // 1. The new snapshot, from the file as far as this store has read it.
        let read = try readStore(file, size: end, codec: codec)
        let folded = try _StoreState(
            model: codec.model,
            contents: _Contents(
                snapshot: read.snapshot?.entities, parts: read.parts, version: read.snapshotVersion, nextSequence: read.nextSequence, changeSets: read.changeSets))
        let snapshot = try Self.snapshot(of: folded, model: codec.model, storeID: read.storeID, codec: codec)
        let temporary = try writeTemporary(snapshot, next: path)
        var renamed = false
        defer { if !renamed { _FileSystem.remove(temporary) } }

        // 2. Under the lock: the saves appended since, then the rename.
        try state.withLock { state throws(StoreError) in
            guard state.file === file, state.path == path else { return }   // replaced meanwhile: nothing to do
            if let failure = file.lock(exclusive: true) { throw .unwritable(path: displayPath, reason: failure.text) }
            defer { file.unlock() }
            guard isCurrent(file, path: path) else { return }
            let size: Int
            switch file.status() {
            case .success(let status): size = status.size
            case .failure(let failure): throw .unreadable(path: displayPath, reason: failure.text)
            }
            var tail: [UInt8] = []
            if size > end {
                switch file.read(at: end, count: size - end) {
                case .success(let read): tail = read
                case .failure(let failure): throw .unreadable(path: displayPath, reason: failure.text)
                }
                // Only whole saves: a torn one is left behind.
                var saves = _JournalRead()
                saves.version = folded.version
                try _withBytes(tail) { raw throws(StoreError) in
                    try _JournalReader(bytes: raw, baseOffset: end, path: displayPath, codec: codec).readSaves(from: 0, into: &saves, decodeAbove: .max)
                }
                tail.removeLast(tail.count - saves.end)
            }
            guard case .success(let temporaryFile) = _File.openExisting(temporary) else {
                throw .unwritable(path: displayPath, reason: "the compacted file cannot be reopened")
            }
            if let failure = temporaryFile.write(tail, at: snapshot.count) ?? temporaryFile.flush() {
                throw .unwritable(path: displayPath, reason: failure.text)
            }
            if let failure = _FileSystem.rename(temporary, to: path) { throw .unwritable(path: displayPath, reason: failure.text) }
            renamed = true
            _FileSystem.flushFolder(folder(of: path))
            // This store goes on in the new file, from the same point of the journal.
            state.file = temporaryFile
            state.end = snapshot.count + (state.end - end)
            state.snapshotBytes = snapshot.count
            state.journalBytes = state.end - snapshot.count
            state.reportedTorn = []
        }
    }

    /// Starts a compaction in the background when the journal outgrew the snapshot.
    private func compactInBackgroundIfNeeded() {
        guard compactionIsDue() else { return }
        let queued = backgroundCompactionQueued.withLock { queued -> Bool in
            if queued { return false }
            queued = true
            return true
        }
        guard queued else { return }
        // On a thread of its own, as all background work here (see CONTRIBUTING).
        Thread.detachNewThread { [self] in
            defer { backgroundCompactionQueued.withLock { $0 = false } }
            do {
                // Still due once it is this one's turn (an explicit compaction may have run meanwhile)?
                try compactionGate.withLock { _ throws(StoreError) in
                    if compactionIsDue() { try foldJournalIntoSnapshot() }
                }
            } catch {
                // Try again once the journal has grown by another step.
                state.withLock {
                    let (next, overflow) = $0.journalBytes.addingReportingOverflow(max(minimumJournalBytes, 1 << 16))
                    $0.nextCompactionAttempt = overflow ? .max : next
                }
            }
        }
    }

    /// Whether the journal outgrew the snapshot (and a failed attempt's step).
    private func compactionIsDue() -> Bool {
        state.withLock { state in
            // In doubles: a ratio of .infinity (never) or a product beyond Int is no trap.
            state.readOnlyReason == nil
                && Double(state.journalBytes) > max(Double(minimumJournalBytes), Double(state.snapshotBytes) * compactionRatio)
                && state.journalBytes >= state.nextCompactionAttempt
        }
    }
}

extension JournalFilePersistence {
    /// The file's codec, once loaded.
    fileprivate func codec(_ state: _JournalState) throws(StoreError) -> _JournalCodec {
        guard let codec = state.codec else { throw .unreadable(path: fileURL.path, reason: "the store was not loaded: call load(model:) first") }
        return codec
    }
}

extension _JournalCodec {
    /// The codec of an existing file: records tagged when its flag says so,
    /// and in a file without the flag that a model of several entities
    /// opens (the object graph store wrote them so).
    init(model: ObjectModel, header bytes: UnsafeRawBufferPointer, path: String) throws(StoreError) {
        // (A damaged header is the reader's to report.)
        let flags = bytes.count >= 16 ? _JournalFormat.readUInt32(bytes, 12) : 0
        self.init(model: model, tagged: flags & _JournalFormat.taggedFlag != 0 || model.entities.count > 1)
    }
}

/// The journal file behind a store: each entity's records typed, never boxed.
final class _JournalBox: _PersistenceBase, @unchecked Sendable {
    let base: JournalFilePersistence
    let model: ObjectModel

    init(_ base: JournalFilePersistence, model: ObjectModel) {
        self.base = base
        self.model = model
    }

    override var storeIdentifier: UInt64? { base.storeIdentifier }
    override func load() throws(StoreError) -> _Contents { try base.load(model) }
    override func changesSinceLastRead() throws(StoreError) -> _External { try base.changes() }
    override func commit(_ prepare: (_External) throws(StoreError) -> _ChangeSet?) throws(StoreError) { try base.commit(prepare) }
    override func compact() throws(StoreError) { try base.compact() }
}

/// Calls `body` with the bytes of an array, keeping its typed error.
func _withBytes<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(StoreError) -> T) throws(StoreError) -> T {
    let result = bytes.withUnsafeBytes { raw -> Result<T, StoreError> in
        do throws(StoreError) {
            return .success(try body(raw))
        } catch {
            return .failure(error)
        }
    }
    return try result.get()
}

/// The journal file's state, behind its lock.
struct _JournalState {
    /// The open file: the one the path named when it was last read.
    var file: _File?
    /// The path written: the file, or the target of the symbolic link given.
    var path = ""
    var storeID: UInt64 = 0
    /// Where the last frame read or written ends.
    var end = 0
    /// The version of that frame.
    var version: Int64 = 0
    /// Bytes of header and snapshot.
    var snapshotBytes = 0
    /// Bytes of saves after the snapshot.
    var journalBytes = 0
    /// Why saves fail (a file of the earlier format that could not be converted).
    var readOnlyReason: String?
    /// Torn tails already reported.
    var reportedTorn: Set<Int> = []
    /// How the file's records are read and written (set when it is loaded).
    var codec: _JournalCodec?
    /// No background compaction before the journal has this many bytes (after a failed one).
    var nextCompactionAttempt = 0

    mutating func accept(_ read: _JournalRead) {
        storeID = read.storeID
        end = read.end
        version = read.version
        snapshotBytes = read.snapshotEnd
        journalBytes = read.end - read.snapshotEnd
        reportedTorn = []
    }
}

extension JournalFilePersistence {
    /// The format version in the header of the store file at `url`. For tests.
    package static func _formatVersion(of url: URL) throws -> UInt32 {
        let data = try Data(contentsOf: url)
        guard data.count >= 12 else { return 0 }
        return UInt32(data[8]) | UInt32(data[9]) << 8 | UInt32(data[10]) << 16 | UInt32(data[11]) << 24
    }
}

extension ObjectStore {
    /// Writes a store file of format 1 (every record in its snapshot, read
    /// at once when it opens) holding `records` as the only entity's
    /// objects, saved once: what a version before indexes wrote. For tests.
    package static func _writeFormat1<R: Record & Codable>(_ model: ObjectModel, _ records: [R], to url: URL) throws where R.ID: Codable {
        let part = _EntityChangeSet<R>(entity: 0, saved: records.enumerated().map { StoredRecord(record: $1, sequence: Int64($0 + 1), version: 1) })
        let codec = _JournalCodec(model: model, tagged: model.entities.count > 1)
        let bytes = try _JournalFormat.file(storeID: 42, parts: [part], version: 1, nextSequence: Int64(records.count + 1), codec: codec)
        try Data(bytes).write(to: url)
    }
}
