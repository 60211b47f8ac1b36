import Foundation
import NIOHTTP1
import Testing

/// Synthetic data (docs/operations.md, "Synthetic data"): what `custodian loadgen` creates is marked synthetic, the
/// researchers' lists, exports and console counts leave it out unless asked, and `custodian admin erase-synthetic`
/// erases all of it through the erasure routes. A platform of its own, so that no other test's writes move the figures.
extension OneAtATime {
    @Suite("Synthetic data", .serialized, .runningPlatform)
    struct SyntheticDataTests {
        typealias Browser = PlatformTests.Console.Browser
        typealias OpenSense = PlatformTests.OpenSense

        /// What researchers see: every list and export, by its admin route (the query is added to each).
        static let views = [
            "/admin/v1/accounts?limit=1000", "/admin/v1/devices?limit=1000", "/admin/v1/opensense/devices?", "/admin/v1/vault/users?limit=1000",
            "/admin/v1/api-consumers?", "/admin/v1/lemon/apps?limit=1000", "/admin/v1/measurements?format=csv",
            "/admin/v1/opensense/batches?format=csv", "/admin/v1/statistics/submissions?format=csv", "/admin/v1/statistics/submissions/counts?",
        ]

        static func view(_ path: String, _ query: String = "") async throws -> String {
            let reply = try await platform.request(.GET, path + (path.hasSuffix("?") ? "" : "&") + query, admin: true)
            #expect(reply.status == 200, "\(path): \(reply.text)")
            return reply.text
        }

        /// The overview's counts by label (`<strong>3</strong><a href=…>Twomes accounts</a>`), as a logged-in researcher sees them.
        static func consoleCounts(_ browser: Browser) async throws -> [String: String] {
            let page = try await browser.get("/console")
            var counts: [String: String] = [:]
            for match in page.text.matches(of: #/<li><strong>([^<]*)</strong><a href="[^"]*">([^<]*)</a></li>/#) {
                counts[String(match.output.2)] = String(match.output.1)
            }
            #expect(counts.count == 7, "\(page.text)")
            return counts
        }

        /// The rows of every table but the audit log's, as `pg_dump` writes them, each prefixed with its table; without the
        /// rows that change by themselves (an admin token's last use, the geotag replay window, the signing key the first
        /// token issued after start makes).
        static func dataRows() throws -> [String] {
            var rows: [String] = []
            var table: String?
            for line in try platform.databaseDump().split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("COPY ") {
                    let name = String(line.dropFirst(5).prefix { $0 != " " })
                    table =
                        name.hasPrefix("audit.") || ["auth.admin_tokens", "auth.signing_keys", "routes.seen_signatures"].contains(name) ? nil : name
                    continue
                }
                if line == "\\." {
                    table = nil
                    continue
                }
                if let table { rows.append("\(table)\t\(line)") }
            }
            return rows.sorted()
        }

        /// A real OpenSense device's registration and one batch: a study's write made while the load runs.
        static func realOpenSenseUpload() async throws -> String {
            let device = UUID().uuidString.lowercased()
            #expect(try await OpenSense.post("/register", [("device_id", device)]).status == 200)
            let data = #"[{"probe":"dk.dtu.imm.sensible.battery","datetime":"2013-06-01 14:05","level":0.5}]"#
            let upload = try await OpenSense.post("/upload", [("device_id", device), ("data", data), ("file_hash", OpenSense.md5(data))])
            #expect(upload.status == 200, "\(upload.text)")
            return device
        }

