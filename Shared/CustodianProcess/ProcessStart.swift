import Foundation
import Logging
import NIOCore

/// What every executable of the platform does first, the gateway's and the services' alike.
public enum ProcessStart {
    /// Answers `--version`, reads the process's settings (exiting with a clear message when they are wrong), sizes
    /// the event loop group, and sets up logging.
    public static func begin(named name: String) -> (Configuration, Logger) {
        if CommandLine.arguments.dropFirst() == ["--version"] {
            print("\(name) \(CustodianVersion.current)")
            exit(0)
        }
        do {
            let configuration = try Configuration()
            // Before anything touches NIO's shared group, which is sized once, when first used.
            if let loops = try configuration.eventLoops() { NIOSingletons.groupLoopCountSuggestion = loops }
            return (configuration, CustodianLogging.bootstrap(service: name, configuration: configuration))
        } catch {
            FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
            exit(2)
        }
    }
}
