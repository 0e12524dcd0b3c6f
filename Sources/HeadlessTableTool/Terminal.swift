// The terminal under `browse`: raw mode, the alternate screen, the window's
// size, signals, and reading and writing bytes.
//
// Every call into the C library for the terminal is in this file, in one
// branch per C library: Darwin (macOS), Glibc (most Linux), Musl (static
// Linux builds). The branches differ only where the libraries do: the name of
// the module, and the field that holds a signal handler in `struct sigaction`
// (`__sigaction_u.__sa_handler` on Darwin, `__sigaction_handler.sa_handler`
// on Glibc, `__sa_handler.sa_handler` on Musl).

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("browse's terminal needs a POSIX C library: Darwin, Glibc or Musl")
#endif

/// The terminal's settings before the browser changed them, kept outside
/// Swift's globals: the signal handlers that put them back may touch only
/// plain memory. Allocated by hand, with room to spare, so that the C
/// library's `tcgetattr` can never write past it whatever size it believes
/// `struct termios` has.
nonisolated(unsafe) let savedTerminalSettings: UnsafeMutablePointer<termios> = {
    let bytes = max(MemoryLayout<termios>.size, 256)
    let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: MemoryLayout<termios>.alignment)
    raw.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
    return raw.bindMemory(to: termios.self, capacity: 1)
}()

/// The bytes that leave the alternate screen and show the cursor again, as C
/// memory the signal handlers can write without making a Swift string.
nonisolated(unsafe) let leaveScreenBytes: (pointer: UnsafeMutablePointer<UInt8>, count: Int) = {
    let bytes = Array(Terminal.leave.utf8)
    let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
    pointer.initialize(from: bytes, count: bytes.count)
    return (pointer, bytes.count)
}()

/// Set by the SIGWINCH handler; read and cleared by ``Terminal/resized()``.
nonisolated(unsafe) var terminalResized: sig_atomic_t = 0

/// `write(2)`, by its module's name (Foundation's `write` would shadow it).
@inline(__always)
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.write(fd, bytes, count)
    #elseif canImport(Glibc)
    Glibc.write(fd, bytes, count)
    #elseif canImport(Musl)
    Musl.write(fd, bytes, count)
    #endif
}

/// `read(2)`, by its module's name.
@inline(__always)
private func systemRead(_ fd: Int32, _ bytes: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.read(fd, bytes, count)
    #elseif canImport(Glibc)
    Glibc.read(fd, bytes, count)
    #elseif canImport(Musl)
    Musl.read(fd, bytes, count)
    #endif
}

/// Installs `handler` for `sig` with `sigaction(2)`.
private func setSignalHandler(_ sig: Int32, _ handler: @convention(c) (Int32) -> Void) {
    var action = sigaction()
    #if canImport(Darwin)
    action.__sigaction_u.__sa_handler = handler
    #elseif canImport(Glibc)
    action.__sigaction_handler.sa_handler = handler
    #elseif canImport(Musl)
    action.__sa_handler.sa_handler = handler
    #endif
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    sigaction(sig, &action, nil)
}

/// The terminal in raw mode on the alternate screen, as long as it lives.
final class Terminal {
    static let leave = "\u{1B}[?25h\u{1B}[?1049l"
    /// The signals after which the terminal is put back.
    static let endingSignals: [Int32] = [SIGTERM, SIGHUP, SIGINT, SIGQUIT]

    /// Whether standard input and output are both a terminal.
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    init() throws {
        guard tcgetattr(STDIN_FILENO, savedTerminalSettings) == 0 else {
            throw CommandError("browse could not read the terminal's settings")
        }
        _ = leaveScreenBytes   // made now, not in a signal handler
        var raw = savedTerminalSettings.pointee
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        // Put the terminal back on a signal, then go as the signal would.
        for sig in Self.endingSignals {
            setSignalHandler(sig) { sig in
                tcsetattr(STDIN_FILENO, TCSAFLUSH, savedTerminalSettings)
                _ = systemWrite(STDOUT_FILENO, leaveScreenBytes.pointer, leaveScreenBytes.count)
                _exit(128 + sig)
            }
        }
        setSignalHandler(SIGWINCH) { _ in terminalResized = 1 }
        // A parent may have left these blocked (the mask is inherited).
        var handled = sigset_t()
        sigemptyset(&handled)
        for sig in Self.endingSignals + [SIGWINCH] { sigaddset(&handled, sig) }
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
        write("\u{1B}[?1049h\u{1B}[?25l")
    }

    func restore() {
        write(Self.leave)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, savedTerminalSettings)
    }

    func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { systemWrite(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if n <= 0 { if errno == EINTR { continue } else { return } }
            bytes = bytes.dropFirst(n)
        }
    }

    /// The keys typed, waiting up to `milliseconds`; nil for none.
    func read(waiting milliseconds: Int32 = 100) -> [Key]? {
        var poller = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, milliseconds) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { systemRead(STDIN_FILENO, $0.baseAddress, $0.count) }
        if n == 0 { return [.quit] }   // the terminal is gone
        guard n > 0 else { return nil }
        return Key.parse(Array(buffer.prefix(n)))
    }

    /// The terminal's columns and lines (80 × 24 when it will not say).
    func size() -> (columns: Int, lines: Int) {
        var window = winsize()
        let ok = withUnsafeMutablePointer(to: &window) { ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), $0) } == 0
        guard ok, window.ws_col > 0, window.ws_row > 0 else { return (80, 24) }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Whether the terminal's size changed since the last call.
    static func resized() -> Bool {
        defer { terminalResized = 0 }
        return terminalResized != 0
    }
}
