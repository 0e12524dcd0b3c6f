import Foundation
import InternalTableUtilities
import Testing
import TableTestSupport

/// The one place the package measures a thread's stack (`_ThreadStack`, which
/// the predicate parser checks before each level of nesting): on a thread of
/// a known size, the bounds it reports hold the thread's frames and have that
/// size, and the floor it gives recursion keeps the caller's share.
@Suite struct ThreadStackTests {
    struct Measured: Sendable {
        var bounds: [UInt]?
        var here: UInt
        var deeper: UInt
        var floor: UInt
    }

    @inline(never)
    static func deeperAddress(_ depth: Int) -> UInt {
        depth == 0 ? _ThreadStack.currentAddress() : deeperAddress(depth - 1)
    }

    @Test func aThreadsStackIsMeasured() async throws {
        let measured = await withCheckedContinuation { (continuation: CheckedContinuation<Measured, Never>) in
            let thread = Thread {
                let here = _ThreadStack.currentAddress()
                continuation.resume(returning: Measured(
                    bounds: _ThreadStack.bounds().map { [$0.lowest, $0.highest] },
                    here: here, deeper: Self.deeperAddress(20),
                    floor: _ThreadStack.floor(start: here, reserve: 128 * 1024, unknownBudget: 32 * 1024)))
            }
            thread.stackSize = 512 * 1024
            thread.start()
        }
        #expect(measured.deeper < measured.here, "the stack grows down")
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
        let bounds = try #require(measured.bounds, "the platform tells the stack's bounds")
        let (lowest, highest) = (bounds[0], bounds[1])
        let size = highest - lowest
        #expect(size >= 480 * 1024 && size <= 1024 * 1024, "a 512 KiB thread's stack measured as \(size) bytes")
        if !isRunningUnderAddressSanitizer {   // its locals live on a fake stack on the heap
            #expect(lowest < measured.deeper && measured.here <= highest)
            // Half of what is left below the start is more than 128 KiB: 128 KiB stays.
            expectEqual(measured.floor, lowest + 128 * 1024)
        }
        #endif
        // A start that is not on the stack (a heap address): nothing can be said.
        let heap = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        defer { heap.deallocate() }
        if _ThreadStack.bounds() != nil {
            expectEqual(_ThreadStack.floor(start: UInt(bitPattern: heap), reserve: 128 * 1024, unknownBudget: 32 * 1024), 0)
        }
    }
}
