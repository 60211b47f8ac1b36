import Crypto
import Foundation

/// Encrypts secrets the platform must be able to give back later (an OpenSense device's storage key for a
/// researcher, a Twomes device's activation token for its label) with a deployment key that never enters
/// the database: ChaCha20-Poly1305, random nonce, the record's identity bound in as associated data so
/// that a sealed value copied to another record does not open.
public struct Sealer: Sendable {
    private let key: SymmetricKey

    public init(key: SymmetricKey) {
        self.key = key
    }

    /// A key as stored in a file or variable: 32 random bytes, base64.
    public init(base64 text: String) throws {
        guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), data.count == 32 else {
            throw SealerError.invalidKey
        }
        self.init(key: SymmetricKey(data: data))
    }

    public static func generateKeyText() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString()
    }

    public func seal(_ plaintext: String, context: String) throws -> Data {
        try ChaChaPoly.seal(Data(plaintext.utf8), using: key, authenticating: Data(context.utf8)).combined
    }

    /// A keyed digest of `text` (HMAC-SHA256 under a key derived for `context`): the same text always gives the same
    /// bytes, for finding a row by a value that must not be stored readable, such as the email a login failed for.
    /// Without the deployment key, a dump cannot be checked against a list of guessed addresses.
    public func digest(_ text: String, context: String) -> Data {
        let derived = HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data("digest:\(context)".utf8), outputByteCount: 32)
        return Data(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: derived))
    }

    public func open(_ sealed: Data, context: String) throws -> String {
        let box = try ChaChaPoly.SealedBox(combined: sealed)
        let plaintext = try ChaChaPoly.open(box, using: key, authenticating: Data(context.utf8))
        guard let text = String(data: plaintext, encoding: .utf8) else { throw SealerError.notText }
        return text
    }
}

public enum SealerError: Error, CustomStringConvertible {
    case invalidKey, notText

    public var description: String {
        switch self {
        case .invalidKey: "a sealing key is 32 bytes, base64-encoded"
        case .notText: "a sealed value did not hold text"
        }
    }
}
