import Foundation
import ToolArguments

/// Reading a command's input file: a path, or `-` for standard input. Files
/// that are not regular — pipes, `/dev/stdin`, `<(…)`, FIFOs — are read until
/// their end, not by their size.
enum InputFile {
    /// How messages name `path`: `standard input` for `-`.
    static func name(_ path: String) -> String { path == "-" ? "standard input" : path }

    /// The bytes of `path` (`-`: standard input), or an error naming it.
    static func read(_ path: String) throws -> Data {
        if path == "-" { return try readToEnd(FileHandle.standardInput, path) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandError("\(path): no such file")
        }
        if isDirectory.boolValue { throw CommandError("\(path): cannot be read (it is a directory)") }
        let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        if type == .typeRegular, let data = try? Data(contentsOf: URL(fileURLWithPath: path)) { return data }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CommandError("\(path): cannot be read") }
        defer { try? handle.close() }
        return try readToEnd(handle, path)
    }

    static func readToEnd(_ handle: FileHandle, _ path: String) throws -> Data {
        if #available(macOS 10.15.4, iOS 13.4, tvOS 13.4, watchOS 6.2, *) {
            do {
                return try handle.readToEnd() ?? Data()
            } catch {
                throw CommandError("\(name(path)): cannot be read (\(error.localizedDescription))")
            }
        } else {
            return handle.readDataToEndOfFile()
        }
    }

    /// Refuses `-` given more than once: standard input can be read once.
    static func checkStandardInputOnce(_ paths: [String?]) throws {
        if paths.filter({ $0 == "-" }).count > 1 {
            throw CommandError.usage("only one argument can be - (standard input is read once)")
        }
    }
}
