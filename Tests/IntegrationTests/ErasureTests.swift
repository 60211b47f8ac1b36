import Crypto
import Foundation
import NIOHTTP1
import Testing

extension PlatformTests {
    /// Erasure, detaching and revocation through the gateway (docs/erasure.md): each is an audited admin action
    /// answered with a receipt, leaves nothing of its target in a `pg_dump` (but the audit log's pseudonym), and
    /// leaves everyone else's acknowledged writes alone.
    @Suite("Erasure, detaching and revocation")
    struct Erasure {
        typealias Provisioned = TwomesProvisioning.Provisioned

        static func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

        /// The hex of a secret's SHA-256, as a token hash's `bytea` is dumped.
        static func hashHex(_ token: String) -> String {
            SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
        }

        /// A device session token for a provisioned device (phase E).
        static func deviceSession(_ device: Provisioned) async throws -> String {
            let reply = try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"\#(device.deviceToken)"}"#)
            return try #require(reply.json?["session_token"] as? String, "\(reply.text)")
        }

        /// One heartbeat of `value` at `time`, as the firmware uploads it: the answer's status.
        static func upload(_ session: String, value: String, at time: Int) async throws -> Int {
            let body =
                #"{"upload_time":"\#(time)","property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":"\#(time)","value":"\#(value)"}]}]}"#
            return try await platform.request(.POST, "/device/measurements/variable-interval", json: body, headers: bearer(session)).status
        }

