import ArgumentParser
import CustodianJSON
import CustodianLoad
import CustodianLocalPostgres
import CustodianRPC
import CustodianRuntime
import CustodianVault
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import ServiceLifecycle

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
                result.batchWrites = try await BatchWriteBench(databaseURL: try databaseURL.map { try DatabaseURL($0) } ?? connection.privateClusterURL()).run(client)
            }
            if part == .ingestion || part == .all { (result.ingestion, result.ingestionLost) = try await IngestionBench(duration: length).run(client) }
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

/// The figures of one `custodian bench` run.
struct BenchReport: Codable {
    struct SplitTax: Codable {
        var inProcessPerSecond: Double
        var gatewayPerSecond: Double
        var ratio: Double
        var inProcessP50Milliseconds: Double
        var gatewayP50Milliseconds: Double
        var addedP50Microseconds: Double
        var errors: Int
    }

    struct BatchWrites: Codable {
        var items: Int
        var batchSize: Int
        var apiItemsPerSecond: Double
        var copyItemsPerSecond: Double
        var ratio: Double
        var lost: Int
    }

    struct Ingestion: Codable {
        var connections: Int
        var measurementsPerUpload: Int
        var uploadsPerSecond: Double
        var measurementsPerSecond: Double
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        var errors: Int
    }

    var server: String
    var durationSeconds: Double
    var splitTax: SplitTax?
    var batchWrites: BatchWrites?
    var ingestion: [Ingestion]?
    var ingestionLost = 0

    var errors: Int { (splitTax?.errors ?? 0) + (ingestion ?? []).map(\.errors).reduce(0, +) }
    var lost: Int { (batchWrites?.lost ?? 0) + ingestionLost }

    var table: String {
        var lines: [String] = []
        if let tax = splitTax {
            lines.append("split-tax     in-process \(Int(tax.inProcessPerSecond))/s, through the gateway \(Int(tax.gatewayPerSecond))/s at 16 connections: "
                         + String(format: "%.2f×", tax.ratio) + " (target ≥ 0.5×)")
            lines.append("              p50 at 1 connection: " + String(format: "%.3f ms in-process, %.3f ms through the gateway: +%.0f µs (target ≤ 150 µs)",
                                                                       tax.inProcessP50Milliseconds, tax.gatewayP50Milliseconds, tax.addedP50Microseconds))
        }
        if let writes = batchWrites {
            lines.append("batch-writes  \(writes.items) vault items in batches of \(writes.batchSize): " + String(format: "%.0f items/s through the API, %.0f/s with COPY: %.0f%% (target ≥ 50%%)",
                                                                                                            writes.apiItemsPerSecond, writes.copyItemsPerSecond, writes.ratio * 100))
        }
        for row in ingestion ?? [] {
            lines.append(String(format: "ingestion     %3d connections, %3d measurement%@ an upload: %7.0f uploads/s, %8.0f measurements/s, p50 %6.2f ms, p99 %7.2f ms, %d errors",
                                row.connections, row.measurementsPerUpload, (row.measurementsPerUpload == 1 ? "" : "s") as NSString,
                                row.uploadsPerSecond, row.measurementsPerSecond, row.p50Milliseconds, row.p99Milliseconds, row.errors))
        }
        if ingestion != nil { lines.append("ingestion     read-back: \(ingestionLost) acknowledged measurements lost") }
        return lines.joined(separator: "\n")
    }
}

