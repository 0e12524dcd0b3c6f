import Foundation
import HeadlessTable
import PhotoDiary

/// `headless-table demo [--store PATH]`: the photo diary story (see
/// Examples/PhotoDiary) on the embedded store — a temporary file, or PATH,
/// kept afterwards.
enum DemoCommand {
    static func run(_ arguments: inout ArgumentList, output: CommandOutput) throws {
        let path = try arguments.option("--store")
        try arguments.finish()
        let file = path.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("headless-table-demo-\(UUID().uuidString).json")
        defer { if path == nil { try? FileManager.default.removeItem(at: file) } }

        var isFolder: ObjCBool = false
        let folder = file.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw CommandError("--store: there is no folder \(folder) to keep the store in")
        }
        let store: ObjectStore<Entry>
        do {
            store = try ObjectStore(fileURL: file)
        } catch {
            throw CommandError("--store: \(error)")
        }
        let left = store.count
        if left > 0 {
            // A store kept from an earlier run: the story starts over.
            let reset = ObjectContext(store: store)
            for entry in store.allObjects() { try reset.delete(entry.id) }
            _ = try reset.save()
            output.out("(The store at \(file.path) held \(left) entries from an earlier run: starting over.)\n")
        }
        output.out("HeadlessTable demo: a photo diary on the embedded store\(path == nil ? "" : " (\(file.path))").\n")
        try DiaryStory.run(store: store) { output.out($0) }
    }
}
