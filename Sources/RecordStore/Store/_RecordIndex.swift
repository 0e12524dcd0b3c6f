import InternalTableUtilities
import Records

/// The store's index from identity to position: a table of hash slots
/// (`_HashSlots`) that holds no identities, only positions into the store's
/// records (whose identities it compares).
///
/// Each slot is 8 bytes: the low 32 bits of the identity's hash (where the
/// slot is, and a filter before comparing identities) and the position. At
/// most half the slots are used, so the table costs 16–32 bytes a record — a
/// `Dictionary` from identity to position costs its keys and values at up to
/// 4/3 over (75 bytes a record for a 24-byte identity).
@usableFromInline
struct _RecordIndex {
    @usableFromInline var slots = _HashSlots()

    @inlinable init() {}

    /// The number of identities.
    @inlinable var count: Int { slots.count }

    /// Room for `n` identities without growing.
    @inlinable
    mutating func reserveCapacity(_ n: Int) {
        slots.reserveCapacity(n)
    }

    /// The position of `id` in `records`, or nil.
    ///
    /// - Complexity: O(1) on average.
    @inlinable
    func position<R: Record>(of id: R.ID, in records: [R]) -> Int? {
        guard count > 0 else { return nil }
        return Self.withIdentityTest(id, in: records) { isIt in slots.value(_HashSlots.hash(id), where: isIt) }
    }

    /// Adds `id` at `position`, unless `records` hold it already: then
    /// returns its position, and nothing changes. (`records[position]` need
    /// not be there yet.)
    ///
    /// - Complexity: O(1) on average (amortized over growing).
    @inlinable
    mutating func insert<R: Record>(_ id: R.ID, at position: Int, in records: [R]) -> Int? {
        Self.withIdentityTest(id, in: records) { isIt in slots.insertIfAbsent(_HashSlots.hash(id), value: position, where: isIt) }
    }

    /// Removes `id`, which `records` hold; returns its position.
    ///
    /// - Complexity: O(1) on average.
    @inlinable
    mutating func remove<R: Record>(_ id: R.ID, in records: [R]) -> Int? {
        guard count > 0 else { return nil }
        return Self.withIdentityTest(id, in: records) { isIt in slots.remove(_HashSlots.hash(id), where: isIt) }
    }

    /// Calls `body` with a test of whether the record at a position of
    /// `records` has identity `id`.
    ///
    /// The test reads each record in place: in code not specialized for
    /// `R` (the store's, called with a type of the app's), reading `id`
    /// from `records[k]` first copies the whole record — retaining each of
    /// its strings, then releasing them — on every probe. Through a
    /// pointer, `inout`, the record is read where it is (and never written).
    @inlinable
    static func withIdentityTest<R: Record, T>(_ id: R.ID, in records: [R], _ body: (_ isIt: (Int) -> Bool) -> T) -> T {
        records.withUnsafeBufferPointer { buffer in
            guard let first = buffer.baseAddress else { return body { _ in false } }
            let records = UnsafeMutablePointer(mutating: first)
            return body { k in hasIdentity(&records[k], id) }
        }
    }

    /// Whether `record` has identity `id` (see ``withIdentityTest(_:in:_:)``).
    @inlinable
    static func hasIdentity<R: Record>(_ record: inout R, _ id: R.ID) -> Bool { record.id == id }

    /// Records that `id` (which `records` hold at `old`) is at `new` now.
    ///
    /// - Complexity: O(1) on average.
    @inlinable
    mutating func move<R: Record>(_ id: R.ID, from old: Int, to new: Int, in records: [R]) {
        slots.replaceValue(_HashSlots.hash(id), with: new) { $0 == old }
    }
}
