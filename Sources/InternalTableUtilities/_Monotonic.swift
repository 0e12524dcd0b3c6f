// A monotonic clock that needs no newer OS (`ContinuousClock` needs macOS 13 /
// iOS 16), for timings the tool and the benchmarks report.

#if canImport(Darwin)
import Darwin   // clock_gettime: macOS 10.12, iOS 10
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(WinSDK)
import WinSDK
#else
#error("_Monotonic has no clock for this platform")
#endif

/// Nanoseconds on a clock that never goes back (not the time of day).
package enum _Monotonic {
    /// Now, in nanoseconds since an arbitrary start.
    package static func nanoseconds() -> UInt64 {
        #if canImport(WinSDK)
        var counter = LARGE_INTEGER(), frequency = LARGE_INTEGER()
        QueryPerformanceCounter(&counter)
        QueryPerformanceFrequency(&frequency)
        return UInt64(Double(counter.QuadPart) / Double(frequency.QuadPart) * 1e9)
        #else
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
        #endif
    }

    /// How long `body` took, in nanoseconds.
    package static func measure(_ body: () throws -> Void) rethrows -> UInt64 {
        let start = nanoseconds()
        try body()
        return nanoseconds() &- start
    }
}
