import Foundation
import InternalTableUtilities
import Records

/// How strings compare under a comparison's options. `[n]` supersedes `[c]`
/// and `[d]`; `[l]` has no effect.
struct _TextOptions: Hashable {
    var caseInsensitive: Bool
    var diacriticInsensitive: Bool

    init(_ options: FormatPredicate.Options) {
        let exact = options.contains(.normalized)
        caseInsensitive = !exact && options.contains(.caseInsensitive)
        diacriticInsensitive = !exact && options.contains(.diacriticInsensitive)
    }

    var folds: Bool { caseInsensitive || diacriticInsensitive }
}

/// Strings made comparable under options, as UTF-8 bytes: canonically
/// decomposed (NFD, marks in canonical order), with `[c]` case-folded
/// (lower-case of the upper-case of the lower-case: `ß` → `ss`, `ς` → `σ`,
/// `İ` → `i̇`), with `[d]` stripped of non-spacing and enclosing marks
/// (`é` → `e`, `ö` → `o`; letters without a decomposition, `ø` `æ` `ł`, stay).
/// Canonically equivalent strings fold to the same bytes.
///
/// ASCII strings take a fast path (no allocation when searching). Other
/// scalars are folded once each and remembered.
enum _Text {
    /// The folded UTF-8 bytes of `s`.
    static func fold(_ s: String, _ o: _TextOptions) -> [UInt8] {
        if isASCII(s) {
            return o.caseInsensitive ? s.utf8.map(lowerASCII) : Array(s.utf8)
        }
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(s.unicodeScalars.count)
        for scalar in s.unicodeScalars {
            if scalar.isASCII {
                scalars.append(o.caseInsensitive ? Unicode.Scalar(lowerASCII(UInt8(scalar.value))) : scalar)
            } else {
                scalars += folded(scalar, o)
            }
        }
        if !o.diacriticInsensitive { orderMarks(&scalars) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(scalars.count + 8)
        for scalar in scalars { UTF8.encode(scalar) { bytes.append($0) } }
        return bytes
    }

    /// The folded string (for LIKE and ordering).
    static func foldedString(_ s: String, _ o: _TextOptions) -> String {
        String(decoding: fold(s, o), as: UTF8.self)
    }

    @inline(__always) static func lowerASCII(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b + 32 : b }

    static func isASCII(_ s: String) -> Bool {
        s.utf8.withContiguousStorageIfAvailable { bytes in !bytes.contains { $0 >= 0x80 } } ?? !s.utf8.contains { $0 >= 0x80 }
    }

    // MARK: Scalars

    /// Folded non-ASCII scalars, by scalar and options (two bits).
    private static let cache = _Lock<[UInt32: [Unicode.Scalar]]>([:])

    static func folded(_ scalar: Unicode.Scalar, _ o: _TextOptions) -> [Unicode.Scalar] {
        let key = scalar.value << 2 | (o.caseInsensitive ? 1 : 0) | (o.diacriticInsensitive ? 2 : 0)
        if let known = cache.withLock({ $0[key] }) { return known }
        let cased: [Unicode.Scalar] = o.caseInsensitive ? caseFold(scalar) : [scalar]
        var result: [Unicode.Scalar] = []
        for piece in cased {
            for part in decompose(piece) where !(o.diacriticInsensitive && isMark(part)) { result.append(part) }
        }
        cache.withLock { $0[key] = result }
        return result
    }

    static func caseFold(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        func lower(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] { scalars.flatMap { Array($0.properties.lowercaseMapping.unicodeScalars) } }
        func upper(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] { scalars.flatMap { Array($0.properties.uppercaseMapping.unicodeScalars) } }
        return lower(upper(lower([scalar])))
    }

    static func decompose(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        if scalar.isASCII { return [scalar] }
        return Array(String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars)
    }

    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark: true
        default: false
        }
    }

    /// Canonical ordering: each run of combining marks sorted, stably, by class.
    static func orderMarks(_ scalars: inout [Unicode.Scalar]) {
        var k = 0
        while k < scalars.count {
            guard scalars[k].properties.canonicalCombiningClass.rawValue != 0 else { k += 1; continue }
            var end = k
            while end < scalars.count && scalars[end].properties.canonicalCombiningClass.rawValue != 0 { end += 1 }
            if end - k > 1 {
                let run = scalars[k..<end].enumerated().sorted {
                    let (a, b) = ($0.element.properties.canonicalCombiningClass.rawValue, $1.element.properties.canonicalCombiningClass.rawValue)
                    return a != b ? a < b : $0.offset < $1.offset
                }.map(\.element)
                scalars.replaceSubrange(k..<end, with: run)
            }
            k = end
        }
    }

    // MARK: Searching

    /// Whether `needle` (folded) occurs in `haystack` (folded as it is read),
    /// where: anywhere, at the start, at the end, or as the whole. A match
    /// starts and ends between characters (grapheme clusters) of the folded
    /// haystack: `'각' CONTAINS '가'` and `'é' CONTAINS 'e'` are false.
    static func find(_ needle: [UInt8], in haystack: String, _ o: _TextOptions, _ where_: Place) -> Bool {
        // Every string begins with, ends with and contains "", but only an
        // empty one (after folding: `[d]` folds a lone accent away) is it.
        if needle.isEmpty { return where_ != .whole || haystack.isEmpty || fold(haystack, o).isEmpty }
        // ASCII: fold while comparing, no copy.
        if let result = haystack.utf8.withContiguousStorageIfAvailable({ bytes -> Bool? in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            return search(needle, in: bytes, o.caseInsensitive, where_, boundaries: nil)
        }), let result {
            return result
        }
        return find(needle, inFolded: fold(haystack, o), o, where_)
    }

    /// Whether `needle` occurs in an already folded haystack.
    static func find(_ needle: [UInt8], inFolded haystack: [UInt8], _ o: _TextOptions, _ where_: Place) -> Bool {
        if needle.isEmpty { return where_ != .whole || haystack.isEmpty }
        let boundaries = characterBoundaries(haystack)
        return haystack.withUnsafeBufferPointer { search(needle, in: $0, false, where_, boundaries: boundaries) }
    }

    enum Place { case anywhere, start, end, whole }

    /// For each UTF-8 offset of a folded string, whether a character starts
    /// (or the string ends) there; nil when every byte is a boundary (ASCII
    /// without CR LF).
    static func characterBoundaries(_ folded: [UInt8]) -> [Bool]? {
        if !folded.contains(where: { $0 >= 0x80 || $0 == 0x0D }) { return nil }
        var boundaries = [Bool](repeating: false, count: folded.count + 1)
        var offset = 0
        boundaries[0] = true
        for character in String(decoding: folded, as: UTF8.self) {
            offset += character.utf8.count
            if offset <= folded.count { boundaries[offset] = true }
        }
        return boundaries
    }

    static func search(_ needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, _ lowerHaystack: Bool, _ where_: Place, boundaries: [Bool]?) -> Bool {
        let (n, m) = (bytes.count, needle.count)
        guard m <= n else { return false }
        func matches(at i: Int) -> Bool {
            for k in 0..<m {
                let b = lowerHaystack ? lowerASCII(bytes[i + k]) : bytes[i + k]
                if b != needle[k] { return false }
            }
            if let boundaries { return boundaries[i] && boundaries[i + m] }
            // ASCII: CR LF is one character.
            if i > 0 && bytes[i - 1] == 0x0D && bytes[i] == 0x0A { return false }
            if i + m < n && bytes[i + m - 1] == 0x0D && bytes[i + m] == 0x0A { return false }
            return true
        }
        switch where_ {
        case .start: return matches(at: 0)
        case .end: return matches(at: n - m)
        case .whole: return m == n && matches(at: 0)
        case .anywhere:
            let first = needle[0]
            var i = 0
            while i <= n - m {
                let b = lowerHaystack ? lowerASCII(bytes[i]) : bytes[i]
                if b == first && matches(at: i) { return true }
                i += 1
            }
            return false
        }
    }

    /// -1, 0 or 1: folded strings in the order of their scalars.
    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}

