import AuthService
import CustodianAudit
import CustodianContracts
import CustodianRuntime
import CustodianSecurity
import CustodianLemon
import Foundation
import Logging
import PostgresNIO

/// What `up` and `setup` both do to a database: create it, give every service its role and schema, and
/// create the first admin token.
enum Deployment {
    static let services = Platform.services

    /// Runs `body` with a client for `url` whose `run()` is going (it answers nothing before).
    static func withDatabase<T: Sendable>(_ url: DatabaseURL, logger: Logger, _ body: @Sendable (PostgresClient) async throws -> T) async throws -> T
    {
        try await PostgresClient.withClient(url: url, logger: logger, body)
    }

    /// Creates the database `url` names when it does not exist yet (connecting to `postgres` to do so).
    static func ensureDatabase(_ url: DatabaseURL, logger: Logger) async throws {
        let maintenance = DatabaseURL(host: url.host, port: url.port, username: url.username, password: url.password, database: "postgres")
        try await withDatabase(maintenance, logger: logger) { client in
            let rows = try await client.query("SELECT 1 FROM pg_database WHERE datname = \(url.database)", logger: logger)
            for try await _ in rows { return }
            try DatabaseName.validate(url.database)
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \"\(url.database)\""), logger: logger)
        }
    }

    /// Gives each service its role and schema; passwords come from `<secrets>/db-<service>.password`,
    /// generated on first use, for the login `<secrets>/db-<service>.login` names after a rotation (the service's own
    /// role otherwise). Returns each service's own database URL, which is also written to `<secrets>/db-<service>.url`.
    static func provisionRoles(_ adminURL: DatabaseURL, secretsDirectory: String, logger: Logger) async throws -> [String: DatabaseURL] {
        try Files.makeDirectory(secretsDirectory)
        var roles: [DatabaseProvisioner.ServiceRole] = []
        var urls: [String: DatabaseURL] = [:]
        for service in services {
            let files = DatabaseLoginFiles(secretsDirectory: secretsDirectory, service: service)
            let password = Files.read(files.password) ?? SecretToken.generate()
            try Files.write(password, to: files.password)
            let login = try files.login()
            roles.append(.init(service: service, password: password, login: login))
            let url = adminURL.with(username: login, password: password)
            try Files.write(url.urlString, to: files.url)
            urls[service] = url
        }
        let provisioned = roles
        try await withDatabase(adminURL, logger: logger) { client in
            try await DatabaseProvisioner().provision(provisioned, on: client, logger: logger)
            // The audit log belongs to a role of its own, which `auth` may only append to (docs/admin.md).
            try await AuditSchema.provision(on: client, logger: logger)
        }
        return urls
    }

    /// The path of the deployment's sealing key (`sealing-key` in the secrets directory), made on first use.
    static func sealingKey(secretsDirectory: String) throws -> String {
        let path = secretsDirectory + "/sealing-key"
        if Files.read(path) == nil {
            try Files.write(SealingKeyring.generateText(), to: path)
        }
        return path
    }

    /// The path of the tracing app's handshake key file (`lemon-keys.json` in the secrets directory), made on
    /// first use with one key generation named after the month.
    static func lemonKeys(secretsDirectory: String) throws -> String {
        let path = secretsDirectory + "/lemon-keys.json"
        if Files.read(path) == nil {
            try Files.write(try ServerKeyFile.generate(id: LemonKeyID.new()).json(), to: path)
        }
        return path
    }

    /// Applies auth's migrations as its role and creates an admin identity if none works yet (or always, with `force`),
    /// recording it in the audit log as the command line's doing. Returns the new token, or nil when one existed.
    static func bootstrapAdminToken(
        _ adminURL: DatabaseURL, force: Bool, label: String, scope: AdminScope = .owner, expiresIn: Int? = nil,
        command: String, logger: Logger
    ) async throws -> String? {
        try await withAdminTokens(adminURL, logger: logger) { tokens, audit in
            if !force, try await tokens.activeCount(logger: logger) > 0 { return nil }
            return try await audit.record(command, logger: logger) {
                let created = try await tokens.create(
                    label: label, scope: scope, expiresIn: expiresIn, createdBy: CommandAudit.identityLabel, logger: logger)
                return (created.token, [created.identity.id])
            }
        }
    }

    /// Runs `body` with auth's identities (its migrations applied first) and the audit log the command line writes to.
    static func withAdminTokens<T: Sendable>(
        _ adminURL: DatabaseURL, logger: Logger,
        _ body: @Sendable (AdminTokens, CommandAudit) async throws -> T
    ) async throws -> T {
        try await withDatabase(adminURL, logger: logger) { client in
            try await MigrationRunner(schema: "auth", migrations: AuthService.migrations)
                .run(on: client, as: DatabaseProvisioner.role(for: "auth"), logger: logger)
            let database = Database(client: client)
            return try await body(AdminTokens(database: database), CommandAudit(ledger: AuditLedger(database: database)))
        }
    }
}

enum DatabaseName {
    static func validate(_ name: String) throws {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            throw CLIError("database name '\(name)' may only contain letters, digits, - and _")
        }
    }
}

/// Where a service's database login is kept among the secrets: its password, which of its two logins is in use (after
/// a rotation), and the URL the service's processes read (`CUSTODIAN_DATABASE_URL_FILE`).
struct DatabaseLoginFiles {
    let password: String
    let loginFile: String
    let url: String
    let service: String

    init(secretsDirectory: String, service: String) {
        self.service = service
        password = "\(secretsDirectory)/db-\(service).password"
        loginFile = "\(secretsDirectory)/db-\(service).login"
        url = "\(secretsDirectory)/db-\(service).url"
    }

    /// The login in use: the service's role unless a rotation moved it to the other.
    func login() throws -> String {
        guard let named = Files.read(loginFile) else { return DatabaseProvisioner.role(for: service) }
        guard DatabaseProvisioner.logins(for: service).contains(named) else {
            throw CLIError(
                "\(loginFile) names '\(named)', which is not a login of \(service) (\(DatabaseProvisioner.logins(for: service).joined(separator: " or ")))"
            )
        }
        return named
    }
}
