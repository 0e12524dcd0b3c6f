/// An identifier whose `==` is the equality of its bytes, and nothing else —
/// a `UUID`, a struct of fixed-width integers.
///
/// Snapshots hash such identifiers as their bytes, with a seeded mix several
/// times faster than `hashValue`. Conform only a type whose size is a multiple
/// of 8 bytes, with no padding, no references and no floating-point values
/// (`-0.0 == 0.0`, and NaN is not equal to itself): for any other type, equal
/// values could hash differently. `UUID` conforms (in FetchedResults).
///
/// Not a stable API: the underscore marks a performance hook, not a promise.
public protocol _BitwiseHashable: Hashable {}
