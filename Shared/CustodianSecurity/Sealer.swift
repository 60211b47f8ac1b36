import Crypto
import Foundation

/// Encrypts secrets the platform must be able to give back later (an OpenSense device's storage key for a
/// researcher, a Twomes device's activation token for its label) with a deployment key that never enters
/// the database: ChaCha20-Poly1305, random nonce, the record's identity bound in as associated data so
/// that a sealed value copied to another record does not open.
///
/// The key is the newest of a ``SealingKeyring``, and the sealed bytes name its version (``SealedValueFormat``), so
/// that a value opens with the key it was sealed with while newer values use a newer key.
public struct Sealer: Sendable {
    public let keyring: SealingKeyring

    public init(keyring: SealingKeyring) {
        self.keyring = keyring
    }

    /// Keys as stored in a file or variable (``SealingKeyring/init(text:)``).
    public init(keyringText text: String) throws {
        self.init(keyring: try SealingKeyring(text: text))
    }

    public func seal(_ plaintext: String, context: String) throws -> Data {
        try seal(plaintext, context: context, nonce: ChaChaPoly.Nonce())
    }

    /// With a given nonce: for test vectors only, since a nonce used twice with one key gives the key away.
    public func seal(_ plaintext: String, context: String, nonce: ChaChaPoly.Nonce) throws -> Data {
        let version = keyring.newest
        guard let key = keyring.key(version) else { throw SealerError.unknownVersion(version) }
        let box = try ChaChaPoly.seal(Data(plaintext.utf8), using: key, nonce: nonce, authenticating: Data(context.utf8)).combined
        return SealedValueFormat.prefix(version: version) + box
    }

    public func open(_ sealed: Data, context: String) throws -> String {
        let plaintext: Data
        if let version = SealedValueFormat.headerVersion(sealed) {
            if let key = keyring.key(version), let opened = Self.open(sealed.dropFirst(SealedValueFormat.headerLength), key: key, context: context) {
                plaintext = opened
            } else if let key = keyring.key(1), let opened = Self.open(sealed, key: key, context: context) {
                // Sealed before versions, with a random nonce that happens to begin like a header (once in 2^32).
                plaintext = opened
            } else {
                throw keyring.key(version) == nil ? SealerError.unknownVersion(version) : SealerError.cannotOpen
            }
        } else {
            guard let key = keyring.key(1) else { throw SealerError.unknownVersion(1) }
            guard let opened = Self.open(sealed, key: key, context: context) else { throw SealerError.cannotOpen }
            plaintext = opened
        }
        guard let text = String(data: plaintext, encoding: .utf8) else { throw SealerError.notText }
        return text
    }

    private static func open(_ box: Data, key: SymmetricKey, context: String) -> Data? {
        guard let box = try? ChaChaPoly.SealedBox(combined: box) else { return nil }
        return try? ChaChaPoly.open(box, using: key, authenticating: Data(context.utf8))
    }

    /// A keyed digest of `text` (HMAC-SHA256 under a key derived for `context` from the newest key): the same text
    /// always gives the same bytes while the newest key stays, for finding a row by a value that must not be stored
    /// readable, such as the email a login failed for. Without the deployment key, a dump cannot be checked against a
    /// list of guessed addresses. A new key version gives new digests: rows kept under the old ones are no longer found.
    public func digest(_ text: String, context: String) -> Data {
        let key = keyring.key(keyring.newest)!
        let derived = HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data("digest:\(context)".utf8), outputByteCount: 32)
        return Data(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: derived))
    }
}

/// The bytes of a sealed value (docs/operations.md, "Sealed values"): ChaCha20-Poly1305's combined form,
/// `nonce (12) ‖ ciphertext ‖ tag (16)`, the context's UTF-8 as associated data; under key version 2 and later it is
/// preceded by `43 53 4B 01` ("CSK", format 1) and the version as 4 bytes big-endian. A value without that header is
/// under version 1: values sealed before key versions, and those sealed under version 1 since, which releases before
/// key versions can still open.
public enum SealedValueFormat {
    public static let magic: [UInt8] = [0x43, 0x53, 0x4B, 0x01]
    public static let headerLength = 8
    /// The shortest value that can hold a header: the header, a nonce and a tag.
    public static let shortestVersioned = headerLength + 12 + 16

    /// What precedes the box of a value sealed under `version`: nothing for version 1, else the header.
    public static func prefix(version: UInt32) -> Data {
        version == 1 ? Data() : Data(magic) + versionBytes(version)
    }

    public static func versionBytes(_ version: UInt32) -> Data {
        withUnsafeBytes(of: version.bigEndian) { Data($0) }
    }

    /// The version a header names, or nil for a value without one (version 1).
    public static func headerVersion(_ sealed: Data) -> UInt32? {
        guard sealed.count >= shortestVersioned, sealed.prefix(magic.count).elementsEqual(magic) else { return nil }
        return sealed.dropFirst(magic.count).prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The version a value is sealed under, as far as its bytes say.
    public static func version(of sealed: Data) -> UInt32 { headerVersion(sealed) ?? 1 }
}

public enum SealerError: Error, Equatable, CustomStringConvertible {
    case notText
    /// The value names a key version the keyring does not hold (retired, or newer than this process's key file).
    case unknownVersion(UInt32)
    /// The key of the version the value names does not open it: damaged, bound to another record, or sealed with
    /// another key under the same version.
    case cannotOpen

    public var description: String {
        switch self {
        case .notText: "a sealed value did not hold text"
        case .unknownVersion(let version): "a value is sealed under key version \(version), which the sealing key file does not hold"
        case .cannotOpen: "a sealed value does not open with the key of the version it names"
        }
    }
}
