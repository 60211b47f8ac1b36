import Foundation
import Logging

/// Who is calling, on whose behalf, and until when: established by the gateway for each HTTP request and
/// passed along unchanged by every service that calls another one on the way.
public struct CallContext: Codable, Sendable {
    /// The `X-Request-Id` of the HTTP request this call serves.
    public var requestID: String
    /// Milliseconds since 1970 after which nobody waits for the answer any more.
    public var deadline: Int64?
    public var principal: Principal?
    /// A credential the gateway could not check itself (an opaque bearer token), for the owning service.
    public var credential: Credential?
    /// Whether what this call creates is synthetic (load and benchmark data, docs/operations.md "Synthetic data"):
    /// set by the gateway only for a request whose `X-Custodian-Synthetic` header holds a good admin token. Absent
    /// on the wire unless true, so that frames of either version decode.
    public var synthetic: Bool?
    /// The W3C `traceparent` of the caller's span (``TraceParent``), which the called method's span continues. Absent
    /// on the wire when the caller has no tracer.
    public var traceparent: String?

    /// Carries `request_id` metadata; set by the server for each call, not sent on the wire.
    public var logger: Logger

    public init(
        requestID: String, deadline: Date? = nil, principal: Principal? = nil, credential: Credential? = nil,
        logger: Logger = Logger(label: "custodian")
    ) {
        self.requestID = requestID
        self.deadline = deadline.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
        self.principal = principal
        self.credential = credential
        self.logger = logger
        use(logger)
    }

    /// Logs through `logger`, with the request's id as metadata.
    public mutating func use(_ logger: Logger) {
        self.logger = logger
        // Each change copies the logger's metadata: a logger that carries the id already (the gateway's request's) keeps it.
        if logger[metadataKey: "request_id"] != .string(requestID) {
            self.logger[metadataKey: "request_id"] = .string(requestID)
        }
    }

    enum CodingKeys: String, CodingKey { case requestID = "requestId", deadline, principal, credential, synthetic, traceparent }

    /// Whether the records this call creates are to be marked synthetic.
    public var createsSynthetic: Bool { synthetic == true }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.requestID = try container.decode(String.self, forKey: .requestID)
        self.deadline = try container.decodeIfPresent(Int64.self, forKey: .deadline)
        self.principal = try container.decodeIfPresent(Principal.self, forKey: .principal)
        self.credential = try container.decodeIfPresent(Credential.self, forKey: .credential)
        self.synthetic = try container.decodeIfPresent(Bool.self, forKey: .synthetic)
        self.traceparent = try container.decodeIfPresent(String.self, forKey: .traceparent)
        self.logger = Logger(label: "custodian")
    }

    public var deadlineDate: Date? {
        deadline.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// A context for work that no HTTP request started (start-up jobs, command-line tools).
    public static func background(_ purpose: String, timeout: TimeInterval = 30) -> CallContext {
        CallContext(requestID: "\(purpose)-\(RequestID.random())", deadline: Date().addingTimeInterval(timeout))
    }
}

/// What kind of identity a principal is; on the wire, its name.
public struct PrincipalKind: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    /// A researcher or operator with the admin token.
    public static let admin: PrincipalKind = "admin"
    /// A Twomes account (the app) and a Twomes device.
    public static let account: PrincipalKind = "account"
    public static let device: PrincipalKind = "device"
    /// A LEMON tracing app.
    public static let app: PrincipalKind = "app"
    /// A data vault user and a module acting for one.
    public static let user: PrincipalKind = "user"
    public static let module: PrincipalKind = "module"
    /// A geotag API consumer (signed requests).
    public static let consumer: PrincipalKind = "consumer"
}

/// An authenticated caller.
public struct Principal: Codable, Sendable, Equatable {
    public var kind: PrincipalKind
    public var id: String
    /// The session the credential belongs to, where one exists (for revocation).
    public var session: String?
    public var scopes: [String]
    /// What the identity is called, where it has a name (an admin token's label): for log lines and the audit log.
    public var name: String?

    public init(kind: PrincipalKind, id: String, session: String? = nil, scopes: [String] = [], name: String? = nil) {
        self.kind = kind
        self.id = id
        self.session = session
        self.scopes = scopes
        self.name = name
    }
}

/// A bearer token forwarded to the service that issued it, and the kind of principal the route wants.
public struct Credential: Codable, Sendable, Equatable {
    public var token: String
    public var expectedKind: PrincipalKind?

    public init(token: String, expectedKind: PrincipalKind? = nil) {
        self.token = token
        self.expectedKind = expectedKind
    }
}
