import CustodianProcess
import Foundation
import GatewayKit
import Logging
import ServiceLifecycle

do {
    if let (kind, arguments) = try ProbeKind.requested(in: Array(CommandLine.arguments.dropFirst())) {
        exit(await GatewayProbe.run(kind, configuration: try Configuration(arguments: arguments)))
    }
} catch {
    FileHandle.standardError.write(Data("gateway: \(error)\n".utf8))
    exit(2)
}
let (configuration, logger) = ProcessStart.begin(named: "gateway")
do {
    let app = try buildApplication(configuration: configuration, logger: logger) { port in
        logger.info("gateway listening", metadata: ["port": .stringConvertible(port)])
    }
    var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: app)]
    if let watch = ParentWatch(configuration: configuration) {
        services.append(.init(service: watch, successTerminationBehavior: .gracefullyShutdownGroup))
    }
    var groupConfiguration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    groupConfiguration.maximumGracefulShutdownDuration = .seconds(20)
    groupConfiguration.maximumCancellationDuration = .seconds(5)
    let group = ServiceGroup(configuration: groupConfiguration)
    try await group.run()
} catch {
    logger.critical("gateway stopped with an error", metadata: ["error": .string("\(error)")])
    exit(1)
}
