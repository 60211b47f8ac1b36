import Foundation
import Logging
import PostgresNIO

/// Creates each service's login role and schema (owned by that role, so the role can touch nothing else),
/// using an administrator's connection. Safe to run again: it only creates what is missing and resets passwords.
public struct DatabaseProvisioner: Sendable {
    public struct ServiceRole: Sendable {
        public var service: String
        public var password: String
        /// The role the service logs in as: its own (``role``), or, after a rotation of its password, the other login
        /// (``alternateLogin(for:)``), which acts as its own.
        public var login: String

        public init(service: String, password: String, login: String? = nil) {
            self.service = service
            self.password = password
            self.login = login ?? DatabaseProvisioner.role(for: service)
        }

        public var role: String { DatabaseProvisioner.role(for: service) }
    }

    public static func role(for service: String) -> String { "custodian_\(service)" }

    /// The second login of a service's role. A role has one password, so a password is rotated without a moment in
    /// which the service cannot connect by giving the other login a new one, moving the service's replicas to it one
    /// at a time, and then closing the first (docs/operations.md, "Rotating database passwords").
    public static func alternateLogin(for service: String) -> String { "custodian_\(service)_login" }

    /// The two logins of `service`: its own role and the alternate.
    public static func logins(for service: String) -> [String] { [role(for: service), alternateLogin(for: service)] }

    public init() {}

    public func provision(_ roles: [ServiceRole], on client: PostgresClient, logger: Logger) async throws {
        for role in roles {
            try Self.validateIdentifier(role.service)
            // Role and schema names are fixed identifiers checked above; passwords cannot be bound in DDL, so they are quoted.
            let statements = [
                """
                DO $$ BEGIN
                  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(role.role)') THEN
                    CREATE ROLE \(role.role) LOGIN;
                  END IF;
                END $$
                """,
                "GRANT \(role.role) TO CURRENT_USER",
                "CREATE SCHEMA IF NOT EXISTS \(role.service) AUTHORIZATION \(role.role)",
                "ALTER SCHEMA \(role.service) OWNER TO \(role.role)",
                "REVOKE ALL ON SCHEMA \(role.service) FROM PUBLIC",
                "ALTER ROLE \(role.role) SET search_path = \(role.service)",
            ]
            try await Self.provisioning(statements + Self.login(role.login, of: role.service, password: role.password), on: client, logger: logger)
        }
    }

    /// Lets `login` log in with `password`, acting as `service`'s role: the role itself, or its alternate login, which
    /// becomes that role at every login (so that what it creates belongs to the service's role).
    public static func login(_ login: String, of service: String, password: String) throws -> [String] {
        try validateIdentifier(service)
        let owner = role(for: service)
        guard logins(for: service).contains(login) else { throw ConfigurationError(message: "'\(login)' is not a login of \(service)") }
        let quotedPassword = "'" + password.replacingOccurrences(of: "'", with: "''") + "'"
        guard login != owner else { return ["ALTER ROLE \(owner) LOGIN PASSWORD \(quotedPassword)"] }
        return [
            """
            DO $$ BEGIN
              IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(login)') THEN
                CREATE ROLE \(login) LOGIN;
              END IF;
            END $$
            """,
            "ALTER ROLE \(login) LOGIN PASSWORD \(quotedPassword)",
            "GRANT \(owner) TO \(login)",
            "ALTER ROLE \(login) SET role = \(owner)",
            "ALTER ROLE \(login) SET search_path = \(service)",
        ]
    }

    /// Closes a login that no process uses any more: it can no longer log in, and its password is gone.
    public static func close(_ login: String, of service: String) throws -> [String] {
        guard logins(for: service).contains(login) else { throw ConfigurationError(message: "'\(login)' is not a login of \(service)") }
        return ["ALTER ROLE \(login) NOLOGIN PASSWORD NULL"]
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
