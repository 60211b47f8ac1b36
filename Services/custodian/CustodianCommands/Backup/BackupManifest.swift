import Crypto
import CustodianSecurity
import Foundation

/// `manifest.json` of a backup folder: what it holds and how to check it, in the clear (it holds no secret). The
/// folder is written under a temporary name and renamed when complete, so a folder with this name is a whole backup.
struct BackupManifest: Codable, Equatable {
    struct File: Codable, Equatable {
        var file: String
        var sha256: String
        var bytes: Int
    }

    /// A base backup for point-in-time restores: the private cluster's files (`pg_basebackup`, tar, gzip) and where
    /// the WAL begins that a restore replays from the archive.
    struct BaseBackup: Codable, Equatable {
        var file: String
        var sha256: String
        var bytes: Int
        var startedAt: String

        enum CodingKeys: String, CodingKey {
            case file, sha256, bytes
            case startedAt = "started_at"
        }
    }

    var format = 1
    var createdAt: String
    var expiresAt: String?
    var custodianVersion: String
    var postgresVersion: String
    /// `pg_dump --format=custom` of the whole database, taken in one snapshot.
    var database: File
    var baseBackup: BaseBackup?
    var secrets: File
    /// Each schema's newest applied migration.
    var schemas: [String: Int]

    enum CodingKeys: String, CodingKey {
        case format
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case custodianVersion = "custodian_version"
        case postgresVersion = "postgres_version"
        case database
        case baseBackup = "base_backup"
        case secrets, schemas
    }

    static let fileName = "manifest.json"

    static func read(folder: String) throws(CLIError) -> BackupManifest {
        guard let data = FileManager.default.contents(atPath: folder + "/" + fileName) else {
            throw CLIError("\(folder) is not a Custodian backup: it has no \(fileName)")
        }
        guard let manifest = try? JSONDecoder().decode(BackupManifest.self, from: data) else {
            throw CLIError("\(folder)/\(fileName) is not a Custodian backup manifest (damaged, or another program's)")
        }
        guard manifest.format == 1 else { throw CLIError("\(folder) is a backup of format \(manifest.format); this custodian reads format 1") }
        return manifest
    }

    func write(folder: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try Files.create(Array(try encoder.encode(self)) + [0x0A], at: folder + "/" + Self.fileName, mode: 0o600, exclusive: true)
    }

    /// Checks that `entry` is in `folder` whole: its size and its SHA-256 as recorded.
    static func verify(_ entry: File, in folder: String, what: String) throws(CLIError) {
        let path = folder + "/" + entry.file
        guard let digest = FileDigest.sha256(path: path) else { throw CLIError("\(folder) lacks its \(what) (\(entry.file))") }
        guard digest.bytes == entry.bytes, digest.hex == entry.sha256 else {
            throw CLIError(
                "\(what) in \(folder) is damaged or truncated: \(digest.bytes) bytes, SHA-256 \(digest.hex); the manifest says \(entry.bytes) bytes, \(entry.sha256)"
            )
        }
    }
}

/// A file's SHA-256 and size, read in 1 MiB pieces (a dump can be gigabytes).
enum FileDigest {
    static func sha256(path: String) -> (hex: String, bytes: Int)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        var bytes = 0
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            bytes += chunk.count
        }
        return (Hex.encode(Array(hasher.finalize())), bytes)
    }

    static func entry(_ folder: String, _ file: String) throws -> BackupManifest.File {
        guard let digest = sha256(path: folder + "/" + file) else { throw CLIError("cannot read \(folder)/\(file)") }
        return BackupManifest.File(file: file, sha256: digest.hex, bytes: digest.bytes)
    }
}
