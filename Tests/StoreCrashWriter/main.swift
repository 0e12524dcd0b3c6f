import Foundation
import FetchedResults
import TableTestSupport

// store-crash-writer PATH ROWS: saves ever newer versions of ROWS rows into the
// store at PATH, forever; prints each version saved. The crash-safety test kills
// it at random moments and checks that the store opens with one whole version.
let arguments = CommandLine.arguments
guard arguments.count == 3, let rows = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: store-crash-writer PATH ROWS\n".utf8))
    exit(2)
}
do {
    let store = try ObjectStore<VersionedRow>(fileURL: URL(fileURLWithPath: arguments[1]))
    let context = ObjectContext(store: store)
    var version = (store.allObjects().first?.version ?? 0) + 1
    if store.count == 0 {
        for id in 0..<rows { try context.insert(VersionedRow(id: id, version: version, text: "row \(id) — version \(version) ✓")) }
        try context.save()
        FileHandle.standardOutput.write(Data("\(version)\n".utf8))
        version += 1
    }
    while true {
        for id in 0..<rows { try context.update(VersionedRow(id: id, version: version, text: "row \(id) — version \(version) ✓")) }
        try context.save()
        FileHandle.standardOutput.write(Data("\(version)\n".utf8))
        version += 1
    }
} catch {
    FileHandle.standardError.write(Data("store-crash-writer: \(error)\n".utf8))
    exit(1)
}
