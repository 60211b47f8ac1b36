import Foundation
import NIOHTTP1
import Testing

/// Retention (docs/operations.md, "Retention") on a platform of its own whose upkeep runs every 2 s: rows and
/// partitions are backdated, and after a pass exactly the expired ones are gone, and `/metrics` counts the passes.
@Suite(
    "Retention",
    .runningPlatform(settings: [
        "CUSTODIAN_RATE_LIMITS": "off", "CUSTODIAN_RETENTION_INTERVAL": "2s", "CUSTODIAN_RETENTION_MEASUREMENTS": "400d",
        "CUSTODIAN_RETENTION_OPENSENSE_BATCHES": "30d", "CUSTODIAN_RETENTION_VAULT_ITEMS": "30d", "CUSTODIAN_RETENTION_SHORT_LINKS": "30d",
    ]))
struct RetentionTests {
    static let classes = [
        ("devices", "measurements"), ("devices", "opensense_batches"), ("statistics", "lemon_submissions"), ("vault", "vault_items"),
        ("links", "short_links"),
    ]

    /// A retention figure of `/metrics`, nil when the class has none yet.
    static func figure(_ text: String, _ name: String, service: String, dataClass: String) -> Double? {
        let prefix = "\(name){service=\"\(service)\",data_class=\"\(dataClass)\"} "
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) }
    }

    /// Waits until every class has had a pass that began after `time` (Unix seconds).
    static func passesAfter(_ time: Double) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(40)
        while true {
            let metrics = try await platform.request(.GET, "/metrics").text
            let done = classes.allSatisfy {
                (figure(metrics, "custodian_retention_last_cutoff_timestamp_seconds", service: $0.0, dataClass: $0.1) ?? 0) > 0
                    && (figure(metrics, "custodian_retention_last_pass_timestamp_seconds", service: $0.0, dataClass: $0.1) ?? 0) > time + 0.5
            }
            if done { return metrics }
            guard ContinuousClock.now < deadline else { throw PlatformError("no retention pass of every class came; /metrics:\n\(metrics)") }
            try await Task.sleep(for: .milliseconds(300))
        }
    }

    @Test func aPassDeletesExactlyWhatIsOlderThanConfiguredAndIsCounted() async throws {
        let platform = try platform
        // Twomes: a month with a partition of its own that is wholly past, an old reading in the default partition, and
        // readings of this month.
        _ = try platform.sql("SET ROLE custodian_devices; SELECT devices.create_measurement_partition('2021-04-01')")
        let device = try await PlatformTests.TwomesProvisioning.provision()
        let session = try #require(
            try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"\#(device.deviceToken)"}"#).json?["session_token"]
                as? String)
        let now = Int(Date().timeIntervalSince1970)
        // 2021-04-10 (its own partition), 2021-05-28 (the default partition), and an hour ago.
        for time in [1_618_012_800, 1_622_237_550, now - 3600] {
            let body =
                #"{"upload_time":"\#(time)","property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":"\#(time)","value":"1"}]}]}"#
            let reply = try await platform.request(
                .POST, "/device/measurements/variable-interval", json: body, headers: [("Authorization", "Bearer \(session)")])
            #expect(reply.status == 200, "\(reply.text)")
        }

        // A reading older than the cutoff but in the cutoff's own month, which stays (its month is not wholly past),
        // from a device that sent nothing else: its upload must stay too, or the account's erasure could not find it.
        let inCutoffMonth = try #require(
            Int(
                try platform.sql(
                    """
                    SELECT extract(epoch FROM greatest(
                        date_trunc('month', (now() - interval '400 days') AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 hour',
                        now() - interval '401 days'))::bigint
                    """)))
        _ = try platform.sql("SET ROLE custodian_devices; SELECT devices.create_measurement_partition(to_timestamp(\(inCutoffMonth))::date)")
        let lone = try await PlatformTests.TwomesProvisioning.provision()
        let loneSession = try #require(
            try await platform.request(.POST, "/device/activate", json: #"{"activation_token":"\#(lone.deviceToken)"}"#).json?["session_token"]
                as? String)
        let loneBody =
            #"{"upload_time":"\#(inCutoffMonth)","property_measurements":[{"property_name":"heartbeat","measurements":[{"timestamp":"\#(inCutoffMonth)","value":"1"}]}]}"#
        #expect(
            try await platform.request(
                .POST, "/device/measurements/variable-interval", json: loneBody, headers: [("Authorization", "Bearer \(loneSession)")]
            ).status == 200)

        // OpenSense: two uploads, one of them received 40 days ago.
        let deviceID = "retention-\(UUID().uuidString)"
        _ = try await PlatformTests.OpenSense.post("/register", [("device_id", deviceID)])
        for level in ["0.1", "0.2"] {
            let data = #"[{"probe":"dk.dtu.imm.sensible.battery","datetime":"2013-06-01 12:30","level":\#(level)}]"#
            let uploaded = try await PlatformTests.OpenSense.post(
                "/upload", [("device_id", deviceID), ("data", data), ("file_hash", PlatformTests.OpenSense.md5(data))])
            #expect(uploaded.status == 200, "\(uploaded.text)")
        }
        // LEMON survey submissions: one 15 days old (past the 14-day default), one an hour old.
        let marker = UUID().uuidString
        _ = try platform.sql(
            """
            INSERT INTO statistics.submissions (device_sha256, body_sha256, submitted_at) VALUES
                (sha256('\(marker)-old'), sha256('a'), now() - interval '15 days'), (sha256('\(marker)-new'), sha256('b'), now() - interval '1 hour')
            """)
        // Vault records and short links: one of each 40 days old.
        let user = try await PlatformTests.Vault.newUser()
        var itemIDs: [Int] = []
        for note in ["old", "new"] {
            let written = try await platform.request(
                .POST, "/api/repos/eu.ownyourdata.retention/items", json: #"{"note":"\#(note)"}"#, headers: PlatformTests.Vault.bearer(user.token))
            itemIDs.append(try #require(written.json?["id"] as? Int, "\(written.text)"))
        }
        var codes: [String] = []
        for _ in 0..<2 {
            let link = try await platform.request(.POST, "/admin/v1/links", json: #"{"app_url":"https://example.org/x"}"#, admin: true)
            codes.append(try #require(link.json?["code"] as? String, "\(link.text)"))
        }

        _ = try platform.sql(
            """
            UPDATE devices.opensense_uploads SET received_at = now() - interval '40 days'
              WHERE id = (SELECT min(u.id) FROM devices.opensense_uploads u JOIN devices.opensense_devices d ON d.id = u.device_ref
                          WHERE d.device_id = '\(deviceID)');
            UPDATE devices.uploads u SET server_time = to_timestamp(u.device_time::date::timestamp::text, 'YYYY-MM-DD') FROM devices.devices d
              WHERE d.id = u.device_id AND d.name = '\(device.deviceName)' AND u.device_time < '2022-01-01';
            UPDATE devices.uploads u SET server_time = to_timestamp(\(inCutoffMonth)) FROM devices.devices d
              WHERE d.id = u.device_id AND d.name = '\(lone.deviceName)';
            UPDATE vault.items SET created_at = now() - interval '40 days' WHERE id = \(itemIDs[0]);
            UPDATE links.short_links SET created_at = now() - interval '40 days' WHERE code = '\(codes[0])'
            """)
        let backdated = Date().timeIntervalSince1970
        let metrics = try await Self.passesAfter(backdated)

        // Exactly the expired ones are gone.
        #expect(try platform.sql("SELECT to_regclass('devices.measurements_2021_04') IS NULL") == "t", "the wholly expired month stays")
        let readings = try await platform.request(.GET, "/admin/v1/measurements?format=ndjson&pseudonym=\(device.pseudonym)", admin: true)
        #expect(readings.text.split(separator: "\n").count == 1 && !readings.text.contains("2021-"), "\(readings.text)")
        let thisMonth = try platform.sql("SELECT 'devices.measurements_' || to_char(now() AT TIME ZONE 'UTC', 'YYYY_MM')")
        #expect(try platform.sql("SELECT to_regclass('\(thisMonth)') IS NOT NULL") == "t")
        #expect(
            try platform.sql(
                """
                SELECT count(*) FROM devices.opensense_batches b JOIN devices.opensense_devices d ON d.id = b.device_ref
                WHERE d.device_id = '\(deviceID)'
                """) == "1")
        #expect(
            try platform.sql(
                "SELECT string_agg(encode(device_sha256, 'hex'), ',') FROM statistics.submissions WHERE device_sha256 IN (sha256('\(marker)-old'), sha256('\(marker)-new'))"
            )
                == platform.sql("SELECT encode(sha256('\(marker)-new'), 'hex')"))
        #expect(
            try platform.sql("SELECT string_agg(id::text, ',') FROM vault.items WHERE id IN (\(itemIDs[0]), \(itemIDs[1]))") == String(itemIDs[1]))
        #expect(try await platform.request(.GET, "/l/\(codes[0])").status == 404)
        // The old readings' uploads went with them, the recent one's stayed; through it, an erasure still finds the
        // device of the account's one remaining reading.
        let uploads = "SELECT count(*) FROM devices.uploads u JOIN devices.devices d ON d.id = u.device_id WHERE d.name = '\(device.deviceName)'"
        #expect(try platform.sql(uploads) == "1")
        let erased = try await platform.request(.DELETE, "/admin/v1/accounts/\(device.pseudonym)", admin: true)
        #expect((erased.json?["deleted"] as? [String: Int])?["measurements"] == 1, "\(erased.text)")
        let loneErased = try await platform.request(.DELETE, "/admin/v1/accounts/\(lone.pseudonym)", admin: true)
        #expect((loneErased.json?["deleted"] as? [String: Int])?["measurements"] == 1, "\(loneErased.text)")
        #expect(try await platform.request(.GET, "/l/\(codes[1])").status == 200)

        // Counted: every class has passes, and what went is in the totals.
        for (service, dataClass) in Self.classes {
            #expect((Self.figure(metrics, "custodian_retention_passes_total", service: service, dataClass: dataClass) ?? 0) >= 1, "\(dataClass)")
        }
        #expect((Self.figure(metrics, "custodian_retention_deleted_total", service: "devices", dataClass: "measurements") ?? 0) >= 2)
        for (service, dataClass) in Self.classes.dropFirst() {
            #expect((Self.figure(metrics, "custodian_retention_deleted_total", service: service, dataClass: dataClass) ?? 0) >= 1, "\(dataClass)")
        }
        let log = (try? String(contentsOfFile: platform.dataDirectory + "/logs/devices.log", encoding: .utf8)) ?? ""
        #expect(log.contains("retention pass") && log.contains("measurements_2021_04"))
    }

}
