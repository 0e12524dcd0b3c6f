import DirectoryStore
import FetchedResults
import Foundation
import PredicateFormat
import Records

// directory-store [FOLDER]: an ObjectStore kept by your own persistence — here
// a folder with one JSON file per object (DirectoryPersistence) — used exactly
// as one on the embedded file: contexts, saves, a controller, another store.

struct Book: Record, Codable, Hashable {
    var id: String
    var title: String
    var year: Int
}

let folder = CommandLine.arguments.count > 1
    ? URL(fileURLWithPath: CommandLine.arguments[1])
    : FileManager.default.temporaryDirectory.appendingPathComponent("directory-store-\(UUID().uuidString)")
let keep = CommandLine.arguments.count > 1
defer { if !keep { try? FileManager.default.removeItem(at: folder) } }

do {
    let store = try ObjectStore(for: Book.self, persistence: DirectoryPersistence(folder: folder))
    let context = ObjectContext(store: store, name: "shelf")
    try context.insert(Book(id: "hobbit", title: "The Hobbit", year: 1937))
    try context.insert(Book(id: "dune", title: "Dune", year: 1965))
    try context.insert(Book(id: "solaris", title: "Solaris", year: 1961))
    try context.save()

    let controller = FetchedResultsController(fetchRequest: FetchRequest<Book>(sortKeys: [SortKey("year")]), context: context)
    try controller.performFetch()
    print("by year:", (controller.fetchedObjects ?? []).map { "\($0.title) (\($0.year))" }.joined(separator: ", "))

    // A second store on the same folder (another process would do the same).
    let other = try ObjectStore(for: Book.self, persistence: DirectoryPersistence(folder: folder))
    let otherContext = ObjectContext(store: other, name: "other")
    try otherContext.delete(Book.self, id: "dune")
    try otherContext.insert(Book(id: "neuromancer", title: "Neuromancer", year: 1984))
    try otherContext.save()

    // The first store picks the other's save up before its next one.
    try context.update(Book(id: "hobbit", title: "The Hobbit, or There and Back Again", year: 1937))
    try context.save()
    print("after both saved:", store.objects(Book.self).map(\.id).sorted().joined(separator: ", "))

    let files = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("records/Book").path).sorted()
    print("files:", files.joined(separator: ", "))
    let reopened = try ObjectStore(for: Book.self, persistence: DirectoryPersistence(folder: folder))
    print("reopened:", reopened.objects(Book.self).map(\.title).joined(separator: " | "), "— version \(reopened.version)")
} catch {
    FileHandle.standardError.write(Data("directory-store: \(error)\n".utf8))
    exit(1)
}
