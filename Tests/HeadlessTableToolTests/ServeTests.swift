import Foundation
import HeadlessTable
@testable import HeadlessTableTool
import InternalTableUtilities
import TableTestSupport
import Testing
import ToolArguments

/// `serve`'s server without a browser: the request parser (cases, and a
/// seeded fuzz of malformed, huge and partial requests), who may talk to it
/// (Host, token, origin), and a server in this process driven over real
/// sockets — hostile requests refused with a 4xx while it goes on serving,
/// its limits, and a page's session (the stream, keys, a search, a delete).
@Suite struct ServeTests {
    // MARK: The parser

    static func parse(_ text: String, limits: HTTPLimits = HTTPLimits()) -> HTTPRequestParser.Result {
        HTTPRequestParser.parse(Array(text.utf8)[...], limits: limits)
    }

    static func status(_ result: HTTPRequestParser.Result) -> Int? {
        if case .refused(let refusal) = result { refusal.status } else { nil }
    }

    @Test func aRequestIsReadWithItsPathQueryHeadersAndBody() throws {
        let text = "\r\nPOST /in%20put?session=ab%2Bc&text=a+b&session=second&flag HTTP/1.1\r\nHost: 127.0.0.1:80\r\n"
            + "Content-Type:application/json \r\nContent-Length: 7\r\n\r\n{\"a\":1}GET / HTTP/1.0\r\n\r\n"
        guard case .complete(let request, let length) = Self.parse(text) else { Issue.record("\(Self.parse(text))"); return }
        #expect(request.method == "POST" && request.path == "/in put" && request.version == "HTTP/1.1")
        expectEqual(request.query, ["session": "ab+c", "text": "a b", "flag": ""])
        #expect(request.header("content-type") == "application/json" && request.header("host") == "127.0.0.1:80")
        #expect(request.body == Array(#"{"a":1}"#.utf8) && request.keepsAlive)
        // The next request, pipelined after it.
        let rest = Array(text.utf8)[length...]
        guard case .complete(let next, _) = HTTPRequestParser.parse(rest) else { Issue.record("the pipelined request"); return }
        #expect(next.method == "GET" && next.version == "HTTP/1.0" && !next.keepsAlive)
    }

    @Test func aPartialRequestAsksForMore() {
        let request = "POST /input HTTP/1.1\r\nHost: localhost:1\r\nContent-Length: 10\r\n\r\n0123456789"
        let bytes = Array(request.utf8)
        for end in 0..<bytes.count {
            switch HTTPRequestParser.parse(bytes[..<end]) {
            case .incomplete(let needed): #expect(needed == nil || needed == bytes.count, "at \(end)")
            default: Issue.record("\(end) bytes of a request: \(HTTPRequestParser.parse(bytes[..<end]))")
            }
        }
        guard case .complete(_, let length) = HTTPRequestParser.parse(bytes[...]) else { Issue.record("the whole request"); return }
        expectEqual(length, bytes.count)
    }

    /// Each malformed or hostile request gets the status that says why.
    @Test(arguments: [
        ("GARBAGE\r\n\r\n", 400),
        ("GET /\r\n\r\n", 400),
        ("GET  / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\n\r\n", 505),
        ("GET / HTTP/1.1x\r\n\r\n", 400),
        ("GET http://evil/ HTTP/1.1\r\n\r\n", 400),
        ("GET /a#b HTTP/1.1\r\n\r\n", 400),
        ("GET /%zz HTTP/1.1\r\n\r\n", 400),
        ("GET /?q=%ff HTTP/1.1\r\n\r\n", 400),
        ("G(T / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.1\nHost: x\n\n", 400),
        ("GET / HTTP/1.1\r\nHost: x\rY: z\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nno colon\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nX: a\u{7}b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: 1, 1\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", 413),
        ("POST / HTTP/1.1\r\nContent-Length: 65537\r\n\r\n", 413),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
    ])
    func malformedRequestsAreRefused(_ request: String, _ status: Int) {
        expectEqual(Self.status(Self.parse(request)), status, "\(request.debugDescription): \(Self.parse(request))")
    }

