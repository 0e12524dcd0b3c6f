// The sockets under `serve`: a listening socket on 127.0.0.1, accepted
// connections, reads, writes, poll(2), and the signals that stop the server.
//
// Every call into the C library for them is in this file, in one branch per C
// library: Darwin (macOS), Glibc (most Linux), Musl (static Linux builds). The
// branches differ where the libraries do:
// - a write to a socket whose peer has gone raises SIGPIPE unless asked not
//   to: Darwin has no MSG_NOSIGNAL, so each socket gets SO_NOSIGPIPE; Linux
//   has no SO_NOSIGPIPE, so each send passes MSG_NOSIGNAL (and the process
//   ignores SIGPIPE as well, in case);
// - `struct sockaddr_in` has a `sin_len` on Darwin (set to its size), not on
//   Linux; `sa_family_t` is a byte on Darwin and two on Linux;
// - Glibc imports the socket type as an enum (`SOCK_STREAM.rawValue`), Darwin
//   and Musl as an integer;
// - the field of `struct sigaction` that holds a handler
//   (`__sigaction_u.__sa_handler`, `__sigaction_handler.sa_handler`,
//   `__sa_handler.sa_handler`), as in Terminal.swift.

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("serve needs a POSIX C library: Darwin, Glibc or Musl")
#endif

/// Set by the SIGINT and SIGTERM handlers; read by ``_Sockets/stopRequested``.
nonisolated(unsafe) var serveStopRequested: sig_atomic_t = 0

/// The few socket calls the server makes, each as the platform spells it.
enum _Sockets {
    /// A call that failed, with `errno`'s meaning.
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    /// What a read got.
    enum ReadResult: Equatable {
        case bytes(Int)
        case wouldBlock
        /// The peer closed its side, or the connection broke.
        case closed
    }

    /// What a write did.
    enum WriteResult: Equatable {
        case wrote(Int)
        case wouldBlock
        case failed
    }

