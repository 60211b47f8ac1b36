import ArgumentParser
import CustodianRuntime
import Foundation
import Logging

struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Researcher/admin credentials and geotag API consumers.",
        subcommands: [Bootstrap.self, CreateToken.self, CreateConsumer.self])

    struct DatabaseOption: ParsableArguments {
        @Option(help: "An administrator's database URL (default: CUSTODIAN_DATABASE_URL, else the one `custodian up` wrote to <data-dir>/admin-database.url).")
        var databaseURL: String?
        @Option(help: "The data directory of `custodian up`, whose database and sealing key are used by default.")
        var dataDir = ".custodian"

        func url() throws -> DatabaseURL {
            let written = Files.read(Files.absolute(dataDir) + "/" + Up.adminDatabaseURLFile)
            guard let text = databaseURL ?? ProcessInfo.processInfo.environment[RuntimeKey.databaseURL] ?? written else {
                throw ValidationError("pass --database-url, set CUSTODIAN_DATABASE_URL, or run this where `custodian up` runs (it writes \(dataDir)/\(Up.adminDatabaseURLFile)), or pass its --data-dir")
            }
            return try DatabaseURL(text)
        }
    }

    struct Bootstrap: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Creates the first admin token and prints it once (only its hash is stored).")

        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let logger = Logger(label: "custodian")
            guard let token = try await Deployment.bootstrapAdminToken(try database.url(), force: false, label: "bootstrap", logger: logger) else {
                throw CLIError("an admin token exists already; make another with `custodian admin create-token`")
            }
            print(token)
        }
    }

    struct CreateToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Creates a further admin token and prints it once.")

        @OptionGroup var database: DatabaseOption
        @Option(help: "What the token is for, to tell tokens apart.") var label = "admin"

        func run() async throws {
            let logger = Logger(label: "custodian")
            print(try await Deployment.bootstrapAdminToken(try database.url(), force: true, label: label, logger: logger) ?? "")
        }
    }
}
