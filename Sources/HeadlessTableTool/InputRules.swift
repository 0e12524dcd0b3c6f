import Foundation
import HeadlessTable
import ToolArguments

/// The rules every command reads its input by, in one place (the tool's
/// help and the README say them in these words).
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
        """

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
        var first: [RecordValue: Int] = [:]
        first.reserveCapacity(ids.count)
        var duplicates: [(id: RecordValue, first: Int, again: Int)] = []
        var count = 0
        for (k, id) in ids.enumerated() {
            if let earlier = first.updateValue(k, forKey: id) {
                first[id] = earlier
                count += 1
                if duplicates.count < namedDuplicates { duplicates.append((id, earlier, k)) }
            }
        }
        guard !duplicates.isEmpty else { return }
        let named = duplicates.map { "\(UsageError.excerpt(JSON.string($0.id), length: 40)) (\(place($0.first)) and \(place($0.again)))" }
        throw CommandError("\(InputFile.name(file)): duplicate id\(count == 1 ? "" : "s") "
            + named.joined(separator: ", ") + (count > duplicates.count ? " and \(count - duplicates.count) more" : "")
            + "; ids must be unique")
    }

    /// The objects of a JSON array file, each with a unique id under `id`.
    static func objects(_ path: String) throws -> [DynamicRecord] {
        let value = try FetchResultFile.readJSON(path)
        guard case .array(let list) = value else {
            throw CommandError("\(InputFile.name(path)): expected an array of objects, found \(FetchResultFile.article(value))")
        }
        var records: [DynamicRecord] = []
        var ids: [RecordValue] = []
        records.reserveCapacity(list.count)
        ids.reserveCapacity(list.count)
        for (k, object) in list.enumerated() {
            guard case .record(let fields) = object else {
                throw CommandError("\(InputFile.name(path)): object \(k) is \(FetchResultFile.article(object)), not an object")
            }
            ids.append(try id(of: fields, idKey: "id", file: path, place: "object \(k)"))
            records.append(fields)
        }
        try checkUnique(ids, file: path) { "object \($0)" }
        return records
    }
}
