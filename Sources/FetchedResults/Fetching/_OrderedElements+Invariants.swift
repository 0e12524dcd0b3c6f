import InternalTableUtilities
import RecordStore
import Records
import TableDiff

// Invariant checks, swift-collections style: compiled in debug builds (or any
// build with `-Xswiftc -DHEADLESS_TABLE_INTERNAL_CHECKS`), empty otherwise.
// The mutating methods call them after every change.

extension _OrderedElements {
    /// Traps when the chunk list's parts disagree: a chunk's index against its
    /// place, a chunk over `maxChunk`, the size tree against the chunks, the
    /// count, records out of step with elements, a chunk's section runs, or
    /// the identity index (when built) pointing elsewhere.
    ///
    /// - Complexity: O(*c* log *c*) for *c* chunks, plus O(`maxChunk`) for
    ///   `touched`, in the builds that check; O(1) otherwise.
    @inlinable
    func _checkInvariants(touched: _Chunk<R>? = nil) {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        precondition(tree.count == chunks.count, "one tree entry per chunk")
        var total = 0
        for (k, chunk) in chunks.enumerated() {
            precondition(chunk.index == k, "chunk \(k) thinks it is at \(chunk.index)")
            precondition(chunk.count <= Self.maxChunk, "chunk \(k) holds \(chunk.count) > \(Self.maxChunk)")
            precondition(tree.prefix(k) == total, "the size tree disagrees at chunk \(k)")
            precondition(!keepsRecords || chunk.records.count == chunk.count, "chunk \(k): records out of step")
            precondition(chunk.details.count == (isLean ? 0 : chunk.count), "chunk \(k): details out of step")
            total += chunk.count
        }
        precondition(total == count, "count \(count) but \(total) elements in chunks")
        if let members { precondition(members.count == count, "the identity index holds \(members.count) of \(count) identities") }
        if let chunk = touched, chunk.index < chunks.count, chunks[chunk.index] === chunk {
            let runs = _Chunk<R>.runs(of: chunk.details)
            precondition(runs == chunk.runs, "chunk \(chunk.index): stale section runs")
            if let members {
                for id in chunk.ids { precondition(members.chunk(for: id) === chunk, "the identity index points elsewhere") }
            }
        }
        #endif
    }
}
