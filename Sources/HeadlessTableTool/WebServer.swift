import Foundation
import HeadlessTable

/// Who may talk to `serve`: requests for 127.0.0.1 or localhost at the
/// server's port (a DNS-rebinding page names its own host), from the same
/// origin when they say where from, carrying the session token the server
/// printed. A pure check, so that a test can give it any request.
struct ServeAccess: Equatable {
    var port: UInt16
    var token: String

    /// Why `request` is refused, or nil when it may be served.
    func refusal(for request: HTTPRequest) -> HTTPRefusal? {
        guard let host = request.header("host") else { return HTTPRefusal(status: 400, reason: "no Host field") }
        guard Self.isLoopback(host: host, port: port) else {
            // (The Host is not echoed: nothing read from a request goes back out.)
            return HTTPRefusal(status: 403, reason: "this server answers to 127.0.0.1:\(port) and localhost:\(port) only")
        }
        if let origin = request.header("origin"), !["http://127.0.0.1", "http://localhost"].contains(where: { Self.isLoopback(origin: origin, $0, port: port) }) {
            return HTTPRefusal(status: 403, reason: "a request from another origin")
        }
        if request.header("sec-fetch-site") == "cross-site" { return HTTPRefusal(status: 403, reason: "a cross-site request") }
        guard let given = request.query["token"], Self.constantTimeEqual(given, token) else {
            return HTTPRefusal(status: 403, reason: "no session token, or another: open the URL serve printed")
        }
        return nil
    }

    /// Whether a `Host` field names this server: `127.0.0.1:PORT` or
    /// `localhost:PORT` (any case), or either alone on port 80.
    static func isLoopback(host: String, port: UInt16) -> Bool {
        let host = host.lowercased()
        return ["127.0.0.1", "localhost"].contains { name in host == "\(name):\(port)" || (port == 80 && host == name) }
    }

    static func isLoopback(origin: String, _ base: String, port: UInt16) -> Bool {
        let origin = origin.lowercased()
        return origin == "\(base):\(port)" || (port == 80 && origin == base)
    }

    /// Compares without stopping at the first difference.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// A connection to `serve`: what it sent that is not handled yet, what is
/// still to be written, and whether it is a page's event stream.
final class WebConnection {
    let socket: Int32
    var input: [UInt8] = []
    /// The bytes the pending request takes, once its head is read.
    var needed: Int?
    var output: [UInt8] = []
    var written = 0
    /// The session whose events this connection streams.
    var streamedSession: String?
    /// Closed once the output is written.
    var closing = false
    /// Written whole and shut for writing: what still comes is dropped until the peer closes (or 2 s pass).
    var draining = false
    /// A page request waiting for its table: no further request is read meanwhile.
    var parked = false
    /// Monotonic nanoseconds: the last byte read or written; when the pending request began.
    var lastActivity: UInt64
    var requestStarted: UInt64?
    /// When a ping was last written to a stream.
    var lastPing: UInt64

    init(socket: Int32, now: UInt64) {
        self.socket = socket
        lastActivity = now
        lastPing = now
    }

    var isStream: Bool { streamedSession != nil }
    var hasOutput: Bool { written < output.count }
}

/// `serve`'s HTTP/1.1 server: one thread, one poll(2) loop over the
/// listening socket and the connections, every page's session on that thread.
///
/// Routes (each needs the token, see ``ServeAccess``): `GET /` makes a
/// session and answers its page (the first page's table is made before
/// serving; a later page's on a thread of its own while the page waits and
/// the loop goes on); `GET /events?session=S` is the session's
/// event stream (Server-Sent Events: the whole table first, then patches);
/// `POST /input?session=S` (JSON, see ``WebSession/Input``) acts on the
/// session and answers 204, its result going down the stream.
///
/// Limits: a request's head 16 KiB and body 64 KiB
/// (``HTTPLimits``), a request 10 s to arrive whole, a connection 30 s idle,
/// 64 connections (the next gets a 503), 8 sessions (a page without a stream
/// is dropped first; then a new page gets a 503), a stream's unsent bytes
/// 8 MiB (then it is closed; the page reconnects and gets the whole table).
/// A malformed or hostile request gets its 4xx and the connection is
/// closed; the server goes on.
final class WebServer {
    struct Configuration {
        var port: UInt16 = 0
        var limits = HTTPLimits()
        var maximumConnections = 64
        var maximumSessions = 8
        var requestSeconds = 10.0
        var idleSeconds = 30.0
        /// A session without a stream this long is dropped.
        var sessionSeconds = 60.0
        var pingSeconds = 15.0
        var streamBufferBytes = 8 << 20
        /// How often other stores' saves are looked for.
        var mergeSeconds = 0.25
    }

