import CustodianProcess
import Foundation
import Logging
import ServiceLifecycle

/// The gateway process: a probe when asked for one (`gateway --probe ready`), else the HTTP server until SIGTERM or
/// SIGINT. The `gateway` executable and the container image's multi-call executable both run this.
public enum GatewayMain {
    public static func run() async -> Never {
        do {
            if let (kind, arguments) = try ProbeKind.requested(in: Array(CommandLine.arguments.dropFirst())) {
                exit(await GatewayProbe.run(kind, configuration: try Configuration(arguments: arguments)))
            }
        } catch {
            FileHandle.standardError.write(Data("gateway: \(error)\n".utf8))
            exit(2)
        }
        let (configuration, logger, tracing) = ProcessStart.begin(named: "gateway")
        do {
            let app = try buildApplication(configuration: configuration, logger: logger) { port in
                logger.info("gateway listening", metadata: ["port": .stringConvertible(port)])
            }
            // The tracer's exporter first, so that it stops last and exports the spans the others finished.
            var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: tracing), .init(service: app)]
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
        exit(0)
    }
}
