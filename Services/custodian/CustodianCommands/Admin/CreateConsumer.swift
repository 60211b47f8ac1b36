import ArgumentParser
import CustodianContracts
import CustodianRuntime
import CustodianSecurity
import Foundation
import Logging
import RoutesService

extension Admin {
    /// `custodian admin create-consumer`: what `POST /admin/v1/api-consumers` does, straight against the
    /// database, for a deployment whose gateway is not up yet or for scripts.
    struct CreateConsumer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Creates a geotag API consumer and prints its key and secret once, as JSON.",
            discussion: "The secret is stored sealed with the deployment's sealing key, which must be the one the routes service uses.")

        @OptionGroup var database: DatabaseOption
        @Option(parsing: .unconditional, help: "What the consumer is (an app, a tool), to tell consumers apart.") var name: String
        @Option(
            help:
                "The deployment's sealing key file (default: CUSTODIAN_SEALING_KEY or CUSTODIAN_SEALING_KEY_FILE, else <data-dir>/secrets/sealing-key of `custodian up`)."
        )
        var sealingKeyFile: String?

        func run() async throws {
            guard let name = CreateConsumerRequest.validName(name) else {
                throw ValidationError("a name has 1 to 100 characters and no control characters")
            }
            let sealer = Sealer(keyring: try SealingKeyFile.parse(try sealingKey(), source: sealingKeyFile ?? RuntimeKey.sealingKey))
            let logger = Logger(label: "custodian")
            let url = try database.url()
            let created = try await Deployment.withDatabase(url, logger: logger) { client in
                // The routes service may never have run against this database: its tables come first.
                try await MigrationRunner(schema: "routes", migrations: RoutesService.migrations)
                    .run(on: client, as: DatabaseProvisioner.role(for: "routes"), logger: logger)
                return try await Consumers(database: Database(client: client), sealer: sealer).create(name: name, logger: logger)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(created), as: UTF8.self))
        }

        private func sealingKey() throws -> String {
            if let sealingKeyFile {
                guard let text = try? String(contentsOfFile: sealingKeyFile, encoding: .utf8) else {
                    throw ValidationError("cannot read the sealing key file \(sealingKeyFile)")
                }
                return text
            }
            let configuration = try Configuration(arguments: [])
            guard let key = configuration[RuntimeKey.sealingKey] ?? Files.read(Files.absolute(database.dataDir) + "/secrets/sealing-key") else {
                throw ValidationError(
                    "pass --sealing-key-file, set CUSTODIAN_SEALING_KEY(_FILE), or run this where `custodian up` runs (its <data-dir>/secrets/sealing-key): the key the routes service seals secrets with"
                )
            }
            return key
        }
    }
}
