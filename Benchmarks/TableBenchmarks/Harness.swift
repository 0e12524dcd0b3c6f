import Foundation
import InternalTableUtilities
#if canImport(Darwin)
import Darwin   // getrusage, malloc_zone_statistics
#elseif canImport(Glibc)
import Glibc    // getrusage, dlsym (mallopt, malloc_info), open_memstream
#endif

// A small benchmark harness in the manner of ordo-one/package-benchmark and
// google/swift-benchmark, Foundation only: warm-up, timed samples with
// a monotonic clock, percentiles, CPU time and peak resident memory from
// getrusage, and every timing next to baselines measured in the same run.
// Each workload runs in its own child process, so that its peak memory is its own.

/// Keeps a value alive so the optimizer cannot remove the work that made it.
@inline(never) @_optimize(none)
func blackHole<T>(_ value: T) {}

/// A benchmark: a workload and the baselines it is compared with.
struct Workload {
    /// `group/name`, e.g. `diff/flat-100k-uuid`.
    var name: String
    /// What is measured, for people.
    var summary: String
    /// The ratios this workload must stay under.
    var targets: [Target] = []
    /// Builds the inputs (not timed) and returns what to time.
    var prepare: () -> Prepared
}

struct Target: Codable {
    /// A baseline of the same workload (`hashFloor`), or another workload (`diff/flat-1M-uuid`).
    var against: String
    var atMost: Double
}

struct Prepared {
    var subject: () -> Void
    var baselines: [Baseline] = []
    /// Domain counters (stages, changes, cells created, …), computed once.
    var counters: [String: Int] = [:]
    /// How many samples at most; lower for slow workloads.
    var maxSamples = 25
    /// Runs before each sample of the subject (and its cold run), not timed:
    /// what puts the state back for the next one.
    var setUp: (() -> Void)? = nil
}

struct Baseline {
    var name: String
    /// nil when the baseline is skipped (e.g. it would not finish within a minute).
    var run: (() -> Void)?
    var skipped: String? = nil
    var maxSamples = 25
}

/// Percentiles of a set of timings, in nanoseconds.
struct Percentiles: Codable {
    var p0: Double, p25: Double, p50: Double, p75: Double, p90: Double, p99: Double, p100: Double
    var samples: Int

    init(_ values: [Double]) {
        let sorted = values.sorted()
        func at(_ q: Double) -> Double {
            sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((q * Double(sorted.count - 1)).rounded()))]
        }
        p0 = at(0); p25 = at(0.25); p50 = at(0.5); p75 = at(0.75); p90 = at(0.9); p99 = at(0.99); p100 = at(1)
        samples = sorted.count
    }
}

struct Result: Codable {
    var name: String
    var summary: String
    /// The first run, before any warm-up: what a one-off call costs, page faults included.
    var coldRun: Double
    var wallClock: Percentiles
    var cpuUser: Double          // ns per sample
    var cpuSystem: Double        // ns per sample
    var peakMemoryResident: Int  // bytes, whole child process
    var peakMemoryResidentDelta: Int   // bytes, over the memory after the inputs were built
    var baselines: [String: Percentiles]
    var skippedBaselines: [String: String]
    var counters: [String: Int]
    var targets: [Target]
}

struct Usage {
    var user: Double, system: Double, maxResident: Int

    static func now() -> Usage {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let maxResident = Int(usage.ru_maxrss) * 1024   // KiB on Linux
        #else
        getrusage(RUSAGE_SELF, &usage)
        let maxResident = Int(usage.ru_maxrss)          // bytes on Darwin
        #endif
        func ns(_ t: timeval) -> Double { Double(t.tv_sec) * 1e9 + Double(t.tv_usec) * 1e3 }
        return Usage(user: ns(usage.ru_utime), system: ns(usage.ru_stime), maxResident: maxResident)
    }
}

/// Keeps glibc's heap from being trimmed and re-grown between samples, as it is
/// in a long-running program; otherwise the kernel's page zeroing for the
/// megabytes a large diff allocates lands in some samples and not others.
/// The cost of a cold call is reported separately (`coldRun`).
func keepHeapWarm() {
    #if canImport(Glibc)
    // glibc's mallopt (not exported by the Glibc module): M_TRIM_THRESHOLD is -1,
    // M_MMAP_THRESHOLD -3; 32 MiB is the largest mmap threshold glibc accepts.
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
    _ = mallopt(-1, Int32.max)
    _ = mallopt(-3, 32 << 20)
    #elseif canImport(Darwin)
    // Darwin's allocator has no trim threshold to raise: its magazines keep
    // freed regions for reuse already. Nothing to do.
    #endif
}

