import TableDiff
import InternalTableUtilities

// Invariant checks, swift-collections style: compiled in debug builds (or any
// build with `-Xswiftc -DHEADLESS_TABLE_INTERNAL_CHECKS`), empty otherwise.

extension _HeightList {
    /// Traps when the list's parts disagree: the count and sum trees against
    /// the chunks, a chunk over `maxChunk`, a height that is not finite or is
    /// negative.
    ///
    /// - Complexity: O(*c* log *c* + *n*) for *c* chunks and *n* explicit heights,
    ///   in the builds that check; O(1) otherwise.
    func _checkInvariants() {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        precondition(counts.count == chunks.count && sums.count == chunks.count, "one tree entry per chunk")
        var rows = 0, sum = 0.0
        for (k, chunk) in chunks.enumerated() {
            precondition(chunk.count <= Self.maxChunk, "chunk \(k) holds \(chunk.count) > \(Self.maxChunk) heights")
            precondition(counts.prefix(k) == rows, "the count tree disagrees at chunk \(k)")
            precondition(Self.close(sums.prefix(k), sum), "the sum tree disagrees at chunk \(k): \(sums.prefix(k)) vs \(sum)")
            switch chunk {
            case .uniform(_, let height): precondition(height.isFinite && height >= 0, "height \(height)")
            case .heights(let heights): precondition(heights.allSatisfy { $0.isFinite && $0 >= 0 }, "a height not finite or negative")
            }
            rows += chunk.count
            sum += chunk.sum
        }
        precondition(count == rows, "count \(count) but \(rows) rows in chunks")
        precondition(Self.close(total, sum), "total \(total) but the chunks sum to \(sum)")
        #endif
    }

    /// Equal up to the rounding of sums built by additions and subtractions.
    static func close(_ a: Double, _ b: Double) -> Bool {
        Swift.abs(a - b) <= 1e-9 * Swift.max(1, Swift.abs(a), Swift.abs(b))
    }
}
