import CustodianRuntime
import Logging
import PostgresNIO

/// Where the audit log lives and who may touch it. The schema `audit` belongs to a role that cannot log in
/// (`custodian_audit`); the service that writes the log (`auth`) may only INSERT and SELECT there, so no one who has
/// the service's password can change or remove an entry. Made by the administrator's connection that provisions the
/// services' roles (`custodian up`, `custodian setup`), after them.
public enum AuditSchema {
    public static let owner = "custodian_audit"
    /// The service whose role writes the log.
    public static let writer = "auth"

    public static let migrations: [Migration] = [
        Migration(
            1, "the audit log",
            [
                """
                CREATE TABLE audit.entries (
                    seq bigint PRIMARY KEY,
                    at_micros bigint NOT NULL,
                    phase text NOT NULL,
                    identity text NOT NULL,
                    identity_label text,
                    scope text,
                    action text NOT NULL,
                    targets text[] NOT NULL,
                    query text,
                    request_id text NOT NULL,
                    status integer,
                    rows bigint,
                    bytes bigint,
                    previous_hash bytea NOT NULL,
                    hash bytea NOT NULL)
                """,
                "CREATE INDEX entries_identity ON audit.entries (identity)",
                "CREATE INDEX entries_targets ON audit.entries USING gin (targets)",
                "CREATE INDEX entries_at ON audit.entries (at_micros)",
                "GRANT USAGE ON SCHEMA audit TO \(DatabaseProvisioner.role(for: writer))",
                "GRANT SELECT, INSERT ON audit.entries TO \(DatabaseProvisioner.role(for: writer))",
            ])
    ]

    /// Creates the owner role and the schema when missing and applies the log's migrations as the owner. Needs the
    /// writer's role to exist already.
    public static func provision(on client: PostgresClient, logger: Logger) async throws {
        let statements = [
            """
            DO $$ BEGIN
              IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(owner)') THEN
                CREATE ROLE \(owner) NOLOGIN;
              END IF;
            END $$
            """,
            "GRANT \(owner) TO CURRENT_USER",
            "CREATE SCHEMA IF NOT EXISTS audit AUTHORIZATION \(owner)",
            "REVOKE ALL ON SCHEMA audit FROM PUBLIC",
        ]
        try await DatabaseProvisioner.provisioning(statements, on: client, logger: logger)
        try await MigrationRunner(schema: "audit", migrations: migrations).run(on: client, as: owner, logger: logger)
    }
}
