import Foundation
import Testing
import FetchedResults
import Records
import PredicateFormat
import TableTestSupport

// Random object graphs: inserts, links, relinks, unlinks, deletes under
// every rule, saves from two contexts on one store, merges and rollbacks,
// each step checked against a graph of plain dictionaries whose inverses and
// delete rules are applied by code written here, not the library's.
// Predicates through relationships are checked against a reference
// evaluator written here too, and the store's file against every saved
// graph. Two models: `relationshipModel` (RelationshipTests: entries, media,
// photos, tags) against `DiaryOracle`, and `randomGraphModel` (folders,
// notes, tasks, labels: every delete rule, a relationship without an
// inverse, counts) against `RGGraph`.
//
// A sub-entity of another record type (Photo under Medium, Task under Note)
// is fetched with a request of its own entity: a typed request of the parent
// returns the parent's record type only. The graph stack's tests fetched
// both with one erased request.

// MARK: - The diary model, as plain dictionaries

/// The graph as plain dictionaries, changed by rules written out here (not
/// the context's): what every step is checked against.
struct DiaryOracle: Equatable {
    struct Entry: Equatable {
        var text: String
        var month: Int
        var media: Set<Int> = []
        var tags: Set<Int> = []
        var cover: Int?
    }
    struct Medium: Equatable {
        var type: String
        var kb: Int
        var width: Int?   // a Photo's
        var entry: Int?
        var coverOf: Int?
    }
    var entries: [Int: Entry] = [:]
    var media: [Int: Medium] = [:]
    var tags: [Int: (name: String, entries: Set<Int>)] = [:]

    static func == (a: DiaryOracle, b: DiaryOracle) -> Bool {
        a.entries == b.entries && a.media == b.media && a.tags.count == b.tags.count
            && a.tags.allSatisfy { id, tag in b.tags[id].map { $0.name == tag.name && $0.entries == tag.entries } ?? false }
    }

    /// A medium's entry set to `entry` (nil: unlinked).
    mutating func link(medium m: Int, to entry: Int?) {
        if let old = media[m]?.entry { entries[old]?.media.remove(m) }
        media[m]?.entry = entry
        if let entry { entries[entry]?.media.insert(m) }
    }

    /// An entry's cover set (one-to-one).
    mutating func cover(entry e: Int, with m: Int?) {
        if let old = entries[e]?.cover, media[old]?.coverOf == e { media[old]?.coverOf = nil }
        if let m {
            if let other = media[m]?.coverOf, other != e { entries[other]?.cover = nil }
            media[m]?.coverOf = e
        }
        entries[e]?.cover = m
    }

    /// Deletes an entry: media cascade (their coverOf nullify their entry's
    /// cover), tags nullify, cover no action (the medium keeps pointing).
    mutating func deleteEntry(_ e: Int) {
        guard let entry = entries.removeValue(forKey: e) else { return }
        for t in entry.tags { tags[t]?.entries.remove(e) }
        for m in entry.media { deleteMedium(m) }
    }

    mutating func deleteMedium(_ m: Int) {
        guard let medium = media.removeValue(forKey: m) else { return }
        if let e = medium.entry { entries[e]?.media.remove(m) }
        if let e = medium.coverOf, entries[e]?.cover == m { entries[e]?.cover = nil }
    }

    /// References to objects that do not exist (a `noAction` delete): (medium, entry).
    var dangling: [(Int, Int)] {
        media.keys.sorted().compactMap { m in media[m]?.coverOf.flatMap { entries[$0] == nil ? (m, $0) : nil } }
    }

    /// The graph the records show, with each inverse checked on the way.
    static func observed(entries: [GEntry], media: [GMedium], photos: [GPhoto], tags: [GTag]) -> DiaryOracle {
        var graph = DiaryOracle()
        for e in entries {
            #expect(Set(e.media).count == e.media.count && Set(e.tags).count == e.tags.count, "no repeats in \(e)")
            graph.entries[e.id] = .init(text: e.text, month: e.month, media: Set(e.media), tags: Set(e.tags), cover: e.cover)
        }
        for m in media { graph.media[m.id] = .init(type: m.type, kb: m.kb, width: nil, entry: m.entry, coverOf: m.coverOf) }
        for p in photos {
            #expect(graph.media[p.id] == nil, "photo \(p.id) is also a medium")
            graph.media[p.id] = .init(type: p.type, kb: p.kb, width: p.width, entry: p.entry, coverOf: p.coverOf)
        }
        for t in tags { graph.tags[t.id] = (t.name, Set(t.entries)) }
        // Inverses agree, and no reference dangles but a `noAction` cover's.
        for (id, entry) in graph.entries {
            for m in entry.media { expectEqual(graph.media[m]?.entry, id, "Entry \(id).media holds \(m), whose entry is \(String(describing: graph.media[m]?.entry))") }
            for t in entry.tags { expectEqual(graph.tags[t]?.entries.contains(id), true, "Entry \(id).tags holds \(t)") }
            if let c = entry.cover { expectEqual(graph.media[c]?.coverOf, id, "Entry \(id).cover is \(c)") }
        }
        for (id, medium) in graph.media {
            if let e = medium.entry { expectEqual(graph.entries[e]?.media.contains(id), true, "Medium \(id).entry is \(e)") }
            if let e = medium.coverOf, let entry = graph.entries[e] { expectEqual(entry.cover, id, "Medium \(id).coverOf is \(e)") }
        }
        for (id, tag) in graph.tags {
            for e in tag.entries { expectEqual(graph.entries[e]?.tags.contains(id), true, "Tag \(id).entries holds \(e)") }
        }
        return graph
    }

    /// The graph a context shows: a request per entity.
    static func observed(_ context: ObjectContext) throws -> DiaryOracle {
        observed(
            entries: try context.fetch(FetchRequest<GEntry>()), media: try context.fetch(FetchRequest<GMedium>()),
            photos: try context.fetch(FetchRequest<GPhoto>()), tags: try context.fetch(FetchRequest<GTag>()))
    }

    /// The graph a store holds, read erased: Medium's hierarchy holds the
    /// photos, each named by its entity.
    static func observed(_ store: ObjectStore) throws -> DiaryOracle {
        let media = try store.objects(ofEntity: "Medium")
        for object in media {
            expectEqual(object.entityName, (object.as(GPhoto.self) == nil ? "Medium" : "Photo"), "\(object)")
            expectEqual(object.id.rootEntityName, "Medium")
        }
        return observed(
            entries: try store.objects(ofEntity: "Entry").compactMap { $0.as(GEntry.self) },
            media: media.compactMap { $0.as(GMedium.self) }, photos: media.compactMap { $0.as(GPhoto.self) },
            tags: try store.objects(ofEntity: "Tag").compactMap { $0.as(GTag.self) })
    }
}

// MARK: - The folders model

/// Folder ⇄ Note: ordered to-many, cascade / required to-one, nullify.
/// Folder ⇄ Label: unordered to-many both ways, at most 2 labels / nullify.
/// Folder.pinned: a to-one without an inverse (nullify does nothing to it:
/// deleting the note leaves the reference, which a save refuses).
/// Note ⇄ Label: to-one, deny / to-many, no action. Task: a sub-entity of Note.
struct RGFolder: Record, Codable, Equatable {
    var id: Int
    var name: String
    var rank: Int
    var notes: [Int] = []
    var labels: [Int] = []
    var pinned: Int? = nil
}

/// What a note and a task share.
protocol RGNoteFields: Record, Codable where ID == Int {
    var title: String { get set }
    var kb: Int { get set }
    var folder: Int? { get set }
    var label: Int? { get set }
}

struct RGNote: RGNoteFields, Equatable {
    var id: Int
    var title: String
    var kb: Int
    var folder: Int? = nil
    var label: Int? = nil
}

struct RGTask: RGNoteFields, Equatable {
    var id: Int
    var title: String
    var kb: Int
    var done: Bool
    var folder: Int? = nil
    var label: Int? = nil
}

struct RGLabel: Record, Codable, Equatable {
    var id: Int
    var name: String
    var folders: [Int] = []
    var notes: [Int] = []
}

let randomGraphModel: ObjectModel = {
    do {
        return try ObjectModel(
            .entity(RGFolder.self, name: "Folder", relationships: [
                .toMany("notes", \.notes, to: RGNote.self, inverse: "folder", deleteRule: .cascade, ordered: true),
                .toMany("labels", \.labels, to: RGLabel.self, inverse: "folders", maxCount: 2),
                .toOne("pinned", \.pinned, to: RGNote.self),
            ]),
            .entity(RGNote.self, name: "Note", relationships: [
                .toOne("folder", \.folder, to: RGFolder.self, inverse: "notes", optional: false),
                .toOne("label", \.label, to: RGLabel.self, inverse: "notes", deleteRule: .deny),
            ]),
            .entity(RGTask.self, name: "Task", parent: RGNote.self, relationships: [
                .toOne("folder", \.folder, to: RGFolder.self, inverse: "notes", optional: false),
                .toOne("label", \.label, to: RGLabel.self, inverse: "notes", deleteRule: .deny),
            ]),
            .entity(RGLabel.self, name: "Label", relationships: [
                .toMany("folders", \.folders, to: RGFolder.self, inverse: "labels"),
                .toMany("notes", \.notes, to: RGNote.self, inverse: "label", deleteRule: .noAction),
            ]))
    } catch {
        fatalError("the test model: \(error)")
    }
}()

/// The same entities without relationships: writes files the full model
/// must refuse.
let randomGraphPlainModel: ObjectModel = {
    do {
        return try ObjectModel(
            .entity(RGFolder.self, name: "Folder"), .entity(RGNote.self, name: "Note"),
            .entity(RGTask.self, name: "Task", parent: RGNote.self), .entity(RGLabel.self, name: "Label"))
    } catch {
        fatalError("the plain model: \(error)")
    }
}()

