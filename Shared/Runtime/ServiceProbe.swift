import CustodianContracts
import CustodianRPC
import Foundation
import Logging

/// `<service> --probe live|ready`: asks the replica this environment describes (`CUSTODIAN_LISTEN`, or the runtime
/// directory and `CUSTODIAN_INSTANCE`) for `system.health` over RPC, as a Kubernetes exec probe does, and exits 0 or 1.
/// `live`: the replica answers at all; `ready`: it answers and reaches its database.
enum ServiceProbe {
    enum Kind: String {
        case live, ready
    }

    /// The probe asked for on the command line, and the other arguments. Only the flag starts one: a setting in the
    /// environment must never turn a service into its own probe.
    static func requested(in arguments: [String]) throws -> (Kind, [String])? {
        guard let index = arguments.firstIndex(where: { $0 == "--probe" || $0.hasPrefix("--probe=") }) else { return nil }
        var rest = arguments
        let value: String
        if arguments[index].hasPrefix("--probe=") {
            value = String(arguments[index].dropFirst("--probe=".count))
            rest.remove(at: index)
        } else {
            guard index + 1 < arguments.count else { throw ConfigurationError(message: "--probe needs live or ready") }
            value = arguments[index + 1]
            rest.removeSubrange(index...(index + 1))
        }
        guard let kind = Kind(rawValue: value) else { throw ConfigurationError(message: "--probe needs live or ready, not '\(value)'") }
        return (kind, rest)
    }

    /// 0 when the replica passes, 1 when it does not (with the reason on standard error).
    static func run(_ kind: Kind, service: String, configuration: Configuration) async -> Int32 {
        var logger = Logger(label: "probe")
        logger.logLevel = .critical
        do {
            guard configuration[RuntimeKey.listen] != nil || configuration[RuntimeKey.instance] != nil else {
                throw ConfigurationError(message: "set CUSTODIAN_LISTEN or CUSTODIAN_INSTANCE: the probe must know which replica to ask")
            }
            let instance = configuration.string(RuntimeKey.instance, default: "")
            var endpoint = try ServiceHost.listenEndpoint(service: service, instance: instance, configuration: configuration)
            // A replica listening on every address is asked on this host's own.
            if case .tcp(let host, let port) = endpoint, host == "0.0.0.0" || host == "::" { endpoint = .tcp(host: "127.0.0.1", port: port) }
            let client = RPCClient(services: [service: .endpoints([endpoint])], logger: logger)
            defer { client.shutdown() }
            let health = try await client.call(
                SystemMethods.health, on: service, context: .background("probe", timeout: 5), timeout: .seconds(5))
            if kind == .ready, health.status != "ok" {
                FileHandle.standardError.write(Data("\(service): not ready: database \(health.database)\n".utf8))
                return 1
            }
            print("\(service) \(health.instance): \(kind == .live ? "live" : "ready")")
            return 0
        } catch {
            FileHandle.standardError.write(Data("\(service): \(kind.rawValue) probe failed: \(error)\n".utf8))
            return 1
        }
    }
}
