import Foundation

/// A UUID is its own identity.
extension UUID: TableDiffable {}

/// A UUID is 16 bytes compared as bytes: snapshots hash them directly.
extension UUID: _BitwiseHashable {}