// MARK: - The independent graph

/// The graph as dictionaries; every change applies the inverses and delete
/// rules by the model's declaration, written out here.
struct RGGraph: Equatable {
    struct Folder: Equatable {
        var name: String
        var rank: Int
        var notes: [Int] = []   // ordered
        var labels: Set<Int> = []
        var pinned: Int? = nil
    }
    struct Note: Equatable {
        var title: String
        var kb: Int
        var done: Bool?   // non-nil: a Task
        var folder: Int? = nil
        var label: Int? = nil
    }
    struct Label: Equatable {
        var name: String
        var folders: Set<Int> = []
        var notes: Set<Int> = []
    }
    var folders: [Int: Folder] = [:]
    var notes: [Int: Note] = [:]
    var labels: [Int: Label] = [:]

    static func folderID(_ id: Int) -> ObjectID { ObjectID(rootEntityName: "Folder", key: .int(id)) }
    static func noteID(_ id: Int) -> ObjectID { ObjectID(rootEntityName: "Note", key: .int(id)) }
    static func labelID(_ id: Int) -> ObjectID { ObjectID(rootEntityName: "Label", key: .int(id)) }

    // MARK: Links, with their inverses

    /// A note's folder set from the note's side: the old folder loses it,
    /// the new one appends it.
    mutating func setFolder(ofNote n: Int, to f: Int?) {
        let old = notes[n]?.folder
        guard old != f else { return }
        if let old { folders[old]?.notes.removeAll { $0 == n } }
        notes[n]?.folder = f
        if let f, folders[f]?.notes.contains(n) == false { folders[f]?.notes.append(n) }
    }

    mutating func setLabel(ofNote n: Int, to l: Int?) {
        let old = notes[n]?.label
        guard old != l else { return }
        if let old { labels[old]?.notes.remove(n) }
        notes[n]?.label = l
        if let l { labels[l]?.notes.insert(n) }
    }

    /// A folder's notes set from the folder's side (without repeats): notes
    /// taken out lose their folder, notes added leave the folder they had.
    mutating func setNotes(ofFolder f: Int, to new: [Int]) {
        guard let old = folders[f]?.notes else { return }
        for n in old where !new.contains(n) && notes[n]?.folder == f { notes[n]?.folder = nil }
        for n in new where !old.contains(n) {
            if let previous = notes[n]?.folder, previous != f { folders[previous]?.notes.removeAll { $0 == n } }
            notes[n]?.folder = f
        }
        folders[f]?.notes = new
    }

    mutating func setLabels(ofFolder f: Int, to new: Set<Int>) {
        guard let old = folders[f]?.labels else { return }
        for l in old.subtracting(new) { labels[l]?.folders.remove(f) }
        for l in new.subtracting(old) { labels[l]?.folders.insert(f) }
        folders[f]?.labels = new
    }

    mutating func setFolders(ofLabel l: Int, to new: Set<Int>) {
        guard let old = labels[l]?.folders else { return }
        for f in old.subtracting(new) { folders[f]?.labels.remove(l) }
        for f in new.subtracting(old) { folders[f]?.labels.insert(l) }
        labels[l]?.folders = new
    }

    mutating func setNotes(ofLabel l: Int, to new: Set<Int>) {
        guard let old = labels[l]?.notes else { return }
        for n in old.subtracting(new) where notes[n]?.label == l { notes[n]?.label = nil }
        for n in new.subtracting(old) {
            if let previous = notes[n]?.label, previous != l { labels[previous]?.notes.remove(n) }
            notes[n]?.label = l
        }
        labels[l]?.notes = new
    }

    // MARK: Deletes, by the rules

    struct Denial: Equatable {
        var object: ObjectID
        var relationship: String
        var destinations: [ObjectID]
    }

    /// A note's label is `deny`: a note whose label exists cannot go.
    func denial(ofNote n: Int) -> Denial? {
        guard let l = notes[n]?.label, labels[l] != nil else { return nil }
        return Denial(object: Self.noteID(n), relationship: "label", destinations: [Self.labelID(l)])
    }

    /// Deletes a folder: its notes cascade (refused whole if one of them
    /// has a label: the first, in the folder's order), its labels nullify,
    /// `pinned` has no inverse to nullify.
    mutating func deleteFolder(_ f: Int) -> Denial? {
        guard let folder = folders[f] else { return nil }
        let cascaded = folder.notes.filter { notes[$0] != nil }
        for n in cascaded { if let denial = denial(ofNote: n) { return denial } }
        for l in folder.labels { labels[l]?.folders.remove(f) }
        for n in cascaded { notes[n] = nil }
        folders[f] = nil
        return nil
    }

    /// Deletes a note: denied while its label exists; its folder nullifies.
    mutating func deleteNote(_ n: Int) -> Denial? {
        guard let note = notes[n] else { return nil }
        if let denial = denial(ofNote: n) { return denial }
        if let f = note.folder { folders[f]?.notes.removeAll { $0 == n } }
        notes[n] = nil
        return nil
    }

    /// Deletes a label: its folders nullify; its notes (no action) keep it.
    mutating func deleteLabel(_ l: Int) {
        guard let label = labels[l] else { return }
        for f in label.folders { folders[f]?.labels.remove(l) }
        labels[l] = nil
    }

    // MARK: What a save refuses

    struct Reference: Hashable, CustomStringConvertible {
        var object: ObjectID
        var relationship: String
        var destination: ObjectID
        var description: String { "\(object).\(relationship) → \(destination)" }
    }

    /// References to objects that do not exist.
    var dangling: Set<Reference> {
        var result = Set<Reference>()
        func check(_ object: ObjectID, _ relationship: String, _ destination: ObjectID, _ exists: Bool) {
            if !exists { result.insert(Reference(object: object, relationship: relationship, destination: destination)) }
        }
        for (f, folder) in folders {
            for n in folder.notes { check(Self.folderID(f), "notes", Self.noteID(n), notes[n] != nil) }
            for l in folder.labels { check(Self.folderID(f), "labels", Self.labelID(l), labels[l] != nil) }
            if let n = folder.pinned { check(Self.folderID(f), "pinned", Self.noteID(n), notes[n] != nil) }
        }
        for (n, note) in notes {
            if let f = note.folder { check(Self.noteID(n), "folder", Self.folderID(f), folders[f] != nil) }
            if let l = note.label { check(Self.noteID(n), "label", Self.labelID(l), labels[l] != nil) }
        }
        for (l, label) in labels {
            for f in label.folders { check(Self.labelID(l), "folders", Self.folderID(f), folders[f] != nil) }
            for n in label.notes { check(Self.labelID(l), "notes", Self.noteID(n), notes[n] != nil) }
        }
        return result
    }

    /// The model's rules broken: a note without a folder, a folder with more than two labels.
    var validationFailures: Set<ValidationFailure> {
        var result = Set<ValidationFailure>()
        for (n, note) in notes where note.folder == nil {
            result.insert(ValidationFailure(code: .missingMandatoryProperty, object: Self.noteID(n), key: "folder"))
        }
        for (f, folder) in folders where folder.labels.count > 2 {
            result.insert(ValidationFailure(code: .relationshipExceedsMaximumCount, object: Self.folderID(f), key: "labels"))
        }
        return result
    }

    /// Two sides of a pair that disagree (a reference to a missing object is
    /// `dangling`'s, not this).
    var inverseProblems: [String] {
        var problems: [String] = []
        for (f, folder) in folders {
            for n in folder.notes where notes[n] != nil && notes[n]?.folder != f { problems.append("Folder \(f).notes holds \(n), whose folder is \(String(describing: notes[n]?.folder))") }
            for l in folder.labels where labels[l] != nil && labels[l]?.folders.contains(f) != true { problems.append("Folder \(f).labels holds \(l), whose folders lack it") }
        }
        for (n, note) in notes {
            if let f = note.folder, let folder = folders[f], !folder.notes.contains(n) { problems.append("Note \(n).folder is \(f), whose notes lack it") }
            if let l = note.label, let label = labels[l], !label.notes.contains(n) { problems.append("Note \(n).label is \(l), whose notes lack it") }
        }
        for (l, label) in labels {
            for f in label.folders where folders[f] != nil && folders[f]?.labels.contains(l) != true { problems.append("Label \(l).folders holds \(f), whose labels lack it") }
            for n in label.notes where notes[n] != nil && notes[n]?.label != l { problems.append("Label \(l).notes holds \(n), whose label is \(String(describing: notes[n]?.label))") }
        }
        return problems
    }

    // MARK: Reading a context or store into this form

    /// The graph of these records, each array's lack of repeats checked on the way.
    static func graph(folders: [RGFolder], notes: [RGNote], tasks: [RGTask], labels: [RGLabel]) -> RGGraph {
        var graph = RGGraph()
        for f in folders {
            #expect(Set(f.notes).count == f.notes.count && Set(f.labels).count == f.labels.count, "repeats in \(f)")
            graph.folders[f.id] = Folder(name: f.name, rank: f.rank, notes: f.notes, labels: Set(f.labels), pinned: f.pinned)
        }
        for n in notes { graph.notes[n.id] = Note(title: n.title, kb: n.kb, done: nil, folder: n.folder, label: n.label) }
        for t in tasks {
            #expect(graph.notes[t.id] == nil, "task \(t.id) is also a note")
            graph.notes[t.id] = Note(title: t.title, kb: t.kb, done: t.done, folder: t.folder, label: t.label)
        }
        for l in labels {
            #expect(Set(l.folders).count == l.folders.count && Set(l.notes).count == l.notes.count, "repeats in \(l)")
            graph.labels[l.id] = Label(name: l.name, folders: Set(l.folders), notes: Set(l.notes))
        }
        return graph
    }

