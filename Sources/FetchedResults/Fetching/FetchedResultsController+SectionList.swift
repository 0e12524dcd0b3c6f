import RecordStore
import Records
import TableDiff
// The sections followed object by object: a change moves a few objects, and
// the sections change where they leave and arrive — not made again from the
// whole order, and not copied: a report reads the few sections it needs from
// before the change (`_SectionsBefore`), and the rare report that compares
// all of them by name undoes the steps on a copy.

/// One object leaving or arriving, as the sections followed it.
struct _SectionStep {
    /// Whether the object arrived (else it left).
    var arrived: Bool
    /// Its position in the order then.
    var position: Int
    var name: String
}

/// The sections before a change, as far as its report reads them: their
/// number, and the sections the changed objects were in (read before the
/// change) — or all of them.
struct _SectionsBefore {
    let count: Int
    private var read: [Int: _SectionRun] = [:]
    private var all: [_SectionRun]?

    /// All the sections.
    init(all: [_SectionRun]) {
        count = all.count
        self.all = all
    }

    /// The sections at `indexes` of `sections`, and their number.
    init(_ sections: [_SectionRun], at indexes: some Sequence<Int>) {
        count = sections.count
        for k in indexes where sections.indices.contains(k) { read[k] = sections[k] }
    }

    /// Section `k`: one that was read (or any, when all were).
    subscript(k: Int) -> _SectionRun {
        if let all { return all[k] }
        assert(read[k] != nil, "section \(k) was not read before the change")
        return read[k] ?? _SectionRun(name: "", count: 0)
    }
}

/// Sections as runs of one name over the order — `runs`, and `starts`, where
/// each run starts and (last) the number of objects — changed one object at
/// a time, to what making them again from the order would give.
enum _RunList {
    /// The run holding position `p` (0 ≤ p < the number of objects; no run empty).
    static func run(holding p: Int, _ starts: [Int]) -> Int {
        var low = 0, high = starts.count - 2
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= p { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// The object at `p` leaves: its run shrinks; an emptied run goes, and
    /// the runs around it merge when they have one name.
    ///
    /// - Complexity: O(log *s*) plus a shift of the *s* starts.
    static func remove(at p: Int, runs: inout [_SectionRun], starts: inout [Int]) {
        let k = run(holding: p, starts)
        runs[k].count -= 1
        shift(&starts, from: k + 1, by: -1)
        guard runs[k].count == 0 else { return }
        runs.remove(at: k)
        starts.remove(at: k + 1)
        if k > 0, k < runs.count, runs[k - 1].name == runs[k].name {
            runs[k - 1].count += runs[k].count
            runs.remove(at: k)
            starts.remove(at: k)
        }
    }

    /// An object named `name` arrives at `p`: the run before or after it of
    /// that name grows; else a run starts there, splitting the run of
    /// another name it falls in.
    ///
    /// - Complexity: O(log *s*) plus a shift of the *s* starts.
    static func insert(_ name: String, at p: Int, runs: inout [_SectionRun], starts: inout [Int]) {
        let total = starts[starts.count - 1]
        let before = p > 0 ? run(holding: p - 1, starts) : nil
        let after = p < total ? run(holding: p, starts) : nil
        if let k = before, runs[k].name == name {
            runs[k].count += 1
            shift(&starts, from: k + 1, by: 1)
        } else if let k = after, runs[k].name == name {
            runs[k].count += 1
            shift(&starts, from: k + 1, by: 1)
        } else if let k = before, before == after {
            // Inside a run of another name: it splits around the new one.
            let head = p - starts[k], tail = runs[k].count - head
            runs[k].count = head
            runs.insert(contentsOf: [_SectionRun(name: name, count: 1), _SectionRun(name: runs[k].name, count: tail)], at: k + 1)
            starts.insert(contentsOf: [p, p + 1], at: k + 1)
            shift(&starts, from: k + 3, by: 1)
        } else {
            let k = before.map { $0 + 1 } ?? 0
            runs.insert(_SectionRun(name: name, count: 1), at: k)
            starts.insert(p, at: k)
            shift(&starts, from: k + 1, by: 1)
        }
    }

    /// Adds `delta` to the starts from index `i` on.
    private static func shift(_ starts: inout [Int], from i: Int, by delta: Int) {
        starts.withUnsafeMutableBufferPointer { starts in
            for j in i..<starts.count { starts[j] &+= delta }
        }
    }
}

extension FetchedResultsController {
    /// The sections before the steps of a change, all of them: the steps
    /// undone on a copy of the sections. O(*s* + *k* (log *s* + *s*)).
    func sections(undoing steps: [_SectionStep]) -> [_SectionRun] {
        var runs = results.sectionList, starts = results.sectionStarts
        for step in steps.reversed() {
            if step.arrived {
                _RunList.remove(at: step.position, runs: &runs, starts: &starts)
            } else {
                _RunList.insert(step.name, at: step.position, runs: &runs, starts: &starts)
            }
        }
        return runs
    }
}
