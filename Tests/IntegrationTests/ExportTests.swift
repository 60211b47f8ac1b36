import Foundation
import NIOHTTP1
import Testing

extension PlatformTests {
    /// Researcher exports, streamed page by page through the gateway.
    @Suite("Researcher exports")
    struct Exports {
        @Test func measurementsOfADeviceExportAsCSVAcrossPages() async throws {
            let platform = try platform
            let device = try await TwomesProvisioning.provision(type: "OpenTherm-Monitor")
            let session = try #require(
                try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"\#(device.deviceToken)"}"#).json?["session_token"]
                    as? String)
            // 2500 samples: three pages of the export.
            let values = (0..<2500).map { "\"\(20 + Double($0 % 10) / 10)\"" }.joined(separator: ",")
            let upload =
                #"{"upload_time":1700000000,"property_measurements":[{"property_name":"roomTemp","timestamp":1700000000,"timestamp_type":"start","interval":60,"measurements":[\#(values)]}]}"#
            #expect(
                try await platform.request(
                    .POST, "/device/measurements/fixed-interval", json: upload, headers: [("Authorization", "Bearer \(session)")]
                ).status == 200)

            let csv = try await platform.request(.GET, "/admin/v1/measurements?device=\(device.deviceName)&format=csv", admin: true)
            #expect(csv.status == 200)
            #expect(csv.headers.first(name: "Content-Type") == "text/csv; charset=utf-8")
            #expect(csv.headers.first(name: "Content-Disposition") == #"attachment; filename="measurements.csv""#)
            let lines = csv.text.split(separator: "\r\n", omittingEmptySubsequences: true)
            #expect(lines.count == 2501)
            #expect(lines.first == "pseudonym,device,device_type,property,unit,timestamp,value")
            #expect(
                lines.dropFirst().first == "\(device.pseudonym),\(device.deviceName),OpenTherm-Monitor,roomTemp,°C,2023-11-14T22:13:20+00:00,20.0")
            #expect(lines.last == "\(device.pseudonym),\(device.deviceName),OpenTherm-Monitor,roomTemp,°C,2023-11-16T15:52:20+00:00,20.9")

            // NDJSON, by pseudonym and property over a time range: the first hour holds 60 samples.
            let ndjson = try await platform.request(
                .GET, "/admin/v1/measurements?pseudonym=\(device.pseudonym)&property=roomTemp&from=1700000000&to=2023-11-14T23:13:20Z&format=ndjson",
                admin: true)
            #expect(ndjson.status == 200)
            #expect(ndjson.headers.first(name: "Content-Type") == "application/x-ndjson")
            let records = ndjson.text.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(records.count == 60)
            #expect(records.first??["value"] as? String == "20.0")
            #expect(records.first??["pseudonym"] as? Int == device.pseudonym)

            // An offset's `+` pasted into the URL as it is (a query reads it as a space) means the same bound.
            for to in ["2023-11-14T23:13:20+00:00", "2023-11-15T00:13:20+01:00", "2023-11-14T23:13:20%2B00:00"] {
                let pasted = try await platform.request(
                    .GET, "/admin/v1/measurements?pseudonym=\(device.pseudonym)&property=roomTemp&from=1700000000&to=\(to)&format=ndjson", admin: true
                )
                #expect(
                    pasted.status == 200 && pasted.text.split(separator: "\n").count == 60, "to=\(to): \(pasted.status) \(pasted.text.prefix(200))")
            }
        }

        @Test func exportRequestsAreValidated() async throws {
            let platform = try platform
            let badFormat = try await platform.request(.GET, "/admin/v1/measurements?format=xml", admin: true)
            #expect(badFormat.status == 400)
            #expect(badFormat.text == #"{"error":{"message":"format must be csv or ndjson","reason":"invalid_query"}}"# + "\n")
            #expect(try await platform.request(.GET, "/admin/v1/measurements?from=yesterday", admin: true).status == 400)
            #expect(try await platform.request(.GET, "/admin/v1/measurements?pseudonym=x", admin: true).status == 400)
            #expect(try await platform.request(.GET, "/admin/v1/measurements").status == 401)
            #expect(try await platform.request(.GET, "/admin/v1/opensense/batches?format=pdf", admin: true).status == 400)
        }

        @Test func openSenseBatchesExportByDeviceAndProbe() async throws {
            let platform = try platform
            let deviceID = UUID().uuidString
            #expect(try await OpenSense.post("/register", [("device_id", deviceID)]).status == 200)
            let data = OpenSense.batches
            #expect(try await OpenSense.post("/upload", [("device_id", deviceID), ("file_hash", OpenSense.md5(data)), ("data", data)]).status == 200)
            let csv = try await platform.request(.GET, "/admin/v1/opensense/batches?device_id=\(deviceID)", admin: true)
            #expect(csv.status == 200)
            let lines = csv.text.split(separator: "\r\n")
            #expect(lines.count == 3)
            #expect(lines.first == "device_id,probe,datetime,payload")
            #expect(lines.dropFirst().first?.hasPrefix("\(deviceID),dk.dtu.imm.sensible.battery,2013-06-01 12:30,\"{") == true)
            let ndjson = try await platform.request(
                .GET, "/admin/v1/opensense/batches?device_id=\(deviceID)&probe=dk.dtu.imm.sensible.location&format=ndjson", admin: true)
            let record = try #require(try JSONSerialization.jsonObject(with: Data(ndjson.text.utf8)) as? [String: Any])
            #expect((record["payload"] as? [String: Any])?["lat"] as? Double == 55.78)
            let inRange = try await platform.request(
                .GET, "/admin/v1/opensense/batches?device_id=\(deviceID)&from=2013-06-01T12:31:00Z&format=ndjson", admin: true)
            #expect(inRange.text.split(separator: "\n").count == 1)
        }
    }
}
