import Foundation
import Testing

/// `custodian loadgen` and `custodian bench` against a real platform, briefly: every scenario runs and every write it
/// was told had been stored is read back exactly once. Correctness only — no figure is asserted here; figures come
/// from release builds (docs/benchmarks.md).
extension OneAtATime {
    @Suite("Load generator and benchmarks", .serialized, .runningPlatform)
    struct LoadTests {
        func loadgen(_ arguments: [String]) async throws -> LoadReport {
            let run = try await platform.loadgen(arguments)
            #expect(run.status == 0, "\(run.output)")
            return try #require(run.report, "no report: \(run.output)")
        }

        @Test(arguments: ["twomes", "opensense", "vault", "lemon", "geotag"])
        func everyScenarioRunsAndLosesNothing(scenario: String) async throws {
            let report = try await loadgen(["--scenario", scenario, "--duration", "3s", "--concurrency", "4", "--clients", "4"])
            #expect(report.total.operations > 0)
            #expect(report.total.errors == 0, "\(report.total.statuses)")
            let check = try #require(report.verification.first)
            #expect(check.scenario == scenario)
            #expect(check.acknowledged > 0, "nothing was written")
            #expect(check.lost == 0 && check.duplicated == 0 && check.found == check.acknowledged)
            #expect(!report.memory.isEmpty, "the platform's processes are found by their pid files")
            // The slowest requests (issue 29): at most ten, slowest first, the slowest the run's maximum, each with
            // its answer's status and the trace id of its `traceparent`.
            let slowest = report.slowest.map(\.ms)
            #expect(!slowest.isEmpty && slowest.count <= 10 && slowest == slowest.sorted(by: >))
            #expect(abs((slowest.first ?? 0) - report.total.maxMilliseconds) <= report.total.maxMilliseconds / 100, "\(slowest)")
            #expect(report.slowest.allSatisfy { $0.operation.hasPrefix(scenario + "/") && $0.status != nil })
            // Every answer has a `traceparent`, so every slow request names its trace (docs/operations.md, "Tracing").
            #expect(report.slowest.allSatisfy { $0.trace_id?.count == 32 }, "\(report.slowest)")
        }

        @Test func theMixArrivesAtAFixedRate() async throws {
            // A bare number is seconds, as the issue's own `--duration 60` has it.
            let report = try await loadgen(["--scenario", "mixed", "--duration", "4", "--rate", "40", "--ramp-up", "1s", "--clients", "4"])
            #expect(report.durationSeconds == 4)
            #expect(Set(report.scenarios.keys) == ["twomes", "opensense", "vault", "lemon", "geotag"])
            #expect(report.total.errors == 0, "\(report.total.statuses)")
            #expect(report.verification.count == 5)
            #expect(report.verification.allSatisfy { $0.lost == 0 && $0.duplicated == 0 })
        }

        @Test func badArgumentsAreExplained() async throws {
            let platform = try platform
            let bad = try await platform.custodian(["loadgen", "--scenario", "everything", "--data-dir", platform.dataDirectory])
            #expect(bad.status != 0)
            #expect(bad.output.contains("--scenario must be one of twomes, opensense, vault, lemon, geotag or mixed"), "\(bad.output)")
            let soon = try await platform.custodian(["loadgen", "--duration", "soon", "--data-dir", platform.dataDirectory])
            #expect(soon.status != 0)
            #expect(soon.output.contains("--duration must be a duration such as 30s, 10m or 60 (seconds), not 'soon'"), "\(soon.output)")
        }

        @Test func theBenchmarksRunSideBySide() async throws {
            let platform = try platform
            let reportPath = NSTemporaryDirectory() + "bench-\(UUID().uuidString).json"
            defer { try? FileManager.default.removeItem(atPath: reportPath) }
            let run = try await platform.custodian([
                "bench", "--server", platform.baseURL, "--data-dir", platform.dataDirectory,
                "--duration", "2s", "--report", reportPath,
            ])
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("split-tax") && run.output.contains("batch-writes") && run.output.contains("ingestion"), "\(run.output)")
            let data = try #require(FileManager.default.contents(atPath: reportPath))
            let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let tax = try #require(report["splitTax"] as? [String: Any])
            #expect(tax["errors"] as? Int == 0)
            #expect((tax["gatewayPerSecond"] as? Double ?? 0) > 0 && (tax["inProcessPerSecond"] as? Double ?? 0) > 0)
            let writes = try #require(report["batchWrites"] as? [String: Any])
            #expect(writes["lost"] as? Int == 0 && writes["items"] as? Int == 20_000)
            let ingestion = try #require(report["ingestion"] as? [[String: Any]])
            #expect(ingestion.map { $0["connections"] as? Int } == [1, 8, 32, 256, 8])
            #expect(ingestion.allSatisfy { $0["errors"] as? Int == 0 })
            #expect(report["ingestionLost"] as? Int == 0)
        }
    }
}
