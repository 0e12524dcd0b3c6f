extension TableChangeset {
    /// The changeset as a log for people: a line per stage, then a line per change,
    /// each followed by the row (or section) it concerns.
    ///
    /// ```text
    /// stage 1 of 1: 2 sections, 5 rows after
    ///   - delete {0, 3}            17
    ///   + insert {1, 0}            42
    ///   → move {0, 2} to {1, 4}    5
    ///   ↻ reload {0, 1}            3
    /// ```
    ///
    /// Deletes, reloads and move sources name rows of the table before their stage
    /// (`old`, or the previous stage's sections); inserts and move destinations,
    /// rows of the stage's sections. A changeset with no stage logs `no changes`;
    /// duplicates, if any, follow the stages.
    ///
    /// - Parameters:
    ///   - old: the table the changeset starts from.
    ///   - ascii: plain ASCII marks (`>` for moves, `~` for reloads).
    ///   - describeRow: the text that names a row; its identity by default.
    public func logLines(
        from old: [TableSection<Row>], ascii: Bool = false,
        describeRow: (Row) -> String = { "\($0.diffIdentifier)" }
    ) -> [String] {
        var lines: [String] = []
        if stages.isEmpty { lines.append("no changes") }
        var before = old
        for (index, stage) in stages.enumerated() {
            let after = stage.sections
            let rowCount = after.reduce(0) { $0 + $1.rows.count }
            lines.append("stage \(index + 1) of \(stages.count): \(_plural(after.count, "section")), \(_plural(rowCount, "row")) after")
            func row(_ table: [TableSection<Row>], _ p: TablePath) -> String {
                table.indices.contains(p.section) && table[p.section].rows.indices.contains(p.row)
                    ? describeRow(table[p.section].rows[p.row]) : "?"
            }
            func section(_ table: [TableSection<Row>], _ s: Int) -> String {
                table.indices.contains(s) ? table[s].name.debugDescription : "?"
            }
            let entries: [(String, String)] = stage.update.changes.map { change in
                let note: String
                switch change {
                case .deleteSection(let s), .reloadSection(let s): note = section(before, s)
                case .insertSection(let t): note = section(after, t)
                case .moveSection(let m): note = section(before, m.from)
                case .deleteRow(let p), .reloadRow(let p): note = row(before, p)
                case .insertRow(let p), .reconfigureRow(let p): note = row(after, p)
                case .moveRow(let m): note = row(before, m.from)
                }
                return (change.logLine(ascii: ascii), note)
            }
            let width = entries.map { $0.0.count }.max() ?? 0
            for (text, note) in entries {
                lines.append("  " + text + String(repeating: " ", count: width - text.count + 4) + note)
            }
            before = after
        }
        if !duplicateIdentifiers.isEmpty {
            lines.append("duplicate ids: " + duplicateIdentifiers.map { "\($0)" }.joined(separator: ", "))
        }
        if !duplicateSectionNames.isEmpty {
            lines.append("duplicate section names: " + duplicateSectionNames.map(\.debugDescription).joined(separator: ", "))
        }
        return lines
    }
}

func _plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
