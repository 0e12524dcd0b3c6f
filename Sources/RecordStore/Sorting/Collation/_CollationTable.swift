import Foundation
import PredicateFormat
import Records
import TableDiff

/// The weights of one letter (or other unit of text) in a collation key.
struct _CollationWeights: Sendable {
    /// The first weight, and a second for a letter that sorts as two (`ß` as `SS`; 0 for none).
    var first: UInt32
    var second: UInt32 = 0
    /// The section the unit files a string under when it comes first; -1 for
    /// units that are skipped (spaces, punctuation).
    var section: Int32

    /// Weight ranges: every unit of a kind weighs less than every unit of the next.
    static let space: UInt32 = 1
    static let punctuation: UInt32 = 0x10
    static let symbol: UInt32 = 0x20_0000
    static let digit: UInt32 = 0x40_0000
    static let letter: UInt32 = 0x50_0000
    static let other: UInt32 = 0x60_0000
}

/// One locale's alphabet, ready to file and order strings: its letters in
/// order, which of them are section titles, and the letters that file as
/// others (`Æ` as `AE`, or in Swedish as `Ä`).
@usableFromInline
final class _CollationTable: Sendable {
    let identifier: String
    /// The section titles, `#` last.
    let titles: [String]
    /// Letters by scalar (both cases, decomposed: `A`, `a`, `И`), and letters
    /// written with a mark (`Å` as `A` + ring above) by base and mark.
    private let letters: [UInt32: _CollationWeights]
    private let composed: [UInt64: _CollationWeights]
    /// Every ASCII scalar's weights.
    private let ascii: [_CollationWeights]

    /// - Parameters:
    ///   - alphabet: the letters in order, separated by spaces; a letter in
    ///     parentheses sorts in its place but is not a section title (its
    ///     strings go into the section of the title before it).
    ///   - equivalents: letters that sort and file as a string of the alphabet's letters.
    init(identifier: String, alphabet: String, equivalents: [(String, String)]) {
        self.identifier = identifier
        var titles: [String] = []
        var ranks: [String: (rank: Int, section: Int)] = [:]
        for (rank, word) in alphabet.split(separator: " ").enumerated() {
            let isTitle = !word.hasPrefix("(")
            let letter = word.trimmingCharacters(in: CharacterSet(charactersIn: "()"))
            if isTitle { titles.append(letter) }
            ranks[letter] = (rank, max(0, titles.count - 1))
        }
        titles.append("#")
        self.titles = titles

        var letters: [UInt32: _CollationWeights] = [:]
        var composed: [UInt64: _CollationWeights] = [:]
        /// Files both cases of `letter` (as written, decomposed) under `weights`.
        func add(_ letter: String, _ weights: _CollationWeights) {
            for form in [letter.uppercased(), letter.lowercased(), letter] {
                let scalars = Array(form.decomposedStringWithCanonicalMapping.unicodeScalars)
                if scalars.count == 1 {
                    letters[scalars[0].value] = weights
                } else if scalars.count == 2 && Self.isMark(scalars[1]) {
                    composed[UInt64(scalars[0].value) << 32 | UInt64(scalars[1].value)] = weights
                }
            }
        }
        for (letter, place) in ranks {
            add(letter, _CollationWeights(first: _CollationWeights.letter + UInt32(place.rank), section: Int32(place.section)))
        }
        for (letter, sortsAs) in equivalents {
            let places = sortsAs.map { ranks[String($0)] }
            guard let first = places.first ?? nil else { continue }
            let second = places.count > 1 ? places[1].map { _CollationWeights.letter + UInt32($0.rank) } ?? 0 : 0
            add(letter, _CollationWeights(first: _CollationWeights.letter + UInt32(first.rank), second: second, section: Int32(first.section)))
        }
        self.letters = letters
        self.composed = composed
        let hash = Int32(titles.count - 1)
        ascii = (0..<128).map { value in
            let scalar = Unicode.Scalar(UInt8(value))
            return letters[scalar.value] ?? Self.weights(ofOther: scalar, hash: hash)
        }
    }