    @Test func limitsOnTheHeadAndTheTarget() {
        let long = "GET /" + String(repeating: "a", count: 9_000) + " HTTP/1.1\r\n\r\n"
        expectEqual(Self.status(Self.parse(long)), 414)
        let huge = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 20_000)
        expectEqual(Self.status(Self.parse(huge)), 431, "a head over the limit is refused before it ends")
        let many = "GET / HTTP/1.1\r\n" + (0..<70).map { "X\($0): y\r\n" }.joined() + "\r\n"
        expectEqual(Self.status(Self.parse(many)), 431)
        expectEqual(Self.status(Self.parse("GET / HTTP/1.1\r\nX: y\r\n\r\n", limits: HTTPLimits(headerBytes: 10))), 431)
    }

    /// Random bytes, and valid requests cut, spliced, repeated and sprinkled
    /// with random bytes: the parser never traps, says what it needs, refuses
    /// with a 4xx or 5xx, and gives the same answer whether the bytes come at
    /// once or in pieces.
    @Test func fuzzedRequestsNeverTrapAndAnswerTheSameInPieces() {
        let seed = SeededGenerator.runSeed()
        var g = SeededGenerator(seed: seed)
        let valid = [
            "GET /?token=abc HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
            "POST /input?token=abc&session=s HTTP/1.1\r\nHost: localhost:1\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{\"type\":\"key\"}  ",
            "GET /events?session=%41%42 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        ].map { Array($0.utf8) }
        let alphabet = Array("\r\n :%?&=/GETPOSHT1.0x\u{0}\u{7F}é".utf8)
        for round in 0..<3_000 {
            var bytes = valid[g.int(0..<valid.count)]
            switch g.int(0...5) {
            case 0: bytes = (0..<g.int(0...300)).map { _ in UInt8.random(in: 0...255, using: &g) }
            case 1: bytes = Array(bytes.prefix(g.int(0...bytes.count)))
            case 2:
                for _ in 0..<g.int(1...5) { bytes.insert(alphabet[g.int(0..<alphabet.count)], at: g.int(0...bytes.count)) }
            case 3:
                for _ in 0..<g.int(1...5) where !bytes.isEmpty { bytes.remove(at: g.int(0..<bytes.count)) }
            case 4: bytes += valid[g.int(0..<valid.count)] + Array(repeating: UInt8(ascii: "a"), count: g.int(0...40_000))
            default: bytes = Array(repeating: UInt8(ascii: "\r"), count: g.int(0...3)) + bytes + bytes
            }
            let whole = HTTPRequestParser.parse(bytes[...])
            switch whole {
            case .incomplete(let needed): #expect(needed.map { $0 > bytes.count } ?? true, "seed \(seed), round \(round)")
            case .complete(_, let length): #expect(length > 0 && length <= bytes.count, "seed \(seed), round \(round)")
            case .refused(let refusal): #expect((400..<600).contains(refusal.status), "seed \(seed), round \(round)")
            }
            // The same bytes in pieces: every prefix is either incomplete or already the same answer.
            var end = 0
            var answer = HTTPRequestParser.Result.incomplete(needed: nil)
            while end < bytes.count {
                end = Swift.min(bytes.count, end + g.int(1...64))
                answer = HTTPRequestParser.parse(bytes[..<end])
                if case .incomplete = answer { continue }
                break
            }
            if case .refused(let early) = answer, case .refused(let late) = whole {
                #expect(early.status == late.status || early.status == 431 || late.status == 431, "seed \(seed), round \(round)")
            } else if case .complete(let early, let length) = answer {
                #expect(answer == whole || { if case .complete(let late, _) = whole { late == early } else { false } }(), "seed \(seed), round \(round): \(length)")
            }
        }
    }

    // MARK: Who may talk to it

    static func request(_ headers: [(String, String)], query: [String: String] = ["token": "t0k"]) -> HTTPRequest {
        HTTPRequest(method: "GET", target: "/", path: "/", query: query, headers: headers.map { .init(name: $0.0, value: $0.1) }, body: [], version: "HTTP/1.1")
    }

    @Test func onlyTheLoopbackHostWithTheTokenIsServed() {
        let access = ServeAccess(port: 8080, token: "t0k")
        for host in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080"] {
            #expect(access.refusal(for: Self.request([("host", host)])) == nil, "\(host)")
        }
        for host in ["evil.example:8080", "127.0.0.1:8081", "127.0.0.1", "localhost", "127.0.0.1.evil:8080", "[::1]:8080", ""] {
            expectEqual(access.refusal(for: Self.request([("host", host)]))?.status, 403, "\(host)")
        }
        #expect(ServeAccess(port: 80, token: "t0k").refusal(for: Self.request([("host", "localhost")])) == nil)
        expectEqual(access.refusal(for: Self.request([]))?.status, 400)
        expectEqual(access.refusal(for: Self.request([("host", "localhost:8080")], query: [:]))?.status, 403)
        expectEqual(access.refusal(for: Self.request([("host", "localhost:8080")], query: ["token": "t0K"]))?.status, 403)
        expectEqual(access.refusal(for: Self.request([("host", "localhost:8080")], query: ["token": "t0k0"]))?.status, 403)
        expectEqual(access.refusal(for: Self.request([("host", "localhost:8080"), ("origin", "http://evil.example")]))?.status, 403)
        #expect(access.refusal(for: Self.request([("host", "localhost:8080"), ("origin", "http://localhost:8080")])) == nil)
        expectEqual(access.refusal(for: Self.request([("host", "localhost:8080"), ("sec-fetch-site", "cross-site")]))?.status, 403)
        // The refusal does not echo the Host it was given.
        expectEqual(access.refusal(for: Self.request([("host", "<script>:8080")]))?.reason.contains("<script>"), false)
    }

    // MARK: A server in this process

    /// `serve ARGUMENTS`' server, running on a thread of its own until dropped.
    final class RunningServer {
        let port: UInt16
        let token: String
        private let stop = _Lock(false)
        private let done = DispatchSemaphore(value: 0)

        init(_ arguments: [String], configure: @escaping @Sendable (inout WebServer.Configuration) -> Void = { _ in }) throws {
            let started = _Lock<Result<(UInt16, String), any Error>?>(nil)
            let stop = self.stop, done = self.done
            let thread = Thread {
                do {
                    let parsed = try ArgumentParser.parse(arguments, command: ServeCommand.declaration)
                    var options = try BrowseCommand.Options.parse(parsed)
                    options.keepsDeletes = "--store PATH"
                    var configuration = WebServer.Configuration()
                    configure(&configuration)
                    let first = try BrowseSession(options, read: nil)
                    if options.store != nil { options.file = nil }
                    let server = try WebServer(configuration: configuration, first: first) { [options] in try BrowseSession(options, read: nil) }
                    started.withLock { $0 = .success((server.port, server.access.token)) }
                    server.run { stop.withLock { $0 } }
                    server.close()
                } catch {
                    started.withLock { $0 = .failure(error) }
                }
                done.signal()
            }
            thread.start()
            var waited = 0
            while started.withLock({ $0 }) == nil && waited < 30_000 {
                Thread.sleep(forTimeInterval: 0.001)
                waited += 1
            }
            (port, token) = try #require(started.withLock { $0 }).get()
        }

        deinit {
            stop.withLock { $0 = true }
            done.wait()
        }

        var host: String { "127.0.0.1:\(port)" }
    }

    /// A client connection: raw bytes out, responses and events in.
    final class Client {
        let socket: Int32
        var received: [UInt8] = []

        init(port: UInt16) throws { socket = try _Sockets.connect(port: port) }
        deinit { _Sockets.close(socket) }

        func send(_ text: String) { send(Array(text.utf8)) }
        func send(_ bytes: [UInt8]) {
            var sent = 0
            while sent < bytes.count {
                let result = bytes.withUnsafeBytes { _Sockets.write(socket, UnsafeRawBufferPointer(rebasing: $0[sent...])) }
                guard case .wrote(let n) = result, n > 0 else { return }
                sent += n
            }
        }

        /// Reads until `done` says the bytes so far are enough, the peer closes, or `seconds` pass.
        @discardableResult
        func read(seconds: Double = 5, until done: ([UInt8]) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while !done(received) {
                let left = deadline.timeIntervalSinceNow
                guard left > 0, _Sockets.waitReadable(socket, milliseconds: Int32(left * 1000) + 1) else { return false }
                switch chunk.withUnsafeMutableBytes({ _Sockets.read(socket, into: $0) }) {
                case .bytes(let n): received += chunk[..<n]
                case .wouldBlock: continue
                case .closed: return done(received)
                }
            }
            return true
        }

        /// The next whole response: status, headers (lowercased names), body.
        func response(seconds: Double = 5) -> (status: Int, headers: [String: String], body: String)? {
            var parsed: (Int, [String: String], Int, Int)?   // status, headers, body start, body length
            read(seconds: seconds) { bytes in
                guard let end = HTTPRequestParser.headEnd(bytes[...]) else { return false }
                let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
                let status = Int(head[0].split(separator: " ").dropFirst().first ?? "") ?? 0
                var headers: [String: String] = [:]
                for line in head.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = headers["content-type"] == "text/event-stream" ? 0 : Int(headers["content-length"] ?? "0") ?? 0
                parsed = (status, headers, end + 4, length)
                return bytes.count >= end + 4 + length
            }
            guard let (status, headers, start, length) = parsed, received.count >= start + length else { return nil }
            let body = String(decoding: received[start..<start + length], as: UTF8.self)
            received.removeFirst(start + length)
            return (status, headers, body)
        }

        /// The next Server-Sent Event's data, decoded as JSON.
        func event(seconds: Double = 5) -> [String: Any]? {
            var found: [String: Any]?
            read(seconds: seconds) { [self] bytes in
                var text = String(decoding: bytes, as: UTF8.self)
                while let boundary = text.range(of: "\n\n") {
                    let block = String(text[..<boundary.lowerBound])
                    text = String(text[boundary.upperBound...])
                    for line in block.components(separatedBy: "\n") where line.hasPrefix("data: ") {
                        found = (try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8))) as? [String: Any]
                    }
                    if found != nil {
                        received = Array(text.utf8)
                        return true
                    }
                }
                return false
            }
            return found
        }
    }

    static let people = #"""
        [{"id":1,"name":"Ada","age":36},{"id":2,"name":"Alan","age":41},{"id":3,"name":"Barbara <b>bold</b> \"B\"","age":84},
         {"id":4,"name":"Dana","age":30},{"id":5,"name":"Grace","age":85},{"id":6,"name":"Hanna","age":29}]
        """#

    /// One request on a new connection; the response.
    static func exchange(_ server: RunningServer, _ request: String) throws -> (status: Int, headers: [String: String], body: String)? {
        let client = try Client(port: server.port)
        client.send(request)
        return client.response()
    }

    @Test func hostileRequestsAreRefusedAndTheServerGoesOn() throws {
        let folder = TemporaryFolder("serve-tests")
        let server = try RunningServer([folder.file("people.json", Self.people), "--sort", "name"]) { $0.requestSeconds = 0.5 }
        let (host, token) = (server.host, server.token)
        let refused: [(String, Int)] = [
            ("GET /?token=\(token) HTTP/1.1\r\nHost: evil.example:\(server.port)\r\n\r\n", 403),
            ("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n", 403),
            ("GET /?token=nope HTTP/1.1\r\nHost: \(host)\r\n\r\n", 403),
            ("GET /?token=\(token) HTTP/1.1\r\n\r\n", 400),
            ("GET /secret?token=\(token) HTTP/1.1\r\nHost: \(host)\r\n\r\n", 404),
            ("DELETE /?token=\(token) HTTP/1.1\r\nHost: \(host)\r\n\r\n", 405),
            ("GET /events?token=\(token)&session=none HTTP/1.1\r\nHost: \(host)\r\n\r\n", 404),
            ("POST /input?token=\(token)&session=none HTTP/1.1\r\nHost: \(host)\r\nContent-Length: 2\r\n\r\n{}", 415),
            ("POST /input?token=\(token)&session=none HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", 404),
            ("GARBAGE\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nX: " + String(repeating: "x", count: 100_000) + "\r\n\r\n", 431),
            ("POST /input HTTP/1.1\r\nContent-Length: 100000\r\n\r\n", 413),
        ]
        for (request, status) in refused {
            let response = try Self.exchange(server, request)
            expectEqual(response?.status, status, "\(request.prefix(80).debugDescription): \(String(describing: response))")
            expectEqual(response?.headers["connection"], "close")
        }
        // A request that never ends is answered 408 after its time.
        let slow = try Client(port: server.port)
        slow.send("GET / HTTP/1.1\r\nHost: ")
        expectEqual(slow.response(seconds: 5)?.status, 408)
        // Connections dropped halfway.
        for cut in [0, 5, 30] {
            let client = try Client(port: server.port)
            client.send(String("GET /?token=\(token) HTTP/1.1\r\nHost: \(host)\r\n\r\n".prefix(cut)))
        }
        // Still serving.
        let page = try Self.exchange(server, "GET /?token=\(token) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
        expectEqual(page?.status, 200)
        expectEqual(page?.headers["content-security-policy"]?.contains("script-src 'nonce-"), true)
        expectEqual(page?.body.contains("Barbara &lt;b&gt;bold&lt;/b&gt; &quot;B&quot;"), true)
        expectEqual(page?.body.contains("<b>bold"), false)
    }

    @Test func connectionsBeyondTheLimitGet503() throws {
        let folder = TemporaryFolder("serve-tests")
        let server = try RunningServer([folder.file("people.json", Self.people)]) { $0.maximumConnections = 3 }
        let open = try (0..<3).map { _ in try Client(port: server.port) }
        Thread.sleep(forTimeInterval: 0.3)
        let extra = try Client(port: server.port)
        expectEqual(extra.response()?.status, 503)
        _ = open
    }

    /// A page's session: its stream starts with the whole table; a key, a
    /// scroll, a search and a delete each come back as a message answering
    /// the input; a bad input is a 400.
    @Test func aPagesSessionStreamsItsChanges() throws {
        let folder = TemporaryFolder("serve-tests")
        let server = try RunningServer([folder.file("people.json", Self.people), "--sort", "name", "--detail", "age"])
        let (host, token) = (server.host, server.token)
        let page = try #require(try Self.exchange(server, "GET /?token=\(token) HTTP/1.1\r\nHost: \(host)\r\n\r\n"))
        let session = try #require(page.body.range(of: #"SESSION = ""#).map { String(page.body[$0.upperBound...].prefix { $0 != "\"" }) })
        #expect(page.body.contains(#"role="grid" aria-rowcount="6""#))
        let stream = try Client(port: server.port)
        stream.send("GET /events?token=\(token)&session=\(session) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
        expectEqual(stream.response()?.headers["content-type"], "text/event-stream")
        let first = try #require(stream.event())
        expectEqual((first["html"] as? String)?.contains(#"data-id="1" aria-rowindex="1" aria-selected="true""#), true)
        #expect(first["title"] as? String == "people.json — 6 objects")

        var inputs = try Client(port: server.port)
        func post(_ json: String) throws -> Int? {
            inputs.send("POST /input?token=\(token)&session=\(session) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(json.utf8.count)\r\n\r\n" + json)
            let status = inputs.response()?.status
            // A refused input closes its connection (the server closes after every refusal).
            if status != 204 { inputs = try Client(port: server.port) }
            return status
        }
        try expectEqual(post(#"{"type":"resize","height":96,"seq":1}"#), 204)
        #expect(stream.event()?["seq"] as? Int == 1)
        try expectEqual(post(#"{"type":"key","key":"down","seq":2}"#), 204)
        let down = try #require(stream.event())
        #expect(down["seq"] as? Int == 2)
        let operations = try #require(down["ops"] as? [[String: Any]])
        #expect(operations.contains { $0["op"] as? String == "replace" && ($0["html"] as? String)?.contains(#"data-id="2" aria-rowindex="2" aria-selected="true""#) == true })
        try expectEqual(post(#"{"type":"key","key":"end","seq":3}"#), 204)
        let end = try #require(stream.event())
        expectEqual((end["ops"] as? [[String: Any]])?.contains { ($0["html"] as? String)?.contains(#"aria-rowindex="6" aria-selected="true""#) == true }, true)
        try expectEqual(post(#"{"type":"search","text":"an","seq":4}"#), 204)
        var found = try #require(stream.event())
        while found["title"] == nil { found = try #require(stream.event()) }
        #expect(found["title"] as? String == "people.json — 6 objects, 3 found")
        expectEqual((found["ops"] as? [[String: Any]])?.contains { $0["op"] as? String == "grid" && $0["rowCount"] as? Int == 3 }, true)
        try expectEqual(post(#"{"type":"search","text":"","seq":5}"#), 204)
        _ = stream.event()
        try expectEqual(post(#"{"type":"key","key":"home","seq":6}"#), 204)
        _ = stream.event()
        try expectEqual(post(#"{"type":"delete","seq":7}"#), 204)
        let deleted = try #require(stream.event())
        #expect(deleted["status"] as? String == "deleted Ada: - delete {0, 0} · not saved: --store PATH keeps deletes", "\(deleted)")
        #expect(deleted["title"] as? String == "people.json — 5 objects")
        try expectEqual(post(#"{"type":"scroll","top":24,"seq":8}"#), 204)
        #expect(stream.event()?["seq"] as? Int == 8)
        // Inputs that cannot be: 400, and the session goes on.
        for bad in [#"{"type":"key","key":"explode"}"#, #"{"type":"fly"}"#, "not json", #"{"type":"scroll","top":-1}"#,
                    #"{"type":"resize","height":1e300}"#, #"{"type":"search"}"#,
                    #"{"type":"search","text":""# + String(repeating: "x", count: 1_001) + #""}"#] {
            try expectEqual(post(bad), 400, "\(bad.prefix(60))")
        }
        try expectEqual(post(#"{"type":"key","key":"up","seq":9}"#), 204)
        #expect(stream.event()?["seq"] as? Int == 9)
    }

    /// With `--store`, a delete in one page reaches another page's stream.
    @Test func aDeleteReachesAnotherPageOnTheSameStore() throws {
        let folder = TemporaryFolder("serve-tests")
        let store = folder.url.appendingPathComponent("people.store").path
        let server = try RunningServer([folder.file("people.json", Self.people), "--store", store, "--sort", "name"])
        let (host, token) = (server.host, server.token)
        var streams: [(Client, String)] = []
        for _ in 0..<2 {
            let page = try #require(try Self.exchange(server, "GET /?token=\(token) HTTP/1.1\r\nHost: \(host)\r\n\r\n"))
            let session = try #require(page.body.range(of: #"SESSION = ""#).map { String(page.body[$0.upperBound...].prefix { $0 != "\"" }) })
            let stream = try Client(port: server.port)
            stream.send("GET /events?token=\(token)&session=\(session) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
            _ = stream.response()
            _ = try #require(stream.event())
            streams.append((stream, session))
        }
        let json = #"{"type":"delete","seq":1}"#
        let input = try Client(port: server.port)
        input.send("POST /input?token=\(token)&session=\(streams[0].1) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/json\r\n"
                   + "Content-Length: \(json.utf8.count)\r\n\r\n" + json)
        expectEqual(input.response()?.status, 204)
        let own = try #require(streams[0].0.event())
        #expect(own["title"] as? String == "people.json — 5 objects")
        #expect((own["status"] as? String)?.hasPrefix("deleted Ada") == true && (own["status"] as? String)?.contains("not saved") == false)
        let started = Date()
        let other = try #require(streams[1].0.event(seconds: 3))
        #expect(other["title"] as? String == "people.store — 5 objects")
        #expect(Date().timeIntervalSince(started) < 1)
    }
}
