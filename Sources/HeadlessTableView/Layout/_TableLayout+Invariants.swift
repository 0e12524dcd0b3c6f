import TableDiff
import InternalTableUtilities

// Invariant checks, swift-collections style: compiled in debug builds (or any
// build with `-Xswiftc -DHEADLESS_TABLE_INTERNAL_CHECKS`), empty otherwise.

extension _TableLayout {
    /// Traps when the layout's parts disagree: the chunks (every one full but
    /// the last, none empty) against the section count, the sections' tree
    /// against the sections' heights, the row counts' tree against the sections'
    /// row counts, a header or footer that is not finite
    /// or is negative, or a section's height list (`_HeightList._checkInvariants()`).
    ///
    /// - Complexity: O(*s* log *s* + the height lists' checks), in the builds
    ///   that check; O(1) otherwise.
    func _checkInvariants() {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        precondition(chunks.reduce(0) { $0 + $1.count } == sectionCount, "the chunks hold \(chunks.reduce(0) { $0 + $1.count }) sections, not \(sectionCount)")
        for (c, chunk) in chunks.enumerated() {
            precondition(!chunk.isEmpty && chunk.count <= Self.chunkSize, "chunk \(c) holds \(chunk.count) sections")
            precondition(c == chunks.count - 1 || chunk.count == Self.chunkSize, "chunk \(c) is not full")
        }
        precondition(heights.count == sectionCount, "one tree entry per section")
        precondition(rowCounts.count == sectionCount, "one row count per section")
        var top = 0.0, rows = 0
        for (s, section) in sections.enumerated() {
            precondition(section.header.isFinite && section.header >= 0, "section \(s)'s header \(section.header)")
            precondition(section.footer.isFinite && section.footer >= 0, "section \(s)'s footer \(section.footer)")
            section.rows._checkInvariants()
            precondition(_HeightList.close(heights.prefix(s), top), "the sections' tree disagrees at section \(s)")
            precondition(rowCounts.prefix(s) == rows, "the row counts' tree disagrees at section \(s)")
            top += section.height
            rows += section.rows.count
        }
        precondition(_HeightList.close(contentHeight, top), "content height \(contentHeight) but the sections sum to \(top)")
        #endif
    }
}
