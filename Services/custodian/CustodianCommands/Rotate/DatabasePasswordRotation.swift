import ArgumentParser
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import PostgresNIO

/// `custodian rotate db-password`: gives a service's database login a new password while it serves. A PostgreSQL role
/// has one password, so each service has two logins that act as its role; the one not in use gets a new password,
/// the service's replicas move to it one at a time (`custodian restart`), and the other is closed (NOLOGIN, no
/// password). A replica never holds a password that does not work.
struct RotateDatabasePassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db-password",
        abstract: "Gives services' database logins new passwords in a running `custodian up`, without a failed request.")

    @Argument(help: "The services (\(Platform.services.joined(separator: ", "))), or all.") var services: [String]
    @Option(help: "The data directory of the running `custodian up`.") var dataDir = ".custodian"

    func validate() throws {
        guard !services.isEmpty else { throw ValidationError("name the services, or all") }
        for service in services where service != "all" && !Platform.services.contains(service) {
            throw ValidationError("unknown service '\(service)'; the services are \(Platform.services.joined(separator: ", ")), or all")
        }
    }

    func run() async throws {
        let dataDirectory = Files.absolute(dataDir)
        guard let adminText = Files.read(dataDirectory + "/" + Up.adminDatabaseURLFile) else {
            throw CLIError("no `custodian up` has run with the data directory \(dataDir) (it has no \(Up.adminDatabaseURLFile))")
        }
        let adminURL = try DatabaseURL(adminText)
        let chosen = services.contains("all") ? Platform.services : Platform.services.filter(services.contains)
        let logger = Logger(label: "custodian-rotate")
        for service in chosen {
            let started = ContinuousClock.now
            let files = DatabaseLoginFiles(secretsDirectory: dataDirectory + "/secrets", service: service)
            let previous = try files.login()
            let next = DatabaseProvisioner.logins(for: service).first { $0 != previous }!
            let password = SecretToken.generate()
            // The new login works before any replica uses it; the old one keeps working until none does.
            try await PostgresClient.withClient(url: adminURL, logger: logger) { client in
                try await DatabaseProvisioner.provisioning(
                    try DatabaseProvisioner.login(next, of: service, password: password), on: client, logger: logger)
            }
            try Files.write(password, to: files.password)
            try Files.write(next, to: files.loginFile)
            try Files.write(adminURL.with(username: next, password: password).urlString, to: files.url)
            try await Restart.replace(service, dataDirectory: dataDirectory, named: dataDir)
            try await PostgresClient.withClient(url: adminURL, logger: logger) { client in
                try await DatabaseProvisioner.provisioning(try DatabaseProvisioner.close(previous, of: service), on: client, logger: logger)
            }
            let seconds = String(format: "%.1f", (ContinuousClock.now - started).seconds)
            print("\(TerminalOutput.column(service))logs in as \(next) with a new password; \(previous) closed (\(seconds) s)")
        }
    }
}
