/// How the gateway asks `auth` about a tracing-app session for each request (docs/rpc.md).
public enum SessionContract {
    /// → ``WireSessionKeys`` of a live session, else 401.
    public static let keysMethod = "auth.lemon.session.keys"
    /// Admits one request: the session is live and the payload's IV is new in it (400 when replayed).
    public static let useMethod = "auth.lemon.session.use"
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
