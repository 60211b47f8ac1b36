import ArgumentParser
import AuthService
import CustodianContracts
import CustodianRuntime
import Foundation
import Logging

struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Researcher/admin identities and geotag API consumers.",
        subcommands: [Bootstrap.self, CreateToken.self, ListTokens.self, RevokeToken.self, CreateConsumer.self, EraseSynthetic.self])

    struct DatabaseOption: ParsableArguments {
        @Option(
            help:
                "An administrator's database URL (default: CUSTODIAN_DATABASE_URL, else the one `custodian up` wrote to <data-dir>/admin-database.url)."
        )
        var databaseURL: String?
        @Option(help: "The data directory of `custodian up`, whose database and sealing key are used by default.")
        var dataDir = ".custodian"

        func url() throws -> DatabaseURL {
            let written = Files.read(Files.absolute(dataDir) + "/" + Up.adminDatabaseURLFile)
            guard let text = databaseURL ?? ProcessInfo.processInfo.environment[RuntimeKey.databaseURL] ?? written else {
                throw ValidationError(
                    "pass --database-url, set CUSTODIAN_DATABASE_URL, or run this where `custodian up` runs (it writes \(dataDir)/\(Up.adminDatabaseURLFile)), or pass its --data-dir"
                )
            }
            return try DatabaseURL(text)
        }
    }

    struct Bootstrap: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Creates the first admin token, of the owner scope, and prints it once (only its hash is stored).")

        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let logger = Logger(label: "custodian")
            guard
                let token = try await Deployment.bootstrapAdminToken(
                    try database.url(), force: false, label: "bootstrap", command: "custodian admin bootstrap", logger: logger)
            else {
                throw CLIError("an admin token exists already; make another with `custodian admin create-token`")
            }
            print(token)
        }
    }

    struct CreateToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Creates an admin identity and prints its token once.",
            discussion:
                "Scopes: researcher (reads lists and exports), operator (also creates and changes), owner (everything, tokens and the audit log included)."
        )

        @OptionGroup var database: DatabaseOption
        @Option(help: "Who or what the token is for, to tell identities apart.") var label = "admin"
        @Option(help: "researcher, operator or owner.") var scope: String
        @Option(help: "How long the token works: 90d, 12h, 30m, 3600s (default: until it is revoked).") var expires: String?

        func validate() throws {
            guard CreateAdminToken.validLabel(label) != nil else {
                throw ValidationError("a label has 1 to 100 characters and no control characters")
            }
            guard AdminScope(rawValue: scope) != nil else { throw ValidationError("--scope must be \(AdminScope.names)") }
            _ = try lifetime()
        }

        /// `--expires` in seconds; `d` (days) is read here, the rest as every duration of the command line.
        func lifetime() throws -> Int? {
            guard let expires else { return nil }
            let duration =
                expires.hasSuffix("d") ? Double(expires.dropLast()).map { Duration.seconds($0 * 86_400) } : CommandLineDuration.parse(expires)
            guard let seconds = duration.map({ Int($0.components.seconds) }), (1...CreateAdminToken.longestLife).contains(seconds) else {
                throw ValidationError("--expires takes a duration from 1s to 3650d, like 90d, 12h or 30m")
            }
            return seconds
        }

        func run() async throws {
            let logger = Logger(label: "custodian")
            let token = try await Deployment.bootstrapAdminToken(
                try database.url(), force: true, label: CreateAdminToken.validLabel(label) ?? label,
                scope: AdminScope(rawValue: scope) ?? .researcher,
                expiresIn: try lifetime(), command: "custodian admin create-token", logger: logger)
            print(token ?? "")
        }
    }

    struct ListTokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lists the admin identities: id, scope, label, who made it, when, its expiry, last use and revocation.")

        @OptionGroup var database: DatabaseOption
        @Flag(help: "JSON, as GET /admin/v1/tokens answers.") var json = false

        func run() async throws {
            let logger = Logger(label: "custodian")
            let list = try await Deployment.withAdminTokens(try database.url(), logger: logger) { tokens, _ in try await tokens.list(logger: logger) }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(list), as: UTF8.self))
                return
            }
            print(["id", "scope", "label", "created_by", "created_at", "expires_at", "last_used_at", "revoked_at"].joined(separator: "\t"))
            for identity in list.identities {
                print(
                    [
                        identity.id, identity.scope.rawValue, identity.label, identity.created_by ?? "-", identity.created_at,
                        identity.expires_at ?? "-", identity.last_used_at ?? "-", identity.revoked_at ?? "-",
                    ].joined(separator: "\t"))
            }
        }
    }

    struct RevokeToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revokes an admin identity's token: every gateway refuses it from the next request on.")

        @OptionGroup var database: DatabaseOption
        @Argument(help: "The identity's id (from list-tokens).") var id: String

        func run() async throws {
            guard let uuid = UUID(uuidString: id) else { throw ValidationError("'\(id)' is not an identity id (a UUID, from list-tokens)") }
            let logger = Logger(label: "custodian")
            let revoked = try await Deployment.withAdminTokens(try database.url(), logger: logger) { tokens, audit in
                try await audit.record("custodian admin revoke-token", targets: [uuid.uuidString.lowercased()], logger: logger) {
                    (try await tokens.revoke(uuid, logger: logger), [])
                }
            }
            print("revoked \(revoked.id) (\(revoked.label)) at \(revoked.revoked_at ?? "?")")
        }
    }
}
