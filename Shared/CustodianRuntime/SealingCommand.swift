import CustodianContracts
import CustodianRPC
import Foundation
import Logging

/// `<service> --sealing report|reseal`: asks the replica this environment describes (as `--probe` finds it) for
/// `system.sealing`, and prints how many of its sealed values are under each key version; `reseal` first moves every
/// one to the replica's newest key. For deployments where `custodian rotate sealing-key` cannot reach the sockets
/// (compose: `docker compose exec auth auth --sealing reseal`; Kubernetes: `kubectl exec deploy/auth -- auth --sealing
/// reseal`), docs/operations.md, "Rotating the sealing key".
public enum SealingCommand: String, Sendable, CaseIterable {
    case report, reseal

    public static func requested(in arguments: [String]) throws -> (SealingCommand, [String])? {
        try OneShotFlag.requested("--sealing", in: arguments)
    }

    /// 0 when the replica answered (and, for `reseal`, left nothing under an older key), 1 otherwise.
    func run(service: String, configuration: Configuration) async -> Int32 {
        var logger = Logger(label: "sealing")
        logger.logLevel = .critical
        do {
            let client = try ServiceProbe.clientOfThisReplica(service: service, configuration: configuration, logger: logger)
            defer { client.shutdown() }
            // A re-seal of a large table takes a while; it is resumable, so a deadline cut short costs nothing.
            let values = try await client.call(
                SystemMethods.sealing, input: .init(reseal: self == .reseal), on: service, context: .background("sealing", timeout: 3600),
                timeout: .seconds(3600))
            print(values.summary.joined(separator: "\n"))
            if self == .reseal, values.valuesUnderOlderKeys > 0 {
                FileHandle.standardError.write(
                    Data("\(service): \(values.valuesUnderOlderKeys) values are still under older keys; run it again\n".utf8))
                return 1
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("\(service): --sealing \(rawValue) failed: \(error)\n".utf8))
            return 1
        }
    }
}
