import Foundation

/// A value made now or being made on another thread: `wait()` returns it once
/// `finish(_:)` has handed it over — a lock and a condition, which the thread
/// sanitizer follows. The value is used on the waiting thread only, once
/// handed over.
final class Handover<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var made: Value?

    /// One made already.
    init(_ value: Value) { made = value }

    /// One made on a thread of its own by `make`.
    init(makingOnAThreadOfItsOwn make: @escaping @Sendable () -> Value) {
        Thread.detachNewThread { [self] in finish(make()) }
    }

    private func finish(_ value: Value) {
        condition.lock()
        made = value
        condition.broadcast()
        condition.unlock()
    }

    /// The value, once it is made.
    func wait() -> Value {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let made { return made }
            condition.wait()
        }
    }
}
