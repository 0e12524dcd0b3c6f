/// A Fenwick tree (binary indexed tree): prefix sums of a list of numbers,
/// with one number changed, a prefix summed, or the element holding a running
/// total found, each in O(log *n*). Shared by the layers: the fetched
/// order counts its chunks with one, the table's layout sums heights with them.
@usableFromInline
package struct _Fenwick<Value: Numeric & Comparable> {
    /// 1-based: `tree[i]` sums the `i & -i` elements ending at element `i - 1`.
    @usableFromInline var tree: [Value]

    @inlinable
    package init(_ values: [Value]) {
        tree = [.zero] + values
        for i in 1..<tree.count {
            let parent = i + (i & -i)
            if parent < tree.count { tree[parent] += tree[i] }
        }
    }

    @inlinable
    package var count: Int { tree.count - 1 }

    /// Adds `delta` to element `i`.
    @inlinable
    package mutating func add(_ delta: Value, at i: Int) {
        var x = i + 1
        while x < tree.count {
            tree[x] += delta
            x += x & -x
        }
    }

    /// The sum of the elements before `i`.
    @inlinable
    package func prefix(_ i: Int) -> Value {
        var sum = Value.zero, x = Swift.min(i, count)
        while x > 0 {
            sum += tree[x]
            x &= x - 1
        }
        return sum
    }

    @inlinable
    package var total: Value { prefix(count) }

    /// The element whose span holds `y` — the largest `k` with
    /// `prefix(k) <= y` — and `y` less that prefix; `count` when `y` is at or
    /// past the total. (Elements are not negative.)
    @inlinable
    package func find(_ y: Value) -> (index: Int, remainder: Value) {
        var k = 0, remaining = y
        var step = 1
        while step * 2 < tree.count { step *= 2 }
        while step > 0 {
            if k + step < tree.count && tree[k + step] <= remaining {
                k += step
                remaining -= tree[k]
            }
            step /= 2
        }
        return (k, remaining)
    }
}

extension _Fenwick: Sendable where Value: Sendable {}
