import CustodianProcess
import Foundation
import NIOCore

/// The gateway's own settings, on top of the runtime ones (README lists them all).
public struct GatewayConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// PEM certificate chain and key; both or neither. Without them the gateway needs `insecureHTTP`.
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// How often the certificate and key files are read again to find a renewed pair (``ServerCertificate``).
    public var tlsReloadInterval: Duration
    public var insecureHTTP: Bool
    public var maximumBodySize: Int
    public var jwtIssuer: String
    public var jwtAudience: String
    public var serviceTimeout: Duration
    public var connections: ConnectionLimits
    public var rateLimits: RateLimitSettings
    /// Whether the console's cookies are `Secure`: by default whenever the gateway serves TLS; set it when a proxy in
    /// front terminates TLS for a gateway that serves plain HTTP.
    public var consoleSecureCookies: Bool
    /// How often the audit log's head is fetched and published (a log line and `/metrics`).
    public var auditHeadInterval: Duration
    /// Which gateway replica this is (`CUSTODIAN_INSTANCE`, else host and process id), as its traces and `/metrics` name it.
    public var instance: String

    public init(_ configuration: Configuration) throws {
        host = configuration.string("CUSTODIAN_HTTP_HOST", default: "127.0.0.1")
        instance = ProcessStart.instanceName(configuration)
        port = try configuration.int("CUSTODIAN_HTTP_PORT", default: 8443)
        tlsCertificatePath = configuration["CUSTODIAN_TLS_CERTIFICATE"]
        tlsKeyPath = configuration["CUSTODIAN_TLS_KEY"]
        tlsReloadInterval = try configuration.duration("CUSTODIAN_TLS_RELOAD_INTERVAL", default: .seconds(5))
        guard tlsReloadInterval > .zero else { throw ConfigurationError(message: "CUSTODIAN_TLS_RELOAD_INTERVAL must be longer than 0s") }
        insecureHTTP = ["1", "true", "yes"].contains(configuration.string("CUSTODIAN_INSECURE_HTTP", default: "false").lowercased())
        maximumBodySize = try configuration.int("CUSTODIAN_MAX_BODY_SIZE", default: 1024 * 1024)
        jwtIssuer = configuration.string("CUSTODIAN_JWT_ISSUER", default: "custodian")
        jwtAudience = configuration.string("CUSTODIAN_JWT_AUDIENCE", default: "custodian-api")
        serviceTimeout = try configuration.duration("CUSTODIAN_SERVICE_TIMEOUT", default: .seconds(10))

        var connections = ConnectionLimits()
        connections.maximumConnections = try configuration.int("CUSTODIAN_HTTP_MAX_CONNECTIONS", default: connections.maximumConnections)
        connections.maximumHeaderSize = try configuration.int("CUSTODIAN_HTTP_MAX_HEADER_SIZE", default: connections.maximumHeaderSize)
        func timeout(_ key: String, _ defaultValue: TimeAmount) throws -> TimeAmount {
            let duration = try configuration.duration(key, default: .nanoseconds(defaultValue.nanoseconds))
            guard duration > .zero else { throw ConfigurationError(message: "\(key) must be longer than 0s") }
            let (seconds, attoseconds) = duration.components
            return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        }
        connections.headerTimeout = try timeout("CUSTODIAN_HTTP_HEADER_TIMEOUT", connections.headerTimeout)
        connections.bodyTimeout = try timeout("CUSTODIAN_HTTP_BODY_TIMEOUT", connections.bodyTimeout)
        connections.idleTimeout = try timeout("CUSTODIAN_HTTP_IDLE_TIMEOUT", connections.idleTimeout)
        guard connections.maximumConnections > 0, (1024...1024 * 1024).contains(connections.maximumHeaderSize) else {
            throw ConfigurationError(
                message: "CUSTODIAN_HTTP_MAX_CONNECTIONS must be positive and CUSTODIAN_HTTP_MAX_HEADER_SIZE between 1024 and 1048576")
        }
        self.connections = connections
        rateLimits = try RateLimitSettings(configuration)
        auditHeadInterval = try configuration.duration("CUSTODIAN_AUDIT_HEAD_INTERVAL", default: .seconds(60))
        guard auditHeadInterval > .zero else { throw ConfigurationError(message: "CUSTODIAN_AUDIT_HEAD_INTERVAL must be longer than 0s") }

        let secureDefault = insecureHTTP && tlsCertificatePath == nil ? "false" : "true"
        consoleSecureCookies = ["1", "true", "yes"].contains(
            configuration.string("CUSTODIAN_CONSOLE_SECURE_COOKIES", default: secureDefault).lowercased())

        if (tlsCertificatePath == nil) != (tlsKeyPath == nil) {
            throw ConfigurationError(message: "set both CUSTODIAN_TLS_CERTIFICATE and CUSTODIAN_TLS_KEY, or neither")
        }
        if tlsCertificatePath == nil && !insecureHTTP {
            throw ConfigurationError(
                message: "no TLS certificate: set CUSTODIAN_TLS_CERTIFICATE and CUSTODIAN_TLS_KEY, or CUSTODIAN_INSECURE_HTTP=1 for plain HTTP")
        }
    }
}