/// The RPC hop's cost: the same refusal served by a bare Hummingbird app here, and by `devices` behind the gateway.
struct SplitTaxBench {
    let connection: ServerConnection
    let duration: Duration
    /// How many times each side is measured, in turn.
    static let slices = 5

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    func run() async throws -> BenchReport.SplitTax {
        let certificate = connection.server.hasPrefix("https") ? connection.dataDir + "/tls/cert.pem" : nil
        let key = connection.server.hasPrefix("https") ? connection.dataDir + "/tls/key.pem" : nil
        let tls = try LoadClient.tlsConfiguration(caFile: certificate, insecure: connection.insecure)
        return try await BaselineServer.withProcess(certificate: certificate, key: key) { baseURL in
            // wrk's closed loop, not the flows' client: a small request costs AsyncHTTPClient more than it costs a server.
            let local = try FixedRequestLoad.Target(url: baseURL, tls: tls, method: .POST, path: "/upload", body: "{}", expectedStatus: 400)
            let platform = try FixedRequestLoad.Target(url: connection.server, tls: tls, method: .POST, path: "/upload", body: "{}", expectedStatus: 400)
            func measure(_ target: FixedRequestLoad.Target, concurrency: Int, for length: Duration) async throws -> LatencySummary {
                try await FixedRequestLoad.run(target, connections: concurrency, duration: length)
            }
            // Side by side in alternating slices, and each figure the median over the slices (the added latency the
            // median of each slice pair's difference): a machine that slows down for a while slows both sides alike.
            let slice = duration / Self.slices
            var throughput: [(inProcess: Double, gateway: Double)] = []
            var single: [(inProcess: Double, gateway: Double)] = []
            var errors = 0
            for _ in 0..<Self.slices {
                let (inProcess, gateway) = (try await measure(local, concurrency: 16, for: slice), try await measure(platform, concurrency: 16, for: slice))
                throughput.append((inProcess.throughput, gateway.throughput))
                let (inProcessSingle, gatewaySingle) = (try await measure(local, concurrency: 1, for: slice), try await measure(platform, concurrency: 1, for: slice))
                single.append((inProcessSingle.p50Milliseconds, gatewaySingle.p50Milliseconds))
                errors += inProcess.errors + gateway.errors + inProcessSingle.errors + gatewaySingle.errors
            }
            let inProcess = median(throughput.map(\.inProcess)), gateway = median(throughput.map(\.gateway))
            return BenchReport.SplitTax(
                inProcessPerSecond: inProcess, gatewayPerSecond: gateway,
                ratio: median(throughput.map { $0.inProcess > 0 ? $0.gateway / $0.inProcess : 0 }),
                inProcessP50Milliseconds: median(single.map(\.inProcess)), gatewayP50Milliseconds: median(single.map(\.gateway)),
                addedP50Microseconds: median(single.map { ($0.gateway - $0.inProcess) * 1000 }),
                errors: errors)
        }
    }
}

/// Vault items through the API in batches of 1000, against COPY of the same rows into a table of the same shape.
/// The two alternate, batch by batch, so that both meet the same database: its caches, checkpoints and autovacuum.
struct BatchWriteBench {
    let databaseURL: DatabaseURL
    static let batches = 20
    static let batchSize = 1000

    func run(_ client: LoadClient) async throws -> BenchReport.BatchWrites {
        let account = try await Workloads.vaultAccount(client: client)
        let records = try (0..<Self.batches * Self.batchSize).map { index in
            try OYDRecord.seal(#"{"timestamp":"2017-12-28T01:10:22Z","latitude":15.4291,"longitude":47.0703,"datum":"EPSG:4326","n":\#(index)}"#,
                               publicKeyHex: account.publicKey)
        }
        let encoder = JSONEncoder()
        // The rows as the vault stores them: the repo, the record's JSON (sorted keys), its nonce; a batch each.
        let batches = (0..<Self.batches).map { batch in
            var rows = CopyRows()
            for record in records[batch * Self.batchSize..<(batch + 1) * Self.batchSize] {
                let value = JSONValue.object(["value": .string(record.value), "nonce": .string(record.nonce), "version": .string(record.version)])
                rows.append(Int64(account.repoID))
                rows.append(String(decoding: value.jsonBytes, as: UTF8.self))
                rows.append(record.nonce)
                rows.endRow()
            }
            return rows
        }
        var apiSeconds = 0.0
        var copySeconds = 0.0
        var stored = 0
        try await withScratchTable { copy in
            for batch in 0..<Self.batches {
                let range = batch * Self.batchSize..<(batch + 1) * Self.batchSize
                let body = try encoder.encode(Array(records[range]))
                let started = ContinuousClock.now
                let reply = try await client.send(.POST, "/api/repos/\(account.repo)/items", headers: [("Authorization", "Bearer \(account.accessToken)")], body: body)
                apiSeconds += (ContinuousClock.now - started).seconds
                guard reply.succeeded else { throw CLIError("a batch was refused: \(reply.status) \(reply.text.prefix(300))") }
                stored += ((reply.json?["responses"] as? [[String: Any]]) ?? []).filter { $0["status"] as? Int == 200 }.count
                copySeconds += try await copy(batches[batch])
            }
        }
        return BenchReport.BatchWrites(
            items: records.count, batchSize: Self.batchSize, apiItemsPerSecond: Double(records.count) / apiSeconds,
            copyItemsPerSecond: Double(records.count) / copySeconds, ratio: copySeconds / apiSeconds, lost: records.count - stored)
    }

