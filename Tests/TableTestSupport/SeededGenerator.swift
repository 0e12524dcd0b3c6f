import Foundation

/// A seeded random number generator (SplitMix64), for property tests that can be
/// replayed: a failing test prints its seed; set `TABLE_TEST_SEED` to replay it.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed for this run: `TABLE_TEST_SEED` when set, otherwise a fresh one.
    public static func runSeed() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["TABLE_TEST_SEED"], let seed = UInt64(text) {
            return seed
        }
        return UInt64.random(in: 0...UInt64(UInt32.max))
    }

    public mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &self) < probability }
    public mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }
    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
}
