import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// How long readings are kept (docs/operations.md, "Retention"); both classes are kept for ever unless configured.
enum DevicesRetention {
    static let all = [measurements, openSenseBatches]

    /// Twomes readings go a month at a time: a monthly partition whose whole month is older than the cutoff is dropped,
    /// so that no bulk DELETE runs over millions of rows; a reading is thus kept up to a month longer than configured.
    /// Readings in the default partition (months without a table of their own) are few, and deleted by their time.
    /// Uploads go a month after the last readings they could have brought: they let a retry of the same body find
    /// that it was stored, and an erasure find the devices of an account's readings.
    static let measurements = Retention("measurements") { connection, cutoff, logger in
        var deleted = 0
        let partitions = try await connection.query(
            """
            SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'devices.measurements'::regclass AND c.relname ~ '^measurements_[0-9]{4}_[0-9]{2}$'
              AND (to_date(substring(c.relname FROM 14), 'YYYY_MM') + interval '1 month')::timestamp AT TIME ZONE 'UTC' <= \(cutoff)
            ORDER BY c.relname
            """, logger: logger)
        var expired: [String] = []
        for try await name in partitions.decode(String.self) { expired.append(name) }
        for name in expired {
            deleted += try await connection.count(PostgresQuery(unsafeSQL: "SELECT 1 FROM devices.\(name)"), logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: "DROP TABLE devices.\(name)"), logger: logger)
            logger.notice("measurement partition dropped by retention", metadata: ["partition": .string(name)])
        }
        deleted += try await Retention.deleteInBatches(
            connection,
            """
            DELETE FROM devices.measurements_default WHERE ctid IN (
                SELECT ctid FROM devices.measurements_default WHERE timestamp < \(cutoff) LIMIT 5000)
            """, logger: logger)
        // An account's erasure finds its readings' devices through their uploads (AccountErasure), so an upload stays
        // as long as readings it brought may: past the start of the oldest month still kept, and a month more for a
        // device whose clock runs ahead of the server's.
        _ = try await Retention.deleteInBatches(
            connection,
            """
            DELETE FROM devices.uploads WHERE id IN (
                SELECT id FROM devices.uploads
                WHERE server_time < (date_trunc('month', \(cutoff) AT TIME ZONE 'UTC') - interval '1 month') AT TIME ZONE 'UTC' LIMIT 5000)
            """, logger: logger)
        return deleted
    }

    /// OpenSense batches by when their upload came (a batch's own `datetime` is the phone's local time).
    static let openSenseBatches = Retention("opensense_batches") { connection, cutoff, logger in
        var deleted = 0
        while true {
            var batches = 0, uploads = 0
            let rows = try await connection.query(
                """
                WITH gone AS (
                    DELETE FROM devices.opensense_uploads WHERE id IN (
                        SELECT id FROM devices.opensense_uploads WHERE received_at < \(cutoff) LIMIT 500)
                    RETURNING batch_count)
                SELECT count(*)::bigint, coalesce(sum(batch_count), 0)::bigint FROM gone
                """, logger: logger)
            for try await (gone, count) in rows.decode((Int, Int).self) { (uploads, batches) = (gone, count) }
            deleted += batches
            if uploads < 500 { return deleted }
        }
    }
}
