// The sections followed object by object: a change moves a few objects, and
// the sections change where they leave and arrive — not made again from the
// whole order.

extension FetchedResultsController {
    /// The sections after the object at `position` (in the order as it was)
    /// left: its section shrinks, and goes when empty. False when the
    /// sections must be made again from the order (two sections of one name
    /// came together).
    ///
    /// - Complexity: O(log *s*) plus a shift of the *s* section starts.
    func sectionsAfterRemoving(at position: Int) -> Bool {
        let k = path(ofPosition: position).section
        sectionList[k].count -= 1
        shiftSectionStarts(from: k + 1, by: -1)
        guard sectionList[k].count == 0 else { return true }
        sectionList.remove(at: k)
        sectionStarts.remove(at: k + 1)
        return !(k > 0 && k < sectionList.count && sectionList[k - 1].name == sectionList[k].name)
    }

    /// The sections after an object named `name` arrived at `position`: the
    /// section before or after it with its name grows, or a new section
    /// starts there. False when the sections must be made again from the
    /// order (the name falls inside a section of another name).
    ///
    /// - Complexity: O(log *s*) plus a shift of the *s* section starts.
    func sectionsAfterInserting(at position: Int, name: String) -> Bool {
        let countBefore = sectionStarts[sectionStarts.count - 1]
        let before = position > 0 ? path(ofPosition: position - 1).section : nil
        let after = position < countBefore ? path(ofPosition: position).section : nil
        if let k = before, sectionList[k].name == name {
            sectionList[k].count += 1
            shiftSectionStarts(from: k + 1, by: 1)
            return true
        }
        if let k = after, sectionList[k].name == name {
            sectionList[k].count += 1
            shiftSectionStarts(from: k + 1, by: 1)
            return true
        }
        if let before, let after, before == after { return false }
        let k = before.map { $0 + 1 } ?? 0
        sectionList.insert(_SectionRun(name: name, count: 1), at: k)
        sectionStarts.insert(position, at: k)
        shiftSectionStarts(from: k + 1, by: 1)
        return true
    }

    /// Adds `delta` to the section starts from index `i` on.
    private func shiftSectionStarts(from i: Int, by delta: Int) {
        sectionStarts.withUnsafeMutableBufferPointer { starts in
            for j in i..<starts.count { starts[j] &+= delta }
        }
    }
}
