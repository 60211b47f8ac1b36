import Foundation
import Testing

extension PlatformTests {
    /// `custodian backup` and `custodian restore` as an operator meets them (docs/backup.md): a restore into an empty
    /// database of a server of one's own, backups that expire, and every wrong input refused with one line that says
    /// what is wrong, before anything is written.
    @Suite("Backup and restore commands", .serialized)
    struct BackupCommands {
        static let passphrase = "a passphrase for the command tests"

        /// A folder with a passphrase file and `count` backups of the suite's platform; their folders, oldest first.
        static func backups(_ count: Int, keep: String = "35d") async throws -> (work: String, passphraseFile: String, folders: [String]) {
            let platform = try platform
            let work = RunningPlatform.newDataDirectory() + "-backups"
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            let passphraseFile = work + "/passphrase"
            try (passphrase + "\n").write(toFile: passphraseFile, atomically: true, encoding: .utf8)
            for _ in 0..<count {
                let made = try await platform.custodian([
                    "backup", "--data-dir", platform.dataDirectory, "--output", work + "/backups", "--passphrase-file", passphraseFile, "--keep",
                    keep,
                ])
                #expect(made.status == 0, "\(made.output)")
                // Folder names are to the second.
                try await Task.sleep(for: .milliseconds(1100))
            }
            let folders = try FileManager.default.contentsOfDirectory(atPath: work + "/backups").filter { $0.hasPrefix("custodian-backup-") }.sorted()
            return (work, passphraseFile, folders.map { work + "/backups/" + $0 })
        }

