import RecordStore
import Records
import TableDiff
/// The last few batches of records a controller with a batch size read on
/// demand, by batch number: reading a batch not held reads it whole and
/// drops the batch read longest ago when more than `capacity` are held
/// (first in, first out).
///
/// ```swift
/// var cache = _BatchCache<String>(capacity: 2)
/// cache.batch(0) { ["a", "b"] }   // read
/// cache.batch(0) { ["x"] }        // held: ["a", "b"], not read
/// ```
package struct _BatchCache<Element> {
    /// The most batches held.
    package let capacity: Int
    /// The batches held, by number.
    private var batches: [Int: [Element]] = [:]
    /// The numbers of the batches held, read longest ago first.
    private var order: [Int] = []

    /// An empty cache that holds at most `capacity` (at least 1) batches.
    package init(capacity: Int) {
        self.capacity = Swift.max(1, capacity)
    }

    /// The number of batches held.
    package var count: Int { order.count }

    /// Whether batch `number` is held.
    package func holds(_ number: Int) -> Bool { batches[number] != nil }

    /// Batch `number`: the one held, or `read()`'s, then held (dropping the
    /// batch read longest ago when there are more than `capacity`).
    ///
    /// - Complexity: O(1) for a batch held; O(`capacity`) plus `read` otherwise.
    package mutating func batch(_ number: Int, reading read: () -> [Element]) -> [Element] {
        if let held = batches[number] { return held }
        let batch = read()
        batches[number] = batch
        order.append(number)
        if order.count > capacity { batches[order.removeFirst()] = nil }
        _checkInvariants()
        return batch
    }

    /// Drops every batch (the records changed).
    package mutating func removeAll() {
        batches.removeAll()
        order.removeAll()
    }

    /// Traps when the cache's parts disagree: more batches than `capacity`, a
    /// batch number listed twice, or the list against the batches held
    /// (debug builds, or `-DHEADLESS_TABLE_INTERNAL_CHECKS`; nothing otherwise).
    ///
    /// - Complexity: O(`capacity`) in the builds that check; O(1) otherwise.
    package func _checkInvariants() {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        precondition(order.count <= capacity, "\(order.count) batches held, capacity \(capacity)")
        precondition(Set(order).count == order.count, "a batch listed twice: \(order)")
        precondition(order.count == batches.count && order.allSatisfy { batches[$0] != nil }, "the list \(order) against the batches \(batches.keys.sorted())")
        #endif
    }
}
