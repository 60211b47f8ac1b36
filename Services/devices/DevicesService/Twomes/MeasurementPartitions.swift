import CustodianRuntime
import Logging
import PostgresNIO

/// `devices.measurements` is partitioned by month (UTC), each month a table `devices.measurements_YYYY_MM`. Every
/// replica creates the current month and the next `monthsAhead` when it starts and every few hours, so uploads land
/// in their month's partition; a measurement for a month without one (a device's backlog from long ago, a clock
/// set to the future) lands in `devices.measurements_default` and moves to its month's table once that is created.
/// An operator archives a month with `ALTER TABLE devices.measurements DETACH PARTITION devices.measurements_2025_01`
/// (docs/operations.md).
enum MeasurementPartitions {
    static let monthsAhead = 2

    static let upkeep = Upkeep("measurement partitions", every: .seconds(6 * 3600)) { database, logger in
        try await createAhead(on: database, logger: logger)
    }

    /// Creates this month's partition and the next `monthsAhead` where missing.
    static func createAhead(on database: PostgresClient, logger: Logger) async throws {
        try await database.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT devices.create_measurement_partition(month::date)
                    FROM generate_series(date_trunc('month', now() AT TIME ZONE 'UTC'),
                                         date_trunc('month', now() AT TIME ZONE 'UTC') + interval '\(monthsAhead) months',
                                         interval '1 month') AS month
                    """), logger: logger)
    }

    /// Creates the partition of the month that holds `month` unless it exists, moving that month's rows out of the
    /// default partition first (attaching would fail while the default holds any). Returns whether it created one.
    /// Replicas run it at the same time: an advisory lock makes them take turns, and the later finds the table.
    /// Inserts into the default partition wait for the move, so none slips in between the move and the attach.
    static let createFunction = """
        CREATE FUNCTION devices.create_measurement_partition(month date) RETURNS boolean
        LANGUAGE plpgsql AS $$
        DECLARE
            first timestamptz := date_trunc('month', month::timestamp) AT TIME ZONE 'UTC';
            next timestamptz := (date_trunc('month', month::timestamp) + interval '1 month') AT TIME ZONE 'UTC';
            name text := 'measurements_' || to_char(month, 'YYYY_MM');
        BEGIN
            PERFORM pg_advisory_xact_lock(hashtext('devices.measurements partitions'));
            IF to_regclass(format('devices.%I', name)) IS NOT NULL THEN
                RETURN false;
            END IF;
            LOCK TABLE devices.measurements_default IN EXCLUSIVE MODE;
            EXECUTE format('CREATE TABLE devices.%I (LIKE devices.measurements)', name);
            EXECUTE format('WITH moved AS (DELETE FROM devices.measurements_default WHERE timestamp >= %L AND timestamp < %L RETURNING *) '
                           'INSERT INTO devices.%I SELECT * FROM moved', first, next, name);
            EXECUTE format('ALTER TABLE devices.measurements ATTACH PARTITION devices.%I FOR VALUES FROM (%L) TO (%L)', name, first, next);
            RETURN true;
        END
        $$
        """
}
