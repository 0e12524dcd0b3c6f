import Foundation
import HeadlessTable

/// `headless-table query DATA [--where FORMAT] [--arg JSON]… [--var NAME=JSON]…
/// [--sort KEY[,-KEY]…] [--section-key KEY | --index KEY [--locale L]] [--limit N] [--offset N] [--format text|json]`
///
/// The objects of DATA (a JSON array of objects with an `id`) that match the
/// predicate, sorted and sectioned by a fetched results controller on an
/// in-memory store.
enum QueryCommand {
    static func run(_ arguments: inout ArgumentList, output: CommandOutput) throws {
        let format = try OutputFormat.parse(try arguments.option("--format"))
        var query = try Query.parse(&arguments, limits: true)
        let path = try arguments.positional("DATA (a JSON array of objects)")
        try arguments.finish()
        try query.compile()
        if query.sortKeys.isEmpty && query.sectionKey == nil {
            // No order asked for: the data's order, streamed as the file is read.
            return try streamed(query, path: path, format: format, output: output)
        }
        let sections = try query.sections(of: path)
        let (predicate, sectionKey, sectionLabel) = (query.predicate, query.sectionKey, query.sectionLabel)
        // Written a piece at a time: a million rows are not one string.
        var text = OutputBuffer()
        switch format {
        case .json:
            output.out("{\"sections\":[")
            for (k, section) in sections.enumerated() {
                text.append(k == 0 ? "{\"name\":" : ",{\"name\":")
                JSON.write(.string(section.name), into: &text.current)
                text.append(",\"indexTitle\":")
                JSON.write(section.indexTitle.map { .string($0) } ?? .null, into: &text.current)
                text.append(",\"ids\":[")
                for (j, object) in section.objects.enumerated() {
                    if j > 0 { text.append(",") }
                    JSON.write(object.id, into: &text.current)
                    text.flushIfFull()
                }
                text.append("]}")
            }
            text.write(to: output)
            output.out("]}\n")
        case .text:
            let total = sections.reduce(0) { $0 + $1.objects.count }
            output.out("\(total) object\(total == 1 ? "" : "s")\(predicate.map { " where \($0)" } ?? "")"
                + (sectionKey == nil ? "" : ", \(sections.count) section\(sections.count == 1 ? "" : "s") by \(sectionLabel)") + "\n")
            for section in sections {
                if sectionKey != nil {
                    text.current += "\(section.name.isEmpty ? "(no \(sectionKey ?? ""))" : section.name) (\(section.objects.count))\n".utf8
                }
                for object in section.objects {
                    text.append("  ")
                    JSON.write(.record(object.fields), into: &text.current)
                    text.append("\n")
                    text.flushIfFull()
                }
            }
            text.write(to: output)
        }
    }
}

extension QueryCommand {
    /// The matches in the data's order, read a piece at a time: no store, and
    /// only the output (and the identities, to find duplicates) held until
    /// the file has been read. Prints what the store's fetch would.
    static func streamed(_ query: Query, path: String, format: OutputFormat, output: CommandOutput) throws {
        var text = OutputBuffer()
        var total = 0
        var first = true
        let count = try query.forEachMatch(in: path) { object in
            total += 1
            switch format {
            case .json:
                if !first { text.append(",") }
                JSON.write(object.id, into: &text.current)
            case .text:
                text.append("  ")
                JSON.write(.record(object.fields), into: &text.current)
                text.append("\n")
            }
            first = false
            text.flushIfFull()
        }
        switch format {
        case .json:
            output.out("{\"sections\":[{\"name\":\"\",\"indexTitle\":null,\"ids\":[")
            text.write(to: output)
            output.out("]}]}\n")
        case .text:
            output.out("\(count) object\(count == 1 ? "" : "s")\(query.predicate.map { " where \($0)" } ?? "")\n")
            text.write(to: output)
        }
    }
}

/// Text written in pieces of about a megabyte, kept until it is printed.
struct OutputBuffer {
    var pieces: [[UInt8]] = []
    var current: [UInt8] = []

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { current.append(contentsOf: $0) }
    }

    mutating func flushIfFull() {
        if current.count >= 1 << 20 {
            pieces.append(current)
            current = []
            current.reserveCapacity(1 << 20 + 4096)
        }
    }

    /// Prints the pieces, letting each go once printed.
    mutating func write(to output: CommandOutput) {
        for k in pieces.indices {
            output.out(String(decoding: pieces[k], as: UTF8.self))
            pieces[k] = []
        }
        if !current.isEmpty { output.out(String(decoding: current, as: UTF8.self)) }
        pieces = []
        current = []
    }
}

