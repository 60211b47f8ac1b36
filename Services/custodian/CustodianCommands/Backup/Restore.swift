import ArgumentParser
import CustodianLocalPostgres
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// `custodian restore`: a backup of `custodian backup` into a new data directory (its own PostgreSQL cluster) or an
/// empty database, to the moment of the backup or, from its base backup and the WAL archive, to a later moment
/// (docs/backup.md). Everything is checked before anything is written: the files against the manifest, the schemas
/// against this build, the passphrase, and that the secrets belong to this backup's database.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restores a backup into a new data directory or an empty database, to its time or a later point in time.",
        discussion: """
            Then start the platform on it: custodian up --data-dir DIR. With --to-time, the backup's base backup is \
            restored and the WAL archive of `custodian up --wal-archive` replayed up to that moment.
            """)

    @Argument(help: "The backup folder (custodian-backup-<time>).") var backup: String
    @Option(help: "The data directory to restore into; it must be new or empty.") var dataDir: String
    @Option(help: "Restore into this empty database (an administrator's URL) instead of a cluster of the data directory's own.")
    var databaseURL: String?
    @Option(help: "Where to write the secrets of a backup taken with --secrets-dir (compose, Kubernetes).") var secretsDir: String?
    @Option(help: "A file whose first line is the passphrase (default: the variable CUSTODIAN_BACKUP_PASSPHRASE).") var passphraseFile: String?
    @Option(help: "Replay the WAL archive up to this moment, e.g. 2026-11-27T14:05:00Z, or all of it: latest (needs --wal-archive).")
    var toTime: String?
    @Option(help: "The WAL archive of `custodian up --wal-archive`, for --to-time.") var walArchive: String?

    func validate() throws {
        if toTime != nil || walArchive != nil {
            guard toTime != nil, walArchive != nil else { throw ValidationError("--to-time and --wal-archive go together") }
            guard databaseURL == nil else {
                throw ValidationError("--to-time restores into a cluster of the data directory's own, not --database-url")
            }
            guard let toTime, toTime == "latest" || BackupTime.date(toTime) != nil else {
                throw ValidationError("--to-time must be a UTC time such as 2026-11-27T14:05:00Z, or latest, not '\(toTime ?? "")'")
            }
        }
    }

    func run() async throws {
        let started = ContinuousClock.now
        let folder = Files.absolute(backup)
        let manifest = try BackupManifest.read(folder: folder)
        try BackupManifest.verify(manifest.database, in: folder, what: "the database dump")
        try BackupManifest.verify(manifest.secrets, in: folder, what: "the secrets archive")
        // nil: no point in time; .some(nil): the end of the archive.
        let target: Date?? = toTime.map { BackupTime.date($0) }
        if let target {
            guard let base = manifest.baseBackup else {
                throw CLIError("this backup has no base backup (WAL archiving was off when it was taken), so it restores only to its own time")
            }
            try BackupManifest.verify(.init(file: base.file, sha256: base.sha256, bytes: base.bytes), in: folder, what: "the base backup")
            if let target, let baseStart = BackupTime.date(base.startedAt), target < baseStart {
                throw CLIError("--to-time \(toTime ?? "") is before the base backup began (\(base.startedAt)); restore an older backup")
            }
        }
        let newer = PlatformSchemas.newer(in: manifest.schemas)
        guard newer.isEmpty else {
            throw CLIError(
                "the backup was written by a newer Custodian (\(manifest.custodianVersion)): schemas \(newer.joined(separator: ", ")); restore it with that version or later"
            )
        }
        let passphrase = try BackupPassphrase.read(file: passphraseFile)
        guard let sealed = FileManager.default.contents(atPath: folder + "/" + manifest.secrets.file) else {
            throw CLIError("cannot read \(folder)/\(manifest.secrets.file)")
        }
        let secrets = try SecretsArchive.open(Array(sealed), passphrase: passphrase)
        guard secrets.databaseDumpSHA256 == manifest.database.sha256 else {
            throw CLIError(
                "the secrets archive belongs to another backup (it was made with a different database dump): its sealed values would not open")
        }
        let dataDirectory = Files.absolute(dataDir)
        try Self.requireEmpty(dataDirectory)
        let secretsFolder: String
        switch secrets.root {
        case .dataDirectory: secretsFolder = dataDirectory
        case .secretsDirectory:
            guard let secretsDir else {
                throw ValidationError("this backup's secrets came from a secrets folder (--secrets-dir): say where to put them")
            }
            secretsFolder = Files.absolute(secretsDir)
            try Self.requireEmpty(secretsFolder)
        }

        do {
            try await restore(manifest, from: folder, secrets: secrets, into: dataDirectory, secretsFolder: secretsFolder, target: target)
        } catch {
            // Nothing half-restored is left to be started by mistake: the folders were empty or new.
            for made in Set([dataDirectory, secretsFolder]) {
                for entry in (try? FileManager.default.contentsOfDirectory(atPath: made)) ?? [] {
                    try? FileManager.default.removeItem(atPath: made + "/" + entry)
                }
            }
            throw error
        }
        print("took       \(String(format: "%.1f", (ContinuousClock.now - started).seconds)) s; start it with: custodian up --data-dir \(dataDir)")
    }

    func restore(
        _ manifest: BackupManifest, from folder: String, secrets: SecretsArchive.Contents, into dataDirectory: String, secretsFolder: String,
        target: Date??
    ) async throws {
        try Files.makeDirectory(dataDirectory, mode: 0o711)
        try SecretFiles.write(secrets.files, into: secretsFolder)
        let serviceSecrets = secrets.root == .dataDirectory ? dataDirectory + "/secrets" : secretsFolder
        let tools = try PostgresTools()
        if let target, let base = manifest.baseBackup {
            try await PointInTimeRecovery(
                dataDirectory: dataDirectory, baseBackup: folder + "/" + base.file, walArchive: Files.absolute(walArchive ?? ""), target: target
            ).run()
            print(
                "restored   \(folder) to \(target.map(BackupTime.text) ?? "the end of the WAL archive") into \(dataDirectory) (base backup and WAL)")
        } else if let databaseURL {
            let url = try DatabaseURL(databaseURL)
            try await Self.requireEmptyDatabase(url)
            try await Self.restoreDump(folder + "/" + manifest.database.file, into: url, secretsDirectory: serviceSecrets, tools: tools)
            print("restored   \(folder) into \(url)")
        } else {
            let cluster = try PostgresCluster(dataDirectory: dataDirectory, port: try FreePort.find())
            try cluster.initialiseIfNeeded()
            try cluster.start()
            defer { cluster.stop() }
            try await Deployment.ensureDatabase(cluster.adminURL, logger: Self.logger)
            try await Self.restoreDump(folder + "/" + manifest.database.file, into: cluster.adminURL, secretsDirectory: serviceSecrets, tools: tools)
            print("restored   \(folder) (\(manifest.createdAt)) into \(dataDirectory)")
        }
    }

    static let logger = Logger(label: "custodian-restore")

    /// The services' roles first (with the restored passwords), then the dump in one transaction: `--clean` replaces
    /// the schemas the roles came with by the dump's.
    static func restoreDump(_ dump: String, into url: DatabaseURL, secretsDirectory: String, tools: PostgresTools) async throws {
        _ = try await Deployment.provisionRoles(url, secretsDirectory: secretsDirectory, logger: logger)
        try tools.run(
            "pg_restore",
            ["--clean", "--if-exists", "--single-transaction", "--exit-on-error", "--dbname=\(PostgresTools.connectionString(url))", dump],
            url: url)
    }

    static func requireEmpty(_ folder: String) throws {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        guard entries.isEmpty else {
            throw CLIError("\(folder) is not empty: restore into a new folder, so that nothing of a platform there is overwritten")
        }
    }

    static func requireEmptyDatabase(_ url: DatabaseURL) async throws {
        let tables = try await PostgresClient.withClient(url: url, logger: logger) { client in
            let rows = try await Database(client: client, waitTimeout: .seconds(10)).query(
                "SELECT count(*)::integer FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')",
                logger: logger)
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
        guard tables == 0 else { throw CLIError("the database \(url) holds \(tables) tables: restore into an empty database") }
    }
}
