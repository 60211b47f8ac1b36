import ArgumentParser
import CustodianLoad
import CustodianRPC
import CustodianRuntime
import Foundation

/// `custodian bench`: figures measured side by side in one run, each a ratio or a curve (docs/benchmarks.md).
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measures the platform side by side: the RPC hop, batch writes against COPY, ingestion from 1 to 256 connections.",
        discussion: """
            split-tax: the same small handler (an OpenSense upload refused 400 for its missing device_id, no SQL) served \
            in this process by a bare Hummingbird app, and through the gateway and one RPC hop to devices. \
            batch-writes: vault items written through the API in batches of 1000, and the same rows copied with COPY \
            into a table of the same shape. ingestion: Twomes heartbeat uploads with 1, 8, 32 and 256 connections, and \
            uploads of 100 measurements with 8. Figures come from release builds (Deploy/dev/bench.sh); run the \
            platform with CUSTODIAN_RATE_LIMITS=off.
            """)

    enum Part: String, ExpressibleByArgument, CaseIterable {
        case splitTax = "split-tax", batchWrites = "batch-writes", ingestion, all
    }

    @Argument(help: "split-tax, batch-writes, ingestion or all.") var part: Part = .all
    @Option(help: "How long each measurement lasts.") var duration = "10s"
    @Option(help: "Write the figures as JSON to this file.") var report: String?
    @Option(help: "An administrator's database URL, for COPY (default: the private cluster of --data-dir).") var databaseURL: String?
    @OptionGroup var connection: ServerConnection

    func run() async throws {
        guard let length = CommandLineDuration.parse(duration), length > .zero else {
            throw ValidationError("--duration must be a duration such as 10s or 10 (seconds), not '\(duration)'")
        }
        let client = try connection.loadClient(connections: 256)
        let outcome: Result<BenchReport, any Error>
        do {
            var result = BenchReport(server: connection.server, durationSeconds: length.seconds)
            if part == .splitTax || part == .all { result.splitTax = try await SplitTaxBench(connection: connection, duration: length).run() }
            if part == .batchWrites || part == .all {
                result.batchWrites = try await BatchWriteBench(
                    databaseURL: try databaseURL.map { try DatabaseURL($0) } ?? connection.privateClusterURL()
                ).run(client)
            }
            if part == .ingestion || part == .all {
                (result.ingestion, result.ingestionLost) = try await IngestionBench(duration: length).run(client)
            }
            outcome = .success(result)
        } catch {
            outcome = .failure(error)
        }
        await client.shutdown()
        let result = try outcome.mapError { CLIError("\($0)") }.get()
        print(result.table)
        if let report {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(result).write(to: URL(fileURLWithPath: report))
        }
        if result.errors > 0 || result.lost > 0 { throw ExitCode(1) }
    }
}
