import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// Drives the real gateway over HTTPS to the real services and PostgreSQL, as `custodian up` runs them.
@Suite("Custodian platform", .runningPlatform)
struct PlatformTests {}

extension PlatformTests {
    @Suite("Twomes account slice: gateway → devices → links → PostgreSQL")
    struct TwomesAccounts {
        @Test func researcherCreatesAnAccountWithAnActivationLink() async throws {
            let reply = try await platform.request(.POST, "/account", json: "{}", admin: true)
            #expect(reply.status == 200, "\(reply.text)")
            let body = try #require(reply.json)
            let pseudonym = try #require(body["pseudonym"] as? Int)
            #expect((800_000...899_999).contains(pseudonym))
            #expect(body["id"] is Int)
            let token = try #require(body["activation_token"] as? String)
            #expect(token.count == 43)
            #expect(token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            // Firebase Dynamic Links stopped resolving in 2025: the link is this platform's own short link, which sends a
            // phone to the app with the token where the Firebase link carried it.
            let link = try #require(body["firebase_url"] as? String)
            let base = try platform.baseURL
            #expect(link.hasPrefix(base + "/l/"), "\(link)")
            let opened = try await platform.request(
                .GET, String(link.dropFirst(base.count)), headers: [("User-Agent", "Mozilla/5.0 (Linux; Android 14)")])
            #expect(opened.status == 302)
            #expect(opened.headers.first(name: "Location") == "warmtewachter://account/\(token)")
        }

