import Foundation
import Logging
import PostgresNIO

/// Creates each service's login role and schema (owned by that role, so the role can touch nothing else),
/// using an administrator's connection. Safe to run again: it only creates what is missing and resets passwords.
public struct DatabaseProvisioner: Sendable {
    public struct ServiceRole: Sendable {
        public var service: String
        public var password: String

        public init(service: String, password: String) {
            self.service = service
            self.password = password
        }

        public var role: String { DatabaseProvisioner.role(for: service) }
    }

    public static func role(for service: String) -> String { "custodian_\(service)" }

    public init() {}

    public func provision(_ roles: [ServiceRole], on client: PostgresClient, logger: Logger) async throws {
        for role in roles {
            try Self.validateIdentifier(role.service)
            let quotedPassword = "'" + role.password.replacingOccurrences(of: "'", with: "''") + "'"
            // Role and schema names are fixed identifiers checked above; passwords cannot be bound in DDL, so they are quoted.
            let statements = [
                """
                DO $$ BEGIN
                  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(role.role)') THEN
                    CREATE ROLE \(role.role) LOGIN;
                  END IF;
                END $$
                """,
                "ALTER ROLE \(role.role) LOGIN PASSWORD \(quotedPassword)",
                "GRANT \(role.role) TO CURRENT_USER",
                "CREATE SCHEMA IF NOT EXISTS \(role.service) AUTHORIZATION \(role.role)",
                "ALTER SCHEMA \(role.service) OWNER TO \(role.role)",
                "REVOKE ALL ON SCHEMA \(role.service) FROM PUBLIC",
                "ALTER ROLE \(role.role) SET search_path = \(role.service)",
            ]
            try await Self.provisioning(statements, on: client, logger: logger)
        }
    }

    /// Runs provisioning statements (fixed DDL, checked names) in one transaction. Roles belong to the whole cluster, so
    /// concurrent provisioning (tests starting several platforms on one cluster) waits on one advisory lock.
    public static func provisioning(_ statements: [String], on client: PostgresClient, logger: Logger) async throws {
        do {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext('custodian.provision'))", logger: logger)
                for statement in statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.beginError ?? error.commitError ?? error
        }
    }

    static func validateIdentifier(_ name: String) throws {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }) else {
            throw ConfigurationError(message: "'\(name)' is not a valid service name")
        }
    }
}
