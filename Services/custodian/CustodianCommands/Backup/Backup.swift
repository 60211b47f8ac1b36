import ArgumentParser
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// `custodian backup`: a consistent backup of a running platform, as a folder `custodian-backup-<time>` holding the
/// database (`pg_dump`, and a base backup for point-in-time restores when WAL archiving is on), the secrets encrypted
/// under a passphrase, and a manifest (docs/backup.md).
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Backs up a running platform: its database, and its secrets encrypted under a passphrase.",
        discussion: """
            Writes a folder custodian-backup-<UTC time> into --output with database.dump (pg_dump, one snapshot), \
            secrets.sealed (the sealing key, database passwords, LEMON keys, TLS and admin token, encrypted with \
            Argon2id and XChaCha20-Poly1305 under the passphrase) and manifest.json. When the private cluster of \
            `custodian up --wal-archive` archives WAL, it also writes base.tar.gz for restores to a point in time. \
            Keep the passphrase apart from the backups: the database alone opens no sealed value, and the archive \
            alone holds no data. Backups in --output older than --keep are deleted once this one is complete.
            """)

    @OptionGroup var database: Admin.DatabaseOption
    @Option(help: "A `custodian setup` secrets folder to back up instead of the data directory's secrets (compose, Kubernetes).")
    var secretsDir: String?
    @Option(help: "The folder backups are kept in.") var output = "backups"
    @Option(help: "A file whose first line is the passphrase (default: the variable CUSTODIAN_BACKUP_PASSPHRASE).") var passphraseFile: String?
    @Option(help: "Delete backups in --output older than this once this one is complete: a duration such as 35d, or off.")
    var keep = "35d"

    static let minimumPassphraseLength = 12

    func validate() throws {
        guard keep == "off" || (Configuration.parseDuration(keep).map { $0 > .zero } ?? false) else {
            throw ValidationError("--keep must be a duration such as 35d, or off, not '\(keep)'")
        }
    }

    func run() async throws {
        let passphrase = try BackupPassphrase.read(file: passphraseFile)
        guard passphrase.count >= Self.minimumPassphraseLength else {
            throw ValidationError("the passphrase must be at least \(Self.minimumPassphraseLength) characters")
        }
        let url = try database.url()
        let secrets = SecretFiles(dataDirectory: Files.absolute(database.dataDir), secretsDirectory: secretsDir.map(Files.absolute))
        let tools = try PostgresTools()
        let started = ContinuousClock.now
        let now = Date()
        let outputFolder = Files.absolute(output)
        try Files.makeDirectory(outputFolder)
        let name = "custodian-backup-" + BackupTime.folderStamp(now)
        let partial = outputFolder + "/." + name + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        try Files.makeDirectory(partial)
        defer { try? FileManager.default.removeItem(atPath: partial) }

        let facts = try await DatabaseFacts.read(url)
        try tools.run("pg_dump", ["--format=custom", "--file=\(partial)/database.dump", "--dbname=\(PostgresTools.connectionString(url))"], url: url)
        _ = chmod(partial + "/database.dump", 0o600)
        let dump = try FileDigest.entry(partial, "database.dump")
        var baseBackup: BackupManifest.BaseBackup?
        if facts.archivesWAL {
            let baseStarted = Date()
            try tools.run(
                "pg_basebackup",
                ["--dbname=\(PostgresTools.connectionString(url))", "-D", partial + "/base", "-Ft", "-z", "-X", "fetch", "--checkpoint=fast"],
                url: url)
            try FileManager.default.moveItem(atPath: partial + "/base/base.tar.gz", toPath: partial + "/base.tar.gz")
            try? FileManager.default.removeItem(atPath: partial + "/base")
            let entry = try FileDigest.entry(partial, "base.tar.gz")
            baseBackup = .init(file: entry.file, sha256: entry.sha256, bytes: entry.bytes, startedAt: BackupTime.text(baseStarted))
        }
        let contents = SecretsArchive.Contents(
            createdAt: BackupTime.text(now), root: secrets.root, databaseDumpSHA256: dump.sha256, files: try secrets.read())
        try Files.create(try SecretsArchive.seal(contents, passphrase: passphrase), at: partial + "/secrets.sealed", mode: 0o600, exclusive: true)
        let expiry = keep == "off" ? nil : Configuration.parseDuration(keep).map { now.addingTimeInterval($0.seconds) }
        let manifest = BackupManifest(
            createdAt: BackupTime.text(now), expiresAt: expiry.map(BackupTime.text), custodianVersion: CustodianVersion.current,
            postgresVersion: facts.serverVersion, database: dump, baseBackup: baseBackup,
            secrets: try FileDigest.entry(partial, "secrets.sealed"), schemas: facts.schemas)
        try manifest.write(folder: partial)
        try FileManager.default.moveItem(atPath: partial, toPath: outputFolder + "/" + name)

        let seconds = (ContinuousClock.now - started).seconds
        let total = dump.bytes + (baseBackup?.bytes ?? 0) + manifest.secrets.bytes
        print(
            "backup     \(outputFolder)/\(name): \(BackupTime.size(total)) in \(String(format: "%.1f", seconds)) s"
                + (baseBackup == nil ? " (database dump; WAL archiving is off, so no point-in-time restore from it)" : " (dump and base backup)"))
        if let expiry { print("expires    \(BackupTime.text(expiry)) (--keep \(keep))") }
        for expired in BackupFolders.expired(in: outputFolder, at: now, except: name) {
            try FileManager.default.removeItem(atPath: outputFolder + "/" + expired)
            print("deleted    \(outputFolder)/\(expired): expired")
        }
    }
}

