// The order in which locks are taken, checked in debug builds.
//
// Two threads that take two locks in opposite orders can deadlock. Locks
// that nest get a level (`_LockLevel`); a thread may take a ranked lock
// only while every ranked lock it holds is of a lower level. Debug builds
// (or `-Xswiftc -DHEADLESS_TABLE_INTERNAL_CHECKS`) keep the levels each
// thread holds (`_LockOrderTracker`, in thread-local storage) and trap on
// the first lock taken out of order — on any thread, on any run, not only
// on the run that deadlocks. Release builds keep nothing and check nothing.
//
// The levels and the order are declared by the layer that owns the locks
// (the store's: `_LockLevel+Store.swift` in FetchedResults).

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#elseif canImport(WinSDK)
import WinSDK
#else
#error("_LockOrder has no thread-local storage for this platform")
#endif

/// A lock's place in the order locks are taken in: a thread holding a
/// ranked lock may take another only of a higher rank.
@usableFromInline
package struct _LockLevel: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The place in the order: lower first.
    package let rank: Int
    /// The lock, for messages.
    package let name: String

    /// A level of rank `rank`, named `name` in messages.
    package init(rank: Int, name: String) {
        self.rank = rank
        self.name = name
    }

    @usableFromInline
    package static func < (a: _LockLevel, b: _LockLevel) -> Bool { a.rank < b.rank }

    @usableFromInline
    package var description: String { "\(name) (level \(rank))" }
}

/// A lock taken out of order: the level being taken, and the held level it
/// is not above.
package struct _LockOrderViolation: Hashable, Sendable, CustomStringConvertible {
    /// The level being taken.
    package var acquiring: _LockLevel
    /// The highest level held, at or above it.
    package var holding: _LockLevel
    /// Every level held, in the order taken.
    package var held: [_LockLevel]

    /// A violation from its parts.
    package init(acquiring: _LockLevel, holding: _LockLevel, held: [_LockLevel]) {
        self.acquiring = acquiring
        self.holding = holding
        self.held = held
    }

    package var description: String {
        "lock order violated: taking \(acquiring) while holding \(holding) (held: \(held.map(\.description).joined(separator: ", "))); "
            + "a thread takes a lock only above every lock it holds"
    }
}

/// The ranked locks one thread holds, in the order it took them.
///
/// A plain value: `_LockOrder` keeps one per thread in debug builds, and
/// tests drive one directly.
package struct _LockOrderTracker: Sendable {
    /// The levels held, in the order taken (released ones removed).
    package private(set) var held: [_LockLevel] = []

    /// No levels held.
    package init() {}

    /// Notes that a lock of `level` is taken; returns the violation when a
    /// lock at or above that level is held (the level is noted anyway, so
    /// that its release balances).
    ///
    /// - Complexity: O(*h*) for *h* levels held.
    package mutating func acquire(_ level: _LockLevel) -> _LockOrderViolation? {
        let highest = held.max()
        held.append(level)
        guard let highest, highest >= level else { return nil }
        return _LockOrderViolation(acquiring: level, holding: highest, held: Array(held.dropLast()))
    }

    /// Notes that a lock of `level` is released (the last one taken of that
    /// level: locks need not be released in the reverse order).
    ///
    /// - Complexity: O(*h*) for *h* levels held.
    package mutating func release(_ level: _LockLevel) {
        if let k = held.lastIndex(of: level) { held.remove(at: k) }
    }
}

/// This thread's ranked locks, checked as they are taken (debug builds).
@usableFromInline
package enum _LockOrder {
    /// Notes that this thread takes a lock of `level`; traps when it holds one
    /// at or above it. Call it before taking the lock. Nothing in release
    /// builds.
    @usableFromInline
    package static func willAcquire(_ level: _LockLevel) {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        if let violation = _LockOrderBox.current.tracker.acquire(level) { preconditionFailure(violation.description) }
        #endif
    }

    /// Notes that this thread released a lock of `level`, or failed to take
    /// it after `willAcquire(_:)`. Nothing in release builds.
    @usableFromInline
    package static func didRelease(_ level: _LockLevel) {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        _LockOrderBox.current.tracker.release(level)
        #endif
    }

    /// The levels this thread holds, in the order taken; always empty in
    /// release builds.
    package static var held: [_LockLevel] {
        #if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
        return _LockOrderBox.current.tracker.held
        #else
        return []
        #endif
    }
}

#if DEBUG || HEADLESS_TABLE_INTERNAL_CHECKS
/// One thread's tracker, in thread-local storage (released with the thread,
/// except on Windows, where the small box of each thread that took a ranked
/// lock stays: debug builds only).
final class _LockOrderBox {
    var tracker = _LockOrderTracker()

    /// The calling thread's box, made on its first ranked lock.
    static var current: _LockOrderBox {
        #if canImport(WinSDK)
        if let raw = TlsGetValue(_lockOrderKey) { return Unmanaged<_LockOrderBox>.fromOpaque(raw).takeUnretainedValue() }
        let box = _LockOrderBox()
        TlsSetValue(_lockOrderKey, Unmanaged.passRetained(box).toOpaque())
        return box
        #else
        if let raw = pthread_getspecific(_lockOrderKey) { return Unmanaged<_LockOrderBox>.fromOpaque(raw).takeUnretainedValue() }
        let box = _LockOrderBox()
        pthread_setspecific(_lockOrderKey, Unmanaged.passRetained(box).toOpaque())
        return box
        #endif
    }
}

#if canImport(WinSDK)
private let _lockOrderKey: DWORD = TlsAlloc()
#else
/// The thread-local key of the trackers; a thread's box is released when it ends.
private let _lockOrderKey: pthread_key_t = {
    var key = pthread_key_t()
    #if canImport(Darwin)
    let status = pthread_key_create(&key) { raw in Unmanaged<_LockOrderBox>.fromOpaque(raw).release() }
    #else
    let status = pthread_key_create(&key) { raw in
        if let raw { Unmanaged<_LockOrderBox>.fromOpaque(raw).release() }
    }
    #endif
    precondition(status == 0, "pthread_key_create failed: \(status)")
    return key
}()
#endif
#endif