    let configuration: Configuration
    let listener: Int32
    let port: UInt16
    let access: ServeAccess
    /// Makes the browse of a new page, on a thread of its own: it reads only
    /// what it captured when the server was made (the options, DATA's objects).
    private let makeBrowse: () throws -> BrowseSession
    /// The browse the next page gets: the first made before serving; the
    /// next ones in the background when a page asks (the page waits, the loop
    /// and the other pages go on; none is made ahead, idle, at a million
    /// rows' cost in memory and time).
    private var ready: BrowseSession?
    private var spare: SpareBrowse?
    /// Pages asked for while no browse was ready: answered when the spare is made.
    private var waitingPages: [(HTTPRequest, WebConnection)] = []
    private var connections: [Int32: WebConnection] = [:]
    private(set) var sessions: [String: WebSession] = [:]
    private var closed = false

    /// The URL to open: the page, with the token.
    var url: String { "http://127.0.0.1:\(port)/?token=\(access.token)" }

    /// A server listening on 127.0.0.1 (at the configuration's port, or a free
    /// one), with a new random token; `first` serves the first page.
    init(configuration: Configuration = Configuration(), first: BrowseSession?, makeBrowse: @escaping () throws -> BrowseSession) throws {
        self.configuration = configuration
        (listener, port) = try _Sockets.listen(port: configuration.port)
        access = ServeAccess(port: port, token: Self.randomHex(bytes: 16))
        ready = first
        self.makeBrowse = makeBrowse
        if first == nil { makeSpare() }
    }

    /// Starts making a page's browse in the background (one at a time).
    private func makeSpare() {
        guard spare == nil, ready == nil else { return }
        spare = SpareBrowse(making: makeBrowse)
    }

    /// Answers the pages waiting for a browse, once the spare is made.
    private func answerWaitingPages() {
        while !waitingPages.isEmpty, ready != nil || spare?.made != nil {
            let (request, connection) = waitingPages.removeFirst()
            guard connections[connection.socket] === connection else { continue }
            do throws(HTTPRefusal) { try page(request, on: connection) } catch { refuse(error, on: connection) }
            handleRequests(connection)
        }
    }

    deinit { close() }

    /// Closes the listening socket and every connection.
    func close() {
        guard !closed else { return }
        closed = true
        for connection in connections.values { _Sockets.close(connection.socket) }
        connections = [:]
        sessions = [:]
        _Sockets.close(listener)
    }

