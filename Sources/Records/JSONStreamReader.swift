import Foundation
import InternalTableUtilities

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a file given to ``JSONStreamReader`` cannot be opened.
public struct JSONFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file's path.
    public var path: String
    /// Why, as the system says (`No such file or directory`, `is a directory`, …).
    public var reason: String
    /// Whether the file does not exist.
    public var isMissing: Bool
    /// Whether the path names a directory.
    public var isDirectory: Bool

    public var description: String { "\(path): \(reason)" }
}

/// Reads JSON a piece at a time: a file (or a pipe, or `Data`) is read in
/// chunks and its values are handed out one by one, so that a big array of
/// objects is never held as one tree, nor its text as one buffer.
///
/// The reader is a cursor over the text. ``beginArray()`` and
/// ``beginObject()`` step into a container; ``nextElement()`` and
/// ``nextKey()`` step through it; ``readValue()`` reads the value at the
/// cursor whole (as ``JSON``'s `parse(_:)` would), ``skipValue()`` passes
/// over it; ``finish()`` checks that nothing follows the document.
///
/// ```swift
/// let reader = try JSONStreamReader(contentsOfFile: "people.json")
/// guard try reader.beginArray() else { … }   // not an array
/// while try reader.nextElement() {
///     let person = try reader.readValue()     // one element
/// }
/// try reader.finish()
/// ```
///
/// Values are exactly what ``JSON``'s `parse(_:)` makes of the same text
/// (numbers are read by the same function), and an error is the same
/// ``JSONError`` — line, column and reason — that it throws, found as soon as
/// the reader reaches it. Records are held compactly: objects with the same
/// keys in the same order share one list of keys (see ``DynamicRecord``).
///
/// Only the current top-level element's text (and a chunk) is kept in memory.
/// A reader is not `Sendable`: use it from one task.
public final class JSONStreamReader {
    private enum Source {
        case data(Data, next: Int)
        case descriptor(Int32, owned: Bool)
    }

    private var source: Source
    private let chunkSize: Int
    /// The bytes read and not yet discarded: `buffer[0]` is at `base` in the text.
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    private var position = 0
    private var base = 0
    private var exhausted = false
    /// The first byte (in the text) that must be kept: the start of what the
    /// current call reads.
    private var mark = 0
    /// Line feeds in the discarded bytes, and the characters after the last one.
    private var discardedLines = 0
    private var discardedColumns = 0
    /// Open containers: whether each is an array, and whether its first
    /// element or member is still to come.
    private var containers: [(isArray: Bool, isFirst: Bool)] = []
    private var depth = 0
    private var startedDocument = false
    /// Interned shapes, and the last one made at each depth (the usual guess).
    private var shapes: [[String]: _RecordShape] = [:]
    private var guesses: [_RecordShape?] = []
    /// For each depth, room that every object read at it reuses: its values,
    /// and the writer of its bytes.
    private var scratch: [(values: ContiguousArray<RecordValue>, writer: _RecordWriter)] = []
    private static let maximumShapes = 4096

    /// The size of the text in bytes, when known (a regular file, or `Data`).
    public let expectedByteCount: Int?

    /// Called after each chunk is read with the number of bytes read so far,
    /// and whether the text has ended (the last call says so): for a
    /// progress display.
    public var onRead: ((_ bytesRead: Int, _ atEnd: Bool) -> Void)?

    /// The number of bytes read from the source so far.
    public var bytesRead: Int { base + count }

    /// The byte offset of the cursor in the text.
    public var offset: Int { base + position }

    /// A reader of `data`, copied a chunk of `chunkSize` bytes at a time.
    ///
    /// - Complexity: O(1); reading is O(*n*) in the length of the text.
    public init(data: Data, chunkSize: Int = 1 << 20) {
        source = .data(data, next: data.startIndex)
        expectedByteCount = data.count
        self.chunkSize = Swift.min(Swift.max(1, chunkSize), 1 << 30)   // a buffer that can be allocated
        capacity = Swift.max(16, Swift.min(self.chunkSize, data.count) + 8)
        buffer = .allocate(capacity: capacity)
    }

