import Foundation

extension Record where Self: Encodable {
    /// The keys whose values differ between two versions of a record — what
    /// a fetched results controller reports as an update's changed keys.
    ///
    /// The keys are those of ``recordKeys`` — the names predicates, sort keys
    /// and section keys use — whose values are not the same in every respect
    /// (kind, bits, bytes: `1` and `1.0`, or a string in two Unicode forms,
    /// differ). A record without a declared table (a `Codable` record read by
    /// encoding, a `DynamicObject`) compares its encoded fields (a dynamic
    /// object, its fields). When no declared key differs but the records do
    /// not encode the same, the encoded fields that differ are the keys (a
    /// property the table does not declare changed): the set is empty only
    /// when nothing the record encodes changed. Nil when that cannot be
    /// told: a record that fails to encode, or encodes as one value.
    ///
    /// - Complexity: O(*k*) value comparisons for *k* keys; encoding both
    ///   records when the table does not tell.
    package static func _changedKeys(from old: Self, to new: Self) -> Set<String>? {
        if let old = old as? DynamicObject, let new = new as? DynamicObject {
            return Self._differingFields(old.fields, new.fields)
        }
        let keys = recordKeys
        if let declared = keys.declaredKeys {
            var changed = Set<String>()
            for key in declared {
                let a = keys.value(of: old, forKey: key) ?? .null, b = keys.value(of: new, forKey: key) ?? .null
                if !_identical(a, b) { changed.insert(key) }
            }
            if !changed.isEmpty { return changed }
        }
        return _encodedDifference(old, new)
    }

    /// The encoded fields that differ; nil when a record fails to encode
    /// (no field can be named: "not known") or they differ as single values.
    private static func _encodedDifference(_ old: Self, _ new: Self) -> Set<String>? {
        let encoder = RecordValueEncoder()
        guard let a = try? encoder.encode(old), let b = try? encoder.encode(new) else { return nil }
        switch (a, b) {
        case let (.record(a), .record(b)): return _differingFields(a, b)
        default: return _identical(a, b) ? [] : nil
        }
    }

    /// The names of the fields one record has and the other has not, or has
    /// with another value.
    private static func _differingFields(_ a: DynamicRecord, _ b: DynamicRecord) -> Set<String> {
        var changed = Set<String>()
        for (key, value) in a.fields where !(b[key].map { _identical(value, $0) } ?? false) { changed.insert(key) }
        for key in b.keys where a[key] == nil { changed.insert(key) }
        return changed
    }
}
