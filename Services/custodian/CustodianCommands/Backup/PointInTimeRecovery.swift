import CustodianLocalPostgres
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// A restore to a moment after a backup: its base backup unpacked as the data directory's cluster, and PostgreSQL's
/// own recovery replaying the WAL archive up to `target` (all of it when nil), after which the cluster is promoted and
/// opened for writing.
struct PointInTimeRecovery {
    var dataDirectory: String
    var baseBackup: String
    var walArchive: String
    var target: Date?

    func run() async throws {
        let cluster = try PostgresCluster(dataDirectory: dataDirectory, port: try FreePort.find())
        // As PostgreSQL reads a timestamptz: 2026-11-27 14:05:00+00.
        let postgresTime = target.map { BackupTime.text($0).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "+00") }
        try cluster.restore(baseBackup: baseBackup, walArchive: walArchive, target: postgresTime)
        do {
            try cluster.start()
        } catch {
            throw failure(cluster)
        }
        defer { cluster.stop() }
        let logger = Logger(label: "custodian-restore")
        try await PostgresClient.withClient(url: cluster.adminURL, logger: logger) { client in
            let database = Database(client: client, waitTimeout: .seconds(10))
            // Connections are taken while WAL is still replayed; promotion ends recovery.
            let deadline = ContinuousClock.now + .seconds(600)
            while true {
                var recovering = true
                do {
                    for try await value in try await database.query("SELECT pg_is_in_recovery()", logger: logger).decode(Bool.self) {
                        recovering = value
                    }
                } catch {
                    throw failure(cluster)
                }
                if !recovering { break }
                guard ContinuousClock.now < deadline else {
                    throw CLIError("the WAL archive was still being replayed after 10 minutes; see \(cluster.directory)/server.log")
                }
                try await Task.sleep(for: .milliseconds(200))
            }
            // Outside a transaction, which ALTER SYSTEM refuses (so not through `Database`, which wraps statements that write).
            for setting in cluster.recoverySettings(target: postgresTime) {
                try await client.query(PostgresQuery(unsafeSQL: "ALTER SYSTEM RESET \(setting)"), logger: logger)
            }
        }
    }

    /// Why PostgreSQL stopped, as its log says: most often the archive ends before `target`, that is, no transaction
    /// in it committed after that moment (on a platform that wrote nothing since, `latest` is the same moment).
    func failure(_ cluster: PostgresCluster) -> CLIError {
        let log = (try? String(contentsOfFile: cluster.directory + "/server.log", encoding: .utf8)) ?? ""
        if log.contains("recovery ended before configured recovery target was reached") {
            return CLIError(
                "the WAL archive ends before \(target.map(BackupTime.text) ?? "its end"): nothing in it committed after that moment; restore to an earlier time, or --to-time latest"
            )
        }
        return CLIError("PostgreSQL stopped while replaying the WAL archive; see \(cluster.directory)/server.log")
    }
}
