// Exact comparisons of doubles with integers, shared by sort keys and predicates.

/// Compares a double with an integer exactly.
package func _compare(_ x: Double, _ y: Int) -> Int {
    if x.isNaN { return -1 }
    // -Int.min (2^63, or 2^31 where Int has 32 bits) is above every Int;
    // Int.min is exact as a double.
    if x >= -Double(Int.min) { return 1 }
    if x < Double(Int.min) { return -1 }
    let whole = x.rounded(.down)
    let i = Int(whole)
    if i != y { return i < y ? -1 : 1 }
    return x > whole ? 1 : 0
}

/// -1, 0 or 1: `x` against `y` exactly (NaN below every number, as above).
package func _compare(_ x: Double, _ y: UInt64) -> Int {
    if x.isNaN || x < 0 { return -1 }
    // 2^64 is above every UInt64.
    if x >= 18_446_744_073_709_551_616.0 { return 1 }
    let whole = x.rounded(.down)
    let u = UInt64(whole)
    if u != y { return u < y ? -1 : 1 }
    return x > whole ? 1 : 0
}
