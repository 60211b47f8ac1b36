import Crypto
import Foundation
import NIOHTTP1
import Testing

extension PlatformTests {
    /// The OpenSense app's cycle (docs/opensense.md): register, fetch the configuration, upload batches.
    @Suite("OpenSense register, config and upload")
    struct OpenSense {
        static func form(_ fields: [(String, String)]) -> Data {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            return Data(fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&").utf8)
        }

        static func post(_ path: String, _ fields: [(String, String)]) async throws -> RunningPlatform.Reply {
            try await platform.request(.POST, path, rawBody: form(fields), headers: [("Content-Type", "application/x-www-form-urlencoded")])
        }

        static func md5(_ text: String) -> String {
            Insecure.MD5.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
        }

        static let batches =
            #"[{"probe":"dk.dtu.imm.sensible.battery","datetime":"2013-06-01 12:30","level":0.8},{"probe":"dk.dtu.imm.sensible.location","datetime":"2013-06-01 12:31","lat":55.78,"lon":12.52}]"#

        @Test func registrationGivesAKeyOnceAndAResearcherCanRecoverIt() async throws {
            let platform = try platform
            let deviceID = UUID().uuidString
            let registered = try await Self.post("/register", [("device_id", deviceID)])
            #expect(registered.status == 200, "\(registered.text)")
            let key = try #require(registered.json?["key"] as? String)
            #expect(key.count == 40)
            #expect(key.allSatisfy { "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@#$%".contains($0) })
            #expect(zip(key, key.dropFirst()).allSatisfy { $0 != $1 }, "no character repeats the one before (docs/opensense.md, POST /register)")
            // The key is kept sealed, never in clear.
            #expect(try platform.rows(of: "devices.opensense_devices", holding: key, in: "key_sealed") == 0)

            let again = try await Self.post("/register", [("device_id", deviceID)])
            #expect(again.status == 409)
            #expect(again.text == #"{"error":"Device already registered"}"# + "\n")

            let recovered = try await platform.request(.GET, "/admin/v1/opensense/devices/\(deviceID)/key", admin: true)
            #expect(recovered.json?["key"] as? String == key)
            #expect(try await platform.request(.GET, "/admin/v1/opensense/devices/\(deviceID)/key").status == 401)
            #expect(try await platform.request(.GET, "/admin/v1/opensense/devices/nobody/key", admin: true).status == 404)

            let missing = try await Self.post("/register", [])
            #expect(missing.status == 400)
            #expect(missing.text == #"{"error":"Missing device_id parameter"}"# + "\n")
            // Control characters are not printable: nobody could read such an id back off a list.
            for id in ["a\u{1}b", "a\u{7F}", "tab\there", "é"] {
                let refused = try await platform.request(
                    .POST, "/register", json: "{\"device_id\":\(String(decoding: try JSONEncoder().encode(id), as: UTF8.self))}")
                #expect(
                    refused.status == 400 && refused.text == #"{"error":"device_id must be at most 128 printable ASCII characters"}"# + "\n",
                    "\(id): \(refused.text)")
            }
            // JSON bodies work too.
            let json = try await platform.request(.POST, "/register", json: #"{"device_id":"\#(UUID().uuidString)"}"#)
            #expect(json.status == 200)
        }

        @Test func theConfigurationIsListing31UntilAResearcherReplacesIt() async throws {
            let platform = try platform
            let config = try await platform.request(.GET, "/config")
            #expect(config.status == 200)
            #expect(config.json?["baseUrl"] is String)
            #expect(config.json?["dataRequests"] is [String: Any])

            let replacement =
                #"{"name":"study-2","dataUploadOnWifiOnly":false,"baseUrl":"https://opensense.example.org","configUpdatePeriod":3600,"dataArchivePeriod":300,"dataUploadPeriod":600,"maxDataFileSizeKb":512,"dataRequests":{"dk.dtu.imm.sensible.location":[{"interval":60}]}}"#
            let replaced = try await platform.request(.PUT, "/admin/v1/opensense/config", json: replacement, admin: true)
            #expect(replaced.status == 200, "\(replaced.text)")
            let version = try #require(replaced.json?["version"] as? Int)
            #expect(version >= 2)
            let current = try await platform.request(.GET, "/config")
            #expect(current.json?["name"] as? String == "study-2")
            #expect(current.json?["version"] as? Int == version)
            // A configuration change is an audited admin action: who published it, and with what outcome.
            let audited = try await platform.request(.GET, "/admin/v1/audit?action=PUT%20/admin/v1/opensense/config", admin: true)
            let entries = audited.json?["entries"] as? [[String: Any]] ?? []
            #expect(
                entries.contains {
                    $0["phase"] as? String == "end" && $0["status"] as? Int == 200 && $0["identity_label"] as? String == "custodian up"
                },
                "\(audited.text)")

            let invalid: [(String, String)] = [
                (#"{"name":"x","colour":"red"}"#, "unknown configuration keys: colour"),
                (
                    replacement.replacingOccurrences(of: #""dataUploadPeriod":600"#, with: #""dataUploadPeriod":"often""#),
                    "dataUploadPeriod must be a positive whole number"
                ),
                (replacement.replacingOccurrences(of: "https://opensense.example.org", with: "ftp://x"), "baseUrl must be an http(s) URL"),
            ]
            for (body, message) in invalid {
                let reply = try await platform.request(.PUT, "/admin/v1/opensense/config", json: body, admin: true)
                #expect(reply.status == 422, "\(body)")
                #expect((reply.json?["error"] as? [String: String])?["message"]?.hasSuffix(message) == true, "\(reply.text)")
            }
            #expect(try await platform.request(.GET, "/config").json?["version"] as? Int == version, "a refused document changes nothing")
        }

        @Test func uploadsAreIntegrityCheckedStoredPerBatchAndIdempotent() async throws {
            let platform = try platform
            let deviceID = UUID().uuidString
            #expect(try await Self.post("/register", [("device_id", deviceID)]).status == 200)
            let fields = [("device_id", deviceID), ("file_hash", Self.md5(Self.batches)), ("data", Self.batches)]
            let uploaded = try await Self.post("/upload", fields)
            #expect(uploaded.status == 200, "\(uploaded.text)")
            #expect(uploaded.text == #"{"status":"ok"}"# + "\n")
            let retried = try await Self.post("/upload", fields)
            #expect(retried.text == #"{"status":"ok"}"# + "\n")
            let stored = try platform.sql(
                """
                SELECT string_agg(b.probe || '@' || b.datetime || '@' || to_char(b.recorded_at AT TIME ZONE 'UTC', 'HH24:MI'), ',' ORDER BY b.id)
                FROM devices.opensense_batches b JOIN devices.opensense_devices d ON d.id = b.device_ref WHERE d.device_id = '\(deviceID)'
                """)
            #expect(stored == "dk.dtu.imm.sensible.battery@2013-06-01 12:30@12:30,dk.dtu.imm.sensible.location@2013-06-01 12:31@12:31")
            let devices = try await platform.request(.GET, "/admin/v1/opensense/devices", admin: true)
            let summary = try #require((devices.json?["devices"] as? [[String: Any]])?.first { $0["device_id"] as? String == deviceID })
            #expect(summary["uploads"] as? Int == 1)
            #expect(summary["batches"] as? Int == 2)
        }

        @Test func uploadErrorsCarryTheThesisMessages() async throws {
            let deviceID = UUID().uuidString
            #expect(try await Self.post("/register", [("device_id", deviceID)]).status == 200)
            let hash = Self.md5(Self.batches)
            let cases: [([(String, String)], String)] = [
                ([("file_hash", hash), ("data", Self.batches)], "Missing device_id parameter"),
                ([("device_id", deviceID), ("data", Self.batches)], "Missing file_hash parameter"),
                ([("device_id", deviceID), ("file_hash", "abc"), ("data", Self.batches)], "file_hash must be exactly 32 characters"),
                ([("device_id", deviceID), ("file_hash", hash)], "Missing data parameter"),
                ([("device_id", deviceID), ("file_hash", hash), ("data", Self.batches + " ")], "Integrity check failed"),
                ([("device_id", "never-registered"), ("file_hash", hash), ("data", Self.batches)], "Unknown device_id: register the device first"),
                ([("device_id", deviceID), ("file_hash", Self.md5(#"{"a":1}"#)), ("data", #"{"a":1}"#)], "data must be a JSON array of objects"),
                (
                    [("device_id", deviceID), ("file_hash", Self.md5("[1,2]")), ("data", "[1,2]")],
                    "data must be a JSON array of objects (entry 0 is not an object)"
                ),
                (
                    [("device_id", deviceID), ("file_hash", Self.md5(#"[{"level":1}]"#)), ("data", #"[{"level":1}]"#)],
                    "data entry 0 lacks its probe or datetime"
                ),
            ]
            for (fields, message) in cases {
                let reply = try await Self.post("/upload", fields)
                #expect(reply.status == 400, "\(fields)")
                #expect(reply.json?["error"] as? String == message, "\(reply.text)")
            }
            #expect(
                try platform.sql(
                    "SELECT count(*) FROM devices.opensense_uploads u JOIN devices.opensense_devices d ON d.id = u.device_ref WHERE d.device_id = '\(deviceID)'"
                ) == "0")
        }

        // MARK: The researchers' list and a device's page

        static func devices(_ query: String) async throws -> (ids: [String], next: String?) {
            let reply = try await platform.request(.GET, "/admin/v1/opensense/devices?\(query)", admin: true)
            #expect(reply.status == 200, "\(query): \(reply.text)")
            let ids = (reply.json?["devices"] as? [[String: Any]] ?? []).compactMap { $0["device_id"] as? String }
            return (ids, reply.json?["next_after"] as? String)
        }

        @Test func theListIsSearchedByTheStartOfADeviceIdAndPagedInRegistrationOrder() async throws {
            let prefix = "pg-\(UUID().uuidString.prefix(8))"
            var registered: [String] = []
            for index in 0..<5 {
                let id = "\(prefix)-\(index)"
                #expect(try await Self.post("/register", [("device_id", id)]).status == 200)
                registered.append(id)
            }
            let found = try await Self.devices("q=\(prefix)")
            #expect(found.ids == registered, "registration order")
            #expect(found.next == nil, "no limit, no next page")
            #expect(try await Self.devices("q=\(prefix)-3").ids == ["\(prefix)-3"])
            #expect(try await Self.devices("q=\(prefix.uppercased())").ids.isEmpty, "ids are matched as registered")
            #expect(try await Self.devices("q=%20\(prefix)-1%20").ids == ["\(prefix)-1"], "q is trimmed")
            #expect(try await Self.devices("q=%20").ids.count >= 5, "a blank q is no filter")

            // Pages of two: each page's cursor leads on to the next, and together they are the list.
            var paged: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try await Self.devices("q=\(prefix)&limit=2" + (cursor.map { "&after=\($0)" } ?? ""))
                paged += page.ids
                cursor = page.next
                pages += 1
            } while cursor != nil && pages < 10
            #expect(paged == registered)
            #expect(pages == 3)
            // A cursor holds a place, not a device: the page after the first two starts at the third whatever else came.
            let first = try await Self.devices("q=\(prefix)&limit=2")
            let rest = try await Self.devices("after=\(try #require(first.next))&q=\(prefix)")
            #expect(rest.ids == Array(registered.dropFirst(2)))
            // Without q, the page is every study device's, in the same order.
            let unfiltered = try await Self.devices("limit=1000")
            #expect(unfiltered.ids.filter { $0.hasPrefix(prefix) } == registered)
        }

        @Test(arguments: [
            ("limit=0", "limit must be a whole number from 1 to 1000"),
            ("limit=1001", "limit must be a whole number from 1 to 1000"),
            ("limit=ten", "limit must be a whole number from 1 to 1000"),
            ("limit=1&limit=2", "Give the query parameter 'limit' once, not 2 times"),
            ("after=yesterday", "after must be a next_after value of an earlier page"),
            ("after=1700000000000000-0", "after must be a next_after value of an earlier page"),
            ("after=-5-1", "after must be a next_after value of an earlier page"),
            ("after=99999999999999999999-1", "after must be a next_after value of an earlier page"),
            // Past what PostgreSQL's interval arithmetic takes: a 400 that names the parameter, not the database's refusal.
            ("after=9223372036854775807-1", "after must be a next_after value of an earlier page"),
            ("q=\(String(repeating: "a", count: 129))", "q must be at most 128 characters"),
            ("q=a&q=b", "Give the query parameter 'q' once, not 2 times"),
        ])
        func badListQueriesAre400sInTheAdminShape(query: String, message: String) async throws {
            let reply = try await platform.request(.GET, "/admin/v1/opensense/devices?\(query)", admin: true)
            #expect(reply.status == 400, "\(query): \(reply.text)")
            #expect((reply.json?["error"] as? [String: Any])?["message"] as? String == message, "\(reply.text)")
        }

        /// `YYYY-MM-DD`, UTC, `offset` days from `date`.
        static func day(_ date: Date, _ offset: Int = 0) -> String {
            Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().format(date.addingTimeInterval(Double(offset) * 86400))
        }

        static func upload(_ deviceID: String, _ times: [String]) async throws {
            let data = "[" + times.map { #"{"probe":"dk.dtu.imm.sensible.battery","datetime":"\#($0)","level":0.5}"# }.joined(separator: ",") + "]"
            let reply = try await post("/upload", [("device_id", deviceID), ("file_hash", md5(data)), ("data", data)])
            #expect(reply.status == 200, "\(reply.text)")
        }

        @Test func aDevicesPageCountsItsBatchesPerUTCDayAcrossAMonthBoundary() async throws {
            let deviceID = "days-\(UUID().uuidString)"
            #expect(try await Self.post("/register", [("device_id", deviceID)]).status == 200)
            let path = "/admin/v1/opensense/devices/\(deviceID)"
            let empty = try await platform.request(.GET, path, admin: true)
            #expect(empty.status == 200, "\(empty.text)")
            #expect(empty.json?["days"] as? [Any] != nil && (empty.json?["days"] as? [Any])?.isEmpty == true)
            #expect(empty.json?["last_upload"] is NSNull)

            // The first day of this month (UTC) and the last of the one before: both within the last 40 days.
            var utc = Calendar(identifier: .gregorian)
            utc.timeZone = .gmt
            let today = utc.startOfDay(for: Date())
            let firstOfMonth = try #require(utc.date(from: utc.dateComponents([.year, .month], from: today)))
            let (monthEnd, monthStart) = (Self.day(firstOfMonth, -1), Self.day(firstOfMonth))
            // As the app writes a batch's time, `yyyy-MM-dd HH:mm`, read as UTC.
            try await Self.upload(
                deviceID,
                [
                    monthEnd + " 10:00", monthEnd + " 23:59", monthStart + " 00:00", monthStart + " 00:01", monthStart + " 12:00",
                    Self.day(today, -50) + " 12:00",
                ])

            let page = try await platform.request(.GET, path + "?days=40", admin: true)
            #expect(page.status == 200, "\(page.text)")
            let json = try #require(page.json)
            #expect(json["device_id"] as? String == deviceID)
            #expect(json["to"] as? String == Self.day(today))
            #expect(json["from"] as? String == Self.day(today, -39))
            #expect(json["registered_at"] as? String != nil && json["last_upload"] as? String != nil)
            let days = (json["days"] as? [[String: Any]] ?? []).map { "\($0["date"] as? String ?? "?")=\($0["batches"] as? Int ?? -1)" }
            #expect(days == ["\(monthEnd)=2", "\(monthStart)=3"], "\(page.text)")

            let year = try await platform.request(.GET, path + "?days=366", admin: true)
            let yearDays = (year.json?["days"] as? [[String: Any]] ?? []).compactMap { $0["date"] as? String }
            #expect(yearDays == [Self.day(today, -50), monthEnd, monthStart])
            // Thirty days by default.
            #expect(try await platform.request(.GET, path, admin: true).json?["from"] as? String == Self.day(today, -29))

            let unknown = try await platform.request(.GET, "/admin/v1/opensense/devices/nobody-\(UUID().uuidString)", admin: true)
            #expect(unknown.status == 404)
            #expect((unknown.json?["error"] as? [String: Any])?["reason"] as? String == "device_not_found")
            for (query, message) in [
                ("days=0", "days must be a whole number from 1 to 366"), ("days=367", "days must be a whole number from 1 to 366"),
                ("days=week", "days must be a whole number from 1 to 366"), ("days=1&days=2", "Give the query parameter 'days' once, not 2 times"),
            ] {
                let reply = try await platform.request(.GET, path + "?" + query, admin: true)
                #expect(reply.status == 400, "\(query): \(reply.text)")
                #expect((reply.json?["error"] as? [String: Any])?["message"] as? String == message, "\(reply.text)")
            }
            #expect(try await platform.request(.GET, path).status == 401)
        }
    }
}
