import PredicateFormat
import RecordStore
import Records
import TableDiff

// Invariant checks, swift-collections style: compiled in debug builds (or any
// build with `-Xswiftc -DHEADLESS_TABLE_INTERNAL_CHECKS`), empty otherwise.
// The controller property tests call them after every change.

extension FetchedResultsController {
    /// Traps when the controller's state disagrees with itself: the order's
    /// chunk list (`_OrderedElements._checkInvariants()`); the sections'
    /// counts against the number of objects and the section starts; the
    /// sections against the objects' section names (one section "" without
    /// a section key path; otherwise no empty section, no two consecutive
    /// sections with one name, and no name twice unless a change made the
    /// first sort key stop ordering the sections, which ``lastError`` says);
    /// the objects out of the request's order; index paths and identities
    /// that do not lead back to each other; kept records out of step with the
    /// settings; or the batches read (`_BatchCache._checkInvariants()`).
    ///
    /// - Complexity: O(*n* log *n*) in the builds that check; O(1) otherwise.
    package func _checkInvariants() {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        results.ordered._checkInvariants()
        results.batchCache._checkInvariants()
        guard let compiled = results.compiled else {
            precondition(results.sectionList.isEmpty && results.ordered.count == 0, "results before a fetch")
            return
        }
        // The sections against the count and the starts.
        precondition(results.sectionStarts.count == results.sectionList.count + 1 && results.sectionStarts.first == 0, "\(results.sectionStarts.count) section starts for \(results.sectionList.count) sections")
        for (k, section) in results.sectionList.enumerated() {
            precondition(section.count >= 0 && results.sectionStarts[k + 1] == results.sectionStarts[k] + section.count, "section \(k) starts at \(results.sectionStarts[k]), holds \(section.count), next at \(results.sectionStarts[k + 1])")
        }
        precondition(results.sectionStarts.last == results.ordered.count, "the sections hold \(results.sectionStarts.last ?? 0) objects, the results \(results.ordered.count)")
        // An order read from an index your persistence serves: its records
        // are not read here (every row, from that database).
        if indexIsServed && results.ordered.isLean { return }
        // A lean order whose details are not all known any more (damage in the
        // store's file, or versions forgotten) cannot be checked by them.
        let detailsKnown = (0..<results.ordered.count).allSatisfy { results.ordered.element(at: $0) != nil }
        // The sections against the names.
        if sectionNameKeyPath == nil {
            precondition(results.sectionList.count == 1 && results.sectionList[0].name == "", "one section \"\" without a section key path")
        } else if detailsKnown {
            var runs = _SectionRuns(checkingOrder: true)
            for position in 0..<results.ordered.count {
                guard let element = results.ordered.element(at: position) else { continue }
                runs.append(element.sectionName)
            }
            precondition(runs.runs == results.sectionList, "the sections against the objects' section names")
            precondition(results.sectionList.allSatisfy { $0.count > 0 }, "an empty section")
            precondition((runs.firstRepeat != nil) == results.sectionsRepeatNames, "a section name twice: \(runs.firstRepeat?.name ?? "none"), noted: \(results.sectionsRepeatNames)")
            precondition(!results.sectionsRepeatNames || results.lastError != nil, "a section name twice, and no last error")
        }
        // The order, the records, and the index paths both ways.
        var previous: _Element<R>?
        for position in 0..<results.ordered.count {
            let id = results.ordered.id(at: position)
            if let element = results.ordered.element(at: position) {
                if let previous {
                    precondition(compiled.compare(previous.sortValues, previous.sequence, element.sortValues, element.sequence) <= 0, "objects \(position - 1) and \(position) out of order")
                }
                previous = element
            }
            let path = path(ofPosition: position)
            precondition(results.sectionStarts[path.section] + path.row == position && path.row < results.sectionList[path.section].count, "position \(position) at \(path)")
            precondition(objectID(at: path) == id, "the identity at \(path)")
            precondition(!detailsKnown || indexPath(forObjectWithID: id) == path, "the index path of the object at \(path)")
            if let record = results.ordered.record(at: position) { precondition(record.id == id, "the record at \(path) is another's") }
        }
        precondition(!(compiled.request.fetchBatchSize <= 0 || deliversWholeChanges) || results.ordered.keepsRecords, "records not kept")
        #endif
    }
}
