import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// The auth service's methods: those the gateway calls on its own (who an admin token belongs to; for each
/// end-to-end request of the tracing app, the session's keys and whether it may go on: docs/rpc.md), and those it routes.
public enum AuthMethods {
    /// The principal of an admin token; 401 when it is no admin's.
    public static let adminAuthenticate = RPCMethod<TokenInput, Principal>("auth.admin.authenticate", retry: .safe)
    /// The keys of a live session, else 401.
    public static let lemonSessionKeys = RPCMethod<SessionInput, WireSessionKeys>("auth.lemon.session.keys", retry: .safe)
    /// Admits one request: the session is live and the payload's IV is new in it (400 when replayed).
    public static let lemonSessionUse = RPCMethod<SessionInput, Empty>("auth.lemon.session.use")
    /// The public keys access tokens are verified with (the current one and those still accepted).
    public static let keysList = RPCMethod<Empty, PublicKeySet>("auth.keys.list", retry: .safe)
    /// Opens a researcher console session for an admin token (401 when it is no admin's): a new session token.
    public static let consoleLogin = RPCMethod<TokenInput, ConsoleSession>("auth.console.login")
    /// The admin of a live console session, else 401.
    public static let consoleSession = RPCMethod<TokenInput, Principal>("auth.console.session", retry: .safe)
    /// A data vault user's erasure (docs/erasure.md): the vault's part, then the login; idempotent.
    public static let vaultUsersErase = RoutedMethod<VaultUserErasure, ErasureReceipt>("auth.vaultUsers.erase", retry: .safe)
    /// The operators' view of the tracing app's instances, and an instance's erasure with its submissions.
    public static let lemonAppsList = RoutedMethod<LemonAppsQuery, LemonAppsPage>("auth.lemon.apps.list", retry: .safe)
    public static let lemonAppsErase = RoutedMethod<LemonAppByID, ErasureReceipt>("auth.lemon.apps.erase", retry: .safe)
    /// Ends a console session; ending one that has ended already is no error.
    public static let consoleLogout = RPCMethod<TokenInput, Empty>("auth.console.logout", retry: .safe)

    // The routes of docs/lemon.md and docs/vault.md that `auth` answers, typed (docs/rpc.md, "Typed routed methods").
    public static let lemonDeviceActive = RoutedMethod<LemonDeviceStatus, LemonNoData>("auth.lemon.device.active")
    public static let lemonDeviceDelete = RoutedMethod<NoInput, LemonNoData>("auth.lemon.device.delete")
    public static let lemonHandshake = RoutedMethod<LemonHandshakeRequest, HandshakeResponse>("auth.lemon.handshake")
    public static let lemonKeys = RoutedMethod<NoInput, LemonPublishedKeys>("auth.lemon.keys", retry: .safe)
    public static let lemonPushTokenDelete = RoutedMethod<NoInput, LemonNoData>("auth.lemon.pushToken.delete")
    public static let lemonPushTokenUpdate = RoutedMethod<LemonPushTokenUpdate, LemonNoData>("auth.lemon.pushToken.update")
    public static let oauthToken = RoutedMethod<OAuthTokenRequest, OAuthToken>("auth.oauth.token")
    public static let vaultUsersChangePassword = RoutedMethod<PasswordChange, PasswordChanged>("auth.vaultUsers.changePassword")
    public static let vaultUsersCreate = RoutedMethod<VaultUserCreate, VaultUser>("auth.vaultUsers.create")
}

/// A bearer credential as the client sent it.
public struct TokenInput: Codable, Sendable {
    public var token: String

    public init(token: String) {
        self.token = token
    }
}

/// A researcher console session: the token its cookie carries (stored only as a hash) and when it ends.
public struct ConsoleSession: Codable, Sendable {
    public var token: String
    public var expiresInSeconds: Int

    public init(token: String, expiresInSeconds: Int) {
        self.token = token
        self.expiresInSeconds = expiresInSeconds
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

/// A public key of the key set `auth` publishes (RFC 7517).
public struct PublicJWK: Codable, Sendable, Equatable {
    public var kty: String
    public var crv: String
    public var x: String
    public var y: String
    public var kid: String
    public var alg: String
    public var use: String

    public init(kty: String, crv: String, x: String, y: String, kid: String, alg: String, use: String) {
        self.kty = kty
        self.crv = crv
        self.x = x
        self.y = y
        self.kid = kid
        self.alg = alg
        self.use = use
    }
}

/// The keys access tokens verify with, and how long a copy may be kept before it is fetched again: a key published now
/// is at every gateway within that time (docs/jwt.md).
public struct PublicKeySet: Codable, Sendable, Equatable {
    public var keys: [PublicJWK]
    /// Seconds; absent from an `auth` older than key rotation, whose gateways kept a copy a minute.
    public var maxAgeSeconds: Int?

    public init(keys: [PublicJWK], maxAgeSeconds: Int? = nil) {
        self.keys = keys
        self.maxAgeSeconds = maxAgeSeconds
    }
}
