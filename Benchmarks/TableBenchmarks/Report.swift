import Foundation

/// The text and JSON reports of a benchmark run.
enum Report {
    struct Document: Codable {
        var toolchain: String
        var benchmarks: [Result]
    }

    /// The ratio of a result's median to a target's reference, if measured.
    static func ratio(_ result: Result, _ target: Target, in results: [Result]) -> Double? {
        if let baseline = result.baselines[target.against] { return result.wallClock.p50 / baseline.p50 }
        if let other = results.first(where: { $0.name == target.against }) { return result.wallClock.p50 / other.wallClock.p50 }
        return nil
    }

    /// A ratio with two decimals; one under 0.01 with its digits and as "N× faster".
    static func ratioText(_ ratio: Double) -> String {
        guard ratio < 0.01, ratio > 0 else { return String(format: "%.2f×", ratio) }
        return String(format: "%.6f× (%.0f× faster)", ratio, 1 / ratio)
    }

    static func duration(_ ns: Double) -> String {
        if ns >= 1e9 { return String(format: "%.2f s", ns / 1e9) }
        if ns >= 1e6 { return String(format: "%.2f ms", ns / 1e6) }
        if ns >= 1e3 { return String(format: "%.1f µs", ns / 1e3) }
        return String(format: "%.0f ns", ns)
    }

    static func bytes(_ n: Int) -> String { String(format: "%.1f MB", Double(n) / 1_048_576) }

    static func text(_ results: [Result]) -> String {
        var lines: [String] = []
        for r in results {
            lines.append("\(r.name) — \(r.summary)")
            let w = r.wallClock
            lines.append("  wallClock p50 \(duration(w.p50))  (p0 \(duration(w.p0)), p25 \(duration(w.p25)), p75 \(duration(w.p75)), p90 \(duration(w.p90)), p100 \(duration(w.p100)); \(w.samples) samples)")
            lines.append("  cold first run \(duration(r.coldRun)) (page faults included; samples run with a warm heap)")
            lines.append("  cpuUser \(duration(r.cpuUser))  cpuSystem \(duration(r.cpuSystem))  peakMemoryResident \(bytes(r.peakMemoryResident)) (+\(bytes(r.peakMemoryResidentDelta)) over the inputs)")
            for (name, b) in r.baselines.sorted(by: { $0.key < $1.key }) {
                lines.append("  baseline \(name): p50 \(duration(b.p50)) (\(b.samples) samples) → ratio \(ratioText(w.p50 / b.p50))")
            }
            for (name, reason) in r.skippedBaselines.sorted(by: { $0.key < $1.key }) {
                lines.append("  baseline \(name): not run (\(reason))")
            }
            if !r.counters.isEmpty {
                lines.append("  " + r.counters.sorted(by: { $0.key < $1.key }).map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            }
            for t in r.targets {
                if let ratio = ratio(r, t, in: results) {
                    let ok = ratio <= t.atMost
                    lines.append("  target: ≤ \(t.atMost)× \(t.against) → \(ratioText(ratio)) \(ok ? "met" : "MISSED")")
                } else {
                    lines.append("  target: ≤ \(t.atMost)× \(t.against) → not measured in this run")
                }
            }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// Each benchmark's median now against a saved run, and the ratios to its
    /// baselines then and now (ratios travel between machines; times do not).
    static func comparison(_ results: [Result], with saved: [Result]) -> String {
        var lines = ["compared with the saved run:"]
        for r in results {
            guard let old = saved.first(where: { $0.name == r.name }) else {
                lines.append("  \(r.name): not in the saved run")
                continue
            }
            var line = "  \(r.name): p50 \(duration(old.wallClock.p50)) → \(duration(r.wallClock.p50)) (\(String(format: "%.2f", r.wallClock.p50 / old.wallClock.p50))×)"
            for (name, b) in r.baselines.sorted(by: { $0.key < $1.key }) {
                if let before = old.baselines[name] {
                    line += "; vs \(name) \(String(format: "%.2f", old.wallClock.p50 / before.p50))× → \(String(format: "%.2f", r.wallClock.p50 / b.p50))×"
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ results: [Result]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let document = Document(toolchain: toolchain, benchmarks: results)
        return (try? String(data: encoder.encode(document), encoding: .utf8)) ?? "{}"
    }

    static var toolchain: String {
        #if compiler(>=6.3)
        "Swift 6.3 or later"
        #else
        "Swift 6"
        #endif
    }
}
