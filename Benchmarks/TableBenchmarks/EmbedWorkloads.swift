import EmbedderBenchmarks
import Foundation

/// The embedder's benchmarks (Benchmarks/EmbedderBenchmarks: public API
/// only), run by this harness: each 1M workload against its 10k counterpart.
enum EmbedWorkloads {
    static var all: [Workload] {
        EmbedderWorkloads.all.map { embedded in
            Workload(
                name: embedded.name, summary: embedded.summary,
                targets: (embedded.smallerCounterpart.map { [Target(against: $0, atMost: 2)] } ?? [])
                    + embedded.targets.map { Target(against: $0.against, atMost: $0.atMost) }
            ) {
                let samples = embedded.prepare()
                return Prepared(subject: samples.action, counters: samples.counters, maxSamples: embedded.maxSamples, setUp: samples.setUp)
            }
        }
    }
}
