import CustodianSodium
import Foundation

/// The secrets a backup cannot be restored without (the sealing key above all), encrypted under a passphrase so that
/// the backup never holds them usable (docs/backup.md, "Secrets archive", with a test vector):
///
///     header = "CUSTODIAN-SECRETS" (17 bytes) ‖ 0x01 ‖ salt (16) ‖ opslimit (u64, big-endian) ‖ memlimit (u64, big-endian) ‖ nonce (24)
///     key    = Argon2id v1.3 (passphrase as UTF-8, salt, opslimit, memlimit) → 32 bytes
///     file   = header ‖ XChaCha20-Poly1305 (key, nonce, additional data = header, contents JSON) ‖ tag (16)
///
/// The limits are in the header so that a later version can raise them; a file asking for more than
/// ``maximumLimits`` is refused before any work, so that a crafted file cannot make restore spend gigabytes.
struct SecretsArchive {
    static let magic = Array("CUSTODIAN-SECRETS".utf8)
    static let version: UInt8 = 1
    static let saltLength = 16
    static let headerLength = magic.count + 1 + saltLength + 8 + 8 + Sodium.xChaChaNonceLength
    static let maximumLimits = Sodium.WorkLimits(operations: 16, memoryBytes: 1 << 30)

    /// What the archive holds.
    struct Contents: Codable, Equatable {
        var format = 1
        var createdAt: String
        /// What `files` are relative to: `data-dir` (a `custodian up` data directory) or `secrets-dir` (a `custodian
        /// setup` secrets folder).
        var root: SecretFiles.Root
        /// The SHA-256 of the backup's database dump (hex): secrets restored with another backup's database would open
        /// none of its sealed values, so the pair is checked before anything is written.
        var databaseDumpSHA256: String
        /// Files by path relative to the restored data directory, contents base64.
        var files: [String: String]

        enum CodingKeys: String, CodingKey {
            case format
            case createdAt = "created_at"
            case root
            case databaseDumpSHA256 = "database_dump_sha256"
            case files
        }
    }

    /// `salt` and `nonce` are random unless a test vector fixes them.
    static func seal(
        _ contents: Contents, passphrase: String, limits: Sodium.WorkLimits = .moderate, salt: [UInt8]? = nil, nonce: [UInt8]? = nil
    ) throws -> [UInt8] {
        let salt = salt ?? Sodium.randomBytes(saltLength)
        let nonce = nonce ?? Sodium.randomBytes(Sodium.xChaChaNonceLength)
        let header = magic + [version] + salt + bigEndian(limits.operations) + bigEndian(UInt64(limits.memoryBytes)) + nonce
        let key = try Sodium.deriveKey(passphrase: passphrase, salt: salt, limits: limits)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return header + (try Sodium.xChaChaSeal(Array(try encoder.encode(contents)), additionalData: header, nonce: nonce, key: key))
    }

    static func open(_ bytes: [UInt8], passphrase: String) throws(CLIError) -> Contents {
        guard bytes.count >= magic.count, Array(bytes.prefix(magic.count)) == magic else {
            throw CLIError("the secrets archive is not one: it does not begin with CUSTODIAN-SECRETS")
        }
        guard bytes.count > magic.count, bytes[magic.count] == version else {
            throw CLIError(
                "the secrets archive has format \(bytes.count > magic.count ? String(bytes[magic.count]) : "?"); this custodian reads format 1")
        }
        guard bytes.count >= headerLength + Sodium.xChaChaTagLength else { throw CLIError("the secrets archive is truncated") }
        var offset = magic.count + 1
        let salt = Array(bytes[offset..<offset + saltLength])
        offset += saltLength
        let operations = integer(bytes[offset..<offset + 8])
        let memory = integer(bytes[offset + 8..<offset + 16])
        offset += 16
        let nonce = Array(bytes[offset..<offset + Sodium.xChaChaNonceLength])
        guard operations >= 1, operations <= maximumLimits.operations, memory >= 8192, memory <= UInt64(maximumLimits.memoryBytes) else {
            throw CLIError("the secrets archive asks for Argon2id limits out of range (\(operations) passes, \(memory) bytes); it is damaged")
        }
        let limits = Sodium.WorkLimits(operations: operations, memoryBytes: Int(memory))
        let header = Array(bytes[..<headerLength])
        let plaintext: [UInt8]
        do {
            let key = try Sodium.deriveKey(passphrase: passphrase, salt: salt, limits: limits)
            plaintext = try Sodium.xChaChaOpen(Array(bytes[headerLength...]), additionalData: header, nonce: nonce, key: key)
        } catch {
            throw CLIError("the secrets archive does not open: the passphrase is wrong, or the file is damaged or truncated")
        }
        do {
            return try JSONDecoder().decode(Contents.self, from: Data(plaintext))
        } catch {
            throw CLIError("the secrets archive opened but its contents are not a Custodian secrets list")
        }
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }

    private static func integer(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
