import CustodianRPC
import Foundation
import Logging

extension RPCClient {
    /// The RPC client a process uses to reach `services`: configured endpoints where given, else their runtime directories.
    public static func platform(
        for services: [String], configuration: Configuration, logger: Logger,
        observer: @escaping RPCClient.Observer = { _, _, _, _ in }
    ) throws -> RPCClient {
        let runtime = RuntimeDirectory(configuration: configuration)
        var discovery: [String: RPCClient.Discovery] = [:]
        for service in services {
            if let list = configuration[RuntimeKey.endpoints(of: service)] {
                discovery[service] = try Self.discovery(list)
            } else {
                discovery[service] = .directory(runtime.serviceDirectory(service))
            }
        }
        var settings = RPCClient.Settings()
        settings.resolveInterval = try configuration.duration(RuntimeKey.resolveInterval, default: settings.resolveInterval)
        // Resolving is a system call off the event loops per name: a zero interval would do nothing else.
        guard settings.resolveInterval >= .milliseconds(100) else {
            throw ConfigurationError(message: "\(RuntimeKey.resolveInterval) must be at least 100ms")
        }
        settings.tls = try RPCTLS(configuration: configuration)
        settings.maximumFrameSize = try configuration.int(RuntimeKey.maximumFrameSize, default: RPCFraming.defaultMaximumFrameSize)
        return RPCClient(services: discovery, settings: settings, logger: logger, observer: observer)
    }

    /// `CUSTODIAN_<SERVICE>_ENDPOINTS`: endpoints separated by commas, or one `dns://name:port` whose addresses are
    /// the replicas (a Kubernetes headless Service), resolved again every `CUSTODIAN_RESOLVE_INTERVAL`.
    static func discovery(_ list: String) throws -> RPCClient.Discovery {
        let entries = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if let first = entries.first, first.hasPrefix("dns://") {
            let rest = first.dropFirst("dns://".count)
            guard entries.count == 1, let colon = rest.lastIndex(of: ":"), !rest[..<colon].isEmpty,
                let port = Int(rest[rest.index(after: colon)...]), (1...65535).contains(port)
            else {
                throw EndpointError(text: list, problem: "expected one dns://name:port, or endpoints separated by commas")
            }
            return .dns(host: String(rest[..<colon]), port: port)
        }
        return .endpoints(try entries.map { try Endpoint($0) })
    }
}
