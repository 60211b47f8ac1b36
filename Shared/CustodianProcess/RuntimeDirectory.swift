import Foundation

/// Where sockets live: `<runtime dir>/<service>/<instance>.sock`.
public struct RuntimeDirectory: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public init(configuration: Configuration) {
        let path = configuration.string(RuntimeKey.runtimeDirectory, default: ".custodian/run")
        self.path = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    public func serviceDirectory(_ service: String) -> String { "\(path)/\(service)" }

    public func socketPath(service: String, instance: String) -> String { "\(path)/\(service)/\(instance).sock" }
}
