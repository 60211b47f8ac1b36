import CustodianHTTP
import CustodianJSON
import CustodianLemon
import CustodianRPC
import Foundation
import LemonClient
import NIOHTTP1
import Testing

/// The platform probed as an attacker would (issue 10): numbers that do not fit, NUL characters, broken HTTP,
/// floods of guesses, a stolen database dump. Every answer is a 4xx in the route's API style, no process is
/// restarted, no log line quotes what the client sent.
@Suite("Hostile input", .runningPlatform)
struct HostileInputTests {
    typealias Twomes = PlatformTests.TwomesProvisioning
    typealias Vault = PlatformTests.Vault

    static func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

    @Test func noNumberOrTimeAClientSendsTrapsAProcess() async throws {
        let platform = try platform
        let before = try platform.processIDs()
        let device = try await Twomes.provision()
        let session = try #require(
            try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"\#(device.deviceToken)"}"#).json?["session_token"]
                as? String)
        let upload = Self.bearer(session)
        func fixed(_ timestamp: String, _ interval: String, count: Int = 2) -> String {
            let values = (0..<count).map { "\"\($0)\"" }.joined(separator: ",")
            return
                #"{"upload_time":1700000000,"property_measurements":[{"property_name":"heartbeat","timestamp":\#(timestamp),"timestamp_type":"start","interval":\#(interval),"measurements":[\#(values)]}]}"#
        }
        func variable(uploadTime: String = "1700000000", _ timestamp: String) -> String {
            #"{"upload_time":\#(uploadTime),"property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":\#(timestamp),"value":"1"}]}]}"#
        }
        let digits400 = "\"" + String(repeating: "9", count: 400) + "\""
        let twomesCases: [(String, String)] = [
            // The request that took `devices` down: an interval past Int64 with two measurements.
            ("fixed-interval", fixed("1700000000", "9223372036854775808")),
            ("fixed-interval", fixed("1700000000", "1e308")),
            ("fixed-interval", fixed("1700000000", #""P99999999999D""#)),
            ("fixed-interval", fixed("1700000000", "-5")),
            ("fixed-interval", fixed("1700000000", "0")),
            // 31-day steps from near 2100 run past it.
            ("fixed-interval", fixed("4102000000", "2678400", count: 3)),
            ("fixed-interval", fixed("18446744073709551616", "60")),
            ("variable-interval", variable("1e300")),
            ("variable-interval", variable(digits400)),
            ("variable-interval", variable("-1000000000000000000")),
            ("variable-interval", variable(#""99999-01-01T00:00:00Z""#)),
            ("variable-interval", variable(#""2101-01-01T00:00:00Z""#)),
            ("variable-interval", variable(uploadTime: "-62135596800", "1700000000")),
            ("variable-interval", variable(uploadTime: digits400, "1700000000")),
        ]
        // One character of a letter and 2000 combining marks: 2001 code points, over the 1024 a value may have.
        let combining = "e" + String(repeating: "\u{0301}", count: 2000)
        #expect(combining.count == 1)
        let longValue = try await platform.request(
            .POST, "/device/measurements/variable-interval",
            json:
                #"{"upload_time":1700000000,"property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":1700000000,"value":"\#(combining)"}]}]}"#,
            headers: upload)
        #expect(longValue.status == 422 && longValue.text.contains("ensure this value has at most 1024 characters"), "\(longValue.text.prefix(300))")
        for (route, body) in twomesCases {
            let reply = try await platform.request(.POST, "/device/measurements/\(route)", json: body, headers: upload)
            #expect((400..<500).contains(reply.status), "\(route) \(body.prefix(200)): \(reply.status) \(reply.text)")
            #expect(reply.json?["detail"] != nil, "\(reply.text)")
        }

        // OpenSense: a datetime that reads as a year no one lives in.
        let deviceID = UUID().uuidString
        #expect(try await platform.request(.POST, "/register", json: #"{"device_id":"\#(deviceID)"}"#).status == 200)
        for datetime in ["0999-01-01 10:00", "1969-12-31 23:59", "2101-01-01 00:00"] {
            let data = #"[{"probe":"p","datetime":"\#(datetime)"}]"#
            let body = #"{"device_id":"\#(deviceID)","data":\#(JSONValue.string(data).jsonText),"file_hash":"\#(PlatformTests.OpenSense.md5(data))"}"#
            let reply = try await platform.request(.POST, "/upload", json: body)
            #expect(reply.status == 400, "\(datetime): \(reply.text)")
            #expect(reply.text == #"{"error":"data entry 0 has a datetime outside 1970–2100"}"# + "\n")
        }

        // Query numbers that do not fit, on researcher and vault routes.
        let account = try await Vault.newUser()
        let queries: [(String, Bool)] = [
            ("/admin/v1/measurements?from=1e400&to=-99999999999999999999", true),
            ("/admin/v1/measurements?from=\(String(repeating: "9", count: 400))", true),
            ("/admin/v1/accounts?limit=9223372036854775808", true),
            ("/admin/v1/accounts?limit=-1", true),
            ("/admin/v1/opensense/batches?from=1e400", true),
            ("/admin/v1/qr?data=x&size=99999999999999999999", true),
            ("/admin/v1/qr?data=x&scale=1e10", true),
            ("/admin/v1/statistics/submissions?from=99999-01-01", true),
            ("/admin/v1/accounts?after=99999999999999999999", true),
            ("/api/repos/oyd.location/items?last=99999999999999999999", false),
            ("/api/repos/oyd.location/items?last_days=9223372036854775807", false),
        ]
        for (path, admin) in queries {
            let reply = try await platform.request(.GET, path, headers: admin ? [] : Self.bearer(account.token), admin: admin)
            #expect((400..<500).contains(reply.status), "\(path): \(reply.status) \(reply.text)")
        }
        let link = try await platform.request(.POST, "/admin/v1/links", json: #"{"app_url":"app://x","ttl_seconds":1e300}"#, admin: true)
        #expect((400..<500).contains(link.status), "\(link.text)")

        // The tracing app's survey: an age and dates no one has.
        let client = try await PlatformTests.Lemon.client()
        let lemon = try await client.register(LemonApp.generate())
        for survey in [
            #"{"Status":"Positive","Age":1e308}"#, #"{"Status":"Positive","Age":9223372036854775808}"#,
            #"{"Status":"Positive","PositiveTestDate":"99999-03-29 13:00:09"}"#,
        ] {
            let reply = try await client.call(.POST, "/api/v1/submission/covid", body: Data(survey.utf8), session: lemon)
            #expect(reply.status == 400 && reply.wasEncrypted, "\(survey): \(reply.status) \(reply.envelope.message ?? "")")
        }

        #expect(try platform.processIDs() == before, "a process was restarted")
    }

    @Test func aNULCharacterIsA400InTheRoutesStyleOnEveryKindOfRoute() async throws {
        let platform = try platform
        let device = try await Twomes.provision()
        let deviceSession = try #require(
            try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"\#(device.deviceToken)"}"#).json?["session_token"]
                as? String)
        let vaultUser = try await Vault.newUser()
        let message = "The request contains a NUL character (U+0000), which no field may hold"
        let formHeader = [("Content-Type", "application/x-www-form-urlencoded")]
        // (method, path, body, headers, admin, style)
        let cases: [(HTTPMethod, String, String?, [(String, String)], Bool, String)] = [
            (.POST, "/register", "device_id=a%00b", formHeader, false, "opensense"),
            (.POST, "/upload", "device_id=x&data=%00&file_hash=00000000000000000000000000000000", formHeader, false, "opensense"),
            (.POST, "/oauth/token", "grant_type=password&email=a%00@b.c&password=x", formHeader, false, "oyd"),
            (.POST, "/account/activate", #"{"activation_token":"abc\u0000defgh"}"#, [], false, "twomes"),
            (.POST, "/device/activate", #"{"activation_token":"abc\u0000defgh"}"#, [], false, "twomes"),
            (
                .POST, "/device/measurements/variable-interval",
                #"{"upload_time":1700000000,"property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":1700000000,"value":"a\u0000"}]}]}"#,
                Self.bearer(deviceSession), false, "twomes"
            ),
            (.GET, "/device/%00", nil, Self.bearer(device.accountSession), false, "twomes"),
            (.GET, "/device_type/%00", nil, Self.bearer(device.accountSession), false, "twomes"),
            (.POST, "/account", #"{"timezone":"Europe/\u0000"}"#, [], true, "twomes"),
            (.GET, "/admin/v1/accounts?pseudonym=%00", nil, [], true, "admin"),
            (.POST, "/admin/v1/vault/users", #"{"email":"x@y.z","name":"\u0000","password":"secret-pw"}"#, [], true, "admin"),
            (.POST, "/admin/v1/api-consumers", #"{"name":"app\u0000"}"#, [], true, "admin"),
            (.PUT, "/admin/v1/statistics/countries/%00", #"{"name":"x"}"#, [], true, "admin"),
            (.POST, "/api/repos/oyd.location/items", #"{"\u0000":1}"#, Self.bearer(vaultUser.token), false, "oyd"),
            (.POST, "/api/v1/devices", #"{"AppId":"app\u0000-1234567"}"#, [], false, "lemon"),
            (.GET, "/l/%00", nil, [], false, "admin"),
        ]
        for (method, path, body, headers, admin, style) in cases {
            let reply = try await platform.request(method, path, rawBody: body.map { Data($0.utf8) }, headers: headers, admin: admin)
            #expect(reply.status == 400, "\(method) \(path): \(reply.status) \(reply.text)")
            let json = reply.json
            switch style {
            case "twomes": #expect(json?["detail"] as? String == message, "\(path): \(reply.text)")
            case "opensense": #expect(json?["error"] as? String == message, "\(path): \(reply.text)")
            case "oyd":
                #expect(json?["error"] as? String == "nul_character" && json?["error_description"] as? String == message, "\(path): \(reply.text)")
            case "lemon": #expect((json?["meta"] as? [String: Any])?["message"] as? String == message, "\(path): \(reply.text)")
            default: #expect((json?["error"] as? [String: Any])?["reason"] as? String == "nul_character", "\(path): \(reply.text)")
            }
        }
        // Inside a sealed payload too, where only the gateway can look: a sealed 400.
        let client = try await PlatformTests.Lemon.client()
        let lemon = try await client.register(LemonApp.generate())
        let sealed = try await client.call(.POST, "/api/v1/devices/push_token", body: Data(#"{"pushToken":"push\u0000-token"}"#.utf8), session: lemon)
        #expect(sealed.status == 400 && sealed.wasEncrypted && sealed.envelope.message == message)
    }

    /// A head that cannot be read gets the 400 every refusal gets: JSON in the style of its path, with a request id.
    @Test func aHeadTooLongOrNotHTTPIsA400InItsRoutesStyle() async throws {
        let platform = try platform
        for (request, body) in [
            (
                "GET /admin/v1/device-labels?name=\(String(repeating: "a", count: 17_000)) HTTP/1.1\r\nHost: custodian\r\n\r\n",
                #"{"error":{"message":"The request line and headers exceed 16384 bytes","reason":"header_too_large"}}"#
            ),
            (
                "GET /device/x HTTP/1.1\r\nHost: custodian\r\nX-Padding: \(String(repeating: "b", count: 17_000))\r\n\r\n",
                #"{"detail":"The request line and headers exceed 16384 bytes"}"#
            ),
            (
                "GET /oauth/token HTTP/1.1\r\nHost custodian\r\n\r\n",
                #"{"error":"malformed_http","error_description":"The request is not valid HTTP/1.1"}"#
            ),
        ] {
            let connection = try await RawConnection.open(to: platform)
            defer { connection.close() }
            try await connection.send(request)
            #expect(try await connection.wait(upTo: .seconds(10)) { $0.closedAt != nil })
            let text = connection.text
            #expect(text.hasPrefix("HTTP/1.1 400 "), "\(text.prefix(300))")
            #expect(
                text.lowercased().contains("x-request-id: ") && text.lowercased().contains("content-type: application/json"), "\(text.prefix(300))")
            #expect(text.hasSuffix("\r\n\r\n" + body + "\n"), "\(text.prefix(400))")
        }
    }

    @Test func aBrokenChunkedBodyIsA400AndTheConnectionCloses() async throws {
        let platform = try platform
        let connection = try await RawConnection.open(to: platform)
        defer { connection.close() }
        try await connection.send("POST /account/activate HTTP/1.1\r\nHost: custodian\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
        #expect(try await connection.wait(upTo: .seconds(10)) { $0.closedAt != nil })
        #expect(connection.text.hasPrefix("HTTP/1.1 400 "), "\(connection.text)")
        #expect(connection.text.contains(#"{"detail":"The request is not valid HTTP/1.1"}"#), "\(connection.text)")
    }

    /// PostgreSQL quotes the values it refuses; the logs must not. A value only the database refuses is sent to
    /// a service directly (the gateway refuses NUL characters before any service sees them).
    @Test func logsCarryNoClientData() async throws {
        let platform = try platform
        let canary = "CANARY-\(UUID().uuidString)"
        _ = try await platform.request(
            .POST, "/oauth/token", rawBody: Data("grant_type=password&email=\(canary)&password=\(canary)".utf8),
            headers: [("Content-Type", "application/x-www-form-urlencoded")])
        _ = try await platform.request(.POST, "/register", json: #"{"device_id":"\#(canary)\u0000"}"#)
        _ = try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"\#(canary)"}"#)
        _ = try await platform.request(.GET, "/admin/v1/measurements?from=\(canary)", admin: true)
        await #expect(throws: RPCError.badRequest("A value in the request cannot be stored", reason: "unstorable_value")) {
            _ = try await platform.call(
                "auth", "auth.oauth.token",
                input: HTTPInput(body: ["grant_type": "password", "email": .string(canary + "\u{0}"), "password": "x"]),
                principal: nil, as: JSONValue.self)
        }
        try await Task.sleep(for: .milliseconds(300))
        let logs = platform.logs()
        #expect(logs.contains("database refused a value"), "the refusal is logged")
        #expect(!logs.contains(canary), "a log line quotes the client's data")
    }

    @Test func passwordGuessesAreCheckedFiveAtATimeHoweverManyArriveAtOnce() async throws {
        let account = try await Vault.newUser()
        let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for _ in 0..<64 {
                group.addTask {
                    let reply = try await Vault.login(account.email, "wrong-guess")
                    return (reply.status, reply.headers.first(name: "Retry-After"))
                }
            }
            var all: [(Int, String?)] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(statuses.filter { $0.0 == 401 }.count == 5, "verified: \(statuses.map(\.0))")
        let refused = statuses.filter { $0.0 == 429 }
        #expect(refused.count == 59)
        #expect(refused.allSatisfy { ($0.1.flatMap(Int.init) ?? 0) > 0 }, "every 429 says when to come back")
        // And the right password waits for the lock as well.
        let owner = try await Vault.login(account.email, account.password)
        #expect(owner.status == 429 && (owner.headers.first(name: "Retry-After").flatMap(Int.init) ?? 0) > 60)
    }

    /// Rows of a megabyte, sent by clients: an export page and a vault page could outgrow the 8 MiB RPC frame
    /// and take the connection with them. An export ends its page early instead; a vault page says to ask for fewer.
    @Test func largeRowsComeInPagesThatFitAFrame() async throws {
        let platform = try platform
        let deviceID = UUID().uuidString
        #expect(try await platform.request(.POST, "/register", json: #"{"device_id":"\#(deviceID)"}"#).status == 200)
        let blob = String(repeating: "x", count: 900_000)
        for index in 0..<10 {
            let data = #"[{"probe":"p\#(index)","datetime":"2020-01-01 00:00","blob":"\#(blob)"}]"#
            let body = #"{"device_id":"\#(deviceID)","data":\#(JSONValue.string(data).jsonText),"file_hash":"\#(PlatformTests.OpenSense.md5(data))"}"#
            let upload = try await platform.request(.POST, "/upload", json: body)
            #expect(upload.status == 200, "\(upload.text.prefix(200))")
        }
        let export = try await platform.request(.GET, "/admin/v1/opensense/batches?device_id=\(deviceID)&format=ndjson", admin: true)
        #expect(export.status == 200)
        #expect(export.text.split(separator: "\n").count == 10, "every batch, over several pages")

        let user = try await Vault.newUser()
        let record = #"{"note":"\#(String(repeating: "y", count: 63 * 1024))"}"#
        for _ in 0..<5 {
            let batch = "[" + Array(repeating: record, count: 14).joined(separator: ",") + "]"
            let written = try await platform.request(.POST, "/api/repos/big.notes/items", rawBody: Data(batch.utf8), headers: Self.bearer(user.token))
            #expect(written.status == 200, "\(written.text.prefix(200))")
        }
        let tooMuch = try await platform.request(.GET, "/api/repos/big.notes/items?size=100", headers: Self.bearer(user.token))
        #expect(tooMuch.status == 400 && tooMuch.json?["error"] as? String == "page_too_large", "\(tooMuch.text.prefix(300))")
        #expect((tooMuch.json?["error_description"] as? String)?.contains("size=") == true)
        let fits = try await platform.request(.GET, "/api/repos/big.notes/items?size=50", headers: Self.bearer(user.token))
        #expect(fits.status == 200)
        #expect((try JSONSerialization.jsonObject(with: fits.body) as? [Any])?.count == 50)
    }

    /// A stolen backup forges and decrypts nothing: no secret is in it in a usable form.
    @Test func aDatabaseDumpHoldsNoUsableSecret() async throws {
        let platform = try platform
        var secrets: [String: String] = ["admin token": platform.adminToken]
        let account = try await platform.request(.POST, "/account", json: "{}", admin: true)
        secrets["account activation token"] = try #require(account.json?["activation_token"] as? String)
        let device = try await Twomes.provision()
        secrets["device activation token"] = device.deviceToken
        secrets["account session token"] = device.accountSession
        secrets["device session token"] = try #require(
            try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"\#(device.deviceToken)"}"#).json?["session_token"]
                as? String)
        let consumer = try await platform.request(.POST, "/admin/v1/api-consumers", json: #"{"name":"dump test"}"#, admin: true)
        secrets["consumer secret"] = try #require(consumer.json?["consumer_secret"] as? String)
        let user = try await Vault.newUser()
        let module = try await Vault.install(user, repo: "oyd.location", read: true, write: true)
        secrets["module secret"] = module.secret
        secrets["vault access token"] = user.token
        let openSenseDevice = UUID().uuidString
        secrets["OpenSense key"] = try #require(
            try await platform.request(.POST, "/register", json: #"{"device_id":"\#(openSenseDevice)"}"#).json?["key"] as? String)
        let client = try await PlatformTests.Lemon.client()
        let lemon = try await client.register(LemonApp.generate())
        secrets["LEMON access token"] = lemon.accessToken
        secrets["LEMON session encryption key"] = Data(lemon.keys.encryption).base64EncodedString()
        secrets["LEMON session MAC key"] = Data(lemon.keys.authentication).base64EncodedString()
        secrets["sealing key"] = try String(contentsOfFile: platform.dataDirectory + "/secrets/sealing-key", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)

        let dump = try platform.databaseDump()
        #expect(dump.contains("signing_keys") && dump.contains("lemon_sessions"), "the dump holds the tables")
        for (name, secret) in secrets.sorted(by: { $0.key < $1.key }) {
            let decoded = Data(base64Encoded: secret).map { [$0.map { String(format: "%02x", $0) }.joined()] } ?? []
            let forms = RunningPlatform.dumpForms(of: secret) + decoded
            for form in forms { #expect(!dump.contains(form), "the \(name) is in the dump") }
        }
        #expect(!dump.contains("PRIVATE KEY"), "a private key is in the dump in the clear")
        #expect(try platform.sql("SELECT count(*) FROM auth.signing_keys WHERE private_key_pem IS NOT NULL") == "0")
        #expect(try platform.sql("SELECT count(*) FROM auth.signing_keys WHERE private_key_sealed IS NOT NULL") != "0")
    }
}

extension OneAtATime {
    /// PostgreSQL stopped under a running platform: 503 with Retry-After in each API's style, soon, and the
    /// platform heals by itself once the database is back. A suite of its own, so that no other test sees the outage.
    @Suite("Database outage", .runningPlatform)
    struct DatabaseOutageTests {
        @Test func requestsGet503WithRetryAfterWhileTheDatabaseIsDownAndSucceedOnceItIsBack() async throws {
            let platform = try platform
            let device = try await PlatformTests.TwomesProvisioning.provision()
            let session = try #require(
                try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"\#(device.deviceToken)"}"#).json?["session_token"]
                    as? String)
            let before = try platform.processIDs()
            @Sendable func heartbeat(_ second: Int) async throws -> RunningPlatform.Reply {
                try await platform.request(
                    .POST, "/device/measurements/variable-interval",
                    json:
                        #"{"upload_time":1700000000,"property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":\#(1_700_000_000 + second),"value":"1"}]}]}"#,
                    headers: [("Authorization", "Bearer \(session)")])
            }
            #expect(try await heartbeat(0).status == 200)

            try platform.stopDatabase()
            let requests: [(String, @Sendable () async throws -> RunningPlatform.Reply)] = [
                ("twomes upload", { try await heartbeat(1) }),
                ("admin list", { try await platform.request(.GET, "/admin/v1/accounts", admin: true) }),
                ("vault login", { try await PlatformTests.Vault.login("someone@example.org", "pw") }),
                ("opensense register", { try await platform.request(.POST, "/register", json: #"{"device_id":"\#(UUID().uuidString)"}"#) }),
                (
                    "account activation",
                    { try await platform.request(.POST, "/account/activate", json: #"{"activation_token":"\#(UUID().uuidString)"}"#) }
                ),
                ("statistics list", { try await platform.request(.GET, "/admin/v1/statistics/countries", admin: true) }),
            ]
            for (name, request) in requests {
                let started = ContinuousClock.now
                let reply = try await request()
                let waited = ContinuousClock.now - started
                print("\(name) during the outage: \(reply.status) after \(waited)")
                #expect(reply.status == 503, "\(name): \(reply.status) \(reply.text)")
                #expect((reply.headers.first(name: "Retry-After").flatMap(Int.init) ?? 0) > 0, "\(name) says when to come back")
                #expect(reply.text.contains("The database is temporarily unavailable"), "\(name): \(reply.text)")
                // 1.5 s of waiting for a connection, with room for a loaded machine; the gateway's deadline is 10 s.
                #expect(waited < .seconds(5), "\(name) waited \(waited)")
            }

            try platform.startDatabase()
            let restarted = ContinuousClock.now
            var second = 2
            var reply = try await heartbeat(second)
            while reply.status != 200 && ContinuousClock.now - restarted < .seconds(60) {
                try await Task.sleep(for: .milliseconds(250))
                second += 1
                reply = try await heartbeat(second)
            }
            print("uploads succeed again \(ContinuousClock.now - restarted) after the database started")
            #expect(reply.status == 200, "\(reply.text)")
            // Another service's pool may still hold a connection the restart cut: the query that meets it is answered 503
            // with Retry-After (docs/operations.md) and the pool replaces it, so a client that retries gets through.
            var accounts = try await platform.request(.GET, "/admin/v1/accounts", admin: true)
            for _ in 0..<20 where accounts.status == 503 {
                try await Task.sleep(for: .milliseconds(500))
                accounts = try await platform.request(.GET, "/admin/v1/accounts", admin: true)
            }
            #expect(accounts.status == 200, "\(accounts.text)")
            #expect(try platform.processIDs() == before, "a process was restarted")
        }
    }
}

/// The gateway's limits with their defaults, and a short header timeout and a small connection cap so that the
/// tests are quick. The client's address comes from `X-Forwarded-For` (the test client is a trusted proxy), so
/// each test floods from addresses of its own.
@Suite(
    "Edge limits", .serialized,
    .runningPlatform(settings: [
        "CUSTODIAN_TRUSTED_PROXIES": "127.0.0.1", "CUSTODIAN_HTTP_HEADER_TIMEOUT": "2s", "CUSTODIAN_HTTP_BODY_TIMEOUT": "2s",
        "CUSTODIAN_HTTP_IDLE_TIMEOUT": "3s", "CUSTODIAN_HTTP_MAX_CONNECTIONS": "60",
    ]))
struct EdgeLimitTests {
    static func from(_ address: String) -> [(String, String)] { [("X-Forwarded-For", address)] }

    @Test func wrongAdminTokensAreSlowedDownAndCounted() async throws {
        let platform = try platform
        var statuses: [Int: Int] = [:]
        var lastRefusal: RunningPlatform.Reply?
        let started = ContinuousClock.now
        for index in 0..<500 {
            let reply = try await platform.request(
                .GET, "/admin/v1/accounts", headers: Self.from("10.1.0.1") + [("Authorization", "Bearer wrong-\(index)")])
            statuses[reply.status, default: 0] += 1
            if reply.status == 429 { lastRefusal = reply }
        }
        // 20 failures at once, then one more every 3 s while the loop runs (longer on a slow machine).
        let refills = Int((ContinuousClock.now - started) / .seconds(3))
        let failures = statuses[401, default: 0]
        #expect((20...(21 + refills)).contains(failures), "\(statuses) in \(refills * 3)+ s")
        #expect(statuses[429, default: 0] == 500 - failures, "\(statuses)")
        let refusal = try #require(lastRefusal)
        #expect((refusal.headers.first(name: "Retry-After").flatMap(Int.init) ?? 0) > 0)
        #expect((refusal.json?["error"] as? [String: Any])?["reason"] as? String == "rate_limited")
        // The real token from the same address waits too; from another address it works.
        #expect(try await platform.request(.GET, "/admin/v1/accounts", headers: Self.from("10.1.0.1"), admin: true).status == 429)
        #expect(try await platform.request(.GET, "/admin/v1/accounts", headers: Self.from("10.1.0.2"), admin: true).status == 200)
        let metrics = try await platform.request(.GET, "/metrics").text
        #expect(metrics.contains(#"custodian_rate_limited_total{class="standard",bucket="auth_failures"} \#(500 - failures + 1)"#), "\(metrics)")
    }

    /// The number of the first request `send` makes that is refused with 429 (nil: none of `limit`).
    static func firstRefusal(of limit: Int, _ send: (Int) async throws -> Int) async throws -> Int? {
        for index in 1...limit where try await send(index) == 429 { return index }
        return nil
    }

    @Test func credentialRoutesAreTightPerAddressAndPerAccount() async throws {
        let platform = try platform
        // 60 at once, then one a second: the 61st is refused, or one later for each second the requests took.
        let started = ContinuousClock.now
        let registration = try await Self.firstRefusal(of: 120) { _ in
            try await platform.request(.POST, "/register", json: #"{"device_id":"\#(UUID().uuidString)"}"#, headers: Self.from("10.2.0.1")).status
        }
        let refills = Int((ContinuousClock.now - started) / .seconds(1))
        #expect((61...(62 + refills)).contains(registration ?? 0), "first refusal: \(registration.map(String.init) ?? "none") after \(refills)+ s")
        // One account guessed at from many addresses: the account's own bucket (10 a minute) holds.
        let guess = try await Self.firstRefusal(of: 20) { index in
            try await platform.request(
                .POST, "/oauth/token", rawBody: Data("grant_type=client_credentials&client_id=guessed-module&client_secret=\(index)".utf8),
                headers: Self.from("10.2.1.\(index)") + [("Content-Type", "application/x-www-form-urlencoded")]
            ).status
        }
        #expect(guess == 11, "first refusal: \(guess.map(String.init) ?? "none")")
    }

    @Test func healthReadinessAndMetricsAreNeverLimited() async throws {
        let platform = try platform
        for path in ["/healthz", "/metrics"] {
            for _ in 0..<200 { #expect(try await platform.request(.GET, path, headers: Self.from("10.1.0.1")).status == 200) }
        }
    }

    @Test func halfSentRequestsAreAnswered408AndClosed() async throws {
        let platform = try platform
        var connections: [RawConnection] = []
        for _ in 0..<20 {
            let connection = try await RawConnection.open(to: platform)
            try await connection.send("POST /account/activate HTTP/1.1\r\nHost: custodian\r\nContent-Le")
            connections.append(connection)
        }
        let started = ContinuousClock.now
        for connection in connections {
            #expect(try await connection.wait(upTo: .seconds(15)) { $0.closedAt != nil }, "a half-sent request stayed open")
            #expect(connection.text.hasPrefix("HTTP/1.1 408 Request Timeout"), "\(connection.text)")
        }
        print("20 half-sent requests closed \(ContinuousClock.now - started) after the last was sent (header timeout 2 s)")
        let metrics = try await platform.request(.GET, "/metrics").text
        #expect(metrics.contains(#"custodian_http_connections_closed_total{reason="header_timeout"}"#))
    }

    @Test func aBodyThatStopsComingAndAnIdleConnectionAreClosed() async throws {
        let platform = try platform
        let slowBody = try await RawConnection.open(to: platform)
        defer { slowBody.close() }
        try await slowBody.send("POST /account/activate HTTP/1.1\r\nHost: custodian\r\nContent-Length: 100\r\n\r\n{\"activation")
        let idle = try await RawConnection.open(to: platform)
        defer { idle.close() }
        try await idle.send("GET /healthz HTTP/1.1\r\nHost: custodian\r\n\r\n")
        let started = ContinuousClock.now
        #expect(try await slowBody.wait(upTo: .seconds(15)) { $0.closedAt != nil }, "a body that stopped coming kept its connection")
        #expect(try await idle.wait(upTo: .seconds(15)) { $0.closedAt != nil }, "an idle connection stayed open")
        #expect(idle.text.hasPrefix("HTTP/1.1 200 OK"), "the request was answered first")
        print("stalled body closed after \((slowBody.closedAt ?? .now) - started), idle connection after \((idle.closedAt ?? .now) - started)")
        let metrics = try await platform.request(.GET, "/metrics").text
        #expect(metrics.contains(#"custodian_http_connections_closed_total{reason="body_timeout"}"#))
        #expect(!metrics.contains(#"custodian_http_connections_closed_total{reason="idle_timeout"} 0"#))
    }

    @Test func aHeadOverTheHeaderSizeLimitIsRefused() async throws {
        let platform = try platform
        let connection = try await RawConnection.open(to: platform)
        defer { connection.close() }
        try await connection.send("GET /healthz HTTP/1.1\r\nHost: custodian\r\nX-Padding: \(String(repeating: "a", count: 20_000))\r\n\r\n")
        #expect(try await connection.wait(upTo: .seconds(10)) { $0.closedAt != nil })
        #expect(connection.text.hasPrefix("HTTP/1.1 400 "), "\(connection.text.prefix(200))")
        // Just under the limit is fine.
        #expect(try await platform.request(.GET, "/healthz", headers: [("X-Padding", String(repeating: "a", count: 12_000))]).status == 200)
    }

    @Test func connectionsBeyondTheCapAreClosedAtOnce() async throws {
        let platform = try platform
        var connections: [RawConnection] = []
        defer { for connection in connections { connection.close() } }
        for _ in 0..<80 { connections.append(try await RawConnection.open(to: platform)) }
        try await Task.sleep(for: .milliseconds(500))
        let closed = connections.filter { $0.closedAt != nil }.count
        #expect(closed >= 20, "\(closed) of 80 connections were closed with a cap of 60")
        #expect(closed <= 80 - 55, "\(closed) closed: the cap is 60")
        for connection in connections { connection.close() }
        connections.removeAll()
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await platform.request(.GET, "/healthz").status == 200, "the gateway serves again once connections close")
    }
}

private extension JSONValue {
    /// The value as JSON text, for building bodies.
    var jsonText: String {
        String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self)
    }
}
