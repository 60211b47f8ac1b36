import Foundation
import NIOHTTP1
import Synchronization
import Testing

extension OneAtATime {
    /// The restore drill of docs/backup.md, as an operator would run it: a platform archiving its WAL takes writes from
    /// the load generator and from a writer whose every acknowledged heartbeat is timed; a backup is taken in the middle,
    /// more writes follow, and the platform is restored three times: to the backup, to a moment after it, and to the end of
    /// its WAL archive. Each restored
    /// platform has every write acknowledged before its point exactly once and nothing sent after it, and the sealed
    /// secrets open: the OpenSense key, the vault records (with the owner's password, under a token issued before the
    /// backup), the API consumer's signatures and the tracing app's session.
    @Suite("Backup and restore drill")
    struct RestoreDrill {
        typealias Erasure = PlatformTests.Erasure

        /// A heartbeat the writer sent: its number is its value, and its reading's time is unique to it.
        struct Write: Sendable {
            var number: Int
            var sent: Date
            var acknowledged: Date?
        }

        static let passphrase = "drill passphrase: correct horse battery staple"

        @Test func aBackupTakenUnderLoadRestoresToItsTimeAndToAPointInTime() async throws {
            let walArchive = RunningPlatform.newDataDirectory() + "-wal"
            let work = RunningPlatform.newDataDirectory() + "-drill"
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            defer {
                try? FileManager.default.removeItem(atPath: work)
                try? FileManager.default.removeItem(atPath: walArchive)
            }
            let passphraseFile = work + "/passphrase"
            try (Self.passphrase + "\n").write(toFile: passphraseFile, atomically: true, encoding: .utf8)
            let original = try await RunningPlatform.start(arguments: ["--wal-archive", walArchive])
            var restored: [RunningPlatform] = []
            do {
                try await RunningPlatform.$current.withValue(original) {
                    try await drill(original, walArchive: walArchive, work: work, passphraseFile: passphraseFile, restored: &restored)
                }
            } catch {
                for platform in restored { try? await platform.stop() }
                try? await original.stop()
                throw error
            }
            for platform in restored { try await platform.stop() }
            try await original.stop()
        }

        func drill(
            _ original: RunningPlatform, walArchive: String, work: String, passphraseFile: String, restored: inout [RunningPlatform]
        ) async throws {
            // What must survive: one of each kind of sealed secret, made before the backup.
            let fixtures = try await Fixtures.make()
            let device = try await PlatformTests.TwomesProvisioning.provision()
            let session = try await Erasure.deviceSession(device)

            let reportPath = work + "/loadgen.json"
            async let load = original.custodian([
                "loadgen", "--server", original.baseURL, "--data-dir", original.dataDirectory, "--report", reportPath, "--scenario", "mixed",
                "--duration", "14s", "--rate", "15", "--ramp-up", "1s", "--clients", "2",
            ])
            let writes = Mutex<[Write]>([])
            let stop = Atomic<Bool>(false)
            async let writer: Void = { () async -> Void in
                var number = 0
                while !stop.load(ordering: .relaxed) {
                    number += 1
                    let sent = Date()
                    let status = try? await Erasure.upload(session, value: String(number), at: 1_700_000_000 + number * 10)
                    let write = Write(number: number, sent: sent, acknowledged: status == 200 ? Date() : nil)
                    writes.withLock { $0.append(write) }
                    try? await Task.sleep(for: .milliseconds(40))
                }
            }()

            try await Task.sleep(for: .seconds(3))
            let backupStarted = Date()
            let backup = try await original.custodian([
                "backup", "--data-dir", original.dataDirectory, "--output", work + "/backups", "--passphrase-file", passphraseFile,
            ])
            let backupEnded = Date()
            #expect(backup.status == 0, "\(backup.output)")
            #expect(backup.output.contains("(dump and base backup)"), "\(backup.output)")
            // The point in time: a whole second (as --to-time takes it) after the backup, with writes before and after it.
            try await Task.sleep(for: .seconds(2))
            let target = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 1).rounded(.down))
            while Date() < target.addingTimeInterval(2.5) { try await Task.sleep(for: .milliseconds(100)) }
            stop.store(true, ordering: .relaxed)
            await writer
            let run = try await load
            #expect(run.status == 0, "\(run.output)")
            let all = writes.withLock { $0 }
            #expect(all.filter { $0.acknowledged == nil }.isEmpty, "writes failed during the backup: \(all.filter { $0.acknowledged == nil }.count)")

