import Foundation
import HeadlessTable
import ToolArguments

/// `headless-table browse [DATA] [--store PATH | --write] [--where FORMAT] [--arg JSON]… [--sort KEY[,-KEY]…]
/// [--section-key KEY | --index KEY [--locale L]] [--text KEY] [--detail KEY] [--style plain|grouped|inset-grouped]`
///
/// An interactive table of DATA's objects in the terminal, on the text
/// renderer: ↑/↓ (or k/j) move the selection, PgUp/PgDn a page, Home/End to
/// the ends; `/` starts a search that filters as you type (Enter keeps the
/// results, Esc cancels); `d` deletes the selected object through the store,
/// the change shown; `q` or Ctrl-C quits. It uses the terminal's size, redraws
/// when it changes, and puts the terminal back as it was on the way out.
/// The browser itself is ``BrowserModel``; this is its terminal loop.
///
/// Deletes last with `--store PATH` (the embedded store file: a new one is
/// made and DATA loaded into it; an existing one is browsed as it is, DATA
/// left out) or `--write` (the remaining objects are written back to DATA, in
/// its order, atomically, when the browser quits with `q` or Ctrl-C); without
/// either the status line says deletes are not saved.
enum BrowseCommand {
    static let declaration = CommandDeclaration(
        "browse",
        summary: "DATA's objects as an interactive table in the terminal",
        positionals: [PositionalDeclaration("DATA", help: "a JSON array of objects, or a model file with --entity (without it, --store's objects)", isOptional: true)],
        options: Query.options(limits: false) + [
            OptionDeclaration("text", .text("KEY"), help: "the field a row shows", defaultNote: "title, name or text"),
            OptionDeclaration("detail", .text("KEY"), help: "a field shown at the right of a row"),
            OptionDeclaration("store", .text("PATH"), help: "keeps deletes in this store file: a new or empty one is loaded with DATA, one that holds objects is browsed as it is and refuses DATA"),
            .flag("write", help: "writes the remaining objects back to DATA, in its order and atomically, on quitting with q or Ctrl-C after a delete; a kill by a signal does not write"),
            TableStyleOption.option,
        ],
        exclusive: [["section-key", "index"], ["store", "write"]],
        discussion: """
            Keys: ↑/↓ (or k/j) move the selection, PgUp/PgDn a page, Home/End to the ends;
            / searches as you type (Enter browses the results, Esc cancels); d deletes the
            selected object; q or Ctrl-C quits. Standard input and output must be a terminal.
            Without --store or --write, deletes are not saved (the status line says so).
            It fills the terminal, redraws when it is resized, and puts it back as it was
            on the way out (also on SIGINT, SIGTERM and SIGHUP).
            """ + "\n\n" + IndexOption.discussion)

    /// browse's own options, taken in one place.
    struct Options {
        var query: Query
        var textKey: String?
        var detailKey: String?
        /// `--store PATH`: the embedded store file.
        var store: String?
        /// `--write`: write the remaining objects back to DATA on quit.
        var write = false
        var file: String?
        /// `--style`: the table's style.
        var style = TableView.Style.plain
        /// What the status line names as keeping deletes, after one that does not last.
        var keepsDeletes = "--store PATH or --write"

        static func parse(_ parsed: ParsedArguments) throws -> Options {
            var options = Options(query: try Query.parse(parsed))
            options.style = TableStyleOption.style(parsed)
            options.textKey = parsed.string("text")
            options.detailKey = parsed.string("detail")
            options.store = parsed.string("store")
            options.write = parsed.flag("write")
            options.file = parsed.positional("DATA")
            if options.file == "-" { throw CommandError.usage("browse reads its keys from standard input: give DATA as a file") }
            if options.store?.isEmpty == true { throw CommandError.usage("--store needs a PATH, not an empty one") }
            if options.file == nil && options.store == nil { throw CommandError.usage("missing DATA (a JSON array of objects)") }
            if options.query.entity != nil && (options.store != nil || options.write) {
                throw CommandError.usage("--entity browses a model file in memory: --store and --write keep a plain array's deletes, not a model file's")
            }
            try options.query.compile()
            return options
        }
    }

    static func run(_ parsed: ParsedArguments, output: CommandOutput) throws {
        let options = try Options.parse(parsed)
        guard Terminal.isInteractive else {
            throw CommandError("browse draws on a terminal: run it with standard input and output on one (for text, use render)")
        }
        let session = try BrowseSession(options)
        let terminal = try Terminal()
        loop(session.model, terminal)
        terminal.restore()
        try session.finish()
    }

