// PhotoDiary: the photo diary on HeadlessTable, as the German book writes it —
// two entities, DiaryEntry and Medium, with the relationship pair media /
// diaryEntry in one store; the book's mediumForType: and its predicates
// through the relationships; a table of the entries bound to a fetched
// results controller, other contexts' saves merged from their notification,
// a search, a prototype cell from a template with a control in it, a delete
// cascading to an entry's media, and a long diary scrolled.
//
//     swift run photo-diary
//
// The app's code is in Sources/PhotoDiary: DiaryModel (DiaryEntry, Medium
// and the model), EntryCell (the prototype cell), DiaryScreen (the
// controller, the bound table, the search, the merge, the filter and the
// star's action) and DiaryStory (the steps, and what the table shows after
// each).

import Foundation
import HeadlessTable
import PhotoDiary

let file = FileManager.default.temporaryDirectory.appendingPathComponent("photo-diary-\(ProcessInfo.processInfo.processIdentifier).json")
defer { try? FileManager.default.removeItem(at: file) }
do {
    try DiaryStory.run(store: ObjectStore(model: DiaryModel.make(), fileURL: file)) { print($0, terminator: "") }
} catch {
    FileHandle.standardError.write(Data("photo-diary: \(error)\n".utf8))
    exit(1)
}
