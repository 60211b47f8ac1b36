import CustodianTracing
import Foundation
import Logging
import NIOCore
import ServiceLifecycle

/// What every executable of the platform does first, the gateway's and the services' alike.
public enum ProcessStart {
    /// Answers `--version`, reads the process's settings (exiting with a clear message when they are wrong), sizes
    /// the event loop group, and sets up logging and tracing. The third part is the tracer's exporter, for the
    /// process's service group, first among its services so that it stops last.
    public static func begin(named name: String) -> (Configuration, Logger, any Service) {
        if CommandLine.arguments.dropFirst() == ["--version"] {
            print("\(name) \(CustodianVersion.current)")
            exit(0)
        }
        do {
            let configuration = try Configuration()
            // Before anything touches NIO's shared group, which is sized once, when first used.
            if let loops = try configuration.eventLoops() { NIOSingletons.groupLoopCountSuggestion = loops }
            let logger = CustodianLogging.bootstrap(service: name, configuration: configuration)
            let tracing = ProcessTracing(service: name, instance: instanceName(configuration))
            return (configuration, logger, try tracing.bootstrap(logger: logger))
        } catch {
            FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
            exit(2)
        }
    }

    /// Which replica this process is: `CUSTODIAN_INSTANCE`, else the host's name and the process id.
    public static func instanceName(_ configuration: Configuration) -> String {
        configuration.string(RuntimeKey.instance, default: "\(hostLabel())-\(getpid())")
    }

    /// This host's name up to its first dot: a container's host name is its id, unique among the replicas.
    public static func hostLabel() -> String {
        ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
    }
}
