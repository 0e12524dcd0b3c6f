import Foundation
import InternalTableUtilities

/// Why a JSON text could not be read: where, and what was expected.
public struct JSONError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The line (from 1) and column (from 1, in characters) of the problem.
    public var line: Int, column: Int
    /// The byte offset of the problem.
    public var offset: Int
    /// What is wrong, e.g. `expected ',' or ']' after an array element, found '}'`.
    public var reason: String

    public var description: String { "line \(line), column \(column): \(reason)" }
}

/// Reading and writing JSON as ``RecordValue``s.
///
/// The reader follows RFC 8259 strictly (no comments, no trailing commas) and
/// keeps what Foundation's reader loses: a number written with `.` or an
/// exponent is a ``RecordValue/double(_:)``, otherwise an exact integer — an
/// ``RecordValue/int(_:)``, or a ``RecordValue/uint(_:)`` above `Int.max`. An
/// integer beyond 64 bits is an error, never a rounded double. An object that is exactly
/// `{"$date": "ISO-8601"}` is a ``RecordValue/date(_:)``. Object keys keep their
/// order. Errors name the line, the column and what was expected.
public enum JSON {
    /// The deepest nesting of arrays and objects the reader accepts.
    public static let maximumDepth = 512

    /// Reads one JSON value from `data` (UTF-8, an optional byte order mark).
    ///
    /// - Complexity: O(*n*) in the length of the text.
    public static func parse(_ data: Data) throws(JSONError) -> RecordValue {
        // One reader for whole texts and streams: the streaming one, read to its end.
        let reader = JSONStreamReader(data: data)
        let value = try reader.readValue()
        try reader.finish()
        return value
    }

    /// Reads one JSON value from a string.
    public static func parse(_ text: String) throws(JSONError) -> RecordValue {
        try parse(Data(text.utf8))
    }