/// The bytes of heap in use (glibc's `malloc_info`: the arenas' size less
/// their free chunks, plus mapped large blocks); nil where it is not available.
/// Unlike peak resident memory, it goes down when memory is freed, so the
/// difference around building something is what that thing keeps.
func heapInUse() -> Int? {
    #if canImport(Glibc)
    // malloc.h is not in the Glibc module: find malloc_info by name, and read
    // the XML it writes — the totals after the last per-arena report.
    typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info") else { return nil }
    var buffer: UnsafeMutablePointer<CChar>? = nil
    var length = 0
    guard let stream = open_memstream(&buffer, &length) else { return nil }
    _ = unsafeBitCast(symbol, to: MallocInfo.self)(0, stream)
    fclose(stream)
    guard let buffer else { return nil }
    defer { free(buffer) }
    let xml = String(cString: buffer)
    let totals = xml.components(separatedBy: "</heap>").last ?? xml
    func size(_ tag: String) -> Int {
        guard let element = totals.range(of: tag) else { return 0 }
        let rest = totals[element.upperBound...]
        guard let attribute = rest.range(of: "size=\"") else { return 0 }
        return Int(rest[attribute.upperBound...].prefix(while: \.isNumber)) ?? 0
    }
    return size("<system type=\"current\"") - size("<total type=\"fast\"") - size("<total type=\"rest\"") + size("<total type=\"mmap\"")
    #elseif canImport(Darwin)
    // The default zone's statistics: the bytes handed out and not yet freed.
    var statistics = malloc_statistics_t()
    malloc_zone_statistics(nil, &statistics)
    return Int(statistics.size_in_use)
    #else
    return nil
    #endif
}

/// Times the subject and its baselines in interleaved rounds — subject, then
/// each baseline, then again — so that a slow spell of a shared machine falls
/// on all of them alike. Every body runs once untimed first (its time is kept
/// as the cold run; and as a sample when it took over a second). Rounds go on
/// until at least 5 samples and 1 s, or 20 s; each body stops at its own
/// sample limit.
func measureInterleaved(_ bodies: [(maxSamples: Int, run: () -> Void)], setUp: (() -> Void)? = nil) -> (samples: [[Double]], cold: [Double]) {
    // A monotonic clock that needs no macOS 13 (ContinuousClock does).
    func measure(_ body: () -> Void) -> Double { Double(_Monotonic.measure(body)) }
    // The first body's set-up (not timed) before each of its runs.
    let bodies = bodies.enumerated().map { k, body in
        (maxSamples: body.maxSamples, run: body.run, setUp: k == 0 ? setUp : nil)
    }
    func measure(_ body: (maxSamples: Int, run: () -> Void, setUp: (() -> Void)?)) -> Double {
        body.setUp?()
        return measure(body.run)
    }
    let second = 1e9
    var samples = [[Double]](repeating: [], count: bodies.count)
    var cold: [Double] = []
    for (k, body) in bodies.enumerated() {
        let first = measure(body)
        cold.append(first)
        if first > second { samples[k].append(first) }
    }
    let start = _Monotonic.nanoseconds()
    while true {
        var ran = false
        for (k, body) in bodies.enumerated() where samples[k].count < body.maxSamples {
            samples[k].append(measure(body))
            ran = true
        }
        let elapsed = Double(_Monotonic.nanoseconds() - start)
        let enough = samples.enumerated().allSatisfy { k, s in s.count >= min(5, bodies[k].maxSamples) }
        if !ran || (enough && elapsed > second) || elapsed > 20 * second { break }
    }
    return (samples, cold)
}

/// Runs one workload in this process and returns its result.
func runWorkload(_ workload: Workload) -> Result {
    keepHeapWarm()
    let prepared = workload.prepare()
    let afterSetup = Usage.now()
    let measured = prepared.baselines.filter { $0.run != nil }
    let before = Usage.now()
    let (samples, cold) = measureInterleaved(
        [(prepared.maxSamples, prepared.subject)] + measured.map { ($0.maxSamples, $0.run!) }, setUp: prepared.setUp)
    let after = Usage.now()
    var baselines: [String: Percentiles] = [:]
    for (k, baseline) in measured.enumerated() { baselines[baseline.name] = Percentiles(samples[k + 1]) }
    var skipped: [String: String] = [:]
    for baseline in prepared.baselines where baseline.run == nil { skipped[baseline.name] = baseline.skipped ?? "skipped" }
    // CPU time is for the whole measurement (subject and baselines), per subject sample.
    let runs = Double(max(samples[0].count, 1))
    return Result(
        name: workload.name, summary: workload.summary,
        coldRun: cold[0],
        wallClock: Percentiles(samples[0]),
        cpuUser: (after.user - before.user) / runs, cpuSystem: (after.system - before.system) / runs,
        peakMemoryResident: after.maxResident,
        peakMemoryResidentDelta: max(0, after.maxResident - afterSetup.maxResident),
        baselines: baselines, skippedBaselines: skipped, counters: prepared.counters, targets: workload.targets)
}

/// A seeded generator (SplitMix64): the same inputs in every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A UUID drawn from a seeded generator.
func seededUUID(_ g: inout SplitMix64) -> UUID {
    let a = g.next(), b = g.next()
    return UUID(uuid: (
        UInt8(truncatingIfNeeded: a), UInt8(truncatingIfNeeded: a >> 8), UInt8(truncatingIfNeeded: a >> 16), UInt8(truncatingIfNeeded: a >> 24),
        UInt8(truncatingIfNeeded: a >> 32), UInt8(truncatingIfNeeded: a >> 40), UInt8(truncatingIfNeeded: a >> 48) & 0x0F | 0x40, UInt8(truncatingIfNeeded: a >> 56),
        UInt8(truncatingIfNeeded: b) & 0x3F | 0x80, UInt8(truncatingIfNeeded: b >> 8), UInt8(truncatingIfNeeded: b >> 16), UInt8(truncatingIfNeeded: b >> 24),
        UInt8(truncatingIfNeeded: b >> 32), UInt8(truncatingIfNeeded: b >> 40), UInt8(truncatingIfNeeded: b >> 48), UInt8(truncatingIfNeeded: b >> 56)))
}
