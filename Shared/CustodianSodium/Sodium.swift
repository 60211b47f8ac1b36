import CSodium
import Foundation

/// The few libsodium primitives Custodian uses, with Swift types: public-key boxes (the OwnYourData record
/// format), sealed boxes, secret boxes and Argon2id password hashing and key derivation.
public enum Sodium {
    /// libsodium must be initialised once before use; `sodium_init` is idempotent and thread-safe.
    private static let initialised: Bool = sodium_init() >= 0

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case unavailable, wrongLength(String), decryptionFailed, hashingFailed

        public var description: String {
            switch self {
            case .unavailable: "libsodium could not be initialised"
            case .wrongLength(let what): "\(what) has the wrong length"
            case .decryptionFailed: "decryption failed (wrong key, nonce or tampered data)"
            case .hashingFailed: "password hashing failed (out of memory?)"
            }
        }
    }

    static func ready() throws {
        guard initialised else { throw Failure.unavailable }
    }

    public static func randomBytes(_ count: Int) -> [UInt8] {
        _ = initialised
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    // MARK: crypto_box (X25519-XSalsa20-Poly1305)

    public static let boxNonceLength = Int(crypto_box_NONCEBYTES)
    public static let boxKeyLength = Int(crypto_box_PUBLICKEYBYTES)

    public struct KeyPair: Sendable, Equatable {
        public var publicKey: [UInt8]
        public var secretKey: [UInt8]

        public init(publicKey: [UInt8], secretKey: [UInt8]) {
            self.publicKey = publicKey
            self.secretKey = secretKey
        }
    }

    public static func boxKeyPair() throws -> KeyPair {
        try ready()
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_box_PUBLICKEYBYTES))
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_box_SECRETKEYBYTES))
        crypto_box_keypair(&publicKey, &secretKey)
        return KeyPair(publicKey: publicKey, secretKey: secretKey)
    }

    public static func boxPublicKey(secretKey: [UInt8]) throws -> [UInt8] {
        try ready()
        guard secretKey.count == Int(crypto_box_SECRETKEYBYTES) else { throw Failure.wrongLength("secret key") }
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_box_PUBLICKEYBYTES))
        crypto_scalarmult_base(&publicKey, secretKey)
        return publicKey
    }

    /// `crypto_box_easy`: MAC ‖ ciphertext, 16 bytes longer than the message.
    public static func box(_ message: [UInt8], nonce: [UInt8], recipientPublicKey: [UInt8], senderSecretKey: [UInt8]) throws -> [UInt8] {
        try ready()
        try check(nonce, Int(crypto_box_NONCEBYTES), "nonce")
        try check(recipientPublicKey, Int(crypto_box_PUBLICKEYBYTES), "public key")
        try check(senderSecretKey, Int(crypto_box_SECRETKEYBYTES), "secret key")
        var cipher = [UInt8](repeating: 0, count: message.count + Int(crypto_box_MACBYTES))
        guard crypto_box_easy(&cipher, message, UInt64(message.count), nonce, recipientPublicKey, senderSecretKey) == 0 else {
            throw Failure.decryptionFailed
        }
        return cipher
    }

    /// `crypto_box_open_easy`.
    public static func openBox(_ cipher: [UInt8], nonce: [UInt8], senderPublicKey: [UInt8], recipientSecretKey: [UInt8]) throws -> [UInt8] {
        try ready()
        try check(nonce, Int(crypto_box_NONCEBYTES), "nonce")
        try check(senderPublicKey, Int(crypto_box_PUBLICKEYBYTES), "public key")
        try check(recipientSecretKey, Int(crypto_box_SECRETKEYBYTES), "secret key")
        guard cipher.count >= Int(crypto_box_MACBYTES) else { throw Failure.decryptionFailed }
        var message = [UInt8](repeating: 0, count: cipher.count - Int(crypto_box_MACBYTES))
        guard crypto_box_open_easy(&message, cipher, UInt64(cipher.count), nonce, senderPublicKey, recipientSecretKey) == 0 else {
            throw Failure.decryptionFailed
        }
        return message
    }

    /// `crypto_box_seal`: anonymous encryption to a public key (ephemeral key ‖ box).
    public static func sealedBox(_ message: [UInt8], recipientPublicKey: [UInt8]) throws -> [UInt8] {
        try ready()
        try check(recipientPublicKey, Int(crypto_box_PUBLICKEYBYTES), "public key")
        var cipher = [UInt8](repeating: 0, count: message.count + Int(crypto_box_sealbytes()))
        guard crypto_box_seal(&cipher, message, UInt64(message.count), recipientPublicKey) == 0 else { throw Failure.decryptionFailed }
        return cipher
    }

    public static func openSealedBox(_ cipher: [UInt8], keyPair: KeyPair) throws -> [UInt8] {
        try ready()
        guard cipher.count >= Int(crypto_box_sealbytes()) else { throw Failure.decryptionFailed }
        var message = [UInt8](repeating: 0, count: cipher.count - Int(crypto_box_sealbytes()))
        guard crypto_box_seal_open(&message, cipher, UInt64(cipher.count), keyPair.publicKey, keyPair.secretKey) == 0 else {
            throw Failure.decryptionFailed
        }
        return message
    }

    // MARK: crypto_secretbox (XSalsa20-Poly1305)

    public static let secretBoxKeyLength = Int(crypto_secretbox_KEYBYTES)

    /// nonce ‖ MAC ‖ ciphertext, with a random nonce.
    public static func secretBox(_ message: [UInt8], key: [UInt8]) throws -> [UInt8] {
        try ready()
        try check(key, Int(crypto_secretbox_KEYBYTES), "secret box key")
        let nonce = randomBytes(Int(crypto_secretbox_NONCEBYTES))
        var cipher = [UInt8](repeating: 0, count: message.count + Int(crypto_secretbox_MACBYTES))
        crypto_secretbox_easy(&cipher, message, UInt64(message.count), nonce, key)
        return nonce + cipher
    }

    public static func openSecretBox(_ sealed: [UInt8], key: [UInt8]) throws -> [UInt8] {
        try ready()
        try check(key, Int(crypto_secretbox_KEYBYTES), "secret box key")
        let nonceLength = Int(crypto_secretbox_NONCEBYTES)
        guard sealed.count >= nonceLength + Int(crypto_secretbox_MACBYTES) else { throw Failure.decryptionFailed }
        let nonce = Array(sealed[..<nonceLength])
        let cipher = Array(sealed[nonceLength...])
        var message = [UInt8](repeating: 0, count: cipher.count - Int(crypto_secretbox_MACBYTES))
        guard crypto_secretbox_open_easy(&message, cipher, UInt64(cipher.count), nonce, key) == 0 else { throw Failure.decryptionFailed }
        return message
    }

    // MARK: Argon2id

    /// `crypto_pwhash_str` (Argon2id, interactive limits): the self-describing string to store.
    public static func passwordHash(_ password: String) throws -> String {
        try ready()
        var output = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
        let bytes = Array(password.utf8CString.dropLast())
        guard
            crypto_pwhash_str(
                &output, bytes, UInt64(bytes.count), UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE),
                Int(crypto_pwhash_MEMLIMIT_INTERACTIVE)) == 0
        else { throw Failure.hashingFailed }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public static func verifyPassword(_ password: String, hash: String) -> Bool {
        guard (try? ready()) != nil else { return false }
        let bytes = Array(password.utf8CString.dropLast())
        return crypto_pwhash_str_verify(hash, bytes, UInt64(bytes.count)) == 0
    }

    public static let passwordSaltLength = Int(crypto_pwhash_SALTBYTES)

    /// A 32-byte key from a password and a 16-byte salt, Argon2id with the interactive limits.
    public static func deriveKey(password: String, salt: [UInt8]) throws -> [UInt8] {
        try deriveKey(passphrase: password, salt: salt, limits: .interactive)
    }

    /// Argon2id v1.3 limits: libsodium's named ones, or as a file records them.
    public struct WorkLimits: Sendable, Equatable {
        public var operations: UInt64
        public var memoryBytes: Int

        public init(operations: UInt64, memoryBytes: Int) {
            self.operations = operations
            self.memoryBytes = memoryBytes
        }

        /// 2 passes over 64 MiB: what a phone or a login meets in well under a second.
        public static let interactive = WorkLimits(
            operations: UInt64(crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE), memoryBytes: Int(crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE))
        /// 3 passes over 256 MiB: for a key that guards many secrets and is derived rarely.
        public static let moderate = WorkLimits(
            operations: UInt64(crypto_pwhash_argon2id_OPSLIMIT_MODERATE), memoryBytes: Int(crypto_pwhash_argon2id_MEMLIMIT_MODERATE))
    }

    /// A 32-byte key from a passphrase (its UTF-8 bytes as given) and a 16-byte salt, Argon2id v1.3 with `limits`.
    public static func deriveKey(passphrase: String, salt: [UInt8], limits: WorkLimits) throws -> [UInt8] {
        try ready()
        try check(salt, Int(crypto_pwhash_SALTBYTES), "salt")
        var key = [UInt8](repeating: 0, count: 32)
        let bytes = Array(passphrase.utf8CString.dropLast())
        guard
            crypto_pwhash(
                &key, 32, bytes, UInt64(bytes.count), salt, limits.operations, limits.memoryBytes, crypto_pwhash_ALG_ARGON2ID13) == 0
        else {
            throw Failure.hashingFailed
        }
        return key
    }

    // MARK: XChaCha20-Poly1305 (IETF AEAD)

    public static let xChaChaNonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    public static let xChaChaTagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    /// ciphertext ‖ tag of `message` under a 32-byte key and a 24-byte nonce, authenticating `additionalData`.
    public static func xChaChaSeal(_ message: [UInt8], additionalData: [UInt8], nonce: [UInt8], key: [UInt8]) throws -> [UInt8] {
        try ready()
        try check(key, Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES), "XChaCha20-Poly1305 key")
        try check(nonce, xChaChaNonceLength, "XChaCha20-Poly1305 nonce")
        var cipher = [UInt8](repeating: 0, count: message.count + xChaChaTagLength)
        var length: UInt64 = 0
        crypto_aead_xchacha20poly1305_ietf_encrypt(
            &cipher, &length, message, UInt64(message.count), additionalData, UInt64(additionalData.count), nil, nonce, key)
        return Array(cipher.prefix(Int(length)))
    }

    /// The message of ``xChaChaSeal(_:additionalData:nonce:key:)``'s output, or ``Failure/decryptionFailed``.
    public static func xChaChaOpen(_ cipher: [UInt8], additionalData: [UInt8], nonce: [UInt8], key: [UInt8]) throws -> [UInt8] {
        try ready()
        try check(key, Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES), "XChaCha20-Poly1305 key")
        try check(nonce, xChaChaNonceLength, "XChaCha20-Poly1305 nonce")
        guard cipher.count >= xChaChaTagLength else { throw Failure.decryptionFailed }
        var message = [UInt8](repeating: 0, count: max(1, cipher.count - xChaChaTagLength))
        var length: UInt64 = 0
        guard
            crypto_aead_xchacha20poly1305_ietf_decrypt(
                &message, &length, nil, cipher, UInt64(cipher.count), additionalData, UInt64(additionalData.count), nonce, key) == 0
        else { throw Failure.decryptionFailed }
        return Array(message.prefix(Int(length)))
    }

    private static func check(_ bytes: [UInt8], _ length: Int, _ what: String) throws {
        guard bytes.count == length else { throw Failure.wrongLength(what) }
    }
}

extension Array where Element == UInt8 {
    public var hex: String { map { String(format: "%02x", $0) }.joined() }

    /// Bytes from hexadecimal text; nil unless every character is an ASCII hex digit (Unicode has others).
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self = bytes
    }
}
