import Foundation

/// An HTTP/1.1 request as `serve` reads it: the method, the path and query
/// (percent-decoded), the header fields, the body.
struct HTTPRequest: Equatable {
    var method: String
    /// The request target as sent (`/input?session=…`).
    var target: String
    /// The target's path, percent-decoded.
    var path: String
    /// The target's query parameters, percent-decoded (`+` is a space); the first of a name wins.
    var query: [String: String]
    /// The header fields in order, names lowercased.
    var headers: [Header]
    var body: [UInt8]
    /// `HTTP/1.0` or `HTTP/1.1`.
    var version: String

    struct Header: Equatable {
        var name: String
        var value: String
    }

    /// The value of the first field named `name` (lowercase).
    func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

    /// Whether the client keeps the connection open after the response.
    var keepsAlive: Bool {
        let connection = header("connection")?.lowercased() ?? ""
        return version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
    }
}

/// A request refused: the status (4xx or 5xx) and the reason, for the
/// response's body.
struct HTTPRefusal: Error, Equatable, CustomStringConvertible {
    var status: Int
    var reason: String
    var description: String { "\(status) \(HTTPResponse.phrase(status)): \(reason)" }
}

/// How much a request may be.
struct HTTPLimits: Equatable {
    /// The request line and the header fields, with their line ends.
    var headerBytes = 16 * 1024
    var headerFields = 64
    var targetBytes = 8 * 1024
    var bodyBytes = 64 * 1024
}

/// Reads one request from the start of the bytes a connection received: a
/// pure function, so that a test can give it anything.
///
/// Strict, as a server on a person's machine should be: lines end in CRLF;
/// the request line is `METHOD SP TARGET SP HTTP/1.x`, the target an origin
/// form (`/path?query`); header fields are `name: value` with a token name
/// and visible (or UTF-8) value, no line folding; a body has a
/// `Content-Length` (one, digits only) and no `Transfer-Encoding`. Empty
/// lines before the request line are skipped, as RFC 9112 allows.
enum HTTPRequestParser {
    enum Result: Equatable {
        /// More bytes are needed: the total the request takes when known (its
        /// head is complete), else nil.
        case incomplete(needed: Int?)
        /// A request, and the bytes it took.
        case complete(HTTPRequest, length: Int)
        case refused(HTTPRefusal)
    }

    /// The request at the start of `bytes`.
    ///
    /// - Complexity: O(*n*) for the *n* bytes of the head (and the body's copy).
    static func parse(_ bytes: ArraySlice<UInt8>, limits: HTTPLimits = HTTPLimits()) -> Result {
        var start = bytes.startIndex
        while bytes[start...].starts(with: [13, 10]) { start += 2 }
        guard let end = headEnd(bytes[start...]) else {
            if bytes.endIndex - start > limits.headerBytes { return .refused(.init(status: 431, reason: "the request's header is over \(limits.headerBytes) bytes")) }
            // A bare LF ends nothing: refuse it as soon as it is seen.
            if let k = bytes[start...].firstIndex(of: 10), k == start || bytes[k - 1] != 13 {
                return .refused(.init(status: 400, reason: "a line ends without CR LF"))
            }
            return .incomplete(needed: nil)
        }
        guard end - start <= limits.headerBytes else { return .refused(.init(status: 431, reason: "the request's header is over \(limits.headerBytes) bytes")) }
        let head: Head
        switch parseHead(bytes[start..<end], limits: limits) {
        case .success(let parsed): head = parsed
        case .failure(let refusal): return .refused(refusal)
        }
        let bodyStart = end + 4
        let total = bodyStart + head.contentLength - bytes.startIndex
        guard bytes.endIndex - bodyStart >= head.contentLength else { return .incomplete(needed: total) }
        let request = HTTPRequest(
            method: head.method, target: head.target, path: head.path, query: head.query, headers: head.headers,
            body: Array(bytes[bodyStart..<bodyStart + head.contentLength]), version: head.version)
        return .complete(request, length: total)
    }

    /// Where the blank line that ends the head starts (the CRLFCRLF), if it is there.
    static func headEnd(_ bytes: ArraySlice<UInt8>) -> Int? {
        var k = bytes.startIndex
        while k + 3 < bytes.endIndex {
            if bytes[k + 3] != 10 { k += bytes[k + 3] == 13 ? 1 : 4; continue }
            if bytes[k] == 13, bytes[k + 1] == 10, bytes[k + 2] == 13 { return k }
            k += 1
        }
        return nil
    }

    struct Head {
        var method = "", target = "", path = "", version = ""
        var query: [String: String] = [:]
        var headers: [HTTPRequest.Header] = []
        var contentLength = 0
    }