    /// The weights of a unit that is not one of the alphabet's letters.
    private static func weights(ofOther scalar: Unicode.Scalar, hash: Int32) -> _CollationWeights {
        let properties = scalar.properties
        if properties.isWhitespace { return _CollationWeights(first: _CollationWeights.space, section: -1) }
        switch properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
            .initialPunctuation, .finalPunctuation, .otherPunctuation,
            .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator, .spaceSeparator:
            return _CollationWeights(first: _CollationWeights.punctuation + scalar.value, section: -1)
        case .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            return _CollationWeights(first: _CollationWeights.symbol + scalar.value, section: hash)
        case .decimalNumber:
            if let value = properties.numericValue, value >= 0, value < 10 {
                return _CollationWeights(first: _CollationWeights.digit + UInt32(value), section: hash)
            }
            return _CollationWeights(first: _CollationWeights.other + scalar.value, section: hash)
        default:
            // Letters of other scripts, other numbers: by their lowercase scalar.
            var value = scalar.value
            if properties.changesWhenLowercased, let lower = properties.lowercaseMapping.unicodeScalars.first { value = lower.value }
            return _CollationWeights(first: _CollationWeights.other + value, section: hash)
        }
    }

    @inline(__always)
    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        // Nothing below U+0300 is a mark; U+0300–U+036F all are (the combining diacritical marks).
        if scalar.value < 0x300 { return false }
        if scalar.value < 0x370 { return true }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// The section of a string: that of its first unit that is not a space or
    /// punctuation; `#` (the last) for none.
    func section(of string: String) -> Int {
        let hash = titles.count - 1
        var section = hash
        forEachUnit(of: string) { weights in
            guard weights.section >= 0 else { return true }
            section = Int(weights.section)
            return false
        }
        return section
    }

    /// The key of a string: its section, then its units' weights.
    @usableFromInline
    func key(of string: String) -> [UInt32] {
        var key: [UInt32] = [UInt32(titles.count - 1)]
        key.reserveCapacity(string.utf8.count + 1)
        var sectionFound = false
        forEachUnit(of: string) { weights in
            if !sectionFound && weights.section >= 0 {
                key[0] = UInt32(weights.section)
                sectionFound = true
            }
            key.append(weights.first)
            if weights.second != 0 { key.append(weights.second) }
            return true
        }
        return key
    }

    /// Calls `body` with the weights of each unit of the string — a letter
    /// with its marks, or any other scalar — until it returns false.
    @inline(__always)
    private func forEachUnit(of string: String, _ body: (_CollationWeights) -> Bool) {
        var isASCII = true
        for byte in string.utf8 where byte >= 0x80 {
            isASCII = false
            break
        }
        if isASCII {
            for byte in string.utf8 where !body(ascii[Int(byte)]) { return }
            return
        }
        let hash = Int32(titles.count - 1)
        let scalars = Array(string.decomposedStringWithCanonicalMapping.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let scalar = scalars[i]
            i += 1
            var end = i
            while end < scalars.count && Self.isMark(scalars[end]) { end += 1 }
            if Self.isMark(scalar) { continue }   // a mark with nothing to mark: folded away
            var weights: _CollationWeights?
            for mark in scalars[i..<end] {
                weights = composed[UInt64(scalar.value) << 32 | UInt64(mark.value)]
                if weights != nil { break }
            }
            i = end
            let unit = weights ?? letters[scalar.value] ?? (scalar.isASCII ? ascii[Int(scalar.value)] : Self.weights(ofOther: scalar, hash: hash))
            if !body(unit) { return }
        }
    }

    // MARK: The tables

    static let latin = "A B C D E F G H I J K L M N O P Q R S T U V W X Y Z"
    /// Letters with no decomposition that file as Latin letters everywhere.
    static let latinEquivalents: [(String, String)] = [
        ("ß", "SS"), ("ẞ", "SS"), ("Æ", "AE"), ("Œ", "OE"), ("Ø", "O"), ("Ł", "L"), ("Đ", "D"), ("Ð", "D"),
        ("Þ", "TH"), ("Ħ", "H"), ("Ŧ", "T"), ("ı", "I"), ("ſ", "S"), ("Ŋ", "N"), ("ƒ", "F"),
    ]

    static let english = _CollationTable(identifier: "en", alphabet: latin, equivalents: latinEquivalents)
    static let german = _CollationTable(identifier: "de", alphabet: latin, equivalents: latinEquivalents)
    static let spanish = _CollationTable(
        identifier: "es", alphabet: latin.replacingOccurrences(of: "N O", with: "N Ñ O"), equivalents: latinEquivalents)
    static let swedish = _CollationTable(
        identifier: "sv", alphabet: latin + " Å Ä Ö",
        equivalents: latinEquivalents + [("Æ", "Ä"), ("Ø", "Ö"), ("Ü", "Y")])
    static let danish = _CollationTable(
        identifier: "da", alphabet: latin + " Æ Ø Å",
        equivalents: latinEquivalents.filter { $0.0 != "Æ" && $0.0 != "Ø" } + [("Ä", "Æ"), ("Ö", "Ø"), ("Ü", "Y")])
    static let russian = _CollationTable(
        identifier: "ru",
        alphabet: "А Б В Г Д Е Ж З И Й К Л М Н О П Р С Т У Ф Х Ц Ч Ш Щ (Ъ) Ы (Ь) Э Ю Я " + latin,
        equivalents: latinEquivalents)
    static let greek = _CollationTable(
        identifier: "el",
        alphabet: "Α Β Γ Δ Ε Ζ Η Θ Ι Κ Λ Μ Ν Ξ Ο Π Ρ Σ Τ Υ Φ Χ Ψ Ω " + latin,
        equivalents: latinEquivalents + [("ς", "Σ")])

    /// The table of a language code (`de`), English's for one without.
    static func table(forLanguage language: String) -> _CollationTable {
        switch language {
        case "de": german
        case "es": spanish
        case "sv", "fi": swedish
        case "da", "nb", "nn", "no": danish
        case "ru": russian
        case "el": greek
        default: english
        }
    }
}
