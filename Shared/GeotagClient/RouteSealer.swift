import CSodium
import CustodianGeotag
import CustodianSecurity
import Foundation

/// The route encryption the app performs before upload, version 1 (docs/geotag.md, "Route format"):
///
///     key  = Argon2id v1.3 (passphrase, salt = the 16 nonce bytes, opslimit 2, memlimit 64 MiB) → 32 bytes
///     blob = 0x01 ‖ n (24 random bytes) ‖ XChaCha20-Poly1305(key, n, ad = 0x01 ‖ n, tracks JSON) ‖ tag (16)
///
/// The limits are libsodium's INTERACTIVE ones, which a phone meets in well under a second; they are fixed by
/// the version byte, so a later version can raise them without breaking stored routes. The blob does not
/// carry the route nonce: the server holds neither the salt nor the passphrase, so it cannot even begin to
/// guess passphrases; whoever opens the route has the QR photo that carries the nonce.
public enum RouteSealer {
    public static let version: UInt8 = 1
    public static let aeadNonceSize = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    public static let tagSize = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    public static let headerSize = 1 + aeadNonceSize
    public static let opsLimit = UInt64(crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE)
    public static let memLimit = Int(crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE)

    public static func seal(tracks: Tracks, passphrase: String, nonce: RouteNonce) throws -> Data {
        try seal(plaintext: tracks.json(), key: RouteKey(passphrase: passphrase, nonce: nonce))
    }

    public static func open(_ blob: Data, passphrase: String, nonce: RouteNonce) throws -> Tracks {
        try open(blob, key: RouteKey(passphrase: passphrase, nonce: nonce))
    }

    public static func open(_ blob: Data, key: RouteKey) throws -> Tracks {
        try Tracks(json: open(plaintextOf: blob, key: key))
    }

    /// `aeadNonce` is random unless a test vector fixes it.
    public static func seal(plaintext: Data, key: RouteKey, aeadNonce: Data? = nil) throws -> Data {
        guard !plaintext.isEmpty else { throw RouteFormatError.invalidTracks("nothing to seal") }
        let aeadNonce = aeadNonce ?? Sodium.randomBytes(aeadNonceSize)
        precondition(aeadNonce.count == aeadNonceSize, "an XChaCha20 nonce is 24 bytes")
        let header = [version] + [UInt8](aeadNonce)
        let message = [UInt8](plaintext)
        var ciphertext = [UInt8](repeating: 0, count: message.count + tagSize)
        var length: UInt64 = 0
        let result = crypto_aead_xchacha20poly1305_ietf_encrypt(
            &ciphertext, &length, message, UInt64(message.count), header, UInt64(header.count), nil, Array(header[1...]), key.bytes)
        guard result == 0 else { throw RouteFormatError.unsupportedBlob }
        return Data(header + ciphertext.prefix(Int(length)))
    }

    public static func open(plaintextOf blob: Data, key: RouteKey) throws -> Data {
        let bytes = [UInt8](blob)
        guard bytes.count >= headerSize + tagSize, bytes[0] == version else { throw RouteFormatError.unsupportedBlob }
        let header = Array(bytes[0..<headerSize])
        let ciphertext = Array(bytes[headerSize...])
        var plaintext = [UInt8](repeating: 0, count: max(1, ciphertext.count - tagSize))
        var length: UInt64 = 0
        let result = crypto_aead_xchacha20poly1305_ietf_decrypt(
            &plaintext, &length, nil, ciphertext, UInt64(ciphertext.count), header, UInt64(header.count), Array(header[1...]), key.bytes)
        guard result == 0 else { throw RouteFormatError.cannotOpen }
        return Data(plaintext.prefix(Int(length)))
    }

    /// The passphrase as the key is derived from it: as the app's user typed it, less leading and trailing
    /// white space (as the app trims it; docs/geotag.md, "Route format"), in Unicode NFC so that the same words typed on different keyboards agree.
    public static func normalised(_ passphrase: String) -> String {
        passphrase.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
    }
}

/// A route's key: Argon2id of the passphrase, salted with the route nonce. Deriving it costs 64 MiB and a
/// noticeable fraction of a second by design, so whoever opens or seals several times derives it once.
public struct RouteKey: Sendable {
    let bytes: [UInt8]

    public init(passphrase: String, nonce: RouteNonce) throws {
        Sodium.initialise()
        let password = Array(RouteSealer.normalised(passphrase).utf8)
        guard !password.isEmpty else { throw RouteFormatError.emptyPassphrase }
        var key = [UInt8](repeating: 0, count: 32)
        let salt = [UInt8](nonce.bytes)
        let result = password.map { CChar(bitPattern: $0) }.withUnsafeBufferPointer { password in
            crypto_pwhash(
                &key, UInt64(key.count), password.baseAddress!, UInt64(password.count), salt,
                RouteSealer.opsLimit, RouteSealer.memLimit, crypto_pwhash_argon2id_ALG_ARGON2ID13)
        }
        guard result == 0 else { throw RouteFormatError.keyDerivationFailed }
        bytes = key
    }

    /// Lowercase hex, for test vectors.
    public var hex: String { Hex.encode(bytes) }
}

enum Sodium {
    /// sodium_init is safe to call repeatedly and from several threads; it returns 1 once initialised.
    static func initialise() {
        guard sodium_init() >= 0 else { fatalError("libsodium could not be initialised") }
    }

    static func randomBytes(_ count: Int) -> Data {
        initialise()
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return Data(bytes)
    }
}