    /// `bytes` random bytes (the system's secure generator) as hex.
    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 15, radix: 16)
        }.joined()
    }

    /// Nanoseconds on a monotonic clock (DispatchTime: on every platform, no newer OS needed).
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    static func seconds(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e9 }

    // MARK: The loop

    /// Serves until `shouldStop` says so (it is asked at least every 100 ms).
    func run(until shouldStop: () -> Bool) {
        var lastMerge = Self.now(), lastSweep = Self.now()
        while !closed && !shouldStop() {
            let waiting = !waitingPages.isEmpty
            step(timeout: waiting || sessions.values.contains { $0.model.isBusy } ? 4 : 100)
            if waiting { answerWaitingPages() }
            let now = Self.now()
            for session in sessions.values where session.model.isBusy {
                if session.model.idle() { push(session) }
            }
            if Self.seconds(now &- lastMerge) >= configuration.mergeSeconds {
                lastMerge = now
                mergeExternalChanges()
            }
            if Self.seconds(now &- lastSweep) >= 1 {
                lastSweep = now
                sweep(now: now)
            }
        }
    }

    /// One wait on the sockets, and what they are ready for handled.
    func step(timeout milliseconds: Int32) {
        var watches = [_Sockets.Watch(socket: listener, read: true, write: false)]
        let open = Array(connections.values)
        for connection in open {
            watches.append(.init(socket: connection.socket, read: true, write: connection.hasOutput))
        }
        guard _Sockets.poll(&watches, milliseconds: milliseconds) else { return }
        if watches[0].readable { acceptAll() }
        for (k, connection) in open.enumerated() {
            let watch = watches[k + 1]
            guard connections[connection.socket] === connection else { continue }
            if watch.writable { flush(connection) }
            if watch.readable || watch.failed { read(connection) }
        }
    }

    private func acceptAll() {
        while let socket = _Sockets.accept(listener) {
            let connection = WebConnection(socket: socket, now: Self.now())
            connections[socket] = connection
            if connections.count > configuration.maximumConnections {
                send(HTTPResponse.refusal(.init(status: 503, reason: "too many connections: \(configuration.maximumConnections) at most")), on: connection)
                connection.closing = true
                flush(connection)
            }
        }
    }

    private func drop(_ connection: WebConnection) {
        guard connections[connection.socket] === connection else { return }
        connections[connection.socket] = nil
        _Sockets.close(connection.socket)
        if let id = connection.streamedSession, let session = sessions[id], session.stream === connection {
            session.stream = nil
            session.lastActive = Self.now()
        }
    }

    private func read(_ connection: WebConnection) {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var total = 0
        while total < 256 * 1024 {
            let result = chunk.withUnsafeMutableBytes { _Sockets.read(connection.socket, into: $0) }
            switch result {
            case .closed: return drop(connection)
            case .wouldBlock: total = .max
            case .bytes(let n):
                total += n
                if !connection.draining { connection.lastActivity = Self.now() }
                // A stream's or a closing connection's further bytes mean nothing.
                if !connection.isStream && !connection.closing { connection.input += chunk[..<n] }
            }
        }
        // What a waiting page's connection sends meanwhile is kept for later, up to a request's worth.
        if connection.parked, connection.input.count > configuration.limits.headerBytes + configuration.limits.bodyBytes {
            return refuse(HTTPRefusal(status: 413, reason: "more than a request's bytes sent ahead"), on: connection)
        }
        handleRequests(connection)
    }

    private func send(_ bytes: [UInt8], on connection: WebConnection) {
        if connection.written > 0 && connection.written == connection.output.count {
            connection.output.removeAll(keepingCapacity: true)
            connection.written = 0
        }
        connection.output += bytes
    }

    private func flush(_ connection: WebConnection) {
        while connection.hasOutput {
            let result = connection.output.withUnsafeBytes { all in
                _Sockets.write(connection.socket, UnsafeRawBufferPointer(rebasing: all[connection.written...]))
            }
            switch result {
            case .wrote(let n):
                connection.written += n
                connection.lastActivity = Self.now()
            case .wouldBlock: return
            case .failed: return drop(connection)
            }
        }
        connection.output.removeAll(keepingCapacity: connection.isStream)
        connection.written = 0
        if connection.closing && !connection.draining {
            connection.draining = true
            connection.lastActivity = Self.now()
            _Sockets.shutdownWrite(connection.socket)
        }
    }

    // MARK: Requests

    private func handleRequests(_ connection: WebConnection) {
        while !connection.closing && !connection.isStream && !connection.parked && connections[connection.socket] === connection {
            if let needed = connection.needed, connection.input.count < needed { return }
            switch HTTPRequestParser.parse(connection.input[...], limits: configuration.limits) {
            case .incomplete(let needed):
                connection.needed = needed
                if connection.input.isEmpty { connection.requestStarted = nil } else if connection.requestStarted == nil { connection.requestStarted = Self.now() }
                return
            case .refused(let refusal):
                refuse(refusal, on: connection)
                return
            case .complete(let request, let length):
                connection.input.removeFirst(length)
                connection.needed = nil
                connection.requestStarted = connection.input.isEmpty ? nil : Self.now()
                respond(to: request, on: connection)
            }
        }
    }

    private func refuse(_ refusal: HTTPRefusal, on connection: WebConnection, headers: [(String, String)] = []) {
        send(HTTPResponse.refusal(refusal, headers: headers), on: connection)
        connection.closing = true
        connection.input = []
        flush(connection)
    }

    /// Answers one request (see the type's routes).
    func respond(to request: HTTPRequest, on connection: WebConnection) {
        if let refusal = access.refusal(for: request) { return refuse(refusal, on: connection) }
        let routes = ["/": "GET", "/events": "GET", "/input": "POST"]
        guard let method = routes[request.path] else {
            return refuse(HTTPRefusal(status: 404, reason: "no such page: serve has /, /events and /input"), on: connection)
        }
        guard request.method == method else {
            return refuse(HTTPRefusal(status: 405, reason: "\(request.path) takes \(method)"), on: connection, headers: [("Allow", method)])
        }
        do throws(HTTPRefusal) {
            switch request.path {
            case "/": try page(request, on: connection)
            case "/events": try events(request, on: connection)
            default: try input(request, on: connection)
            }
        } catch {
            refuse(error, on: connection)
        }
    }

    /// `GET /`: a new session, and its page; the request waits (the loop
    /// goes on) while the next browse is being made.
    private func page(_ request: HTTPRequest, on connection: WebConnection) throws(HTTPRefusal) {
        guard ready != nil || spare?.made != nil else {
            makeSpare()
            waitingPages.append((request, connection))
            connection.requestStarted = nil
            connection.parked = true
            return
        }
        connection.parked = false
        let session = try newSession()
        let nonce = Self.randomHex(bytes: 16)
        let html = WebPage.html(session: session, token: access.token, nonce: nonce)
        send(HTTPResponse.bytes(status: 200, headers: [
            ("Content-Type", "text/html; charset=utf-8"), ("Content-Security-Policy", WebPage.contentSecurityPolicy(nonce: nonce)),
            ("X-Frame-Options", "DENY"),
        ], body: Array(html.utf8), keepAlive: request.keepsAlive), on: connection)
        if !request.keepsAlive { connection.closing = true }
        flush(connection)
    }

    private func newSession() throws(HTTPRefusal) -> WebSession {
        if sessions.count >= configuration.maximumSessions {
            guard let idle = sessions.values.filter({ $0.stream == nil }).min(by: { $0.lastActive < $1.lastActive }) else {
                throw HTTPRefusal(status: 503, reason: "\(configuration.maximumSessions) pages are open: close one, then reload")
            }
            sessions[idle.id] = nil
        }
        do {
            let browse: BrowseSession
            if let first = ready {
                browse = first
                ready = nil
            } else {
                let made = spare?.made
                spare = nil
                browse = try (made ?? .failure(CommandError("no table was made"))).get()
            }
            let session = try WebSession(id: Self.randomHex(bytes: 8), browse: browse, now: Self.now())
            sessions[session.id] = session
            return session
        } catch {
            throw HTTPRefusal(status: 500, reason: "the table could not be made: \(error)")
        }
    }

    private func session(for request: HTTPRequest) throws(HTTPRefusal) -> WebSession {
        guard let id = request.query["session"], let session = sessions[id] else {
            throw HTTPRefusal(status: 404, reason: "this page's session has ended: reload the page")
        }
        return session
    }

    /// `GET /events`: the session's stream, the whole table first.
    private func events(_ request: HTTPRequest, on connection: WebConnection) throws(HTTPRefusal) {
        let session = try session(for: request)
        if let old = session.stream { drop(old) }
        connection.streamedSession = session.id
        connection.input = []
        session.stream = connection
        session.lastActive = Self.now()
        send(HTTPResponse.bytes(status: 200, headers: [("Content-Type", "text/event-stream")], keepAlive: true, streaming: true), on: connection)
        send(Array("retry: 1000\n\n".utf8), on: connection)
        if let message = session.message(answering: nil, whole: true) { send(Array(message.utf8), on: connection) }
        flush(connection)
    }

    /// `POST /input`: the session acts; 204, and the change down its stream.
    private func input(_ request: HTTPRequest, on connection: WebConnection) throws(HTTPRefusal) {
        guard request.header("content-type")?.lowercased().hasPrefix("application/json") == true else {
            throw HTTPRefusal(status: 415, reason: "an input is JSON (Content-Type: application/json)")
        }
        let session = try session(for: request)
        let input = try WebSession.input(from: request.body)
        try session.handle(input, now: Self.now())
        send(HTTPResponse.bytes(status: 204, keepAlive: request.keepsAlive), on: connection)
        if !request.keepsAlive { connection.closing = true }
        flush(connection)
        push(session, answering: input.seq)
    }

    /// Sends the session's page what changed, if it has a stream.
    private func push(_ session: WebSession, answering seq: Int? = nil) {
        guard let stream = session.stream, let message = session.message(answering: seq) else { return }
        send(Array(message.utf8), on: stream)
        flush(stream)
        if stream.output.count - stream.written > configuration.streamBufferBytes { drop(stream) }
    }

    // MARK: Timers

    /// Other stores' saves on the same file, merged into every session.
    private func mergeExternalChanges() {
        for session in sessions.values {
            do {
                if try session.mergeExternalChanges() { push(session) }
            } catch {
                session.model.note("the store: \(error)")
                push(session)
            }
        }
    }

    /// Closes connections too slow or idle, pings streams, drops sessions
    /// without a stream for long.
    private func sweep(now: UInt64) {
        for connection in Array(connections.values) {
            if connection.draining {
                if Self.seconds(now &- connection.lastActivity) >= 2 { drop(connection) }
            } else if connection.isStream {
                if Self.seconds(now &- connection.lastPing) >= configuration.pingSeconds {
                    connection.lastPing = now
                    send(Array(": ping\n\n".utf8), on: connection)
                    flush(connection)
                }
            } else if let started = connection.requestStarted, Self.seconds(now &- started) >= configuration.requestSeconds {
                refuse(HTTPRefusal(status: 408, reason: "the request did not arrive within \(Int(configuration.requestSeconds)) s"), on: connection)
            } else if !connection.parked, Self.seconds(now &- connection.lastActivity) >= configuration.idleSeconds {
                drop(connection)
            }
        }
        for session in Array(sessions.values) where session.stream == nil && Self.seconds(now &- session.lastActive) >= configuration.sessionSeconds {
            sessions[session.id] = nil
        }
    }
}

/// A page's browse being made on a thread of its own: ``made`` is nil (at
/// once) until it is made, then the browse or why it could not be made.
/// `make` reads only what it captured when the server was made, and the
/// browse is used on the server's thread alone once handed over.
final class SpareBrowse: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<BrowseSession, any Error>?

    init(making make: @escaping () throws -> BrowseSession) {
        nonisolated(unsafe) let make = make
        Thread.detachNewThread { [self] in
            let made = Result { try make() }
            lock.lock()
            result = made
            lock.unlock()
        }
    }

    /// The browse, or why it could not be made; nil while it is being made.
    var made: Result<BrowseSession, any Error>? {
        lock.lock()
        defer { lock.unlock() }
        return result
    }
}
