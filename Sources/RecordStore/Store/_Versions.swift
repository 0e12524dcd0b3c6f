/// Every record's version, by position: one value shared by all (the records
/// a store was loaded with, saved at once) and the positions whose version
/// differs from it, until those are an eighth of the records — then an array.
/// Loaded records cost nothing each; a save costs its records.
@usableFromInline
struct _Versions {
    @usableFromInline var shared: Int64 = 0
    @usableFromInline var sharedCount = 0
    /// The versions other than `shared`, by position (while `values` is nil).
    @usableFromInline var others: [Int: Int64] = [:]
    /// Every version, once they are an array.
    @usableFromInline var values: [Int64]? = []

    @inlinable init() {}

    /// `count` records of one version.
    @inlinable
    init(repeating version: Int64, count: Int) {
        shared = version
        sharedCount = count
        values = nil
    }

    @inlinable var count: Int { values?.count ?? sharedCount }

    @inlinable
    subscript(k: Int) -> Int64 {
        get {
            if let values { return values[k] }
            precondition(k >= 0 && k < sharedCount, "version \(k) of \(sharedCount)")
            return others[k] ?? shared
        }
        set {
            if values != nil {
                values?[k] = newValue
                return
            }
            precondition(k >= 0 && k < sharedCount, "version \(k) of \(sharedCount)")
            others[k] = newValue == shared ? nil : newValue
            spillIfMany()
        }
    }

    @inlinable
    mutating func append(_ version: Int64) {
        if values != nil {
            values?.append(version)
            return
        }
        if version != shared { others[sharedCount] = version }
        sharedCount += 1
        spillIfMany()
    }

    @inlinable
    mutating func removeLast() {
        if values != nil {
            values?.removeLast()
            return
        }
        precondition(sharedCount > 0, "no version to remove")
        sharedCount -= 1
        others[sharedCount] = nil
    }

    @inlinable
    mutating func reserveCapacity(_ n: Int) { values?.reserveCapacity(n) }

    /// Becomes an array when the differing versions are many (O(*n*) once
    /// per *n* / 8 of them).
    @inlinable
    mutating func spillIfMany() {
        guard values == nil, others.count > 64, others.count > sharedCount / 8 else { return }
        var all = Array(repeating: shared, count: sharedCount)
        for (k, version) in others { all[k] = version }
        values = all
        others = [:]
    }
}