    static func parseHead(_ bytes: ArraySlice<UInt8>, limits: HTTPLimits) -> Swift.Result<Head, HTTPRefusal> {
        func refuse(_ status: Int, _ reason: String) -> Swift.Result<Head, HTTPRefusal> { .failure(.init(status: status, reason: reason)) }
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex, k = bytes.startIndex
        while k < bytes.endIndex {
            if bytes[k] == 10 {
                guard k > bytes.startIndex, bytes[k - 1] == 13 else { return refuse(400, "a line ends without CR LF") }
                lines.append(bytes[lineStart..<(k - 1)])
                lineStart = k + 1
            } else if bytes[k] == 13, k + 1 < bytes.endIndex, bytes[k + 1] != 10 {
                return refuse(400, "a CR in the middle of a line")
            }
            k += 1
        }
        if lineStart < bytes.endIndex {
            guard bytes[bytes.endIndex - 1] != 13 else { return refuse(400, "a CR in the middle of a line") }
            lines.append(bytes[lineStart..<bytes.endIndex])
        }
        guard let requestLine = lines.first else { return refuse(400, "no request line") }
        var head = Head()

        // METHOD SP TARGET SP VERSION
        let parts = requestLine.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return refuse(400, "the request line is not METHOD TARGET VERSION") }
        guard !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte) else { return refuse(400, "the method is not a token") }
        head.method = String(decoding: parts[0], as: UTF8.self)
        guard parts[1].count <= limits.targetBytes else { return refuse(414, "the target is over \(limits.targetBytes) bytes") }
        guard parts[1].first == UInt8(ascii: "/"), parts[1].allSatisfy({ $0 > 32 && $0 < 127 }) else {
            return refuse(400, "the target is not a path (/…) of visible ASCII")
        }
        head.target = String(decoding: parts[1], as: UTF8.self)
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version.hasPrefix("HTTP/"), version.utf8.count == 8 else { return refuse(400, "the version is not HTTP/x.y") }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { return refuse(505, "\(version) is not served: HTTP/1.1 is") }
        head.version = version
        let target = parts[1]
        let pathEnd = target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex
        guard !target[..<pathEnd].contains(UInt8(ascii: "#")) else { return refuse(400, "the target holds a fragment") }
        guard let path = percentDecoded(target[..<pathEnd], plusIsSpace: false) else { return refuse(400, "the path's percent-encoding is not UTF-8") }
        head.path = path
        if pathEnd < target.endIndex {
            for pair in target[(pathEnd + 1)...].split(separator: UInt8(ascii: "&")) {
                let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
                guard let name = percentDecoded(pair[..<equals], plusIsSpace: true),
                      let value = percentDecoded(equals < pair.endIndex ? pair[(equals + 1)...] : [], plusIsSpace: true)
                else { return refuse(400, "the query's percent-encoding is not UTF-8") }
                if head.query[name] == nil { head.query[name] = value }
            }
        }

        // name: value
        guard lines.count - 1 <= limits.headerFields else { return refuse(431, "over \(limits.headerFields) header fields") }
        var contentLength: Int?
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                return refuse(400, line.first == 32 || line.first == 9 ? "a folded header line" : "a header line without a colon")
            }
            let nameBytes = line[..<colon]
            guard !nameBytes.isEmpty, nameBytes.allSatisfy(isTokenByte) else { return refuse(400, "a header name that is not a token") }
            let valueBytes = line[(colon + 1)...].drop { $0 == 32 || $0 == 9 }
            let trimmed = valueBytes.reversed().drop { $0 == 32 || $0 == 9 }.reversed()
            guard trimmed.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }), let value = String(bytes: trimmed, encoding: .utf8) else {
                return refuse(400, "a header value with a control character or not UTF-8")
            }
            let name = String(decoding: nameBytes, as: UTF8.self).lowercased()
            switch name {
            case "content-length":
                guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return refuse(400, "Content-Length is not a number") }
                guard value.utf8.count <= 18, let length = Int(value) else { return refuse(413, "the body is over \(limits.bodyBytes) bytes") }
                guard contentLength == nil || contentLength == length else { return refuse(400, "two Content-Lengths") }
                guard length <= limits.bodyBytes else { return refuse(413, "the body is over \(limits.bodyBytes) bytes") }
                contentLength = length
            case "transfer-encoding":
                return refuse(501, "Transfer-Encoding is not served: send a Content-Length")
            case "host":
                guard !head.headers.contains(where: { $0.name == "host" }) else { return refuse(400, "two Host fields") }
            default:
                break
            }
            head.headers.append(.init(name: name, value: value))
        }
        head.contentLength = contentLength ?? 0
        return .success(head)
    }

    /// RFC 9110's token characters.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Percent-decoded UTF-8; nil for a bad escape or bytes that are not UTF-8.
    static func percentDecoded(_ bytes: ArraySlice<UInt8>, plusIsSpace: Bool) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var k = bytes.startIndex
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        while k < bytes.endIndex {
            let byte = bytes[k]
            if byte == UInt8(ascii: "%") {
                guard k + 2 < bytes.endIndex, let high = hex(bytes[k + 1]), let low = hex(bytes[k + 2]) else { return nil }
                out.append(high << 4 | low)
                k += 3
                continue
            }
            out.append(plusIsSpace && byte == UInt8(ascii: "+") ? 32 : byte)
            k += 1
        }
        return String(bytes: out, encoding: .utf8)
    }
}

/// A response's bytes.
enum HTTPResponse {
    /// The reason phrase of a status.
    static func phrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }

    /// The headers every response carries: no caching, no sniffing, no referrer (the URL holds the token).
    static let commonHeaders = [
        ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
    ]

    /// A whole response: status line, headers (with `Content-Length` unless
    /// `streaming` or a 204, which has none), a blank line, the body.
    static func bytes(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], keepAlive: Bool, streaming: Bool = false) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(phrase(status))\r\n"
        for (name, value) in commonHeaders + headers { text += "\(name): \(value)\r\n" }
        if !streaming && status != 204 { text += "Content-Length: \(body.count)\r\n" }
        text += "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
        return Array(text.utf8) + body
    }

    /// A refusal: its status, its reason as plain text, the connection closed.
    static func refusal(_ refusal: HTTPRefusal, headers: [(String, String)] = []) -> [UInt8] {
        bytes(status: refusal.status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers,
              body: Array("\(refusal.status) \(phrase(refusal.status)): \(refusal.reason)\n".utf8), keepAlive: false)
    }
}
