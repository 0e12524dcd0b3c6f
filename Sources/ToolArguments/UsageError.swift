/// A misused command line: a message for standard error, exit status 2, and
/// the command whose help to point at (nil: the tool's).
package struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    /// The command the hint's `--help` is about.
    package var command: String?

    package init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    package var description: String { message }

    /// The longest text a message echoes back.
    package static let excerptLength = 60

    /// `text`, or its beginning and `…` when it is longer than ``excerptLength``
    /// characters (line breaks shown as spaces): what a message echoes of the input.
    package static func excerpt(_ text: String, length: Int = excerptLength) -> String {
        let flat = String(text.prefix(length + 1).map { $0.isNewline || $0 == "\t" ? " " : $0 })
        return flat.count > length ? String(flat.prefix(length - 1)) + "…" : flat
    }
}
