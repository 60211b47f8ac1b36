import CustodianContracts
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging

/// The services of a running `custodian up` that seal values, as `custodian rotate sealing-key` drives them: replaced
/// one replica at a time through `custodian up`'s restart machinery, and asked for `system.sealing` over their sockets.
struct SealingPlatform {
    /// In the order they are restarted and re-sealed.
    static let services = Platform.sealingKeyReaders.sorted()

    let dataDirectory: String
    /// As the user named it, for messages and the commands they suggest.
    let name: String
    let keyFile: String
    let runtimeDirectory: String

    init(dataDirectory name: String) throws {
        let dataDirectory = Files.absolute(name)
        guard Restart.runningUp(dataDirectory) != nil else {
            throw CLIError(
                "no `custodian up` is running with the data directory \(name); with the platform stopped, change its key file with --key-file \(name)/secrets/sealing-key"
            )
        }
        self.dataDirectory = dataDirectory
        self.name = name
        self.keyFile = dataDirectory + "/secrets/sealing-key"
        self.runtimeDirectory = Up.runtimeDirectory(dataDirectory)
    }

    /// The `--data-dir` option to repeat in a suggested command, when it is not the default.
    var option: String { name == ".custodian" ? "" : " --data-dir \(name)" }

    /// What one replica of `service` answers to `system.sealing`.
    func values(of service: String, reseal: Bool) async throws -> SystemMethods.SealedValues {
        let client = RPCClient(
            services: [service: .directory("\(runtimeDirectory)/\(service)")], logger: Logger(label: "custodian-rotate"))
        defer { client.shutdown() }
        do {
            // A re-seal of a large table takes a while; it is resumable, so a deadline cut short costs nothing.
            return try await client.call(
                SystemMethods.sealing, input: .init(reseal: reseal), on: service, context: .background("custodian-rotate", timeout: 3600),
                timeout: .seconds(3600))
        } catch let error as RPCError {
            throw CLIError("\(service): \(error.message)")
        } catch {
            throw CLIError("\(service) did not answer: \(error)")
        }
    }

    /// Every sealing service's values, by key version.
    func report() async throws -> [SystemMethods.SealedValues] {
        var all: [SystemMethods.SealedValues] = []
        for service in Self.services { all.append(try await values(of: service, reseal: false)) }
        return all
    }

    /// Replaces every replica of each sealing service, one at a time, so that each reads the key file again.
    func restartAll() async throws {
        for service in Self.services {
            try await Restart.replace(service, dataDirectory: dataDirectory, named: name)
            print("\(service): every replica replaced")
        }
    }

    /// Re-seals every service's values under `newest`, again while values that changed meanwhile are left under an older
    /// key, and prints each service's counts; throws when a service holds another newest key or values stay behind.
    func resealAll(newest: UInt32) async throws {
        var left: [String] = []
        for service in Self.services {
            var values = try await self.values(of: service, reseal: true)
            guard values.newestVersion == Int(newest) else {
                throw CLIError(
                    "\(service) (\(values.instance)) seals under key version \(values.newestVersion), not \(newest), the newest in \(keyFile): run `custodian restart \(service)`, then `custodian rotate sealing-key --reseal\(option)`"
                )
            }
            var passes = 1
            while values.valuesUnderOlderKeys > 0, values.columns.contains(where: { ($0.changedMeanwhile ?? 0) > 0 }), passes < 5 {
                values = try await self.values(of: service, reseal: true)
                passes += 1
            }
            print(values.summary.joined(separator: "\n"))
            if values.valuesUnderOlderKeys > 0 { left.append("\(service): \(values.valuesUnderOlderKeys)") }
        }
        guard left.isEmpty else {
            throw CLIError(
                "values are still under older keys (\(left.joined(separator: ", "))): those counted unopenable are damaged or sealed under a key this file lacks; see the services' logs"
            )
        }
    }
}
