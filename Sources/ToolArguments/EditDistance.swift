/// Edit distance, for "did you mean" suggestions.
public enum EditDistance {
    /// The edits from `a` to `b` — insert, delete or replace a character, or
    /// swap two neighbours (optimal string alignment) — at most `limit + 1`
    /// (the words compared are short: both are cut to 64 characters first).
    public static func distance(_ a: String, _ b: String, limit: Int = 3) -> Int {
        let a = Array(a.prefix(64)), b = Array(b.prefix(64))
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty || b.isEmpty { return min(limit + 1, max(a.count, b.count)) }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var best = i
            for j in 1...b.count {
                var d = min(previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1), previous[j] + 1, current[j - 1] + 1)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, before[j - 2] + 1) }
                current[j] = d
                best = min(best, d)
            }
            if best > limit { return limit + 1 }
            (before, previous, current) = (previous, current, before)
        }
        return min(limit + 1, previous[b.count])
    }

    /// The candidate closest to `word`, if one is within a third of its
    /// length (at least 1, at most 3 edits), or starts with it; nil otherwise.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        guard !word.isEmpty else { return nil }
        let limit = min(3, max(1, word.count / 3))
        let scored = candidates.map { ($0, distance(word, $0, limit: limit)) }.filter { $0.1 <= limit }
        if let best = scored.min(by: { $0.1 < $1.1 }) { return best.0 }
        if word.count >= 3 { return candidates.first { $0.hasPrefix(word) } }
        return nil
    }
}
