import Foundation
import HeadlessTable

/// `headless-table diff OLD NEW [--id KEY] [--format text|json]`
enum DiffCommand {
    static func run(_ arguments: inout ArgumentList, output: CommandOutput) throws {
        let idKey = try arguments.option("--id") ?? "id"
        let format = try OutputFormat.parse(try arguments.option("--format"))
        let oldPath = try arguments.positional("OLD (a fetch result as JSON)")
        let newPath = try arguments.positional("NEW (a fetch result as JSON)")
        try arguments.finish()

        let old = try FetchResultFile.read(oldPath, idKey: idKey)
        let new = try FetchResultFile.read(newPath, idKey: idKey)
        let changeset = TableChangeset(from: old, to: new)
        switch format {
        case .json: output.out(json(changeset) + "\n")
        case .text: output.out(text(changeset, from: old))
        }
    }

    /// The changeset as JSON, in exactly this shape (paths are `[section,row]`):
    /// `{"stages":[{"deletedSections":[…],"insertedSections":[…],"movedSections":[[from,to],…],
    /// "reloadedSections":[…],"deletedRows":[[s,r],…],"insertedRows":[[s,r],…],
    /// "movedRows":[[[s,r],[s,r]],…],"reloadedRows":[[s,r],…],"rowCounts":[…]}],"duplicates":[…]}`
    static func json(_ changeset: TableChangeset<JSONRow>) -> String {
        func list<T>(_ items: [T], _ item: (T) -> String) -> String { "[" + items.map(item).joined(separator: ",") + "]" }
        func path(_ p: TablePath) -> String { "[\(p.section),\(p.row)]" }
        let stages = changeset.stages.map { stage in
            let u = stage.update
            return "{\"deletedSections\":\(list(u.deletedSections) { "\($0)" })"
                + ",\"insertedSections\":\(list(u.insertedSections) { "\($0)" })"
                + ",\"movedSections\":\(list(u.movedSections) { "[\($0.from),\($0.to)]" })"
                + ",\"reloadedSections\":\(list(u.reloadedSections) { "\($0)" })"
                + ",\"deletedRows\":\(list(u.deletedRows, path))"
                + ",\"insertedRows\":\(list(u.insertedRows, path))"
                + ",\"movedRows\":\(list(u.movedRows) { "[\(path($0.from)),\(path($0.to))]" })"
                + ",\"reloadedRows\":\(list(u.reloadedRows, path))"
                + ",\"rowCounts\":\(list(stage.sections) { "\($0.rows.count)" })}"
        }
        return "{\"stages\":[\(stages.joined(separator: ","))],\"duplicates\":\(list(changeset.duplicateIdentifiers) { JSON.string($0) })}"
    }

    /// The changeset for people: a line per stage, a line per change, the row's id beside it.
    static func text(_ changeset: TableChangeset<JSONRow>, from old: [TableSection<JSONRow>]) -> String {
        changeset.logLines(from: old) { JSON.string($0.id) }.joined(separator: "\n") + "\n"
    }
}