    /// Reads keys, hands them to the model, writes its screen.
    static func loop(_ model: BrowserModel, _ terminal: Terminal) {
        func draw() {
            let lines = model.screen()
            let bar = { (line: String) in "\u{1B}[7m" + line + "\u{1B}[0m" }
            let body = lines.dropFirst().dropLast()
            let text = [bar(lines.first ?? "")] + body + [bar(lines.last ?? "")]
            terminal.write("\u{1B}[H" + text.joined(separator: "\r\n") + "\u{1B}[J")
        }
        let size = terminal.size()
        model.resize(columns: size.columns, lines: size.lines)
        draw()
        while true {
            if Terminal.resized() {
                let size = terminal.size()
                model.resize(columns: size.columns, lines: size.lines)
                draw()
            }
            // While a search finds the rest of its results, the loop looks for them every few milliseconds.
            guard let keys = terminal.read(waiting: model.isBusy ? 4 : 100) else {
                if model.idle() { draw() }
                continue
            }
            for key in keys where !model.handle(key) { return }
            draw()
        }
    }
}

/// A browse's data: the store (in memory, or a file), the fetched results
/// controller over it, the model; and what happens to the deletes on the way out.
///
/// In memory, the store starts with DATA's objects (no inserts to save); the
/// controller fetches from it, ordered and sectioned by the library's own
/// rules, and the model's table is bound to it.
public final class BrowseSession {
    /// The browser.
    public let model: BrowserModel
    /// The context deletes go through.
    let context: ObjectContext
    /// `--write`: DATA's path and its objects in its order.
    private(set) var writeBack: (path: String, objects: [DynamicObject])?

    /// A browse of the objects `arguments` (browse's, DATA among them) say,
    /// with DATA's objects given already read (for the benchmark: the time
    /// from the data read to the first screen).
    public convenience init(arguments: [String], objects: [DynamicObject]) throws {
        let parsed = try ArgumentParser.parse(arguments, command: BrowseCommand.declaration)
        try self.init(try BrowseCommand.Options.parse(parsed), read: objects)
    }

    /// How long each step of opening took, for the benchmark.
    public private(set) var timings = BrowseTimings()

    /// Waits until the store is built (for the benchmark and tests): it is
    /// built before the fetch.
    public func waitForStore() {}

    /// Rows read from the store at a time: a few screens.
    static let fetchBatchSize = 128

    init(_ options: BrowseCommand.Options, read: [DynamicObject]? = nil) throws {
        var laps = _Laps(), timings = BrowseTimings()
        let query = options.query
        var request = FetchRequest<DynamicObject>(
            predicate: query.predicate.map(RecordPredicate.init), sortKeys: query.sortKeys.isEmpty ? [SortKey("id")] : query.sortKeys)
        // Records read from the store a batch at a time, as the screen shows
        // them: the controller holds no record per row (16 bytes each).
        request.fetchBatchSize = Self.fetchBatchSize
        let context: ObjectContext
        var unsavedNote: String? = options.store == nil && !options.write ? "not saved: \(options.keepsDeletes) keeps deletes" : nil
        if let entity = query.entity {
            // A model file: the entity's objects in a store of the file's model;
            // a delete applies its delete rules, and the controller follows.
            let graph = try GraphFile.read(options.file ?? "", entity: entity, quiet: query.quiet)
            context = graph.context
            request.entityName = entity
            unsavedNote = "not saved: a model file is browsed in memory"
        } else if let path = options.store {
            let store: ObjectStore
            do {
                store = try ObjectStore(for: DynamicObject.self, fileURL: URL(fileURLWithPath: path))
            } catch {
                throw CommandError("--store \(path): \(error)")
            }
            context = ObjectContext(store: store)
            let count = store.count
            if count > 0, let file = options.file {
                throw CommandError.usage("--store \(path) already holds \(count) objects: leave out \(file) to browse them, or remove \(path) to load \(file) anew")
            }
            if count == 0 {
                guard let file = options.file else {
                    throw CommandError.usage("--store \(path) is new (or empty): give DATA to load into it")
                }
                let loaded = try read ?? Self.read(file, quiet: query.quiet)
                do {
                    for object in loaded { try context.insert(object) }
                    _ = try context.save()
                } catch {
                    throw CommandError("\(file): \(error)")
                }
            }
        } else {
            // In memory: the store starts with DATA's objects.
            let file = options.file ?? ""
            let objects = try read ?? Self.read(file, quiet: query.quiet)
            writeBack = options.write ? (file, objects) : nil
            do {
                context = ObjectContext(store: try ObjectStore(records: objects))
            } catch {
                throw CommandError("\(file): \(error)")
            }
        }
        self.context = context
        timings.store = laps.lap()
        let controller = query.controller(request, in: context)
        do {
            try controller.performFetch()
        } catch {
            throw CommandError("\(error)")
        }
        timings.fetch = laps.lap()
        let name = URL(fileURLWithPath: options.file ?? options.store ?? "").lastPathComponent
        let entity = query.entity
        model = try BrowserModel(
            name: name, controller: controller, style: options.style, textKey: options.textKey, detailKey: options.detailKey,
            unsavedNote: unsavedNote
        ) { object in
            try context.delete(DynamicObject.self, id: object.id, entity: entity)
            _ = try context.save()
        }
        timings.model = laps.lap()
        self.timings = timings
    }

