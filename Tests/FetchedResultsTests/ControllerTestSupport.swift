import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableDiff
import TableTestSupport

/// Records every delegate callback.
final class Recorder: FetchedResultsControllerDelegate {
    typealias Object = Note

    enum Event: Equatable, CustomStringConvertible {
        case will
        case section(name: String, index: Int, FetchedResultsChangeType)
        case object(Note, at: TablePath?, FetchedResultsChangeType, new: TablePath?)
        case did
        case failed(FetchError)

        var description: String {
            switch self {
            case .will: "will"
            case let .section(name, index, type): "\(type) section \(index) \(name.debugDescription)"
            case let .object(note, at, type, new): "\(type) #\(note.id) \(at.map { "\($0)" } ?? "-") → \(new.map { "\($0)" } ?? "-")"
            case .did: "did"
            case .failed(let error): "failed: \(error)"
            }
        }
    }

    var events: [Event] = []
    var wholeChanges: [FetchedResultsChange<Note>] = []
    var titles: ((String) -> String?)?

    func controllerWillChangeContent(_ controller: FetchedResultsController<Note>) { events.append(.will) }
    func controller(_ controller: FetchedResultsController<Note>, didChange section: FetchedResultsSectionInfo<Note>, atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        events.append(.section(name: section.name, index: sectionIndex, type))
    }
    func controller(_ controller: FetchedResultsController<Note>, didChange object: Note, at indexPath: TablePath?, for type: FetchedResultsChangeType, newIndexPath: TablePath?) {
        events.append(.object(object, at: indexPath, type, new: newIndexPath))
    }
    func controllerDidChangeContent(_ controller: FetchedResultsController<Note>) { events.append(.did) }
    func controller(_ controller: FetchedResultsController<Note>, didFailWith error: FetchError) { events.append(.failed(error)) }
    func controller(_ controller: FetchedResultsController<Note>, didChangeContentWith change: FetchedResultsChange<Note>) {
        wholeChanges.append(change)
    }
    func controller(_ controller: FetchedResultsController<Note>, sectionIndexTitleForSectionName sectionName: String) -> String? {
        titles?(sectionName)
    }

    /// The events since the last call.
    func take() -> [Event] {
        defer { events.removeAll() }
        return events
    }
}

/// Core Data's meaning of the callbacks, replayed on the sections before as
/// UIKit replays a batch: what leaves (deleted sections; deleted and moved
/// objects at their old paths) leaves; an updated object stays where it is
/// among the objects that do not move, with its new content; what arrives
/// (inserted sections; inserted and moved objects at their new paths) is put
/// in, in ascending order; every other object keeps its order.
func replayCoreData(_ events: [Recorder.Event], on before: [TableSection<Note>]) -> [TableSection<Note>] {
    var deletedSections = Set<Int>(), insertedSections: [(Int, String)] = []
    var leaving = Set<TablePath>(), arriving: [(TablePath, Note)] = [], updated: [TablePath: Note] = [:]
    for event in events {
        switch event {
        case let .section(name, index, type):
            if type == .delete { deletedSections.insert(index) } else if type == .insert { insertedSections.append((index, name)) }
        case let .object(note, at, type, new):
            switch type {
            case .delete: if let at { leaving.insert(at) }
            case .insert: if let new { arriving.append((new, note)) }
            case .move: if let at, let new { leaving.insert(at); arriving.append((new, note)) }
            case .update: if let at { updated[at] = note }   // stays where it is among the unmoved rows; new content
            }
        default: break
        }
    }
    // Sections: the survivors in order, the inserted ones placed ascending.
    var order: [Int?] = before.indices.filter { !deletedSections.contains($0) }
    var names: [Int: String] = [:]
    for (index, name) in insertedSections.sorted(by: { $0.0 < $1.0 }) {
        order.insert(nil, at: min(index, order.count))
        names[index] = name
    }
    return order.enumerated().map { t, source in
        var rows: [Note] = []
        if let s = source {
            rows = before[s].rows.enumerated().filter { !leaving.contains(TablePath(row: $0.offset, section: s)) }
                .map { updated[TablePath(row: $0.offset, section: s)] ?? $0.element }
        }
        for (path, note) in arriving.filter({ $0.0.section == t }).sorted(by: { $0.0.row < $1.0.row }) {
            rows.insert(note, at: min(path.row, rows.count))
        }
        return TableSection(name: source.map { before[$0].name } ?? names[t] ?? "?", rows: rows)
    }
}

func describe(_ sections: [TableSection<Note>]) -> String {
    sections.map { "\($0.name.debugDescription): " + $0.rows.map { "\($0.id)v\($0.version)" }.joined(separator: " ") }.joined(separator: " | ")
}
