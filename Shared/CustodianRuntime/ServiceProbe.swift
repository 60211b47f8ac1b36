import CustodianContracts
import CustodianRPC
import Foundation
import Logging

/// `<service> --probe live|ready`: asks the replica this environment describes (`CUSTODIAN_LISTEN`, or the runtime
/// directory and `CUSTODIAN_INSTANCE`, or else this host's one replica) for `system.health` over RPC, as a Kubernetes
/// exec probe or a compose healthcheck does, and exits 0 or 1.
/// `live`: the replica answers at all; `ready`: it answers and reaches its database.
enum ServiceProbe {
    /// 0 when the replica passes, 1 when it does not (with the reason on standard error).
    static func run(_ kind: ProbeKind, service: String, configuration: Configuration) async -> Int32 {
        var logger = Logger(label: "probe")
        logger.logLevel = .critical
        do {
            let client = try clientOfThisReplica(service: service, configuration: configuration, logger: logger)
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

    /// A client that calls only the replica this environment describes (`CUSTODIAN_LISTEN`, or the runtime directory and
    /// `CUSTODIAN_INSTANCE`, or else this host's one replica), as any caller: over TCP with the replica's own mutual-TLS
    /// material, which its service accepts. Shut it down after use.
    static func clientOfThisReplica(service: String, configuration: Configuration, logger: Logger) throws -> RPCClient {
        let instance = try configuration[RuntimeKey.instance] ?? replicaOfThisHost(service: service, configuration: configuration)
        var endpoint = try ServiceHost.listenEndpoint(service: service, instance: instance, configuration: configuration)
        // A replica listening on every address is asked on this host's own.
        if case .tcp(let host, let port) = endpoint, host == "0.0.0.0" || host == "::" { endpoint = .tcp(host: "127.0.0.1", port: port) }
        var callerConfiguration = configuration
        callerConfiguration.set(RuntimeKey.endpoints(of: service), endpoint.description)
        return try RPCClient.platform(for: [service], configuration: callerConfiguration, logger: logger)
    }

    /// Without `CUSTODIAN_LISTEN` or `CUSTODIAN_INSTANCE`, the replica is named after its host and process id
    /// (`<host>-<pid>`), which the probe cannot know; but in a container (a compose service scaled with `--scale`)
    /// this host runs exactly one replica, so its one socket named after the host is the one to ask.
    static func replicaOfThisHost(service: String, configuration: Configuration) throws -> String {
        if configuration[RuntimeKey.listen] != nil { return "" }
        let directory = RuntimeDirectory(configuration: configuration).serviceDirectory(service)
        let prefix = ProcessStart.hostLabel() + "-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let instances = names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".sock") }.map { String($0.dropLast(".sock".count)) }
        guard instances.count == 1, let instance = instances.first else {
            throw ConfigurationError(
                message: instances.isEmpty
                    ? "no replica of \(service) on this host has a socket in \(directory) (\(prefix)*.sock); set CUSTODIAN_LISTEN or CUSTODIAN_INSTANCE to name the replica to ask"
                    : "\(instances.count) replicas of \(service) run on this host (\(instances.sorted().joined(separator: ", "))); set CUSTODIAN_INSTANCE to name the one to ask"
            )
        }
        return instance
    }
}
