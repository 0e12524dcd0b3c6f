import Foundation
import HeadlessTable

/// A row of a fetch result read from JSON, as a command keeps it.
protocol FetchResultRow: TableDiffable, Hashable where DiffIdentifier == RecordValue {
    /// The row's identity.
    var id: RecordValue { get }
    init(id: RecordValue, object: RecordValue)
}

/// A row of a fetch result read from JSON: its identity and its whole object.
struct JSONRow: FetchResultRow {
    var id: RecordValue
    var object: RecordValue

    var diffIdentifier: RecordValue { id }
    func isContentEqual(to other: JSONRow) -> Bool { object == other.object }
}

/// A row of a fetch result kept small for diffing: its identity and a
/// 128-bit keyed hash (SipHash, seeded per process) of its object in place of
/// the object. Equal objects — as `RecordValue` compares them: numbers by
/// value, keys in any order — have equal digests; different ones differ but
/// with a chance of about 2⁻¹²⁸.
struct DigestRow: FetchResultRow {
    var id: RecordValue
    var digest: Digest

    struct Digest: Hashable {
        var low: UInt64, high: UInt64
    }

    init(id: RecordValue, object: RecordValue) {
        self.id = id
        var first = Hasher(), second = Hasher()
        first.combine(0 as UInt8)
        second.combine(1 as UInt8)
        first.combine(object)
        second.combine(object)
        digest = Digest(low: UInt64(bitPattern: Int64(first.finalize())), high: UInt64(bitPattern: Int64(second.finalize())))
    }

    var diffIdentifier: RecordValue { id }
    func isContentEqual(to other: DigestRow) -> Bool { digest == other.digest }
}

/// Reading fetch results from JSON files.
///
/// A file is read a chunk at a time by `JSONStreamReader`: a plain array of
/// objects element by element (no tree of the whole file is built), with a
/// progress line on standard error for long reads when it is a terminal.
/// Errors are those of reading the whole file first: a malformed file is
/// reported as such even when an object before the damage is also wrong.
enum FetchResultFile {
    /// Reads `path`: `{"sections":[{"name":…,"objects":[…]},…]}` or a plain array
    /// of objects (one section named ""). Every object must have `idKey`.
    static func read<Row: FetchResultRow>(
        _ path: String, idKey: String, quiet: Bool = false, as: Row.Type = JSONRow.self
    ) throws -> [TableSection<Row>] {
        let reader = try open(path, quiet: quiet)
        var problem: (any Error)?
        if try parsing(path, { try reader.beginArray() }) {
            var rows: [Row] = []
            var k = 0
            while try parsing(path, { try reader.nextElement() }) {
                let object = try parsing(path, { try reader.readValue() })
                if problem == nil {
                    do { rows.append(try row(object, at: k, idKey: idKey, file: path, section: nil)) } catch { problem = error }
                }
                if problem != nil { break }
                k += 1
            }
            try parsing(path, { try reader.finish() })
            if let problem { throw problem }
            return [TableSection(name: "", rows: rows)]
        }
        // Not an array: the whole value (a fetch result with sections is read whole).
        let value = try parsing(path, { try reader.readValue() })
        try parsing(path, { try reader.finish() })
        return try sections(of: value, idKey: idKey, file: path)
    }

