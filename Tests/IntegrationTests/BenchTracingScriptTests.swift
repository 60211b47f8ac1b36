import CustodianProcess
import Foundation
import ProcessTestSupport
import Testing

extension TracingTests {
    /// `Deploy/dev/bench-tracing.sh`, the command docs/benchmarks.md gives for what tracing costs, run briefly on the
    /// debug build: one short round of each setting, and the table an operator reads the ratio from. The figures of a
    /// debug build mean nothing; what is checked is that the script runs each setting as it says.
    @Suite("Tracing: the benchmark script")
    struct BenchScript {
        @Test func oneShortRoundOfEachSettingPrintsTheTable() async throws {
            let binaries = try RunningPlatform.binaryDirectory()
            // Three ports in a row, one per setting.
            var first = try FreePort.find()
            for _ in 0..<20 where !(1...2).allSatisfy({ FreePort.isFree(first + $0) }) || first > 65_000 { first = try FreePort.find() }
            let run = try await CommandRunner.run(
                "/bin/bash",
                [
                    OTLPReceiver.repositoryRoot + "/Deploy/dev/bench-tracing.sh", binaries, "twomes", "--rounds", "1", "--duration", "3s",
                    "--concurrency", "2",
                ],
                // A variable of the caller's is not the script's: it unsets every OTEL_ one itself.
                environment: ["CUSTODIAN_BENCH_PORT": String(first), "OTEL_TRACES_SAMPLER": "always_off"], together: true)
            #expect(run.status == 0, "\(run.stdout)")
            // The summary: setting, the round's requests/s, median, vs off, errors, spans.
            var rows: [String: [String]] = [:]
            for line in run.stdout.split(separator: "\n") {
                let fields = line.split(separator: " ").map(String.init)
                if let setting = fields.first, ["off", "1%", "100%"].contains(setting), fields.count == 6 { rows[setting] = fields }
            }
            try #require(rows.count == 3, "no summary row for each setting:\n\(run.stdout)")
            for (setting, fields) in rows {
                #expect((Double(fields[1]) ?? 0) > 0, "\(setting) served nothing:\n\(run.stdout)")
                #expect(fields[4] == "0", "\(setting) had errors:\n\(run.stdout)")
            }
            #expect(rows["off"]?[3] == "100.0%", "\(run.stdout)")
            // Spans only where tracing is on, and every request's at 100 %.
            let spans = rows.mapValues { Int($0[5]) ?? -1 }
            #expect(spans["off"] == 0 && (spans["100%"] ?? 0) > 100 && (spans["1%"] ?? -1) < (spans["100%"] ?? 0), "\(run.stdout)")
        }
    }
}
