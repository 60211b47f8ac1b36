import Logging
import PostgresNIO

/// One numbered schema change. Statements run one by one in the migration's transaction, since the
/// extended query protocol takes a single statement at a time.
public struct Migration: Sendable {
    public var version: Int
    public var name: String
    public var statements: [String]

    public init(_ version: Int, _ name: String, _ statements: [String]) {
        self.version = version
        self.name = name
        self.statements = statements
    }
}

/// Applies a service's migrations to its schema at start. Replicas starting together wait for each other on
/// an advisory lock, so each migration runs exactly once.
public struct MigrationRunner: Sendable {
    public let schema: String
    public let migrations: [Migration]

    public init(schema: String, migrations: [Migration]) {
        precondition(Set(migrations.map(\.version)).count == migrations.count, "migration versions of \(schema) repeat")
        self.schema = schema
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Returns the versions it applied. With `role`, an administrator's connection acts as the service's role,
    /// so that what the migrations create belongs to the service.
    @discardableResult
    public func run(on client: PostgresClient, as role: String? = nil, logger: Logger) async throws -> [Int] {
        let schema = self.schema
        let migrations = self.migrations
        do {
            return try await client.withTransaction(logger: logger) { connection in
                if let role {
                    try DatabaseProvisioner.validateIdentifier(role)
                    try await connection.query(PostgresQuery(unsafeSQL: "SET LOCAL ROLE \(role)"), logger: logger)
                }
                let lockKey = "custodian.migrations.\(schema)"
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(lockKey)))", logger: logger)
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            CREATE TABLE IF NOT EXISTS \(schema).schema_migrations (
                                version integer PRIMARY KEY,
                                name text NOT NULL,
                                applied_at timestamptz NOT NULL DEFAULT now())
                            """), logger: logger)
                var applied = Set<Int>()
                for try await version in try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT version FROM \(schema).schema_migrations"), logger: logger
                ).decode(Int.self) {
                    applied.insert(version)
                }
                var newlyApplied: [Int] = []
                for migration in migrations where !applied.contains(migration.version) {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    var record = PostgresQuery(unsafeSQL: "INSERT INTO \(schema).schema_migrations (version, name) VALUES ($1, $2)")
                    record.binds.append(migration.version)
                    record.binds.append(migration.name)
                    try await connection.query(record, logger: logger)
                    logger.info(
                        "applied migration",
                        metadata: ["schema": .string(schema), "version": .stringConvertible(migration.version), "name": .string(migration.name)])
                    newlyApplied.append(migration.version)
                }
                return newlyApplied
            }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.beginError ?? error.commitError ?? error
        }
    }
}
