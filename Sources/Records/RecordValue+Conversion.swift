import Foundation

/// A Swift value that can be read as a ``RecordValue`` (the value types of records).
public protocol RecordValueConvertible {
    var recordValue: RecordValue { get }
}

extension RecordValue: RecordValueConvertible { public var recordValue: RecordValue { self } }
extension DynamicRecord: RecordValueConvertible { public var recordValue: RecordValue { .record(self) } }
extension String: RecordValueConvertible { public var recordValue: RecordValue { .string(self) } }
extension Substring: RecordValueConvertible { public var recordValue: RecordValue { .string(String(self)) } }
extension Character: RecordValueConvertible { public var recordValue: RecordValue { .string(String(self)) } }
extension Bool: RecordValueConvertible { public var recordValue: RecordValue { .bool(self) } }
extension Int: RecordValueConvertible { public var recordValue: RecordValue { .int(self) } }
extension Int8: RecordValueConvertible { public var recordValue: RecordValue { .int(Int(self)) } }
extension Int16: RecordValueConvertible { public var recordValue: RecordValue { .int(Int(self)) } }
extension Int32: RecordValueConvertible { public var recordValue: RecordValue { .int(Int(self)) } }
extension Int64: RecordValueConvertible {
    /// An ``RecordValue/int(_:)``. Where `Int` has 32 bits (watchOS on
    /// arm64_32), a value beyond it is a ``RecordValue/uint(_:)`` when
    /// positive, else the nearest double (exact within ±2⁵³; the record
    /// encoder refuses one that is not).
    public var recordValue: RecordValue {
        if let value = Int(exactly: self) { return .int(value) }
        return self >= 0 ? .uint(UInt64(self)) : .double(Double(self))
    }
}
extension UInt8: RecordValueConvertible { public var recordValue: RecordValue { .int(Int(self)) } }
extension UInt16: RecordValueConvertible { public var recordValue: RecordValue { .int(Int(self)) } }
extension UInt32: RecordValueConvertible {
    /// An ``RecordValue/int(_:)``; where `Int` has 32 bits, one above
    /// `Int.max` is a ``RecordValue/uint(_:)``.
    public var recordValue: RecordValue { UInt64(self).recordValue }
}
extension UInt: RecordValueConvertible {
    public var recordValue: RecordValue { UInt64(self).recordValue }
}
extension UInt64: RecordValueConvertible {
    /// An ``RecordValue/int(_:)`` up to `Int.max`, above it a ``RecordValue/uint(_:)``: exact either way.
    public var recordValue: RecordValue { Int(exactly: self).map(RecordValue.int) ?? .uint(self) }
}
extension Double: RecordValueConvertible { public var recordValue: RecordValue { .double(self) } }
extension Float: RecordValueConvertible { public var recordValue: RecordValue { .double(Double(self)) } }
extension Decimal: RecordValueConvertible {
    /// A whole number within 64 bits exactly (an int, or a uint above
    /// `Int.max`); any other value as the nearest double.
    public var recordValue: RecordValue { _exactInteger(description) ?? .double(NSDecimalNumber(decimal: self).doubleValue) }
}

/// The integer `text` (decimal digits, an optional `-`) as an exact
/// ``RecordValue``: an int, or a uint above `Int.max`; where `Int` has 32
/// bits, a negative one below it is a double when that is exact; nil when it
/// is not one or does not fit in 64 bits.
package func _exactInteger(_ text: some StringProtocol) -> RecordValue? {
    if let i = Int(text) { return .int(i) }
    if let u = UInt64(text) { return .uint(u) }
    if Int.bitWidth == 32, let i = Int64(text), let exact = Double(exactly: i) { return .double(exact) }
    return nil
}
extension Date: RecordValueConvertible { public var recordValue: RecordValue { .date(self) } }
extension UUID: RecordValueConvertible { public var recordValue: RecordValue { .string(uuidString) } }
extension URL: RecordValueConvertible { public var recordValue: RecordValue { .string(absoluteString) } }

extension Optional: RecordValueConvertible where Wrapped: RecordValueConvertible {
    public var recordValue: RecordValue { self?.recordValue ?? .null }
}
extension Array: RecordValueConvertible where Element: RecordValueConvertible {
    public var recordValue: RecordValue { .array(map(\.recordValue)) }
}
extension Set: RecordValueConvertible where Element: RecordValueConvertible {
    public var recordValue: RecordValue { .array(map(\.recordValue)) }
}
extension Dictionary: RecordValueConvertible where Key == String, Value: RecordValueConvertible {
    public var recordValue: RecordValue { .record(DynamicRecord(fields: sorted { $0.key < $1.key }.map { ($0.key, $0.value.recordValue) })) }
}

extension RecordValueConvertible where Self: Record {
    /// A nested record is a record value: every declared key (or, for a
    /// `Codable` record without declared keys, every encoded field).
    public var recordValue: RecordValue {
        let keys = Self.recordKeys
        if let declared = keys.declaredKeys {
            return .record(DynamicRecord(fields: declared.map { ($0, keys.value(of: self, forKey: $0) ?? .null) }))
        }
        return .null
    }
}

extension RecordValueConvertible where Self: Record & Encodable {
    public var recordValue: RecordValue {
        let keys = Self.recordKeys
        if let declared = keys.declaredKeys {
            return .record(DynamicRecord(fields: declared.map { ($0, keys.value(of: self, forKey: $0) ?? .null) }))
        }
        return (try? RecordValueEncoder().encode(self)) ?? .null
    }
}