        @Test func aLoadRunLeavesTheStudysViewsAloneAndTheCleanupLeavesNothing() async throws {
            let platform = try platform
            let real = try await PlatformTests.TwomesProvisioning.provision()
            let browser = Browser(platform)
            try await browser.logIn(platform.adminToken)
            let before = try await Self.views.asyncMap { try await Self.view($0) }
            let consoleBefore = try await Self.consoleCounts(browser)
            let rowsBefore = try Self.dataRows()

            // The load, and a real participant's write in the middle of it.
            let (run, realDevice) = try await withThrowingTaskGroup(of: ((status: Int32, output: String)?, String?).self) { group in
                group.addTask {
                    let run = try await platform.custodian([
                        "loadgen", "--server", platform.baseURL, "--data-dir", platform.dataDirectory, "--scenario", "mixed",
                        "--duration", "3s", "--concurrency", "4", "--clients", "2",
                    ])
                    return (run, nil)
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(2))
                    return (nil, try await Self.realOpenSenseUpload())
                }
                var run: (status: Int32, output: String)?, device: String?
                for try await (output, made) in group {
                    run = output ?? run
                    device = made ?? device
                }
                return (try #require(run), try #require(device))
            }
            #expect(run.status == 0, "\(run.output)")

            // The study's views are those of before, but for the real device; the load is there when asked for.
            let after = try await Self.views.asyncMap { try await Self.view($0) }
            for (path, (old, new)) in zip(Self.views, zip(before, after)) where !path.contains("opensense") {
                #expect(old == new, "\(path) changed with the load:\n\(old)\n---\n\(new)")
            }
            let openSense = try await Self.view("/admin/v1/opensense/devices?")
            let openSenseDevices = try #require(
                (try JSONSerialization.jsonObject(with: Data(openSense.utf8)) as? [String: Any])?["devices"] as? [[String: Any]])
            #expect(openSenseDevices.compactMap { $0["device_id"] as? String } == [realDevice])
            var consoleExpected = consoleBefore
            consoleExpected["OpenSense devices"] = consoleBefore["OpenSense devices"].flatMap(Int.init).map { String($0 + 1) }
            #expect(try await Self.consoleCounts(browser) == consoleExpected)
            for (path, old) in zip(Self.views, before) where !path.contains("opensense") && !path.contains("counts") {
                let everything = try await Self.view(path, "include_synthetic=true")
                #expect(everything.count > old.count, "\(path) shows no synthetic record when asked for them")
            }
            let only = try await Self.view("/admin/v1/accounts?limit=1000", "include_synthetic=only")
            #expect(!only.contains("\"pseudonym\":\(real.pseudonym)"), "a real account is listed as synthetic")
            let syntheticPseudonyms = try platform.sql("SELECT pseudonym FROM devices.accounts WHERE synthetic").split(separator: "\n").map(
                String.init)
            #expect(!syntheticPseudonyms.isEmpty)

