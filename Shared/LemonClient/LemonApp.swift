import Crypto
import CustodianLemon
import Foundation

/// What a tracing app keeps on the phone: its random instance id and its key pair (in the Secure Enclave or
/// Android Keystore on a real phone).
public struct LemonApp: Sendable {
    public let appId: String
    public let privateKey: P256.Signing.PrivateKey

    public init(appId: String, privateKey: P256.Signing.PrivateKey) {
        self.appId = appId
        self.privateKey = privateKey
    }

    /// A new instance: 32 random bytes as hex for the id, a fresh P-256 key.
    public static func generate() -> LemonApp {
        let id = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max)) }.joined()
        return LemonApp(appId: id, privateKey: P256.Signing.PrivateKey())
    }

    /// base64 DER SubjectPublicKeyInfo, the handshake's `PublicKey`.
    public var publicKey: String { privateKey.publicKey.derRepresentation.base64EncodedString() }

    func sign(_ message: [UInt8]) throws -> String {
        try privateKey.signature(for: message).derRepresentation.base64EncodedString()
    }
}

/// A session after a successful handshake: the token for `Authorization` and the payload keys.
public struct LemonSession: Sendable {
    public let accessToken: String
    public let accessTokenExpiry: String
    public let keys: SessionKeys

    public init(accessToken: String, accessTokenExpiry: String, keys: SessionKeys) {
        self.accessToken = accessToken
        self.accessTokenExpiry = accessTokenExpiry
        self.keys = keys
    }
}
