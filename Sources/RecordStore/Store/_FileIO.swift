// The journal file's calls into the C library, per platform.
//
// - Locks are `flock` locks: they belong to an open file description, so two
//   stores on one file exclude each other in one process as well as in two
//   (POSIX `fcntl` record locks belong to the process: a second store in the
//   same process would pass straight through, and closing any descriptor of
//   the file would drop the first one's lock). Darwin and Linux both have
//   `flock`; on Linux over NFS it is emulated with `fcntl` locks, which still
//   exclude other machines and processes. A process that dies holding a lock
//   releases it with its last descriptor.
// - Durability: see `_flushToDisk` (`F_FULLFSYNC` on Darwin, `fsync` elsewhere).
// - Reads and writes are positional (`pread`, `pwrite`), so a background
//   compaction can read the same descriptor while a save appends.
// - Descriptors are opened close-on-exec: a store's lock must not leak into a
//   child process (which would keep it after the store closed).

import Foundation
import InternalTableUtilities
import PredicateFormat
import Records
import TableDiff

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("the journal file needs a POSIX C library: Darwin, Glibc or Musl")
#endif

/// The text of the C library's last error.
func _lastErrorText() -> String { String(cString: strerror(errno)) }

/// An open file: closed when released.
final class _File: @unchecked Sendable {
    // The descriptor never changes; the kernel serializes positional reads and
    // writes on it, and the callers serialize everything else.
    let fd: Int32
    let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// Opens an existing file for reading and writing (or reading only when
    /// it cannot be written).
    static func openExisting(_ path: String) -> Result<_File, _IOFailure> {
        var fd: Int32
        repeat { fd = open(path, O_RDWR | O_CLOEXEC) } while fd < 0 && errno == EINTR
        if fd < 0, errno == EACCES || errno == EROFS || errno == EPERM {
            repeat { fd = open(path, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        }
        guard fd >= 0 else { return .failure(_IOFailure(code: errno)) }
        return .success(_File(fd: fd, path: path))
    }

    /// Creates a new file that must not exist yet.
    static func create(_ path: String) -> Result<_File, _IOFailure> {
        var fd: Int32
        repeat { fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { return .failure(_IOFailure(code: errno)) }
        return .success(_File(fd: fd, path: path))
    }

    /// The file's size and identity (device and inode).
    func status() -> Result<_FileStatus, _IOFailure> {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(_IOFailure(code: errno)) }
        return _FileStatus.of(info)
    }

    /// Reads `count` bytes at `offset` (fewer at the end of the file).
    func read(at offset: Int, count: Int) -> Result<[UInt8], _IOFailure> {
        guard count > 0 else { return .success([]) }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        var failure: _IOFailure?
        bytes.withUnsafeMutableBytes { buffer in
            while done < count {
                let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(offset + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = _IOFailure(code: errno)
                    return
                }
                if n == 0 { return }
                done += n
            }
        }
        if let failure { return .failure(failure) }
        if done < count { bytes.removeLast(count - done) }
        return .success(bytes)
    }

    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: [UInt8], at offset: Int) -> _IOFailure? {
        var done = 0
        var failure: _IOFailure?
        bytes.withUnsafeBytes { buffer in
            while done < buffer.count {
                let n = pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = _IOFailure(code: errno)
                    return
                }
                done += n
            }
        }
        return failure
    }

    /// Cuts the file to `size` bytes.
    func truncate(to size: Int) -> _IOFailure? {
        var status: Int32
        repeat { status = ftruncate(fd, off_t(size)) } while status != 0 && errno == EINTR
        return status == 0 ? nil : _IOFailure(code: errno)
    }

    /// Makes what was written durable (see `_flushToDisk`).
    func flush() -> _IOFailure? {
        _flushToDisk(fd) == 0 ? nil : _IOFailure(code: errno)
    }

    /// Waits for the file's lock: shared (readers) or exclusive (a writer).
    ///
    /// The flock is a lock of the store's order (`_LockLevel.journalFile`,
    /// after the journal's state): debug builds check it is taken in order.
    func lock(exclusive: Bool) -> _IOFailure? {
        _LockOrder.willAcquire(.journalFile)
        var status: Int32
        repeat { status = flock(fd, exclusive ? LOCK_EX : LOCK_SH) } while status != 0 && errno == EINTR
        guard status == 0 else {
            let failure = _IOFailure(code: errno)
            _LockOrder.didRelease(.journalFile)
            return failure
        }
        return nil
    }

    /// Releases the file's lock.
    func unlock() {
        var status: Int32
        repeat { status = flock(fd, LOCK_UN) } while status != 0 && errno == EINTR
        _LockOrder.didRelease(.journalFile)
    }
}

/// The first `count` bytes of an open file, read-only, as memory: mapped
/// (`mmap`, the same call on Darwin and Linux) so that only the pages read
/// are brought in, or read whole when the file cannot be mapped (a 32-bit
/// address space too small for it). The snapshot part of a store file never
/// changes once written (a compaction writes a new file and renames it
/// over), so the mapping stays valid as long as this object lives, even
/// after the name points to another file.
final class _MappedBytes: @unchecked Sendable {
    let base: UnsafeRawPointer
    let count: Int
    /// The file, for positional reads of long runs (not counted as the
    /// process's memory, as mapped pages are once read).
    let file: _File
    private let isMapped: Bool

