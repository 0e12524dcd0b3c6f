import TableDiff
import Foundation

extension _TableLayout {
    /// Where the heights a batch needs come from: a section's header and
    /// footer, a row's initial height, and a whole section's rows (the table's
    /// delegate and settings).
    struct NewHeights {
        var header: (_ section: Int) throws -> Double
        var footer: (_ section: Int) throws -> Double
        var row: (_ path: TablePath) throws -> Double
        var rows: (_ section: Int, _ count: Int) throws -> _HeightList
    }

    /// Applies a checked batch: rows leave and arrive where the batch says,
    /// moved rows keep their heights, new sections and rows start at their
    /// initial heights, reloaded rows go back to theirs.
    ///
    /// A batch that inserts, deletes or moves sections asks every section's
    /// header and footer height again, as UIKit does (sections move, and a
    /// height may depend on the section's place). Any other batch asks them
    /// only of the sections it reloads and those whose rows it deletes,
    /// inserts, moves or reloads; every other section keeps its own (UIKit
    /// asks every section's).
    ///
    /// When the batch keeps the sections (inserts, deletes, moves and reloads
    /// none), only the sections whose rows it names change — each copied from
    /// its chunk when the layout is shared — and the tree by their deltas:
    /// O(*k* log *n* + *s* / `chunkSize`) for *k* changes. Otherwise the
    /// sections are laid out again, O(*k* log *n* + *s*).
    ///
    /// If asking for a height throws, the layout is left half changed: apply
    /// the batch to a copy.
    mutating func apply(_ mapping: BatchMapping, counts: [Int], _ new: NewHeights) throws {
        if mapping.keepsSections {
            try applyKeepingSections(mapping, counts: counts, new)
        } else {
            try applyChangingSections(mapping, counts: counts, new)
        }
    }

    /// A batch that keeps the sections: the rows it names, in place.
    private mutating func applyKeepingSections(_ mapping: BatchMapping, counts: [Int], _ new: NewHeights) throws {
        var touched: [Int] = []
        var movedHeights: [TablePath: Double] = [:]
        for path in mapping.leavingRows.reversed() {
            let height = modifySection(path.section) { $0.rows.remove(at: path.row) }
            if Self.isMoveSource(path, mapping.rowMoves) { movedHeights[path] = height }
            touched.append(path.section)
        }
        let sourceOf = Self.sources(of: mapping)
        for path in mapping.arrivingRows {
            let height = try sourceOf[path].flatMap { movedHeights[$0] } ?? new.row(path)
            modifySection(path.section) { $0.rows.insert(height, at: path.row) }
            touched.append(path.section)
        }
        for path in mapping.reloadedRowPaths {
            guard let q = mapping.newIndexPath(forOld: path) else { continue }
            let height = try new.row(q)
            modifySection(q.section) { $0.rows.setHeight(height, at: q.row) }
            touched.append(q.section)
        }
        for t in Set(touched).sorted() {
            let header = try new.header(t), footer = try new.footer(t)
            // (A checked batch always lands on the new counts.)
            var rows: _HeightList?
            if self[section: t].rows.count != counts[t] { rows = try new.rows(t, counts[t]) }
            modifySection(t) { section in
                section.header = header
                section.footer = footer
                if let rows { section.rows = rows }
            }
        }
    }

    /// A batch that inserts, deletes, moves or reloads sections: every
    /// section placed again, the tree rebuilt. When sections moved (inserted,
    /// deleted or moved), every header and footer is asked again; when they
    /// only reload, those reloaded and those whose rows the batch changes.
    private mutating func applyChangingSections(_ mapping: BatchMapping, counts: [Int], _ new: NewHeights) throws {
        var old = Array(sections)
        let sectionsMoved = counts.count != old.count || counts.indices.contains { mapping.oldSection(forNew: $0) != $0 }
        var touched = Set<Int>()
        var movedHeights: [TablePath: Double] = [:]
        for path in mapping.leavingRows.reversed() {
            let height = old[path.section].rows.remove(at: path.row)
            if Self.isMoveSource(path, mapping.rowMoves) { movedHeights[path] = height }
            if let t = mapping.newSection(forOld: path.section) { touched.insert(t) }
        }
        var placed: [Section] = []
        placed.reserveCapacity(counts.count)
        for t in counts.indices {
            if let s = mapping.oldSection(forNew: t), !mapping.isSectionReloaded(old: s) {
                placed.append(old[s])
                if sectionsMoved { touched.insert(t) }
            } else {
                placed.append(Section(header: try new.header(t), rows: try new.rows(t, counts[t]), footer: try new.footer(t)))
            }
        }
        old = []
        let sourceOf = Self.sources(of: mapping)
        for path in mapping.arrivingRows {
            placed[path.section].rows.insert(try sourceOf[path].flatMap { movedHeights[$0] } ?? new.row(path), at: path.row)
            touched.insert(path.section)
        }
        for path in mapping.reloadedRowPaths {
            guard let q = mapping.newIndexPath(forOld: path) else { continue }
            placed[q.section].rows.setHeight(try new.row(q), at: q.row)
            touched.insert(q.section)
        }
        for t in touched.sorted() {
            placed[t].header = try new.header(t)
            placed[t].footer = try new.footer(t)
        }
        // (A checked batch always lands on the new counts.)
        for t in counts.indices where placed[t].rows.count != counts[t] {
            placed[t].rows = try new.rows(t, counts[t])
        }
        replaceSections(placed)
    }

    /// Whether a row (before the batch) is the source of a move; `moves` sorted by source.
    private static func isMoveSource(_ path: TablePath, _ moves: [Move<TablePath>]) -> Bool {
        var low = 0, high = moves.count
        while low < high {
            let mid = (low + high) / 2
            if moves[mid].from < path { low = mid + 1 } else { high = mid }
        }
        return low < moves.count && moves[low].from == path
    }

    /// The source of each move, by its destination.
    private static func sources(of mapping: BatchMapping) -> [TablePath: TablePath] {
        Dictionary(mapping.rowMoves.map { ($0.to, $0.from) }, uniquingKeysWith: { a, _ in a })
    }
}
