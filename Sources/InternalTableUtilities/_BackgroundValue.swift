import Foundation

/// A value being made on a thread of its own: ``valueIfMade()`` returns it once it
/// is made (never waiting), ``wait()`` waits for it — a lock and a condition,
/// which the thread sanitizer follows. What a fetch builds in the background
/// (a controller's identity index, a search's folded text) is handed over so.
///
/// The value is used on the receiving thread only, once handed over; `make`
/// must touch nothing the receiving thread changes meanwhile (it works on
/// values captured when it started).
@usableFromInline
package final class _BackgroundValue<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var made: Value?

    /// Starts making the value on a thread of its own.
    package init(makingOnAThreadOfItsOwn make: @escaping @Sendable () -> Value) {
        Thread.detachNewThread { [self] in
            let value = make()
            condition.lock()
            made = value
            condition.broadcast()
            condition.unlock()
        }
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
