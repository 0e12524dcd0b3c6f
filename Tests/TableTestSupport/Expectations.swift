import Testing

// `#expect(a == b)` and `#expect(throws: …) { … }` as functions: the same
// checks and the same reports (both values, or the error thrown, at the
// caller's line).
//
// Why functions: each `#expect` expands where it is written into a call
// that the type checker solves against every overload of Swift Testing's
// checks, with the operands in closures — about 10 ms of build for an
// `==`, 30 ms for a `throws:`, and the test targets hold thousands. A call
// of these functions is solved as any generic call (under 1 ms); the macro
// is expanded once, here. The rest of `#expect` (a condition, `!=`, `<`,
// `== nil`) costs less and stays as written.

/// `#expect(actual == expected, comment)`.
public func expectEqual<T: Equatable>(
    _ actual: T, _ expected: T, _ comment: @autoclosure () -> Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(actual == expected, comment(), sourceLocation: sourceLocation)
}

/// `#expect(throws: errorType, comment) { try body() }`.
public func expectThrows<E: Error, R>(
    _ errorType: E.Type, _ comment: @autoclosure () -> Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    performing body: () throws -> R
) {
    #expect(throws: errorType, comment(), sourceLocation: sourceLocation) { try body() }
}

/// `#expect(throws: error, comment) { try body() }`: an error equal to `error`.
public func expectThrows<E: Error & Equatable, R>(
    _ error: E, _ comment: @autoclosure () -> Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    performing body: () throws -> R
) {
    #expect(throws: error, comment(), sourceLocation: sourceLocation) { try body() }
}