    /// The graph a context shows: a request per entity. A request of Note
    /// reads notes only, with or without its sub-entities (Task's records
    /// are of another type): Task has a request of its own.
    static func read(_ context: ObjectContext) throws -> RGGraph {
        let notes = try context.fetch(FetchRequest<RGNote>())
        var parentAlone = FetchRequest<RGNote>(entityName: "Note")
        parentAlone.includesSubentities = false
        expectEqual(Set(try context.fetch(parentAlone).map(\.id)), Set(notes.map(\.id)), "Note without sub-entities")
        return graph(
            folders: try context.fetch(FetchRequest<RGFolder>()), notes: notes,
            tasks: try context.fetch(FetchRequest<RGTask>()), labels: try context.fetch(FetchRequest<RGLabel>()))
    }

    /// The graph a store holds, read erased — each object's entity and
    /// identity checked — and typed.
    static func read(_ store: ObjectStore) throws -> RGGraph {
        let folders = try store.objects(ofEntity: "Folder"), notes = try store.objects(ofEntity: "Note")
        let tasks = try store.objects(ofEntity: "Task"), labels = try store.objects(ofEntity: "Label")
        for object in folders { #expect(object.entityName == "Folder" && object.as(RGFolder.self).map { object.id == folderID($0.id) } == true, "\(object)") }
        for object in labels { #expect(object.entityName == "Label" && object.as(RGLabel.self).map { object.id == labelID($0.id) } == true, "\(object)") }
        for object in notes {
            if let n = object.as(RGNote.self) {
                #expect(object.entityName == "Note" && object.id == noteID(n.id))
            } else if let t = object.as(RGTask.self) {
                #expect(object.entityName == "Task" && object.id == noteID(t.id))
            } else {
                Issue.record("\(object) is neither a note nor a task")
            }
        }
        // The sub-entity alone, erased and typed; the parent's record type.
        expectEqual(tasks.map(\.id), notes.filter { $0.entityName == "Task" }.map(\.id), "Task")
        expectEqual(store.objects(RGTask.self).map(\.id), tasks.compactMap { $0.as(RGTask.self)?.id })
        expectEqual(store.objects(RGNote.self).map(\.id), notes.compactMap { $0.as(RGNote.self)?.id })
        return graph(
            folders: folders.compactMap { $0.as(RGFolder.self) }, notes: notes.compactMap { $0.as(RGNote.self) },
            tasks: tasks.compactMap { $0.as(RGTask.self) }, labels: labels.compactMap { $0.as(RGLabel.self) })
    }

    /// What differs from `other`, for a message.
    func difference(from other: RGGraph) -> String {
        var lines: [String] = []
        for id in Set(folders.keys).union(other.folders.keys).sorted() where folders[id] != other.folders[id] {
            lines.append("Folder \(id): \(String(describing: other.folders[id])) → \(String(describing: folders[id]))")
        }
        for id in Set(notes.keys).union(other.notes.keys).sorted() where notes[id] != other.notes[id] {
            lines.append("Note \(id): \(String(describing: other.notes[id])) → \(String(describing: notes[id]))")
        }
        for id in Set(labels.keys).union(other.labels.keys).sorted() where labels[id] != other.labels[id] {
            lines.append("Label \(id): \(String(describing: other.labels[id])) → \(String(describing: labels[id]))")
        }
        return lines.joined(separator: "\n")
    }
}

// MARK: - The reference evaluator

/// An object of `RGGraph`, and the model's schema as the evaluator reads it.
enum RGRef: Hashable {
    case folder(Int), note(Int), label(Int)

    var entity: String {
        switch self {
        case .folder: "Folder"
        case .note: "Note"
        case .label: "Label"
        }
    }

    var id: Int {
        switch self {
        case .folder(let id), .note(let id), .label(let id): id
        }
    }

    /// Relationships by entity: name, destination, to-many.
    static let relationships: [String: [(name: String, destination: String, toMany: Bool)]] = [
        "Folder": [("notes", "Note", true), ("labels", "Label", true), ("pinned", "Note", false)],
        "Note": [("folder", "Folder", false), ("label", "Label", false)],
        "Label": [("folders", "Folder", true), ("notes", "Note", true)],
    ]
    /// Attributes by entity: name, whether an integer (else a string).
    static let attributes: [String: [(name: String, isInt: Bool)]] = [
        "Folder": [("name", false), ("rank", true)],
        "Note": [("title", false), ("kb", true)],
        "Label": [("name", false)],
    ]

    static func make(_ entity: String, _ id: Int) -> RGRef {
        switch entity {
        case "Folder": .folder(id)
        case "Note": .note(id)
        default: .label(id)
        }
    }

    /// The destinations of a relationship, in the graph.
    func follow(_ relationship: String, in graph: RGGraph) -> [RGRef] {
        switch (self, relationship) {
        case (.folder(let f), "notes"): return (graph.folders[f]?.notes ?? []).map(RGRef.note)
        case (.folder(let f), "labels"): return (graph.folders[f]?.labels ?? []).sorted().map(RGRef.label)
        case (.folder(let f), "pinned"): return graph.folders[f]?.pinned.map { [.note($0)] } ?? []
        case (.note(let n), "folder"): return graph.notes[n]?.folder.map { [.folder($0)] } ?? []
        case (.note(let n), "label"): return graph.notes[n]?.label.map { [.label($0)] } ?? []
        case (.label(let l), "folders"): return (graph.labels[l]?.folders ?? []).sorted().map(RGRef.folder)
        case (.label(let l), "notes"): return (graph.labels[l]?.notes ?? []).sorted().map(RGRef.note)
        default: return []
        }
    }

    /// An attribute's value (nil: none).
    func attribute(_ name: String, in graph: RGGraph) -> RecordValue? {
        switch (self, name) {
        case (.folder(let f), "name"): return graph.folders[f].map { .string($0.name) }
        case (.folder(let f), "rank"): return graph.folders[f].map { .int($0.rank) }
        case (.note(let n), "title"): return graph.notes[n].map { .string($0.title) }
        case (.note(let n), "kb"): return graph.notes[n].map { .int($0.kb) }
        case (.label(let l), "name"): return graph.labels[l].map { .string($0.name) }
        default: return nil
        }
    }
}

/// A predicate as text for the library and as a test for the evaluator.
struct RGQuery {
    var format: String
    var arguments: [RecordValue]
    var test: (RGRef) -> Bool
}

enum RGQueries {
    static let names = ["a", "b", "c"]

    /// `value op constant` as the documented semantics say: nil equals
    /// nothing and differs from everything; an order with nil is false.
    static func compare(_ value: RecordValue?, _ op: String, _ constant: RecordValue) -> Bool {
        guard let value, value != .null else { return op == "!=" }
        switch (value, constant) {
        case let (.int(a), .int(b)):
            switch op {
            case "==": return a == b
            case "!=": return a != b
            case "<": return a < b
            case ">=": return a >= b
            default: return a > b
            }
        case let (.string(a), .string(b)):
            return op == "==" ? a == b : a != b
        default:
            return op == "!="
        }
    }

    /// A random attribute of an entity, an operator and a constant.
    static func condition(_ entity: String, _ g: inout SeededGenerator) -> (key: String, op: String, constant: RecordValue) {
        let attributes = RGRef.attributes[entity] ?? []
        let attribute = attributes[g.int(0..<attributes.count)]
        if attribute.isInt {
            return (attribute.name, ["==", "!=", "<", ">=", ">"][g.int(0..<5)], .int(g.int(0...9)))
        }
        return (attribute.name, ["==", "!="][g.int(0..<2)], .string(names[g.int(0..<names.count)]))
    }

    /// One comparison, quantifier, count or subquery.
    static func atom(_ entity: String, _ graph: RGGraph, _ g: inout SeededGenerator) -> RGQuery {
        let relationships = RGRef.relationships[entity] ?? []
        let toOne = relationships.filter { !$0.toMany }, toMany = relationships.filter(\.toMany)
        var kind = g.int(0..<6)
        if kind == 2 && toOne.isEmpty || kind >= 3 && toMany.isEmpty { kind = 0 }
        switch kind {
        case 0, 1:   // a path through to-one relationships (0, 1 or 2 of them)
            var path: [String] = [], destination = entity
            var hops = g.int(0...2)
            while hops > 0, let hop = (RGRef.relationships[destination] ?? []).filter({ !$0.toMany }).randomElement(using: &g) {
                path.append(hop.name)
                destination = hop.destination
                hops -= 1
            }
            let (key, op, constant) = condition(destination, &g)
            let keys = path
            return RGQuery(format: (path + [key]).joined(separator: ".") + " \(op) %@", arguments: [constant]) { object in
                var current: RGRef? = object
                for key in keys { current = current?.follow(key, in: graph).first }
                return compare(current?.attribute(key, in: graph), op, constant)
            }
        case 2:   // a to-one relationship against nil
            let r = toOne[g.int(0..<toOne.count)]
            let isNil = g.chance(0.5)
            return RGQuery(format: "\(r.name) \(isNil ? "==" : "!=") nil", arguments: []) { object in
                object.follow(r.name, in: graph).isEmpty == isNil
            }
        case 3:   // ANY / ALL / NONE through a to-many relationship (and maybe one more)
            let first = toMany[g.int(0..<toMany.count)]
            var path = [first.name], destination = first.destination, steps = [true]
            if g.chance(0.4), let second = RGRef.relationships[destination]?.randomElement(using: &g) {
                path.append(second.name)
                destination = second.destination
                steps.append(second.toMany)
            }
            let (key, op, constant) = condition(destination, &g)
            let quantifier = ["ANY", "ALL", "NONE"][g.int(0..<3)]
            let keys = path
            return RGQuery(format: "\(quantifier) \((path + [key]).joined(separator: ".")) \(op) %@", arguments: [constant]) { object in
                // Each to-one step gives one value (nil when empty), each to-many step its elements.
                var values: [RGRef?] = [object]
                for (key, toMany) in zip(keys, steps) {
                    values = values.flatMap { value -> [RGRef?] in
                        guard let value else { return [nil] }
                        let destinations = value.follow(key, in: graph)
                        return toMany ? destinations : [destinations.first]
                    }
                }
                let results = values.map { compare($0?.attribute(key, in: graph), op, constant) }
                switch quantifier {
                case "ANY": return results.contains(true)
                case "ALL": return !results.contains(false)
                default: return !results.contains(true)
                }
            }
        case 4:   // @count
            let r = toMany[g.int(0..<toMany.count)]
            let op = ["==", "<", ">=", ">"][g.int(0..<4)], n = g.int(0...3)
            return RGQuery(format: "\(r.name).@count \(op) %@", arguments: [.int(n)]) { object in
                compare(.int(object.follow(r.name, in: graph).count), op, .int(n))
            }
        default:   // SUBQUERY(…).@count
            let r = toMany[g.int(0..<toMany.count)]
            let a = condition(r.destination, &g), b = condition(r.destination, &g)
            let both = g.chance(0.5)
            let op = [">", ">=", "=="][g.int(0..<3)], n = g.int(0...2)
            let inner = "$x.\(a.key) \(a.op) %@" + (both ? " AND $x.\(b.key) \(b.op) %@" : "")
            return RGQuery(
                format: "SUBQUERY(\(r.name), $x, \(inner)).@count \(op) %@",
                arguments: both ? [a.constant, b.constant, .int(n)] : [a.constant, .int(n)]
            ) { object in
                let count = object.follow(r.name, in: graph).filter { d in
                    compare(d.attribute(a.key, in: graph), a.op, a.constant) && (!both || compare(d.attribute(b.key, in: graph), b.op, b.constant))
                }.count
                return compare(.int(count), op, .int(n))
            }
        }
    }

    /// An atom, or two joined, or one negated.
    static func random(_ entity: String, _ graph: RGGraph, _ g: inout SeededGenerator) -> RGQuery {
        let a = atom(entity, graph, &g)
        switch g.int(0..<5) {
        case 0:
            let b = atom(entity, graph, &g)
            return RGQuery(format: "(\(a.format)) AND (\(b.format))", arguments: a.arguments + b.arguments) { a.test($0) && b.test($0) }
        case 1:
            let b = atom(entity, graph, &g)
            return RGQuery(format: "(\(a.format)) OR (\(b.format))", arguments: a.arguments + b.arguments) { a.test($0) || b.test($0) }
        case 2:
            return RGQuery(format: "NOT (\(a.format))", arguments: a.arguments) { !a.test($0) }
        default:
            return a
        }
    }

    /// The identities a format predicate fetches from `R`'s entity, each once.
    static func fetch<R: Record & Codable>(
        _ context: ObjectContext, _ type: R.Type, _ query: RGQuery, _ note: String
    ) throws -> Set<Int> where R.ID == Int {
        let predicate = RecordPredicate<R>(try FormatPredicate(format: query.format, arguments: query.arguments))
        let found = try context.fetch(FetchRequest<R>(predicate: predicate))
        expectEqual(found.count, Set(found.map(\.id)).count, "\(note): each once")
        try expectEqual(context.count(for: FetchRequest<R>(predicate: predicate)), found.count, "\(note): count(for:)")
        return Set(found.map(\.id))
    }

    /// A random predicate on each entity, fetched and evaluated (notes and
    /// tasks each with a request of their entity); and notes and tasks
    /// sorted through their folder.
    static func check(_ context: ObjectContext, _ graph: RGGraph, _ g: inout SeededGenerator, _ note: String) throws {
        for entity in ["Folder", "Note", "Label"] {
            let query = random(entity, graph, &g)
            let what = "\(note): \(entity) where \(query.format) \(query.arguments)"
            switch entity {
            case "Folder":
                let expected = Set(graph.folders.keys.filter { query.test(.folder($0)) })
                try expectEqual(fetch(context, RGFolder.self, query, what), expected, "\(what)")
            case "Note":
                let notes = Set(graph.notes.filter { $0.value.done == nil }.keys.filter { query.test(.note($0)) })
                let tasks = Set(graph.notes.filter { $0.value.done != nil }.keys.filter { query.test(.note($0)) })
                try expectEqual(fetch(context, RGNote.self, query, what), notes, "\(what)")
                try expectEqual(fetch(context, RGTask.self, query, what), tasks, "\(what) (tasks)")
            default:
                let expected = Set(graph.labels.keys.filter { query.test(.label($0)) })
                try expectEqual(fetch(context, RGLabel.self, query, what), expected, "\(what)")
            }
        }
        // Notes (and tasks) by their folder's rank (nil first ascending, last descending), then title, then identity.
        let ascending = g.chance(0.5)
        let sortKeys = [SortKey("folder.rank", ascending: ascending), SortKey("title"), SortKey("id")]
        func reference(tasks: Bool) -> [Int] {
            graph.notes.filter { ($0.value.done != nil) == tasks }
                .map { (id: $0.key, rank: $0.value.folder.flatMap { graph.folders[$0]?.rank }, title: $0.value.title) }
                .sorted { a, b in
                    if a.rank != b.rank {
                        guard let x = a.rank else { return ascending }
                        guard let y = b.rank else { return !ascending }
                        return ascending ? x < y : x > y
                    }
                    return (a.title, a.id) < (b.title, b.id)
                }
                .map(\.id)
        }
        let order = "notes by folder.rank \(ascending ? "ascending" : "descending")"
        expectEqual(integerIDs(try context.fetch(FetchRequest<RGNote>(sortKeys: sortKeys))), reference(tasks: false), "\(note): \(order)")
        expectEqual(integerIDs(try context.fetch(FetchRequest<RGTask>(sortKeys: sortKeys))), reference(tasks: true), "\(note): tasks by folder.rank")
    }
}

// MARK: - The tests

@Suite struct RelationshipPropertyTests {
    /// Fixed seeds, and one more from `TABLE_TEST_SEED` or fresh each run.
    static let seeds: [UInt64] = [1, 7, 42, 2026]

    static func seed(_ round: Int) -> UInt64 {
        round < seeds.count ? seeds[round] : SeededGenerator.runSeed()
    }

    /// The rounds of a seeded test: every fixed seed and a fresh one in the
    /// full run; the first fixed seed and a fresh one in a quick one.
    static let rounds: [Int] = TestScale.isFull ? Array(0...seeds.count) : [0, seeds.count]

    // MARK: Notes and tasks

    /// A note or a task, as the context sees it.
    static func note(_ context: ObjectContext, _ n: Int) throws -> any RGNoteFields {
        if let note = try context.object(RGNote.self, id: n) { return note }
        return try #require(try context.object(RGTask.self, id: n), "no note or task \(n)")
    }

    /// Changes one field set of a note or task.
    static func updateNote(_ context: ObjectContext, _ n: Int, _ change: (inout any RGNoteFields) -> Void) throws {
        var record = try note(context, n)
        change(&record)
        try update(context, record)
    }

    static func update<R: RGNoteFields>(_ context: ObjectContext, _ record: R) throws {
        try context.update(record)
    }

    /// Deletes a note or a task (its entity's record type).
    static func deleteNote(_ context: ObjectContext, _ n: Int) throws {
        if try context.object(RGNote.self, id: n) != nil {
            try context.delete(RGNote.self, id: n)
        } else {
            try context.delete(RGTask.self, id: n)
        }
    }

    static func folder(_ context: ObjectContext, _ f: Int) throws -> RGFolder {
        try #require(try context.object(RGFolder.self, id: f))
    }

    static func label(_ context: ObjectContext, _ l: Int) throws -> RGLabel {
        try #require(try context.object(RGLabel.self, id: l))
    }

    // MARK: The diary

    @Test(arguments: 0..<TestScale.cases(2, full: 3))
    func randomDiaryGraphsFollowTheModel(run: Int) throws {
        let seed = SeededGenerator.runSeed() &+ UInt64(run)
        var g = SeededGenerator(seed: seed)
        let folder = TemporaryFolder("relationship-diary")
        let url = folder.url("diary.store")
        let store = try ObjectStore(model: relationshipModel, fileURL: url)
        let context = ObjectContext(store: store, name: "writer")
        let reader = ObjectContext(store: store, name: "reader")
        var model = DiaryOracle(), saved = DiaryOracle()
        var nextID = 1
        let types = ["image", "audio", "video"]
        func pick(_ ids: [Int]) -> Int? { ids.isEmpty ? nil : ids[g.int(0..<ids.count)] }
        func entry(_ id: Int) throws -> GEntry { try #require(try context.object(GEntry.self, id: id)) }
        func updateMedium(_ id: Int, entry: Int??, coverOf: Int?? = .none) throws {
            if var m = try context.object(GMedium.self, id: id) {
                if let entry { m.entry = entry }
                if let coverOf { m.coverOf = coverOf }
                try context.update(m)
            } else {
                var p = try #require(try context.object(GPhoto.self, id: id))
                if let entry { p.entry = entry }
                if let coverOf { p.coverOf = coverOf }
                try context.update(p)
            }
        }

        var counts: [String: Int] = [:]
        for step in 0..<250 {
            let action = g.int(0..<15)
            counts["action \(action)", default: 0] += 1
            let note = "seed \(seed) step \(step) action \(action)"
            switch action {
            case 0, 1:   // insert an entry, maybe tagged
                let id = nextID
                nextID += 1
                let tags = model.tags.keys.sorted().filter { _ in g.chance(0.3) }
                try context.insert(GEntry(id: id, text: "e\(g.int(0..<5))", month: g.int(1...12), tags: tags))
                model.entries[id] = .init(text: "", month: 0, tags: Set(tags))
                let e = try entry(id)
                model.entries[id]?.text = e.text
                model.entries[id]?.month = e.month
                for t in tags { model.tags[t]?.entries.insert(id) }
            case 2, 3:   // insert a medium or a photo, linked or not
                let id = nextID
                nextID += 1
                let e = g.chance(0.7) ? pick(model.entries.keys.sorted()) : nil
                let c = g.chance(0.3) ? pick(model.entries.keys.sorted()) : nil
                let type = types[g.int(0..<3)], kb = g.int(0..<10)
                let width = g.chance(0.3) ? g.int(1...9) : nil
                if let width {
                    try context.insert(GPhoto(id: id, type: type, kb: kb, width: width, entry: e, coverOf: c))
                } else {
                    try context.insert(GMedium(id: id, type: type, kb: kb, entry: e, coverOf: c))
                }
                model.media[id] = .init(type: type, kb: kb, width: width)
                model.link(medium: id, to: e)
                if let c { model.cover(entry: c, with: id) }
            case 4:   // insert a tag
                let id = nextID
                nextID += 1
                try context.insert(GTag(id: id, name: "t\(g.int(0..<3))"))
                model.tags[id] = ("", [])
                model.tags[id]?.name = try #require(try context.object(GTag.self, id: id)).name
            case 5:   // relink or unlink a medium from its side
                guard let m = pick(model.media.keys.sorted()) else { continue }
                let e = g.chance(0.8) ? pick(model.entries.keys.sorted()) : nil
                try updateMedium(m, entry: .some(e))
                model.link(medium: m, to: e)
            case 6:   // link or unlink from the entry's side
                guard let e = pick(model.entries.keys.sorted()), let m = pick(model.media.keys.sorted()) else { continue }
                var record = try entry(e)
                if record.media.contains(m) {
                    record.media.removeAll { $0 == m }
                    try context.update(record)
                    model.link(medium: m, to: nil)
                } else {
                    record.media.insert(m, at: g.int(0...record.media.count))
                    try context.update(record)
                    model.link(medium: m, to: e)
                }
            case 7:   // set or clear a cover
                guard let e = pick(model.entries.keys.sorted()) else { continue }
                let m = g.chance(0.8) ? pick(model.media.keys.sorted()) : nil
                var record = try entry(e)
                record.cover = m
                try context.update(record)
                model.cover(entry: e, with: m)
            case 8:   // tag or untag, from either side
                guard let e = pick(model.entries.keys.sorted()), let t = pick(model.tags.keys.sorted()) else { continue }
                let tagged = model.tags[t]?.entries.contains(e) == true
                if g.chance(0.5) {
                    var record = try entry(e)
                    if tagged { record.tags.removeAll { $0 == t } } else { record.tags.append(t) }
                    try context.update(record)
                } else {
                    var record = try #require(try context.object(GTag.self, id: t))
                    if tagged { record.entries.removeAll { $0 == e } } else { record.entries.append(e) }
                    try context.update(record)
                }
                if tagged {
                    model.tags[t]?.entries.remove(e)
                    model.entries[e]?.tags.remove(t)
                } else {
                    model.tags[t]?.entries.insert(e)
                    model.entries[e]?.tags.insert(t)
                }
            case 9:   // delete an entry: cascade, nullify, no action
                guard let e = pick(model.entries.keys.sorted()) else { continue }
                try context.delete(GEntry.self, id: e)
                model.deleteEntry(e)
            case 10:   // delete a medium (or a photo: its own record type)
                guard let m = pick(model.media.keys.sorted()) else { continue }
                if model.media[m]?.width == nil {
                    try context.delete(GMedium.self, id: m)
                } else {
                    try context.delete(GPhoto.self, id: m)
                }
                model.deleteMedium(m)
            case 11:   // delete a tag: denied while it has entries
                guard let t = pick(model.tags.keys.sorted()) else { continue }
                if let entries = model.tags[t]?.entries, !entries.isEmpty {
                    let error = try #require(throws: ContextError.self, "\(note)") { try context.delete(GTag.self, id: t) }
                    guard case .deleteDenied(.tag(t), "entries", let destinations) = error else {
                        Issue.record("\(note): \(error)")
                        continue
                    }
                    expectEqual(Set(destinations.map(\.key)), Set(entries.map { RecordValue.int($0) }), "\(note)")
                    counts["denied", default: 0] += 1
                } else {
                    try context.delete(GTag.self, id: t)
                    model.tags[t] = nil
                }
            case 12:   // repair a dangling cover
                guard let m = model.dangling.first?.0 else { continue }
                try updateMedium(m, entry: nil, coverOf: .some(nil))
                model.media[m]?.coverOf = nil
            case 13:   // save (refused while a reference dangles), merge, reopen the file
                if let first = model.dangling.first {
                    let (m, e) = first
                    let error = try #require(throws: StoreError.self, "\(note)") { try context.save() }
                    guard case .danglingReference(let object, "coverOf", let destination) = error,
                        model.dangling.contains(where: { ObjectID.medium($0.0) == object && ObjectID.entry($0.1) == destination })
                    else {
                        Issue.record("\(note): \(error), expected one like Medium \(m) → Entry \(e)")
                        continue
                    }
                    counts["refused dangling", default: 0] += 1
                } else {
                    let didSave = try context.save()
                    saved = model
                    counts["saved", default: 0] += 1
                    reader.mergeChanges(fromContextDidSave: didSave)
                    try expectEqual(DiaryOracle.observed(reader), saved, "\(note): the merging context")
                    let reopened = try ObjectStore(model: relationshipModel, fileURL: url)
                    try expectEqual(DiaryOracle.observed(reopened), saved, "\(note): the file")
                }
            default:   // roll back, now and then
                if g.chance(0.3) {
                    context.rollback()
                    model = saved
                }
            }
            let view = try DiaryOracle.observed(context)
            expectEqual(view, model, "\(note)")
            if view != model { return }
            try Self.checkDiaryQueries(context, model, &g, note)
        }
        // The run went through what it is meant to test.
        #expect(counts["saved", default: 0] >= 3 && counts["action 9", default: 0] >= 3 && counts["action 6", default: 0] >= 3, "seed \(seed): \(counts)")
    }

    /// A random predicate through a relationship, against a reference evaluator on the model.
    static func checkDiaryQueries(_ context: ObjectContext, _ model: DiaryOracle, _ g: inout SeededGenerator, _ note: String) throws {
        let type = ["image", "audio", "video"][g.int(0..<3)]
        let n = g.int(0..<10)
        let entryChecks: [(String, [RecordValue], (DiaryOracle.Entry) -> Bool)] = [
            ("ANY media.type == %@", [.string(type)], { e in e.media.contains { model.media[$0]?.type == type } }),
            ("ALL media.kb < %@", [.int(n)], { e in e.media.allSatisfy { (model.media[$0]?.kb ?? 0) < n } }),
            ("NONE media.type == %@", [.string(type)], { e in !e.media.contains { model.media[$0]?.type == type } }),
            ("media.@count >= %@", [.int(n % 4)], { e in e.media.count >= n % 4 }),
            ("SUBQUERY(media, $m, $m.kb > %@).@count > 0", [.int(n)], { e in e.media.contains { (model.media[$0]?.kb ?? 0) > n } }),
            ("ANY tags.name == %@", [.string("t\(n % 3)")], { e in e.tags.contains { model.tags[$0]?.name == "t\(n % 3)" } }),
            ("cover.kb > %@", [.int(n)], { e in e.cover.flatMap { model.media[$0]?.kb }.map { $0 > n } ?? false }),
        ]
        let (format, arguments, expected) = entryChecks[g.int(0..<entryChecks.count)]
        let found = try context.fetch(FetchRequest<GEntry>(predicate: RecordPredicate(try FormatPredicate(format: format, arguments: arguments))))
        expectEqual(Set(found.map(\.id)), Set(model.entries.filter { expected($0.value) }.keys), "\(note): \(format) \(arguments)")

        // Media (and photos) by their entry's month (nil first), then identity.
        let month = g.int(1...12)
        let predicate = try FormatPredicate(format: "entry.month <= %@ OR entry == nil", arguments: [.int(month)])
        let sortKeys = [SortKey("entry.month"), SortKey("id")]
        func reference(photos: Bool) -> [Int] {
            model.media
                .filter { ($0.value.width != nil) == photos }
                .filter { $0.value.entry.flatMap { model.entries[$0]?.month }.map { $0 <= month } ?? true }
                .map { (month: $0.value.entry.flatMap { model.entries[$0]?.month } ?? Int.min, id: $0.key) }
                .sorted { ($0.month, $0.id) < ($1.month, $1.id) }
                .map(\.id)
        }
        let media = try context.fetch(FetchRequest<GMedium>(predicate: RecordPredicate(predicate), sortKeys: sortKeys))
        expectEqual(integerIDs(media), reference(photos: false), "\(note): media by entry.month")
        let photos = try context.fetch(FetchRequest<GPhoto>(predicate: RecordPredicate(predicate), sortKeys: sortKeys))
        expectEqual(integerIDs(photos), reference(photos: true), "\(note): photos by entry.month")
    }

    // MARK: Folders, notes, tasks and labels from two contexts

    @Test(arguments: rounds)
    func randomGraphsFromTwoContexts(round: Int) throws {
        let seed = Self.seed(round)
        var g = SeededGenerator(seed: seed)
        let folder = TemporaryFolder("relationship-random")
        let url = folder.url("graph.store")
        let store = try ObjectStore(model: randomGraphModel, fileURL: url)
        let contexts = [ObjectContext(store: store, name: "a"), ObjectContext(store: store, name: "b")]
        var views = [RGGraph(), RGGraph()]
        var saved = RGGraph()
        var active = 0
        var nextID = 1
        var counts: [String: Int] = [:]
        let names = RGQueries.names
        func pick(_ ids: some Collection<Int>) -> Int? { ids.isEmpty ? nil : ids.sorted()[g.int(0..<ids.count)] }

        /// Repairs one reference or rule a save would refuse: true if there was one.
        /// A note without a folder when there is none gets a new folder.
        func repairOne(_ context: ObjectContext, _ view: inout RGGraph) throws -> Bool {
            if let reference = view.dangling.sorted(by: { $0.description < $1.description }).first {
                guard case .int(let id) = reference.object.key else { return false }
                if reference.relationship == "pinned" {
                    var record = try Self.folder(context, id)
                    record.pinned = nil
                    try context.update(record)
                    view.folders[id]?.pinned = nil
                } else {
                    expectEqual(reference.relationship, "label", "\(reference)")
                    try Self.updateNote(context, id) { $0.label = nil }
                    view.notes[id]?.label = nil
                }
                return true
            }
            guard let failure = view.validationFailures.sorted(by: { "\($0)" < "\($1)" }).first, case .int(let id) = failure.object.key else { return false }
            if failure.key == "folder" {
                let f: Int
                if let picked = pick(view.folders.keys) {
                    f = picked
                } else {
                    f = nextID
                    nextID += 1
                    try context.insert(RGFolder(id: f, name: names[0], rank: 0, labels: []))
                    view.folders[f] = .init(name: names[0], rank: 0)
                }
                try Self.updateNote(context, id) { $0.folder = f }
                view.setFolder(ofNote: id, to: f)
            } else {
                expectEqual(failure.key, "labels", "\(failure)")
                var record = try Self.folder(context, id)
                record.labels.removeLast()
                try context.update(record)
                view.setLabels(ofFolder: id, to: Set(record.labels))
            }
            return true
        }

        for step in 0..<220 {
            let current = active
            let context = contexts[current]
            var view = views[current]
            // Every 55th step repairs all a save would refuse and saves, so
            // that every seed (a fresh one too) saves at least four times.
            let saveNow = step % 55 == 54
            if saveNow {
                var repairs = 0
                while try repairOne(context, &view) {
                    repairs += 1
                    try #require(repairs < 1_000, "seed \(seed) step \(step): the repairs do not end")
                }
            }
            let action = saveNow ? 17 : g.int(0..<21)
            let note = "seed \(seed) step \(step) action \(action) context \(active)"
            counts["action \(action)", default: 0] += 1
            switch action {
            case 0:   // insert a folder, maybe labelled (more than two labels: refused at the save)
                let id = nextID
                nextID += 1
                let labels = view.labels.keys.sorted().filter { _ in g.chance(0.3) }
                let folder = RGFolder(id: id, name: names[g.int(0..<3)], rank: g.int(0...5), labels: labels)
                try context.insert(folder)
                view.folders[id] = .init(name: folder.name, rank: folder.rank)
                view.setLabels(ofFolder: id, to: Set(labels))
            case 1, 2:   // insert a note or a task, in a folder (or none: refused at the save), maybe labelled
                let id = nextID
                nextID += 1
                let f = g.chance(0.93) ? pick(view.folders.keys) : nil
                let l = g.chance(0.3) ? pick(view.labels.keys) : nil
                let title = names[g.int(0..<3)], kb = g.int(0...9)
                var done: Bool? = nil
                if g.chance(0.35) {
                    done = g.chance(0.5)
                    try context.insert(RGTask(id: id, title: title, kb: kb, done: done ?? false, folder: f, label: l))
                } else {
                    try context.insert(RGNote(id: id, title: title, kb: kb, folder: f, label: l))
                }
                view.notes[id] = .init(title: title, kb: kb, done: done)
                view.setFolder(ofNote: id, to: f)
                view.setLabel(ofNote: id, to: l)
            case 3:   // insert a label, maybe on folders
                let id = nextID
                nextID += 1
                let folders = view.folders.keys.sorted().filter { _ in g.chance(0.2) }
                try context.insert(RGLabel(id: id, name: names[g.int(0..<3)], folders: folders))
                view.labels[id] = .init(name: try Self.label(context, id).name)
                view.setFolders(ofLabel: id, to: Set(folders))
            case 4:   // a reference to an object that does not exist: refused, nothing changes
                let missing = nextID + 1000
                let expected: ContextError
                switch g.int(0..<4) {
                case 0:
                    expected = .danglingReference(object: RGGraph.noteID(nextID), relationship: "folder", destination: RGGraph.folderID(missing))
                    expectThrows(expected, "\(note)") { try context.insert(RGNote(id: nextID, title: "x", kb: 0, folder: missing)) }
                case 1:
                    guard let f = pick(view.folders.keys) else { continue }
                    var record = try Self.folder(context, f)
                    record.pinned = missing
                    expected = .danglingReference(object: RGGraph.folderID(f), relationship: "pinned", destination: RGGraph.noteID(missing))
                    expectThrows(expected, "\(note)") { try context.update(record) }
                case 2:
                    // A folder is not a note: a label's notes cannot hold one.
                    guard let l = pick(view.labels.keys), let f = pick(view.folders.keys) else { continue }
                    var record = try Self.label(context, l)
                    record.notes.append(f)
                    expected = .danglingReference(object: RGGraph.labelID(l), relationship: "notes", destination: RGGraph.noteID(f))
                    expectThrows(expected, "\(note)") { try context.update(record) }
                default:
                    guard let n = pick(view.notes.keys) else { continue }
                    expected = .danglingReference(object: RGGraph.noteID(n), relationship: "label", destination: RGGraph.labelID(missing))
                    expectThrows(expected, "\(note)") { try Self.updateNote(context, n) { $0.label = missing } }
                }
                counts["refused reference", default: 0] += 1
            case 5:   // move a note from its side (or take it out: refused at the save)
                guard let n = pick(view.notes.keys) else { continue }
                let f = g.chance(0.9) ? pick(view.folders.keys) : nil
                try Self.updateNote(context, n) { $0.folder = f }
                view.setFolder(ofNote: n, to: f)
            case 6:   // a folder's notes from its side: reorder, take out, add (from another folder), repeat
                guard let f = pick(view.folders.keys) else { continue }
                var record = try Self.folder(context, f)
                switch g.int(0..<4) {
                case 0: record.notes.shuffle(using: &g)
                case 1 where !record.notes.isEmpty: record.notes.remove(at: g.int(0..<record.notes.count))
                case 3 where !record.notes.isEmpty: record.notes.append(record.notes[g.int(0..<record.notes.count)])
                default:
                    guard let n = pick(view.notes.keys.filter { !record.notes.contains($0) }) else { continue }
                    record.notes.insert(n, at: g.int(0...record.notes.count))
                }
                try context.update(record)
                var once = Set<Int>()
                view.setNotes(ofFolder: f, to: record.notes.filter { once.insert($0).inserted })
            case 7:   // a note's label from its side
                guard let n = pick(view.notes.keys) else { continue }
                let l = g.chance(0.75) ? pick(view.labels.keys) : nil
                try Self.updateNote(context, n) { $0.label = l }
                view.setLabel(ofNote: n, to: l)
            case 8:   // a label's notes from its side
                guard let l = pick(view.labels.keys), let n = pick(view.notes.keys) else { continue }
                var record = try Self.label(context, l)
                if record.notes.contains(n) { record.notes.removeAll { $0 == n } } else { record.notes.append(n) }
                try context.update(record)
                view.setNotes(ofLabel: l, to: Set(record.notes))
            case 9:   // folders ⇄ labels, from either side
                guard let l = pick(view.labels.keys), let f = pick(view.folders.keys) else { continue }
                let linked = view.labels[l]?.folders.contains(f) == true
                if g.chance(0.5) {
                    var record = try Self.folder(context, f)
                    if linked { record.labels.removeAll { $0 == l } } else { record.labels.append(l) }
                    try context.update(record)
                    view.setLabels(ofFolder: f, to: Set(record.labels))
                } else {
                    var record = try Self.label(context, l)
                    if linked { record.folders.removeAll { $0 == f } } else { record.folders.append(f) }
                    try context.update(record)
                    view.setFolders(ofLabel: l, to: Set(record.folders))
                }
            case 10:   // pin a note (a relationship without an inverse) or unpin
                guard let f = pick(view.folders.keys) else { continue }
                let n = g.chance(0.8) ? pick(view.notes.keys) : nil
                var record = try Self.folder(context, f)
                record.pinned = n
                try context.update(record)
                view.folders[f]?.pinned = n
            case 11:   // edit values
                switch g.int(0..<3) {
                case 0:
                    guard let f = pick(view.folders.keys) else { continue }
                    var record = try Self.folder(context, f)
                    record.name = names[g.int(0..<3)]
                    record.rank = g.int(0...5)
                    try context.update(record)
                    view.folders[f]?.name = record.name
                    view.folders[f]?.rank = record.rank
                case 1:
                    guard let n = pick(view.notes.keys) else { continue }
                    let title = names[g.int(0..<3)], kb = g.int(0...9)
                    try Self.updateNote(context, n) {
                        $0.title = title
                        $0.kb = kb
                    }
                    view.notes[n]?.title = title
                    view.notes[n]?.kb = kb
                default:
                    guard let l = pick(view.labels.keys) else { continue }
                    var record = try Self.label(context, l)
                    record.name = names[g.int(0..<3)]
                    try context.update(record)
                    view.labels[l]?.name = record.name
                }
            case 12, 13, 14:   // delete a folder (cascade), a note (deny), a label (nullify, no action)
                var after = view
                let delete: () throws -> Void, denial: RGGraph.Denial?
                if action == 12 {
                    guard let f = pick(view.folders.keys) else { continue }
                    (delete, denial) = ({ try context.delete(RGFolder.self, id: f) }, after.deleteFolder(f))
                } else if action == 13 {
                    guard let n = pick(view.notes.keys) else { continue }
                    (delete, denial) = ({ try Self.deleteNote(context, n) }, after.deleteNote(n))
                } else {
                    guard let l = pick(view.labels.keys) else { continue }
                    after.deleteLabel(l)
                    (delete, denial) = ({ try context.delete(RGLabel.self, id: l) }, nil)
                }
                if let denial {
                    expectThrows(ContextError.deleteDenied(object: denial.object, relationship: denial.relationship, destinations: denial.destinations), "\(note)") {
                        try delete()
                    }
                    counts["denied", default: 0] += 1
                } else {
                    try delete()
                    view = after
                    counts["deleted", default: 0] += 1
                }
            case 15, 16:   // repair what a save would refuse
                _ = try repairOne(context, &view)
            case 17, 18:   // save: refused (dangling, validation) with the context and store unchanged, or saved and merged
                let dangling = view.dangling, failures = view.validationFailures
                if !dangling.isEmpty || !failures.isEmpty {
                    let error = try #require(throws: StoreError.self, "\(note)") { try context.save() }
                    if !dangling.isEmpty {
                        if case let .danglingReference(object, relationship, destination) = error,
                            dangling.contains(.init(object: object, relationship: relationship, destination: destination)) {
                            counts["refused dangling", default: 0] += 1
                        } else {
                            Issue.record("\(note): \(error); expected a dangling reference of \(dangling)")
                        }
                    } else if case .validation(let found) = error {
                        #expect(Set(found) == failures && found.count == failures.count, "\(note)")
                        counts["refused validation", default: 0] += 1
                    } else {
                        Issue.record("\(note): \(error); expected \(failures)")
                    }
                    #expect(context.hasChanges)
                    try expectEqual(RGGraph.read(store), saved, "\(note): the store after a refused save")
                } else {
                    let didSave = try context.save()
                    saved = view
                    counts["saved", default: 0] += 1
                    #expect(!context.hasChanges)
                    let inStore = try RGGraph.read(store)
                    expectEqual(inStore, saved, "\(note): the store\n\(inStore.difference(from: saved))")
                    // The other context (with no changes) merges the save.
                    let other = 1 - active
                    contexts[other].mergeChanges(fromContextDidSave: didSave)
                    views[other] = saved
                    let merged = try RGGraph.read(contexts[other])
                    expectEqual(merged, saved, "\(note): the merging context\n\(merged.difference(from: saved))")
                    if g.chance(0.5) { active = other }   // a clean context takes over
                }
            case 19:   // roll back
                guard g.chance(0.5) else { continue }
                context.rollback()
                view = saved
                if g.chance(0.5) { active = 1 - current }
            default:   // the file, reopened, holds the last save; so does a new context
                let reopened = try ObjectStore(model: randomGraphModel, fileURL: url)
                try expectEqual(RGGraph.read(reopened), saved, "\(note): the file")
                try expectEqual(RGGraph.read(ObjectContext(store: store)), saved, "\(note): a new context")
            }
            views[current] = view
            let shown = try RGGraph.read(context)
            expectEqual(shown, view, "\(note)\n\(shown.difference(from: view))")
            #expect(shown.inverseProblems.isEmpty, "\(note): \(shown.inverseProblems)")
            if shown != view { return }
            if view.dangling.isEmpty { try RGQueries.check(context, view, &g, note) }
        }
        // The run went through what it is meant to test: every seed saves at
        // least four times (above); the fixed seeds are known to reach the
        // rest, a fresh seed only most.
        let reached = counts["saved", default: 0] >= 5 && counts["deleted", default: 0] >= 5 && counts["denied", default: 0] >= 1
        #expect(counts["saved", default: 0] >= 4, "seed \(seed): \(counts.sorted { $0.key < $1.key })")
        #expect(reached || round >= Self.seeds.count, "seed \(seed): \(counts.sorted { $0.key < $1.key })")
    }
}

// MARK: - Files

extension RelationshipPropertyTests {
    /// Builds a random graph in a few saves, reopening the file after each;
    /// then damages a copy of it through a model without relationships (a
    /// dangling identity, one of another entity, two sides that disagree)
    /// and by flipping bytes: each open is a typed error naming what is
    /// wrong (or, for a flipped byte, a graph saved before), the file
    /// unchanged by a refused open.
    @Test(arguments: rounds)
    func aFileRoundTripsEveryGraphAndDamageIsATypedError(round: Int) throws {
        let seed = Self.seed(round)
        var g = SeededGenerator(seed: seed)
        let folder = TemporaryFolder("relationship-files")
        let url = folder.url("graph.store")
        func pick(_ ids: some Collection<Int>) -> Int? { ids.isEmpty ? nil : ids.sorted()[g.int(0..<ids.count)] }

        var graph = RGGraph(), history = [RGGraph()], nextID = 1
        do {
            let store = try ObjectStore(model: randomGraphModel, fileURL: url)
            let context = ObjectContext(store: store)
            for save in 0..<4 {
                for _ in 0..<12 {
                    let id = nextID
                    nextID += 1
                    switch g.int(0..<6) {
                    case 0:
                        try context.insert(RGFolder(id: id, name: RGQueries.names[g.int(0..<3)], rank: g.int(0...5)))
                        graph.folders[id] = .init(name: try Self.folder(context, id).name, rank: try Self.folder(context, id).rank)
                    case 1, 2:
                        guard let f = pick(graph.folders.keys) else { continue }
                        let l = g.chance(0.3) ? pick(graph.labels.keys) : nil
                        if g.chance(0.4) {
                            try context.insert(RGTask(id: id, title: "t", kb: g.int(0...9), done: g.chance(0.5), folder: f, label: l))
                        } else {
                            try context.insert(RGNote(id: id, title: "n", kb: g.int(0...9), folder: f, label: l))
                        }
                        let object = try Self.note(context, id)
                        graph.notes[id] = .init(title: object.title, kb: object.kb, done: (object as? RGTask)?.done)
                        graph.setFolder(ofNote: id, to: f)
                        graph.setLabel(ofNote: id, to: l)
                    case 3:
                        let folders = graph.folders.filter { $0.value.labels.count < 2 }.keys.sorted().filter { _ in g.chance(0.3) }
                        try context.insert(RGLabel(id: id, name: "l", folders: folders))
                        graph.labels[id] = .init(name: "l")
                        graph.setFolders(ofLabel: id, to: Set(folders))
                    case 4:
                        guard let f = pick(graph.folders.keys), let n = pick(graph.notes.keys) else { continue }
                        var record = try Self.folder(context, f)
                        record.pinned = n
                        try context.update(record)
                        graph.folders[f]?.pinned = n
                    default:
                        guard let f = pick(graph.folders.keys) else { continue }
                        var after = graph
                        guard after.deleteFolder(f) == nil, after.dangling.isEmpty else { continue }
                        try context.delete(RGFolder.self, id: f)
                        graph = after
                    }
                }
                try context.save()
                history.append(graph)
                try expectEqual(RGGraph.read(ObjectStore(model: randomGraphModel, fileURL: url)), graph, "seed \(seed) save \(save): the file")
            }
            try store.compact()
        }
        try expectEqual(RGGraph.read(ObjectStore(model: randomGraphModel, fileURL: url)), graph, "seed \(seed): the compacted file")
        let pristine = try Data(contentsOf: url)

        // A damaged reference, written by a model that does not check them.
        let missing = nextID + 1000
        for kind in 0..<6 {
            try pristine.write(to: url)
            let expected: StoreError
            do {
                let context = ObjectContext(store: try ObjectStore(model: randomGraphPlainModel, fileURL: url))
                let id = nextID + 1 + kind
                switch kind {
                case 0:
                    try context.insert(RGNote(id: id, title: "x", kb: 0, folder: missing))
                    expected = .danglingReference(object: RGGraph.noteID(id), relationship: "folder", destination: RGGraph.folderID(missing))
                case 1:
                    try context.insert(RGFolder(id: id, name: "x", rank: 0, notes: [missing]))
                    expected = .danglingReference(object: RGGraph.folderID(id), relationship: "notes", destination: RGGraph.noteID(missing))
                case 2:
                    try context.insert(RGFolder(id: id, name: "x", rank: 0, pinned: missing))
                    expected = .danglingReference(object: RGGraph.folderID(id), relationship: "pinned", destination: RGGraph.noteID(missing))
                case 3:
                    guard let f = pick(graph.folders.keys) else { continue }
                    try context.insert(RGTask(id: id, title: "x", kb: 0, done: true, folder: f))
                    expected = .inverseMismatch(object: RGGraph.noteID(id), relationship: "folder", destination: RGGraph.folderID(f))
                case 4:
                    // A folder's identity where a label's is expected.
                    guard let f = pick(graph.folders.keys) else { continue }
                    try context.insert(RGNote(id: id, title: "x", kb: 0, label: f))
                    expected = .danglingReference(object: RGGraph.noteID(id), relationship: "label", destination: RGGraph.labelID(f))
                default:
                    guard let l = pick(graph.labels.keys), let n = pick(graph.notes.keys.filter { graph.notes[$0]?.label != l }) else { continue }
                    var label = try #require(try context.object(RGLabel.self, id: l))
                    label.notes.append(n)
                    try context.update(label)
                    expected = .inverseMismatch(object: RGGraph.labelID(l), relationship: "notes", destination: RGGraph.noteID(n))
                }
                try context.save()
            }
            let damaged = try Data(contentsOf: url)
            expectThrows(expected, "seed \(seed) damage \(kind)") { _ = try ObjectStore(model: randomGraphModel, fileURL: url) }
            try expectEqual(Data(contentsOf: url), damaged, "seed \(seed) damage \(kind): the file is unchanged")
        }

        // Flipped bytes: a typed error, or a graph saved before — never a crash.
        for _ in 0..<12 {
            var bytes = [UInt8](pristine)
            let offset = g.int(0..<bytes.count)
            bytes[offset] ^= UInt8(1 << g.int(0..<8))
            try Data(bytes).write(to: url)
            do {
                let graphRead = try RGGraph.read(ObjectStore(model: randomGraphModel, fileURL: url))
                #expect(history.contains(graphRead), "seed \(seed): byte \(offset) flipped, read \(graphRead.difference(from: graph))")
                #expect(graphRead.inverseProblems.isEmpty && graphRead.dangling.isEmpty)
            } catch {
                // A typed error naming the file (the journal's checksums find the flip).
                #expect(error is StoreError && "\(error)".contains(url.path), "seed \(seed): byte \(offset) flipped: \(error)")
            }
        }
    }
}

// MARK: - Merges into a context with changes

extension RelationshipPropertyTests {
    /// A save merged into a context that has changes of its own: the
    /// context's changes stay on top, and both sides of every relationship
    /// still agree — in the context, and in the store after it saves.
    @Test func aMergeIntoAContextWithChangesKeepsInversesConsistent() throws {
        let store = ObjectStore(model: randomGraphModel)
        let a = ObjectContext(store: store, name: "a"), b = ObjectContext(store: store, name: "b")
        for f in 1...3 { try a.insert(RGFolder(id: f, name: "f\(f)", rank: f)) }
        try a.insert(RGNote(id: 10, title: "n", kb: 1, folder: 1))
        try a.insert(RGNote(id: 11, title: "o", kb: 1, folder: 1))
        b.mergeChanges(fromContextDidSave: try a.save())

        // b moves note 10 to folder 2; a adds note 12 to folder 1 and moves
        // note 11 to folder 3, and saves first.
        try Self.updateNote(b, 10) { $0.folder = 2 }
        try Self.updateNote(b, 11) { $0.folder = 2 }
        try a.insert(RGNote(id: 12, title: "p", kb: 1, folder: 1))
        try Self.updateNote(a, 11) { $0.folder = 3 }
        let fallbacks = b.mergeChanges(fromContextDidSave: try a.save())
        #expect(fallbacks.isEmpty, "\(fallbacks)")

        let merged = try RGGraph.read(b)
        #expect(merged.inverseProblems.isEmpty, "\(merged.inverseProblems)")
        expectEqual(merged.folders[1]?.notes, [12], "folder 1 keeps a's new note and loses b's moved one")
        expectEqual(merged.folders[2]?.notes, [10, 11])
        expectEqual(merged.folders[3]?.notes, [], "b's move of note 11 wins over a's")
        #expect(merged.notes[11]?.folder == 2 && merged.notes[12]?.folder == 1)
        try b.save()
        let saved = try RGGraph.read(store)
        expectEqual(saved, merged)
        #expect(saved.inverseProblems.isEmpty, "\(saved.inverseProblems)")
    }

    /// A to-one relationship set in a context wins over the save it merges
    /// (the documented rule): a to-many relationship on the other side that
    /// the save added the object to, and that the context changed too, must
    /// let it go. (Found by `randomMergesIntoContextsWithChangesKeepInversesConsistent`,
    /// seed 103: the to-many side was merged from the save after the to-one
    /// side had taken the object out of it, and held it again — while the
    /// object's to-one relationship named another; the store saved that.)
    @Test func aToOneSetHereWinsOverTheSavesToManyAddition() throws {
        let folder = TemporaryFolder("relationship-merge")
        let url = folder.url("graph.store")
        let store = try ObjectStore(model: randomGraphModel, fileURL: url)
        let a = ObjectContext(store: store, name: "a"), b = ObjectContext(store: store, name: "b")
        try a.insert(RGFolder(id: 1, name: "f", rank: 1))
        try a.insert(RGLabel(id: 30, name: "l"))
        try a.insert(RGLabel(id: 31, name: "m"))
        try a.insert(RGNote(id: 10, title: "n", kb: 1, folder: 1))
        try a.insert(RGNote(id: 11, title: "o", kb: 1, folder: 1, label: 30))
        b.mergeChanges(fromContextDidSave: try a.save())

        // a: note 10 to label 31 (from the note's side), and label 30 renamed.
        try Self.updateNote(a, 10) { $0.label = 31 }
        var renamed = try Self.label(a, 30)
        renamed.name = "renamed"
        try a.update(renamed)
        // b: note 10 into label 30 (from the label's side); b saves first.
        var label = try Self.label(b, 30)
        label.notes.append(10)
        try b.update(label)
        try expectEqual(Self.note(b, 10).label, 30)
        let fallbacks = a.mergeChanges(fromContextDidSave: try b.save())
        #expect(fallbacks.isEmpty, "\(fallbacks)")

        let merged = try RGGraph.read(a)
        #expect(merged.inverseProblems.isEmpty, "\(merged.inverseProblems)")
        expectEqual(merged.notes[10]?.label, 31, "a's own to-one change wins")
        expectEqual(merged.labels[30], RGGraph.Label(name: "renamed", notes: [11]))
        expectEqual(merged.labels[31]?.notes, [10])
        try a.save()
        let saved = try RGGraph.read(store)
        expectEqual(saved, merged)
        #expect(saved.inverseProblems.isEmpty, "\(saved.inverseProblems)")
        // The file opens (its references are checked): it held the mismatch before.
        try expectEqual(RGGraph.read(ObjectStore(model: randomGraphModel, fileURL: url)), merged)
    }

    /// One random change of links, from either side of a pair.
    static func randomLink(_ context: ObjectContext, _ graph: RGGraph, _ g: inout SeededGenerator) throws {
        func pick(_ ids: some Collection<Int>) -> Int? { ids.isEmpty ? nil : ids.sorted()[g.int(0..<ids.count)] }
        guard let f = pick(graph.folders.keys), let n = pick(graph.notes.keys), let l = pick(graph.labels.keys) else { return }
        switch g.int(0..<6) {
        case 0:
            try updateNote(context, n) { $0.folder = f }
        case 1:
            var record = try folder(context, f)
            if !record.notes.contains(n) { record.notes.insert(n, at: g.int(0...record.notes.count)) }
            try context.update(record)
        case 2:
            let newLabel = g.chance(0.7) ? l : nil
            try updateNote(context, n) { $0.label = newLabel }
        case 3:
            var record = try label(context, l)
            if record.notes.contains(n) { record.notes.removeAll { $0 == n } } else { record.notes.append(n) }
            try context.update(record)
        case 4:
            var record = try folder(context, f)
            if record.labels.contains(l) { record.labels.removeAll { $0 == l } } else if record.labels.count < 2 { record.labels.append(l) }
            try context.update(record)
        default:
            var record = try label(context, l)
            if record.folders.contains(f) { record.folders.removeAll { $0 == f } } else { record.folders.append(f) }
            try context.update(record)
        }
    }

    /// Both contexts change links, one saves, the other merges with its
    /// changes pending: both sides of every pair agree in both contexts, and
    /// in the store after the other saves too.
    @Test(arguments: rounds)
    func randomMergesIntoContextsWithChangesKeepInversesConsistent(round: Int) throws {
        let seed = Self.seed(round)
        var g = SeededGenerator(seed: seed)
        let store = ObjectStore(model: randomGraphModel)
        let contexts = [ObjectContext(store: store, name: "a"), ObjectContext(store: store, name: "b")]
        for f in 1...4 { try contexts[0].insert(RGFolder(id: f, name: "f", rank: f)) }
        for n in 10..<22 { try contexts[0].insert(RGNote(id: n, title: "n", kb: n, folder: 1 + n % 4)) }
        for l in 30..<33 { try contexts[0].insert(RGLabel(id: l, name: "l")) }
        contexts[1].mergeChanges(fromContextDidSave: try contexts[0].save())
        var merges = 0
        for step in 0..<40 {
            for context in contexts {
                for _ in 0..<g.int(1...3) { try Self.randomLink(context, try RGGraph.read(context), &g) }
            }
            let x = g.int(0..<2), y = 1 - x
            let note = "seed \(seed) step \(step)"
            let saved: ContextDidSave
            do throws(StoreError) {
                saved = try contexts[x].save()
            } catch {
                // A folder given a third label from the label's side.
                guard case .validation = error else {
                    Issue.record("\(note): \(error)")
                    return
                }
                contexts[x].rollback()
                continue
            }
            let errors = contexts[y].mergeChanges(fromContextDidSave: saved)
            #expect(errors.isEmpty, "\(note): \(errors)")
            merges += 1
            for context in contexts {
                let view = try RGGraph.read(context)
                #expect(view.inverseProblems.isEmpty, "\(note): \(context.name ?? "")\n\(view.inverseProblems.joined(separator: "\n"))")
            }
            do throws(StoreError) {
                contexts[x].mergeChanges(fromContextDidSave: try contexts[y].save())
            } catch {
                guard case .validation = error else {
                    Issue.record("\(note): \(error)")
                    return
                }
                contexts[y].rollback()
            }
            let inStore = try RGGraph.read(store)
            #expect(inStore.inverseProblems.isEmpty, "\(note): the store\n\(inStore.inverseProblems.joined(separator: "\n"))")
        }
        #expect(merges >= 10, "seed \(seed): \(merges) merges into a context with changes")
    }
}