/// The fetch a command's options describe — `--where FORMAT`, `--arg JSON`…,
/// `--var NAME=JSON`…, `--sort KEY[,-KEY]…`, `--section-key KEY` or `--index
/// KEY [--locale L]`, and with limits `--limit N` and `--offset N` — run over
/// the objects of a JSON file in an in-memory store.
struct Query {
    typealias Section = (name: String, indexTitle: String?, objects: [DynamicObject])

    var predicate: FormatPredicate?
    /// The sort keys of the fetch (after ``compile()``, with `--index`'s collation first).
    var sortKeys: [SortKey] = []
    /// The section key path (after ``compile()``, `--index`'s key).
    var sectionKey: String?
    /// `--index KEY [--locale L]`: sections by the locale's index of KEY.
    var index: IndexOption?
    var limit: Int?
    var offset = 0

    // The options as given; compile() reads them.
    var predicateText: String?
    var argumentTexts: [String] = []
    var variableTexts: [String] = []
    var sortTexts: [String] = []
    /// `--quiet`: no progress line while a big file is read.
    var quiet = false

    /// Takes the options from the command line (``compile()`` then checks them).
    static func parse(_ arguments: inout ArgumentList, limits: Bool, bareIndexIsAFlag: Bool = false) throws -> Query {
        var query = Query()
        query.predicateText = try arguments.option("--where")
        query.argumentTexts = try arguments.options("--arg")
        query.variableTexts = try arguments.options("--var")
        query.sortTexts = try arguments.options("--sort")
        query.sectionKey = try arguments.option("--section-key")
        query.quiet = arguments.flag("--quiet")
        query.index = try IndexOption.parse(&arguments, bareIndexIsAFlag: bareIndexIsAFlag)
        if query.index != nil && query.sectionKey != nil {
            throw CommandError.usage("--index KEY makes the sections (KEY's index titles): give it or --section-key, not both")
        }
        if limits {
            query.limit = try ArgumentList.wholeNumber(try arguments.option("--limit"), "--limit", minimum: 0)
            query.offset = try ArgumentList.wholeNumber(try arguments.option("--offset"), "--offset", minimum: 0) ?? 0
        }
        return query
    }

