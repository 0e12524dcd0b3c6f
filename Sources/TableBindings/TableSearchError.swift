/// Why a search could not do what it was asked.
public enum TableSearchError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No scope button at this index.
    case scopeOutOfRange(index: Int, scopeCount: Int)
    /// Searching again (in another scope) failed: why.
    case searchFailed(String)

    public var description: String {
        switch self {
        case let .scopeOutOfRange(index, 0):
            return "no scope at index \(index): the search has no scopes (give TableSearch scopes: to show scope buttons)"
        case let .scopeOutOfRange(index, count):
            return "no scope at index \(index): the search has \(count) scopes (0...\(count - 1))"
        case .searchFailed(let reason):
            return "the search failed: \(reason)"
        }
    }
}
