import Foundation
import HeadlessTable

/// One page of `serve`: a browse of its own (`BrowseSession`, as `browse`
/// makes it: the store, the controller, the bound table, the search), its
/// `BrowserModel` showing the search field always, and an `HTMLRenderer`
/// that turns each change of the table shown — the main table, or the
/// search's results while a search is on — into DOM operations for the page.
///
/// The page's inputs (keys, scrolls, the search text, a delete, its size)
/// are the model's calls, as `browse`'s keys are; after each one, and after
/// the saves of others merged in, ``message(answering:whole:)`` is what the
/// page is sent.
final class WebSession {
    /// The session's name in the page's URLs (random hex).
    let id: String
    let browse: BrowseSession
    let renderer: HTMLRenderer
    /// The page's event stream, while one is connected.
    var stream: WebConnection?
    /// When the session last had a stream or an input (monotonic nanoseconds).
    var lastActive: UInt64
    /// The title the page shows.
    private var shownTitle: String?

    /// A row's CSS pixels: the model lays its table out in lines.
    static let rowPixels = 24.0
    /// The longest search text taken, in characters.
    static let maximumSearchLength = 1_000

    var model: BrowserModel { browse.model }

    init(id: String, browse: BrowseSession, now: UInt64) throws {
        self.id = id
        self.browse = browse
        lastActive = now
        renderer = try HTMLRenderer(pixelsPerPoint: Self.rowPixels)
        let model = browse.model
        renderer.label = model.name
        // A row's identity is its object's id, as `query` prints it. (A path
        // of the window always has an object; were it not found, the row
        // would be named by its place, still a valid page.)
        renderer.rowIdentifier = { [unowned model] path in
            (try? model.object(at: path)).map { RecordTable.display($0.id) }
        }
        model.alwaysShowsSearchField = true
        model.fitTablesToScreen()
    }

    // MARK: Inputs

    /// What the page sends (`POST /input`, JSON): a key, a scroll, the search
    /// text, a delete or its grid's height; `seq` numbers it, and the message
    /// that answers carries it back.
    struct Input: Decodable {
        enum Kind: String, Decodable { case key, scroll, search, delete, resize }
        var type: Kind
        var key: String?
        /// The grid's scroll position, CSS pixels.
        var top: Double?
        var text: String?
        /// The grid's height, CSS pixels.
        var height: Double?
        var seq: Int?
    }

    /// The keys the page sends, and the model's.
    static let keys: [String: Key] = ["up": .up, "down": .down, "pageUp": .pageUp, "pageDown": .pageDown, "home": .home, "end": .end]

    /// Decodes an input.
    ///
    /// - Throws: a 400 refusal that says what is wrong.
    static func input(from body: [UInt8]) throws(HTTPRefusal) -> Input {
        do {
            return try JSONDecoder().decode(Input.self, from: Data(body))
        } catch {
            throw HTTPRefusal(status: 400, reason: "the input is not {\"type\": \"key\"|\"scroll\"|\"search\"|\"delete\"|\"resize\", …}: \(error)")
        }
    }

    /// Acts on an input, as `browse` acts on a key.
    ///
    /// - Throws: a 400 refusal for an input that cannot be (an unknown key, a
    ///   number that is not a finite one in range, a search text over
    ///   ``maximumSearchLength`` characters); the session is unchanged.
    func handle(_ input: Input, now: UInt64) throws(HTTPRefusal) {
        lastActive = now
        switch input.type {
        case .key:
            guard let name = input.key, let key = Self.keys[name] else {
                throw HTTPRefusal(status: 400, reason: "a key is one of \(Self.keys.keys.sorted().joined(separator: ", "))")
            }
            model.move(key)
            model.fitTablesToScreen()
        case .scroll:
            guard let top = input.top, top.isFinite, top >= 0, top <= 1e9 else {
                throw HTTPRefusal(status: 400, reason: "a scroll's top is a number of pixels from 0 to 1e9")
            }
            // The page scrolled: the table's window follows, the selection stays where it is.
            do { try model.shownTable.setContentOffset(renderer.contentOffset(forScrollTop: top)) } catch { model.note("\(error)") }
        case .search:
            guard let text = input.text, text.count <= Self.maximumSearchLength else {
                throw HTTPRefusal(status: 400, reason: "a search's text is at most \(Self.maximumSearchLength) characters")
            }
            model.setSearch(text)
            model.fitTablesToScreen()
        case .delete:
            model.deleteSelected()
            model.fitTablesToScreen()
        case .resize:
            guard let height = input.height, height.isFinite, height >= 0, height <= 100_000 else {
                throw HTTPRefusal(status: 400, reason: "a grid's height is a number of pixels from 0 to 100000")
            }
            // The model's lines: the grid's rows, and the title, status and search lines it counts.
            model.resize(columns: 80, lines: Swift.max(1, Int(height / Self.rowPixels)) + 3)
        }
    }

    /// Picks up what other stores on the same file saved (other pages, other
    /// processes) and merges it into the session's context: its controller,
    /// table and search follow. True when something was merged.
    func mergeExternalChanges() throws -> Bool {
        let context = browse.context
        guard context.store.fileURL != nil else { return false }
        let saves = try context.store.mergeExternalChanges()
        for save in saves { _ = context.mergeChanges(fromContextDidSave: save) }
        return !saves.isEmpty
    }

    // MARK: Messages

    /// What the page is sent, as JSON: the operations since the last message
    /// (or the whole table), the title when it changed, the status line, and
    /// the input it answers.
    struct Message: Encodable {
        var seq: Int?
        var html: String?
        var ops: [HTMLOperation]?
        var title: String?
        var status: String?
    }

    /// The next message for the page's stream, as a Server-Sent Event: the
    /// table shown, from the frame last sent (`whole`: the whole table, for a
    /// stream that starts); nil when there is nothing to say.
    ///
    /// - Complexity: O(*w* log *w*) for a window of *w* rows, and O(*s*) for
    ///   the title's counts over *s* sections.
    func message(answering seq: Int?, whole: Bool = false) -> String? {
        if whole {
            renderer.reset()
            shownTitle = nil
        }
        var message = Message(seq: seq)
        switch renderer.render(model.shownTable.currentFrame) {
        case .html(let html): message.html = html
        case .operations(let operations): message.ops = operations.isEmpty ? nil : operations
        }
        let title = model.title
        if title != shownTitle {
            message.title = title
            shownTitle = title
        }
        let status = model.takeStatus()
        if !status.isEmpty { message.status = status }
        guard message.seq != nil || message.html != nil || message.ops != nil || message.title != nil || message.status != nil else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(message)
        } catch {
            // The operations' numbers are finite: this is not expected. Say so, and send the whole table next.
            renderer.reset()
            guard let fallback = try? encoder.encode(Message(seq: seq, status: "could not send the change: \(error)")) else { return nil }
            data = fallback
        }
        return "data: " + String(decoding: data, as: UTF8.self) + "\n\n"
    }
}
