import Foundation
import TableDiff

/// A UUID is its own identity.
extension UUID: TableDiffable {}