        @Test func theAccountIsStoredWithItsBuildingAndOnlyTheTokensHash() async throws {
            let reply = try await platform.request(
                .POST, "/account",
                json: #"{"pseudonym": 854321, "location": {"latitude": 52.512345, "longitude": 6.0912}, "tz_name": "Europe/London"}"#, admin: true)
            #expect(reply.status == 200, "\(reply.text)")
            let token = try #require(reply.json?["activation_token"] as? String)
            #expect(reply.json?["pseudonym"] as? Int == 854321)
            let stored = try platform.sql(
                "SELECT encode(a.activation_token_hash, 'hex'), b.latitude, b.longitude, b.tz_name FROM devices.accounts a JOIN devices.buildings b ON b.account_id = a.id WHERE a.pseudonym = 854321"
            )
            let expectedHash = SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
            // Coarse location: two decimals, never a street address.
            #expect(stored == "\(expectedHash)|52.51000|6.09000|Europe/London")
            #expect(try platform.rows(of: "devices.accounts", holding: token, in: "activation_token_hash") == 0)
        }

        @Test func pseudonymsAreCoercedAsTheBackendDoes() async throws {
            let fromString = try await platform.request(.POST, "/account", json: #"{"pseudonym": "833001"}"#, admin: true)
            #expect(fromString.json?["pseudonym"] as? Int == 833001)
            let fromWholeNumber = try await platform.request(.POST, "/account", json: #"{"pseudonym": 833002.0}"#, admin: true)
            #expect(fromWholeNumber.json?["pseudonym"] as? Int == 833002)
        }

        @Test func aTakenPseudonymIsRefused() async throws {
            let first = try await platform.request(.POST, "/account", json: #"{"pseudonym": 899999}"#, admin: true)
            #expect(first.status == 200)
            let again = try await platform.request(.POST, "/account", json: #"{"pseudonym": 899999}"#, admin: true)
            #expect(again.status == 400)
            #expect(again.text == #"{"detail":"Account pseudonym already in use"}"# + "\n")
            #expect(try platform.sql("SELECT count(*) FROM devices.accounts WHERE pseudonym = 899999") == "1")
        }

        @Test(arguments: [
            (
                #"{"pseudonym": 799999}"#,
                #"{"detail":[{"loc":["body","pseudonym"],"msg":"ensure this value is greater than or equal to 800000","type":"value_error.number.not_ge"}]}"#
            ),
            (
                #"{"pseudonym": 900000}"#,
                #"{"detail":[{"loc":["body","pseudonym"],"msg":"ensure this value is less than or equal to 899999","type":"value_error.number.not_le"}]}"#
            ),
            (
                #"{"pseudonym": 844444, "timezone": "Mars/Olympus_Mons"}"#,
                #"{"detail":[{"loc":["body","timezone"],"msg":"illegal time zone","type":"value_error"}]}"#
            ),
            (
                #"{"pseudonym": "eight"}"#,
                #"{"detail":[{"loc":["body","pseudonym"],"msg":"value is not a valid integer","type":"type_error.integer"}]}"#
            ),
            (
                #"{"pseudonym": 844445, "location": {"latitude": 95, "longitude": 6}}"#,
                #"{"detail":[{"loc":["body","location","latitude"],"msg":"latitude must be between -90 and 90","type":"value_error"}]}"#
            ),
            (
                #"{"pseudonym": 844446, "tz_name": "Nowhere/Special"}"#,
                #"{"detail":[{"loc":["body","tz_name"],"msg":"illegal time zone","type":"value_error"}]}"#
            ),
            (
                #"{"pseudonym": "eight hundred thousand"}"#,
                #"{"detail":[{"loc":["body","pseudonym"],"msg":"value is not a valid integer","type":"type_error.integer"}]}"#
            ),
            (
                #"{"pseudonym": 800001.5}"#,
                #"{"detail":[{"loc":["body","pseudonym"],"msg":"value is not a valid integer","type":"type_error.integer"}]}"#
            ),
            (#"{"location": "Zwolle"}"#, #"{"detail":[{"loc":["body","location"],"msg":"value is not a valid dict","type":"type_error.dict"}]}"#),
            (#"{"pseudonym": 81"#, #"{"detail":[{"loc":["body"],"msg":"The request body is not valid JSON","type":"value_error.jsondecode"}]}"#),
        ])
        func invalidAccountRequestsAre422s(body: String, expected: String) async throws {
            let reply = try await platform.request(.POST, "/account", json: body, admin: true)
            #expect(reply.status == 422)
            #expect(reply.text == expected + "\n")
            // Nothing written: not the account the body named, and no account without its building.
            #expect(try platform.sql("SELECT count(*) FROM devices.accounts WHERE pseudonym IN (844444, 844445, 844446)") == "0")
            #expect(
                try platform.sql(
                    "SELECT count(*) FROM devices.accounts a WHERE NOT EXISTS (SELECT 1 FROM devices.buildings b WHERE b.account_id = a.id)") == "0")
        }

        @Test func accountCreationNeedsAnAdminToken() async throws {
            let missing = try await platform.request(.POST, "/account", json: "{}")
            #expect(missing.status == 403)
            #expect(missing.text == #"{"detail":"Not authenticated"}"# + "\n")
            let wrongScheme = try await platform.request(.POST, "/account", json: "{}", headers: [("Authorization", "Basic YWRtaW46YWRtaW4=")])
            #expect(wrongScheme.status == 403)
            #expect(wrongScheme.text == #"{"detail":"Invalid authentication credentials"}"# + "\n")
            let wrongToken = try await platform.request(.POST, "/account", json: "{}", headers: [("Authorization", "Bearer not-a-token")])
            #expect(wrongToken.status == 401)
            #expect(wrongToken.text == #"{"detail":"Invalid admin session token"}"# + "\n")
        }

        @Test func theAppActivatesTheAccountWithItsToken() async throws {
            let created = try await platform.request(.POST, "/account", json: "{}", admin: true)
            let token = try #require(created.json?["activation_token"] as? String)
            let activated = try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"\#(token)"}"#)
            #expect(activated.status == 200, "\(activated.text)")
            let session = try #require(activated.json?["session_token"] as? String)
            #expect(session.count == 43)
            #expect(activated.json?.count == 1)
            let pseudonym = try #require(created.json?["pseudonym"] as? Int)
            #expect(try platform.sql("SELECT activated_on IS NOT NULL FROM devices.accounts WHERE pseudonym = \(pseudonym)") == "t")
        }

        @Test func unknownActivationTokensAre404s() async throws {
            let reply = try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"no-such-token"}"#)
            #expect(reply.status == 404)
            #expect(reply.text == #"{"detail":"No account found for provided activation token"}"# + "\n")
            let empty = try await platform.request(.POST, "/account/activate")
            #expect(empty.status == 422)
            #expect(empty.text == #"{"detail":[{"loc":["body"],"msg":"field required","type":"value_error.missing"}]}"# + "\n")
            let missing = try await platform.request(.POST, "/account/activate", json: "{}")
            #expect(missing.status == 422)
            #expect(missing.text == #"{"detail":[{"loc":["body","activation_token"],"msg":"field required","type":"value_error.missing"}]}"# + "\n")
        }

        @Test func anExpiredActivationTokenIsA404() async throws {
            let created = try await platform.request(.POST, "/account", json: #"{"pseudonym": 811111}"#, admin: true)
            let token = try #require(created.json?["activation_token"] as? String)
            _ = try platform.sql("UPDATE devices.accounts SET activation_expires_at = now() - interval '1 second' WHERE pseudonym = 811111")
            let reply = try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"\#(token)"}"#)
            #expect(reply.status == 404)
        }

        @Test func anOversizeBodyIsA413InTheAPIsShape() async throws {
            let huge = Data(repeating: UInt8(ascii: " "), count: 1024 * 1024 + 1)
            let reply = try await platform.request(.POST, "/account/activate", rawBody: huge, headers: [("Content-Type", "application/json")])
            #expect(reply.status == 413)
            #expect(reply.json?["detail"] as? String == "The request body exceeds 1048576 bytes")
        }
    }

    @Suite("Gateway behaviour")
    struct Gateway {
        @Test func requestIDsAreEchoedOrGenerated() async throws {
            let given = try await platform.request(.GET, "/healthz", headers: [("X-Request-Id", "trace-42.a:b")])
            #expect(given.headers.first(name: "X-Request-Id") == "trace-42.a:b")
            let generated = try await platform.request(.GET, "/healthz")
            // Generated: the trace id of the answer's `traceparent` (docs/operations.md, "X-Request-Id"), 32 hexadecimal digits.
            let id = try #require(generated.headers.first(name: "X-Request-Id"))
            let traceparent = try #require(generated.headers.first(name: "traceparent"))
            #expect(traceparent.split(separator: "-").map(\.count) == [2, 32, 16, 2] && traceparent.split(separator: "-")[1] == id)
            #expect(id.count == 32 && id.allSatisfy(\.isHexDigit) && id == id.lowercased())
            let unsafe = try await platform.request(.GET, "/healthz", headers: [("X-Request-Id", "bad id\twith spaces")])
            #expect(unsafe.headers.first(name: "X-Request-Id") != "bad id\twith spaces")
        }

        @Test func healthAndReadiness() async throws {
            let health = try await platform.request(.GET, "/healthz")
            #expect(health.status == 200)
            let ready = try await platform.request(.GET, "/readyz")
            #expect(ready.status == 200, "\(ready.text)")
            let services = try #require(ready.json?["services"] as? [String: String])
            #expect(services == ["auth": "ok", "vault": "ok", "routes": "ok", "devices": "ok", "statistics": "ok", "links": "ok"])
        }

        @Test func metricsCountRequestsPerRouteAndTimeRPCs() async throws {
            _ = try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"x"}"#)
            let metrics = try await platform.request(.GET, "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.text.contains(#"custodian_http_requests_total{route="/account/activate",method="POST",status="404"}"#))
            #expect(metrics.text.contains(#"custodian_http_request_duration_seconds_bucket{route="/account/activate",method="POST""#))
            #expect(
                metrics.text.contains(
                    #"custodian_rpc_duration_seconds_count{service="devices",method="devices.account.activate",outcome="rejected"}"#))
        }

        @Test func unknownPathsAnswerInTheirAPIsShape() async throws {
            let twomes = try await platform.request(.GET, "/device_type/TWOMES-000000/nothing")
            #expect(twomes.status == 404)
            #expect(twomes.json?["detail"] as? String == "Not Found")
            let admin = try await platform.request(.GET, "/admin/v1/nothing")
            #expect(admin.status == 404)
            #expect((admin.json?["error"] as? [String: String])?["reason"] == "not_found")
        }
    }

    @Suite("Command line")
    struct CommandLine {
        @Test func vaultSealReproducesTheDocumentsRecordAndOpenReversesIt() async throws {
            let platform = try platform
            let message = #"{"latitude":40.75846,"longitude":73.92248,"elevation":160.34,"timestamp":"2017-12-28T16:49:22Z","datum":"EPSG:4326"}"#
            let sealed = try await platform.custodian([
                "vault", "seal", "--public-key", "3c140482018abdc7e2a8d70f1f797e83b46c77218a9bc56ce1ae35acd2b53920",
                "--nonce", "59b142f13c9520cd203effa2a96dbe589defb3c1e021876e", "--message", message,
            ])
            #expect(sealed.status == 0)
            #expect(
                sealed.output
                    == #"{"value":"2322818113e73144fab77ce62916ec8860568ea5e9fbe3867c862056bd4c1d8e10349cbb82c52e82e0b55764805a3e923bd784820c5922ba0f079f10eeae4ef0b5155561d57986185708919d5318257d811beb9510697e307bd5d9fe27326f4e82af87f860eaa77a7eaf12079048735afad76e1396101a4576c9aa8d2778f5a8b842117d","nonce":"59b142f13c9520cd203effa2a96dbe589defb3c1e021876e","version":"0.4"}"#
                    + "\n")
            // A key pair of our own, to open what we sealed.
            let secretKey = String(repeating: "2a", count: 32)
            let publicKey = "07aaff3e9fc167275544f4c3a6a17cd837f2ec6e78cd8a57b1e3dfb3cc035a76"
            let ours = try await platform.custodian(["vault", "seal", "--public-key", publicKey, "--message", #"{"a":1}"#])
            let opened = try await platform.custodian(["vault", "open", "--secret-key", secretKey, "--record", ours.output])
            #expect(opened.output == #"{"a":1}"# + "\n", "\(ours.output) \(opened.output)")
        }

        @Test func bootstrapRefusesWhenAnAdminTokenExistsAndCreateTokenMintsAWorkingOne() async throws {
            let url = try platform.adminDatabaseURL
            let bootstrap = try await platform.custodian(["admin", "bootstrap", "--database-url", url])
            #expect(bootstrap.status != 0)
            #expect(bootstrap.output.contains("an admin token exists already"))
            let created = try await platform.custodian([
                "admin", "create-token", "--database-url", url, "--label", "integration", "--scope", "operator",
            ])
            #expect(created.status == 0, "\(created.output)")
            let token = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(token.count == 43)
            let reply = try await platform.request(.POST, "/account", json: "{}", headers: [("Authorization", "Bearer \(token)")])
            #expect(reply.status == 200)
            #expect(try platform.sql("SELECT label FROM auth.admin_tokens WHERE token_hash = sha256('\(token)'::bytea)") == "integration")

            // Beside a running `custodian up`, the database it started is found without a URL: up wrote it down, 0600.
            let written = try platform.dataDirectory + "/admin-database.url"
            #expect(try String(contentsOfFile: written, encoding: .utf8) == url)
            #expect((try FileManager.default.attributesOfItem(atPath: written)[.posixPermissions] as? Int) == 0o600)
            let found = try await platform.custodian([
                "admin", "create-token", "--data-dir", try platform.dataDirectory, "--label", "found", "--scope", "operator",
            ])
            #expect(found.status == 0, "\(found.output)")
            let foundToken = found.output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try await platform.request(.POST, "/account", json: "{}", headers: [("Authorization", "Bearer \(foundToken)")]).status == 200)
            let nowhere = try await platform.custodian([
                "admin", "create-token", "--scope", "researcher", "--data-dir", "/tmp/cit-nowhere-\(UUID().uuidString.prefix(8))",
            ])
            #expect(nowhere.status != 0 && nowhere.output.contains("admin-database.url"), "\(nowhere.output)")
        }
    }
}

extension PlatformTests {
    /// On one host the gateway and a service work on each call at once: `custodian up` gives each process half the
    /// cores' event loops (docs/operations.md), and each process runs as many as it is told.
    @Test(arguments: ["gateway", "devices", "vault"])
    func eachProcessRunsTheEventLoopsUpGivesIt(process: String) throws {
        let pid = try platform.pid(of: process)
        let environment = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ")).split(separator: 0).map {
            String(decoding: $0, as: UTF8.self)
        }
        let given = try #require(environment.first { $0.hasPrefix("CUSTODIAN_EVENT_LOOPS=") }).dropFirst("CUSTODIAN_EVENT_LOOPS=".count)
        // NIO's count, as `custodian up` reads it: a container's CPU limit, not only the cores it may run on.
        #expect(Int(given) == max(1, System.coreCount / 2))
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").filter { task in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?.hasPrefix("NIO-SGLTN-") == true
        }
        #expect(threads.count == Int(given), "\(process) runs \(threads.count) event loops")
    }
}

/// Kills a service under `custodian up` and watches the platform answer 503 and then recover on its own.
/// A suite of its own, with its own platform, so that other tests never see the outage.
@Suite("Recovery from a dead service", .runningPlatform(restartDelay: 10))
struct RecoveryTests {
    @Test func aKilledServiceGives503sUntilTheSupervisorRestartsIt() async throws {
        let platform = try platform
        let before = try await platform.request(.POST, "/account", json: "{}", admin: true)
        #expect(before.status == 200)

        kill(try platform.pid(of: "devices"), SIGKILL)
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        let during = try await platform.request(.POST, "/account", json: "{}", admin: true)
        // A hang would last until the gateway's 10 s deadline; the bound leaves room for a loaded CI machine.
        let waited = ContinuousClock.now - started
        print("503 for a dead service after \(waited)")
        #expect(waited < .seconds(5), "a dead service must fail fast, not hang until the deadline")
        #expect(during.status == 503)
        #expect(during.headers.first(name: "Retry-After") == "1")
        #expect(during.json?["detail"] as? String == "The devices service is temporarily unavailable")
        let notReady = try await platform.request(.GET, "/readyz")
        #expect(notReady.status == 503)

        // `custodian up` restarts it (after the 10 s delay this suite asks for: longer than the whole suite beside it
        // has stalled this process for, so that the answers above surely come while it is down).
        let deadline = ContinuousClock.now + .seconds(30)
        var after = during
        while after.status != 200 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(250))
            after = try await platform.request(.POST, "/account", json: "{}", admin: true)
        }
        #expect(after.status == 200, "the platform did not recover: \(after.text)")
        #expect(platform.output.contains("devices    restarted"))
    }
}
