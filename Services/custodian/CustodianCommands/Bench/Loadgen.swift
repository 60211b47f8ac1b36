import ArgumentParser
import CustodianLoad
import CustodianRuntime
import Foundation
import Synchronization

/// `custodian loadgen`: drives the platform's real flows as real clients do, and checks afterwards that every write
/// it was told had been stored was stored exactly once (docs/benchmarks.md).
struct Loadgen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Puts load on a running platform through its real flows, and reads every acknowledged write back.",
        discussion: """
            Scenarios: twomes, opensense, vault, lemon, geotag, or mixed (40/15/15/20/10). With --rate the load \
            arrives at that many requests a second whatever the answers take (latencies counted from when each \
            request was due); otherwise --concurrency clients send one request after another. Set-up (accounts, \
            devices, users, consumers) goes through the admin API before the clock starts. A load from one address \
            meets the gateway's rate limits: run the platform with CUSTODIAN_RATE_LIMITS=off.
            """)

    @Option(help: "twomes, opensense, vault, lemon, geotag or mixed.") var scenario = "mixed"
    @Option(help: "Requests a second (the open model).") var rate: Double?
    @Option(help: "Concurrent clients (the closed model; used when --rate is not given).") var concurrency = 8
    @Option(help: "How long the load lasts: 30s, 10m, or seconds (60).") var duration = "30s"
    @Option(help: "With --rate: the time to rise to it.") var rampUp = "5s"
    @Option(help: "Simulated clients per scenario (devices, apps; users and consumers are fewer).") var clients = 32
    @Option(help: "Write the figures as JSON to this file.") var report: String?
    @Flag(help: "Skip reading the acknowledged writes back.") var noVerify = false
    @OptionGroup var connection: ServerConnection

    /// The load the options describe, or the first option that is wrong.
    func plan() throws -> LoadPlan {
        let kinds: [(ScenarioKind, Int)]
        if scenario == "mixed" {
            kinds = ScenarioKind.mixedWeights
        } else if let kind = ScenarioKind(rawValue: scenario) {
            kinds = [(kind, 1)]
        } else {
            throw ValidationError(
                "--scenario must be one of \(ScenarioKind.allCases.map(\.rawValue).joined(separator: ", ")) or mixed, not '\(scenario)'")
        }
        guard let length = CommandLineDuration.parse(duration), length > .zero else {
            throw ValidationError("--duration must be a duration such as 30s, 10m or 60 (seconds), not '\(duration)'")
        }
        guard let ramp = CommandLineDuration.parse(rampUp) else { throw ValidationError("--ramp-up must be a duration such as 5s, not '\(rampUp)'") }
        guard clients > 0, clients <= 10_000 else { throw ValidationError("--clients must be from 1 to 10000") }
        let model: LoadModel
        if let rate {
            guard rate > 0, rate <= 1_000_000 else { throw ValidationError("--rate must be more than 0") }
            model = .open(rate: rate, rampUp: ramp)
        } else {
            guard concurrency > 0, concurrency <= 10_000 else { throw ValidationError("--concurrency must be from 1 to 10000") }
            model = .closed(concurrency: concurrency)
        }
        return LoadPlan(model: model, duration: length, scenarios: kinds, clients: clients, verify: !noVerify)
    }

    func run() async throws {
        let plan = try self.plan()
        let client = try connection.loadClient(connections: rate.map { Int(min(1024, max(64, $0 / 4))) } ?? concurrency)
        let interactive = isatty(STDOUT_FILENO) == 1
        // Into a file or a pipe (CI logs, `nohup`): whole lines, flushed as they come, and progress every ten seconds.
        let updates = Atomic<Int>(0)
        let output = LoadOutput(
            line: { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) },
            progress: { text in
                if interactive {
                    // Rewritten in place: carriage return, erase the line.
                    FileHandle.standardOutput.write(Data(("\r\u{1B}[2K" + text).utf8))
                } else if !text.isEmpty, updates.add(1, ordering: .relaxed).newValue % 10 == 0 {
                    FileHandle.standardOutput.write(Data((text + "\n").utf8))
                }
            })
        let outcome: Result<LoadReport, any Error>
        do {
            outcome = .success(
                try await LoadRunner.run(
                    plan, client: client, output: output,
                    processes: ProcessMemory.platformProcesses(dataDirectory: connection.dataDir)))
        } catch {
            outcome = .failure(error)
        }
        await client.shutdown()
        let result = try outcome.mapError { CLIError("\($0)") }.get()
        print(result.table)
        if let report { try result.json().write(to: URL(fileURLWithPath: report)) }
        if result.total.errors > 0 || result.lost > 0 || result.duplicated > 0 {
            throw ExitCode(1)
        }
    }
}
