import Foundation

/// A latch threads wait at until another thread opens it, once and for
/// all: for tests that must hold work on a thread of its own at a known
/// point (a search index made only after a search was typed), never by
/// timing.
package final class _Latch: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false

    package init() {}

    /// Opens the latch: every thread waiting goes on, and none waits again.
    package func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    /// Returns once the latch is open.
    package func waitUntilOpen() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }
}
