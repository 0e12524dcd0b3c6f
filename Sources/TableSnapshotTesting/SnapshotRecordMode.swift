import Foundation

/// When a text snapshot assertion writes its reference file.
///
/// The mode in effect is, by precedence: the `record:` argument of the
/// assertion, then the mode set with `withSnapshotRecording(_:operation:)`,
/// then the `SNAPSHOT_TESTING_RECORD` environment variable (`all`, `failed`,
/// `missing` or `never`), then ``missing``. CI should run with `never`.
public enum SnapshotRecordMode: String, Sendable, CaseIterable {
    /// Record every snapshot, overwriting references; every assertion fails so
    /// that recording is never left on by accident.
    case all
    /// Record a snapshot when it does not match its reference (and when the
    /// reference is missing); the assertion still fails.
    case failed
    /// Record a snapshot only when its reference is missing; the assertion fails.
    case missing
    /// Never write; a missing reference is a failure.
    case never

    /// The environment variable that sets the mode.
    public static let environmentVariable = "SNAPSHOT_TESTING_RECORD"

    @TaskLocal static var scoped: SnapshotRecordMode?

    /// The mode in effect for an assertion given its `record:` argument.
    public static func resolved(_ argument: SnapshotRecordMode?, environment: [String: String] = ProcessInfo.processInfo.environment) -> SnapshotRecordMode {
        if let argument { return argument }
        if let scoped { return scoped }
        if let value = environment[environmentVariable], let mode = SnapshotRecordMode(rawValue: value.lowercased()) {
            return mode
        }
        return .missing
    }
}

/// Runs `operation` with a record mode for every snapshot assertion inside it
/// that has no `record:` argument of its own.
public func withSnapshotRecording<R>(_ mode: SnapshotRecordMode, operation: () throws -> R) rethrows -> R {
    try SnapshotRecordMode.$scoped.withValue(mode, operation: operation)
}

/// Runs the asynchronous `operation` with a record mode for every snapshot
/// assertion inside it that has no `record:` argument of its own.
public func withSnapshotRecording<R>(_ mode: SnapshotRecordMode, operation: () async throws -> R) async rethrows -> R {
    try await SnapshotRecordMode.$scoped.withValue(mode, operation: operation)
}
