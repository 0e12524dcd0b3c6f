import Foundation
import HeadlessTable
import ToolArguments

/// The rules every command reads its input by, in one place (the tool's
/// help and its reference article, CommandLineTool.md, say them in these words).
enum InputRules {
    /// For the tool's help.
    static let text = """
        input, for every command:
          DATA, OLD and NEW are JSON files; - reads standard input (so do /dev/stdin,
          pipes, <(…) and FIFOs: every file is read to its end).
          DATA is an array of objects; OLD and NEW are one too, or
          {"sections":[{"name":"A","objects":[…]},…]} (a plain array is one section "").
          Every object has an id: its "id" (diff: --id KEY), any JSON value but null;
          {"id":null} has no id. Ids are unique in a file: duplicates are an error that
          names them.
          Bad input exits 1, a misused command line 2: the message on standard error,
          nothing on standard output.
          A big file is read a piece at a time; while it is read, standard error (when it
          is a terminal) shows how far: --quiet turns that off.
        """ + "\n" + GraphFile.rules

    /// At most this many duplicate ids are named in the error.
    static let namedDuplicates = 5

    /// The id of `object` (under `idKey`), or the error saying it has none.
    static func id(of fields: DynamicRecord, idKey: String, file: String, place: @autoclosure () -> String, idOption: Bool = false) throws -> RecordValue {
        guard let id = fields[idKey], id != .null else {
            throw CommandError("\(InputFile.name(file)): \(place()) has no \"\(UsageError.excerpt(idKey))\" to identify it"
                + " (an id is any JSON value but null\(idOption ? "; --id names another key" : ""))")
        }
        return id
    }

    /// Fails when an id occurs more than once in `ids` (in file order; `place`
    /// names the object at an index), naming the first few duplicates and where they are.
    static func checkUnique(_ ids: [RecordValue], file: String, place: (Int) -> String) throws {
        var duplicates = DuplicateIDs(capacity: ids.count)
        for (k, id) in ids.enumerated() { duplicates.note(id, at: k) }
        try duplicates.check(file: file, place: place)
    }

    /// The objects of a JSON array file, each with a unique id under `id`,
    /// read a piece at a time (a progress line for long reads unless `quiet`):
    /// each object is made as it is read, and held once.
    static func objects(_ path: String, quiet: Bool = false) throws -> [DynamicObject] {
        var objects: [DynamicObject] = []
        var duplicates = DuplicateIDs()
        try forEachObject(in: path, quiet: quiet) { k, fields, id in
            duplicates.note(id, at: k)
            objects.append(DynamicObject(fields: fields))
        }
        try duplicates.check(file: path) { "object \($0)" }
        return objects
    }

    /// Calls `body` with each object of the JSON array at `path` (its index,
    /// its fields and its id), in order, as the file is read; an element that
    /// is not an object, or has no id, is an error.
    static func forEachObject(in path: String, quiet: Bool, _ body: (Int, DynamicRecord, RecordValue) throws -> Void) throws {
        try FetchResultFile.forEachElement(of: path, quiet: quiet) { k, object in
            guard case .record(let fields) = object else {
                throw CommandError("\(InputFile.name(path)): object \(k) is \(FetchResultFile.article(object)), not an object")
            }
            try body(k, fields, try id(of: fields, idKey: "id", file: path, place: "object \(k)"))
        }
    }
}

/// Duplicate ids found as objects are read: each id's first place, and the
/// first few ids seen again (the input rules name them).
struct DuplicateIDs {
    private var positions: IdentityPositions
    private var named: [(id: RecordValue, first: Int, again: Int)] = []
    private var count = 0

    init(capacity: Int = 0) { positions = IdentityPositions(capacity: capacity) }

    /// Whether no id has been seen twice.
    var isEmpty: Bool { count == 0 }

    /// Notes the id of the object at `k`.
    mutating func note(_ id: RecordValue, at k: Int) {
        guard let earlier = positions.insert(id, at: k) else { return }
        _ = positions.insert(id, at: earlier)   // an id's place is where it came first
        count += 1
        if named.count < InputRules.namedDuplicates { named.append((id, earlier, k)) }
    }

    /// Fails when an id came twice, naming the first few and where they are.
    func check(file: String, place: (Int) -> String) throws {
        guard !named.isEmpty else { return }
        let list = named.map { "\(UsageError.excerpt(JSON.string($0.id), length: 40)) (\(place($0.first)) and \(place($0.again)))" }
        throw CommandError("\(InputFile.name(file)): duplicate id\(count == 1 ? "" : "s") "
            + list.joined(separator: ", ") + (count > named.count ? " and \(count - named.count) more" : "")
            + "; ids must be unique")
    }
}
