import NIOCore

/// Where a service replica listens: `unix:<path>` (or a bare absolute path) or `tcp://host:port`.
public enum Endpoint: Sendable, Hashable, CustomStringConvertible {
    case unix(path: String)
    case tcp(host: String, port: Int)

    /// The kernel's limit for `sun_path`, terminating NUL included.
    public static let maximumUnixPathLength = 107

    public init(_ text: String) throws {
        if text.hasPrefix("unix:") {
            self = .unix(path: String(text.dropFirst("unix:".count)))
        } else if text.hasPrefix("/") {
            self = .unix(path: text)
        } else if text.hasPrefix("tcp://") {
            let rest = text.dropFirst("tcp://".count)
            guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]),
                (0...65535).contains(port)
            else {
                throw EndpointError(text: text, problem: "expected tcp://host:port")
            }
            var host = String(rest[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            self = .tcp(host: host, port: port)
        } else {
            throw EndpointError(text: text, problem: "expected unix:<path> or tcp://host:port")
        }
        if case .unix(let path) = self, path.utf8.count > Self.maximumUnixPathLength {
            throw EndpointError(text: text, problem: "a Unix socket path must be at most \(Self.maximumUnixPathLength) bytes")
        }
    }

    public var description: String {
        switch self {
        case .unix(let path): "unix:\(path)"
        case .tcp(let host, let port): host.contains(":") ? "tcp://[\(host)]:\(port)" : "tcp://\(host):\(port)"
        }
    }
}

public struct EndpointError: Error, CustomStringConvertible {
    public var text: String
    public var problem: String
    public var description: String { "invalid endpoint '\(text)': \(problem)" }

    public init(text: String, problem: String) {
        self.text = text
        self.problem = problem
    }
}
