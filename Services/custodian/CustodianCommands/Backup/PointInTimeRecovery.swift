import CustodianLocalPostgres
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// A restore to a moment after a backup: its base backup unpacked as the data directory's cluster, and PostgreSQL's
/// own recovery replaying the WAL archive up to `target`, after which the cluster is promoted and opened for writing.
struct PointInTimeRecovery {
    var dataDirectory: String
    var baseBackup: String
    var walArchive: String
    var target: Date

    func run() async throws {
        let cluster = try PostgresCluster(dataDirectory: dataDirectory, port: try FreePort.find())
        // As PostgreSQL reads a timestamptz: 2026-11-27 14:05:00+00.
        let postgresTime = BackupTime.text(target).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "+00")
        try cluster.restore(baseBackup: baseBackup, walArchive: walArchive, target: postgresTime)
        do {
            try cluster.start()
        } catch {
            throw CLIError("PostgreSQL did not start on the base backup: \(error); see \(cluster.directory)/server.log")
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
                    throw CLIError(
                        "PostgreSQL stopped while replaying the WAL archive (does it reach \(BackupTime.text(target))?); see \(cluster.directory)/server.log"
                    )
                }
                if !recovering { break }
                guard ContinuousClock.now < deadline else {
                    throw CLIError("the WAL archive was still being replayed after 10 minutes; see \(cluster.directory)/server.log")
                }
                try await Task.sleep(for: .milliseconds(200))
            }
            // Outside a transaction, which ALTER SYSTEM refuses (so not through `Database`, which wraps statements that write).
            for setting in cluster.recoverySettings {
                try await client.query(PostgresQuery(unsafeSQL: "ALTER SYSTEM RESET \(setting)"), logger: logger)
            }
        }
    }
}
