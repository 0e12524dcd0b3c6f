import DirectoryStore
import FetchedResults
import Foundation
import Records
import TableDiff

// directory-store [FOLDER]: an ObjectStore kept by your own persistence — here
// a folder of JSON files (DirectoryPersistence) whose snapshot the store reads
// as rows are shown — used exactly as one on the embedded file: contexts,
// saves, a controller, another store.

struct Book: Record, Codable, Hashable {
    var id: Int
    var title: String
    var year: Int
}

let folder = CommandLine.arguments.count > 1
    ? URL(fileURLWithPath: CommandLine.arguments[1])
    : FileManager.default.temporaryDirectory.appendingPathComponent("directory-store-\(UUID().uuidString)")
let keep = CommandLine.arguments.count > 1
defer { if !keep { try? FileManager.default.removeItem(at: folder) } }

do {
    // The model declares the index the folder keeps.
    let model = try ObjectModel(.entity(Book.self, indexes: [["year"]]))

    // A shelf of 500 books, saved, then compacted into a snapshot folder.
    let store = try ObjectStore(model: model, persistence: DirectoryPersistence(folder: folder))
    let shelf = ObjectContext(store: store, name: "shelf")
    if store.objects(Book.self).isEmpty {
        for k in 0..<500 { try shelf.insert(Book(id: k, title: "Book \(k)", year: 1900 + (k * 37) % 125)) }
        try shelf.save()
        try store.compact()
    }

    // Reopened: a controller sorted by the index, 20 rows a batch, reads its
    // order from the index's files and the records of the rows it shows.
    let persistence = DirectoryPersistence(folder: folder)
    let reopened = try ObjectStore(model: model, persistence: persistence)
    let context = ObjectContext(store: reopened, name: "reader")
    let controller = FetchedResultsController(fetchRequest: FetchRequest<Book>(sortKeys: [SortKey("year")], fetchBatchSize: 20), context: context)
    try controller.performFetch()
    let count = controller.sections?.first?.numberOfObjects ?? 0
    let first = try (0..<3).map { row in try controller.object(at: TablePath(row: row, section: 0)) }
    print("by year:", first.map { "\($0.title) (\($0.year))" }.joined(separator: ", "), "… \(count) rows")
    print("record files read: \(persistence.recordFilesRead) of \(count)")

    // A second store on the same folder (another process would do the same)
    // saves; the first picks its save up before its own next one.
    let other = try ObjectStore(model: model, persistence: DirectoryPersistence(folder: folder))
    let otherContext = ObjectContext(store: other, name: "other")
    try otherContext.delete(Book.self, id: 1)
    try otherContext.insert(Book(id: 1000, title: "Neuromancer", year: 1984))
    try otherContext.save()
    try context.update(Book(id: 0, title: "The Hobbit", year: 1937))
    try context.save()
    print("after both saved: \(reopened.objects(Book.self).count) books, version \(reopened.version);",
          "book 1 \(reopened.object(Book.self, id: 1) == nil ? "deleted" : "kept"), book 1000 \(reopened.object(Book.self, id: 1000)?.title ?? "missing")")
} catch {
    FileHandle.standardError.write(Data("directory-store: \(error)\n".utf8))
    exit(1)
}
