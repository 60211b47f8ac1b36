import CustodianRPC

/// The auth methods the gateway calls on its own (not for a route): who an admin token belongs to, and for each
/// end-to-end request of the tracing app, the session's keys and whether it may go on (docs/rpc.md).
public enum AuthMethods {
    /// The principal of an admin token; 401 when it is no admin's.
    public static let adminAuthenticate = RPCMethod<TokenInput, Principal>("auth.admin.authenticate")
    /// The keys of a live session, else 401.
    public static let lemonSessionKeys = RPCMethod<SessionInput, WireSessionKeys>("auth.lemon.session.keys")
    /// Admits one request: the session is live and the payload's IV is new in it (400 when replayed).
    public static let lemonSessionUse = RPCMethod<SessionInput, Empty>("auth.lemon.session.use")
}

/// A bearer credential as the client sent it.
public struct TokenInput: Codable, Sendable {
    public var token: String

    public init(token: String) {
        self.token = token
    }
}

/// A session as the gateway names it from a verified token (`sid`, `sub`), with the IV (base64) of the
/// request's payload when it has one.
public struct SessionInput: Codable, Sendable {
    public var session: String
    public var device: String
    public var iv: String?

    public init(session: String, device: String, iv: String? = nil) {
        self.session = session
        self.device = device
        self.iv = iv
    }
}

/// Session keys as they travel between `auth` and the gateway.
public struct WireSessionKeys: Codable, Sendable {
    public var encryptionKey: String
    public var macKey: String

    public init(encryptionKey: String, macKey: String) {
        self.encryptionKey = encryptionKey
        self.macKey = macKey
    }
}
