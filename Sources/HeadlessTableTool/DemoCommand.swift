import Foundation
import HeadlessTable
import PhotoDiary
import ToolArguments

/// `headless-table demo [--store PATH]`: the photo diary story (see
/// Examples/PhotoDiary) on the embedded store — a temporary file, or PATH,
/// kept afterwards.
enum DemoCommand {
    static let declaration = CommandDeclaration(
        "demo",
        summary: "the photo diary's story on the embedded store, step by step, as a person would see it",
        options: [
            OptionDeclaration("store", .text("PATH"), help: "keeps the store in PATH (a store left by an earlier run starts over); without it, a temporary file"),
        ])

    static func run(_ parsed: ParsedArguments, output: CommandOutput) throws {
        let path = parsed.string("store")
        let file = path.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("headless-table-demo-\(UUID().uuidString).json")
        defer { if path == nil { try? FileManager.default.removeItem(at: file) } }

        var isFolder: ObjCBool = false
        let folder = file.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw CommandError("--store: there is no folder \(folder) to keep the store in")
        }
        let store: ObjectStore
        do {
            store = try ObjectStore(model: DiaryModel.make(), fileURL: file)
        } catch {
            throw CommandError("--store: \(error)")
        }
        let left = store.objects(DiaryEntry.self)
        if !left.isEmpty {
            // A store kept from an earlier run: the story starts over (the entries' media go with them).
            let reset = ObjectContext(store: store)
            for entry in left { try reset.delete(entry) }
            for medium in store.objects(Medium.self) where try reset.object(Medium.self, id: medium.id) != nil { try reset.delete(medium) }
            try reset.save()
            output.out("(The store at \(file.path) held \(left.count) entries from an earlier run: starting over.)\n")
        }
        output.out("HeadlessTable demo: a photo diary on the embedded store\(path == nil ? "" : " (\(file.path))").\n")
        try DiaryStory.run(store: store) { output.out($0) }
    }
}
