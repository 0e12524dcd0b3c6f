import Foundation
import HeadlessTable

/// A row of a fetch result read from JSON: its identity and its whole object.
struct JSONRow: TableDiffable, Hashable {
    var id: RecordValue
    var object: RecordValue

    var diffIdentifier: RecordValue { id }
    func isContentEqual(to other: JSONRow) -> Bool { object == other.object }
}

/// Reading fetch results from JSON files.
enum FetchResultFile {
    /// Reads `path`: `{"sections":[{"name":…,"objects":[…]},…]}` or a plain array
    /// of objects (one section named ""). Every object must have `idKey`.
    static func read(_ path: String, idKey: String) throws -> [TableSection<JSONRow>] {
        let value = try readJSON(path)
        switch value {
        case .array(let objects):
            return [TableSection(name: "", rows: try rows(objects, idKey: idKey, file: path, section: nil))]
        case .record(let record):
            guard let sections = record["sections"] else {
                throw CommandError("\(path): expected an array of objects or {\"sections\":[…]}, found an object without \"sections\"")
            }
            guard case .array(let list) = sections else {
                throw CommandError("\(path): \"sections\" is \(article(sections)), not an array")
            }
            return try list.enumerated().map { k, section in
                guard case .record(let fields) = section else {
                    throw CommandError("\(path): section \(k) is \(article(section)), not an object with \"name\" and \"objects\"")
                }
                let name: String
                switch fields["name"] {
                case .string(let text): name = text
                case .null, nil: name = ""
                case let other?: throw CommandError("\(path): section \(k)'s \"name\" is \(article(other)), not a string")
                }
                guard let objects = fields["objects"] else {
                    throw CommandError("\(path): section \(k) (\(name.debugDescription)) has no \"objects\" array")
                }
                guard case .array(let list) = objects else {
                    throw CommandError("\(path): section \(k) (\(name.debugDescription)): \"objects\" is \(article(objects)), not an array")
                }
                return TableSection(name: name, rows: try rows(list, idKey: idKey, file: path, section: (k, name)))
            }
        default:
            throw CommandError("\(path): expected an array of objects or {\"sections\":[…]}, found \(article(value))")
        }
    }

    static func rows(_ objects: [RecordValue], idKey: String, file: String, section: (Int, String)?) throws -> [JSONRow] {
        try objects.enumerated().map { k, object in
            let place = section.map { "section \($0.0) (\($0.1.debugDescription)), object \(k)" } ?? "object \(k)"
            guard case .record(let fields) = object else {
                throw CommandError("\(file): \(place) is \(article(object)), not an object")
            }
            let id = try InputRules.id(of: fields, idKey: idKey, file: file, place: place, idOption: true)
            return JSONRow(id: id, object: object)
        }
    }

    static func readJSON(_ path: String) throws -> RecordValue {
        let data = try InputFile.read(path)
        do {
            return try JSON.parse(data)
        } catch {
            throw CommandError("\(InputFile.name(path)): malformed JSON at \(error)")
        }
    }

    /// "an array", "a string", … for messages.
    static func article(_ value: RecordValue) -> String {
        switch value {
        case .null: "null"
        case .array: "an array"
        case .int, .double: "a number"
        case .record: "an object"
        case .date: "a date"
        default: "a \(value.kindName)"
        }
    }
}
