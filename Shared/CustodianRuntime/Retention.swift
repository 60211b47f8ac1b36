import CustodianContracts
import Foundation
import Logging
import PostgresNIO

/// How long a data class is kept (docs/operations.md, "Retention"): `CUSTODIAN_RETENTION_<CLASS>` is a duration
/// (`90d`) or `off`. The service's upkeep deletes what is older every `CUSTODIAN_RETENTION_INTERVAL` (1 h), one replica
/// at a time, and writes each pass's count to `<schema>.retention_totals`, which `system.retention` reads for the
/// gateway's `/metrics`.
public struct Retention: Sendable {
    /// As `/metrics` and the logs name it: `measurements`, `opensense_batches`, `lemon_submissions`, `vault_items`, `short_links`.
    public var dataClass: String
    /// Kept for ever when nil, unless configured.
    public var defaultAge: Duration?
    /// Deletes what is older than the cutoff and says how many rows of the class went.
    public var expire: @Sendable (DatabaseConnection, Date, Logger) async throws -> Int

    public init(
        _ dataClass: String, default defaultAge: Duration? = nil,
        expire: @escaping @Sendable (DatabaseConnection, Date, Logger) async throws -> Int
    ) {
        self.dataClass = dataClass
        self.defaultAge = defaultAge
        self.expire = expire
    }

    /// A class whose rows each carry their time in `column` of `table` (keyed by `key`): deleted a batch at a time,
    /// so that no statement holds locks on a large share of the table.
    public init(_ dataClass: String, default defaultAge: Duration? = nil, table: String, key: String = "id", timeColumn column: String) {
        self.init(dataClass, default: defaultAge) { connection, cutoff, logger in
            try await Self.deleteInBatches(
                connection,
                PostgresQuery(
                    unsafeSQL: "DELETE FROM \(table) WHERE \(key) IN (SELECT \(key) FROM \(table) WHERE \(column) < $1 LIMIT 5000)",
                    binds: {
                        var binds = PostgresBindings()
                        binds.append(cutoff)
                        return binds
                    }()), logger: logger)
        }
    }

    public static let intervalKey = "CUSTODIAN_RETENTION_INTERVAL"
    public var key: String { "CUSTODIAN_RETENTION_" + dataClass.uppercased() }

    /// The configured age: nil when the class is kept for ever.
    public func age(in configuration: Configuration) throws -> Duration? {
        guard let text = configuration[key] else { return defaultAge }
        if text == "off" { return nil }
        guard let age = Configuration.parseDuration(text), age > .zero else {
            throw ConfigurationError(message: "\(key) must be a duration such as 90d or 14d, or off, not '\(text)'")
        }
        return age
    }

    /// Runs `statement` (a batch `DELETE`) until it deletes less than a batch.
    public static func deleteInBatches(_ connection: DatabaseConnection, _ statement: PostgresQuery, logger: Logger) async throws -> Int {
        var total = 0
        while true {
            let deleted = try await connection.count(statement, logger: logger)
            total += deleted
            if deleted < 5000 { return total }
        }
    }

    /// The totals table each service with retention creates (a migration of its own, with this statement).
    public static func totalsTable(schema: String) -> String {
        """
        CREATE TABLE \(schema).retention_totals (
            data_class text PRIMARY KEY,
            passes bigint NOT NULL,
            deleted bigint NOT NULL,
            last_pass timestamptz NOT NULL,
            last_cutoff timestamptz NOT NULL,
            last_deleted bigint NOT NULL)
        """
    }

    /// The upkeep that enforces this class in `schema`, or nil when it is kept for ever.
    func upkeep(schema: String, configuration: Configuration) throws -> Upkeep? {
        guard let age = try age(in: configuration) else { return nil }
        let interval = try configuration.duration(Self.intervalKey, default: .seconds(3600))
        let dataClass = dataClass, expire = expire
        return Upkeep("retention of \(dataClass)", every: interval) { database, logger in
            try await Database(client: database).withConnection { connection in
                // One replica at a time: a second one would find nothing left, but count a pass of its own.
                let lock = "retention \(schema).\(dataClass)"
                var locked = false
                for try await got in try await connection.query("SELECT pg_try_advisory_lock(hashtext(\(lock)))", logger: logger).decode(Bool.self) {
                    locked = got
                }
                guard locked else { return }
                do {
                    let cutoff = Date().addingTimeInterval(-age.seconds)
                    let deleted = try await expire(connection, cutoff, logger)
                    try await connection.query(
                        PostgresQuery(
                            unsafeSQL: """
                                INSERT INTO \(schema).retention_totals AS t (data_class, passes, deleted, last_pass, last_cutoff, last_deleted)
                                VALUES ($1, 1, $2, now(), $3, $2)
                                ON CONFLICT (data_class) DO UPDATE SET passes = t.passes + 1, deleted = t.deleted + $2, last_pass = now(),
                                    last_cutoff = $3, last_deleted = $2
                                """,
                            binds: {
                                var binds = PostgresBindings()
                                binds.append(dataClass)
                                binds.append(Int64(deleted))
                                binds.append(cutoff)
                                return binds
                            }()), logger: logger)
                    logger.notice(
                        "retention pass",
                        metadata: [
                            "data_class": .string(dataClass), "deleted": .stringConvertible(deleted),
                            "cutoff": .string(cutoff.formatted(.iso8601)),
                        ])
                } catch {
                    _ = try? await connection.query("SELECT pg_advisory_unlock(hashtext(\(lock)))", logger: logger)
                    throw error
                }
                _ = try await connection.query("SELECT pg_advisory_unlock(hashtext(\(lock)))", logger: logger)
            }
        }
    }
}
