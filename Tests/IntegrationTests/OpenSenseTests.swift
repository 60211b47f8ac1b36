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
    }
}