        /// The dump without the audit log's rows, which may name an erased pseudonym as the target of its erasure.
        static func dumpWithoutAudit() throws -> String {
            var kept: [Substring] = []
            var inAudit = false
            for line in try platform.databaseDump().split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("COPY audit.") { inAudit = true }
                if !inAudit { kept.append(line) }
                if inAudit && line == "\\." { inAudit = false }
            }
            return kept.joined(separator: "\n")
        }

        static func ndjsonExport(_ query: String) async throws -> [String] {
            let reply = try await platform.request(.GET, "/admin/v1/measurements?format=ndjson&\(query)", admin: true)
            #expect(reply.status == 200, "\(reply.text)")
            return reply.text.split(separator: "\n").map(String.init)
        }

        @Test func aTwomesParticipantIsErasedWhileOthersKeepUploading() async throws {
            let platform = try platform
            let erased = try await TwomesProvisioning.provision(), kept = try await TwomesProvisioning.provision()
            let erasedSession = try await Self.deviceSession(erased), keptSession = try await Self.deviceSession(kept)
            let marker = String(UInt64.random(in: 1_000_000_000...9_999_999_999))
            for i in 0..<5 {
                #expect(try await Self.upload(erasedSession, value: "9\(marker)\(i)", at: 1_700_000_000 + i * 600) == 200)
            }
            let link = try #require(
                try platform.sql("SELECT link_code FROM devices.accounts WHERE pseudonym = \(erased.pseudonym)").split(separator: "\n").first
                    .map(String.init))
            #expect(try await platform.request(.GET, "/l/\(link)").status == 200)

            // Both devices keep uploading while the erasure runs; every acknowledged upload of the kept one must stay.
            let owner = try await AdminAudit.identity("owner", label: "erasure owner \(UUID().uuidString.prefix(6))")
            let (receipt, keptAcknowledged) = try await withThrowingTaskGroup(of: [Int].self) { group in
                for (session, offset) in [(keptSession, 0), (erasedSession, 1)] {
                    group.addTask {
                        var acknowledged: [Int] = []
                        for i in 0..<30 {
                            let time = 1_710_000_000 + offset * 100_000 + i * 600
                            if try await Self.upload(session, value: "8\(marker)\(offset)", at: time) == 200 { acknowledged.append(time) }
                        }
                        return offset == 0 ? acknowledged : []
                    }
                }
                try await Task.sleep(for: .milliseconds(150))
                let receipt = try await platform.request(.DELETE, "/admin/v1/accounts/\(erased.pseudonym)", headers: Self.bearer(owner.token))
                var keptAcknowledged: [Int] = []
                for try await times in group { keptAcknowledged += times }
                return (receipt, keptAcknowledged)
            }
            #expect(receipt.status == 200, "\(receipt.text)")
            let deleted = try #require(receipt.json?["deleted"] as? [String: Int], "\(receipt.text)")
            #expect(deleted["accounts"] == 1 && deleted["locations"] == 1 && deleted["devices_detached"] == 1 && deleted["short_links"] == 1)
            #expect((deleted["measurements"] ?? 0) >= 5 && deleted["measurements"] == deleted["uploads"], "\(deleted)")
            #expect(receipt.json?["target"] as? String == "twomes_account" && receipt.json?["id"] as? String == String(erased.pseudonym))
            let by = try #require(receipt.json?["erased_by"] as? [String: Any])
            #expect(by["id"] as? String == owner.id && (by["label"] as? String)?.hasPrefix("erasure owner") == true)

            // Nothing of the erased participant is left: not in the database, an export, a list or a link.
            let dump = try Self.dumpWithoutAudit()
            for secret in [erased.accountSession, erasedSession] {
                #expect(!dump.contains(Self.hashHex(secret)), "a token hash of the erased account is still in the dump")
            }
            #expect(!dump.contains("9\(marker)") && !dump.contains("8\(marker)1"), "a reading of the erased account is still in the dump")
            #expect(!dump.contains("\t\(erased.pseudonym)\t") && !dump.contains(link))
            #expect(try await Self.ndjsonExport("pseudonym=\(erased.pseudonym)").isEmpty)
            #expect(try await !Self.ndjsonExport("device=\(erased.deviceName)").contains { $0.contains(marker) })
            let accounts = try await platform.request(.GET, "/admin/v1/accounts?after=\(erased.pseudonym - 1)&limit=1", admin: true)
            #expect(!((accounts.json?["accounts"] as? [[String: Any]])?.contains { $0["pseudonym"] as? Int == erased.pseudonym } ?? true))
            #expect(try await platform.request(.GET, "/l/\(link)").status == 404)
            #expect(try await platform.request(.GET, "/device/\(erased.deviceName)", headers: Self.bearer(erased.accountSession)).status == 401)
            #expect(try await Self.upload(erasedSession, value: "7\(marker)", at: 1_720_000_000) == 401)

            // Everyone else's acknowledged readings stay.
            let keptRows = try await Self.ndjsonExport("pseudonym=\(kept.pseudonym)")
            #expect(keptRows.count == keptAcknowledged.count && keptAcknowledged.count == 30, "\(keptRows.count) of \(keptAcknowledged.count)")

            // The hardware can be deployed again: another account attaches it with its label's token (phase D).
            let next = try await platform.request(.POST, "/account", json: "{}", admin: true)
            let nextToken = try #require(next.json?["activation_token"] as? String)
            let nextSession = try #require(
                try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"\#(nextToken)"}"#).json?["session_token"]
                    as? String)
            let attached = try await platform.request(
                .POST, "/account/device/activate", json: #"{"activation_token":"\#(erased.deviceToken)"}"#, headers: Self.bearer(nextSession))
            #expect(attached.status == 200, "\(attached.text)")

            // Again: nothing is left, and the receipt says so; the audit log has both, with the identity.
            let again = try await platform.request(.DELETE, "/admin/v1/accounts/\(erased.pseudonym)", headers: Self.bearer(owner.token))
            #expect(again.status == 200 && (again.json?["deleted"] as? [String: Int])?.values.allSatisfy { $0 == 0 } == true, "\(again.text)")
            let audit = try await platform.request(.GET, "/admin/v1/audit?target=\(erased.pseudonym)&identity=\(owner.id)", admin: true)
            let entries = try #require(audit.json?["entries"] as? [[String: Any]])
            #expect(
                entries.filter { $0["action"] as? String == "DELETE /admin/v1/accounts/{pseudonym}" && $0["phase"] as? String == "end" }.count == 2)
        }

        /// The issue's whole check: one participant of each domain erased while `custodian loadgen` writes to others. The
        /// load generator reads back every write it was told had been stored, so its report is the proof that nobody
        /// else lost anything.
        @Test func oneParticipantOfEachDomainIsErasedWhileTheLoadGeneratorWritesToOthers() async throws {
            let platform = try platform
            let marker = String(UInt64.random(in: 1_000_000_000...9_999_999_999))
            // Twomes, OpenSense, the vault and LEMON: one participant each, with data that says whose it is.
            let twomes = try await TwomesProvisioning.provision()
            let twomesSession = try await Self.deviceSession(twomes)
            #expect(try await Self.upload(twomesSession, value: "6\(marker)", at: 1_700_500_000) == 200)
            let openSenseID = "each-\(marker)"
            _ = try await OpenSense.post("/register", [("device_id", openSenseID)])
            let batch = #"[{"probe":"dk.dtu.imm.sensible.battery","datetime":"2013-06-01 12:30","level":0.5\#(marker)}]"#
            #expect(
                try await OpenSense.post("/upload", [("device_id", openSenseID), ("data", batch), ("file_hash", OpenSense.md5(batch))]).status == 200)
            let vaultUser = try await Vault.newUser(name: "Each \(marker)")
            #expect(
                try await platform.request(
                    .POST, "/api/repos/eu.ownyourdata.each/items", json: #"{"note":"v\#(marker)"}"#, headers: Vault.bearer(vaultUser.token)
                ).status == 200)
            let identity = LemonCall.identityPath()
            defer { try? FileManager.default.removeItem(atPath: (identity as NSString).deletingLastPathComponent) }
            let survey = #"{"Status":"Negative","NegativeTestDate":"2020-04-02 08:17:13","Country":"CY"}"#
            let submitted = try await LemonCall.call(["POST", "/api/v1/submission/covid", survey], identity: identity)
            #expect(submitted.status == 0, "\(submitted.stderr)")
            let appHash = try LemonCall.appHash(identity)
            let ourSubmission = "SELECT count(*) FROM statistics.submissions WHERE country = 'CY' AND negative_test_date = '2020-04-02 08:17:13+00'"
            #expect(try platform.sql(ourSubmission) == "1")

            async let load = platform.loadgen(RunningPlatform.gentleLoad(for: "8s"))
            try await Task.sleep(for: .seconds(3))
            let erasures = [
                try await platform.request(.DELETE, "/admin/v1/accounts/\(twomes.pseudonym)", admin: true),
                try await platform.request(.DELETE, "/admin/v1/opensense/devices/\(openSenseID)", admin: true),
                try await platform.request(.DELETE, "/admin/v1/vault/users/\(vaultUser.userID)", admin: true),
            ]
            let lemonDeleted = try await LemonCall.call(["DELETE", "/api/v1/devices"], identity: identity)
            let run = try await load
            #expect(erasures.allSatisfy { $0.status == 200 }, "\(erasures.map(\.text))")
            // Each receipt counts what was there: one of everything each participant had.
            let receipts = erasures.map { $0.json?["deleted"] as? [String: Int] ?? [:] }
            #expect(
                receipts[0] == ["accounts": 1, "locations": 1, "devices_detached": 1, "uploads": 1, "measurements": 1, "short_links": 1],
                "\(receipts[0])")
            #expect(receipts[1] == ["devices": 1, "uploads": 1, "batches": 1], "\(receipts[1])")
            #expect(
                receipts[2] == ["users": 1, "login_failures": 0, "user_keys": 1, "modules": 0, "repos": 1, "permissions": 0, "items": 1],
                "\(receipts[2])")
            #expect(lemonDeleted.status == 0, "\(lemonDeleted.stderr)")
            // Everyone else's acknowledged writes are all there, each once.
            #expect(run.status == 0, "\(run.output)")
            let checks = try #require(run.report, "\(run.output)").verification
            #expect(checks.count == 5, "\(checks)")
            #expect(checks.allSatisfy { $0.acknowledged > 0 && $0.lost == 0 && $0.duplicated == 0 && $0.found == $0.acknowledged }, "\(checks)")

            // Nothing of the four is left: not in the database, and not in any service's log.
            let dump = try Self.dumpWithoutAudit()
            for (what, text) in [
                ("a Twomes reading", "6\(marker)"), ("an OpenSense device", openSenseID), ("an OpenSense batch", "0.5\(marker)"),
                ("a vault user", vaultUser.email), ("a vault record", "v\(marker)"), ("a tracing app", appHash),
                ("a Twomes session", Self.hashHex(twomesSession)),
            ] {
                #expect(!dump.contains(text), "\(what) is still in the dump")
            }
            #expect(try platform.sql(ourSubmission) == "0", "the tracing app's survey submission is still there")
            // Nor in any list or export a researcher reads.
            let users = try await platform.request(.GET, "/admin/v1/vault/users?include_synthetic=true&limit=1000", admin: true)
            #expect(!((users.json?["users"] as? [[String: Any]]) ?? []).contains { $0["id"] as? Int == vaultUser.userID }, "\(users.text)")
            for (path, text) in [
                ("/admin/v1/opensense/devices?include_synthetic=true", openSenseID),
                ("/admin/v1/opensense/batches?format=ndjson&include_synthetic=true", "0.5\(marker)"),
                ("/admin/v1/measurements?format=ndjson&include_synthetic=true&pseudonym=\(twomes.pseudonym)", "\"device\""),
                ("/admin/v1/lemon/apps?include_synthetic=true&limit=1000", appHash),
            ] {
                let listed = try await platform.request(.GET, path, admin: true)
                #expect(listed.status == 200 && !listed.text.contains(text), "\(path) still shows the erased participant: \(listed.text.prefix(600))")
            }
            let logs = try FileManager.default.contentsOfDirectory(atPath: platform.dataDirectory + "/logs").map {
                (try? String(contentsOfFile: platform.dataDirectory + "/logs/" + $0, encoding: .utf8)) ?? ""
            }.joined(separator: "\n")
            for (what, text) in [("a reading", "6\(marker)"), ("a batch", "0.5\(marker)"), ("an email", vaultUser.email), ("a record", "v\(marker)")]
            {
                #expect(!logs.contains(text), "\(what) of an erased participant is in a log")
            }
        }

        @Test func aDetachedDeviceKeepsItsReadingsWithTheAccountTheyWereTakenFor() async throws {
            let platform = try platform
            let device = try await TwomesProvisioning.provision()
            let session = try await Self.deviceSession(device)
            for i in 0..<3 { #expect(try await Self.upload(session, value: "1", at: 1_700_100_000 + i * 600) == 200) }

            let operatorIdentity = try await AdminAudit.identity("operator")
            let detached = try await platform.request(
                .POST, "/admin/v1/devices/\(device.deviceName)/detach", headers: Self.bearer(operatorIdentity.token))
            #expect(detached.status == 200, "\(detached.text)")
            #expect(detached.json?["detached_from"] as? Int == device.pseudonym && detached.json?["measurements_kept"] as? Int == 3)
            // Its session token is revoked, and a repeat finds it detached already.
            #expect(try await Self.upload(session, value: "1", at: 1_700_200_000) == 401)
            let repeated = try await platform.request(.POST, "/admin/v1/devices/\(device.deviceName)/detach", admin: true)
            #expect(repeated.status == 200 && repeated.json?["detached_from"] is NSNull, "\(repeated.text)")

            // Another account attaches it; new readings are the new account's, the old ones stay the old one's.
            let other = try await platform.request(.POST, "/account", json: "{}", admin: true)
            let otherPseudonym = try #require(other.json?["pseudonym"] as? Int)
            let otherToken = try #require(other.json?["activation_token"] as? String)
            let otherSession = try #require(
                try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"\#(otherToken)"}"#).json?["session_token"]
                    as? String)
            let attached = try await platform.request(
                .POST, "/account/device/activate", json: #"{"activation_token":"\#(device.deviceToken)"}"#, headers: Self.bearer(otherSession))
            #expect(attached.status == 200, "\(attached.text)")
            let newSession = try await Self.deviceSession(device)
            #expect(try await Self.upload(newSession, value: "1", at: 1_700_300_000) == 200)
            #expect(try await Self.ndjsonExport("pseudonym=\(device.pseudonym)").count == 3)
            #expect(try await Self.ndjsonExport("pseudonym=\(otherPseudonym)").count == 1)

            // A researcher may not detach; an unknown device is a 404 in the admin API's shape.
            let researcher = try await AdminAudit.identity("researcher")
            #expect(
                try await platform.request(.POST, "/admin/v1/devices/\(device.deviceName)/detach", headers: Self.bearer(researcher.token)).status
                    == 403)
            let unknown = try await platform.request(.POST, "/admin/v1/devices/NO-SUCH-DEVICE/detach", admin: true)
            #expect(unknown.status == 404 && unknown.text.contains(#""reason":"device_not_found""#), "\(unknown.text)")
        }

        @Test func anOpenSenseDeviceIsErasedWithItsKeyAndBatches() async throws {
            let platform = try platform
            let deviceID = "erase-\(UUID().uuidString)"
            let registered = try await OpenSense.post("/register", [("device_id", deviceID)])
            let key = try #require(registered.json?["key"] as? String)
            let data =
                #"[{"probe":"dk.dtu.imm.sensible.battery","datetime":"2013-06-01 12:30","level":0.8123456789}]"#
            let uploaded = try await OpenSense.post(
                "/upload", [("device_id", deviceID), ("data", data), ("file_hash", OpenSense.md5(data))])
            #expect(uploaded.status == 200, "\(uploaded.text)")

            let erased = try await platform.request(.DELETE, "/admin/v1/opensense/devices/\(deviceID)", admin: true)
            #expect(erased.status == 200, "\(erased.text)")
            #expect((erased.json?["deleted"] as? [String: Int]) == ["devices": 1, "uploads": 1, "batches": 1])
            #expect(try await platform.request(.GET, "/admin/v1/opensense/devices/\(deviceID)/key", admin: true).status == 404)
            let late = try await OpenSense.post("/upload", [("device_id", deviceID), ("data", data), ("file_hash", OpenSense.md5(data))])
            #expect(late.status == 400, "\(late.text)")
            let dump = try Self.dumpWithoutAudit()
            #expect(!dump.contains(deviceID) && !dump.contains("0.8123456789") && !dump.contains(key))
            let again = try await platform.request(.DELETE, "/admin/v1/opensense/devices/\(deviceID)", admin: true)
            #expect((again.json?["deleted"] as? [String: Int]) == ["devices": 0, "uploads": 0, "batches": 0])
            // Erasure is the owner's: an operator is refused before any service is called.
            let operatorIdentity = try await AdminAudit.identity("operator")
            #expect(
                try await platform.request(.DELETE, "/admin/v1/opensense/devices/\(deviceID)", headers: Self.bearer(operatorIdentity.token)).status
                    == 403)
        }

        @Test func aVaultUserIsErasedWithLoginKeysReposAndItems() async throws {
            let platform = try platform
            let user = try await Vault.newUser(name: "Erased \(UUID().uuidString.prefix(6))")
            let module = try await Vault.install(user, repo: "eu.ownyourdata.erase", read: true, write: true)
            let marker = "erase-\(UUID().uuidString)"
            let written = try await platform.request(
                .POST, "/api/repos/eu.ownyourdata.erase/items", json: #"{"note":"\#(marker)"}"#, headers: Vault.bearer(user.token))
            #expect(written.status == 200, "\(written.text)")

            let erased = try await platform.request(.DELETE, "/admin/v1/vault/users/\(user.userID)", admin: true)
            #expect(erased.status == 200, "\(erased.text)")
            let deleted = try #require(erased.json?["deleted"] as? [String: Int])
            #expect(
                deleted == ["users": 1, "login_failures": 0, "user_keys": 1, "modules": 1, "repos": 1, "permissions": 1, "items": 1],
                "\(deleted)")
            // Nothing in the database.
            let dump = try Self.dumpWithoutAudit()
            for (what, text) in [("email", user.email), ("item", marker), ("module uid", module.uid)] {
                let where_ = dump.split(separator: "\n").filter { $0.contains(text) }.map { String($0.prefix(200)) }
                #expect(where_.isEmpty, "the erased user's \(what) is in the dump: \(where_)")
            }
            // No login, and no data through a token issued before. The refused login is counted by the address's keyed
            // digest, which leaves the address out of the database.
            #expect(try await Vault.login(user.email, user.password).status == 401)
            #expect(!(try platform.databaseDump().contains(user.email)))
            let late = try await platform.request(
                .POST, "/api/repos/eu.ownyourdata.erase/items", json: #"{"note":"late"}"#, headers: Vault.bearer(user.token))
            #expect((400..<500).contains(late.status), "\(late.status) \(late.text)")
            let read = try await platform.request(.GET, "/api/repos/eu.ownyourdata.erase/items", headers: Vault.bearer(user.token))
            #expect(read.status == 404, "\(read.status) \(read.text)")
            let again = try await platform.request(.DELETE, "/admin/v1/vault/users/\(user.userID)", admin: true)
            #expect((again.json?["deleted"] as? [String: Int])?.values.allSatisfy { $0 == 0 } == true, "\(again.text)")
            #expect(try await platform.request(.DELETE, "/admin/v1/vault/users/not-a-number", admin: true).status == 200)
        }

        @Test func aVaultOwnerDeletesOneRecordAndNobodyElseCan() async throws {
            let platform = try platform
            let owner = try await Vault.newUser(), stranger = try await Vault.newUser(name: "User B")
            let marker = "delete-\(UUID().uuidString)"
            let written = try await platform.request(
                .POST, "/api/repos/eu.ownyourdata.delete/items", json: #"{"note":"\#(marker)"}"#, headers: Vault.bearer(owner.token))
            let id = try #require(written.json?["id"] as? Int, "\(written.text)")
            // Someone else's token, a number that is no record and text that is no number: all "not found".
            for (path, token) in [("/api/items/\(id)", stranger.token), ("/api/items/999999999", owner.token), ("/api/items/abc", owner.token)] {
                let refused = try await platform.request(.DELETE, path, headers: Vault.bearer(token))
                #expect(refused.status == 404, "\(path): \(refused.status) \(refused.text)")
            }
            #expect(try await platform.request(.DELETE, "/api/items/\(id)").status == 401)
            let deleted = try await platform.request(.DELETE, "/api/items/\(id)", headers: Vault.bearer(owner.token))
            #expect(deleted.status == 200 && deleted.json?["id"] as? Int == id, "\(deleted.text)")
            #expect(try platform.sql("SELECT count(*) FROM vault.items WHERE value::text LIKE '%\(marker)%'") == "0")
            #expect(try await platform.request(.DELETE, "/api/items/\(id)", headers: Vault.bearer(owner.token)).status == 404)
        }

        @Test func aRevokedConsumerIsRefusedAtOnceAndARevokedLinkIsGone() async throws {
            let platform = try platform
            let consumer = try await Geotag.consumer("Revoked app")
            #expect(try await Geotag.signed(.GET, "/route/lookup/none", by: consumer).status != 401)
            let revoked = try await platform.request(.DELETE, "/admin/v1/api-consumers/\(consumer.key)", admin: true)
            #expect(revoked.status == 200 && (revoked.json?["deleted"] as? [String: Int]) == ["consumer_secrets": 1], "\(revoked.text)")
            let refused = try await Geotag.signed(.GET, "/route/lookup/none", by: consumer)
            #expect(refused.status == 401 && refused.text.contains("revoked"), "\(refused.text)")
            let list = try await platform.request(.GET, "/admin/v1/api-consumers", admin: true)
            let listed = (list.json?["consumers"] as? [[String: Any]])?.first { $0["consumer_key"] as? String == consumer.key }
            #expect(listed?["revoked_at"] is String)
            #expect(try platform.rows(of: "routes.consumers", holding: consumer.secret, in: "secret_sealed") == 0)
            let again = try await platform.request(.DELETE, "/admin/v1/api-consumers/\(consumer.key)", admin: true)
            #expect((again.json?["deleted"] as? [String: Int]) == ["consumer_secrets": 0])

            let link = try await platform.request(
                .POST, "/admin/v1/links", json: #"{"app_url":"https://example.org/open","ttl_seconds":3600}"#, admin: true)
            let code = try #require(link.json?["code"] as? String, "\(link.text)")
            #expect(try await platform.request(.GET, "/l/\(code)").status == 200)
            let gone = try await platform.request(.DELETE, "/admin/v1/links/\(code)", admin: true)
            #expect(gone.status == 200 && (gone.json?["deleted"] as? [String: Int]) == ["short_links": 1], "\(gone.text)")
            #expect(try await platform.request(.GET, "/l/\(code)").status == 404)
            let twice = try await platform.request(.DELETE, "/admin/v1/links/\(code)", admin: true)
            #expect((twice.json?["deleted"] as? [String: Int]) == ["short_links": 0])
        }

        @Test func theCommandLineErasesDetachesAndRevokesThroughTheAdminAPI() async throws {
            let platform = try platform
            let device = try await TwomesProvisioning.provision()
            let connection = [
                "--server", platform.baseURL, "--token-file", platform.dataDirectory + "/admin-token", "--ca-file",
                platform.dataDirectory + "/tls/cert.pem",
            ]
            let detached = try await platform.custodian(["detach", device.deviceName] + connection)
            #expect(detached.status == 0 && detached.output.contains(#""detached_from":\#(device.pseudonym)"#), "\(detached.output)")
            let erased = try await platform.custodian(["erase", "account", String(device.pseudonym)] + connection)
            #expect(erased.status == 0 && erased.output.contains("erased twomes_account \(device.pseudonym): accounts 1"), "\(erased.output)")
            #expect(erased.output.contains(#""target":"twomes_account""#))
            let again = try await platform.custodian(["erase", "account", String(device.pseudonym)] + connection)
            #expect(again.status == 0 && again.output.contains("nothing was left of twomes_account \(device.pseudonym)"), "\(again.output)")
            // The API's refusal, in one line, and a non-zero status: a researcher's token, and a pseudonym out of range.
            let researcher = try await AdminAudit.identity("researcher")
            let refused = try await platform.custodian([
                "erase", "link", "abcdefghij", "--token", researcher.token,
                "--server", platform.baseURL, "--ca-file", platform.dataDirectory + "/tls/cert.pem",
            ])
            #expect(
                refused.status == 1 && refused.output.contains("the erasure was refused (403): This needs the operator scope"), "\(refused.output)")
            let bad = try await platform.custodian(["erase", "account", "12"] + connection)
            #expect(bad.status == 1 && bad.output.contains("(400): pseudonym must be a whole number from 800000 to 899999"), "\(bad.output)")
            let unknownKind = try await platform.custodian(["erase", "building", "1"] + connection)
            #expect(
                unknownKind.status != 0 && unknownKind.output.contains("account, device, opensense-device, vault-user, lemon-app, consumer, link"),
                "\(unknownKind.output)")
        }

        @Test func badErasureRequestsAre4xxInTheAdminShape() async throws {
            let platform = try platform
            for path in ["/admin/v1/accounts/abc", "/admin/v1/accounts/12", "/admin/v1/accounts/99999999999999999999999"] {
                let reply = try await platform.request(.DELETE, path, admin: true)
                #expect(reply.status == 400 && reply.text.contains(#""reason":"invalid_path""#), "\(path): \(reply.text)")
            }
            let researcher = try await AdminAudit.identity("researcher")
            let refused = try await platform.request(.DELETE, "/admin/v1/accounts/812345", headers: Self.bearer(researcher.token))
            #expect(refused.status == 403 && refused.text.contains("needs the owner scope"), "\(refused.text)")
            #expect(try await platform.request(.DELETE, "/admin/v1/accounts/812345").status == 401)
        }
    }
}
