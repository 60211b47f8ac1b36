import CustodianRPC
import Foundation
import Logging

extension RPCClient {
    /// The RPC client a process uses to reach `services`: configured endpoints where given, else their runtime directories.
    public static func platform(for services: [String], configuration: Configuration, logger: Logger,
                                observer: @escaping RPCClient.Observer = { _, _, _, _ in }) throws -> RPCClient {
        let runtime = RuntimeDirectory(configuration: configuration)
        var discovery: [String: RPCClient.Discovery] = [:]
        for service in services {
            if let list = configuration[RuntimeKey.endpoints(of: service)] {
                discovery[service] = .endpoints(try list.split(separator: ",").map { try Endpoint(String($0).trimmingCharacters(in: .whitespaces)) })
            } else {
                discovery[service] = .directory(runtime.serviceDirectory(service))
            }
        }
        var settings = RPCClient.Settings()
        settings.maximumFrameSize = try configuration.int(RuntimeKey.maximumFrameSize, default: RPCFraming.defaultMaximumFrameSize)
        return RPCClient(services: discovery, settings: settings, logger: logger, observer: observer)
    }
}