    /// Writes a value as compact JSON: no spaces, keys in their order (or sorted),
    /// dates as `{"$date":"…"}` in UTC.
    public static func string(_ value: RecordValue, sortedKeys: Bool = false) -> String {
        var bytes: [UInt8] = []
        write(value, into: &bytes, sortedKeys: sortedKeys)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends a value as compact JSON to `out`, as ``string(_:sortedKeys:)`` writes it.
    ///
    /// - Complexity: O(*n*) in the length of the text written.
    public static func write(_ value: RecordValue, to out: inout String, sortedKeys: Bool = false) {
        out += string(value, sortedKeys: sortedKeys)
    }

    /// Appends a value as compact JSON, in UTF-8, to `bytes`, as
    /// ``string(_:sortedKeys:)`` writes it (the fastest way to write many values).
    ///
    /// - Complexity: O(*n*) in the length of the text written.
    public static func write(_ value: RecordValue, into bytes: inout [UInt8], sortedKeys: Bool = false) {
        switch value {
        case .null: bytes += "null".utf8
        case .bool(let b): bytes += b ? "true".utf8 : "false".utf8
        case .int(let i): writeInteger(i, into: &bytes)
        case .uint(let u): bytes += String(u).utf8
        case .double(let d):
            if d.isFinite {
                bytes += d.description.utf8
            } else {
                bytes += "null".utf8   // JSON has no infinities or NaN
            }
        case .string(let s): writeString(s, into: &bytes)
        case .date(let d):
            bytes += "{\"$date\":".utf8
            writeString(ISO8601.string(from: d), into: &bytes)
            bytes.append(UInt8(ascii: "}"))
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (k, element) in elements.enumerated() {
                if k > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element, into: &bytes, sortedKeys: sortedKeys)
            }
            bytes.append(UInt8(ascii: "]"))
        case .record(let record):
            bytes.append(UInt8(ascii: "{"))
            if sortedKeys {
                for (k, field) in record.fields.sorted(by: { $0.key < $1.key }).enumerated() {
                    if k > 0 { bytes.append(UInt8(ascii: ",")) }
                    writeString(field.key, into: &bytes)
                    bytes.append(UInt8(ascii: ":"))
                    write(field.value, into: &bytes, sortedKeys: sortedKeys)
                }
            } else {
                let keys = record.keys
                record.storage.forEachValue { k, value in
                    if k > 0 { bytes.append(UInt8(ascii: ",")) }
                    writeString(keys[k], into: &bytes)
                    bytes.append(UInt8(ascii: ":"))
                    write(value, into: &bytes, sortedKeys: false)
                }
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private static func writeInteger(_ i: Int, into bytes: inout [UInt8]) {
        if i == Int.min {
            bytes += String(i).utf8
            return
        }
        if i < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = i < 0 ? -i : i
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // room for 24 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            bytes.append(contentsOf: buffer[(24 - count)...])
        }
    }

    /// Writes a JSON string literal.
    public static func writeString(_ s: String, to out: inout String) {
        var bytes: [UInt8] = []
        writeString(s, into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends a JSON string literal, in UTF-8, to `bytes`.
    public static func writeString(_ s: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { text in
            var runStart = 0
            for k in text.indices {
                let byte = text[k]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<k]))
                runStart = k + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes += [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension RecordValue: CustomStringConvertible {
    /// The value as compact JSON.
    public var description: String { JSON.string(self) }
}

/// How a JSON number is read: the one function every JSON reader of the
/// package calls (`JSONStreamReader`, which `JSON.parse(_:)` runs), so
/// that they agree on every number.
enum _JSONNumber {
    /// A number read, or why there is none.
    enum Parsed {
        /// The value and the offset just after the number's text.
        case value(RecordValue, end: Int)
        /// What is wrong (as a ``JSONError``'s reason) and where.
        case failure(reason: String, offset: Int)
    }

    /// Reads the number whose text starts at `start` (a `-` or a digit).
    ///
    /// The caller makes sure the whole number and the character after it are
    /// in `bytes` (or that `bytes` ends where the text ends). A number written
    /// with `.` or an exponent is a double, otherwise an int (a double when it
    /// does not fit in `Int`); one beyond `Double`'s range is an error.
    ///
    /// - Complexity: O(*k*) for a number of *k* characters.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Parsed {
        var position = start
        let count = bytes.count
        @inline(__always) func isDigit(_ k: Int) -> Bool { k < count && bytes[k] &- UInt8(ascii: "0") < 10 }
        if position < count && bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard isDigit(position) else {
            return .failure(reason: "expected a digit in a number, found \(_describe(bytes, at: position))", offset: position)
        }
        let digitsStart = position
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if isDigit(position) { return .failure(reason: "a number may not start with 0 (write 7, not 07)", offset: start) }
        } else {
            while isDigit(position) { position += 1 }
        }
        var isInteger = true
        if position < count && bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard isDigit(position) else {
                return .failure(reason: "expected a digit after the decimal point, found \(_describe(bytes, at: position))", offset: position)
            }
            while isDigit(position) { position += 1 }
        }
        if position < count && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E")) {
            isInteger = false
            position += 1
            if position < count && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")) { position += 1 }
            guard isDigit(position) else {
                return .failure(reason: "expected a digit in the exponent, found \(_describe(bytes, at: position))", offset: position)
            }
            while isDigit(position) { position += 1 }
        }
        // Integers of up to 18 digits (9 where Int has 32 bits) fit in Int:
        // add them up directly.
        if isInteger && position - digitsStart <= (Int.bitWidth == 64 ? 18 : 9) {
            var magnitude = 0
            for k in digitsStart..<position { magnitude = magnitude &* 10 &+ Int(bytes[k] &- UInt8(ascii: "0")) }
            return .value(.int(digitsStart == start ? magnitude : -magnitude), end: position)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if isInteger {
            if let exact = _exactInteger(text) { return .value(exact, end: position) }
            return .failure(
                reason: "the integer \(_excerpt(text)) does not fit in 64 bits (\(Int.min)…\(UInt64.max)); "
                    + "write it as a string to keep it exact, or with a decimal point for the nearest double",
                offset: start)
        }
        guard let double = Double(text), double.isFinite else {
            return .failure(reason: "the number \(_excerpt(text)) is out of range", offset: start)
        }
        return .value(.double(double), end: position)
    }
}

/// The character at `position` of a UTF-8 text, quoted, for messages (or
/// "the end of the text").
func _describe(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> String {
    guard position < bytes.count else { return "the end of the text" }
    var end = position + 1
    while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<end]), as: UTF8.self)
    return "'\(text)'"
}

/// `text` whole when short, else its start and end around an ellipsis, and
/// its length: what an error message echoes of a long input.
package func _excerpt(_ text: String, limit: Int = 40) -> String {
    guard text.count > limit else { return text }
    return "\(text.prefix(limit / 2))…\(text.suffix(limit / 4)) (\(text.count) characters)"
}
