import Foundation
import Testing

/// How much a test run does: `swift test` runs every unit and property test
/// at a size a newcomer waits for gladly; CI sets `HEADLESS_TABLE_FULL_TESTS=1`
/// (`.ci/run` does) for the property tests' full case counts and the
/// process-level tests (`IntegrationTests`).
public enum TestScale {
    /// Whether the full run is asked for: `HEADLESS_TABLE_FULL_TESTS=1`.
    public static let isFull = ProcessInfo.processInfo.environment["HEADLESS_TABLE_FULL_TESTS"] == "1"

    /// `quick` under a plain `swift test`, `full` in the full run.
    public static func cases(_ quick: Int, full: Int) -> Int { isFull ? full : quick }

    /// Why a process-level suite is skipped by a plain `swift test`.
    public static let integrationNote: Comment =
        "process-level: run by .ci/run, or by HEADLESS_TABLE_FULL_TESTS=1 swift test --filter IntegrationTests"
}
