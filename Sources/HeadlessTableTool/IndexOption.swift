import Foundation
import HeadlessTable

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

    /// Takes `--index KEY` and `--locale L` from the command line; nil without
    /// `--index KEY`. A bare `--index` (the last argument, or before another
    /// option) is left where it is for `render`, whose `--index` alone shows the
    /// sections' index titles; elsewhere it is refused.
    static func parse(_ arguments: inout ArgumentList, bareIndexIsAFlag: Bool) throws -> IndexOption? {
        let key = try arguments.optionWithValue("--index")
        let locale = try arguments.option("--locale")
        if key == nil && !bareIndexIsAFlag && arguments.flag("--index") {
            throw CommandError.usage("--index needs a KEY, as in --index name (sections by the index titles of name)")
        }
        guard let key else {
            if locale != nil { throw CommandError.usage("--locale goes with --index KEY: it chooses the index's alphabet") }
            return nil
        }
        if key.isEmpty { throw CommandError.usage("--index needs a KEY, not an empty one") }
        if let locale, locale.isEmpty || !locale.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) {
            throw CommandError.usage("--locale takes a locale identifier, as in --locale de or --locale sv_SE, not '\(locale)'")
        }
        return IndexOption(key: key, collation: TableIndexCollation(localeIdentifier: locale ?? "en"))
    }

    /// The sort keys of a fetch: the collation of KEY first, then `others`.
    func sortKeys(then others: [SortKey]) -> [SortKey] { [SortKey(key, collation: collation)] + others }

    /// How `query` names the sections: `name's index (de)`.
    var label: String { "\(key)'s index (\(collation.tableIdentifier))" }
}
