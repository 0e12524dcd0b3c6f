import Foundation

/// A folder of its own in the system's temporary folder, removed with
/// everything in it when the value is released: where a test writes its
/// files and stores.
public final class TemporaryFolder: @unchecked Sendable {
    /// The folder.
    public let url: URL

    /// A new, empty folder named `prefix` and a unique suffix.
    public init(_ prefix: String = "headless-table-tests") {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        Self.create(url)
    }

    /// Creates the folder at `url`; when it cannot, the test's first file in
    /// it fails, naming the folder, after this says why.
    private static func create(_ url: URL) {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            print("TemporaryFolder: cannot create \(url.path): \(error)")
        }
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The URL of `name` in the folder.
    public func url(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The URL of `name` in a new, empty subfolder of its own: for a test
    /// that makes several stores of one name, each with the files a store
    /// keeps beside its own.
    public func freshURL(_ name: String) -> URL {
        let folder = url.appendingPathComponent(UUID().uuidString)
        Self.create(folder)
        return folder.appendingPathComponent(name)
    }

    /// Writes `text` to the file `name` in the folder and returns its path.
    @discardableResult
    public func file(_ name: String, _ text: String) -> String {
        let path = url.appendingPathComponent(name).path
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }
}