    /// Parses the predicate, with its arguments and variables, and the sort keys.
    mutating func compile() throws {
        // The predicate, with its arguments and variables.
        if let predicateText {
            let values = try argumentTexts.enumerated().map { k, text in try Self.json(text, "--arg \(k + 1)") }
            var predicate: FormatPredicate
            do throws(PredicateSyntaxError) {
                predicate = try FormatPredicate(format: predicateText, arguments: values)
            } catch {
                throw CommandError("--where: \(error)\n\(error.excerpt)")
            }
            var bound: [String: RecordValue] = [:]
            for text in variableTexts {
                guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                    throw CommandError.usage("--var takes NAME=JSON, as in --var MIN=18, not '\(text)'")
                }
                let name = String(text[..<equals].drop { $0 == "$" })
                bound[name] = try Self.json(String(text[text.index(after: equals)...]), "--var \(name)")
            }
            predicate = predicate.substituting(bound)
            let unbound = predicate.variables.sorted()
            if let first = unbound.first {
                throw CommandError("--where needs \(unbound.map { "$" + $0 }.joined(separator: ", ")): bind \(unbound.count == 1 ? "it" : "them") with --var \(first)=JSON")
            }
            self.predicate = predicate
        } else if !argumentTexts.isEmpty || !variableTexts.isEmpty {
            throw CommandError.usage("--arg and --var go with --where")
        }
        sortKeys = sortTexts.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { key -> SortKey in
            key.hasPrefix("-") ? SortKey(String(key.dropFirst()), ascending: false) : SortKey(String(key))
        }
        if let empty = sortKeys.first(where: { $0.keyPath.isEmpty }) {
            throw CommandError.usage("--sort takes key paths separated by commas, - before a descending one; '\(empty)' is empty")
        }
        if let index {
            sortKeys = index.sortKeys(then: sortKeys)
            sectionKey = index.key
        }
    }

    /// How the text output names what the sections are by: `city`, or `name's index (de)`.
    var sectionLabel: String { index?.label ?? sectionKey ?? "" }

    /// A fetched results controller of `request` in `context`, sectioned as the options say.
    func controller(_ request: FetchRequest<DynamicObject>, in context: ObjectContext<DynamicObject>) -> FetchedResultsController<DynamicObject> {
        FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: sectionKey, sectionCollation: index?.collation)
    }

    /// The sections of the objects in `path` that match (and match `also`),
    /// as a fetched results controller makes them — or in the data's order,
    /// in one section, when neither sort keys nor a section key are given.
    func sections(of path: String, also: FormatPredicate? = nil) throws -> [Section] {
        let context = ObjectContext(store: try Self.store(of: path, quiet: quiet))
        let predicates = [predicate, also].compactMap { $0 }.map(RecordPredicate<DynamicObject>.init)
        let request = FetchRequest<DynamicObject>(
            predicate: predicates.dropFirst().reduce(predicates.first) { $0?.and($1) },
            sortKeys: sortKeys, fetchLimit: limit, fetchOffset: offset)
        do {
            if sortKeys.isEmpty && sectionKey == nil {
                // No order asked for: the data's order (a controller needs sort keys).
                return [("", nil, try context.fetch(request))]
            }
            let controller = controller(request, in: context)
            try controller.performFetch()
            return (controller.sections ?? []).map { ($0.name, $0.indexTitle, $0.objects) }
        } catch {
            throw CommandError("\(error)")
        }
    }

    static func json(_ text: String, _ what: String) throws -> RecordValue {
        do {
            return try JSON.parse(Data(text.utf8))
        } catch {
            throw CommandError("\(what): \(text.debugDescription) is not JSON (\(error)); a string needs quotes: '\"Anna\"'")
        }
    }

    /// Calls `body` with each object of the JSON array at `path` that matches,
    /// in the data's order, from `offset`, at most `limit` of them, as the
    /// file is read; returns how many it called it with. Every object must
    /// have a unique `id`; errors are those ``load(_:into:quiet:)`` and a
    /// fetch would report, in the same order (a malformed file first, then
    /// objects without ids or with the same id, then the predicate's failure).
    func forEachMatch(in path: String, _ body: (DynamicObject) throws -> Void) throws -> Int {
        let test: CompiledPredicate<DynamicObject>?
        do throws(RecordKeyError) {
            test = try predicate?.compiled(for: DynamicObject.self)
        } catch {
            throw CommandError("\(FetchError.unknownKey(error))")
        }
        var predicateFailure: CommandError?
        var matches = 0, called = 0
        try Self.forEachObject(in: path, quiet: quiet) { object in
            guard predicateFailure == nil else { return }
            if let test {
                do throws(PredicateEvaluationError) {
                    guard try test(object) else { return }
                } catch {
                    predicateFailure = CommandError("\(FetchError.predicateFailed("\(error)"))")
                    return
                }
            }
            matches += 1
            guard matches > offset, limit.map({ called < $0 }) ?? true else { return }
            called += 1
            try body(object)
        }
        if let predicateFailure { throw predicateFailure }
        return called
    }

    /// Calls `body` with every object of the JSON array at `path`, in order,
    /// as it is read; each needs a unique `id`.
    static func forEachObject(in path: String, quiet: Bool, _ body: (DynamicObject) throws -> Void) throws {
        var positions = IdentityPositions()
        try FetchResultFile.forEachElement(of: path, quiet: quiet) { k, object in
            guard case .record(let fields) = object else {
                throw CommandError("\(path): object \(k) is \(FetchResultFile.article(object)), not an object")
            }
            guard let id = fields["id"], id != .null else {
                throw CommandError("\(path): object \(k) has no \"id\" to identify it")
            }
            if let earlier = positions.insert(id, at: k) {
                throw CommandError("\(path): objects \(earlier) and \(k) have the same id, \(JSON.string(id))")
            }
            try body(DynamicObject(fields: fields))
        }
    }

    /// A store in memory holding every object of the JSON array at `path`
    /// (saved once, in the file's order); each needs a unique `id`.
    static func store(of path: String, quiet: Bool = false) throws -> ObjectStore<DynamicObject> {
        var objects: [DynamicObject] = []
        try forEachObject(in: path, quiet: quiet) { objects.append($0) }
        do {
            return try ObjectStore(records: objects)
        } catch {
            throw CommandError("\(path): \(error)")
        }
    }
}
