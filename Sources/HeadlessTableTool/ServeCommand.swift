import Foundation
import HeadlessTable
import ToolArguments

/// `headless-table serve [DATA] [--store PATH] [--where FORMAT] [--arg JSON]… [--sort KEY[,-KEY]…]
/// [--section-key KEY | --index KEY [--locale L]] [--entity NAME] [--text KEY] [--detail KEY]
/// [--style plain|grouped|inset-grouped] [--port N]`
///
/// DATA's objects as a live table in a web page: `browse`'s table — the same
/// store, controller, bound table and search, loaded the same way
/// (`BrowseSession`) — drawn by `HTMLRenderer` and served on 127.0.0.1 by
/// ``WebServer``. It prints the page's URL (with its session token) as its
/// first line and serves until interrupted (SIGINT or SIGTERM: exit 0).
/// Each page load is a session of its own; with `--store PATH`, every
/// session (and every other process on PATH) sees the others' saves within
/// a quarter of a second.
enum ServeCommand {
    static let declaration = CommandDeclaration(
        "serve",
        summary: "DATA's objects as a live table in a web page, served on 127.0.0.1",
        positionals: [PositionalDeclaration("DATA", help: "a JSON array of objects, or a model file with --entity (without it, --store's objects)", isOptional: true)],
        options: Query.options(limits: false) + [
            OptionDeclaration("text", .text("KEY"), help: "the field a row shows", defaultNote: "title, name or text"),
            OptionDeclaration("detail", .text("KEY"), help: "a field shown at the right of a row"),
            OptionDeclaration("store", .text("PATH"), help: "keeps deletes in this store file: a new or empty one is loaded with DATA, one that holds objects is served as it is and refuses DATA"),
            TableStyleOption.option,
            OptionDeclaration("port", .integer("N", 0...65535), help: "the port on 127.0.0.1; 0 for a free one", default: "0"),
        ],
        exclusive: [["section-key", "index"]],
        discussion: """
            Prints the page's URL, with its session token, as its first line, then serves
            until interrupted (Ctrl-C). Only 127.0.0.1 is served, and only requests that
            name it (or localhost) as their Host and carry the token. Each page load is a
            session of its own: ↑/↓, PgUp/PgDn, Home/End move the selection, the scroll
            bar and the wheel scroll, the search field searches as browse's / does, and
            Delete deletes the selected object. Deletes last with --store PATH, and pages
            and other processes on PATH see them within a second; without it, they are
            not saved (the status line says so).
            """ + "\n\n" + IndexOption.discussion)

    static func run(_ parsed: ParsedArguments, output: CommandOutput) throws {
        if parsed.positional("DATA") == "-" {
            throw CommandError.usage("serve reads DATA from a file, not standard input: give its path")
        }
        var options = try BrowseCommand.Options.parse(parsed)
        options.keepsDeletes = "--store PATH"
        // DATA is read once; each page's store starts from what was read
        // (or, with --store, from the store file, which holds it from now on).
        let objects = options.store == nil && options.query.entity == nil
            ? try BrowseSession.read(options.file ?? "", quiet: options.query.quiet) : nil
        let first = try BrowseSession(options, read: objects)
        if !options.query.quiet {
            let t = first.timings
            let count = first.model.rowCount(first.model.table)
            func ms(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }
            output.err("serve: \(count) object\(count == 1 ? "" : "s") ready \(ms(t.store + t.fetch + t.model)) ms after the data was read "
                + "(store \(ms(t.store)) ms, fetch \(ms(t.fetch)) ms, table \(ms(t.model)) ms)\n")
        }
        if options.store != nil { options.file = nil }
        var configuration = WebServer.Configuration()
        configuration.port = UInt16(parsed.integer("port") ?? 0)
        let server: WebServer
        do {
            server = try WebServer(configuration: configuration, first: first) { [options] in try BrowseSession(options, read: objects) }
        } catch let error as _Sockets.Failure {
            throw CommandError("serve could not listen on 127.0.0.1:\(configuration.port): \(error)")
        }
        _Sockets.installStopSignals()
        output.out(server.url + "\n")
        server.run { _Sockets.stopRequested }
        server.close()
    }
}