    /// A socket bound to 127.0.0.1:`port` (0: a free port, chosen by the
    /// system), listening, non-blocking; and the port it has.
    static func listen(port: UInt16) throws(Failure) -> (socket: Int32, port: UInt16) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(call: "socket", code: errno) }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw Failure(call: "bind to 127.0.0.1:\(port)", code: code)
        }
        guard systemListen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw Failure(call: "listen", code: code)
        }
        setNonBlocking(fd)
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: actual.sin_port))
    }

    /// `listen(2)`, by its module's name (the function above shadows it).
    @inline(__always)
    private static func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 {
        #if canImport(Darwin)
        Darwin.listen(fd, backlog)
        #elseif canImport(Glibc)
        Glibc.listen(fd, backlog)
        #elseif canImport(Musl)
        Musl.listen(fd, backlog)
        #endif
    }

    /// 127.0.0.1:`port`.
    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        return address
    }

    /// The next connection waiting on `listener`, non-blocking, without
    /// Nagle's delay (small patches go at once) and without SIGPIPE; nil when none waits.
    static func accept(_ listener: Int32) -> Int32? {
        #if canImport(Darwin)
        let fd = Darwin.accept(listener, nil, nil)
        #elseif canImport(Glibc)
        let fd = Glibc.accept(listener, nil, nil)
        #elseif canImport(Musl)
        let fd = Musl.accept(listener, nil, nil)
        #endif
        guard fd >= 0 else { return nil }
        configure(fd)
        return fd
    }

    /// Non-blocking, close-on-exec, no Nagle, no SIGPIPE (Darwin's socket option).
    static func configure(_ fd: Int32) {
        setNonBlocking(fd)
        var yes: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #else
        // No SO_NOSIGPIPE here: each send passes MSG_NOSIGNAL (`write(_:_:)`).
        #endif
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL, 0)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    /// Reads what is there, up to `buffer`'s room.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .closed
            }
        }
    }

    /// Writes what the socket takes now.
    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> WriteResult {
        guard !bytes.isEmpty else { return .wrote(0) }
        while true {
            #if canImport(Darwin)
            let n = send(fd, bytes.baseAddress, bytes.count, 0)
            #elseif canImport(Glibc)
            let n = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            #elseif canImport(Musl)
            let n = send(fd, bytes.baseAddress, bytes.count, MSG_NOSIGNAL)
            #endif
            if n >= 0 { return .wrote(n) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed
            }
        }
    }

    /// Ends the writing side: the peer reads the response to its end, and
    /// what it still sends is read and dropped before the socket closes
    /// (closing with unread bytes would reset the connection, and the peer
    /// could lose the response).
    static func shutdownWrite(_ fd: Int32) {
        #if canImport(Darwin)
        _ = Darwin.shutdown(fd, SHUT_WR)
        #elseif canImport(Glibc)
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        #elseif canImport(Musl)
        _ = Musl.shutdown(fd, SHUT_WR)
        #endif
    }

    static func close(_ fd: Int32) {
        #if canImport(Darwin)
        _ = Darwin.close(fd)
        #elseif canImport(Glibc)
        _ = Glibc.close(fd)
        #elseif canImport(Musl)
        _ = Musl.close(fd)
        #endif
    }

    /// A socket to watch, and what it turned out ready for.
    struct Watch {
        var socket: Int32
        var read: Bool
        var write: Bool
        var readable = false, writable = false, failed = false
    }

    /// Waits up to `milliseconds` until a watched socket is ready; fills in
    /// what each is ready for. Returns false when interrupted by a signal.
    static func poll(_ watches: inout [Watch], milliseconds: Int32) -> Bool {
        var fds = watches.map { watch in
            pollfd(fd: watch.socket, events: Int16((watch.read ? POLLIN : 0) | (watch.write ? POLLOUT : 0)), revents: 0)
        }
        #if canImport(Darwin)
        let n = Darwin.poll(&fds, nfds_t(fds.count), milliseconds)
        #elseif canImport(Glibc)
        let n = Glibc.poll(&fds, nfds_t(fds.count), milliseconds)
        #elseif canImport(Musl)
        let n = Musl.poll(&fds, nfds_t(fds.count), milliseconds)
        #endif
        guard n >= 0 else { return false }
        for k in watches.indices {
            let events = Int32(fds[k].revents)
            watches[k].readable = events & Int32(POLLIN) != 0
            watches[k].writable = events & Int32(POLLOUT) != 0
            watches[k].failed = events & Int32(POLLERR | POLLNVAL) != 0 || (events & Int32(POLLHUP) != 0 && events & Int32(POLLIN) == 0)
        }
        return true
    }

    // MARK: Signals

    /// SIGINT and SIGTERM ask the server to stop (it closes its sockets and
    /// exits 0); SIGPIPE is ignored.
    static func installStopSignals() {
        serveStopRequested = 0
        for sig in [SIGINT, SIGTERM] {
            var action = sigaction()
            let handler: @convention(c) (Int32) -> Void = { _ in serveStopRequested = 1 }
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
        signal(SIGPIPE, SIG_IGN)
        // A parent may have left these blocked (the mask is inherited).
        var handled = sigset_t()
        sigemptyset(&handled)
        sigaddset(&handled, SIGINT)
        sigaddset(&handled, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
    }

    /// Whether SIGINT or SIGTERM arrived since ``installStopSignals()``.
    static var stopRequested: Bool { serveStopRequested != 0 }

    // MARK: A client, for tests

    /// A blocking connection to 127.0.0.1:`port`, writes without SIGPIPE.
    static func connect(port: UInt16) throws(Failure) -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(call: "socket", code: errno) }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Darwin)
                Darwin.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #elseif canImport(Glibc)
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #elseif canImport(Musl)
                Musl.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #endif
            }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw Failure(call: "connect to 127.0.0.1:\(port)", code: code)
        }
        var yes: Int32 = 1
        #if canImport(Darwin)
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #else
        // No SO_NOSIGPIPE here: the process ignores SIGPIPE (`installStopSignals()`), and the server's sends pass MSG_NOSIGNAL.
        #endif
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    /// Waits up to `milliseconds` for `fd` to be readable (or closed).
    static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var watches = [Watch(socket: fd, read: true, write: false)]
        return poll(&watches, milliseconds: milliseconds) && (watches[0].readable || watches[0].failed)
    }
}
