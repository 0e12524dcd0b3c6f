import RecordStore
import Records
import TableDiff

// The controller's rows by identity, for the table binding's selection and
// restoration: never waiting for the identity index right after a fetch.

extension FetchedResultsController {
    /// The identity of the row at a position; nil outside the rows.
    ///
    /// - Complexity: O(log *n*).
    package func objectID(atPosition position: Int) -> R.ID? {
        guard results.compiled != nil, position >= 0, position < results.ordered.count else { return nil }
        return results.ordered.id(at: position)
    }

    /// The position of the object with an identity; nil when it is not in
    /// the results. While the identity index is being made (right after a
    /// fetch) an object the context has is found by its sort values, without
    /// waiting for the index.
    ///
    /// - Complexity: O(log *n*) (and, while the index is being made, the
    ///   objects with the same sort values); waits for the index only when
    ///   the object's sort values do not find it (a request with an offset
    ///   or a limit, whose window leaves matching objects out).
    package func position(ofObjectWithID id: R.ID) -> Int? {
        guard let compiled = results.compiled else { return nil }
        if results.ordered.isIndexingMembers {
            // The results follow the context: an object it does not have, or
            // that does not match, is not in them.
            guard let record = access.object(withID: id) else { return nil }
            if let matches = compiled.matches, (try? matches(record)) == false { return nil }
            let probe = compiled.element(record, sequence: 0)
            let order = { (a: _Element<R>, b: _Element<R>) in compiled.compare(a.sortValues, 0, b.sortValues, 0) }
            if let position = results.ordered.position(of: id, orderedAs: probe, order: order) { return position }
        }
        return results.ordered.position(of: id)
    }

    /// ``indexPath(forObjectWithID:)``, without waiting for the identity
    /// index (see ``position(ofObjectWithID:)``).
    package func indexPathWithoutWaiting(forObjectWithID id: R.ID) -> TablePath? {
        position(ofObjectWithID: id).map { path(ofPosition: $0) }
    }

    /// The position of the first row whose object is not ordered before
    /// `record` (the number of rows when every one is): where `record` is,
    /// or would be — what a saved place comes back to when its object is
    /// gone (the nearest following object).
    ///
    /// - Complexity: O(log *n*), plus reading what `record`'s key paths
    ///   through relationships read.
    package func position(ofFirstObjectOrderedAtOrAfter record: R) -> Int {
        guard let compiled = results.compiled else { return 0 }
        let probe = compiled.element(record, sequence: .min)
        return results.ordered.firstPosition(notBefore: probe) { a, b in
            compiled.compare(a.sortValues, a.sequence, b.sortValues, b.sequence) < 0
        }
    }

    /// Whether the results hold the object with an identity.
    ///
    /// - Complexity: that of ``position(ofObjectWithID:)``.
    package func containsObject(withID id: R.ID) -> Bool { position(ofObjectWithID: id) != nil }
}
