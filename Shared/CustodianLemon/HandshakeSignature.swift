import Crypto
import Foundation

/// The byte strings the handshake's signatures cover (docs/lemon.md). Fields enter exactly as sent (the base64
/// texts, not their bytes), joined by `\n`, after a label that keeps a signature for one message from
/// passing as another; an absent optional field is the empty string.
public enum HandshakeSignature {
    public static func registration(
        appId: String, publicKey: String, operatingSystem: String, pushToken: String?,
        language: String, seed: String, preMasterSecret: String
    ) -> [UInt8] {
        canonical("LEMON-REGISTER-1", [appId, publicKey, operatingSystem, pushToken ?? "", language, seed, preMasterSecret])
    }

    public static func authentication(appId: String, language: String?, seed: String, preMasterSecret: String) -> [UInt8] {
        canonical("LEMON-AUTHENTICATE-1", [appId, language ?? "", seed, preMasterSecret])
    }

    /// What the server signs: the token it issues and both seeds, so the app knows the answer is fresh and
    /// comes from the key it pinned.
    public static func server(accessToken: String, clientSeed: String, serverSeed: String) -> [UInt8] {
        canonical("LEMON-SERVER-1", [accessToken, clientSeed, serverSeed])
    }

    static func canonical(_ label: String, _ fields: [String]) -> [UInt8] {
        Array(([label] + fields).joined(separator: "\n").utf8)
    }

    /// An ECDSA P-256 / SHA-256 signature in DER (what iOS `SecKeyCreateSignature` and Android's
    /// `Signature("SHA256withECDSA")` give) or raw r ‖ s (64 bytes, CryptoKit's `rawRepresentation`).
    public static func parse(_ base64: String) -> P256.Signing.ECDSASignature? {
        guard let bytes = Data(base64Encoded: base64) else { return nil }
        if bytes.count == 64, let raw = try? P256.Signing.ECDSASignature(rawRepresentation: bytes) { return raw }
        return try? P256.Signing.ECDSASignature(derRepresentation: bytes)
    }

    /// A client's public key: base64 of its DER SubjectPublicKeyInfo.
    public static func publicKey(_ base64: String) -> P256.Signing.PublicKey? {
        guard let bytes = Data(base64Encoded: base64) else { return nil }
        return try? P256.Signing.PublicKey(derRepresentation: bytes)
    }
}
