/// The plain order of strings: the Unicode scalars of their NFC forms,
/// lexicographically (UTF-8 bytes order as their scalars do) — the order
/// `String`'s `<` documents, with canonically equivalent strings equal, as
/// `==` has them.
///
/// Not `<` itself: on this toolchain its fast paths answer wrongly for some
/// strings with combining marks — `"Ω" < "Ω\u{301}"` although `"Ω\u{301}"` is
/// `"Ώ"` (U+038F), which is below `"Ω"` (U+03A9), and `"üa"` and `"u\u{308}"`
/// neither `<` nor `>` nor `==` — and a sort or a binary search needs a total
/// order. Foundation's `precomposedStringWithCanonicalMapping` on Linux
/// leaves a Hangul syllable and a following final jamo apart, so the
/// normalizing is the standard library's, the one `==` and hashing use.
///
/// Most comparisons are decided by the bytes: when the first difference is
/// between scalars below U+0300, each followed by another such scalar or the
/// end, normalization leaves both where they are. Only otherwise are the
/// strings normalized, from the last place before the difference that
/// normalization can not reach across.
///
/// - Returns: -1, 0 or 1.
@usableFromInline
package func _comparePlain(_ a: String, _ b: String) -> Int {
    let fast = a.utf8.withContiguousStorageIfAvailable { x in
        b.utf8.withContiguousStorageIfAvailable { y in _comparePlain(x, y) }
    }
    if let fast, let order = fast { return order }
    return Array(a.utf8).withUnsafeBufferPointer { x in Array(b.utf8).withUnsafeBufferPointer { y in _comparePlain(x, y) } }
}

/// Whether a scalar below U+0300 starts at `i` in UTF-8 `text`, or the text
/// ends there. Every such scalar is a starter that normalization leaves as it
/// is and that nothing before it composes with, so nothing moves across it.
@inline(__always)
private func _isStableBoundary(_ text: UnsafeBufferPointer<UInt8>, _ i: Int) -> Bool {
    guard i < text.count else { return true }
    let byte = text[i]
    return byte < 0x80 || (0xC0..<0xCC).contains(byte)
}

private func _comparePlain(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
    let common = min(x.count, y.count)
    var p = 0
    while p < common && x[p] == y[p] { p += 1 }
    // The start of the scalar holding the first difference: the same in both,
    // as the bytes before it agree.
    var s = p
    while s > 0 && s < x.count && x[s] & 0xC0 == 0x80 { s -= 1 }
    /// Whether the scalar at `s` stays as it is in the NFC form: a stable
    /// boundary begins it and another follows it.
    func settled(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard s < text.count else { return true }
        guard _isStableBoundary(text, s) else { return false }
        var end = s + 1
        while end < text.count && text[end] & 0xC0 == 0x80 { end += 1 }
        return _isStableBoundary(text, end)
    }
    if settled(x) && settled(y) {
        if p == common { return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1) }
        return x[p] < y[p] ? -1 : 1
    }
    var q = s
    while q > 0 && !(_isStableBoundary(x, q) && _isStableBoundary(y, q)) { q -= 1 }
    let u = _nfcBytes(UnsafeBufferPointer(rebasing: x[q...]))
    let v = _nfcBytes(UnsafeBufferPointer(rebasing: y[q...]))
    if u == v { return 0 }
    return u.lexicographicallyPrecedes(v) ? -1 : 1
}

private func _nfcBytes(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.count)
    String(decoding: text, as: UTF8.self)._withNFCCodeUnits { bytes.append($0) }
    return bytes
}
