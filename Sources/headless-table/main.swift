import Foundation
import HeadlessTableTool
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

// headless-table: the command-line tool. See `headless-table help`.

#if canImport(Darwin)
// The system allocator returns large buffers to the system when they are freed.
#elseif canImport(Glibc)
// A fixed mmap threshold (glibc's default, 128 KiB): the dynamic one rises to
// the size of each large buffer freed (the reader's), so that later large
// buffers (a sort's, 20 MB at a million rows) come from the heap and stay
// there when freed — 17 MB of the peak of `render --sort name` at 900k rows.
// (`mallopt` is in malloc.h, which the Glibc module does not import: found
// by name; RTLD_DEFAULT is the null handle; M_MMAP_THRESHOLD is -3.)
if let mallopt = dlsym(nil, "mallopt") {
    _ = unsafeBitCast(mallopt, to: (@convention(c) (Int32, Int32) -> Int32).self)(-3, 128 * 1024)
}
#else
// Other C libraries: their allocators' defaults.
#endif

let status = HeadlessTableCommand.run(arguments: Array(CommandLine.arguments.dropFirst()), output: .standard)
exit(status)
