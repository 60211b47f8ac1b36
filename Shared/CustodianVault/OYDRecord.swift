import Crypto
import CustodianSodium
import Foundation

/// An encrypted OwnYourData record (docs/vault.md, "Record format"): libsodium `crypto_box_easy` of the JSON
/// message, from the fixed sender secret key SHA-256("auth") to the repo's public key, with a random
/// 24-byte nonce; `value` and `nonce` in hex, `"version": "0.4"`.
public struct OYDRecord: Codable, Sendable, Equatable {
    public var value: String
    public var nonce: String
    public var version: String

    public static let version = "0.4"

    /// The sender key every OwnYourData client uses: it authenticates nothing, `crypto_box` just needs one.
    public static var senderSecretKey: [UInt8] { Array(SHA256.hash(data: Data("auth".utf8))) }

    public init(value: String, nonce: String, version: String = Self.version) {
        self.value = value
        self.nonce = nonce
        self.version = version
    }

    /// Encrypts `message` for a repo whose public key is `publicKeyHex` (64 hex characters).
    public static func seal(_ message: String, publicKeyHex: String, nonce: [UInt8]? = nil) throws -> OYDRecord {
        guard let publicKey = [UInt8](hex: publicKeyHex), publicKey.count == Sodium.boxKeyLength else {
            throw RecordError.invalidPublicKey
        }
        let nonce = nonce ?? Sodium.randomBytes(Sodium.boxNonceLength)
        guard nonce.count == Sodium.boxNonceLength else { throw RecordError.invalidNonce }
        let cipher = try Sodium.box(Array(message.utf8), nonce: nonce, recipientPublicKey: publicKey, senderSecretKey: senderSecretKey)
        return OYDRecord(value: cipher.hex, nonce: nonce.hex)
    }

    /// Decrypts with the repo's secret key.
    public func open(secretKey: [UInt8]) throws -> String {
        guard let cipher = [UInt8](hex: value) else { throw RecordError.invalidValue }
        guard let nonce = [UInt8](hex: self.nonce), nonce.count == Sodium.boxNonceLength else { throw RecordError.invalidNonce }
        let sender = try Sodium.boxPublicKey(secretKey: Self.senderSecretKey)
        let message = try Sodium.openBox(cipher, nonce: nonce, senderPublicKey: sender, recipientSecretKey: secretKey)
        guard let text = String(bytes: message, encoding: .utf8) else { throw RecordError.notText }
        return text
    }

    public enum RecordError: Error, CustomStringConvertible {
        case invalidPublicKey, invalidNonce, invalidValue, notText

        public var description: String {
            switch self {
            case .invalidPublicKey: "a repo public key is 64 hexadecimal characters"
            case .invalidNonce: "a nonce is 48 hexadecimal characters (24 bytes)"
            case .invalidValue: "value must be hexadecimal"
            case .notText: "the decrypted record is not UTF-8 text"
            }
        }
    }
}