    private init(base: UnsafeRawPointer, count: Int, file: _File, isMapped: Bool) {
        self.base = base
        self.count = count
        self.file = file
        self.isMapped = isMapped
    }

    /// Maps (or reads) the first `count` bytes of `file`.
    static func map(_ file: _File, count: Int) -> Result<_MappedBytes, _IOFailure> {
        guard count > 0 else {
            let empty = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 8)
            return .success(_MappedBytes(base: UnsafeRawPointer(empty), count: 0, file: file, isMapped: false))
        }
        if let address = mmap(nil, count, PROT_READ, MAP_SHARED, file.fd, 0), address != UnsafeMutableRawPointer(bitPattern: -1) {
            return .success(_MappedBytes(base: UnsafeRawPointer(address), count: count, file: file, isMapped: true))
        }
        switch file.read(at: 0, count: count) {
        case .failure(let failure): return .failure(failure)
        case .success(let bytes):
            guard bytes.count == count else { return .failure(_IOFailure(code: EIO)) }
            let copy = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 8)
            bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: count) }
            return .success(_MappedBytes(base: UnsafeRawPointer(copy), count: count, file: file, isMapped: false))
        }
    }

    /// The bytes, as a buffer.
    var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    deinit {
        if isMapped {
            munmap(UnsafeMutableRawPointer(mutating: base), count)
        } else {
            UnsafeMutableRawPointer(mutating: base).deallocate()
        }
    }
}

/// A failed call: its `errno`.
struct _IOFailure: Error {
    var code: Int32
    var text: String { String(cString: strerror(code)) }
    var isMissing: Bool { code == ENOENT }
    var alreadyExists: Bool { code == EEXIST }
}

/// What `stat` says about a file.
struct _FileStatus: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int
    var isDirectory: Bool
    var isSymbolicLink: Bool

    /// The status `stat` gave, or EOVERFLOW for a file larger than `Int`
    /// counts (2 GiB where it has 32 bits).
    static func of(_ info: stat) -> Result<_FileStatus, _IOFailure> {
        guard let size = Int(exactly: info.st_size) else { return .failure(_IOFailure(code: EOVERFLOW)) }
        return .success(_FileStatus(
            device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino), size: size,
            isDirectory: (info.st_mode & S_IFMT) == S_IFDIR, isSymbolicLink: (info.st_mode & S_IFMT) == S_IFLNK))
    }

    /// Whether two statuses are of the same file.
    func isSameFile(as other: _FileStatus) -> Bool { device == other.device && inode == other.inode }
}

/// Calls on paths.
enum _FileSystem {
    /// The status of the file at `path`, following symbolic links.
    static func status(_ path: String) -> Result<_FileStatus, _IOFailure> {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(_IOFailure(code: errno)) }
        return _FileStatus.of(info)
    }

    /// The status of `path` itself (a symbolic link is not followed).
    static func linkStatus(_ path: String) -> Result<_FileStatus, _IOFailure> {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .failure(_IOFailure(code: errno)) }
        return _FileStatus.of(info)
    }

    /// Where a symbolic link points (its text, unresolved).
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n >= 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The absolute path with every symbolic link resolved; nil when some part is missing.
    static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// Renames atomically, replacing `to`.
    static func rename(_ from: String, to: String) -> _IOFailure? {
        _systemRename(from, to) == 0 ? nil : _IOFailure(code: errno)
    }

    /// Makes `to` a new name of `from`; fails when `to` exists (atomically).
    static func link(_ from: String, to: String) -> _IOFailure? {
        #if canImport(Darwin)
        return Darwin.link(from, to) == 0 ? nil : _IOFailure(code: errno)
        #elseif canImport(Glibc)
        return Glibc.link(from, to) == 0 ? nil : _IOFailure(code: errno)
        #elseif canImport(Musl)
        return Musl.link(from, to) == 0 ? nil : _IOFailure(code: errno)
        #endif
    }

    /// Removes a name; true when it was removed.
    @discardableResult
    static func remove(_ path: String) -> Bool { unlink(path) == 0 }

    /// Makes the entries of a folder (a rename, a new file) durable.
    static func flushFolder(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = _flushToDisk(fd)
        close(fd)
    }

    /// The names in a folder.
    static func names(in folder: String) -> [String] {
        // (Not readdir's `entry.pointee`: copying a whole `dirent` reads past the
        // end of an entry shorter than the struct, as the address sanitizer shows.)
        (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    }

    /// Whether a process with this identifier is gone.
    static func processIsGone(_ pid: Int32) -> Bool {
        kill(pid, 0) != 0 && errno == ESRCH
    }

    /// This process's identifier.
    static var processIdentifier: Int32 { getpid() }
}

private func _systemRename(_ from: String, _ to: String) -> Int32 {
    #if canImport(Darwin)
    return Darwin.rename(from, to)
    #elseif canImport(Glibc)
    return Glibc.rename(from, to)
    #elseif canImport(Musl)
    return Musl.rename(from, to)
    #endif
}
