import CustodianJSON
import CustodianLoad
import CustodianRPC
import CustodianRuntime
import CustodianVault
import Foundation
import Logging
import PostgresNIO

/// Vault items through the API in batches of 1000, against COPY of the same rows into a table of the same shape.
/// The two alternate, batch by batch, so that both meet the same database: its caches, checkpoints and autovacuum.
struct BatchWriteBench {
    let databaseURL: DatabaseURL
    static let batches = 20
    static let batchSize = 1000

    func run(_ client: LoadClient) async throws -> BenchReport.BatchWrites {
        let account = try await Workloads.vaultAccount(client: client)
        let records = try (0..<Self.batches * Self.batchSize).map { index in
            try OYDRecord.seal(
                #"{"timestamp":"2017-12-28T01:10:22Z","latitude":15.4291,"longitude":47.0703,"datum":"EPSG:4326","n":\#(index)}"#,
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
                let reply = try await client.send(
                    .POST, "/api/repos/\(account.repo)/items", headers: [("Authorization", "Bearer \(account.accessToken)")], body: body)
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