/// What a backup records of the database it dumps.
struct DatabaseFacts {
    var serverVersion: String
    var archivesWAL: Bool
    var schemas: [String: Int]

    static func read(_ url: DatabaseURL) async throws -> DatabaseFacts {
        let logger = Logger(label: "custodian-backup")
        return try await PostgresClient.withClient(url: url, logger: logger) { client in
            let database = Database(client: client, waitTimeout: .seconds(10))
            var facts = DatabaseFacts(serverVersion: "", archivesWAL: false, schemas: [:])
            for try await (version, archive) in try await database.query(
                "SELECT current_setting('server_version'), current_setting('archive_mode')", logger: logger
            ).decode((String, String).self) {
                facts.serverVersion = version
                facts.archivesWAL = archive != "off"
            }
            var schemas: [String] = []
            for try await schema in try await database.query(
                "SELECT table_schema FROM information_schema.tables WHERE table_name = 'schema_migrations' ORDER BY 1", logger: logger
            ).decode(String.self) {
                schemas.append(schema)
            }
            for schema in schemas where schema.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }) {
                let query = PostgresQuery(unsafeSQL: "SELECT coalesce(max(version), 0) FROM \(schema).schema_migrations")
                for try await version in try await database.query(query, logger: logger).decode(Int.self) { facts.schemas[schema] = version }
            }
            return facts
        }
    }
}

/// The backups in a folder, by their folder names.
enum BackupFolders {
    static let prefix = "custodian-backup-"

    /// Complete backups whose manifest says they expired before `now`.
    static func expired(in folder: String, at now: Date, except kept: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0 != kept }.sorted().filter { name in
            guard let manifest = try? BackupManifest.read(folder: folder + "/" + name), let expires = manifest.expiresAt.flatMap(BackupTime.date)
            else { return false }
            return expires < now
        }
    }
}

/// Times as backups write them: UTC, to the second.
enum BackupTime {
    static func text(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    static func date(_ text: String) -> Date? { try? Date(text, strategy: .iso8601) }

    static func folderStamp(_ date: Date) -> String {
        text(date).replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
    }

    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) : String(format: "%.1f KiB", Double(bytes) / 1024)
    }
}

/// The passphrase of a secrets archive: the first line of a file, or `CUSTODIAN_BACKUP_PASSPHRASE`.
enum BackupPassphrase {
    static let variable = "CUSTODIAN_BACKUP_PASSPHRASE"

    static func read(file: String?) throws -> String {
        if let file {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw CLIError("cannot read the passphrase file \(file)") }
            let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            guard !line.isEmpty else { throw CLIError("the passphrase file \(file) is empty") }
            return line
        }
        guard let passphrase = ProcessInfo.processInfo.environment[variable], !passphrase.isEmpty else {
            throw ValidationError("give the passphrase with --passphrase-file FILE or the variable \(variable)")
        }
        return passphrase
    }
}
