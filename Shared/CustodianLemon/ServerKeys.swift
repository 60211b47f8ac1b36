import Crypto
import CryptoExtras
import Foundation

/// One generation of the server's handshake keys: RSA (OAEP-SHA256) for the pre-master secret, ECDSA P-256 for
/// the server's signature. Apps pin the public halves; rotation adds a generation with a new id.
public struct ServerKey: Sendable {
    public let id: String
    /// DER (PKCS#1); the RSA key type is not `Sendable`, so it is parsed where it is used, which costs little
    /// next to a private-key operation.
    private let encryptionDER: Data
    public let signing: P256.Signing.PrivateKey

    public init(id: String, encryption: _RSA.Encryption.PrivateKey, signing: P256.Signing.PrivateKey) {
        self.id = id
        self.encryptionDER = encryption.derRepresentation
        self.signing = signing
    }

    public func encryptionKey() throws -> _RSA.Encryption.PrivateKey {
        try _RSA.Encryption.PrivateKey(derRepresentation: encryptionDER)
    }

    public static let rsaKeySize = 3072

    public static func generate(id: String) throws -> ServerKey {
        ServerKey(id: id, encryption: try _RSA.Encryption.PrivateKey(keySize: .init(bitCount: rsaKeySize)), signing: P256.Signing.PrivateKey())
    }

    /// The pre-master secret, or nil when it was not encrypted to this key (or is not 48 bytes).
    public func decryptPreMasterSecret(_ ciphertext: Data) -> [UInt8]? {
        guard let plaintext = try? encryptionKey().decrypt(ciphertext, padding: .PKCS1_OAEP_SHA256),
            plaintext.count == SessionKeys.preMasterSecretLength
        else { return nil }
        return Array(plaintext)
    }

    public func sign(_ message: [UInt8]) throws -> String {
        try signing.signature(for: message).derRepresentation.base64EncodedString()
    }

    public var publicKey: ServerPublicKey {
        // The DER came from a parsed key, so it parses again.
        let encryption = try! encryptionKey()
        return ServerPublicKey(
            keyId: id, encryptionKey: encryption.publicKey.derRepresentation.base64EncodedString(),
            signingKey: signing.publicKey.derRepresentation.base64EncodedString())
    }
}

/// The public halves an app pins, as `GET /api/v1/keys` and `custodian lemon keys` show them: base64 DER
/// SubjectPublicKeyInfo each.
public struct ServerPublicKey: Codable, Sendable, Equatable {
    public var keyId: String
    public var encryptionKey: String
    public var signingKey: String

    enum CodingKeys: String, CodingKey {
        case keyId = "KeyId", encryptionKey = "EncryptionKey", signingKey = "SigningKey"
    }

    public init(keyId: String, encryptionKey: String, signingKey: String) {
        self.keyId = keyId
        self.encryptionKey = encryptionKey
        self.signingKey = signingKey
    }

    public func encryptPreMasterSecret(_ secret: [UInt8]) throws -> Data {
        guard let der = Data(base64Encoded: encryptionKey) else { throw ServerKeyFileError.invalid("the encryption key is not base64") }
        return try _RSA.Encryption.PublicKey(derRepresentation: der).encrypt(secret, padding: .PKCS1_OAEP_SHA256)
    }

    public func verify(signature base64: String, of message: [UInt8]) -> Bool {
        guard let der = Data(base64Encoded: signingKey), let key = try? P256.Signing.PublicKey(derRepresentation: der),
            let signature = HandshakeSignature.parse(base64)
        else { return false }
        return key.isValidSignature(signature, for: message)
    }
}

/// The key file (`CUSTODIAN_LEMON_KEYS` / `_FILE`): every generation still accepted, and the one that signs.
///
///     {"current": "2026-11", "keys": [{"id": "2026-11", "encryption_key": "-----BEGIN PRIVATE KEY-----…",
///                                     "signing_key": "-----BEGIN PRIVATE KEY-----…"}]}
public struct ServerKeyFile: Codable, Sendable {
    public var current: String
    public var keys: [Entry]

    public struct Entry: Codable, Sendable {
        public var id: String
        public var encryptionKey: String
        public var signingKey: String

        enum CodingKeys: String, CodingKey { case id, encryptionKey = "encryption_key", signingKey = "signing_key" }
    }

    public init(current: String, keys: [Entry]) {
        self.current = current
        self.keys = keys
    }

    public init(json: String) throws {
        do {
            self = try JSONDecoder().decode(ServerKeyFile.self, from: Data(json.utf8))
        } catch {
            throw ServerKeyFileError.invalid("not a key file: \(error)")
        }
    }

    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// A new generation, made current; earlier ones stay so apps holding them can still shake hands.
    public mutating func rotate(newID: String) throws {
        guard !keys.contains(where: { $0.id == newID }) else { throw ServerKeyFileError.invalid("key id \(newID) exists already") }
        let key = try ServerKey.generate(id: newID)
        keys.append(Entry(id: newID, encryptionKey: try key.encryptionKey().pemRepresentation, signingKey: key.signing.pemRepresentation))
        current = newID
    }

    public static func generate(id: String) throws -> ServerKeyFile {
        var file = ServerKeyFile(current: id, keys: [])
        try file.rotate(newID: id)
        return file
    }

    /// The parsed keys, the current one first.
    public func serverKeys() throws -> [ServerKey] {
        guard keys.contains(where: { $0.id == current }) else { throw ServerKeyFileError.invalid("the current key \(current) is not in the file") }
        let parsed = try keys.map { entry in
            do {
                return ServerKey(
                    id: entry.id, encryption: try _RSA.Encryption.PrivateKey(pemRepresentation: entry.encryptionKey),
                    signing: try P256.Signing.PrivateKey(pemRepresentation: entry.signingKey))
            } catch {
                throw ServerKeyFileError.invalid("key \(entry.id) does not parse: \(error)")
            }
        }
        return parsed.filter { $0.id == current } + parsed.filter { $0.id != current }
    }
}

public enum ServerKeyFileError: Error, CustomStringConvertible {
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let problem): "LEMON server key file: \(problem)"
        }
    }
}
