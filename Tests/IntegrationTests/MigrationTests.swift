import CustodianRuntime
import Foundation
import Logging
import PostgresNIO
import Testing

extension PlatformTests {
    @Suite("Migrations against the platform's PostgreSQL")
    struct Migrations {
        @Test func replicasStartingTogetherApplyEachMigrationOnce() async throws {
            let platform = try platform
            let schema = "migration_test_\(UUID().uuidString.prefix(8).lowercased())"
            _ = try platform.sql("CREATE SCHEMA \(schema)")
            let migrations = [
                Migration(1, "table", ["CREATE TABLE \(schema).things (id serial PRIMARY KEY, note text)"]),
                Migration(2, "row", ["INSERT INTO \(schema).things (note) VALUES ('once')"]),
            ]
            let url = try DatabaseURL(try platform.adminDatabaseURL)
            let logger = quietLogger(.warning)
            let client = PostgresClient(url: url, poolSize: 8, logger: logger)
            let applied: [[Int]] = try await withThrowingTaskGroup(of: [Int].self) { group in
                group.addTask {
                    await client.run(); return []
                }
                var runs: [[Int]] = []
                try await withThrowingTaskGroup(of: [Int].self) { replicas in
                    for _ in 0..<6 {
                        replicas.addTask { try await MigrationRunner(schema: schema, migrations: migrations).run(on: client, logger: logger) }
                    }
                    for try await versions in replicas { runs.append(versions) }
                }
                group.cancelAll()
                return runs
            }
            #expect(applied.filter { !$0.isEmpty } == [[1, 2]], "exactly one replica applies the migrations")
            #expect(try platform.sql("SELECT count(*) FROM \(schema).things") == "1")
            #expect(try platform.sql("SELECT string_agg(version::text, ',' ORDER BY version) FROM \(schema).schema_migrations") == "1,2")
        }

        @Test func aFailingMigrationLeavesNothingBehind() async throws {
            let platform = try platform
            let schema = "migration_test_\(UUID().uuidString.prefix(8).lowercased())"
            _ = try platform.sql("CREATE SCHEMA \(schema)")
            let migrations = [
                Migration(1, "table", ["CREATE TABLE \(schema).things (id serial PRIMARY KEY)"]),
                Migration(2, "broken", ["INSERT INTO \(schema).nothing VALUES (1)"]),
            ]
            let url = try DatabaseURL(try platform.adminDatabaseURL)
            let logger = quietLogger(.critical)
            let client = PostgresClient(url: url, poolSize: 2, logger: logger)
            await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                await #expect(throws: (any Error).self) {
                    try await MigrationRunner(schema: schema, migrations: migrations).run(on: client, logger: logger)
                }
                group.cancelAll()
            }
            #expect(try platform.sql("SELECT count(*) FROM information_schema.tables WHERE table_schema = '\(schema)'") == "0")
        }
    }
}

private func quietLogger(_ level: Logger.Level) -> Logger {
    var logger = Logger(label: "migration-test")
    logger.logLevel = level
    return logger
}