    /// A reader of the file at `path` (a regular file, a pipe, `/dev/stdin`),
    /// read `chunkSize` bytes at a time. The file is closed when the reader
    /// is released.
    ///
    /// - Throws: ``JSONFileError`` when the file does not exist, is a
    ///   directory or cannot be opened.
    public convenience init(contentsOfFile path: String, chunkSize: Int = 1 << 20) throws(JSONFileError) {
        var fd: Int32
        repeat { fd = open(path, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd >= 0 else {
            let code = errno
            throw JSONFileError(path: path, reason: String(cString: strerror(code)), isMissing: code == ENOENT, isDirectory: code == EISDIR)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw JSONFileError(path: path, reason: String(cString: strerror(code)), isMissing: false, isDirectory: false)
        }
        if info.st_mode & S_IFMT == S_IFDIR {
            close(fd)
            throw JSONFileError(path: path, reason: "is a directory", isMissing: false, isDirectory: true)
        }
        let size: Int? = info.st_mode & S_IFMT == S_IFREG ? Int(exactly: info.st_size) : nil
        self.init(descriptor: fd, owned: true, expectedByteCount: size, chunkSize: chunkSize)
    }

    /// A reader of an open file descriptor (standard input, a pipe), read
    /// `chunkSize` bytes at a time; the reader does not close it.
    public convenience init(fileDescriptor: Int32, chunkSize: Int = 1 << 20) {
        var info = stat()
        let size: Int? = fstat(fileDescriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? Int(exactly: info.st_size) : nil
        self.init(descriptor: fileDescriptor, owned: false, expectedByteCount: size, chunkSize: chunkSize)
    }

    private init(descriptor: Int32, owned: Bool, expectedByteCount: Int?, chunkSize: Int) {
        source = .descriptor(descriptor, owned: owned)
        self.expectedByteCount = expectedByteCount
        self.chunkSize = Swift.min(Swift.max(1, chunkSize), 1 << 30)   // a buffer that can be allocated
        capacity = self.chunkSize + 8
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        buffer.deallocate()
        if case .descriptor(let fd, owned: true) = source { close(fd) }
    }

    // MARK: The cursor

    /// Steps into the array at the cursor, if the value there is one.
    ///
    /// - Returns: false (nothing read) when the value at the cursor is not an array.
    /// - Throws: ``JSONError`` when the text ends or nests too deeply.
    /// - Complexity: O(*w*) for *w* bytes of white space before it.
    public func beginArray() throws(JSONError) -> Bool {
        try begin(UInt8(ascii: "["))
    }

    /// Steps into the object at the cursor, if the value there is one (its
    /// members are then read with ``nextKey()``; an object `{"$date": …}` is
    /// not made a date).
    ///
    /// - Returns: false (nothing read) when the value at the cursor is not an object.
    /// - Throws: ``JSONError`` when the text ends or nests too deeply.
    /// - Complexity: O(*w*) for *w* bytes of white space before it.
    public func beginObject() throws(JSONError) -> Bool {
        try begin(UInt8(ascii: "{"))
    }

    private func begin(_ bracket: UInt8) throws(JSONError) -> Bool {
        try startValue()
        guard try peek() == bracket else { return false }
        try enter()
        position += 1
        containers.append((isArray: bracket == UInt8(ascii: "["), isFirst: true))
        return true
    }

    /// Moves to the next element of the array the cursor is in.
    ///
    /// - Returns: true when there is one (read it with ``readValue()`` or
    ///   ``skipValue()``), false at the array's end (the cursor is then after it).
    /// - Throws: ``JSONError`` when the text is malformed or the cursor is not in an array.
    /// - Complexity: O(*w*) for *w* bytes of white space before the element.
    public func nextElement() throws(JSONError) -> Bool {
        guard let top = containers.last, top.isArray else { throw error("the reader is not in an array (call beginArray() first)") }
        mark = base + position
        try skipWhitespace()
        if top.isFirst {
            containers[containers.count - 1].isFirst = false
            if try peek() == UInt8(ascii: "]") {
                position += 1
                leave()
                return false
            }
            return true
        }
        guard let byte = try peek() else { throw error("expected ',' or ']' after an array element, found the end of the text") }
        if byte == UInt8(ascii: ",") {
            position += 1
            try skipWhitespace()
            return true
        }
        if byte == UInt8(ascii: "]") {
            position += 1
            leave()
            return false
        }
        throw error("expected ',' or ']' after an array element, found \(try found())")
    }

    /// Moves to the next member of the object the cursor is in.
    ///
    /// - Returns: the member's key (read its value with ``readValue()`` or
    ///   ``skipValue()``), or nil at the object's end (the cursor is then after it).
    /// - Throws: ``JSONError`` when the text is malformed or the cursor is not in an object.
    /// - Complexity: O(*k*) in the length of the key's text.
    public func nextKey() throws(JSONError) -> String? {
        guard let top = containers.last, !top.isArray else { throw error("the reader is not in an object (call beginObject() first)") }
        mark = base + position
        try skipWhitespace()
        if top.isFirst {
            containers[containers.count - 1].isFirst = false
            if try peek() == UInt8(ascii: "}") {
                position += 1
                leave()
                return nil
            }
        } else {
            guard let byte = try peek() else { throw error("expected ',' or '}' after an object member, found the end of the text") }
            if byte == UInt8(ascii: "}") {
                position += 1
                leave()
                return nil
            }
            guard byte == UInt8(ascii: ",") else { throw error("expected ',' or '}' after an object member, found \(try found())") }
            position += 1
            try skipWhitespace()
        }
        return try parseKey()
    }

    /// Reads the value at the cursor whole and moves past it.
    ///
    /// - Throws: ``JSONError`` (as ``JSON``'s `parse(_:)` would) when it is malformed.
    /// - Complexity: O(*n*) in the length of the value's text.
    public func readValue() throws(JSONError) -> RecordValue {
        try startValue()
        return try parseValue()
    }

    /// Moves past the value at the cursor (checking it as ``readValue()`` does).
    ///
    /// - Throws: ``JSONError`` when it is malformed.
    /// - Complexity: O(*n*) in the length of the value's text.
    public func skipValue() throws(JSONError) {
        _ = try readValue()
    }

    /// Reads the rest of the document — checking it, and passing over what is
    /// left of the arrays and objects the cursor is in — and checks that
    /// nothing but white space follows it.
    ///
    /// - Throws: ``JSONError`` when the rest is malformed or something follows.
    /// - Complexity: O(*n*) in the length of the rest of the text.
    public func finish() throws(JSONError) {
        if !startedDocument { _ = try readValue() }
        while let top = containers.last {
            if top.isArray {
                while try nextElement() { try skipValue() }
            } else {
                while try nextKey() != nil { try skipValue() }
            }
        }
        mark = base + position
        try skipWhitespace()
        let more = try refillUntil(position + 1)
        if more {
            throw error("expected the end of the text after the value, found \(try found())")
        }
    }

    // MARK: Reading bytes

    /// Where a value starts: white space skipped; an empty document is an error.
    private func startValue() throws(JSONError) {
        mark = base + position
        if !startedDocument {
            startedDocument = true
            try refillUntil(3)
            if count >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF && base == 0 { position = 3 }
            mark = base + position
            try skipWhitespace()
            if try peek() == nil { throw error("expected a JSON value, found an empty text") }
        }
        try skipWhitespace()
    }

    @inline(__always)
    private func peek() throws(JSONError) -> UInt8? {
        if position < count { return buffer[position] }
        return try refillUntil(position + 1) ? buffer[position] : nil
    }

    /// Reads until `end` bytes (from the buffer's start) are in the buffer;
    /// false when the text ends first. Bytes before `mark` may be dropped:
    /// `end` and `position` move with them.
    @discardableResult
    private func refillUntil(_ end: Int) throws(JSONError) -> Bool {
        var end = end
        while count < end {
            if exhausted { return false }
            let before = base
            try readChunk()
            end -= base - before
        }
        return true
    }

    /// Reads one chunk, dropping what is no longer needed first.
    private func readChunk() throws(JSONError) {
        discardBeforeMark()
        if capacity - count < chunkSize {
            let newCapacity = Swift.max(capacity * 2, count + chunkSize)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            grown.update(from: buffer, count: count)
            buffer.deallocate()
            buffer = grown
            capacity = newCapacity
        }
        var got = 0
        switch source {
        case .data(let data, let next):
            got = Swift.min(chunkSize, data.endIndex - next)
            if got > 0 {
                data.copyBytes(to: buffer + count, from: next..<(next + got))
                source = .data(data, next: next + got)
            }
        case .descriptor(let fd, _):
            while true {
                let n = read(fd, buffer + count, chunkSize)
                if n < 0 {
                    if errno == EINTR { continue }
                    let reason = String(cString: strerror(errno))
                    throw error("the text cannot be read on from here (\(reason))", at: base + count)
                }
                got = n
                break
            }
        }
        if got == 0 {
            exhausted = true
        } else {
            count += got
        }
        onRead?(base + count, exhausted)
    }

    /// Drops the bytes before `mark` (at a place where counting characters
    /// in pieces gives what counting them whole would).
    private func discardBeforeMark() {
        var cut = Swift.min(mark - base, count - 1, position)
        // Between two ASCII characters (not CR LF) characters are separate.
        while cut > 0 && !(buffer[cut - 1] < 0x80 && buffer[cut] < 0x80 && !(buffer[cut - 1] == 0x0D && buffer[cut] == 0x0A)) {
            cut -= 1
        }
        guard cut > 0, cut >= count / 2 || capacity - count < chunkSize else { return }
        var lastLine = -1
        for k in 0..<cut where buffer[k] == 0x0A {
            discardedLines += 1
            lastLine = k
        }
        let lineStart = lastLine + 1
        let columns = _characterCount(buffer + lineStart, cut - lineStart)
        discardedColumns = lastLine >= 0 ? columns : discardedColumns + columns
        memmove(buffer, buffer + cut, count - cut)
        count -= cut
        position -= cut
        base += cut
    }

    /// The error at `offset` (the cursor by default), placed by line and column.
    private func error(_ reason: String, at offset: Int? = nil) -> JSONError {
        let offset = Swift.max(base, Swift.min(offset ?? base + position, base + count))
        let relative = offset - base
        var lines = 0, lastLine = -1
        for k in 0..<relative where buffer[k] == 0x0A {
            lines += 1
            lastLine = k
        }
        let column = lastLine >= 0
            ? _characterCount(buffer + lastLine + 1, relative - lastLine - 1)
            : discardedColumns + _characterCount(buffer, relative)
        return JSONError(line: 1 + discardedLines + lines, column: column + 1, offset: offset, reason: reason)
    }

    /// The character at the cursor, quoted, for messages.
    private func found() throws(JSONError) -> String {
        try refillUntil(position + 4)
        return _describe(UnsafeBufferPointer(start: buffer, count: count), at: position)
    }

    private func skipWhitespace() throws(JSONError) {
        while true {
            var p = position
            let n = count
            while p < n {
                switch buffer[p] {
                case 0x20, 0x09, 0x0A, 0x0D: p += 1
                default:
                    position = p
                    return
                }
            }
            position = p
            if !(try refillUntil(position + 1)) { return }
        }
    }

    private func enter() throws(JSONError) {
        depth += 1
        if depth > JSON.maximumDepth {
            depth -= 1
            throw error("arrays and objects nest deeper than \(JSON.maximumDepth) levels")
        }
    }

    private func leave() {
        containers.removeLast()
        depth -= 1
    }

    // MARK: Values

    private func parseValue() throws(JSONError) -> RecordValue {
        guard let byte = try peek() else { throw error("expected a value, found the end of the text") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try parseLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try parseLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try parseLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("expected a value (object, array, string, number, true, false or null), found \(try found())")
        }
    }

    private func parseLiteral(_ word: StaticString) throws(JSONError) {
        let length = word.utf8CodeUnitCount
        try refillUntil(position + length)
        let matches = position + length <= count
            && word.withUTF8Buffer { text in (0..<length).allSatisfy { buffer[position + $0] == text[$0] } }
        guard matches else { throw error("expected '\(word)', found \(try found())") }
        position += length
    }

    private func parseArray() throws(JSONError) -> RecordValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var elements: [RecordValue] = []
        try skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            try skipWhitespace()
            elements.append(try parseValue())
            try skipWhitespace()
            guard let byte = try peek() else { throw error("expected ',' or ']' after an array element, found the end of the text") }
            if byte == UInt8(ascii: ",") { position += 1; continue }
            if byte == UInt8(ascii: "]") { position += 1; return .array(elements) }
            throw error("expected ',' or ']' after an array element, found \(try found())")
        }
    }

    private func parseKey() throws(JSONError) -> String {
        guard try peek() == UInt8(ascii: "\"") else { throw error("expected a string key in an object, found \(try found())") }
        let key = try parseString()
        try skipWhitespace()
        guard try peek() == UInt8(ascii: ":") else { throw error("expected ':' after the key \"\(key)\", found \(try found())") }
        position += 1
        try skipWhitespace()
        return key
    }

    private func parseObject() throws(JSONError) -> RecordValue {
        try enter()
        defer { depth -= 1 }
        let start = base + position
        position += 1
        while guesses.count <= depth { guesses.append(nil) }
        let guess = guesses[depth]
        var matched = 0
        var extraKeys: [String] = []
        // The values in this depth's room, reused by every object read at it.
        while scratch.count <= depth { scratch.append(([], _RecordWriter())) }
        let level = depth
        var values = ContiguousArray<RecordValue>()
        swap(&values, &scratch[level].values)
        defer {
            values.removeAll(keepingCapacity: true)
            swap(&values, &scratch[level].values)
        }
        try skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            position += 1
            return record(interned([]), values)
        }
        while true {
            try skipWhitespace()
            let key = try parseKey()
            if extraKeys.isEmpty, let guess, matched < guess.keys.count, guess.keys[matched] == key {
                matched += 1
            } else {
                if extraKeys.isEmpty, let guess { extraKeys = Array(guess.keys[..<matched]) }
                extraKeys.append(key)
            }
            values.append(try parseValue())
            try skipWhitespace()
            guard let byte = try peek() else { throw error("expected ',' or '}' after an object member, found the end of the text") }
            if byte == UInt8(ascii: ",") { position += 1; continue }
            if byte == UInt8(ascii: "}") { position += 1; break }
            throw error("expected ',' or '}' after an object member, found \(try found())")
        }
        if extraKeys.isEmpty, let guess, matched == guess.keys.count, !(matched == 1 && guess.keys[0] == "$date") {
            return record(guess, values)
        }
        if extraKeys.isEmpty, let guess { extraKeys = Array(guess.keys[..<matched]) }
        if extraKeys.count == 1, extraKeys[0] == "$date", case .string(let text) = values[0] {
            guard let date = ISO8601.date(from: text) else {
                throw error("'\(text)' is not an ISO 8601 date (e.g. 2024-05-01 or 2024-05-01T10:00:00Z)", at: start)
            }
            return .date(date)
        }
        let (keys, deduplicated) = DynamicRecord.deduplicated(zip(extraKeys, values))
        let shape = interned(keys)
        guesses[depth] = shape
        return record(shape, deduplicated)
    }