    /// DATA's objects in order, read by the input rules (each with a unique
    /// id, not null); a progress line for a long read unless `quiet`.
    static func read(_ path: String, quiet: Bool = false) throws -> [DynamicObject] {
        try InputRules.objects(path, quiet: quiet)
    }

    /// On the way out: with `--write` and a delete made, DATA gets the
    /// remaining objects, in its order, written atomically.
    func finish() throws {
        guard let (path, objects) = writeBack, !model.deletedIDs.isEmpty else { return }
        let deleted = Set(model.deletedIDs)
        let remaining = objects.filter { !deleted.contains($0.id) }
        let text = "[\n" + remaining.map { JSON.string(.record($0.fields)) }.joined(separator: ",\n") + "\n]\n"
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CommandError("--write: \(path) could not be written (\(model.deletedIDs.count) delete\(model.deletedIDs.count == 1 ? "" : "s") lost): \(error)")
        }
    }
}

/// How long each step of opening a browse took, in seconds: what the
/// benchmark reports of the first screen.
public struct BrowseTimings: Equatable, Sendable {
    /// Opening the store: a file's (loading DATA into a new one), or one in
    /// memory that starts with DATA's objects.
    public var store: Double = 0
    /// The controller's fetch.
    public var fetch: Double = 0
    /// Making the browser and its first screen.
    public var model: Double = 0
}

/// Seconds since the last lap (or since it was made).
struct _Laps {
    private var clock = Date()

    /// The seconds since the last lap; starts the next.
    mutating func lap() -> Double {
        let now = Date()
        defer { clock = now }
        return now.timeIntervalSince(clock)
    }
}

/// A key the browser knows.
public enum Key: Hashable, Sendable {
    case up, down, pageUp, pageDown, home, end, enter, escape, backspace, quit
    case character(Character)

    /// The keys in bytes read from a terminal.
    public static func parse(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == 0x1B {
                // An escape sequence, or Esc alone.
                let rest = Array(bytes[(i + 1)...].prefix(3))
                let sequences: [([UInt8], Key)] = [
                    (Array("[A".utf8), .up), (Array("[B".utf8), .down), (Array("OA".utf8), .up), (Array("OB".utf8), .down),
                    (Array("[5~".utf8), .pageUp), (Array("[6~".utf8), .pageDown), (Array("[H".utf8), .home), (Array("[F".utf8), .end),
                    (Array("OH".utf8), .home), (Array("OF".utf8), .end), (Array("[1~".utf8), .home), (Array("[4~".utf8), .end),
                    (Array("[7~".utf8), .home), (Array("[8~".utf8), .end),
                ]
                if let (sequence, key) = sequences.first(where: { rest.starts(with: $0.0) }) {
                    keys.append(key)
                    i += 1 + sequence.count
                } else if rest.first == UInt8(ascii: "[") || rest.first == UInt8(ascii: "O") {
                    // Another sequence (an arrow sideways, a function key): skip it.
                    var j = i + 2
                    while j < bytes.count, !(0x40...0x7E).contains(bytes[j]) { j += 1 }
                    i = j + 1
                } else {
                    keys.append(.escape)
                    i += 1
                }
                continue
            }
            switch byte {
            case 0x03, 0x04: keys.append(.quit)
            case 0x0D, 0x0A: keys.append(.enter)
            case 0x7F, 0x08: keys.append(.backspace)
            case 0x00..<0x20: break
            default:
                // A character, in UTF-8.
                let length = byte < 0xC0 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
                let end = Swift.min(bytes.count, i + length)
                if let text = String(bytes: bytes[i..<end], encoding: .utf8), let c = text.first { keys.append(.character(c)) }
                i = end
                continue
            }
            i += 1
        }
        return keys
    }
}

extension BrowserModel {
    /// Waits (up to a minute) until the search's folded index is made, when
    /// the index answers the search (for the benchmark and tests).
    public func waitForSearchIndex() {
        if !leavesOutUnsearchableRows { search.waitForSearchIndex(timeout: 60) }
    }
}
