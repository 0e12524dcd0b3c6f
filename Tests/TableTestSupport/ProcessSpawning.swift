// Starting a process with posix_spawn and waiting for it with waitpid, for
// tests that start programs which leave daemons behind (tmux): Foundation's
// Process can miss the exit of a client whose server lives on.
//
// The C library's spawn types differ: on Darwin `posix_spawn_file_actions_t`
// and `posix_spawnattr_t` are opaque pointers (optional, filled in by their
// `_init`), on Glibc and Musl they are structs; the process environment is
// `_NSGetEnviron()` on Darwin and `environ` elsewhere.

import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("ProcessSpawning needs a POSIX C library: Darwin, Glibc or Musl")
#endif

public enum ProcessSpawning {
    public struct Failed: Error, CustomStringConvertible {
        public var program: String
        public var status: Int32
        public var description: String { "could not start \(program): \(String(cString: strerror(status)))" }
    }

    /// Runs `program` with `arguments` to its end, with standard input from
    /// /dev/null, standard output into a temporary file, standard error
    /// discarded, and no signal blocked; returns what it printed.
    public static func run(_ program: String, _ arguments: [String]) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString).out").path
        defer { unlink(file) }
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The program starts with no signal blocked, whatever this thread blocks.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        #if canImport(Darwin)
        let environment = _NSGetEnviron().pointee
        #else
        let environment = environ
        #endif
        var pid: pid_t = 0
        let status = posix_spawn(&pid, program, &actions, &attributes, argv, environment)
        guard status == 0 else { throw Failed(program: program, status: status) }
        var exit: Int32 = 0
        while waitpid(pid, &exit, 0) < 0 && errno == EINTR {}
        return String(decoding: FileManager.default.contents(atPath: file) ?? Data(), as: UTF8.self)
    }
}