        @Test func aBackupRestoresIntoAnEmptyDatabaseOfTheOperatorsServer() async throws {
            let platform = try platform
            let (work, passphraseFile, folders) = try await Self.backups(1)
            defer { try? FileManager.default.removeItem(atPath: work) }
            let database = "restored_\(UUID().uuidString.prefix(8).lowercased())"
            _ = try platform.sql("CREATE DATABASE \(database)")
            defer { _ = try? platform.sql("DROP DATABASE \(database) WITH (FORCE)") }
            let url = String(try platform.adminDatabaseURL.dropLast("custodian".count)) + database
            let restored = try await platform.custodian([
                "restore", folders[0], "--database-url", url, "--data-dir", work + "/restored", "--passphrase-file", passphraseFile,
            ])
            #expect(restored.status == 0, "\(restored.output)")
            // Every schema with its tables and migrations, as in the backup.
            let manifest = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folders[0] + "/manifest.json"))) as? [String: Any])
            // The platform's seven; other tests may add and drop schemas of their own in the same database meanwhile.
            let recorded = try #require(manifest["schemas"] as? [String: Int])
            let platformSchemas: Set = ["audit", "auth", "devices", "links", "routes", "statistics", "vault"]
            let schemas = recorded.filter { platformSchemas.contains($0.key) }
            #expect(Set(schemas.keys) == platformSchemas, "\(recorded)")
            for (schema, version) in schemas {
                let restoredVersion = try platform.sql("SELECT max(version) FROM \(schema).schema_migrations", in: url)
                #expect(restoredVersion == String(version), "\(schema)")
            }
            // The secrets came back next to it, as they were.
            #expect(
                try String(contentsOfFile: work + "/restored/secrets/sealing-key", encoding: .utf8)
                    == (try String(contentsOfFile: platform.dataDirectory + "/secrets/sealing-key", encoding: .utf8)))
            // A second restore into it is refused: it is no longer empty.
            let again = try await platform.custodian([
                "restore", folders[0], "--database-url", url, "--data-dir", work + "/again", "--passphrase-file", passphraseFile,
            ])
            #expect(again.status == 1 && again.output.contains("restore into an empty database"), "\(again.output)")
        }

        @Test func expiredBackupsAreDeletedByTheNextOne() async throws {
            let (work, _, folders) = try await Self.backups(3, keep: "1s")
            defer { try? FileManager.default.removeItem(atPath: work) }
            // Each backup deleted the ones before it, expired a second after they were made.
            #expect(folders.count == 1, "\(folders)")
            let kept = try await Self.backups(2, keep: "off")
            defer { try? FileManager.default.removeItem(atPath: kept.work) }
            #expect(kept.folders.count == 2)
        }

        @Test func wrongInputIsRefusedBeforeAnythingIsWritten() async throws {
            let platform = try platform
            let (work, passphraseFile, folders) = try await Self.backups(2)
            defer { try? FileManager.default.removeItem(atPath: work) }
            func restore(
                _ folder: String, _ extra: [String] = [], passphrase: String? = passphraseFile
            ) async throws -> (status: Int32, output: String) {
                let target = work + "/target-\(UUID().uuidString.prefix(6))"
                let result = try await platform.custodian(
                    ["restore", folder, "--data-dir", target] + (passphrase.map { ["--passphrase-file", $0] } ?? []) + extra)
                #expect(!FileManager.default.fileExists(atPath: target), "a refused restore wrote \(target)")
                return result
            }
            func copy(_ folder: String) throws -> String {
                let copy = work + "/copy-\(UUID().uuidString.prefix(6))"
                try FileManager.default.copyItem(atPath: folder, toPath: copy)
                return copy
            }

            let wrongPassphrase = work + "/wrong"
            try "not the passphrase at all\n".write(toFile: wrongPassphrase, atomically: true, encoding: .utf8)
            let cases: [(String, () async throws -> (status: Int32, output: String), String)] = [
                ("a wrong passphrase", { try await restore(folders[0], passphrase: wrongPassphrase) }, "the passphrase is wrong"),
                (
                    "a truncated dump",
                    {
                        let folder = try copy(folders[0])
                        let dump = try Data(contentsOf: URL(fileURLWithPath: folder + "/database.dump"))
                        try dump.prefix(dump.count / 2).write(to: URL(fileURLWithPath: folder + "/database.dump"))
                        return try await restore(folder)
                    }, "the database dump in"
                ),
                (
                    "a truncated secrets archive",
                    {
                        let folder = try copy(folders[0])
                        let archive = try Data(contentsOf: URL(fileURLWithPath: folder + "/secrets.sealed"))
                        try archive.prefix(100).write(to: URL(fileURLWithPath: folder + "/secrets.sealed"))
                        return try await restore(folder)
                    }, "the secrets archive in"
                ),
                (
                    "the secrets of another backup",
                    {
                        // The other backup's archive, with the manifest made to agree: only the pairing check is left to find it.
                        let folder = try copy(folders[0])
                        try FileManager.default.removeItem(atPath: folder + "/secrets.sealed")
                        try FileManager.default.copyItem(atPath: folders[1] + "/secrets.sealed", toPath: folder + "/secrets.sealed")
                        let other = try Self.manifest(folders[1])["secrets"]
                        try Self.editManifest(folder) { manifest in manifest["secrets"] = other }
                        return try await restore(folder)
                    }, "belongs to another backup"
                ),
                (
                    "a backup from a newer schema",
                    {
                        let folder = try copy(folders[0])
                        try Self.editManifest(folder) { manifest in
                            var schemas = manifest["schemas"] as? [String: Int] ?? [:]
                            schemas["devices", default: 0] += 100
                            manifest["schemas"] = schemas
                        }
                        return try await restore(folder)
                    }, "written by a newer Custodian"
                ),
                ("a folder that is no backup", { try await restore(work) }, "is not a Custodian backup"),
                (
                    "a point in time without a base backup",
                    { try await restore(folders[0], ["--to-time", "2030-01-01T00:00:00Z", "--wal-archive", work]) },
                    "has no base backup"
                ),
                (
                    "a time that is no time", { try await restore(folders[0], ["--to-time", "yesterday", "--wal-archive", work]) },
                    "--to-time must be"
                ),
                ("no passphrase", { try await restore(folders[0], passphrase: nil) }, "--passphrase-file"),
            ]
            for (what, run, expected) in cases {
                let result = try await run()
                #expect(result.status != 0 && result.output.contains(expected), "\(what): \(result.output)")
                #expect(!result.output.contains("Fatal error") && !result.output.contains("PSQLError"), "\(what): \(result.output)")
            }
            // Into a folder that holds something: refused, and the folder left as it was.
            let occupied = work + "/occupied"
            try FileManager.default.createDirectory(atPath: occupied, withIntermediateDirectories: true)
            try "mine".write(toFile: occupied + "/notes.txt", atomically: true, encoding: .utf8)
            let refused = try await platform.custodian(["restore", folders[0], "--data-dir", occupied, "--passphrase-file", passphraseFile])
            #expect(refused.status == 1 && refused.output.contains("is not empty"), "\(refused.output)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: occupied) == ["notes.txt"])

            // And the backup command's own.
            let short = work + "/short"
            try "too short\n".write(toFile: short, atomically: true, encoding: .utf8)
            for (arguments, expected) in [
                (["--passphrase-file", short], "at least 12 characters"),
                (["--passphrase-file", passphraseFile, "--keep", "soon"], "--keep must be"),
                (["--passphrase-file", work + "/missing"], "cannot read the passphrase file"),
            ] {
                let result = try await platform.custodian(["backup", "--data-dir", platform.dataDirectory, "--output", work + "/more"] + arguments)
                #expect(result.status != 0 && result.output.contains(expected), "\(arguments): \(result.output)")
            }
            let more = (try? FileManager.default.contentsOfDirectory(atPath: work + "/more")) ?? []
            #expect(more.isEmpty, "a refused backup left \(more)")
            for command in ["backup", "restore"] {
                let help = try await platform.custodian([command, "--help"])
                #expect(help.status == 0 && help.output.contains("USAGE: custodian \(command)"), "\(help.output)")
            }
        }

        static func manifest(_ folder: String) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))) as? [String: Any])
        }

        static func editManifest(_ folder: String, _ edit: (inout [String: Any]) throws -> Void) throws {
            var manifest = try manifest(folder)
            try edit(&manifest)
            try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: folder + "/manifest.json"))
        }
    }
}
