import Foundation
import HeadlessTable
import ToolArguments

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
    /// `--entity NAME`: DATA is a model file, and these are NAME's objects.
    var entity: String?

    /// The options of a fetch: `query`'s, `render`'s and `browse`'s.
    static func options(limits: Bool, bareIndexIsAFlag: Bool = false) -> [OptionDeclaration] {
        [
            OptionDeclaration("where", .text("FORMAT"), help: "the predicate, in Core Data's format language: 'age > %@ AND name BEGINSWITH[cd] $P'"),
            OptionDeclaration(
                "arg", .text("JSON"), help: "the value of the predicate's next %@ (or %K, %d …), as JSON: 40, 1.5, '\"Anna\"'; every one must be used",
                repeatable: true, requires: "where"),
            OptionDeclaration("var", .text("NAME=JSON"), help: "binds $NAME in the predicate to a JSON value", repeatable: true, requires: "where"),
            OptionDeclaration("sort", .text("KEY[,-KEY]…"), help: "sort keys, - before a descending one (without: the data's order)", repeatable: true),
            OptionDeclaration("section-key", .text("KEY"), help: "sections by KEY's value; the first --sort key must be KEY"),
        ] + IndexOption.options(bareIndexIsAFlag: bareIndexIsAFlag) + (limits ? [
            OptionDeclaration("limit", .integer("N", 0...Int.max), help: "at most N objects"),
            OptionDeclaration("offset", .integer("N", 0...Int.max), help: "skips the first N objects", default: "0"),
        ] : []) + [
            OptionDeclaration("entity", .text("NAME"), help: "DATA is a model file ({\"model\":…,\"objects\":…}): NAME's objects, key paths through relationships"),
            ReadProgress.quietOption,
        ]
    }

    /// Takes the options from a parsed command line (``compile()`` then checks them).
    static func parse(_ parsed: ParsedArguments) throws -> Query {
        var query = Query()
        query.predicateText = parsed.string("where")
        query.argumentTexts = parsed.strings("arg")
        query.variableTexts = parsed.strings("var")
        query.sortTexts = parsed.strings("sort")
        query.sectionKey = parsed.string("section-key")
        query.quiet = parsed.flag("quiet")
        query.entity = parsed.string("entity")
        if query.entity?.isEmpty == true { throw CommandError.usage("--entity needs an entity's NAME, not an empty one") }
        query.index = try IndexOption.parse(parsed)
        if query.index != nil && query.sectionKey != nil {
            throw CommandError.usage("--index KEY makes the sections (KEY's index titles): give it or --section-key, not both")
        }
        if parsed.command.option("limit") != nil {
            query.limit = parsed.integer("limit")
            query.offset = parsed.integer("offset") ?? 0
        }
        return query
    }

    /// Parses the predicate, with its arguments and variables, and the sort keys.
    mutating func compile() throws {
        if let predicateText {
            let values = try argumentTexts.enumerated().map { k, text in try Self.json(text, "--arg \(k + 1)") }
            var predicate = try Self.predicate(predicateText, values)
            var bound: [String: RecordValue] = [:]
            for text in variableTexts {
                guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                    throw CommandError.usage("--var takes NAME=JSON, as in --var MIN=18, not '\(UsageError.excerpt(text))'")
                }
                let name = String(text[..<equals].drop { $0 == "$" })
                bound[name] = try Self.json(String(text[text.index(after: equals)...]), "--var \(name)")
            }
            let unused = bound.keys.filter { !predicate.variables.contains($0) }.sorted()
            if let first = unused.first {
                throw CommandError.usage("--var \(UsageError.excerpt(first)) is not used: the predicate has no $\(UsageError.excerpt(first))")
            }
            predicate = predicate.substituting(bound)
            let unbound = predicate.variables.sorted()
            if let first = unbound.first {
                throw CommandError("--where needs \(unbound.map { "$" + $0 }.joined(separator: ", ")): bind \(unbound.count == 1 ? "it" : "them") with --var \(first)=JSON")
            }
            self.predicate = predicate
        }
        sortKeys = sortTexts.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { key -> SortKey in
            key.hasPrefix("-") ? SortKey(String(key.dropFirst()), ascending: false) : SortKey(String(key))
        }
        if let empty = sortKeys.first(where: { $0.keyPath.isEmpty }) {
            throw CommandError.usage("--sort takes key paths separated by commas, - before a descending one; '\(empty)' is empty")
        }
        if let sectionKey, index == nil, sortKeys.first?.keyPath != sectionKey {
            throw CommandError.usage(Self.sortForSections(sectionKey, sortKeys: sortKeys))
        }
        if let index {
            sortKeys = index.sortKeys(then: sortKeys)
            sectionKey = index.key
        }
    }

    /// `--section-key city needs --sort city,…`.
    static func sortForSections(_ key: String, sortKeys: [SortKey]) -> String {
        let first = sortKeys.first.map { " (the first sort key is \($0.keyPath))" } ?? ""
        return "--section-key \(key) needs --sort \(key),…: the first sort key orders the sections\(first)"
    }

    /// The predicate of `format` with `values` for its arguments; every value must be used.
    static func predicate(_ format: String, _ values: [RecordValue]) throws -> FormatPredicate {
        let predicate: FormatPredicate
        do throws(PredicateSyntaxError) {
            predicate = try FormatPredicate(format: format, arguments: values)
        } catch {
            throw CommandError(PredicateMessage.syntax(error))
        }
        // A value the format does not take: the format parses without it.
        var used = values.count
        while used > 0, (try? FormatPredicate(format: format, arguments: Array(values.prefix(used - 1)))) != nil { used -= 1 }
        if used < values.count {
            let unused = values.count - used
            throw CommandError.usage(
                "--arg \(used + 1)\(unused > 1 ? "…\(values.count)" : "") (\(UsageError.excerpt(JSON.string(values[used]))))"
                    + " \(unused > 1 ? "are" : "is") not used: the predicate takes \(used) argument\(used == 1 ? "" : "s")")
        }
        return predicate
    }

    /// How the text output names what the sections are by: `city`, or `name's index (de)`.
    var sectionLabel: String { index?.label ?? sectionKey ?? "" }

    /// A fetched results controller of `request` in `context`, sectioned as the options say.
    func controller(_ request: FetchRequest<DynamicObject>, in context: ObjectContext) -> FetchedResultsController<DynamicObject> {
        FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: sectionKey, sectionCollation: index?.collation)
    }

    /// The sections of the objects in `path` that match (and match `also`),
    /// as a fetched results controller makes them — or in the data's order,
    /// in one section, when neither sort keys nor a section key are given.
    func sections(of path: String, also: FormatPredicate? = nil) throws -> [Section] {
        let context: ObjectContext
        var request: FetchRequest<DynamicObject>
        if let entity {
            // A model file: the entity's objects, key paths through relationships.
            let graph = try GraphFile.read(path, entity: entity, quiet: quiet)
            context = graph.context
            request = graph.request(predicate(and: also), sortKeys: sortKeys, limit: limit, offset: offset)
        } else {
            context = ObjectContext(store: try Self.store(of: path, quiet: quiet))
            let predicates = [predicate, also].compactMap { $0 }.map(RecordPredicate<DynamicObject>.init)
            request = FetchRequest<DynamicObject>(
                predicate: predicates.dropFirst().reduce(predicates.first) { $0?.and($1) },
                sortKeys: sortKeys, fetchLimit: limit, fetchOffset: offset)
        }
        do {
            if sortKeys.isEmpty && sectionKey == nil {
                // No order asked for: the data's order (a controller needs sort keys).
                return [("", nil, try context.fetch(request))]
            }
            let controller = controller(request, in: context)
            try controller.performFetch()
            return (controller.sections ?? []).map { ($0.name, $0.indexTitle, $0.objects) }
        } catch {
            throw CommandError(message(for: error))
        }
    }

    /// The predicate and `also`, both.
    func predicate(and also: FormatPredicate?) -> FormatPredicate? {
        guard let predicate, let also else { return predicate ?? also }
        return FormatPredicate(.and([predicate.condition, also.condition]))
    }

    /// A library error in the words of the command line.
    func message(for error: any Error) -> String {
        guard let error = error as? FetchError else { return "\(error)" }
        switch error {
        case .noSortKeys, .sectionsOutOfOrder:
            return Self.sortForSections(sectionKey ?? "KEY", sortKeys: sortKeys)
        case .predicateFailed(let reason):
            return "--where: \(UsageError.excerpt("\(reason)", length: 200)) (evaluating \(UsageError.excerpt(predicate?.predicateFormat ?? "the search")))"
        case .unknownKey(let key):
            return "\(key)"
        case let .negativeSetting(name, value):
            return "--\(name == "fetchLimit" ? "limit" : "offset") must not be negative (it is \(value))"
        default:
            return "\(error)"
        }
    }

    static func json(_ text: String, _ what: String) throws -> RecordValue {
        do {
            return try JSON.parse(Data(text.utf8))
        } catch {
            throw CommandError("\(what): \(UsageError.excerpt(text).debugDescription) is not JSON (\(error)); a string needs quotes: '\"Anna\"'")
        }
    }

    /// A store in memory holding every object of the JSON array at `path`
    /// (saved once, in the file's order; the input rules: each with a unique id).
    static func store(of path: String, quiet: Bool = false) throws -> ObjectStore {
        let objects = try InputRules.objects(path, quiet: quiet)
        do {
            return try ObjectStore(records: objects)
        } catch {
            throw CommandError("\(InputFile.name(path)): \(error)")
        }
    }

    /// Calls `body` with each object of the JSON array at `path` that matches,
    /// in the data's order, from `offset`, at most `limit` of them, as the
    /// file is read; returns how many it called it with. The errors are those
    /// loading a store and fetching would report, in the same order: a
    /// malformed file first, then objects without ids or with the same id,
    /// then the predicate's failure.
    func forEachMatch(in path: String, _ body: (DynamicObject) throws -> Void) throws -> Int {
        let test: CompiledPredicate<DynamicObject>?
        do throws(RecordKeyError) {
            test = try predicate?.compiled(for: DynamicObject.self)
        } catch {
            throw CommandError(message(for: FetchError.unknownKey(error)))
        }
        var predicateFailure: (any Error)?
        var duplicates = DuplicateIDs()
        var matches = 0, called = 0
        try InputRules.forEachObject(in: path, quiet: quiet) { k, fields, id in
            duplicates.note(id, at: k)
            guard predicateFailure == nil, duplicates.isEmpty else { return }
            let object = DynamicObject(fields: fields)
            if let test {
                do throws(PredicateEvaluationError) {
                    guard try test(object) else { return }
                } catch {
                    predicateFailure = FetchError.predicateFailed(error)
                    return
                }
            }
            matches += 1
            guard matches > offset, limit.map({ called < $0 }) ?? true else { return }
            called += 1
            try body(object)
        }
        try duplicates.check(file: path) { "object \($0)" }
        if let predicateFailure { throw CommandError(message(for: predicateFailure)) }
        return called
    }
}
