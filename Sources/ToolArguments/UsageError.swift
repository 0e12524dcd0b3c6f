/// A misused command line: a message for standard error, exit status 2, and
/// the command whose help to point at (nil: the tool's).
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// The command the hint's `--help` is about.
    public var command: String?

    public init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    public var description: String { message }

    /// The longest text a message echoes back.
    public static let excerptLength = 60

    /// `text`, or its beginning and `…` when it is longer than ``excerptLength``
    /// characters (line breaks shown as spaces): what a message echoes of the input.
    public static func excerpt(_ text: String, length: Int = excerptLength) -> String {
        let flat = String(text.prefix(length + 1).map { $0.isNewline || $0 == "\t" ? " " : $0 })
        return flat.count > length ? String(flat.prefix(length - 1)) + "…" : flat
    }
}
