/// A unified diff of two texts, line by line, as swift-snapshot-testing prints it:
/// hunks headed `@@ −1,4 +1,4 @@`, removed lines marked `−`, added lines `+`,
/// context lines indented by a figure space, and trailing spaces made visible
/// with `¬`.
///
/// Returns nil when the texts are equal.
///
/// - Complexity: O((*n* + *m*) · *d*), where *n* and *m* are the line counts and
///   *d* the number of differing lines (Myers' algorithm).
public func unifiedLineDiff(from reference: String, to actual: String, context: Int = 3) -> String? {
    if reference == actual { return nil }
    let old = _lines(reference), new = _lines(actual)
    let script = _editScript(old, new)

    // Group edits into hunks with `context` lines around them.
    var hunks: [String] = []
    var index = 0
    while index < script.count {
        guard let firstChange = script[index...].firstIndex(where: { $0.kind != .same }) else { break }
        var start = max(index, firstChange - context)
        // Extend to the last change within 2·context of the previous one.
        var end = firstChange
        var scan = firstChange
        while scan < script.count {
            if script[scan].kind != .same { end = scan; scan += 1; continue }
            if scan - end > 2 * context { break }
            scan += 1
        }
        let stop = min(script.count, end + context + 1)
        if start < index { start = index }
        let slice = script[start..<stop]
        let oldStart = slice.first.map { $0.oldIndex } ?? 0
        let newStart = slice.first.map { $0.newIndex } ?? 0
        let oldLength = slice.filter { $0.kind != .insert }.count
        let newLength = slice.filter { $0.kind != .delete }.count
        var lines = ["@@ −\(oldStart + (oldLength > 0 ? 1 : 0)),\(oldLength) +\(newStart + (newLength > 0 ? 1 : 0)),\(newLength) @@"]
        for edit in slice {
            let marker: String
            switch edit.kind {
            case .same: marker = "\u{2007}"
            case .delete: marker = "−"
            case .insert: marker = "+"
            }
            lines.append(marker + edit.line + (edit.line.hasSuffix(" ") ? "¬" : ""))
        }
        hunks.append(lines.joined(separator: "\n"))
        index = stop
    }
    return hunks.joined(separator: "\n")
}

struct _Edit {
    enum Kind { case same, delete, insert }
    var kind: Kind
    var line: String
    /// The line's index in the old text (or where it would be, for an insert).
    var oldIndex: Int
    /// The line's index in the new text (or where it would be, for a delete).
    var newIndex: Int
}

func _lines(_ text: String) -> [String] {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    return lines
}

/// Myers' shortest edit script.
func _editScript(_ a: [String], _ b: [String]) -> [_Edit] {
    let n = a.count, m = b.count
    let maxD = n + m
    let offset = maxD
    var v = [Int](repeating: 0, count: 2 * maxD + 2)
    var trace: [[Int]] = []
    var found = false
    for d in 0...maxD {
        trace.append(v)
        var k = -d
        while k <= d {
            var x: Int
            if k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]) {
                x = v[offset + k + 1]
            } else {
                x = v[offset + k - 1] + 1
            }
            var y = x - k
            while x < n, y < m, a[x] == b[y] { x += 1; y += 1 }
            v[offset + k] = x
            if x >= n && y >= m { found = true; break }
            k += 2
        }
        if found { break }
    }
    // Walk back through the trace.
    var edits: [_Edit] = []
    var x = n, y = m
    for d in stride(from: trace.count - 1, through: 0, by: -1) {
        let v = trace[d]
        let k = x - y
        let previousK: Int
        if k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]) { previousK = k + 1 } else { previousK = k - 1 }
        let previousX = v[offset + previousK]
        let previousY = previousX - previousK
        while x > previousX, y > previousY {
            x -= 1; y -= 1
            edits.append(_Edit(kind: .same, line: a[x], oldIndex: x, newIndex: y))
        }
        if d > 0 {
            if x == previousX {
                y -= 1
                edits.append(_Edit(kind: .insert, line: b[y], oldIndex: x, newIndex: y))
            } else {
                x -= 1
                edits.append(_Edit(kind: .delete, line: a[x], oldIndex: x, newIndex: y))
            }
        }
    }
    return edits.reversed()
}
