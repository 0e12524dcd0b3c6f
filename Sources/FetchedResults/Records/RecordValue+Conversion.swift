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
extension Int64: RecordValueConvertible { public var recordValue: RecordValue { .int(Int(self)) } }
extension UInt8: RecordValueConvertible { public var recordValue: RecordValue { .int(Int(self)) } }
extension UInt16: RecordValueConvertible { public var recordValue: RecordValue { .int(Int(self)) } }
extension UInt32: RecordValueConvertible { public var recordValue: RecordValue { .int(Int(self)) } }
extension UInt: RecordValueConvertible {
    public var recordValue: RecordValue { self <= UInt(Int.max) ? .int(Int(self)) : .double(Double(self)) }
}
extension UInt64: RecordValueConvertible {
    public var recordValue: RecordValue { self <= UInt64(Int.max) ? .int(Int(self)) : .double(Double(self)) }
}
extension Double: RecordValueConvertible { public var recordValue: RecordValue { .double(self) } }
extension Float: RecordValueConvertible { public var recordValue: RecordValue { .double(Double(self)) } }
extension Decimal: RecordValueConvertible {
    public var recordValue: RecordValue { .double(NSDecimalNumber(decimal: self).doubleValue) }
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