            // The clean-up: nothing of the load is left, every real row is.
            let cleanup = try await platform.custodian([
                "admin", "erase-synthetic", "--server", platform.baseURL, "--data-dir", platform.dataDirectory,
            ])
            #expect(cleanup.status == 0, "\(cleanup.output)")
            #expect(cleanup.output.contains("erased     \(syntheticPseudonyms.count) twomes accounts"), "\(cleanup.output)")
            let rowsAfter = try Self.dataRows()
            let added = Set(rowsAfter).subtracting(rowsBefore), removed = Set(rowsBefore).subtracting(rowsAfter)
            #expect(removed.isEmpty, "rows that were there before the load are gone: \(removed.sorted())")
            // What is new is the real device's registration, upload and batch, and nothing else.
            #expect(
                added.allSatisfy { $0.hasPrefix("devices.opensense_") },
                "left behind by the load: \(added.filter { !$0.hasPrefix("devices.opensense_") }.sorted().prefix(20))")
            #expect(added.filter { $0.hasPrefix("devices.opensense_devices\t") }.count == 1 && added.contains { $0.contains(realDevice) })
            #expect(added.filter { $0.hasPrefix("devices.opensense_batches\t") }.count == 1)
            let dump = try PlatformTests.Erasure.dumpWithoutAudit()
            for pseudonym in syntheticPseudonyms { #expect(!dump.contains("\t\(pseudonym)\t"), "synthetic account \(pseudonym) is in the dump") }
            let again = try await platform.custodian(["admin", "erase-synthetic", "--server", platform.baseURL, "--data-dir", platform.dataDirectory])
            #expect(again.output.contains("deleted    nothing"), "\(again.output)")
        }

        @Test func onlyAnOperatorsTokenMarksARequestSynthetic() async throws {
            let platform = try platform
            let form = [("Content-Type", "application/x-www-form-urlencoded")]
            let researcher = try await PlatformTests.AdminAudit.identity("researcher")
            for (token, status) in [("not-a-token", 401), (researcher.token, 403), (" ", 401)] {
                let device = UUID().uuidString.lowercased()
                let reply = try await platform.request(
                    .POST, "/register", rawBody: Data("device_id=\(device)".utf8), headers: form + [("X-Custodian-Synthetic", token)])
                #expect(reply.status == status, "\(reply.text)")
                #expect(try platform.sql("SELECT count(*) FROM devices.opensense_devices WHERE device_id = '\(device)'") == "0")
            }
            let refused = try await platform.request(.POST, "/account", json: "{}", headers: [("X-Custodian-Synthetic", "wrong")], admin: true)
            #expect(refused.status == 401 && refused.json?["detail"] != nil, "in the Twomes style: \(refused.text)")

            let device = UUID().uuidString.lowercased()
            let marked = try await platform.request(
                .POST, "/register", rawBody: Data("device_id=\(device)".utf8), headers: form + [("X-Custodian-Synthetic", platform.adminToken)])
            #expect(marked.status == 200, "\(marked.text)")
            #expect(try platform.sql("SELECT synthetic FROM devices.opensense_devices WHERE device_id = '\(device)'") == "t")
            #expect(!(try await Self.view("/admin/v1/opensense/devices?")).contains(device))
            #expect(try await Self.view("/admin/v1/opensense/devices?", "include_synthetic=only").contains(device))
            let receipt = try await platform.request(.DELETE, "/admin/v1/opensense/devices/\(device)", admin: true)
            #expect(receipt.status == 200 && receipt.text.contains(#""devices":1"#), "\(receipt.text)")
        }

        @Test(arguments: SyntheticDataTests.views)
        func aBadIncludeSyntheticIsA400(view: String) async throws {
            for query in ["include_synthetic=yes", "include_synthetic=true&include_synthetic=false", "include_synthetic="] {
                let reply = try await platform.request(.GET, view + (view.hasSuffix("?") ? "" : "&") + query, admin: true)
                let error = reply.json?["error"] as? [String: Any]
                #expect(reply.status == 400 && error?["reason"] != nil, "\(view) \(query): \(reply.status) \(reply.text)")
            }
        }

        @Test func lemonAppsAndDevicesAreErasedByAnOwner() async throws {
            let platform = try platform
            let operatorToken = try await PlatformTests.AdminAudit.identity("operator").token
            let bearer = [("Authorization", "Bearer \(operatorToken)")]
            for (method, path, status) in [
                (HTTPMethod.DELETE, "/admin/v1/lemon/apps/not-a-uuid", 400), (.GET, "/admin/v1/lemon/apps?after=nope", 400),
                (.GET, "/admin/v1/lemon/apps?limit=0", 400), (.DELETE, "/admin/v1/lemon/apps/\(UUID().uuidString)", 200),
                (.DELETE, "/admin/v1/devices/TWOMES-FFFFFF", 200),
            ] {
                let reply = try await platform.request(method, path, admin: true)
                #expect(reply.status == status, "\(method) \(path): \(reply.text)")
                if status == 200 {
                    #expect(reply.text.contains(#""deleted""#) && !(reply.json?["deleted"] as? [String: Int] ?? [:]).values.contains { $0 > 0 })
                }
            }
            let refused = try await platform.request(.DELETE, "/admin/v1/devices/TWOMES-FFFFFF", headers: bearer)
            #expect(refused.status == 403, "erasing is the owner's: \(refused.text)")

            // A provisioned device with a reading: erased with it, its account kept.
            let provisioned = try await PlatformTests.TwomesProvisioning.provision()
            let session = try await PlatformTests.Erasure.deviceSession(provisioned)
            #expect(try await PlatformTests.Erasure.upload(session, value: "42", at: 1_700_000_000) == 200)
            let receipt = try await platform.request(.DELETE, "/admin/v1/devices/\(provisioned.deviceName)", admin: true)
            #expect(receipt.json?["deleted"] as? [String: Int] == ["devices": 1, "uploads": 1, "measurements": 1], "\(receipt.text)")
            #expect(try await PlatformTests.Erasure.upload(session, value: "43", at: 1_700_000_600) == 401)
            #expect(try platform.sql("SELECT count(*) FROM devices.accounts WHERE pseudonym = \(provisioned.pseudonym)") == "1")
        }
    }
}

extension Array where Element: Sendable {
    /// `transform` of each element, one after the other.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async throws -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
