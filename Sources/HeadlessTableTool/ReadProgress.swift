import Foundation
import HeadlessTable
import ToolArguments

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A progress line on standard error while a big file is read —
/// `reading people.json: 42% (84 MB/s)` — when standard error is a terminal
/// and the read takes more than half a second; nothing otherwise (and nothing
/// under `--quiet`). The line is cleared when the file has been read.
final class ReadProgress {
    private let name: String
    private let total: Int?
    private let start = DispatchTime.now().uptimeNanoseconds
    private var lastDraw: UInt64 = 0
    private var drawn = false

    private init(name: String, total: Int?) {
        self.name = name
        self.total = total
    }

    /// `--quiet`, for every command that reads DATA.
    static let quietOption = OptionDeclaration.flag("quiet", help: "no progress line on standard error while a big file is read")

    /// Whether standard error is a terminal.
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Shows the progress of `reader` while it reads, if standard error is a terminal.
    static func attach(to reader: JSONStreamReader, name: String) {
        guard standardErrorIsTerminal else { return }
        let progress = ReadProgress(name: name, total: reader.expectedByteCount)
        reader.onRead = { bytes, atEnd in progress.update(bytes: bytes, atEnd: atEnd) }
    }

    /// The line for `bytes` read after `seconds`.
    static func line(name: String, bytes: Int, total: Int?, seconds: Double) -> String {
        let rate = seconds > 0 ? Double(bytes) / 1e6 / seconds : 0
        let done: String
        if let total, total > 0 {
            done = "\(Swift.min(100, Int(Double(bytes) * 100 / Double(total))))%"
        } else {
            done = "\(bytes / 1_000_000) MB"
        }
        return "reading \(name): \(done) (\(Int(rate.rounded())) MB/s)"
    }

    private func update(bytes: Int, atEnd: Bool) {
        let now = DispatchTime.now().uptimeNanoseconds
        if atEnd {
            if drawn { write("\r\u{1B}[K") }
            drawn = false
            return
        }
        guard now - start > 500_000_000, now - lastDraw > 100_000_000 else { return }
        lastDraw = now
        drawn = true
        write("\r\u{1B}[K" + Self.line(name: name, bytes: bytes, total: total, seconds: Double(now - start) / 1e9))
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
