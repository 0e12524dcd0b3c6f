import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value being made on a thread of its own: ``valueIfMade()`` returns it once it
/// is made (never waiting), ``wait()`` waits for it — a lock and a condition,
/// which the thread sanitizer follows. What a fetch builds in the background
/// (a controller's identity index, a search's folded text) is handed over so.
///
/// The value is used on the receiving thread only, once handed over; `make`
/// must touch nothing the receiving thread changes meanwhile (it works on
/// values captured when it started).
///
/// The thread runs below the threads that draw and answer keys (the
/// utility quality of service), so that on a machine of few cores making an
/// index never slows a frame, nor another program's (a browser painting the
/// page `serve` sent); a thread waiting for the value leaves it the core.
@usableFromInline
package final class _BackgroundValue<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var made: Value?

    /// Starts making the value on a thread of its own.
    package init(makingOnAThreadOfItsOwn make: @escaping @Sendable () -> Value) {
        let thread = Thread { [self] in
            Self.runBelowTheInteractiveThreads()
            let value = make()
            condition.lock()
            made = value
            condition.broadcast()
            condition.unlock()
        }
        // Darwin: the utility class, below the main thread's user-interactive one.
        thread.qualityOfService = .utility
        thread.start()
    }

    /// Lowers the calling thread's priority where a thread's quality of
    /// service does not (Foundation on Linux does not apply it: the nice
    /// value stays 0): the nice value 10, which on Linux is the calling
    /// thread's own (`PRIO_PROCESS` with 0). On Darwin the quality of
    /// service set before the thread started does it.
    private static func runBelowTheInteractiveThreads() {
        #if canImport(Glibc)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #elseif canImport(Musl)
        _ = setpriority(PRIO_PROCESS, 0, 10)
        #endif
    }

    /// The value if it is made; nil (at once) while it is being made.
    package func valueIfMade() -> Value? {
        condition.lock()
        defer { condition.unlock() }
        return made
    }

    /// The value once it is made, waiting until `deadline` at most (nil then).
    package func wait(until deadline: Date) -> Value? {
        condition.lock()
        defer { condition.unlock() }
        while made == nil && condition.wait(until: deadline) {}
        return made
    }

    /// The value, once it is made.
    package func wait() -> Value {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let made { return made }
            condition.wait()
        }
    }
}

/// A value that crosses to another thread and back, unchanged meanwhile
/// (class references the receiving thread alone uses afterwards).
@usableFromInline
package struct _UncheckedSendable<Value>: @unchecked Sendable {
    package var value: Value
    package init(_ value: Value) { self.value = value }
}
