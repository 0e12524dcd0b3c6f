/// A Fenwick tree of prefix maxima: raise one element's weight, or find the
/// heaviest element before an index (with the payload it was raised with),
/// each in O(log *n*). The diff's longest increasing subsequence of runs uses
/// one; `_Fenwick` is its sibling for prefix sums.
///
/// Weights only rise (`increase(_:to:payload:)` keeps the larger), which is what
/// makes prefix maxima work in a Fenwick tree. The storage is kept between
/// uses: `reset(count:)` empties it without giving its memory back.
@usableFromInline
package struct _FenwickMaximum {
    /// 1-based: `weights[i]` is the largest weight among the `i & -i`
    /// elements ending at element `i - 1`, and `payloads[i]` its payload.
    @usableFromInline var weights: [Int] = []
    @usableFromInline var payloads: [Int32] = []

    @inlinable
    package init() {}

    /// The number of elements.
    @inlinable
    package var count: Int { Swift.max(0, weights.count - 1) }

    /// `count` elements of weight 0 and payload -1, in the memory already held.
    @inlinable
    package mutating func reset(count: Int) {
        weights.removeAll(keepingCapacity: true)
        weights.append(contentsOf: repeatElement(0, count: count + 1))
        payloads.removeAll(keepingCapacity: true)
        payloads.append(contentsOf: repeatElement(-1, count: count + 1))
    }

    /// The heaviest of the elements before `i` (weight 0 and payload -1 when
    /// none weighs more than 0); the first found wins a tie.
    @inlinable
    package func maximum(before i: Int) -> (weight: Int, payload: Int32) {
        var weight = 0, payload: Int32 = -1
        var x = Swift.min(i, count)
        while x > 0 {
            if weights[x] > weight { weight = weights[x]; payload = payloads[x] }
            x &= x - 1
        }
        return (weight, payload)
    }

    /// Increases element `i` to `weight` (carrying `payload`) where it is heavier
    /// than what is there.
    @inlinable
    package mutating func increase(_ i: Int, to weight: Int, payload: Int32) {
        var x = i + 1
        let end = weights.count
        while x < end {
            if weight > weights[x] { weights[x] = weight; payloads[x] = payload }
            x += x & -x
        }
    }
}
