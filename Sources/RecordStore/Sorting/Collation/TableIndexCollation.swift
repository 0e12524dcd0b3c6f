import Foundation
import PredicateFormat
import Records
import TableDiff

/// The section index of a locale: its section titles, the section a string
/// belongs in, and the order of strings within a section — UIKit's
/// `UILocalizedIndexedCollation`, the same on every machine.
///
/// ```swift
/// let collation = TableIndexCollation(localeIdentifier: "de")
/// collation.sectionTitles                       // ["A", "B", …, "Z", "#"]
/// collation.sectionTitles[collation.section(for: "Ärger")]   // "A"
/// collation.sortedArray(from: ["Zoe", "Ärger", "Abel"]) { $0 }   // Abel, Ärger, Zoe
/// ```
///
/// The alphabets are tables shipped with the package (no dependence on the
/// host's ICU): English and every language without a table of its own
/// `A…Z #`; German `A…Z #` (`Ä Ö Ü` filed under `A O U`, `ß` as `SS`);
/// Spanish with `Ñ` after `N`; Swedish and Finnish `A…Z Å Ä Ö #`; Danish and
/// Norwegian `A…Z Æ Ø Å #`; Russian `А…Я` (with `Й`; `Ё` under `Е`) then
/// `A…Z` and `#`; Greek `Α…Ω` then `A…Z` and `#`.
///
/// **The section of a string** is that of its first letter, leading spaces
/// and punctuation skipped: diacritics the table does not list as letters of
/// their own are folded away by Unicode canonical decomposition (`É` is filed
/// under `E`), case is ignored. Everything else — digits, symbols and emoji,
/// letters of scripts the table does not list (CJK, Arabic, Hebrew, …), the
/// empty string — goes into `#`, always the last section.
///
/// **The order within a section** (``compare(_:_:)``, ``sortedArray(from:by:)``)
/// agrees with the sections: strings order by section first, then letter by
/// letter in the table's order (spaces, then punctuation, symbols, digits,
/// the table's letters, other letters), case and folded diacritics ignored,
/// and finally by their Unicode scalars (``SortKey/StringComparison/plain``),
/// so the order is total: `Muller` before `Müller`, `Anna` before `anna`.
public struct TableIndexCollation: Hashable, Sendable, CustomStringConvertible {
    /// The table's identifier: `en` (English, and every language without a
    /// table of its own), `de`, `es`, `sv` (Swedish and Finnish), `da` (Danish
    /// and Norwegian), `ru` or `el`.
    public var tableIdentifier: String { table.identifier }
    @usableFromInline let table: _CollationTable

    /// The collation of a locale: the table of its language (see the type's
    /// overview); English's for a language without one.
    public init(locale: Locale) {
        self.init(localeIdentifier: locale.identifier)
    }

    /// The collation of a locale identifier such as `de`, `de_AT`, `sv-SE` or
    /// `ru_RU`: the table of its language; English's for a language without
    /// one (or an identifier that names none).
    public init(localeIdentifier: String) {
        let language = localeIdentifier.prefix { $0 != "_" && $0 != "-" && $0 != "@" }.lowercased()
        table = _CollationTable.table(forLanguage: language)
    }

    /// English's: `A…Z #`.
    public static let english = TableIndexCollation(localeIdentifier: "en")

    /// The titles of the sections, in order; `#` is always the last.
    public var sectionTitles: [String] { table.titles }

    /// The titles of the section index beside a table: here the section titles.
    public var sectionIndexTitles: [String] { table.titles }

    /// The section a string belongs in: an index into ``sectionTitles``.
    ///
    /// - Complexity: O(1) for a string that begins with a letter; O(*n*) for
    ///   *n* leading spaces and punctuation.
    public func section(for string: String) -> Int { table.section(of: string) }

    /// The title of the section a string belongs in.
    public func sectionTitle(for string: String) -> String { table.titles[table.section(of: string)] }

    /// The section an index title jumps to — with this collation's sections
    /// the title's position in ``sectionTitles``; nil for a title that is not
    /// one of ``sectionIndexTitles``.
    public func section(forSectionIndexTitle title: String) -> Int? { table.titles.firstIndex(of: title) }

    /// The section the index title at a position jumps to (UIKit's
    /// `section(forSectionIndexTitleAt:)`); nil for a position outside
    /// ``sectionIndexTitles``.
    public func section(forSectionIndexTitleAt index: Int) -> Int? { table.titles.indices.contains(index) ? index : nil }

    /// How two strings order under the collation (see the type's overview):
    /// by section, then letter by letter, then by their Unicode scalars.
    public func compare(_ a: String, _ b: String) -> ComparisonResult {
        let c = _compareKeys(table.key(of: a), table.key(of: b))
        switch c != 0 ? c : _comparePlain(a, b) {
        case ..<0: return .orderedAscending
        case 0: return .orderedSame
        default: return .orderedDescending
        }
    }

    /// The elements sorted by the collation of their strings (UIKit's
    /// `sortedArray(from:collationStringSelector:)`); elements whose strings
    /// are the same keep their order.
    ///
    /// - Complexity: O(*n* log *n*) comparisons, each string's key made once.
    public func sortedArray<T>(from array: [T], by string: (T) throws -> String) rethrows -> [T] {
        let strings = try array.map(string)
        let keys = strings.map(table.key(of:))
        let order = array.indices.sorted { i, j in
            let c = _compareKeys(keys[i], keys[j])
            if c != 0 { return c < 0 }
            let p = _comparePlain(strings[i], strings[j])
            return p != 0 ? p < 0 : i < j
        }
        return order.map { array[$0] }
    }

    /// The strings sorted by the collation.
    public func sortedArray(from strings: [String]) -> [String] { sortedArray(from: strings) { $0 } }

    /// The collation's key of a string: its section, then a weight per letter
    /// (see ``compare(_:_:)``). Strings whose keys differ order as their keys.
    @usableFromInline
    func key(of string: String) -> [UInt32] { table.key(of: string) }

    /// `TableIndexCollation(de)`.
    public var description: String { "TableIndexCollation(\(tableIdentifier))" }

    /// Whether two collations use the same table (`fr` and `en` do: English's).
    public static func == (a: TableIndexCollation, b: TableIndexCollation) -> Bool { a.table.identifier == b.table.identifier }
    /// Hashes the table's identifier.
    public func hash(into hasher: inout Hasher) { hasher.combine(table.identifier) }
}
