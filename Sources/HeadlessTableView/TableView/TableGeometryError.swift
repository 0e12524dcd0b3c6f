import TableDiff
/// A geometry value a table or a renderer cannot lay out: NaN, an infinity, or
/// a negative number (or zero where only a positive number works).
///
/// ``TableView`` checks every geometry input the same way — the viewport's
/// height, content offsets, ``TableView/rowHeight``,
/// ``TableView/estimatedRowHeight``, ``TableView/sectionHeaderHeight``,
/// ``TableView/sectionFooterHeight``, the heights its delegate gives, and a
/// cell's ``TableViewCell/preferredHeight`` or its template's — and refuses a
/// bad one with this error (wrapped in ``TableViewError/invalidGeometry(_:)``),
/// naming where the value came from, and leaving the table as it was.
/// ``TextRenderer`` checks its points per line with the same rule.
///
/// ```swift
/// do { try table.setViewportHeight(.nan) } catch {
///     print(error)   // the viewport height must be a finite number of points, at least 0, not nan
/// }
/// ```
public struct TableGeometryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What the value is and where it came from (`"the viewport height"`,
    /// `"rowHeight"`, `"the delegate's height for row {0, 3}"`, `"the
    /// preferred height of the cell for row {1, 0}"`).
    public var quantity: String
    /// The value refused.
    public var value: Double
    /// Whether zero is refused too (only a positive number works).
    public var mustBePositive: Bool

    /// An error for `value` as `quantity`.
    public init(quantity: String, value: Double, mustBePositive: Bool = false) {
        self.quantity = quantity
        self.value = value
        self.mustBePositive = mustBePositive
    }

    public var description: String {
        "\(quantity) must be a finite number of points, \(mustBePositive ? "more than 0" : "at least 0"), not \(value)"
    }
}

/// The one rule for geometry inputs: finite, not negative (or positive).
enum _Geometry {
    static func isValid(_ value: Double, mustBePositive: Bool = false) -> Bool {
        value.isFinite && (mustBePositive ? value > 0 : value >= 0)
    }

    /// `value`, or the error naming `quantity`.
    static func checked(_ value: Double, _ quantity: String, mustBePositive: Bool = false) throws(TableGeometryError) -> Double {
        guard isValid(value, mustBePositive: mustBePositive) else {
            throw TableGeometryError(quantity: quantity, value: value, mustBePositive: mustBePositive)
        }
        return value
    }

    /// A row or section height setting: a finite number ≥ 0, or
    /// ``TableView/automaticDimension`` where the setting takes it.
    static func checkedSetting(_ value: Double, _ quantity: String, allowsAutomatic: Bool) throws(TableGeometryError) -> Double {
        if allowsAutomatic && value == TableView.automaticDimension { return value }
        return try checked(value, quantity)
    }
}