    /// The sections of a whole fetch result, `{"sections":[…]}` or an array.
    static func sections<Row: FetchResultRow>(of value: RecordValue, idKey: String, file path: String) throws -> [TableSection<Row>] {
        switch value {
        case .array(let objects):
            return [TableSection(name: "", rows: try rows(objects, idKey: idKey, file: path, section: nil))]
        case .record(let record):
            guard let sections = record["sections"] else {
                throw CommandError("\(InputFile.name(path)): expected an array of objects or {\"sections\":[…]}, found an object without \"sections\"")
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
            throw CommandError("\(InputFile.name(path)): expected an array of objects or {\"sections\":[…]}, found \(article(value))")
        }
    }

    static func rows<Row: FetchResultRow>(_ objects: [RecordValue], idKey: String, file: String, section: (Int, String)?) throws -> [Row] {
        try objects.enumerated().map { k, object in try row(object, at: k, idKey: idKey, file: file, section: section) }
    }

    static func row<Row: FetchResultRow>(_ object: RecordValue, at k: Int, idKey: String, file: String, section: (Int, String)?) throws -> Row {
        let place = section.map { "section \($0.0) (\($0.1.debugDescription)), object \(k)" } ?? "object \(k)"
        guard case .record(let fields) = object else {
            throw CommandError("\(InputFile.name(file)): \(place) is \(article(object)), not an object")
        }
        let id = try InputRules.id(of: fields, idKey: idKey, file: file, place: place, idOption: true)
        return Row(id: id, object: object)
    }

    /// A reader of the file at `path` (`-`: standard input), with a progress
    /// line for long reads of a file (unless `quiet`). Pipes, FIFOs and
    /// `/dev/stdin` are read to their end.
    static func open(_ path: String, quiet: Bool) throws -> JSONStreamReader {
        if path == "-" { return JSONStreamReader(fileDescriptor: FileHandle.standardInput.fileDescriptor) }
        let reader: JSONStreamReader
        do {
            reader = try JSONStreamReader(contentsOfFile: path)
        } catch {
            if error.isMissing { throw CommandError("\(path): no such file") }
            throw CommandError("\(path): cannot be read\(error.isDirectory ? " (it is a directory)" : "")")
        }
        if !quiet { ReadProgress.attach(to: reader, name: URL(fileURLWithPath: path).lastPathComponent) }
        return reader
    }

    /// Runs one step of reading: a malformed text is a `CommandError` naming the file.
    @discardableResult
    static func parsing<T>(_ path: String, _ step: () throws -> T) throws -> T {
        do {
            return try step()
        } catch let error as JSONError {
            throw CommandError("\(InputFile.name(path)): malformed JSON at \(error)")
        }
    }

    /// Reads the whole JSON value in `path` (for small files and values read whole).
    static func readJSON(_ path: String, quiet: Bool = false) throws -> RecordValue {
        let reader = try open(path, quiet: quiet)
        let value = try parsing(path, { try reader.readValue() })
        try parsing(path, { try reader.finish() })
        return value
    }

    /// Calls `body` with each element of the JSON array in `path`, in order,
    /// as it is read. When the file is not an array, throws "expected an
    /// array of objects, found …". When `body` throws, the rest of the file
    /// is still read (and a malformed file reported as such first).
    static func forEachElement(of path: String, quiet: Bool, _ body: (Int, RecordValue) throws -> Void) throws {
        let reader = try open(path, quiet: quiet)
        guard try parsing(path, { try reader.beginArray() }) else {
            let value = try parsing(path, { try reader.readValue() })
            try parsing(path, { try reader.finish() })
            if case .record(let fields) = value, case .record(let entities)? = fields["model"] {
                throw CommandError("\(InputFile.name(path)): a model file: give --entity NAME to choose the entity (\(entities.keys.joined(separator: ", ")))")
            }
            throw CommandError("\(InputFile.name(path)): expected an array of objects, found \(article(value))")
        }
        var problem: (any Error)?
        var k = 0
        while try parsing(path, { try reader.nextElement() }) {
            let element = try parsing(path, { try reader.readValue() })
            do { try body(k, element) } catch {
                problem = error
                break
            }
            k += 1
        }
        try parsing(path, { try reader.finish() })
        if let problem { throw problem }
    }

    /// "an array", "a string", … for messages.
    static func article(_ value: RecordValue) -> String {
        switch value {
        case .null: "null"
        case .array: "an array"
        case .int, .uint, .double: "a number"
        case .record: "an object"
        case .date: "a date"
        default: "a \(value.kindName)"
        }
    }
}

/// Where each identity was first seen: duplicates found in O(1) each, with
/// integer identities (the usual) held as plain integers.
struct IdentityPositions {
    private var integers: [Int: Int] = [:]
    private var others: [RecordValue: Int] = [:]

    init(capacity: Int = 0) { integers.reserveCapacity(capacity) }

    /// Notes that `id` is at `position`; returns where it was seen before, if it was.
    mutating func insert(_ id: RecordValue, at position: Int) -> Int? {
        switch id {
        case .int(let value):
            return integers.updateValue(position, forKey: value)
        case .double(let value):
            if let exact = Int(exactly: value) { return integers.updateValue(position, forKey: exact) }
            return others.updateValue(position, forKey: id)
        default:
            return others.updateValue(position, forKey: id)
        }
    }
}
