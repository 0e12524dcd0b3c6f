import Foundation
import HeadlessTable
import ToolArguments

/// `--index KEY [--locale L]`, shared by `query`, `render` and `browse`: the
/// sections are the locale's index sections of KEY (`A`…`Z`, `#`; German folds
/// umlauts into their letters, Swedish ends with `Å Ä Ö`, …), named by their
/// index titles, in index order, empty ones left out; the rows are sorted by
/// the collation within each (`--sort` keys, if any, break ties).
struct IndexOption {
    /// The key whose value files an object.
    var key: String
    /// The locale's collation (English's without `--locale`).
    var collation: TableIndexCollation

    /// `--index KEY` (for `render`, `--index [KEY]`: alone, it shows the
    /// sections' index titles) and `--locale L`.
    static func options(bareIndexIsAFlag: Bool) -> [OptionDeclaration] {
        [
            OptionDeclaration(
                "index", .text("KEY"),
                help: bareIndexIsAFlag
                    ? "sections by the locale's index of KEY (A…Z, #), shown beside the table; alone, shows --section-key's index titles"
                    : "sections by the locale's index of KEY (A…Z, #), as a contacts list",
                valueIsOptional: bareIndexIsAFlag),
            OptionDeclaration("locale", .text("L"), help: "the index's alphabet: de, sv, ru, el, … (English without it)", requires: "index"),
        ]
    }

    /// What `--index` files where, for the help of the commands that take it.
    static let discussion = """
        --index KEY: each object goes into the section of KEY's index title in the
        locale (English's A…Z # without --locale; German files Ä Ö Ü under A O U;
        Swedish ends with Å Ä Ö; Russian and Greek have their alphabets, then A…Z).
        Digits, other scripts and empty values go into #, last; empty sections are
        left out. Rows are sorted by the collation within a section (--sort keys
        break ties).
        """

    /// `--index KEY` and `--locale L` as given; nil without `--index KEY`.
    static func parse(_ parsed: ParsedArguments) throws -> IndexOption? {
        let locale = parsed.string("locale")
        guard let key = parsed.string("index") else {
            if locale != nil { throw CommandError.usage("--locale goes with --index KEY: it chooses the index's alphabet") }
            return nil
        }
        if key.isEmpty { throw CommandError.usage("--index needs a KEY, not an empty one") }
        if let locale, locale.isEmpty || !locale.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) {
            throw CommandError.usage("--locale takes a locale identifier, as in --locale de or --locale sv_SE, not '\(UsageError.excerpt(locale))'")
        }
        return IndexOption(key: key, collation: TableIndexCollation(localeIdentifier: locale ?? "en"))
    }

    /// The sort keys of a fetch: the collation of KEY first, then `others`.
    func sortKeys(then others: [SortKey]) -> [SortKey] { [SortKey(key, collation: collation)] + others }

    /// How `query` names the sections: `name's index (de)`.
    var label: String { "\(key)'s index (\(collation.tableIdentifier))" }
}
