import Foundation

/// A product SwiftPM built next to the test bundle (the tool, the examples,
/// the crash writer), run as a process of its own.
public enum BuiltExecutable {
    /// What a run printed, and its exit status.
    public struct Result: Sendable {
        public var status: Int32
        public var out: String
        public var err: String

        public init(status: Int32, out: String, err: String) {
            self.status = status
            self.out = out
            self.err = err
        }
    }

    public struct NotBuilt: Error, CustomStringConvertible {
        public var name: String
        public var description: String { "\(name) is not built next to the tests" }
    }

    /// The executable's URL.
    ///
    /// - Throws: ``NotBuilt`` when there is no such executable.
    public static func url(_ name: String) throws -> URL {
        let url = productsFolder.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else { throw NotBuilt(name: name) }
        return url
    }

    /// The folder SwiftPM (or Xcode) builds the products into: the one that
    /// holds the test bundle.
    ///
    /// On Linux the tests are an executable in that folder, so it is the
    /// folder of `argv[0]`. On Darwin `argv[0]` is the runner (`xctest`, or
    /// SwiftPM's testing helper) somewhere in the toolchain, and the tests
    /// are a `.xctest` bundle loaded into it: the folder is the bundle's.
    public static var productsFolder: URL {
        #if canImport(Darwin)
        return Bundle(for: BundleMarker.self).bundleURL.deletingLastPathComponent()
        #else
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        #endif
    }

    private final class BundleMarker {}

    /// Runs the executable to its end, capturing both streams, in `directory`
    /// (the test's own working directory when nil).
    public static func run(_ name: String, _ arguments: [String] = [], in directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = try url(name)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self), err: String(decoding: errData, as: UTF8.self))
    }
}