/// A LIKE pattern: `*` any run of characters, `?` exactly one, every other
/// character itself (a backslash makes `*`, `?` or `\` literal). Characters
/// compare one by one under the options (so `ß` matches `ß` or `ẞ` with `[c]`,
/// never `ss`: a LIKE with options matches at least what it matches without).
/// O(n·m) at worst.
struct _LikePattern {
    enum Piece: Equatable { case star, one, character([UInt8]) }
    let pieces: [Piece]
    let options: _TextOptions

    init(_ pattern: String, _ options: _TextOptions) {
        self.options = options
        var pieces: [Piece] = []
        var escaped = false
        for c in pattern {
            if escaped {
                pieces.append(.character(_Text.fold(String(c), options)))
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == "*" {
                if pieces.last != .star { pieces.append(.star) }
            } else if c == "?" {
                pieces.append(.one)
            } else {
                pieces.append(.character(_Text.fold(String(c), options)))
            }
        }
        if escaped { pieces.append(.character(Array("\\".utf8))) }
        self.pieces = pieces
    }

    func matches(_ subject: String) -> Bool {
        let text = subject.map { _Text.fold(String($0), options) }
        var (s, p) = (0, 0)
        var star: (piece: Int, subject: Int)? = nil
        while s < text.count {
            if p < pieces.count {
                switch pieces[p] {
                case .one:
                    s += 1; p += 1; continue
                case .character(let c) where c == text[s]:
                    s += 1; p += 1; continue
                case .star:
                    star = (p, s)
                    p += 1
                    continue
                default:
                    break
                }
            }
            guard let last = star else { return false }
            star = (last.piece, last.subject + 1)
            p = last.piece + 1
            s = last.subject + 1
        }
        while p < pieces.count && pieces[p] == .star { p += 1 }
        return p == pieces.count
    }
}

/// Folding for a search that runs outside the predicate (the tool's browser
/// scans pre-folded bytes as you type) and must find what the predicate finds.
package enum _SearchFolding {
    /// `text` folded as `CONTAINS[cd]` folds both its sides, in UTF-8: a
    /// string contains a text under `[cd]` exactly when its folded bytes
    /// contain the text's folded bytes starting and ending between characters
    /// of the folded string (so containing the bytes is necessary, and
    /// sufficient where every scalar of the folded string is a character).
    package static func caseAndDiacriticInsensitive(_ text: String) -> [UInt8] {
        _Text.fold(text, _TextOptions([.caseInsensitive, .diacriticInsensitive]))
    }
}
