// A lock around a value, on every platform the package builds for.
//
// `Synchronization.Mutex` would do the same, but it needs macOS 15 / iOS 18;
// this one needs nothing newer than the package's floors. It is what the store,
// the predicate folding cache and the snapshot counters use. The thread
// sanitizer understands both primitives (pthread mutexes, os_unfair_lock).

#if canImport(Darwin)
import os  // os_unfair_lock: macOS 10.12, iOS 10, tvOS 10, watchOS 3
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#elseif canImport(WinSDK)
import WinSDK
#else
#error("_Lock has no lock primitive for this platform")
#endif

#if canImport(Darwin)
@usableFromInline typealias _LockPrimitive = os_unfair_lock
#elseif canImport(WinSDK)
@usableFromInline typealias _LockPrimitive = SRWLOCK
#else
@usableFromInline typealias _LockPrimitive = pthread_mutex_t
#endif

/// A value that is read and changed only while holding a lock.
///
/// ```swift
/// let counts = _Lock<[String: Int]>([:])
/// counts.withLock { $0["a", default: 0] += 1 }
/// ```
///
/// Not recursive: calling `withLock` again from inside its closure deadlocks.
///
/// A lock that nests with others has a ``_LockLevel``: debug builds check
/// that each thread takes ranked locks in increasing order (`_LockOrder`),
/// and trap on the first one taken out of order.
@usableFromInline
package final class _Lock<State>: @unchecked Sendable {
    // The primitive lives at a fixed address (a pthread mutex or an unfair
    // lock must not move while in use), so it is allocated once, by hand.
    @usableFromInline let primitive: UnsafeMutablePointer<_LockPrimitive>
    @usableFromInline var state: State
    /// The lock's place in the order locks are taken in; nil for a lock that
    /// never nests with another (not checked).
    @usableFromInline let level: _LockLevel?

    /// A lock around `initialState`, of `level` in the order locks are taken
    /// in (nil: one that never nests).
    package init(_ initialState: State, level: _LockLevel? = nil) {
        self.level = level
        state = initialState
        primitive = .allocate(capacity: 1)
        #if canImport(Darwin)
        primitive.initialize(to: os_unfair_lock())
        #elseif canImport(WinSDK)
        InitializeSRWLock(primitive)
        #else
        primitive.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(primitive, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        #endif
    }

    deinit {
        #if !canImport(Darwin) && !canImport(WinSDK)
        pthread_mutex_destroy(primitive)
        #endif
        primitive.deinitialize(count: 1)
        primitive.deallocate()
    }

    @inlinable
    func lock() {
        #if canImport(Darwin)
        os_unfair_lock_lock(primitive)
        #elseif canImport(WinSDK)
        AcquireSRWLockExclusive(primitive)
        #else
        pthread_mutex_lock(primitive)
        #endif
    }

    @inlinable
    func unlock() {
        #if canImport(Darwin)
        os_unfair_lock_unlock(primitive)
        #elseif canImport(WinSDK)
        ReleaseSRWLockExclusive(primitive)
        #else
        pthread_mutex_unlock(primitive)
        #endif
    }

    /// Runs `body` with the value while holding the lock, and returns what it
    /// returns; an error it throws is rethrown after the lock is released.
    @inlinable
    package func withLock<Result, E: Error>(_ body: (inout State) throws(E) -> Result) throws(E) -> Result {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        if let level { _LockOrder.willAcquire(level) }
        defer { if let level { _LockOrder.didRelease(level) } }
        #endif
        lock()
        defer { unlock() }
        return try body(&state)
    }
}
