import CustodianContracts
import CustodianHTTP
import CustodianRPC
import CustodianRuntime
@testable import DevicesService
import Foundation
import LinksService
import Logging
import PostgresNIO
import ServiceTestSupport
import Testing

/// `devices.measurements` is partitioned by month so a long study's old months can be detached and archived: the
/// service creates the months ahead, a measurement from a month without a partition waits in the default one and
/// moves when its month is created, and the migration to partitions keeps every row.
@Suite("devices: measurement partitions")
struct MeasurementPartitionTests {
    static func partitions(on harness: ServiceHarness) async throws -> Int {
        try await harness.scalar("SELECT count(*)::int FROM pg_inherits WHERE inhparent = 'devices.measurements'::regclass", as: Int.self) ?? -1
    }

    static func rows(in table: String, on harness: ServiceHarness) async throws -> Int {
        try await harness.scalar(PostgresQuery(unsafeSQL: "SELECT count(*)::int FROM \(table)"), as: Int.self) ?? -1
    }

    @Test func monthsAheadExistAndAnOldMonthMovesOutOfTheDefaultPartition() async throws {
        try await UploadServiceTests.run { harness, device in
            // This month and the next two, besides the default partition, made before the replica answered.
            #expect(try await Self.partitions(on: harness) == 1 + 1 + MeasurementPartitions.monthsAhead)

            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            _ = try await harness.call(DevicesMethods.measurementsVariable, UploadServiceTests.heartbeat(at: now), credential: device)
            let month = try #require(try await harness.scalar("SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY_MM')", as: String.self))
            #expect(try await Self.rows(in: "devices.measurements_\(month)", on: harness) == 1)

            // A backlog from May 2021, a month with no partition of its own: it waits in the default partition.
            let backlog = VariableIntervalUpload(
                uploadTime: Date(timeIntervalSince1970: 1_622_237_550),
                properties: [
                    .init(
                        name: "heartbeat",
                        measurements: [
                            .init(timestamp: Date(timeIntervalSince1970: 1_622_237_500), value: "1"),
                            .init(timestamp: Date(timeIntervalSince1970: 1_622_237_550), value: "1"),
                        ])
                ])
            let answer = try await harness.call(DevicesMethods.measurementsVariable, backlog, credential: device)
            #expect(try await Self.rows(in: "devices.measurements_default", on: harness) == 2)

            #expect(try await harness.scalar("SELECT devices.create_measurement_partition('2021-05-20')", as: Bool.self) == true)
            #expect(try await harness.scalar("SELECT devices.create_measurement_partition('2021-05-01')", as: Bool.self) == false)
            #expect(try await Self.rows(in: "devices.measurements_default", on: harness) == 0)
            #expect(try await Self.rows(in: "devices.measurements_2021_05", on: harness) == 2)
            #expect(try await Self.rows(in: "devices.measurements", on: harness) == 3)

            // The retried upload still stores nothing twice, and now lands in its month.
            #expect(try await harness.call(DevicesMethods.measurementsVariable, backlog, credential: device) == answer)
            #expect(try await Self.rows(in: "devices.measurements", on: harness) == 3)

            // Archiving a month: detached, its rows leave the table the service reads and stay in their own.
            try await harness.database.query("ALTER TABLE devices.measurements DETACH PARTITION devices.measurements_2021_05", logger: harness.logger)
            #expect(try await Self.rows(in: "devices.measurements", on: harness) == 1)
            #expect(try await Self.rows(in: "devices.measurements_2021_05", on: harness) == 2)
        }
    }

    /// A database that has measurements from before partitioning keeps every one, each in its month.
    @Test func theMigrationToPartitionsKeepsEveryMeasurement() async throws {
        let logger = Logger(label: "partition-migration")
        let (adminURL, _) = try await TestPostgres.shared.makeDatabase(for: ["devices"], logger: logger)
        try await PostgresClient.withClient(url: adminURL, poolSize: 1, logger: PostgresClient.quiet(logger)) { client in
            let role = DatabaseProvisioner.role(for: "devices")
            try await MigrationRunner(schema: "devices", migrations: Array(DevicesMigrations.all.filter { $0.version < 5 }))
                .run(on: client, as: role, logger: logger)
            try await client.query(
                """
                WITH type AS (SELECT id FROM devices.device_types WHERE name = 'DSMR-P1-gateway'),
                device AS (
                    INSERT INTO devices.devices (name, device_type_id, activation_token_hash)
                    SELECT 'TWOMES-0A0B0C', id, '\\x01'::bytea FROM type RETURNING id),
                upload AS (
                    INSERT INTO devices.uploads (device_id, body_sha256, server_time, device_time, size)
                    SELECT id, '\\x02'::bytea, now(), now(), 10 FROM device RETURNING id, device_id)
                INSERT INTO devices.measurements (device_id, property_id, timestamp, value, upload_id)
                SELECT u.device_id, p.id, t, '1', u.id
                FROM upload u, devices.properties p, type,
                     unnest(ARRAY['2021-05-28T21:31:40Z', '2023-01-31T23:59:59Z', '2023-02-01T00:00:00Z']::timestamptz[]) AS t
                WHERE p.device_type_id = type.id AND p.name = 'heartbeat'
                """, logger: logger)

            let applied = try await MigrationRunner(schema: "devices", migrations: DevicesMigrations.all).run(on: client, as: role, logger: logger)
            #expect(applied.first == 5, "\(applied)")
            func count(_ table: String) async throws -> Int? {
                let rows = try await client.query(PostgresQuery(unsafeSQL: "SELECT count(*)::int FROM \(table)"), logger: logger)
                for try await count in rows.decode(Int.self) { return count }
                return nil
            }
            #expect(try await count("devices.measurements") == 3)
            #expect(try await count("devices.measurements_2021_05") == 1)
            #expect(try await count("devices.measurements_2023_01") == 1)
            #expect(try await count("devices.measurements_2023_02") == 1)
            #expect(try await count("devices.measurements_default") == 0)
            let leftover = try await client.query("SELECT to_regclass('devices.measurements_unpartitioned')::text", logger: logger)
            for try await name in leftover.decode(String?.self) { #expect(name == nil) }
        }
    }
}

/// `CUSTODIAN_DATABASE_READ_URL`: the researcher exports read the replica it names, and nothing else does.
@Suite("devices: exports read the read replica")
struct ReadReplicaTests {
    @Test func exportsReadTheReplicaAndUploadsThePrimary() async throws {
        let nowhere = "postgres://devices:unused@127.0.0.1:\(try FreePort.find())/custodian"
        try await ServiceHarness.run(
            [DevicesService.definition, LinksService.definition],
            settings: [RuntimeKey.databaseReadURL: nowhere, RuntimeKey.databaseWaitTimeout: "1s"]
        ) { harness in
            let device = try await UploadServiceTests.provisionedDevice(on: harness)
            _ = try await harness.call(
                DevicesMethods.measurementsVariable, UploadServiceTests.heartbeat(at: Date(timeIntervalSince1970: 1_622_237_550)), credential: device)
            // The replica is down: the export says so as any dependency that is down does, and does not fall back
            // onto the primary it exists to spare.
            let error = await rpcError {
                try await harness.call(DevicesMethods.measurementsExport, MeasurementExportQuery(format: .csv), as: UploadServiceTests.admin)
            }
            #expect(error?.code == .unavailable, "\(String(describing: error))")
        }
    }
}
