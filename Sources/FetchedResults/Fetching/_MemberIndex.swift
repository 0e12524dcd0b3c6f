import InternalTableUtilities
import PredicateFormat
import RecordStore
import Records
import TableDiff

/// A controller's index from identity to the chunk that holds it, without
/// the identities: a table of hash slots (`_HashSlots`), each the low 32
/// bits of an identity's hash and the number of its chunk, at most half
/// full — 16–32 bytes an element, where a `Dictionary` from identity to
/// chunk costs 64–85 (a 24-byte identity and a reference, at up to 3/4 load).
///
/// The slots are a multiset of (hash, chunk) pairs, one per element: a
/// lookup checks each slot of the identity's hash against its chunk's
/// elements; a removal or a move names the chunk the element was in, and
/// removes or rewrites one slot of that pair (two elements with the same
/// pair are interchangeable).
@usableFromInline
struct _MemberIndex<R: Record> {
    @usableFromInline var slots: _HashSlots
    /// The chunks by number; nil for a chunk forgotten (removed, empty).
    @usableFromInline var chunks: [_Chunk<R>?] = []
    @usableFromInline var numbers: [ObjectIdentifier: Int] = [:]

    /// Room for `n` identities without growing.
    init(capacity n: Int) {
        slots = _HashSlots(capacity: n)
    }

    /// The number of identities.
    @usableFromInline var count: Int { slots.count }

    private mutating func number(of chunk: _Chunk<R>) -> Int {
        if let number = numbers[ObjectIdentifier(chunk)] { return number }
        chunks.append(chunk)
        numbers[ObjectIdentifier(chunk)] = chunks.count - 1
        return chunks.count - 1
    }

    /// The chunk holding `id`, and its offset there; nil when none does.
    ///
    /// - Complexity: O(1) slots on average, and O(`maxChunk`) to find the
    ///   identity in its chunk.
    @usableFromInline
    func locate(_ id: R.ID) -> (chunk: _Chunk<R>, offset: Int)? {
        var found: (chunk: _Chunk<R>, offset: Int)?
        _ = slots.value(_HashSlots.hash(id)) { number in
            guard let chunk = chunks[number], let offset = chunk.ids.firstIndex(of: id) else { return false }
            found = (chunk, offset)
            return true
        }
        return found
    }

    /// The chunk holding `id`, or nil.
    @usableFromInline
    func chunk(for id: R.ID) -> _Chunk<R>? { locate(id)?.chunk }

    /// Adds `id`, held by `chunk`.
    mutating func insert(_ id: R.ID, in chunk: _Chunk<R>) {
        slots.insert(_HashSlots.hash(id), value: number(of: chunk))
    }

    /// Adds `ids`, held by `chunk`.
    mutating func insert(_ ids: [R.ID], in chunk: _Chunk<R>) {
        slots.reserveCapacity(slots.count + ids.count)
        let number = number(of: chunk)
        ids.withUnsafeBufferPointer { ids in
            for k in ids.indices { slots.insert(_HashSlots.hash(ids[k]), value: number) }
        }
    }

    /// Removes `id`, which `chunk` held when it was added or last moved;
    /// nothing happens when it is not there.
    mutating func remove(_ id: R.ID, from chunk: _Chunk<R>) {
        guard let number = numbers[ObjectIdentifier(chunk)] else { return }
        slots.remove(_HashSlots.hash(id)) { $0 == number }
    }

    /// Records that `id` moved from chunk `from` to chunk `to`.
    mutating func move(_ id: R.ID, from: _Chunk<R>, to: _Chunk<R>) {
        let new = number(of: to)
        guard let old = numbers[ObjectIdentifier(from)], slots.replaceValue(_HashSlots.hash(id), with: new, where: { $0 == old }) else {
            return insert(id, in: to)
        }
    }

    /// Lets go of a chunk no identity is in any more.
    mutating func forget(_ chunk: _Chunk<R>) {
        guard let number = numbers.removeValue(forKey: ObjectIdentifier(chunk)) else { return }
        chunks[number] = nil
    }
}