            // The WAL up to now in the archive, as it would be a minute later by itself (archive_timeout).
            let segment = try original.sql("SELECT pg_walfile_name(pg_switch_wal())")
            let archived = ContinuousClock.now + .seconds(30)
            while !FileManager.default.fileExists(atPath: walArchive + "/" + segment), ContinuousClock.now < archived {
                try await Task.sleep(for: .milliseconds(100))
            }
            let folders = try FileManager.default.contentsOfDirectory(atPath: work + "/backups").filter { $0.hasPrefix("custodian-backup-") }
            let folder = work + "/backups/" + (try #require(folders.first, "no backup folder in \(work)/backups"))
            let targetText = target.formatted(.iso8601)

            // A moment the archive does not reach yet is refused, and leaves nothing behind.
            let beyond = RunningPlatform.newDataDirectory()
            let refused = try await original.custodian(
                [
                    "restore", folder, "--data-dir", beyond, "--passphrase-file", passphraseFile, "--to-time", "2099-01-01T00:00:00Z",
                    "--wal-archive", walArchive,
                ])
            #expect(refused.status == 1 && refused.output.contains("the WAL archive ends before 2099-01-01T00:00:00Z"), "\(refused.output)")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: beyond)) ?? []).isEmpty, "a failed restore left files in \(beyond)")
            try? FileManager.default.removeItem(atPath: beyond)

            for (name, extra, point, lastIncluded) in [
                ("to the backup", [String](), backupStarted, backupEnded),
                ("to \(targetText)", ["--to-time", targetText, "--wal-archive", walArchive], target, target),
                // All of the archive: every acknowledged write.
                ("to the latest", ["--to-time", "latest", "--wal-archive", walArchive], Date.distantFuture, Date.distantFuture),
            ] {
                let dataDirectory = RunningPlatform.newDataDirectory()
                let restore = try await original.custodian(
                    ["restore", folder, "--data-dir", dataDirectory, "--passphrase-file", passphraseFile] + extra)
                #expect(restore.status == 0, "restore \(name): \(restore.output)")
                let platform = try await RunningPlatform.start(dataDirectory: dataDirectory)
                restored.append(platform)
                try await RunningPlatform.$current.withValue(platform) {
                    // Every write acknowledged before the point is there once; none sent after what the restore can hold.
                    let export = try await Erasure.ndjsonExport("pseudonym=\(device.pseudonym)&property=heartbeat")
                    var found: [Int: Int] = [:]
                    for line in export {
                        let row = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                        if let value = (row?["value"] as? String).flatMap(Int.init) { found[value, default: 0] += 1 }
                    }
                    let before = all.filter { ($0.acknowledged ?? .distantFuture) < point }
                    let after = all.filter { $0.sent > lastIncluded }
                    #expect(
                        before.count > 20 && (after.count > 20 || point == .distantFuture),
                        "restore \(name): too few writes on either side (\(before.count), \(after.count))")
                    #expect(before.allSatisfy { found[$0.number] == 1 }, "restore \(name): acknowledged writes lost or doubled")
                    #expect(after.allSatisfy { found[$0.number] == nil }, "restore \(name): writes from after its point")
                    #expect(found.values.allSatisfy { $0 == 1 }, "restore \(name): a write found twice")
                    try await fixtures.check(name)
                }
            }
        }

        /// One of each sealed secret a restore must be able to open, made on the platform of the task.
        struct Fixtures {
            var openSenseDevice: String
            var openSenseKey: String
            var vault: PlatformTests.Vault.Account
            var marker: String
            var consumer: PlatformTests.Geotag.Consumer
            var routeID: String
            var lemonIdentity: String

            static func make() async throws -> Fixtures {
                let platform = try platform
                let marker = String(UInt64.random(in: 1_000_000_000...9_999_999_999))
                let openSenseDevice = "drill-\(marker)"
                let registered = try await PlatformTests.OpenSense.post("/register", [("device_id", openSenseDevice)])
                let key = try #require(registered.json?["key"] as? String, "\(registered.text)")
                let vault = try await PlatformTests.Vault.newUser(name: "Drill \(marker)")
                _ = try await PlatformTests.Vault.install(vault, repo: "oyd.drill", read: true, write: true)
                let publicKey = try #require(
                    try await platform.request(.GET, "/api/repos/oyd.drill/pub_key", headers: PlatformTests.Vault.bearer(vault.token)).json?[
                        "public_key"] as? String)
                let sealed = try await platform.custodian(["vault", "seal", "--public-key", publicKey, "--message", #"{"note":"d\#(marker)"}"#])
                let written = try await platform.request(
                    .POST, "/api/repos/oyd.drill/items", json: sealed.output.trimmingCharacters(in: .whitespacesAndNewlines),
                    headers: PlatformTests.Vault.bearer(vault.token))
                #expect(written.status == 200, "\(written.text)")
                let consumer = try await PlatformTests.Geotag.consumer("Drill \(marker)")
                let stored = try await PlatformTests.Geotag.signed(
                    .POST, "/route", body: Data(PlatformTests.Geotag.opaqueRoute().base64EncodedString().utf8), by: consumer,
                    contentType: "text/plain")
                #expect(stored.status == 200 || stored.status == 201, "\(stored.text)")
                let routeID = try #require(stored.json?["route_id"] as? String, "\(stored.text)")
                let identity = PlatformTests.LemonCall.identityPath()
                let first = try await PlatformTests.LemonCall.call(["GET", "/api/v1/countries"], identity: identity)
                #expect(first.status == 0, "\(first.stderr)")
                return Fixtures(
                    openSenseDevice: openSenseDevice, openSenseKey: key, vault: vault, marker: marker, consumer: consumer, routeID: routeID,
                    lemonIdentity: identity)
            }

            /// On the restored platform of the task: each secret opens and each credential works.
            func check(_ name: String) async throws {
                let platform = try platform
                let key = try await platform.request(.GET, "/admin/v1/opensense/devices/\(openSenseDevice)/key", admin: true)
                #expect(key.json?["key"] as? String == openSenseKey, "restore \(name): the OpenSense key: \(key.text)")
                // A token issued before the backup, and the owner's password, open the record.
                let decrypted = try await platform.request(
                    .POST, "/api/repos/oyd.drill/items/decrypted", json: #"{"password":"\#(vault.password)"}"#,
                    headers: PlatformTests.Vault.bearer(vault.token))
                #expect(decrypted.status == 200 && decrypted.text.contains("d\(marker)"), "restore \(name): the vault record: \(decrypted.text)")
                let route = try await PlatformTests.Geotag.signed(.GET, "/route/\(routeID)", by: consumer)
                #expect(route.status == 200, "restore \(name): a signed request of the API consumer: \(route.text)")
                let lemon = try await PlatformTests.LemonCall.call(["GET", "/api/v1/countries"], identity: lemonIdentity)
                #expect(lemon.status == 0, "restore \(name): the tracing app's call: \(lemon.stderr)")
            }
        }
    }
}
