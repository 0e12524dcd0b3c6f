// The calling thread's stack, as far as the platform tells: the one place
// the package measures it (the predicate parser checks the room left before
// each level of nesting, so that a thread of any stack size gets an error,
// not an overflow).
//
// - Darwin: `pthread_get_stackaddr_np` (the stack's top) and
//   `pthread_get_stacksize_np`.
// - Linux (glibc, musl): `pthread_getattr_np` and `pthread_attr_getstack`.
//   `pthread_getattr_np` is a GNU extension that Swift's Glibc and Musl
//   modules leave out (it is declared only with `_GNU_SOURCE`), so it is
//   looked up by name, once per call, with `dlsym`.
// - Elsewhere: unknown (nil); callers fall back on a fixed budget.
//
// Every supported platform's stack grows down.

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The calling thread's stack: an address on it, its bounds, and how deep
/// recursion from a point may go.
package enum _ThreadStack {
    /// An address on the calling thread's stack: a local of a frame of its own.
    @inline(never)
    package static func currentAddress() -> UInt {
        var marker: UInt8 = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    }

    /// The lowest and highest addresses of the calling thread's stack; nil
    /// where the platform does not say.
    package static func bounds() -> (lowest: UInt, highest: UInt)? {
        #if canImport(Darwin)
        // pthread_get_stackaddr_np is the stack's top (it grows down).
        let highest = UInt(bitPattern: pthread_get_stackaddr_np(pthread_self()))
        return (highest - UInt(pthread_get_stacksize_np(pthread_self())), highest)
        #elseif canImport(Glibc) || canImport(Musl)
        typealias GetAttributes = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getattr_np") else { return nil }
        var attributes = pthread_attr_t()
        guard unsafeBitCast(symbol, to: GetAttributes.self)(pthread_self(), &attributes) == 0 else { return nil }
        defer { pthread_attr_destroy(&attributes) }
        var address: UnsafeMutableRawPointer? = nil
        var size = 0
        // pthread_attr_getstack's address is the stack's lowest.
        guard pthread_attr_getstack(&attributes, &address, &size) == 0, let address else { return nil }
        return (UInt(bitPattern: address), UInt(bitPattern: address) + UInt(size))
        #else
        return nil
        #endif
    }

    /// The lowest address recursion that starts at `start` (an address on the
    /// calling thread's stack) may reach: half of what is left below `start`,
    /// at most `reserve` bytes, stays for the caller. Without the stack's
    /// bounds, `unknownBudget` bytes below `start` may be used. 0 when `start`
    /// is not on the thread's stack — a local's address is elsewhere (the
    /// address sanitizer keeps locals on a "fake stack" on the heap) — and
    /// nothing can be said.
    package static func floor(start: UInt, reserve: UInt, unknownBudget: UInt) -> UInt {
        guard let (lowest, highest) = bounds() else { return start > unknownBudget ? start - unknownBudget : 0 }
        guard lowest < start, start <= highest else { return 0 }
        return lowest + min(reserve, (start - lowest) / 2)
    }
}
