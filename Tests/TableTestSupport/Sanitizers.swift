#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether the address sanitizer's runtime is loaded (`swift test
/// --sanitize=address`). It keeps locals on a "fake stack" on the heap and
/// makes frames larger, so the tests of small thread stacks do not apply.
/// (`dlopen(nil)` is the program itself on Darwin and Linux alike.)
public let isRunningUnderAddressSanitizer: Bool = {
    let program = dlopen(nil, RTLD_NOW)
    defer { if let program { dlclose(program) } }
    return dlsym(program, "__asan_init") != nil
}()
