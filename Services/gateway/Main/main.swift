import CustodianRuntime
import Foundation
import GatewayKit
import Logging
import ServiceLifecycle

if CommandLine.arguments.dropFirst() == ["--version"] {
    print("gateway \(CustodianVersion.current)")
    exit(0)
}
let configuration: Configuration
do {
    configuration = try Configuration()
} catch {
    FileHandle.standardError.write(Data("gateway: \(error)\n".utf8))
    exit(2)
}
let logger = CustodianLogging.bootstrap(service: "gateway", configuration: configuration)
do {
    let app = try buildApplication(configuration: configuration, logger: logger) { port in
        logger.info("gateway listening", metadata: ["port": .stringConvertible(port)])
    }
    var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: app)]
    if let watch = ParentWatch(configuration: configuration) {
        services.append(.init(service: watch, successTerminationBehavior: .gracefullyShutdownGroup))
    }
    let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
} catch {
    logger.critical("gateway stopped with an error", metadata: ["error": .string("\(error)")])
    exit(1)
}
