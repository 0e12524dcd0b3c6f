import FetchedResults
import Foundation
import PredicateFormat
import Records
import TableTestSupport

// store-crash-writer PATH ROWS: saves ever newer versions of ROWS rows into the
// store at PATH, forever; prints each version saved. The crash-safety test kills
// it at random moments and checks that the store opens with one whole version.
//
// store-crash-writer PATH --pairs: saves pairs of new rows (ids 2n and 2n+1,
// n counting up from the last pair in the store) forever, one save each, and prints n once the
// save has returned (acknowledged). The torn-save test kills it and checks
// that every acknowledged pair, and no half pair, is in the store.
//
// store-crash-writer PATH --share TAG COUNT: makes COUNT saves, each inserting
// row TAG * 1_000_000 + k, into a store on PATH that another process saves
// into at the same time; prints "done".
let arguments = CommandLine.arguments
func fail(_ text: String) -> Never {
    FileHandle.standardError.write(Data("store-crash-writer: \(text)\n".utf8))
    exit(2)
}
do {
    if arguments.count == 3, arguments[2] == "--pairs" {
        let store = try ObjectStore(for: VersionedRow.self, fileURL: URL(fileURLWithPath: arguments[1]))
        let context = ObjectContext(store: store)
        var n = (store.objects(VersionedRow.self).map(\.id).max() ?? 0) / 2 + 1
        while true {
            try context.insert(VersionedRow(id: 2 * n, version: n, text: "pair \(n) a"))
            try context.insert(VersionedRow(id: 2 * n + 1, version: n, text: "pair \(n) b"))
            try context.save()
            FileHandle.standardOutput.write(Data("\(n)\n".utf8))
            n += 1
        }
    } else if arguments.count == 5, arguments[2] == "--share", let tag = Int(arguments[3]), let count = Int(arguments[4]) {
        let store = try ObjectStore(for: VersionedRow.self, fileURL: URL(fileURLWithPath: arguments[1]))
        let context = ObjectContext(store: store)
        for k in 0..<count {
            try context.insert(VersionedRow(id: tag * 1_000_000 + k, version: k, text: "from \(tag)"))
            try context.save()
        }
        FileHandle.standardOutput.write(Data("done\n".utf8))
        exit(0)
    }
    guard arguments.count == 3, let rows = Int(arguments[2]) else {
        fail("usage: store-crash-writer PATH ROWS | PATH --pairs | PATH --share TAG COUNT")
    }
    let store = try ObjectStore(for: VersionedRow.self, fileURL: URL(fileURLWithPath: arguments[1]))
    let context = ObjectContext(store: store)
    var version = (store.objects(VersionedRow.self).first?.version ?? 0) + 1
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
