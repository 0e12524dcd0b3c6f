// Making written bytes durable, per C library.
//
// On Linux `fsync` returns once the data is on the disk. On Darwin `fsync`
// only hands the data to the drive, which may keep it in its volatile cache
// and reorder it; `fcntl(F_FULLFSYNC)` asks the drive to write it out, which
// is what a store that promises a save survives a power cut needs. Some file
// systems (network shares, FAT) refuse F_FULLFSYNC: then `fsync` is the best
// there is.

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("the store's durability needs a POSIX C library: Darwin, Glibc or Musl")
#endif

/// Flushes a file's (or a folder's) written data to the disk; 0 on success,
/// -1 with `errno` set otherwise.
func _flushToDisk(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
    if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
    return fsync(fd)
    #else
    return fsync(fd)
    #endif
}
