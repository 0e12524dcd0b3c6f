// PhotoDiary: the photo diary on HeadlessTable — a store, a fetched results
// controller bound to a table, a prototype cell from a template with a
// control in it, deletes, a search, and a long diary scrolled.
//
//     swift run photo-diary
//
// The app's code is in ../Diary: Entry (the entity), EntryCell (the
// prototype cell), DiaryScreen (the table, its binding, search and the star's
// action) and DiaryStory (the steps, and what the table shows after each).

import Foundation
import HeadlessTable
import PhotoDiary

let file = FileManager.default.temporaryDirectory.appendingPathComponent("photo-diary-\(ProcessInfo.processInfo.processIdentifier).json")
defer { try? FileManager.default.removeItem(at: file) }
do {
    try DiaryStory.run(store: ObjectStore(fileURL: file)) { print($0, terminator: "") }
} catch {
    FileHandle.standardError.write(Data("photo-diary: \(error)\n".utf8))
    exit(1)
}
