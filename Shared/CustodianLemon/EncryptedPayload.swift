import Crypto
import CryptoExtras
import Foundation

/// A request or response body of the tracing API after the handshake:
/// `base64(IV(16) ‖ AES-256-CBC-PKCS#7(plaintext) ‖ HMAC-SHA256(IV ‖ ciphertext)(32))` (docs/lemon.md,
/// "End-to-end payloads"). The MAC is checked, in constant time, before anything is decrypted.
public struct EncryptedPayload: Sendable, Equatable {
    public let iv: [UInt8]
    public let ciphertext: [UInt8]
    public let mac: [UInt8]

    public static let ivLength = 16
    public static let macLength = 32

    /// Splits a body into its parts; the body is the base64 text, bare or as one JSON string.
    public init(body: some Collection<UInt8>) throws(EncryptedPayloadError) {
        var text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("\"") {
            guard let decoded = try? JSONDecoder().decode(String.self, from: Data(text.utf8)) else { throw .notBase64 }
            text = decoded
        }
        guard let bytes = Data(base64Encoded: text) else { throw .notBase64 }
        // At least one cipher block; the ciphertext of PKCS#7-padded data fills whole blocks.
        let cipherLength = bytes.count - Self.ivLength - Self.macLength
        guard cipherLength >= 16, cipherLength % 16 == 0 else { throw .wrongLength }
        let all = Array(bytes)
        self.iv = Array(all[0..<Self.ivLength])
        self.ciphertext = Array(all[Self.ivLength..<(Self.ivLength + cipherLength)])
        self.mac = Array(all[(Self.ivLength + cipherLength)...])
    }

    init(iv: [UInt8], ciphertext: [UInt8], mac: [UInt8]) {
        self.iv = iv
        self.ciphertext = ciphertext
        self.mac = mac
    }

    /// Encrypts `plaintext` under a fresh random IV (or the given one, for test vectors).
    public static func seal(_ plaintext: some DataProtocol, keys: SessionKeys, iv: [UInt8]? = nil) -> EncryptedPayload {
        let ivBytes = iv ?? (0..<ivLength).map { _ in UInt8.random(in: .min ... .max) }
        precondition(ivBytes.count == ivLength && keys.encryption.count == 32, "an IV is 16 bytes, an AES-256 key 32")
        // Cannot fail with a 32-byte key and a 16-byte IV.
        let ciphertext = try! AES._CBC.encrypt(
            plaintext, using: SymmetricKey(data: keys.encryption), iv: AES._CBC.IV(ivBytes: ivBytes))
        let mac = Self.mac(iv: ivBytes, ciphertext: Array(ciphertext), key: keys.authentication)
        return EncryptedPayload(iv: ivBytes, ciphertext: Array(ciphertext), mac: mac)
    }

    /// The plaintext, once the MAC proves the payload came from the session's other side unaltered.
    public func open(keys: SessionKeys) throws(EncryptedPayloadError) -> Data {
        let key = SymmetricKey(data: keys.authentication)
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: iv + ciphertext, using: key) else { throw .badMAC }
        do {
            return try AES._CBC.decrypt(ciphertext, using: SymmetricKey(data: keys.encryption), iv: AES._CBC.IV(ivBytes: iv))
        } catch {
            throw .badPadding
        }
    }

    public var bytes: [UInt8] { iv + ciphertext + mac }
    public var base64: String { Data(bytes).base64EncodedString() }

    /// The MAC over any IV and ciphertext, for tests that need a payload whose MAC is right and whose
    /// content is not.
    public static func macForTesting(iv: [UInt8], ciphertext: [UInt8], keys: SessionKeys) -> [UInt8] {
        mac(iv: iv, ciphertext: ciphertext, key: keys.authentication)
    }

    static func mac(iv: [UInt8], ciphertext: [UInt8], key: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: iv + ciphertext, using: SymmetricKey(data: key)))
    }
}

public enum EncryptedPayloadError: Error, Equatable, CustomStringConvertible {
    case notBase64, wrongLength, badMAC, badPadding

    public var description: String {
        switch self {
        case .notBase64: "The payload is not base64"
        case .wrongLength: "The payload has the wrong length"
        case .badMAC: "The payload's MAC does not match"
        case .badPadding: "The payload's padding is invalid"
        }
    }
}