    /// Runs `body` with a function that copies rows into a scratch table shaped like `vault.items`
    /// (indexes, defaults and the foreign key to the repo included) and returns the seconds the copy took; the
    /// table is dropped afterwards.
    private func withScratchTable(_ body: (_ copy: (CopyRows) async throws -> Double) async throws -> Void) async throws {
        let logger = Logger(label: "bench")
        let configuration = PostgresConnection.Configuration(
            host: databaseURL.host, port: databaseURL.port, username: databaseURL.username, password: databaseURL.password,
            database: databaseURL.database, tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            try await connection.query("DROP SCHEMA IF EXISTS custodian_bench CASCADE", logger: logger)
            try await connection.query("CREATE SCHEMA custodian_bench", logger: logger)
            try await connection.query("CREATE TABLE custodian_bench.items (LIKE vault.items INCLUDING ALL)", logger: logger)
            // LIKE copies no foreign key, and the vault's rows are checked against their repo one by one: so are these.
            try await connection.query(
                "ALTER TABLE custodian_bench.items ADD FOREIGN KEY (repo_id) REFERENCES vault.repos (id) ON DELETE CASCADE", logger: logger)
            // postgres-nio quotes the table name whole: the schema comes from the search path.
            try await connection.query("SET search_path TO custodian_bench", logger: logger)
        } catch {
            try? await connection.close()
            // A tool on the operator's own machine: the database's full message helps more than it leaks.
            throw CLIError("A scratch table for COPY could not be made: \(String(reflecting: error))")
        }
        do {
            try await body { rows in
                let started = ContinuousClock.now
                do {
                    try await connection.copyFrom(table: "items", columns: ["repo_id", "value", "nonce"], logger: logger) { writer in
                        try await writer.write(rows.buffer)
                    }
                } catch {
                    throw CLIError("COPY into the scratch table failed: \(String(reflecting: error))")
                }
                return (ContinuousClock.now - started).seconds
            }
            try await connection.query("DROP SCHEMA custodian_bench CASCADE", logger: logger)
            try await connection.close()
        } catch {
            _ = try? await connection.query("DROP SCHEMA custodian_bench CASCADE", logger: logger)
            try? await connection.close()
            throw error
        }
    }
}

/// Twomes uploads with 1 to 256 connections, and batches of 100 measurements.
struct IngestionBench {
    let duration: Duration

    /// The figures, and how many acknowledged measurements the read-back did not find.
    func run(_ client: LoadClient) async throws -> ([BenchReport.Ingestion], Int) {
        let heartbeats = try await Workloads.twomesHeartbeats(client: client, devices: 256, log: { _ in })
        let batches = try await Workloads.twomesBatches(client: client, devices: 64, measurements: 100, log: { _ in })
        var rows: [BenchReport.Ingestion] = []
        for (workload, connections, measurements) in [(heartbeats, 1, 1), (heartbeats, 8, 1), (heartbeats, 32, 1), (heartbeats, 256, 1), (batches, 8, 100)] {
            let plan = LoadPlan(model: .closed(concurrency: connections), duration: duration, scenarios: [], clients: 0, verify: false)
            let summary = try await LoadRunner.run(plan, prepared: [(workload, 1)], client: client, output: .quiet).total
            rows.append(BenchReport.Ingestion(
                connections: connections, measurementsPerUpload: measurements, uploadsPerSecond: summary.throughput,
                measurementsPerSecond: summary.throughput * Double(measurements), p50Milliseconds: summary.p50Milliseconds,
                p99Milliseconds: summary.p99Milliseconds, errors: summary.errors))
        }
        // Every measurement the platform acknowledged, read back.
        var lost = 0
        for workload in [heartbeats, batches] { lost += try await workload.verify(client: client).lost }
        return (rows, lost)
    }
}

extension ServerConnection {
    /// The superuser URL of the private PostgreSQL that `custodian up` runs from `--data-dir`.
    func privateClusterURL() throws -> DatabaseURL {
        guard let password = Files.read(dataDir + "/secrets/postgres-password"),
            let pidFile = try? String(contentsOfFile: dataDir + "/postgres/postmaster.pid", encoding: .utf8)
        else {
            throw CLIError("no private PostgreSQL in \(dataDir): pass --database-url (an administrator's URL)")
        }
        let lines = pidFile.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count > 3, let port = Int(lines[3]) else { throw CLIError("cannot read the port of \(dataDir)/postgres/postmaster.pid") }
        return DatabaseURL(host: "127.0.0.1", port: port, username: PostgresCluster.superuser, password: password, database: PostgresCluster.database)
    }
}