    /// A record of `shape` holding `values`, its bytes written in this depth's room.
    private func record(_ shape: _RecordShape, _ values: some Collection<RecordValue>) -> RecordValue {
        var writer = _RecordWriter()
        swap(&writer, &scratch[depth].writer)
        defer { swap(&writer, &scratch[depth].writer) }
        writer.reset()
        for value in values { writer.append(value) }
        return .record(DynamicRecord(storage: writer.storage(shape: shape)))
    }

    /// The shared shape of these keys (a new one once there are many).
    private func interned(_ keys: [String]) -> _RecordShape {
        if let shape = shapes[keys] { return shape }
        let shape = _RecordShape(keys: keys)
        if shapes.count < Self.maximumShapes { shapes[keys] = shape }
        return shape
    }

    private func parseString() throws(JSONError) -> String {
        let start = base + position
        position += 1
        var scalars = String.UnicodeScalarView()
        var runStart = base + position
        var text: String?
        func flush(upTo end: Int) {
            let run = UnsafeBufferPointer(start: buffer + (runStart - base), count: end - runStart)
            if text == nil && scalars.isEmpty {
                text = String(decoding: run, as: UTF8.self)
            } else {
                if let pending = text {
                    scalars.append(contentsOf: pending.unicodeScalars)
                    text = nil
                }
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
            }
        }
        while true {
            // The plain run: printable ASCII up to a quote, a backslash or anything else.
            var p = position
            let n = count
            while p < n {
                let byte = buffer[p]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
                p += 1
            }
            position = p
            let more = try p < n ? true : refillUntil(position + 1)
            guard more else {
                throw error("a string is not closed: expected '\"', found the end of the text", at: start)
            }
            let byte = buffer[position]
            if byte == UInt8(ascii: "\"") {
                flush(upTo: base + position)
                position += 1
                break
            }
            if byte < 0x20 { throw error("a control character must be escaped in a string (\\n, \\t, \\u00XX)") }
            if byte >= 0x80 {
                // Validate UTF-8 as we go: decoding replaces bad bytes silently.
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 0
                try refillUntil(position + length)
                guard length > 0, position + length <= count,
                    _isValidUTF8(UnsafeBufferPointer(start: buffer + position, count: length))
                else { throw error("the text is not valid UTF-8") }
                position += length
                continue
            }
            if byte != UInt8(ascii: "\\") { continue }   // a plain run goes on past the chunk's end
            // A backslash.
            flush(upTo: base + position)
            if let pending = text {
                scalars.append(contentsOf: pending.unicodeScalars)
                text = nil
            }
            position += 1
            guard let escape = try peek() else { throw error("expected an escape after '\\', found the end of the text") }
            position += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                let high = try parseHex4()
                if (0xD800...0xDBFF).contains(high) {
                    try refillUntil(position + 2)
                    guard position + 1 < count, buffer[position] == UInt8(ascii: "\\"), buffer[position + 1] == UInt8(ascii: "u") else {
                        throw error("expected a low surrogate \\uDC00…\\uDFFF after a high surrogate")
                    }
                    position += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low), let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) else {
                        throw error("expected a low surrogate \\uDC00…\\uDFFF after a high surrogate")
                    }
                    scalars.append(scalar)
                } else if let scalar = Unicode.Scalar(high) {
                    scalars.append(scalar)
                } else {
                    throw error("a lone low surrogate \\u\(String(high, radix: 16, uppercase: true)) is not a character")
                }
            default:
                position -= 1
                throw error("unknown escape \\\(try found().dropFirst().dropLast()) (use \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX)")
            }
            runStart = base + position
        }
        return text ?? String(scalars)
    }

    private func parseHex4() throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = try peek() else { throw error("expected 4 hexadecimal digits after \\u, found the end of the text") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("expected 4 hexadecimal digits after \\u, found \(try found())")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private func parseNumber() throws(JSONError) -> RecordValue {
        // The whole number, and the character after it, in the buffer.
        var p = position
        while true {
            while p < count {
                switch buffer[p] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                    UInt8(ascii: "e"), UInt8(ascii: "E"):
                    p += 1
                    continue
                default: break
                }
                break
            }
            if p < count { break }
            let before = base
            if !(try refillUntil(p + 1)) { break }
            p -= base - before
        }
        let before = base
        try refillUntil(p + 4)
        p -= base - before
        switch _JSONNumber.parse(UnsafeBufferPointer(start: buffer, count: count), at: position) {
        case .value(let value, let end):
            position = end
            return value
        case .failure(let reason, let offset):
            throw error(reason, at: base + offset)
        }
    }
}

/// The number of characters in a piece of UTF-8 text (as `String.count` counts them).
func _characterCount(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
    guard count > 0 else { return 0 }
    var ascii = true
    for k in 0..<count where bytes[k] >= 0x80 {
        ascii = false
        break
    }
    if ascii { return count }
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self).count
}
