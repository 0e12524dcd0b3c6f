import Records
import TableDiff

// Records' values as rows of a diff: where the two modules meet (Records
// knows nothing of tables, TableDiff nothing of records).

extension RecordValue: TableDiffable {}

extension DynamicObject: TableDiffable {
    /// Whether the two objects' fields are equal (their identities are
    /// compared by the diff itself).
    public func isContentEqual(to other: DynamicObject) -> Bool { fields == other.fields }
}
